"""How the language-free environment receives goals: `GoalBatch` and the `GoalSource` protocol."""

from __future__ import annotations

import dataclasses
from typing import Protocol, Sequence

import numpy as np

from imagine_tf.env.scene_generation import SceneConstraints


@dataclasses.dataclass(frozen=True)
class GoalBatch:
    """Goals of B scenes.

    Attributes:
      goal_ids: int64 [B], ids in the goal source's table.
      tokens: int32 [B, L] token ids.
      constraints: the scene constraints the goals put on scene generation.
    """

    goal_ids: np.ndarray
    tokens: np.ndarray
    constraints: SceneConstraints


class GoalSource(Protocol):
    """What the environment needs from the language side."""

    vocabulary_size: int
    max_length: int

    def sample(self, rng: np.random.Generator, batch_size: int) -> GoalBatch:
        """Goals for a reset when the caller set none."""

    def encode(self, goals: Sequence[str], imagined: bool = False) -> GoalBatch:
        """Goals from sentences (raises ValueError for unknown goals, unless ``imagined``:
        then sentences outside the grammar are goals that are never achieved)."""

    def sentences(self, goal_ids: np.ndarray) -> list[str]:
        """The sentences of goal ids."""

    def reward(self, states: np.ndarray, goal_ids: np.ndarray) -> np.ndarray:
        """float32 [B] reward of states s_t for their goals."""
