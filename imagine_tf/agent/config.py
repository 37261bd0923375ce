"""`TrainConfig`: everything a co-training run does, one gin-bindable frozen dataclass.

Defaults are the reference's (Colas et al. 2020, IMAGINE; Karch, Colas et al. 2020, Deep Sets),
except where a comment says otherwise. Every model and training knob lives here — DDPG's γ,
polyak, learning rates and exploration noise included, and the reward model's settings in the
nested `RewardModelConfig` (``reward_model``) — so that a gin file reproduces a run;
command-line flags carry only where and how (paths, threads, number of actor processes).
"""

from __future__ import annotations

import dataclasses
import json

import gin

from imagine_tf.constants import AUTO, POLICY_ARCHITECTURES
from imagine_tf.constants import COMPUTE_DTYPES as NETWORK_COMPUTE_DTYPES
from imagine_tf.language.imagination import IMAGINATION_METHODS
from imagine_tf.old_names import nested_train_config
from imagine_tf.reward.config import SUPERVISED_ONLY, RewardModelConfig
from imagine_tf.runs.config_keys import flat_config

REWARDS = ("learned", "oracle")
PREDICATES = ("Go", "Grasp", "Grow")
COMPUTE_DTYPES = (AUTO, *NETWORK_COMPUTE_DTYPES)


