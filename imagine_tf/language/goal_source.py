"""`GoalCatalog`: the language side's `GoalSource` for `PlaygroundEnv`.

It owns the goal table (the 255 one-object goals, plus the 160 two-object goals when
``relational``), the vocabulary, which goals a reset samples from (a split), and the oracle
reward in the {-1, 0} convention (0 = achieved). Imagined goals outside the grammar can be
set too (`encode` with ``imagined=True``): they are added to the table, their scenes follow
their words, and the oracle never says they are achieved.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from imagine_tf.env.goal_interface import GoalBatch
from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.language.vocabulary import Vocabulary

SPLITS = ("train", "test", "all")


class GoalCatalog:
    """Goals for the environment: encoding, sampling, sentences and the oracle reward.

    Args:
      split: the goals a reset samples when none is set: "train", "test" or "all".
      relational: also know (and sample) the two-object goals.
      vocabulary: the tokenizer; default `Vocabulary.default(relational)`.
    """

    def __init__(
        self,
        split: str = "train",
        relational: bool = False,
        vocabulary: Vocabulary | None = None,
    ):
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}.")
        sentences = grammar.one_object_goals()
        if relational:
            sentences = sentences + grammar.relational_goals()
        self.vocabulary = vocabulary or Vocabulary.default(relational=relational)
        self._set_table(sentences)
        self.split = split
        in_split = {
            "train": lambda s: not grammar.is_test_goal(s),
            "test": grammar.is_test_goal,
            "all": lambda s: True,
        }[split]
        self.sample_ids = np.array(
            [i for i, s in enumerate(sentences) if in_split(s)], dtype=np.int64
        )

    def _set_table(self, sentences) -> None:
        self.table = GoalTable.from_sentences(sentences, lenient=True)
        self._ids = {s: i for i, s in enumerate(sentences)}
        #: int32 [G, L], the token ids of every goal of the table.
        self.goal_tokens = self.vocabulary.encode(list(sentences))

    @property
    def vocabulary_size(self) -> int:
        return len(self.vocabulary)

    @property
    def max_length(self) -> int:
        return self.vocabulary.max_length

    def batch(self, goal_ids: np.ndarray) -> GoalBatch:
        """The `GoalBatch` of goal ids."""
        goal_ids = np.asarray(goal_ids, dtype=np.int64)
        return GoalBatch(
            goal_ids=goal_ids,
            tokens=self.goal_tokens[goal_ids],
            constraints=self.table.constraints(goal_ids),
        )

    def sample(self, rng: np.random.Generator, batch_size: int) -> GoalBatch:
        return self.batch(self.sample_ids[rng.integers(0, self.sample_ids.size, batch_size)])

    def encode(self, goals: Sequence[str], imagined: bool = False) -> GoalBatch:
        """The `GoalBatch` of goal sentences; ``imagined``: sentences outside the grammar (of
        known words, at most `max_length` long) are accepted and added to the table."""
        if not imagined:
            return self.batch(self.table.index([grammar.check_goal(g) for g in goals]))
        new = sorted({g for g in goals if g not in self._ids})
        if new:
            self.vocabulary.encode(new)  # unknown words or too long: a clear error here
            self._set_table(self.table.sentences + tuple(new))
        return self.batch(np.array([self._ids[g] for g in goals], np.int64))

    def sentences(self, goal_ids: np.ndarray) -> list[str]:
        return [self.table.sentences[i] for i in np.asarray(goal_ids)]

    def reward(self, states: np.ndarray, goal_ids: np.ndarray) -> np.ndarray:
        """Oracle reward of states for their goals: 0 if achieved, else -1 (float32 [B])."""
        return oracle.achieved(states, self.table, goal_ids).astype(np.float32) - 1.0
