"""`RewardModelConfig`: every setting of the reward model, for both ways of training it (no
TensorFlow here).

* Co-training (`imagine-tf train`): `TrainConfig.reward_model` is one, and
  `imagine_tf.reward.co_learning.CoLearnedReward` retrains the network with it from the
  partner's feedback. Bound in gin as ``RewardModelConfig.<field>``.
* Supervised (`imagine-tf reward train | study`): `imagine_tf.reward.config.RewardTrainConfig`
  extends it with the data a run reads, and
  `imagine_tf.reward.supervised_training.SupervisedTrainer` trains with it. Bound in gin as
  ``RewardTrainConfig.<field>``.

The defaults are the reference's co-training (Colas et al. 2020, IMAGINE; flowersteam/Imagine).
The supervised runs differ in one: their learning rate defaults to the paper's per
architecture (`RewardTrainConfig.learning_rate` = None).

A few settings belong to one way only (`SUPERVISED_ONLY`, `CO_TRAINING_ONLY`): the other refuses
a value other than the default (`check_defaults`), rather than ignore it.
"""

from __future__ import annotations

import dataclasses

import gin

from imagine_tf.constants import PAIR_GATES, REWARD_AGGREGATIONS, REWARD_ARCHITECTURES

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
