"""The social partner: every true description of a final state (the authors' Playground, flowersteam/Imagine).

The partner *generates* sentences from what it perceives, following the reference's rules,
independently of the oracle (which *checks* goals); a property test asserts that both agree.

* Go: each zone that holds for the final hand position.
* Grasp: for the object held at the end, with names {type} ∪ its categories and colour c:
  "Grasp c name" for each name, "Grasp any c thing", "Grasp any name" for each name.
* Grow: the same three patterns with "Grow", for each grown living thing.
* Optionally (two-object goals): for the held object h, each other object r and each relation
  true of their initial positions: "Grasp any <rel> X thing" for X in colour(r) ∪ names(r).

The rules are compiled once into lookup tables over (type, colour) → goal columns, so describing
a batch is a few gathers and ORs. By default only training goals are given (the agent never hears
a test goal); ``include_test=True`` also gives test descriptions.
"""

from __future__ import annotations

import numpy as np

from imagine_tf.env import ontology
from imagine_tf.env.observation import SceneFacts, decode_observation
from imagine_tf.env.scene_generation import RELATION_WORDS, relation_holds
from imagine_tf.language import grammar


def _object_descriptions(verb: str, type_name: str, colour: str | None) -> list[str]:
    names = ontology.names_of_type(type_name)
    sentences = [f"{verb} any {name}" for name in names]
    if colour is not None:
        sentences += [f"{verb} {colour} {name}" for name in names]
        sentences.append(f"{verb} any {colour} thing")
    return sentences


