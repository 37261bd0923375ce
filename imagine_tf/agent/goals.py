"""The goals an agent knows: discovered from the partner's feedback, or imagined (Colas et al. 2020, IMAGINE; Karch, Colas et al. 2020; flowersteam/Imagine).

G_d, the discovered goals, are every training description the social partner ever gave. The
imagined goals are the ones goal imagination proposed (`imagine_tf.language.imagination`).
Both share one id space, in order of arrival, as the reference's goal memory: an imagined goal
that the partner says later becomes discovered and keeps its id. Targets are drawn uniformly
with replacement from the discovered goals, or the imagined ones (`sample`); before the first
discovery there is no goal to draw and the caller uses the reference's placeholder ("Random
Goal" with an N(0, 1) embedding).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


class KnownGoals:
    """The discovered and imagined goals, ids in order of arrival.

    Args:
      partner_goals: the partner's sentences, the columns of its description matrices.
      max_goals: how many goals can be known at most (the size of id-indexed tables).
    """

    def __init__(self, partner_goals: Sequence[str], max_goals: int | None = None):
        self.partner_goals = tuple(partner_goals)
        self.max_goals = max_goals or len(self.partner_goals)
        self.sentences: list[str] = []
        #: bool [max_goals]: whether an id is an imagined goal (not discovered yet).
        self.imagined = np.zeros(self.max_goals, bool)
        self._id_of_sentence: dict[str, int] = {}
        # id of each partner column once discovered, -1 before.
        self._id_of_column = np.full(len(self.partner_goals), -1, np.int64)
        self._column = {goal: c for c, goal in enumerate(self.partner_goals)}

    def __len__(self) -> int:
        return len(self.sentences)

    @property
    def num_discovered(self) -> int:
        return len(self) - int(self.imagined.sum())

    @property
    def discovered_ids(self) -> np.ndarray:
        return np.flatnonzero(~self.imagined[: len(self)])

    @property
    def imagined_ids(self) -> np.ndarray:
        return np.flatnonzero(self.imagined[: len(self)])

    def discovered_sentences(self) -> list[str]:
        return [self.sentences[i] for i in self.discovered_ids]

    def discover(self, descriptions: np.ndarray) -> np.ndarray:
        """Discovers the goals first described in ``descriptions`` (bool [B, partner goals]).

        New goals get the next ids, in the order of the partner's columns; imagined ones keep
        theirs. Returns the ids discovered now.
        """
        described = np.asarray(descriptions, bool).any(axis=0)
        new_columns = np.flatnonzero(described & (self._id_of_column < 0))
        ids = []
        for column in new_columns:
            sentence = self.partner_goals[column]
            goal_id = self._id_of_sentence.get(sentence)
            if goal_id is None:
                goal_id = self._add(sentence)
            self.imagined[goal_id] = False
            self._id_of_column[column] = goal_id
            ids.append(goal_id)
        return np.array(ids, np.int64)

    def imagine(self, sentences: Sequence[str]) -> np.ndarray:
        """Adds imagined goals (known ones are skipped); returns their ids."""
        ids = [self._add(s) for s in sentences if s not in self._id_of_sentence]
        self.imagined[ids] = True
        return np.array(ids, np.int64)

    def _add(self, sentence: str) -> int:
        if len(self) >= self.max_goals:
            raise ValueError(
                f"More than max_goals = {self.max_goals} known goals; raise "
                "TrainConfig.max_imagined_goals."
            )
        self._id_of_sentence[sentence] = len(self)
        self.sentences.append(sentence)
        return len(self) - 1

    def achieved(self, descriptions: np.ndarray) -> np.ndarray:
        """The descriptions as known-goal ids: bool [B, len(self)] (imagined ids: False)."""
        descriptions = np.asarray(descriptions, bool)
        result = np.zeros((len(descriptions), len(self)), bool)
        columns = np.flatnonzero(self._id_of_column >= 0)
        result[:, self._id_of_column[columns]] = descriptions[:, columns]
        return result

    def sample(
        self, rng: np.random.Generator, count: int, imagined: bool = False
    ) -> np.ndarray | None:
        """``count`` target ids, uniform with replacement among the discovered (or imagined)
        goals; None if there is none."""
        ids = self.imagined_ids if imagined else self.discovered_ids
        if not ids.size:
            return None
        return ids[rng.integers(0, ids.size, count)]

    def state_dict(self) -> dict:
        return {
            "sentences": np.array(self.sentences, dtype=object),
            "imagined": self.imagined[: len(self)].copy(),
        }

    def load_state_dict(self, state: dict) -> None:
        """Restores the saved goals in their saved order (checkpoints without ``imagined``
        hold discovered goals only)."""
        self.__init__(self.partner_goals, self.max_goals)
        sentences = [str(s) for s in state["sentences"]]
        imagined = state.get("imagined", np.zeros(len(sentences), bool))
        for sentence, is_imagined in zip(sentences, imagined):
            goal_id = self._add(sentence)
            self.imagined[goal_id] = bool(is_imagined)
            if not is_imagined:
                self._id_of_column[self._column[sentence]] = goal_id