@gin.configurable
@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """What a run does (defaults: the reference's)."""

    architecture: str = "ma"  # policy: ma | fa | fc
    reward: str = "learned"  # learned | oracle (relabelling rewards)
    # The learned reward: its network, and how each co-training update retrains it from the
    # partner's feedback (`CoLearnedReward`); bound as ``RewardModelConfig.<field>``.
    reward_model: RewardModelConfig = dataclasses.field(default_factory=RewardModelConfig)
    # The co-training schedule: the reward model is retrained every this many epochs.
    reward_update_every: int = 2
    num_objects: int = 3
    # Scenes of varying size (not in the papers; their suggestion): with min_objects = n, each
    # cycle's scenes have a number of objects drawn uniformly in [n, num_objects], padded to
    # num_objects (`env.object_padding`); MA policy and reward only. None: always num_objects.
    min_objects: int | None = None
    # One cycle: an actor plays this many episodes (the reference's 6 workers × 2), then the
    # learner makes `updates_per_cycle` updates. With K actor processes the ratio holds.
    episodes_per_cycle: int = 12
    cycles_per_epoch: int = 50
    updates_per_cycle: int = 50
    batch_size: int = 256
    num_candidates: int = 50
    exploit_probability: float = 0.1
    # The goal families the social partner speaks of (its other descriptions are not given):
    # ("Go",) makes a reaching task that a few hundred updates learn (configs/agent/smoke.gin).
    goal_predicates: tuple = ("Go", "Grasp", "Grow")
    # DDPG (Lillicrap et al. 2016, as the reference trains it; see `agent/ddpg.py`).
    actor_learning_rate: float = 1e-3
    critic_learning_rate: float = 1e-3
    gamma: float = 0.98
    polyak: float = 0.95  # target <- polyak * target + (1 - polyak) * main: tau = 1 - polyak
    target_update_period: int = 50  # updates between target moves: once per cycle
    action_l2: float = 1.0
    noise_stddev: float = 0.2
    random_action_probability: float = 0.3
    clip_targets: bool = True  # TD targets clipped to [-1 / (1 - gamma), 0]
    hidden_units: int = 256  # actor / critic hidden width
    # Actor / critic output layers: "small_uniform" (DDPG paper, TF-Agents) or "he_uniform"
    # (the reference; its untrained actor drives the hand into one wall), see `final_dense`.
    final_layer_init: str = "small_uniform"
    # Actor / critic hidden layers and the relabelling scan (MA / FA reward): "float32", or
    # "bfloat16" mixed precision (float32 weights, ≈ 1.75× faster products on AVX512_BF16
    # CPUs), see `DeepSetsTrunk` and `RewardNetwork.scan`; "auto": bfloat16 where it is native
    # (`precision.resolve_compute_dtype`). A run records the resolved value (`run_precision`).
    compute_dtype: str = "float32"
    # Share of each batch that keeps the goal its episode was drawn for by goal-biased sampling
    # (HER's "final" strategy; not in the reference, which uses 0), see `HerRelabeler`.
    final_goal_ratio: float = 0.0
    # IMAGINE's goal imagination (Colas et al. 2020), see `GoalImagination`: "none" (the Deep
    # Sets paper), "cgh" (IMAGINE), or the ablations "oracle" (the test goals) and "random".
    # From epoch `imagination_start` (0-based; the reference's "from_epoch_10", which its code
    # applies from epoch 12), goals are re-invented after each discovery; per cycle, with
    # probability `imagined_target_probability` the targets are imagined goals; that share of
    # the relabelling candidates are; and each episode's final state is checked against up to
    # `imagined_replay_checks` imagined goals by the learned reward for the goal-biased replay.
    imagination: str = "none"
    imagination_start: int = 10
    imagined_target_probability: float = 0.5
    imagined_candidate_share: float = 0.5
    imagined_replay_checks: int = 50
    max_imagined_goals: int = 512
    replay_capacity: int = 50_000  # episodes
    memory_capacity: int = 50_000  # final states
    # With actor processes: how many cycles of episodes may wait in the replay server's queue
    # (actors block beyond it, so they never run further ahead of the learner).
    queue_cycles: int = 2
    seed: int = 0

    def __post_init__(self):
        for name, allowed in (("architecture", POLICY_ARCHITECTURES), ("reward", REWARDS)):
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"TrainConfig.{name} must be one of {allowed}, got {getattr(self, name)!r}."
                )
        if self.min_objects is not None and not (
            1 <= self.min_objects <= self.num_objects
            and self.architecture == self.reward_model.architecture == "ma"
        ):
            raise ValueError(
                f"TrainConfig.min_objects = {self.min_objects} needs 1 <= min_objects <= "
                f"num_objects = {self.num_objects} and the MA policy and reward (they leave the "
                f"padded slots out), got {self.architecture} / {self.reward_model.architecture}."
            )
        if self.compute_dtype not in COMPUTE_DTYPES:
            raise ValueError(
                f"TrainConfig.compute_dtype must be one of {COMPUTE_DTYPES}, got "
                f"{self.compute_dtype!r}: 'auto' is bfloat16 where the hardware has it natively."
            )
        if self.imagination not in IMAGINATION_METHODS:
            raise ValueError(
                f"TrainConfig.imagination must be one of {IMAGINATION_METHODS}, got "
                f"{self.imagination!r}: 'cgh' is IMAGINE's heuristic, 'none' turns it off."
            )
        for name in ("final_goal_ratio", "imagined_target_probability", "imagined_candidate_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(
                    f"TrainConfig.{name} must be in [0, 1], got {getattr(self, name)}."
                )
        unknown = set(self.goal_predicates) - set(PREDICATES)
        if unknown or not self.goal_predicates:
            raise ValueError(
                f"TrainConfig.goal_predicates must be a non-empty subset of {PREDICATES}, got "
                f"{tuple(self.goal_predicates)!r}."
            )
        for name in (
            "episodes_per_cycle",
            "cycles_per_epoch",
            "batch_size",
            "queue_cycles",
            "hidden_units",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"TrainConfig.{name} must be >= 1, got {getattr(self, name)}.")
        self._check_reward_model()

    def _check_reward_model(self) -> None:
        """Raises ValueError for reward-model settings that co-training cannot use."""
        if not isinstance(self.reward_model, RewardModelConfig):
            raise ValueError(
                "TrainConfig.reward_model must be a RewardModelConfig (bind its fields as "
                f"RewardModelConfig.<field>), got {self.reward_model!r}."
            )
        self.reward_model.check_defaults(SUPERVISED_ONLY, "TrainConfig.reward_model")
        if self.reward_model.positive_ratio is None:
            raise ValueError(
                "TrainConfig.reward_model.positive_ratio must be a number: co-training samples "
                "balanced batches (None, uniform pairs, is for supervised runs)."
            )

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=1)

    def differences(self, stored: dict) -> dict[str, tuple]:
        """`config_differences` of a stored ``config.json`` from this config."""
        return config_differences(stored, self)

    @classmethod
    def from_json(cls, text: str) -> "TrainConfig":
        """A config from `to_json`'s text; fields it lacks (added later) take their defaults,
        and the flat ``reward_<field>`` keys of earlier runs are `reward_model`'s fields."""
        stored = nested_train_config(json.loads(text))
        values = _known(cls, stored)
        if "goal_predicates" in values:
            values["goal_predicates"] = tuple(values["goal_predicates"])
        if "reward_model" in values:
            values["reward_model"] = RewardModelConfig(
                **_known(RewardModelConfig, values["reward_model"])
            )
        return cls(**values)


