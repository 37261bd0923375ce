"""`PlaygroundGymEnv`: one Playground scene with a language goal, as a `gymnasium.Env`.

``gymnasium.make("imagine_tf/Playground-v0", num_objects=3)`` after ``import imagine_tf``.

* Observation: ``Dict(state=Box float32 [D], goal=MultiDiscrete int32 [L])``, D = 2 (3 + 39 N)
  (s_t = [o_t, o_t − o_0]) and L the padded goal length (4; 5 with ``relational=True``); with
  ``goal_text=True`` also ``goal_text`` (Text), the sentence, for language-model agents.
  The token ids are what a network embeds; the ids of every goal are in `goal_tokens`.
* Action: Box float32 [3] in [−1, 1]: (dx, dy, gripper; > 0 closes).
* Goal: ``reset(options={"goal": "Grasp red cat"})``, else drawn from the split (191 training
  goals by default) with the environment's ``np_random``.
* Reward: the oracle's verdict on s_t at every step, in the convention of the TF-Agents
  `PlaygroundEnv` (``reward="goal"``): 0.0 when the goal is achieved, −1.0 otherwise.
* Episodes: ``terminated`` is always False (achieving a goal ends nothing); after
  ``episode_length`` (50) steps ``truncated`` is True, as the TF-Agents environment's time limit.
* Info: ``goal`` (the sentence) and, after a step, ``is_success`` (the goal is achieved); at
  the last step ``descriptions``, the social partner's sentences about the final state.
* ``render_mode="rgb_array"``: `render` gives a uint8 [H, W, 3] frame (the existing renderer).
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium
import numpy as np

from imagine_tf.env.config import EPISODE_LENGTH
from imagine_tf.gymnasium_env import spaces as playground_spaces
from imagine_tf.gymnasium_env.goal_options import goals_from_options
from imagine_tf.gymnasium_env.scenes import SceneBatch

RENDER_MODES = ["rgb_array"]


def check_render_mode(render_mode: str | None) -> None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}.")


class PlaygroundGymEnv(gymnasium.Env):
    """One Playground scene with a language goal (see the module docstring).

    Args:
      num_objects: N, objects in the scene.
      episode_length: T, steps before the truncation.
      split: the goals sampled when a reset sets none: "train", "test" or "all".
      relational: also know (and sample) the 160 two-object goals.
      goal_text: add the ``goal_text`` sentence to the observation.
      distractor_sampling, object_init_range: see `imagine_tf.env.config.PlaygroundConfig`
        (``distractor_sampling=None``: the world's).
      render_mode: None or "rgb_array".
      world: "default" or "authors" (the rules of the authors' code: `world_config`), e.g.
        ``gymnasium.make("imagine_tf/Playground-v0", world="authors")``.
      goals: sample these goals (sentences) instead of the split's, e.g. ``goals=["Go left",
        "Grasp red cat"]`` (every reset without options, the vector env's autoresets included).
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 10}

    def __init__(
        self,
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
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self._scenes = SceneBatch(
            1,
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
        #: T, the steps of an episode (then it is truncated).
        self.episode_length: int = self._scenes.config.episode_length
        self._goal_text = bool(goal_text)
        self.observation_space = self._make_observation_space()
        self.action_space = playground_spaces.action_space()
        self._state: np.ndarray | None = None  # s_t, float32 [1, D]
        #: The goals this environment knows (sentences), in goal-id order.
        self.goal_sentences: tuple[str, ...] = catalog.table.sentences
        #: int32 [G, L], the token ids of each goal of `goal_sentences`.
        self.goal_tokens: np.ndarray = catalog.goal_tokens
        self.vocabulary = catalog.vocabulary

    def _make_observation_space(self) -> gymnasium.spaces.Dict:
        catalog = self._scenes.catalog
        return playground_spaces.observation_space(
            self._scenes.config.num_objects,
            catalog.vocabulary_size,
            catalog.max_length,
            catalog.table.sentences if self._goal_text else None,
        )

    @property
    def goal(self) -> str:
        """The current goal sentence."""
        if not self._scenes.started:
            raise RuntimeError("No goal before the first reset(): call env.reset() first.")
        return self._scenes.sentences()[0]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Starts an episode; ``options={"goal": sentence}`` sets its goal.

        Returns:
          (observation, {"goal": sentence}).
        """
        super().reset(seed=seed)
        goals = goals_from_options(options, 1, self._scenes.relational)
        self._state = self._scenes.reset(self.np_random, goals)
        return self._observation(self._state), {"goal": self.goal}

    def step(self, action):
        """One step with action float [3]; returns (obs, reward, terminated, truncated, info)."""
        if self._state is None:
            raise RuntimeError("step() before reset(): call env.reset() first.")
        if self._scenes.truncated:
            raise RuntimeError(
                f"The episode was truncated after {self._scenes.config.episode_length} steps; "
                "call env.reset() to start the next one."
            )
        action = np.asarray(action, dtype=np.float32)
        if action.shape != (3,):
            raise ValueError(
                f"Expected an action of shape (3,) = (dx, dy, gripper) in [-1, 1], got shape "
                f"{action.shape}."
            )
        self._state, achieved = self._scenes.step(action[None])
        success = bool(achieved[0])
        truncated = self._scenes.truncated
        info = {"goal": self.goal, "is_success": success}
        if truncated:
            info["descriptions"] = self._scenes.describe()[0]
        return self._observation(self._state), 0.0 if success else -1.0, False, truncated, info

    def _observation(self, state: np.ndarray) -> dict:
        observation = {"state": state[0], "goal": self._scenes.tokens[0].copy()}
        if self._goal_text:
            observation["goal_text"] = self.goal
        return observation

    def render(self) -> np.ndarray | None:
        """The current frame, uint8 [H, W, 3] (render_mode "rgb_array"; None otherwise)."""
        if self.render_mode is None or self._state is None:
            return None
        from imagine_tf.env.rendering import render_state

        return render_state(self._state[0], self.goal)
