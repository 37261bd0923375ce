"""`PlaygroundGoalEnv`: the goal-conditioned form (``imagine_tf/PlaygroundGoal-v0``), for HER.

Hindsight relabelling (e.g. Stable-Baselines3's ``HerReplayBuffer``) replaces a transition's
``desired_goal`` with an ``achieved_goal`` of a later step and asks ``compute_reward`` for the
new reward, so both goals must live in one space and that space must say, for any state,
whether each goal is achieved. The state cannot be a desired goal and one sentence's token ids
cannot say which of the other goals a state achieves, so here a goal is a set of the G goals
this environment knows (`goal_sentences`: 255, or 415 with ``relational=True``):

* ``observation``: the state s_t, Box float32 [D];
* ``achieved_goal``: MultiBinary [G], the oracle's verdict on s_t for every goal (test goals
  included: it is the oracle, not the partner, who never names a test goal);
* ``desired_goal``: MultiBinary [G], one-hot of the episode's goal (`goal_tokens` [G, L] gives
  each column's token ids, for a language encoder);
* ``compute_reward(achieved, desired, info)``: 0.0 where the two sets meet, else −1.0; for a
  one-hot desired goal that is the oracle's reward of the state, the step reward. A relabelled
  desired goal (the set a later state achieved) asks for any goal of that set.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from imagine_tf.gymnasium_env import spaces as playground_spaces
from imagine_tf.gymnasium_env.env import PlaygroundGymEnv
from imagine_tf.language import oracle


class PlaygroundGoalEnv(PlaygroundGymEnv):
    """`PlaygroundGymEnv` with ``Dict(observation, achieved_goal, desired_goal)`` observations
    and a batched `compute_reward` (see the module docstring); same arguments, except
    ``goal_text`` (the desired goal is a one-hot)."""

    def __init__(self, **kwargs):
        if "goal_text" in kwargs:
            raise ValueError(
                "PlaygroundGoalEnv has no goal_text: its desired_goal is a one-hot over "
                "`goal_sentences`. Use imagine_tf/Playground-v0 for goal_text=True."
            )
        super().__init__(**kwargs)

    def _make_observation_space(self) -> gymnasium.spaces.Dict:
        num_goals = len(self._scenes.catalog.table)
        goals = gymnasium.spaces.MultiBinary(num_goals)
        return gymnasium.spaces.Dict(
            {
                "observation": playground_spaces.state_space(self._scenes.config.num_objects),
                "achieved_goal": goals,
                "desired_goal": goals,
            }
        )

    def _observation(self, state: np.ndarray) -> dict:
        table = self._scenes.catalog.table
        achieved = oracle.achieved_matrix(state, table)[0].astype(np.int8)
        desired = np.zeros(len(table), dtype=np.int8)
        desired[self._scenes.goal_ids[0]] = 1
        return {"observation": state[0], "achieved_goal": achieved, "desired_goal": desired}

    def compute_reward(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """The reward of goal pairs, batched: 0.0 where they share a goal, else −1.0.

        Args:
          achieved_goal, desired_goal: {0, 1} arrays [..., G] of one shape (e.g. [B, G]).
          info: unused (HER passes the transitions' infos).

        Returns:
          float32 [...] (e.g. [B]).
        """
        achieved, desired = np.asarray(achieved_goal), np.asarray(desired_goal)
        num_goals = len(self.goal_sentences)
        if achieved.shape != desired.shape or achieved.shape[-1:] != (num_goals,):
            raise ValueError(
                f"compute_reward takes achieved and desired goals of one shape [..., {num_goals}] "
                f"(sets over `goal_sentences`), got {achieved.shape} and {desired.shape}."
            )
        hit = np.logical_and(achieved != 0, desired != 0).any(axis=-1)
        return np.where(hit, np.float32(0.0), np.float32(-1.0))
