"""Goals as arrays: what each sentence means, for vectorised scene generation and the oracle.

A `GoalTable` parses G sentences once into per-goal arrays (verb, colour, name mask, zone,
relation, reference). Parsing is word-based, so it also reads goals outside the grammar
(imagined goals such as "Grow red door"): words that name no attribute are ignored, as in the
reference's scene generation; an unknown Go zone is never reached. The oracle says only what
the partner can say: a sentence outside the grammar is never achieved (``achievable``).
``lenient`` tables also take sentences that start with no verb (randomly imagined goals):
they constrain no scene and are never achieved.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Sequence

import numpy as np

from imagine_tf.env import ontology
from imagine_tf.env.scene_generation import RELATION_WORDS, GoalKind, SceneConstraints
from imagine_tf.language import grammar

#: Verb codes of `GoalTable.verb`.
VERB_GO, VERB_GRASP, VERB_GROW, VERB_RELATIONAL = range(4)
_VERB_KIND = np.array([GoalKind.FREE, GoalKind.GRASP, GoalKind.GROW, GoalKind.RELATIONAL])
_INF = np.inf


@dataclasses.dataclass(frozen=True)
class GoalTable:
    """Per-goal arrays for G goal sentences.

    Attributes:
      sentences: the G sentences, in table order (the goal id is the index).
      verb: int [G], VERB_GO / VERB_GRASP / VERB_GROW / VERB_RELATIONAL.
      colour, object_type, category: int [G], the attributes named (-1 if none).
      name_mask: bool [G, 32], the types the goal's name accepts (all if no name).
      zone: float [G, 4], (x_low, x_high, y_low, y_high) of Go goals, strict, ±inf if open.
      relation: int [G], a `Relation` for relational goals, else -1.
      reference_colour, reference_type, reference_category: int [G], the reference's
        attributes (relational goals).
      reference_name_mask: bool [G, 32]; reference_colour_any: bool [G].
      achievable: bool [G], the sentence is one of the grammar's goals (the oracle says
        False of all others).
    """

    sentences: tuple[str, ...]
    verb: np.ndarray
    colour: np.ndarray
    object_type: np.ndarray
    category: np.ndarray
    name_mask: np.ndarray
    zone: np.ndarray
    relation: np.ndarray
    reference_colour: np.ndarray
    reference_type: np.ndarray
    reference_category: np.ndarray
    reference_name_mask: np.ndarray
    achievable: np.ndarray

    def __len__(self) -> int:
        return len(self.sentences)

    @classmethod
    def from_sentences(cls, sentences: Sequence[str], lenient: bool = False) -> "GoalTable":
        """Parses sentences (any case; "Verb word word ..."); ``lenient``: a sentence with
        no known verb is a goal that is never achieved instead of an error."""
        if not sentences:
            raise ValueError("A GoalTable needs at least one goal sentence, got none.")
        rows = [_parse(s, lenient) for s in sentences]
        arrays = {name: np.stack([np.asarray(r[name]) for r in rows]) for name in rows[0]}
        # Zones in float32, like the observations they are compared with (a float64 bound
        # would make a coordinate exactly on a boundary compare differently from the partner).
        arrays["zone"] = arrays["zone"].astype(np.float32)
        grammar_goals = _grammar_goals()
        achievable = np.array([" ".join(s.split()).lower() in grammar_goals for s in sentences])
        return cls(sentences=tuple(sentences), achievable=achievable, **arrays)

    def index(self, sentences: Sequence[str]) -> np.ndarray:
        """Goal ids of sentences (exact spelling; see `grammar.check_goal` to normalise)."""
        lookup = self._lookup
        missing = [s for s in sentences if s not in lookup]
        if missing:
            raise ValueError(
                f"Goals not in this table: {missing[:3]}; nearest achievable goals: "
                f"{grammar.nearest_goals(missing[0])}."
            )
        return np.array([lookup[s] for s in sentences], dtype=np.int64)

    @property
    def _lookup(self) -> dict[str, int]:
        cached = self.__dict__.get("_lookup_cache")
        if cached is None:
            cached = {s: i for i, s in enumerate(self.sentences)}
            object.__setattr__(self, "_lookup_cache", cached)
        return cached

    def constraints(self, goal_ids: np.ndarray) -> SceneConstraints:
        """The scene constraints of goals (one scene per id)."""
        columns = self._constraint_columns[:, np.asarray(goal_ids, dtype=np.int64)]
        return SceneConstraints(*columns)

    @property
    def _constraint_columns(self) -> np.ndarray:
        """int64 [8, G]: the `SceneConstraints` fields of every goal, in field order."""
        cached = self.__dict__.get("_constraint_cache")
        if cached is None:
            cached = np.stack(
                [
                    _VERB_KIND[self.verb],
                    self.colour,
                    self.object_type,
                    self.category,
                    self.reference_colour,
                    self.reference_type,
                    self.reference_category,
                    self.relation,
                ]
            ).astype(np.int64)
            object.__setattr__(self, "_constraint_cache", cached)
        return cached


def _attributes(words: list[str]) -> tuple[int, int, int, np.ndarray]:
    """(colour, type, category, name mask [32]) named by words; other words are ignored."""
    colour = object_type = category = -1
    for word in words:
        if word in ontology.COLOUR_INDEX:
            colour = ontology.COLOUR_INDEX[word]
        elif word in ontology.TYPE_INDEX:
            object_type = ontology.TYPE_INDEX[word]
        elif word in ontology.CATEGORY_INDEX:
            category = ontology.CATEGORY_INDEX[word]
    if object_type >= 0:
        mask = np.arange(ontology.NUM_TYPES) == object_type
    elif category >= 0:
        mask = ontology.CATEGORY_MEMBERS[category].copy()
    else:
        mask = np.ones(ontology.NUM_TYPES, dtype=bool)
    return colour, object_type, category, mask


@functools.lru_cache(maxsize=1)
def _grammar_goals() -> frozenset[str]:
    """Every goal of the grammar, lower case."""
    return frozenset(g.lower() for g in grammar.one_object_goals() + grammar.relational_goals())


def _unreachable_row() -> dict:
    """The columns of a goal never achieved: the Go verb with an empty zone, no attributes."""
    none_mask = np.ones(ontology.NUM_TYPES, dtype=bool)
    return dict(
        verb=VERB_GO,
        colour=-1,
        object_type=-1,
        category=-1,
        name_mask=none_mask,
        zone=np.array([_INF, -_INF, _INF, -_INF]),  # empty zone: never reached
        relation=-1,
        reference_colour=-1,
        reference_type=-1,
        reference_category=-1,
        reference_name_mask=none_mask,
    )


def _relational_columns(rest: list[str], at: int) -> dict:
    """The columns of a relational goal whose words after the verb are ``rest``, the relation
    word at position ``at``."""
    colour, object_type, category, mask = _attributes(rest[:at])
    ref_colour, ref_type, ref_category, ref_mask = _attributes(rest[at + 1 :])
    return dict(
        verb=VERB_RELATIONAL,
        colour=colour,
        object_type=object_type,
        category=category,
        name_mask=mask,
        relation=RELATION_WORDS.index(rest[at]),
        reference_colour=ref_colour,
        reference_type=ref_type,
        reference_category=ref_category,
        reference_name_mask=ref_mask,
    )


def _parse(sentence: str, lenient: bool = False) -> dict:
    words = sentence.split()
    if not words:
        raise ValueError("An empty goal sentence cannot be parsed.")
    verb_word = words[0].capitalize()
    rest = [w.lower() for w in words[1:]]
    row = _unreachable_row()
    if verb_word == grammar.GO:
        canonical = " ".join([grammar.GO] + rest)
        if canonical in grammar.GO_ZONES:
            bounds = grammar.GO_ZONES[canonical]
            defaults = (-_INF, _INF, -_INF, _INF)
            row["zone"] = np.array([d if b is None else b for b, d in zip(bounds, defaults)])
        return row
    if verb_word not in (grammar.GRASP, grammar.GROW) and lenient:
        return row  # the empty Go zone: never reached
    if verb_word not in (grammar.GRASP, grammar.GROW):
        raise ValueError(
            f"Goal {sentence!r} starts with {words[0]!r}; goals start with Go, Grasp or Grow."
        )
    relation_positions = [i for i, w in enumerate(rest) if w in RELATION_WORDS]
    if relation_positions and lenient and verb_word != grammar.GRASP:
        return row
    if relation_positions:
        if verb_word != grammar.GRASP:
            raise ValueError(f"Relational goals use the verb Grasp, got {sentence!r}.")
        row.update(_relational_columns(rest, relation_positions[0]))
        return row
    colour, object_type, category, mask = _attributes(rest)
    row.update(
        verb=VERB_GRASP if verb_word == grammar.GRASP else VERB_GROW,
        colour=colour,
        object_type=object_type,
        category=category,
        name_mask=mask,
    )
    return row
