"""The reward model's one training procedure, for co-training and supervised runs (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

Reward-epochs of ``batches_per_epoch`` balanced batches of ``batch_size`` drawn in the graph,
their Adam steps and the mean F1 of the held-out states (`reward/f1.py`), one compiled call
each (`CompiledRewardEpoch`); after each, the best weights are kept; training stops
after ``patience`` reward-epochs without a better F1 or at ``max_epochs``, and the best weights
are restored. Co-training (`co_learning.py`) holds out the memory's newest final states and
starts each retraining afresh; a supervised run (`supervised_training.py`) holds out its
validation states and keeps the stopping state in its checkpoint, to resume.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import tensorflow as tf

from imagine_tf.networks.adam import Adam
from imagine_tf.reward.compiled_epoch import CompiledRewardEpoch, SamplingTables
from imagine_tf.reward.config import RewardModelConfig
from imagine_tf.reward.network import RewardNetwork


class EarlyStopping(tf.Module):
    """Where a training stands: reward-epochs done, the best F1, when it came, epochs since
    (variables: a checkpoint of a supervised run holds them)."""

    def __init__(self, name: str = "early_stopping"):
        super().__init__(name=name)
        self.epoch = tf.Variable(0, dtype=tf.int64, name="epoch")
        self.best_f1 = tf.Variable(-1.0, dtype=tf.float64, name="best_f1")
        self.since_best = tf.Variable(0, dtype=tf.int64, name="epochs_since_best")
        self.best_epoch = tf.Variable(0, dtype=tf.int64, name="best_epoch")

    def stopped(self, config: RewardModelConfig) -> bool:
        """Whether ``config.max_epochs`` are done or ``config.patience`` passed without a
        better F1."""
        return int(self.epoch.numpy()) >= config.max_epochs or (
            int(self.since_best.numpy()) >= config.patience
        )

    def record(self, f1: float) -> bool:
        """Counts a reward-epoch of held-out F1 ``f1``; whether it is the best so far."""
        self.epoch.assign_add(1)
        if f1 > float(self.best_f1.numpy()):
            self.best_f1.assign(f1)
            self.best_epoch.assign(self.epoch)
            self.since_best.assign(0)
            return True
        self.since_best.assign_add(1)
        return False


class RewardTrainer:
    """Trains a `RewardNetwork` in place (its Adam's state persists from call to call).

    Args:
      network: the reward network, built.
      config: the reward model's settings (learning rate, batches, epochs, patience, ρ).
      seed: seed of the in-graph batch sampler.
    """

    def __init__(self, network: RewardNetwork, config: RewardModelConfig, seed: int = 0):
        self.network, self.config = network, config
        self.optimizer = Adam(config.resolved_learning_rate, name="reward_adam")
        self.optimizer.build(network.trainable_variables)
        self.compiled = CompiledRewardEpoch(
            network, self.optimizer, config.batch_size, config.positive_ratio, seed
        )

    def held_out_f1(self, goal_tokens: np.ndarray, states: np.ndarray, labels: np.ndarray) -> float:
        """The mean F1 of states [S, D] against labels bool [S, G] without training."""
        return self.compiled.held_out_f1(goal_tokens, states, labels)

    def train(
        self,
        tables: SamplingTables,
        goal_tokens: np.ndarray,
        held_states: np.ndarray,
        held_labels: np.ndarray,
        stopping: EarlyStopping | None = None,
        after_epoch: Callable[[float, bool], bool] | None = None,
    ) -> EarlyStopping:
        """Reward-epochs on ``tables`` (the goals' token ids int [G, L]) until `EarlyStopping`
        says stop; the held-out states [H, D] and labels bool [H, G] measure each one. Then the
        best weights of this call are restored. ``after_epoch(f1, improved)`` runs after each
        (a supervised run saves there); False from it stops. Returns ``stopping``."""
        stopping = stopping or EarlyStopping()
        run = self.compiled.bind(tables, goal_tokens, held_states, held_labels)
        best_weights = None
        while not stopping.stopped(self.config):
            f1 = run(self.config.batches_per_epoch)
            improved = stopping.record(f1)
            if improved:
                best_weights = self.network.get_weights()
            if after_epoch is not None and after_epoch(f1, improved) is False:
                break
        if best_weights is not None:
            self.network.set_weights(best_weights)
        return stopping
