"""`PlaygroundGoalVectorEnv`: B scenes of the goal-conditioned form as one native
`gymnasium.vector.VectorEnv` (``gymnasium.make_vec("imagine_tf/PlaygroundGoal-v0", num_envs=B,
vectorization_mode="vector_entry_point")``).

Observations ``{"observation": float32 [B, D], "achieved_goal": int8 [B, G], "desired_goal":
int8 [B, G]}`` (`GoalSets`); everything else, the autoreset included, is `PlaygroundVectorEnv`'s.
Stable-Baselines3 takes its own ``VecEnv``, not this class: ``make_vec_env`` over
``imagine_tf/PlaygroundGoal-v0`` gives it one (docs/environment.md, Stable-Baselines3).
"""

from __future__ import annotations

import numpy as np
from gymnasium.vector.utils import batch_space

from imagine_tf.gymnasium_env.goal_env import goal_observation_space, goal_sets
from imagine_tf.gymnasium_env.vector_env import PlaygroundVectorEnv


class PlaygroundGoalVectorEnv(PlaygroundVectorEnv):
    """B synchronous scenes with goal-set observations and a batched `compute_reward`;
    `PlaygroundVectorEnv`'s arguments except ``goal_text``, plus ``achieved_test_goals``."""

    def __init__(self, num_envs: int = 1, achieved_test_goals: bool | None = None, **kwargs):
        if "goal_text" in kwargs:
            raise ValueError(
                "PlaygroundGoalVectorEnv has no goal_text: its desired_goal is a one-hot over "
                "`goal_sentences`. Use imagine_tf/Playground-v0 for goal_text=True."
            )
        super().__init__(num_envs, **kwargs)
        self.goal_sets = goal_sets(self._scenes, achieved_test_goals)
        self.single_observation_space = goal_observation_space(self._scenes, self.goal_sets)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

    def _observation(self, state: np.ndarray) -> dict:
        return {
            "observation": state,
            "achieved_goal": self.goal_sets.achieved(state),
            "desired_goal": self.goal_sets.desired(self._scenes.goal_ids),
        }

    def compute_reward(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """0.0 where the goal sets [..., G] meet, else −1.0 (float32 [...])."""
        return self.goal_sets.reward(achieved_goal, desired_goal)
