"""The Playground as a batched TF-Agents `PyEnvironment`.

Observation: a dict ``{"state": float32 [2 (3 + 39 N)], "goal": int32 [L]}`` per scene — the
state s_t = [o_t, o_t − o_0] and the goal's token ids. Action: ``BoundedArraySpec((3,),
float32, -1, 1)`` (dx, dy, gripper). Episodes last T = 50 steps and end with a *truncation*
(step type LAST, discount 1): the world never terminates by itself. The environment's reward is
0 unless a `GoalSource` with a reward function is given (e.g. the oracle, in {-1, 0}).

All B scenes run in lock-step (they reset together), which is what batched collection needs.
The goal of each scene is chosen by `set_goals` / `reset_with_goals` before a reset, or else
drawn by the goal source. This package knows no language: sentences go through the injected
`GoalSource` (see `imagine_tf.language.goal_source.GoalCatalog` and `imagine_tf.make_env`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from tf_agents.environments import py_environment
from tf_agents.specs import array_spec
from tf_agents.trajectories import time_step as ts

from imagine_tf.env.config import PlaygroundConfig
from imagine_tf.env.goal_interface import GoalBatch, GoalSource
from imagine_tf.env.observation import observation_dim
from imagine_tf.env.physics import PlaygroundCore


class PlaygroundEnv(py_environment.PyEnvironment):
    """B Playground scenes with language goals, for TF-Agents drivers and `TFPyEnvironment`.

    Args:
      goal_source: where goals come from (sampling, encoding, optional reward).
      config: the world (N, distractor sampling, ...); default `PlaygroundConfig()`.
      batch_size: B, scenes stepped together.
      seed: seed of the scene generator and goal sampling.
      reward: "none" (always 0, as in the paper's env) or "goal" (the goal source's reward of
        s_t for the scene's goal at every step).
    """

    def __init__(
        self,
        goal_source: GoalSource,
        config: PlaygroundConfig | None = None,
        batch_size: int = 1,
        seed: int | None = None,
        reward: str = "none",
    ):
        super().__init__(handle_auto_reset=True)
        if reward not in ("none", "goal"):
            raise ValueError(f"reward must be 'none' or 'goal', got {reward!r}.")
        self._config = config or PlaygroundConfig()
        self._goal_source = goal_source
        self._reward_mode = reward
        self._core = PlaygroundCore(self._config, batch_size, seed=seed)
        self._batch_size = self._core.batch_size
        self._pending_goals: GoalBatch | None = None
        self._goals: GoalBatch | None = None
        self._zeros = np.zeros(self._batch_size, dtype=np.float32)
        self._ones = np.ones(self._batch_size, dtype=np.float32)
        self._mid = np.full(self._batch_size, int(ts.StepType.MID), dtype=np.int32)
        self._last = np.full(self._batch_size, int(ts.StepType.LAST), dtype=np.int32)
        self._observation_spec = {
            "state": array_spec.ArraySpec(
                (observation_dim(self._config.num_objects),), np.float32, name="state"
            ),
            "goal": array_spec.BoundedArraySpec(
                (goal_source.max_length,),
                np.int32,
                minimum=0,
                maximum=goal_source.vocabulary_size - 1,
                name="goal",
            ),
        }
        self._action_spec = array_spec.BoundedArraySpec(
            (3,), np.float32, minimum=-1.0, maximum=1.0, name="action"
        )

    # Specs ----------------------------------------------------------------------------------------
    @property
    def batched(self) -> bool:
        return True

    @property
    def batch_size(self) -> int:
        return self._batch_size

    @property
    def config(self) -> PlaygroundConfig:
        return self._config

    @property
    def goal_source(self) -> GoalSource:
        return self._goal_source

    @property
    def core(self) -> PlaygroundCore:
        """The underlying array world (read its state; step through the environment)."""
        return self._core

    def observation_spec(self):
        return self._observation_spec

    def action_spec(self):
        return self._action_spec

    # Goals ----------------------------------------------------------------------------------------
    def set_goals(self, goals: Sequence[str] | GoalBatch) -> None:
        """Sets the goals of the next reset: one sentence per scene, or a single sentence for all.

        Raises:
          ValueError: an unknown goal, or not one goal per scene.
        """
        if isinstance(goals, str):
            goals = [goals] * self._batch_size
        batch = goals if isinstance(goals, GoalBatch) else self._goal_source.encode(list(goals))
        if batch.goal_ids.shape != (self._batch_size,):
            raise ValueError(
                f"Expected {self._batch_size} goals (one per scene), got {batch.goal_ids.shape[0]}."
            )
        self._pending_goals = batch

    def reset_with_goals(self, goals: Sequence[str] | GoalBatch) -> ts.TimeStep:
        """Resets every scene with the given goals (the authors' Playground, flowersteam/Imagine ``reset_with_goal``)."""
        self.set_goals(goals)
        return self.reset()

    @property
    def goal_ids(self) -> np.ndarray:
        """int64 [B], the current goals' ids in the goal source."""
        return self._goals.goal_ids

    @property
    def goals(self) -> list[str]:
        """The current goals as sentences."""
        return self._goal_source.sentences(self._goals.goal_ids)

    # Dynamics -------------------------------------------------------------------------------------
    def _reset(self) -> ts.TimeStep:
        goals = self._pending_goals
        if goals is None:
            goals = self._goal_source.sample(self._core.rng, self._batch_size)
        self._pending_goals = None
        self._goals = goals
        state = self._core.reset(goals.constraints)
        first = np.full(self._batch_size, int(ts.StepType.FIRST), dtype=np.int32)
        return ts.TimeStep(first, self._zeros.copy(), self._ones.copy(), self._observation(state))

    def _step(self, action) -> ts.TimeStep:
        state = self._core.step(action)
        if self._reward_mode == "goal":
            reward = self._goal_source.reward(state, self._goals.goal_ids).astype(np.float32)
        else:
            reward = self._zeros.copy()
        observation = self._observation(state)
        # TimeSteps are built directly: ts.transition's generic checks cost more than a step.
        last = self._core.num_steps >= self._config.episode_length
        step_type = (self._last if last else self._mid).copy()
        discount = self._ones.copy()  # a time limit is a truncation: discount 1
        return ts.TimeStep(step_type, reward, discount, observation)

    def should_reset(self, current_time_step: ts.TimeStep) -> bool:
        """Scenes are synchronous: all are LAST together (cheaper than `np.all`)."""
        return bool(current_time_step.step_type[0] == ts.StepType.LAST)

    def _observation(self, state: np.ndarray) -> dict:
        return {"state": state, "goal": self._goals.tokens}

    def seed(self, seed: int) -> None:
        self._core.rng = np.random.default_rng(seed)

    def get_info(self) -> dict:
        return {"goal_ids": self._goals.goal_ids}

    def render(self, mode: str = "rgb_array") -> np.ndarray:
        """RGB frames of every scene, uint8 [B, H, W, 3] (mode "rgb_array" only)."""
        if mode != "rgb_array":
            raise ValueError(f"Only mode='rgb_array' is supported, got {mode!r}.")
        from imagine_tf.env.rendering import render_states

        return render_states(self._core.observation(), goals=self.goals)
