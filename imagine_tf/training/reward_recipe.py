"""The supervised reward-learning recipe, gin-configurable (`imagine-tf reward train`).

    dataset directory -> SupervisedData -> SupervisedTrainer -> metrics.json

Flags give *where* (dataset_dir, root_dir) and gin gives *what* (architecture, learning rate,
batch size, positive ratio, epochs); arguments passed by a caller win over gin bindings. The
operative gin config is written to ``<root_dir>/operative_config.gin``.
"""

from __future__ import annotations

import pathlib

import gin

from imagine_tf.data.supervised import load_supervised_data
from imagine_tf.reward.supervised_training import SupervisedTrainer, TrainingConfig


@gin.configurable
def train_reward_model(
    dataset_dir: str,
    root_dir: str,
    architecture: str = "ma",
    learning_rate: float | None = None,
    batch_size: int = 512,
    batches_per_epoch: int = 200,
    max_epochs: int = 100,
    patience: int = 15,
    positive_ratio: float | None = 0.2,
    hidden_units: int = 100,
    seed: int = 0,
    max_train_episodes: int | None = None,
    max_test_episodes: int | None = None,
    progress: bool = True,
) -> dict:
    """Trains one reward network on a prepared `playground_trajectories` config; returns metrics."""
    data = load_supervised_data(dataset_dir, None, max_train_episodes, max_test_episodes)
    config = TrainingConfig(
        architecture=architecture,
        learning_rate=learning_rate,
        batch_size=batch_size,
        batches_per_epoch=batches_per_epoch,
        max_epochs=max_epochs,
        patience=patience,
        positive_ratio=positive_ratio,
        hidden_units=hidden_units,
        seed=seed,
    )
    root = pathlib.Path(root_dir)
    root.mkdir(parents=True, exist_ok=True)
    metrics = SupervisedTrainer(data, config, root).train(progress=progress)
    (root / "operative_config.gin").write_text(gin.operative_config_str())
    return metrics
