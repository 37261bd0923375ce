"""`PlaygroundGoalEnv`: the goal-conditioned form (``imagine_tf/PlaygroundGoal-v0``), for HER.

Hindsight relabelling (e.g. Stable-Baselines3's ``HerReplayBuffer``) replaces a transition's
``desired_goal`` with an ``achieved_goal`` of a later step and asks ``compute_reward`` for the
new reward, so both goals must live in one space and that space must say, for any state,
whether each goal is achieved. The state cannot be a desired goal and one sentence's token ids
cannot say which of the other goals a state achieves, so here a goal is a set of the G goals
this environment knows (`goal_sentences`: 255, or 415 with ``relational=True``):

* ``observation``: the state s_t, Box float32 [D];
* ``achieved_goal``: MultiBinary [G], the oracle's verdict on s_t for every goal, the held-out
  (test) goals left out in the train split unless ``achieved_test_goals=True`` (`GoalSets`: a
  HER buffer would otherwise train on them);
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
from imagine_tf.gymnasium_env.goal_space import GoalSets


class PlaygroundGoalEnv(PlaygroundGymEnv):
    """`PlaygroundGymEnv` with ``Dict(observation, achieved_goal, desired_goal)`` observations
    and a batched `compute_reward` (see the module docstring); same arguments, except
    ``goal_text`` (the desired goal is a one-hot), plus ``achieved_test_goals`` (`GoalSets`).

    Stable-Baselines3's ``check_env`` and ``HerReplayBuffer`` call ``compute_reward`` on the
    environment itself: give them ``env.unwrapped`` (Gymnasium 1.x wrappers do not forward
    attributes; ``env.get_wrapper_attr("compute_reward")`` reaches it through them).
    """

    def __init__(self, achieved_test_goals: bool | None = None, **kwargs):
        if "goal_text" in kwargs:
            raise ValueError(
                "PlaygroundGoalEnv has no goal_text: its desired_goal is a one-hot over "
                "`goal_sentences`. Use imagine_tf/Playground-v0 for goal_text=True."
            )
        self._achieved_test_goals = achieved_test_goals
        super().__init__(**kwargs)

    def _make_observation_space(self) -> gymnasium.spaces.Dict:
        self.goal_sets = goal_sets(self._scenes, self._achieved_test_goals)
        return goal_observation_space(self._scenes, self.goal_sets)

    def _observation(self, state: np.ndarray) -> dict:
        return {
            "observation": state[0],
            "achieved_goal": self.goal_sets.achieved(state)[0],
            "desired_goal": self.goal_sets.desired(self._scenes.goal_ids)[0],
        }

    def compute_reward(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """The reward of goal pairs, batched: 0.0 where they share a goal, else −1.0.

        Args:
          achieved_goal, desired_goal: {0, 1} arrays [..., G] of one shape (e.g. [B, G]).
          info: unused (HER passes the transitions' infos).

        Returns:
          float32 [...] (e.g. [B]).
        """
        return self.goal_sets.reward(achieved_goal, desired_goal)


def goal_sets(scenes, achieved_test_goals: bool | None) -> GoalSets:
    """The `GoalSets` of a `SceneBatch`'s catalog, split and restricted goals."""
    return GoalSets(scenes.catalog.table, scenes.catalog.split, scenes.goals, achieved_test_goals)


def goal_observation_space(scenes, sets: GoalSets) -> gymnasium.spaces.Dict:
    """One scene's ``Dict(observation, achieved_goal, desired_goal)``."""
    return gymnasium.spaces.Dict(
        {
            "observation": playground_spaces.state_space(scenes.config.num_objects),
            "achieved_goal": sets.space(),
            "desired_goal": sets.space(),
        }
    )
