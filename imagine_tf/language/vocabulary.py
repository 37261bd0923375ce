"""Vocabulary and tokenizer for goal sentences (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

Tokenization lower-cases and splits on spaces. Index 0 is padding (appended at the end); words
get indices 1..V in sorted order. The default vocabulary is built from the train + test
one-object goals: 50 words + pad = 51, maximum length 4. With the relational goals it adds
right_of, left_of, above, below (55) and the maximum length becomes 5.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from imagine_tf.language import grammar

PAD = "<pad>"
PAD_ID = 0


class Vocabulary:
    """Maps goal sentences to padded int32 token ids and back.

    Args:
      words: the known words (any order; stored sorted, lower-case).
      max_length: the padded length L of an encoded sentence.
    """

    def __init__(self, words: Iterable[str], max_length: int):
        self.words: tuple[str, ...] = (PAD,) + tuple(sorted({w.lower() for w in words}))
        if max_length < 1:
            raise ValueError(f"max_length must be >= 1, got {max_length!r}.")
        self.max_length = int(max_length)
        self._index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def from_goals(cls, goals: Sequence[str]) -> "Vocabulary":
        """A vocabulary holding every word of `goals`, padded to the longest goal."""
        words = {w for g in goals for w in g.lower().split()}
        return cls(words, max(len(g.split()) for g in goals))

    @classmethod
    def default(cls, relational: bool = False) -> "Vocabulary":
        """The paper's vocabulary (train + test one-object goals), plus relational words."""
        goals = grammar.one_object_goals()
        if relational:
            goals = goals + grammar.relational_goals()
        return cls.from_goals(goals)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word.lower() in self._index

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, Vocabulary)
            and self.words == other.words
            and self.max_length == other.max_length
        )

    def __repr__(self) -> str:
        return f"Vocabulary({len(self)} ids incl. pad, max_length={self.max_length})"

    def encode(self, sentences: str | Sequence[str]) -> np.ndarray:
        """Token ids, int32 [L] for one sentence or [B, L] for a list.

        Raises:
          ValueError: an unknown word (named, with the vocabulary) or a sentence too long.
        """
        if isinstance(sentences, str):
            return self.encode([sentences])[0]
        tokens = np.zeros((len(sentences), self.max_length), dtype=np.int32)
        for row, sentence in enumerate(sentences):
            words = sentence.lower().split()
            if len(words) > self.max_length:
                raise ValueError(
                    f"Goal {sentence!r} has {len(words)} words; this vocabulary pads to "
                    f"{self.max_length}. Use Vocabulary.default(relational=True) for the "
                    "two-object goals, or shorten the sentence."
                )
            for column, word in enumerate(words):
                index = self._index.get(word)
                if index is None:
                    raise ValueError(
                        f"Unknown word {word!r} in goal {sentence!r}. Known words "
                        f"({len(self.words) - 1}): {', '.join(self.words[1:])}."
                    )
                tokens[row, column] = index
        return tokens

    def decode(self, tokens: np.ndarray) -> list[str]:
        """Sentences from token ids [B, L] (pad ids dropped; the verb is capitalised)."""
        tokens = np.atleast_2d(np.asarray(tokens))
        sentences = []
        for row in tokens:
            words = [self.words[i] for i in row if i != PAD_ID]
            if words:
                words[0] = words[0].capitalize()
            sentences.append(" ".join(words))
        return sentences

    def get_config(self) -> dict:
        return {"words": list(self.words[1:]), "max_length": self.max_length}

    @classmethod
    def from_config(cls, config: dict) -> "Vocabulary":
        return cls(config["words"], config["max_length"])
