"""The reward model's settings, bound in gin: one supervised run, and the runs of a study.

    imagine-tf reward train --gin-file configs/reward/ma.gin --root-dir R
    imagine-tf reward study --gin-file configs/studies/reward_generalization.gin --root-dir R

`RewardTrainConfig` is what one run does: its network, data, optimisation and budget.
`RewardStudyConfig` is which runs a study makes of it: one per architecture and seed, or
ensembles of ``ensemble_size`` runs per seed. Command-line flags give only paths, threads and
a study's seeds. ``train_reward_model.<field>`` is a second name of ``RewardTrainConfig.<field>``
(the name the operative configs of `reward train` runs hold); the first name wins.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Sequence

import gin

from imagine_tf.constants import PAIR_GATES, REWARD_ARCHITECTURES
from imagine_tf.data.supervised import GOAL_SETS
from imagine_tf.reward.training_config import TrainingConfig
from imagine_tf.runs.config_files import parse_config_files

ARCHITECTURES = REWARD_ARCHITECTURES


@gin.configurable
@dataclasses.dataclass(frozen=True)
class RewardTrainConfig(TrainingConfig):
    """One supervised reward run (defaults: the paper's): the trainer's `TrainingConfig` and
    the data it reads.

    Attributes:
      architecture: "ma", "fa", "fc" or "ma_pairs".
      goal_set: the goals learned and scored (`imagine_tf.data.supervised.goal_set`):
        "one_object" (the 191 / 64 generalization study), "all" (the two-object study) or
        "grasp".
      learning_rate: Adam's; None: 1e-3 (MA, MA-pairs) or 1e-4 (FA, FC).
      batch_size, batches_per_epoch, positive_ratio: balanced batches of an epoch.
      max_epochs, patience: at most ``max_epochs``; stop after ``patience`` epochs without a
        better validation F1.
      hidden_units: the modules' width.
      normalize_goal: the gates read the L2-normalised goal embedding (not in the paper).
      pair_gate, pair_relations: MA-pairs' gate variant and relation features (not in the
        paper); other architectures ignore them.
      validation_fraction: training episodes held out for early stopping.
      seed: initialisation, batches and validation split.
      max_training_seconds: stop after the epoch that exceeds it.
      max_train_episodes, max_test_episodes: use at most this many episodes (None: all).
    """

    goal_set: str = "one_object"
    max_train_episodes: int | None = None
    max_test_episodes: int | None = None

    def __post_init__(self):
        for name, allowed in (
            ("architecture", ARCHITECTURES),
            ("goal_set", GOAL_SETS),
            ("pair_gate", PAIR_GATES),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"RewardTrainConfig.{name} must be one of {allowed}, got "
                    f"{getattr(self, name)!r}."
                )
        for name in ("batch_size", "batches_per_epoch", "max_epochs", "patience"):
            if getattr(self, name) < 1:
                raise ValueError(
                    f"RewardTrainConfig.{name} must be >= 1, got {getattr(self, name)}."
                )
        if not 0.0 < self.validation_fraction < 1.0:
            raise ValueError(
                f"RewardTrainConfig.validation_fraction must be in (0, 1), got "
                f"{self.validation_fraction}."
            )


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