def _zone_descriptions(x: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """Each Go description and where it holds, for hand coordinates x, y [B]."""
    left, right, bottom, top = x < -0.05, x > 0.05, y < -0.05, y > 0.05
    far_left, far_right, far_bottom, far_top = x < -0.25, x > 0.25, y < -0.25, y > 0.25
    return {
        "Go left": left,
        "Go right": right,
        "Go bottom": bottom,
        "Go top": top,
        "Go bottom left": far_bottom & far_left,
        "Go bottom right": far_bottom & far_right,
        "Go top left": far_top & far_left,
        "Go top right": far_top & far_right,
        "Go center": (x > -0.25) & (x < 0.25) & (y > -0.25) & (y < 0.25),
    }


class SocialPartner:
    """Describes final states with every true sentence of its goal list.

    Args:
      relational: also describe the two-object goals.
      include_test: also give test-set descriptions (default: training goals only).

    Attributes:
      goals: the sentences the partner may say (its columns), sorted.
    """

    def __init__(self, relational: bool = False, include_test: bool = False):
        goals = list(grammar.train_goals())
        if include_test:
            goals += grammar.test_goals()
        if relational:
            goals += grammar.train_goals(relational=True)
            if include_test:
                goals += grammar.test_goals(relational=True)
        self.goals: tuple[str, ...] = tuple(sorted(goals))
        self.relational = relational
        self._column = {g: i for i, g in enumerate(self.goals)}
        self._goal_array = np.array(self.goals, dtype=object)
        num_goals = len(self.goals)
        colours = list(ontology.COLOURS) + [None]  # index -1 = undecodable colour
        # _grasp[t, c] / _grow[t, c]: columns described by a held / grown object of type t.
        self._grasp = np.zeros((ontology.NUM_TYPES, len(colours), num_goals), dtype=bool)
        self._grow = np.zeros_like(self._grasp)
        self._relative = np.zeros(
            (len(RELATION_WORDS), ontology.NUM_TYPES, len(colours), num_goals), dtype=bool
        )
        for t, type_name in enumerate(ontology.OBJECT_TYPES):
            for c, colour in enumerate(colours):
                self._mark(self._grasp[t, c], _object_descriptions("Grasp", type_name, colour))
                if ontology.IS_LIVING[t]:
                    self._mark(self._grow[t, c], _object_descriptions("Grow", type_name, colour))
                references = list(ontology.names_of_type(type_name))
                references += [colour] if colour else []
                for r, relation in enumerate(RELATION_WORDS):
                    self._mark(
                        self._relative[r, t, c],
                        [f"Grasp any {relation} {x} thing" for x in references],
                    )
        # Bit-packed tables, indexed by code = type * 4 + colour (colour 3 = undecodable).
        self._words = -(-num_goals // 64)
        flat = (ontology.NUM_TYPES * len(colours), num_goals)
        self._grasp_bits = _pack(self._grasp.reshape(flat))
        self._grow_bits = _pack(self._grow.reshape(flat))
        self._relative_bits = _pack(self._relative.reshape((len(RELATION_WORDS),) + flat))
        go = np.zeros((len(grammar.GO_ZONES), num_goals), dtype=bool)  # zone order
        for k, sentence in enumerate(_zone_descriptions(np.zeros(1), np.zeros(1))):
            if sentence in self._column:
                go[k, self._column[sentence]] = True
        # _zone_bits[class]: the Go descriptions of a hand in each of the 9 x 9 position classes
        # of `_zone_class`, found by applying the zone rules to one point of each class.
        holds = np.stack(list(_zone_descriptions(*_CLASS_POINTS.T).values()), axis=1)  # [81, 9]
        self._zone_bits = _pack((holds[:, :, None] & go[None]).any(axis=1))

    def _mark(self, row: np.ndarray, sentences: list[str]) -> None:
        for sentence in sentences:
            column = self._column.get(sentence)
            if column is not None:
                row[column] = True

    # --------------------------------------------------------------------------------------------
    def describe_matrix(self, states: np.ndarray | SceneFacts) -> np.ndarray:
        """bool [B, len(goals)]: which of the partner's sentences are true of each final state.

        Args:
          states: final observations s_T, float [B, 2 (3 + 39 N)], or their `SceneFacts`.
        """
        packed = self._describe_packed(states)
        bits = np.unpackbits(packed.view(np.uint8), axis=1, bitorder="little")
        return bits[:, : len(self.goals)].astype(bool)

    def _describe_packed(self, states: np.ndarray | SceneFacts) -> np.ndarray:
        """The descriptions as bit sets, uint64 [B, W] (bit g of the row = column g)."""
        facts = states if isinstance(states, SceneFacts) else decode_observation(states)
        code = facts.object_type * _NUM_COLOUR_CODES + np.where(
            facts.object_colour < 0, ontology.NUM_COLOURS, facts.object_colour
        )  # [B, N]
        zero = np.uint64(0)
        # At most one object is held: gather its row only.
        holding = facts.held.any(axis=1)
        held_code = np.take_along_axis(code, facts.held.argmax(axis=1)[:, None], axis=1)[:, 0]
        described = np.where(holding[:, None], self._grasp_bits[held_code], zero)
        grown = np.flatnonzero(facts.grown)  # few objects grow: OR their rows in, sparsely
        if grown.size:
            rows = grown // facts.num_objects
            np.bitwise_or.at(described, rows, self._grow_bits[code.ravel()[grown]])
        described |= self._zone_bits[_zone_class(facts.hand_position)]
        if self.relational and facts.num_objects > 1:
            described |= self._describe_relations(facts, code)
        return described

    def _describe_relations(self, facts: SceneFacts, code: np.ndarray) -> np.ndarray:
        initial = facts.initial_position
        other = ~np.eye(facts.num_objects, dtype=bool)
        result = np.zeros((facts.batch_size, self._words), dtype=np.uint64)
        for r in range(len(RELATION_WORDS)):
            # true[b, h, o]: held object h was initially <relation r> object o (o != h).
            true = relation_holds(initial[:, :, None, :], initial[:, None, :, :], np.int64(r))
            # a padded slot (no object) is no reference
            reference = true & other & facts.held[:, :, None] & facts.present[:, None, :]
            reference = reference.any(axis=1)  # [B, N]
            bits = np.where(reference[..., None], self._relative_bits[r][code], np.uint64(0))
            result |= np.bitwise_or.reduce(bits, axis=1)
        return result

    def describe(self, states: np.ndarray | SceneFacts) -> list[list[str]]:
        """The sentences (sorted) the partner says about each final state."""
        described = self.describe_matrix(states)
        rows, columns = np.divmod(np.flatnonzero(described), described.shape[1])  # row-major
        sentences = self._goal_array[columns].tolist()
        ends = np.cumsum(np.bincount(rows, minlength=described.shape[0])).tolist()
        return [sentences[start:end] for start, end in zip([0] + ends[:-1], ends)]


_NUM_COLOUR_CODES = ontology.NUM_COLOURS + 1  # the colours, then "undecodable"

# Every zone rule compares a coordinate with one of these edges (strictly), so a coordinate's
# truth values only depend on its class: below the first edge, on it, between it and the next...
_ZONE_EDGES = np.array([-0.25, -0.05, 0.05, 0.25], dtype=np.float32)
_CLASS_VALUES = np.array(
    [-1.0, -0.25, -0.15, -0.05, 0.0, 0.05, 0.15, 0.25, 1.0], dtype=np.float32
)  # one coordinate per class 0..8


def _axis_class(value: np.ndarray) -> np.ndarray:
    """Class 0..8 of float32 coordinates relative to the zone edges (odd = exactly on an edge)."""
    return np.searchsorted(_ZONE_EDGES, value, "left") + np.searchsorted(
        _ZONE_EDGES, value, "right"
    )


def _zone_class(hand_position: np.ndarray) -> np.ndarray:
    """Class 0..80 of hand positions [B, 2] (x class * 9 + y class)."""
    hand = np.asarray(hand_position, dtype=np.float32)
    return _axis_class(hand[:, 0]) * 9 + _axis_class(hand[:, 1])


_CLASS_POINTS = np.stack(np.meshgrid(_CLASS_VALUES, _CLASS_VALUES, indexing="ij"), -1).reshape(
    -1, 2
)  # [81, 2], row = x class * 9 + y class


def _pack(table: np.ndarray) -> np.ndarray:
    """bool [..., G] -> uint64 [..., ceil(G / 64)], bit g%64 of word g//64 = column g."""
    num_goals = table.shape[-1]
    words = -(-num_goals // 64)
    padded = np.zeros(table.shape[:-1] + (words * 64,), dtype=bool)
    padded[..., :num_goals] = table
    packed = np.packbits(padded, axis=-1, bitorder="little")
    return np.ascontiguousarray(packed).view(np.uint64)
