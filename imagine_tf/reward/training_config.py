"""`TrainingConfig`: the hyperparameters of a supervised reward run (no TensorFlow here).

`imagine_tf.reward.supervised_training.SupervisedTrainer` takes it; the gin-bound
`imagine_tf.reward.config.RewardTrainConfig` extends it with the data a run reads.
"""

from __future__ import annotations

import dataclasses

DEFAULT_LEARNING_RATE = {"ma": 1e-3, "ma_pairs": 1e-3, "fa": 1e-4, "fc": 1e-4}


@dataclasses.dataclass(frozen=True)
class TrainingConfig:
    """Hyperparameters of a supervised run (defaults: the paper's)."""

    architecture: str = "ma"
    learning_rate: float | None = None  # None: 1e-3 (MA, MA-pairs) or 1e-4 (FA, FC)
    batch_size: int = 512
    batches_per_epoch: int = 200
    max_epochs: int = 100
    patience: int = 15
    positive_ratio: float | None = 0.2
    hidden_units: int = 100
    normalize_goal: bool = False  # gates on the L2-normalised goal embedding (GatedAttention)
    pair_gate: str = "per_slot"  # MA-pairs: "shared" / "residual" (`RewardNetwork`)
    pair_relations: bool = False  # MA-pairs: relation features of initial positions in the input
    validation_fraction: float = 0.1
    seed: int = 0
    max_training_seconds: float | None = None  # stop after the epoch that exceeds it (all sessions)

    @property
    def resolved_learning_rate(self) -> float:
        return self.learning_rate or DEFAULT_LEARNING_RATE[self.architecture]
