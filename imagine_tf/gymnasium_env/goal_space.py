"""`GoalSets`: the goal-conditioned form's goals as sets over the G goals an environment knows,
shared by `PlaygroundGoalEnv` (one scene) and `PlaygroundGoalVectorEnv` (B scenes).

``achieved_goal`` is the oracle's verdict on s_t for every goal, except the goals held out from
training: a hindsight buffer (Stable-Baselines3's ``HerReplayBuffer``, say) turns achieved goals
into desired ones, so a held-out goal there would be trained on. They are left out (always 0)
unless ``achieved_test_goals=True``, which is the default only outside the train split (a split
of "test" or "all" asks for them; goals given with ``goals=[...]`` always count).
"""

from __future__ import annotations

from typing import Sequence

import gymnasium
import numpy as np

from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_table import GoalTable


class GoalSets:
    """Achieved and desired goal sets, {0, 1} int8 [B, G], and their reward.

    Args:
      table: the environment's `GoalTable` (G goals).
      split: the environment's split ("train" leaves held-out goals out of ``achieved_goal``).
      goals: the goals the environment samples, if restricted (they always count).
      achieved_test_goals: whether ``achieved_goal`` includes the held-out goals (None: not
        in the train split, yes otherwise).
    """

    def __init__(
        self,
        table: GoalTable,
        split: str,
        goals: Sequence[str] | None = None,
        achieved_test_goals: bool | None = None,
    ):
        self.table = table
        if achieved_test_goals is None:
            achieved_test_goals = split != "train"
        given = set(goals or ())
        #: bool [G]: the goals ``achieved_goal`` may contain
        self.counted = np.array(
            [
                achieved_test_goals or sentence in given or not grammar.is_test_goal(sentence)
                for sentence in table.sentences
            ]
        )

    @property
    def num_goals(self) -> int:
        return len(self.table)

    def space(self) -> gymnasium.spaces.MultiBinary:
        return gymnasium.spaces.MultiBinary(self.num_goals)

    def achieved(self, states: np.ndarray) -> np.ndarray:
        """int8 [B, G]: the goals each state [B, D] achieves, among those counted."""
        return (oracle.achieved_matrix(states, self.table) & self.counted).astype(np.int8)

    def desired(self, goal_ids: np.ndarray) -> np.ndarray:
        """int8 [B, G]: one-hot of each scene's goal."""
        desired = np.zeros((len(goal_ids), self.num_goals), dtype=np.int8)
        desired[np.arange(len(goal_ids)), goal_ids] = 1
        return desired

    def reward(self, achieved_goal, desired_goal) -> np.ndarray:
        """float32 [...]: 0.0 where the sets [..., G] meet, else −1.0."""
        achieved, desired = np.asarray(achieved_goal), np.asarray(desired_goal)
        if achieved.shape != desired.shape or achieved.shape[-1:] != (self.num_goals,):
            raise ValueError(
                f"compute_reward takes achieved and desired goals of one shape "
                f"[..., {self.num_goals}] (sets over `goal_sentences`), got {achieved.shape} "
                f"and {desired.shape}."
            )
        hit = np.logical_and(achieved != 0, desired != 0).any(axis=-1)
        return np.where(hit, np.float32(0.0), np.float32(-1.0))
