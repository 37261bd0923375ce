"""The reward model's settings, bound in gin: the model itself, one supervised run, a study.

* `RewardModelConfig`: every setting of the reward model, for both ways of training it.
  Co-training (`imagine-tf train`): `TrainConfig.reward_model` is one, and
  `imagine_tf.reward.co_learning.CoLearnedReward` retrains the network with it from the
  partner's feedback. Bound in gin as ``RewardModelConfig.<field>``.
* `RewardTrainConfig`: one supervised run (`imagine-tf reward train --gin-file
  configs/reward/ma.gin --root-dir R`): the model's settings and the data it reads,
  trained by `imagine_tf.reward.supervised_training.SupervisedTrainer`. Bound in gin as
  ``RewardTrainConfig.<field>``; ``train_reward_model.<field>`` is a second name of it (the
  name the operative configs of `reward train` runs hold); the first name wins.
* `RewardStudyConfig`: which runs a study makes of it (`imagine-tf reward study --gin-file
  configs/studies/reward_generalization.gin --root-dir R`): one per architecture and seed, or
  ensembles of ``ensemble_size`` runs per seed. Command-line flags give only paths, threads and
  a study's seeds.

The defaults are the reference's co-training (Colas et al. 2020, IMAGINE; flowersteam/Imagine).
The supervised runs differ in one: their learning rate defaults to the paper's per
architecture (`RewardTrainConfig.learning_rate` = None). A few settings belong to one way only
(`SUPERVISED_ONLY`, `CO_TRAINING_ONLY`): the other refuses a value other than the default
(`check_defaults`), rather than ignore it. No TensorFlow here.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Sequence

import gin

from imagine_tf.constants import PAIR_GATES, REWARD_AGGREGATIONS, REWARD_ARCHITECTURES
from imagine_tf.data.supervised import GOAL_SETS
from imagine_tf.runs.config_files import parse_config_files

DEFAULT_LEARNING_RATE = {"ma": 1e-3, "ma_pairs": 1e-3, "fa": 1e-4, "fc": 1e-4}
#: what a supervised run reads and a co-training run does not: field -> what co-training does
SUPERVISED_ONLY = {
    "validation_fraction": "it holds out the most recent final states (max_held_out)",
    "seed": "its reward model is seeded by TrainConfig.seed",
    "max_training_seconds": "its updates are bounded by max_epochs and patience",
}
#: what a co-training run reads and a supervised run does not: field -> what supervised does
CO_TRAINING_ONLY = {"max_held_out": "it holds out validation_fraction of the training episodes"}


@gin.configurable
@dataclasses.dataclass(frozen=True)
class RewardModelConfig:
    """The reward model: its network, and how a training session (a supervised run, or one
    update of co-training) fits it.

    Attributes:
      architecture: "ma", "fa", "fc" or "ma_pairs".
      hidden_units: the modules' width.
      normalize_goal: the gates read the L2-normalised goal embedding (not in the paper; see
        `GatedAttention`): in the supervised studies it left the early F1 plateau sooner.
      aggregation: how MA and MA-pairs combine their modules: "or" (the pretrained OR net on
        the sorted probabilities), "or_unsorted" (the net in object order: the reference's,
        used by its converted weights) or "max" (`OrNetwork`).
      pair_gate, pair_relations: MA-pairs' gate variant and relation features (not in the
        paper; `RewardNetwork`); other architectures keep "per_slot" and False.
      learning_rate: Adam's; None: 1e-3 (MA, MA-pairs) or 1e-4 (FA, FC)
        (`resolved_learning_rate`).
      batch_size, batches_per_epoch, positive_ratio: an epoch's balanced batches.
      max_epochs, patience: at most ``max_epochs`` epochs; stop after ``patience`` epochs
        without a better held-out F1, and keep the best weights.
      validation_fraction: supervised: the training episodes held out for early stopping.
      max_held_out: co-training: an update holds out the most recent min(new, max_held_out)
        final states for early stopping.
      seed: supervised: initialisation, batches and validation split.
      max_training_seconds: supervised: stop after the epoch that exceeds it (all sessions).
    """

    architecture: str = "ma"
    learning_rate: float | None = 1e-3
    batch_size: int = 512
    batches_per_epoch: int = 200
    max_epochs: int = 100
    patience: int = 15
    positive_ratio: float | None = 0.2
    hidden_units: int = 100
    normalize_goal: bool = False
    aggregation: str = "or"
    pair_gate: str = "per_slot"
    pair_relations: bool = False
    validation_fraction: float = 0.1
    max_held_out: int = 120
    seed: int = 0
    max_training_seconds: float | None = None

    def __post_init__(self):
        name = type(self).__name__
        for field, allowed in (
            ("architecture", REWARD_ARCHITECTURES),
            ("pair_gate", PAIR_GATES),
            ("aggregation", REWARD_AGGREGATIONS),
        ):
            if getattr(self, field) not in allowed:
                raise ValueError(
                    f"{name}.{field} must be one of {allowed}, got {getattr(self, field)!r}."
                )
        for field in ("batch_size", "batches_per_epoch", "max_epochs", "patience", "hidden_units"):
            if getattr(self, field) < 1:
                raise ValueError(f"{name}.{field} must be >= 1, got {getattr(self, field)}.")
        if not 0.0 < self.validation_fraction < 1.0:
            raise ValueError(
                f"{name}.validation_fraction must be in (0, 1), got {self.validation_fraction}."
            )

    @property
    def resolved_learning_rate(self) -> float:
        return self.learning_rate or DEFAULT_LEARNING_RATE[self.architecture]

    def check_defaults(self, fields: dict, owner: str) -> None:
        """Raises ValueError if one of ``fields`` ({field: why}) is not at its default:
        a setting that ``owner`` (a way of training) does not read."""
        defaults = {f.name: f.default for f in dataclasses.fields(RewardModelConfig)}
        for field, why in fields.items():
            if getattr(self, field) != defaults[field]:
                raise ValueError(
                    f"{owner}: {field} = {getattr(self, field)!r} would have no effect ({why}). "
                    f"Leave it at its default, {defaults[field]!r}."
                )


ARCHITECTURES = REWARD_ARCHITECTURES


@gin.configurable
@dataclasses.dataclass(frozen=True)
class RewardTrainConfig(RewardModelConfig):
    """One supervised reward run (defaults: the paper's): the reward model's settings
    (`RewardModelConfig`, the attributes there) and the data the run reads.

    Attributes:
      learning_rate: Adam's; None (the default here): 1e-3 (MA, MA-pairs) or 1e-4 (FA, FC).
      goal_set: the goals learned and scored (`imagine_tf.data.supervised.goal_set`):
        "one_object" (the 191 / 64 generalization study), "all" (the two-object study) or
        "grasp".
      max_train_episodes, max_test_episodes: use at most this many episodes (None: all).
    """

    learning_rate: float | None = None
    goal_set: str = "one_object"
    max_train_episodes: int | None = None
    max_test_episodes: int | None = None

    def __post_init__(self):
        super().__post_init__()
        if self.goal_set not in GOAL_SETS:
            raise ValueError(
                f"RewardTrainConfig.goal_set must be one of {GOAL_SETS}, got {self.goal_set!r}."
            )
        self.check_defaults(CO_TRAINING_ONLY, "A supervised reward run")


@gin.configurable
@dataclasses.dataclass(frozen=True)
class RewardStudyConfig:
    """The runs of a study, for each seed s of ``imagine-tf reward study --seeds``.

    Attributes:
      architectures: one run per architecture; () : `RewardTrainConfig.architecture` alone.
      ensemble_size: K > 1: seed s is the ensemble (mean probability) of the runs of seeds
        F + s·K … F + s·K + K − 1 (not in the paper; `reward_ensemble`).
      first_member_seed: F, the seed of ensemble 0's first member. An experiment that sets
        ensembles against single runs of seeds 0 … S − 1 sets F ≥ S, so that no member is one
        of the single runs (the two samples stay independent, as Welch's test assumes).
    """

    architectures: tuple = ()
    ensemble_size: int = 1
    first_member_seed: int = 0

    def __post_init__(self):
        unknown = [a for a in self.architectures if a not in ARCHITECTURES]
        if unknown or isinstance(self.architectures, str):
            raise ValueError(
                f"RewardStudyConfig.architectures must be a tuple of {ARCHITECTURES}, got "
                f"{self.architectures!r}."
            )
        if self.ensemble_size < 1:
            raise ValueError(
                f"RewardStudyConfig.ensemble_size must be >= 1, got {self.ensemble_size}."
            )
        if self.first_member_seed < 0:
            raise ValueError(
                "RewardStudyConfig.first_member_seed must be >= 0, got "
                f"{self.first_member_seed}."
            )

    def architectures_of(self, config: RewardTrainConfig) -> tuple[str, ...]:
        """The architectures studied: ``architectures``, else ``config``'s."""
        return tuple(self.architectures) or (config.architecture,)


@gin.configurable("train_reward_model")
def _second_name(**values) -> dict:
    """The ``train_reward_model.<field>`` bindings (see the module docstring)."""
    return values


FIELDS = tuple(field.name for field in dataclasses.fields(RewardTrainConfig))
SECOND_NAME_IGNORED = ("progress",)  # a recipe argument, not a setting


def reward_train_config(**overrides) -> RewardTrainConfig:
    """The gin-bound `RewardTrainConfig`, with the ``train_reward_model.<field>`` bindings of
    the fields not bound as ``RewardTrainConfig.<field>``; ``overrides`` win over both.

    Raises ValueError for a ``train_reward_model`` binding that names no field.
    """
    values = _second_name()
    unknown = sorted(set(values) - set(FIELDS) - set(SECOND_NAME_IGNORED))
    if unknown:
        raise ValueError(
            f"train_reward_model.{unknown[0]} is not a reward setting: the settings are "
            f"RewardTrainConfig's {', '.join(FIELDS)}."
        )
    given = {
        key: value
        for key, value in values.items()
        if key in FIELDS and not _bound(f"RewardTrainConfig.{key}")
    }
    return RewardTrainConfig(**{**given, **overrides})


def _bound(binding: str) -> bool:
    try:
        gin.query_parameter(binding)
    except ValueError:
        return False
    return True


def read_reward_configs(
    gin_files: Sequence[str | os.PathLike], bindings: Sequence[str] = ()
) -> tuple[RewardTrainConfig, RewardStudyConfig]:
    """The configs that ``gin_files`` and ``bindings`` make, read apart: gin's state is
    cleared before and after."""
    with gin.unlock_config():
        gin.clear_config()
        try:
            parse_config_files(gin_files, bindings)
            return reward_train_config(), RewardStudyConfig()
        finally:
            gin.clear_config()
