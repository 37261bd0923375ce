"""The reward model's settings, bound in gin: one supervised run, and the runs of a study.

    imagine-tf reward train --gin-file configs/reward/ma.gin --root-dir R
    imagine-tf reward study --gin-file configs/studies/reward_generalization.gin --root-dir R

`RewardTrainConfig` is what one run does: the reward model's settings (`RewardModelConfig`:
network, optimisation, early stopping, budget), and the data it reads.
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

from imagine_tf.constants import PAIR_GATES  # noqa: F401 - the choices, spelled out here
from imagine_tf.constants import REWARD_ARCHITECTURES
from imagine_tf.data.supervised import GOAL_SETS
from imagine_tf.reward.model_config import CO_TRAINING_ONLY, RewardModelConfig
from imagine_tf.runs.config_files import parse_config_files

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
