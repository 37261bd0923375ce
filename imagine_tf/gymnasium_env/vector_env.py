"""`PlaygroundVectorEnv`: N Playground scenes as one native `gymnasium.vector.VectorEnv`.

``gymnasium.make_vec("imagine_tf/Playground-v0", num_envs=N,
vectorization_mode="vector_entry_point")`` after ``import imagine_tf``. The N scenes are one
batch of the numpy core: a step is one batched call, with no subprocess and no Python loop over
scenes. Each scene follows `PlaygroundGymEnv`'s rules; with N = 1 and the same seed the two
give the same episodes.

Shapes (B = N scenes, D = 2 (3 + 39 N_objects), L goal tokens):
  observation: ``{"state": float32 [B, D], "goal": int32 [B, L]}`` (+ ``"goal_text"``: a
  tuple of B sentences with ``goal_text=True``); actions: float32 [B, 3]; reward: float32 [B]
  (0 achieved, −1 not); terminated, truncated: bool [B].

Autoreset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP``. The scenes are
synchronous (fixed-length episodes that never terminate), so all are truncated at the same step,
and the next `step` resets them all: it ignores its actions and returns the first observations
with reward 0 and terminated = truncated = False. Infos hold arrays over scenes, each with its
``_key`` mask: ``is_success`` every step, ``descriptions`` (the partner's sentences about the
final states) at the truncation, ``goal`` (the sentences) at a reset.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from imagine_tf.env.config import EPISODE_LENGTH
from imagine_tf.gymnasium_env import spaces as playground_spaces
from imagine_tf.gymnasium_env.env import RENDER_MODES, check_render_mode
from imagine_tf.gymnasium_env.goal_options import goals_from_options
from imagine_tf.gymnasium_env.scenes import SceneBatch


class PlaygroundVectorEnv(VectorEnv):
    """``num_envs`` synchronous Playground scenes (see the module docstring); the other
    arguments are `PlaygroundGymEnv`'s."""

    metadata = {
        "render_modes": RENDER_MODES,
        "render_fps": 10,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int = 1,
        num_objects: int = 3,
        episode_length: int = EPISODE_LENGTH,
        split: str = "train",
        relational: bool = False,
        goal_text: bool = False,
        distractor_sampling: str | None = None,
        object_init_range: float = 1.0,
        render_mode: str | None = None,
        world: str = "default",
        goals: Sequence[str] | None = None,
    ):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}.")
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.num_envs = int(num_envs)
        self._scenes = SceneBatch(
            self.num_envs,
            num_objects,
            episode_length,
            split,
            relational,
            distractor_sampling,
            object_init_range,
            world,
            goals,
        )
        catalog = self._scenes.catalog
        #: T, the steps of an episode (then every scene is truncated).
        self.episode_length: int = self._scenes.config.episode_length
        self._goal_text = bool(goal_text)
        self.single_observation_space = playground_spaces.observation_space(
            num_objects,
            catalog.vocabulary_size,
            catalog.max_length,
            catalog.table.sentences if self._goal_text else None,
        )
        self.single_action_space = playground_spaces.action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.goal_sentences: tuple[str, ...] = catalog.table.sentences
        self.goal_tokens: np.ndarray = catalog.goal_tokens
        self._sentence_array = np.array(catalog.table.sentences, dtype=object)
        self._state: np.ndarray | None = None
        self._autoreset = False
        self._false = np.zeros(self.num_envs, dtype=bool)
        self._true = np.ones(self.num_envs, dtype=bool)
        self._zero_reward = np.zeros(self.num_envs, dtype=np.float32)

    @property
    def goals(self) -> list[str]:
        """The current goal of each scene."""
        return self._scenes.sentences()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Resets every scene: ``seed`` (one int) seeds the one generator of all scenes;
        ``options={"goal": s}`` sets every goal, ``options={"goals": [...]}`` one per scene.

        Returns:
          (observations, {"goal": object [B] sentences, "_goal": bool [B]}).
        """
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(
                f"seed must be one int (the scenes share one generator), got {seed!r}."
            )
        super().reset(seed=seed)
        goals = goals_from_options(options, self.num_envs, self._scenes.relational)
        return self._reset_scenes(goals)

    def _reset_scenes(self, goals: list[str] | None):
        self._state = self._scenes.reset(self.np_random, goals)
        self._autoreset = False
        if self._goal_text:
            self._text = tuple(self._sentence_array[self._scenes.goal_ids].tolist())
        info = {"goal": self._sentence_array[self._scenes.goal_ids], "_goal": self._true.copy()}
        return self._observation(self._state), info

    def step(self, actions):
        """Steps every scene with actions [B, 3] (the step after a truncation resets them)."""
        if self._state is None:
            raise RuntimeError("step() before reset(): call envs.reset() first.")
        if self._autoreset:
            observation, info = self._reset_scenes(None)
            false = self._false
            return observation, self._zero_reward.copy(), false.copy(), false.copy(), info
        self._state, achieved = self._scenes.step(actions)
        reward = achieved.astype(np.float32)
        reward -= 1.0
        info = {"is_success": achieved, "_is_success": self._true.copy()}
        if self._scenes.truncated:
            self._autoreset = True
            described = self._scenes.describe()
            info["descriptions"] = np.fromiter(described, dtype=object, count=self.num_envs)
            info["_descriptions"] = self._true.copy()
        truncated = (self._true if self._autoreset else self._false).copy()
        return self._observation(self._state), reward, self._false.copy(), truncated, info

    def _observation(self, state: np.ndarray) -> dict:
        observation = {"state": state, "goal": self._scenes.tokens.copy()}
        if self._goal_text:
            observation["goal_text"] = self._text
        return observation

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One uint8 [H, W, 3] frame per scene (render_mode "rgb_array"; None otherwise)."""
        if self.render_mode is None or self._state is None:
            return None
        from imagine_tf.env.rendering import render_states

        return tuple(render_states(self._state, goals=self.goals))
