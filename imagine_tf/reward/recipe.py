"""The supervised reward-learning recipe (`imagine-tf reward train`).

    dataset directory -> SupervisedData -> SupervisedTrainer -> metrics.json

Flags give *where* (dataset_dir, root_dir) and gin gives *what*: a `RewardTrainConfig`
(architecture, learning rate, batch size, positive ratio, epochs, ...). The operative gin
config is written to ``<root_dir>/operative_config.gin``.
"""

from __future__ import annotations

import dataclasses
import pathlib

import gin

from imagine_tf.data.supervised import goal_set as goals_of_set
from imagine_tf.data.supervised import load_supervised_data
from imagine_tf.reward.supervised_training import SupervisedTrainer
from imagine_tf.reward.config import RewardTrainConfig, reward_train_config
from imagine_tf.reward.config import RewardModelConfig
from imagine_tf.runs.layout import OPERATIVE_GIN
from imagine_tf.runs.lock import RunLock


def supervised_config(
    config: RewardTrainConfig, architecture: str | None = None, seed: int | None = None
) -> RewardModelConfig:
    """The trainer's `RewardModelConfig` of ``config`` (with another architecture or seed: a
    study's run); the pair settings apply to MA-pairs only."""
    architecture = architecture or config.architecture
    pairs = architecture == "ma_pairs"
    shared = {f.name: getattr(config, f.name) for f in dataclasses.fields(RewardModelConfig)}
    return RewardModelConfig(
        **{
            **shared,
            "architecture": architecture,
            "pair_gate": config.pair_gate if pairs else "per_slot",
            "pair_relations": config.pair_relations and pairs,
            "seed": config.seed if seed is None else seed,
        }
    )


def train_reward_model(
    dataset_dir: str, root_dir: str, config: RewardTrainConfig | None = None, progress: bool = True
) -> dict:
    """Trains one reward network on a prepared `playground_trajectories` config; returns metrics.

    ``config``: default the gin-bound one (`reward_train_config`).
    """
    config = config or reward_train_config()
    goals = goals_of_set(config.goal_set)
    data = load_supervised_data(
        dataset_dir, goals, config.max_train_episodes, config.max_test_episodes
    )
    root = pathlib.Path(root_dir)
    root.mkdir(parents=True, exist_ok=True)
    with RunLock(root):
        metrics = SupervisedTrainer(data, supervised_config(config), root).train(progress=progress)
    (root / OPERATIVE_GIN).write_text(gin.operative_config_str())
    return metrics
