"""Reward-model updates during RL, from the reward memory (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

An update: hold out the most recent min(n_new, 120) final states; train up to 100 "epochs" of
200 balanced batches of 512; after each epoch measure the mean per-goal F1 on the held-out
states; keep the best weights; stop after 15 epochs without improvement and restore the best
(`RewardTrainer`, the procedure of supervised runs too). Adam's state persists across updates
(one optimizer for the whole run).

Choice: the mean is over the goals with a positive held-out state. The reference counts the
other goals as 0 (NaN → 0), which divides the same sum by all discovered goals: a factor that
is constant within an update, so the early stopping is the same; the logged value is not
dragged towards 0 by the many goals that the last ≤ 120 episodes never achieved.
"""

from __future__ import annotations

import time

import numpy as np

from imagine_tf.reward.network import RewardNetwork
from imagine_tf.reward.memory import RewardMemory
from imagine_tf.reward.config import RewardModelConfig
from imagine_tf.reward.training import RewardTrainer


class CoLearnedReward:
    """Retrains a `RewardNetwork` from a `RewardMemory`, update after update (`RewardTrainer`).

    Args:
      network: the reward network (trained in place), built from ``config``.
      config: the reward model's settings (`TrainConfig.reward_model`); an update reads its
        learning rate, batches, epochs, patience, positive ratio and ``max_held_out``.
      seed: seed of the batch sampling (the run's, `TrainConfig.seed`).
    """

    def __init__(self, network: RewardNetwork, config: RewardModelConfig, seed: int = 0):
        self.network, self.config = network, config
        self.trainer = RewardTrainer(network, config, seed)

    @property
    def optimizer(self):
        """The reward model's Adam (one for the whole run)."""
        return self.trainer.optimizer

    def held_out_f1(self, states: np.ndarray, labels: np.ndarray, goal_tokens: np.ndarray) -> float:
        """Mean F1 of states [S, D] against labels bool [S, G] over the goals with a positive
        held-out state (0 if none has): a goal never achieved in the held-out states has no F1."""
        return self.trainer.held_out_f1(goal_tokens, states, labels)

    def update(self, memory: RewardMemory, goal_tokens: np.ndarray, num_new: int) -> dict:
        """One update on the memory; ``goal_tokens`` int [G_d, L] of the discovered goals.

        Returns {"epochs", "held_out_f1" (best), "seconds", "held_out_states"}.
        """
        start, config = time.perf_counter(), self.config
        held_out = memory.held_out_rows(num_new, config.max_held_out)
        stopping = self.trainer.train(
            memory.sampling_tables(exclude_rows=held_out),
            goal_tokens,
            memory.states[held_out],
            memory.positives[held_out, : len(goal_tokens)],
        )
        return {
            "epochs": int(stopping.epoch.numpy()),
            "held_out_f1": float(stopping.best_f1.numpy()),
            "seconds": time.perf_counter() - start,
            "held_out_states": int(len(held_out)),
        }
