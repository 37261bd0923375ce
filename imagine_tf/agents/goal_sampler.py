"""Goal discovery and target sampling from the partner's feedback (Colas et al. 2020; Karch, Colas et al. 2020; flowersteam/Imagine).

G_d, the discovered goals, are every training description the social partner ever gave, in
discovery order (their ids are discovery indices, as the reference's). Targets are drawn
uniformly with replacement from G_d; before the first discovery there is no goal to draw and
the caller uses the reference's placeholder ("Random Goal" with an N(0, 1) embedding).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


class DiscoveredGoals:
    """The goals discovered so far, in discovery order.

    Args:
      partner_goals: the partner's sentences, the columns of its description matrices.
      max_goals: how many goals can be discovered at most (the size of id-indexed tables).
    """

    def __init__(self, partner_goals: Sequence[str], max_goals: int | None = None):
        self.partner_goals = tuple(partner_goals)
        self.max_goals = max_goals or len(self.partner_goals)
        self.sentences: list[str] = []
        # id of each partner column once discovered, -1 before.
        self._id_of_column = np.full(len(self.partner_goals), -1, np.int64)
        self._column_of_id = np.zeros(self.max_goals, np.int64)

    def __len__(self) -> int:
        return len(self.sentences)

    def discover(self, descriptions: np.ndarray) -> np.ndarray:
        """Adds the goals first described in ``descriptions`` (bool [B, partner goals]).

        New goals get the next ids, in the order of the partner's columns. Returns their ids.
        """
        described = np.asarray(descriptions, bool).any(axis=0)
        new_columns = np.flatnonzero(described & (self._id_of_column < 0))
        if len(self) + new_columns.size > self.max_goals:
            raise ValueError(
                f"More than max_goals = {self.max_goals} goals discovered; raise max_goals."
            )
        new_ids = np.arange(len(self), len(self) + new_columns.size)
        self._id_of_column[new_columns] = new_ids
        self._column_of_id[new_ids] = new_columns
        self.sentences.extend(self.partner_goals[c] for c in new_columns)
        return new_ids

    def achieved(self, descriptions: np.ndarray) -> np.ndarray:
        """The descriptions as discovered-goal ids: bool [B, len(self)]."""
        return np.asarray(descriptions, bool)[:, self._column_of_id[: len(self)]]

    def sample(self, rng: np.random.Generator, count: int) -> np.ndarray | None:
        """``count`` target ids, uniform with replacement; None before any discovery."""
        if not self.sentences:
            return None
        return rng.integers(0, len(self), count)

    def state_dict(self) -> dict:
        return {"sentences": np.array(self.sentences, dtype=object)}

    def load_state_dict(self, state: dict) -> None:
        """Rediscovers the saved goals in their saved order."""
        column = {goal: c for c, goal in enumerate(self.partner_goals)}
        self.__init__(self.partner_goals, self.max_goals)
        for sentence in state["sentences"]:
            descriptions = np.zeros((1, len(self.partner_goals)), bool)
            descriptions[0, column[str(sentence)]] = True
            self.discover(descriptions)
