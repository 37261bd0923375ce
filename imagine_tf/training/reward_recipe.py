"""The supervised reward-learning recipe, gin-configurable (`imagine-tf reward train`).

    dataset directory -> SupervisedData -> SupervisedTrainer -> metrics.json

Flags give *where* (dataset_dir, root_dir) and gin gives *what* (architecture, learning rate,
batch size, positive ratio, epochs); arguments passed by a caller win over gin bindings. The
operative gin config is written to ``<root_dir>/operative_config.gin``.
"""

from __future__ import annotations

import pathlib

import gin

from imagine_tf.data.supervised import goal_set as goals_of_set
from imagine_tf.data.supervised import load_supervised_data
from imagine_tf.reward.supervised_training import SupervisedTrainer, TrainingConfig
from imagine_tf.training.run_lock import RunLock


@gin.configurable
def train_reward_model(
    dataset_dir: str,
    root_dir: str,
    architecture: str = "ma",
    goal_set: str = "one_object",
    learning_rate: float | None = None,
    batch_size: int = 512,
    batches_per_epoch: int = 200,
    max_epochs: int = 100,
    patience: int = 15,
    positive_ratio: float | None = 0.2,
    hidden_units: int = 100,
    normalize_goal: bool = False,
    pair_gate: str = "per_slot",
    pair_relations: bool = False,
    seed: int = 0,
    max_training_seconds: float | None = None,
    max_train_episodes: int | None = None,
    max_test_episodes: int | None = None,
    progress: bool = True,
) -> dict:
    """Trains one reward network on a prepared `playground_trajectories` config; returns metrics.

    ``goal_set`` picks the study (`imagine_tf.data.supervised.goal_set`): "one_object" for the
    191 / 64 generalization study, "grasp" for the two-object study (paper's Table 1), "all".
    ``max_training_seconds`` ends training after the epoch that exceeds it.
    """
    goals = goals_of_set(goal_set)
    data = load_supervised_data(dataset_dir, goals, max_train_episodes, max_test_episodes)
    config = TrainingConfig(
        architecture=architecture,
        learning_rate=learning_rate,
        batch_size=batch_size,
        batches_per_epoch=batches_per_epoch,
        max_epochs=max_epochs,
        patience=patience,
        positive_ratio=positive_ratio,
        hidden_units=hidden_units,
        normalize_goal=normalize_goal,
        pair_gate=pair_gate,
        pair_relations=pair_relations,
        seed=seed,
        max_training_seconds=max_training_seconds,
    )
    root = pathlib.Path(root_dir)
    root.mkdir(parents=True, exist_ok=True)
    with RunLock(root):
        metrics = SupervisedTrainer(data, config, root).train(progress=progress)
    (root / "operative_config.gin").write_text(gin.operative_config_str())
    return metrics