def _known(cls, values: dict) -> dict:
    """The entries of ``values`` that are fields of the dataclass ``cls``."""
    known = {field.name for field in dataclasses.fields(cls)}
    return {key: value for key, value in values.items() if key in known}


def config_differences(stored: dict, current: "TrainConfig") -> dict[str, tuple]:
    """{key: (stored value, current value)} for the settings ``stored`` (a ``config.json``)
    has that differ, on flat keys (`flat_config`: "reward_model.max_epochs"; a stored flat
    "reward_max_epochs" is that key).

    Settings ``stored`` lacks (added to `TrainConfig` after it was written) are not compared.
    """
    stored = flat_config(stored)
    current_values = flat_config(json.loads(json.dumps(dataclasses.asdict(current))))
    return {
        key: (stored[key], value)
        for key, value in current_values.items()
        if key in stored and stored[key] != value
    }


def binding_name(key: str) -> str:
    """The gin name that binds the setting of flat key ``key`` (`config_keys`):
    "TrainConfig.polyak", "RewardModelConfig.learning_rate" for "reward_model.learning_rate"."""
    name, _, field = key.partition(".")
    if not field:
        return f"TrainConfig.{key}"
    nested = {f.name: f.default_factory for f in dataclasses.fields(TrainConfig)}
    return f"{nested[name].__name__}.{field}"


# tf_agents' `DdpgAgent` is gin-configurable once its module is imported, and a user who knows
# TF-Agents may bind it; this project's `Ddpg` takes these settings from `TrainConfig`: such a
# binding would be silently ignored.
AGENT_ARGUMENTS = {
    "DdpgAgent.gamma": "TrainConfig.gamma",
    "DdpgAgent.target_update_tau": "TrainConfig.polyak (tau = 1 - polyak)",
    "DdpgAgent.target_update_period": "TrainConfig.target_update_period",
    "DdpgAgent.actor_optimizer": "TrainConfig.actor_learning_rate (Adam)",
    "DdpgAgent.critic_optimizer": "TrainConfig.critic_learning_rate (Adam)",
    "DdpgAgent.td_errors_loss_fn": "nothing: the critic loss is the squared TD error",
}


def check_agent_bindings() -> None:
    """Raises ValueError naming the `TrainConfig` field to bind instead of a bound
    ``DdpgAgent`` argument (`Ddpg` takes it from `TrainConfig`)."""
    for binding, field in AGENT_ARGUMENTS.items():
        try:
            gin.query_parameter(binding)
        except ValueError:  # not bound (or DdpgAgent not registered)
            continue
        raise ValueError(
            f"The gin binding {binding} has no effect: the agent takes it from the run's "
            f"configuration. Bind {field} instead."
        )
