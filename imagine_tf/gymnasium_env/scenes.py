"""`SceneBatch`: B synchronous Playground scenes with language goals, the oracle and the partner.

The one engine behind the single Gymnasium environment (B = 1) and the vector environment
(B = num_envs), so both follow the same rules: the scenes reset together from one generator
(goals drawn from the split, then goal-conditioned scenes), step together for
``episode_length`` steps, and end together with a truncation (the world never terminates).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from imagine_tf.env.config import EPISODE_LENGTH, world_config
from imagine_tf.env.physics import PlaygroundCore
from imagine_tf.gymnasium_env.core_facts import current_facts, initial_facts
from imagine_tf.gymnasium_env.goal_options import restricted_goals
from imagine_tf.gymnasium_env.step_oracle import StepOracle
from imagine_tf.language.goal_source import GoalCatalog
from imagine_tf.language.social_partner import SocialPartner


class SceneBatch:
    """B scenes, their goals, the oracle's verdicts and the partner's descriptions.

    Args:
      num_scenes: B.
      num_objects: N, objects per scene.
      episode_length: T, steps per episode (then every scene is truncated).
      split: the goals a reset samples from: "train" (191), "test" (64) or "all" (255).
      relational: also know the 160 two-object goals (and sample them in the split).
      distractor_sampling, object_init_range: see `PlaygroundConfig` (None: the world's).
      world: "default" or "authors" (`imagine_tf.env.config.world_config`).
      goals: the goals a reset samples from instead of the split's (sentences), or None.
    """

    def __init__(
        self,
        num_scenes: int,
        num_objects: int = 3,
        episode_length: int = EPISODE_LENGTH,
        split: str = "train",
        relational: bool = False,
        distractor_sampling: str | None = None,
        object_init_range: float = 1.0,
        world: str = "default",
        goals: Sequence[str] | None = None,
    ):
        self.config = world_config(
            world,
            num_objects=num_objects,
            episode_length=episode_length,
            distractor_sampling=distractor_sampling,
            object_init_range=object_init_range,
        )
        self.relational = bool(relational)
        self.catalog = GoalCatalog(split=split, relational=self.relational)
        #: the canonical goals sampled instead of the split's, or None
        self.goals = restricted_goals(goals, self.relational)
        if self.goals is not None:
            self.catalog.sample_ids = self.catalog.table.index(self.goals)
        self.core = PlaygroundCore(self.config, num_scenes, seed=0)  # reseeded by `reset`
        self.num_scenes = self.core.batch_size
        self.partner = SocialPartner(relational=self.relational)
        self._oracle = StepOracle(self.catalog.table, self.core)
        self.goal_ids: np.ndarray | None = None  # int64 [B]
        self.tokens: np.ndarray | None = None  # int32 [B, L]

    @property
    def started(self) -> bool:
        return self.goal_ids is not None

    @property
    def truncated(self) -> bool:
        """The episode is over (all scenes at once)."""
        return self.core.num_steps >= self.config.episode_length

    def reset(self, rng: np.random.Generator, goals: Sequence[str] | None = None) -> np.ndarray:
        """New scenes drawn with ``rng`` for canonical ``goals`` (None: sampled from the
        split with ``rng``); returns s_0, float32 [B, D]."""
        self.core.rng = rng
        if goals is None:
            batch = self.catalog.sample(rng, self.num_scenes)
        else:
            batch = self.catalog.encode(goals)
        state = self.core.reset(batch.constraints)
        self.goal_ids, self.tokens = batch.goal_ids, batch.tokens
        self._initial = initial_facts(self.core)
        self._oracle.start(self._initial, batch.goal_ids)
        return state

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Steps every scene with actions [B, 3]; returns (s_t float32 [B, D], achieved bool
        [B]: the oracle's verdict on s_t for each scene's goal)."""
        state = self.core.step(actions)
        return state, self._oracle.achieved()

    def describe(self) -> list[list[str]]:
        """The partner's training-goal descriptions of the current states, one list per scene
        (read from the core's arrays: the same as describing the observations)."""
        return self.partner.describe(current_facts(self.core, self._initial))

    def sentences(self) -> list[str]:
        """The current goals' sentences."""
        return self.catalog.sentences(self.goal_ids)
