"""The search spaces of the reward-model and agent searches, bound in gin.

    RewardSearchSpace.hyperparameters = {"learning_rate": (3e-4, 1e-3, 3e-3),
                                         "normalize_goal": (False, True)}
    AgentSearchSpace.hyperparameters = {"polyak": {"min": 0.9, "max": 0.99}}

A space maps fields of the tuned configuration (`RewardTrainConfig`, `TrainConfig`) to a tuple
of values or a range (`search_space`); a field of the agent's reward model is named by its flat
key, ``"reward_model.learning_rate"`` (the earlier ``"reward_learning_rate"`` is read as it).
Only the fields listed in ``REWARD_TUNABLE`` and ``AGENT_TUNABLE`` may be searched: the others
set the training budget (which every trial shares) or the task. Unbound, a space is the default
one below.
"""

from __future__ import annotations

import dataclasses

import gin

REWARD_TUNABLE = (
    "learning_rate",
    "batch_size",
    "positive_ratio",
    "hidden_units",
    "normalize_goal",
    "pair_gate",
    "pair_relations",
)
AGENT_TUNABLE = (
    "actor_learning_rate",
    "critic_learning_rate",
    "gamma",
    "polyak",
    "target_update_period",
    "action_l2",
    "noise_stddev",
    "random_action_probability",
    "exploit_probability",
    "final_goal_ratio",
    "batch_size",
    "hidden_units",
    "num_candidates",
    "clip_targets",
    "final_layer_init",
    "reward_model.learning_rate",
    "reward_model.positive_ratio",
    "reward_model.batch_size",
    "reward_model.normalize_goal",
    "imagined_target_probability",
    "imagined_candidate_share",
)

# The fields each reward architecture ignores: FC has no attention gate, only MA-pairs has a
# pair gate and relation features.
REWARD_IGNORED = {
    "ma": ("pair_gate", "pair_relations"),
    "fa": ("pair_gate", "pair_relations"),
    "fc": ("normalize_goal", "pair_gate", "pair_relations"),
    "ma_pairs": (),
}

DEFAULT_REWARD_SPACE = {
    "learning_rate": {"min": 3e-5, "max": 1e-2, "sampling": "log"},
    "batch_size": (256, 512, 1024),
    "positive_ratio": {"min": 0.1, "max": 0.5},
    "hidden_units": (50, 100, 200),
    "normalize_goal": (False, True),
    "pair_gate": ("per_slot", "shared", "residual"),
    "pair_relations": (False, True),
}
DEFAULT_AGENT_SPACE = {
    "actor_learning_rate": {"min": 1e-4, "max": 3e-3, "sampling": "log"},
    "critic_learning_rate": {"min": 1e-4, "max": 3e-3, "sampling": "log"},
    "polyak": {"min": 0.9, "max": 0.99},
    "final_goal_ratio": {"min": 0.0, "max": 0.8},
}


@gin.configurable
@dataclasses.dataclass(frozen=True)
class RewardSearchSpace:
    """What `imagine-tf tune reward` searches over.

    Attributes:
      hyperparameters: {`RewardTrainConfig` field: values or range}; None: the default space
        without the fields the architecture ignores.
    """

    hyperparameters: dict | None = None

    def of(self, architecture: str) -> dict:
        """The space searched for ``architecture``."""
        if self.hyperparameters is not None:
            return dict(self.hyperparameters)
        ignored = REWARD_IGNORED[architecture]
        return {k: v for k, v in DEFAULT_REWARD_SPACE.items() if k not in ignored}


@gin.configurable
@dataclasses.dataclass(frozen=True)
class AgentSearchSpace:
    """What `imagine-tf tune agent` searches over.

    Attributes:
      hyperparameters: {`TrainConfig` field or flat key: values or range}; None:
        ``DEFAULT_AGENT_SPACE``.
    """

    hyperparameters: dict | None = None

    def space(self) -> dict:
        return dict(DEFAULT_AGENT_SPACE if self.hyperparameters is None else self.hyperparameters)
