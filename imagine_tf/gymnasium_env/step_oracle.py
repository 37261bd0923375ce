"""The oracle's verdict at every step of an episode, from the core's arrays, without decoding.

`imagine_tf.language.oracle.achieved` decodes B observations into `SceneFacts` first, which
costs more than a core step at B = 1,024. Within an episode the goal, the objects' types and
colours and their initial positions are fixed, so `StepOracle.start` computes once, from the
core's initial facts (`core_facts`), which objects can satisfy each scene's goal, and
`StepOracle.achieved` then reads only what moves (the hand, the held object, the sizes after a
growth and, for two-object goals, the positions): a few array operations a step. It gives the
oracle's verdict exactly, float32 rounding included (a test checks it against
`oracle.achieved` on random and scripted episodes).
"""

from __future__ import annotations

import numpy as np

from imagine_tf.env import ontology
from imagine_tf.env.config import GROWN_THRESHOLD
from imagine_tf.env.observation import SceneFacts
from imagine_tf.env.physics import PlaygroundCore
from imagine_tf.env.scene_generation import relation_holds
from imagine_tf.language import oracle
from imagine_tf.language.goal_table import (
    VERB_GO,
    VERB_GRASP,
    VERB_GROW,
    VERB_RELATIONAL,
    GoalTable,
)

_NEVER = np.float32(np.inf)  # the zone (inf, -inf, inf, -inf) of other goals holds nowhere


class StepOracle:
    """Whether each scene of a core satisfies its goal, step after step of one episode.

    Args:
      table: the goals (`GoalCatalog.table`).
      core: the B scenes (`achieved` reads what moves).
    """

    def __init__(self, table: GoalTable, core: PlaygroundCore):
        self._table = table
        self._core = core

    def start(self, facts: SceneFacts, goal_ids: np.ndarray) -> None:
        """Starts an episode: the core's `initial_facts` and the goals, int [B] ids in the table."""
        table, goals = self._table, np.asarray(goal_ids, dtype=np.int64)
        batch, num_objects = facts.object_type.shape
        verb = np.where(table.achievable[goals], table.verb[goals], -1)  # -1: never achieved
        match = oracle.matching_objects(facts, table, goals)  # [B, N]
        go = verb == VERB_GO
        self._any_go = bool(go.any())
        zone = table.zone[goals]  # float32 (x_low, x_high, y_low, y_high)
        x_low, x_high, y_low, y_high = (
            np.ascontiguousarray(np.where(go, zone[:, k], _NEVER if k % 2 == 0 else -_NEVER))
            for k in range(4)
        )
        self._zone = (x_low, x_high, y_low, y_high)
        # _held_ok[b, 1 + n]: holding object n achieves the goal; column 0 is "holding nothing".
        self._held_ok = np.zeros((batch, num_objects + 1), dtype=bool)
        self._held_ok[:, 1:] = match & (verb == VERB_GRASP)[:, None]
        self._flat_offsets = np.arange(batch) * (num_objects + 1) + 1
        self._grow_ok = match & (verb == VERB_GROW)[:, None] & ontology.IS_LIVING[facts.object_type]
        self._grow_rows = np.flatnonzero(self._grow_ok.any(axis=1))
        self._grow_ok = self._grow_ok[self._grow_rows]
        self._initial_size = facts.object_size[self._grow_rows]
        # Sizes change only when something grows (`growth_steps`): re-read them then only.
        self._grown = np.zeros(batch, dtype=bool)
        self._growth_steps_seen = 0
        self._relation_rows = np.flatnonzero(verb == VERB_RELATIONAL)
        if self._relation_rows.size:
            self._start_relations(facts, goals, match)

    def _start_relations(self, facts: SceneFacts, goals: np.ndarray, match: np.ndarray) -> None:
        """The two-object goals: their held candidates and their references."""
        rows, table = self._relation_rows, self._table
        reference = oracle.matching_objects(facts, table, goals, reference=True) & facts.present
        self._relation_held = match[rows]  # [R, N]
        self._relation_reference = reference[rows]  # [R, N]
        self._relation = table.relation[goals[rows]][:, None, None]  # [R, 1, 1]
        self._initial_position = facts.initial_position[rows]  # [R, N, 2]
        self._other = ~np.eye(facts.num_objects, dtype=bool)

    def achieved(self) -> np.ndarray:
        """bool [B]: the core's current state satisfies each scene's goal."""
        core = self._core
        held = core.held
        result = self._held_ok.reshape(-1).take(np.add(held, self._flat_offsets))
        if self._any_go:
            x_low, x_high, y_low, y_high = self._zone
            x, y = core.hand_position[:, 0], core.hand_position[:, 1]
            result |= (x > x_low) & (x < x_high) & (y > y_low) & (y < y_high)
        if core.growth_steps != self._growth_steps_seen and self._grow_rows.size:
            rows, self._growth_steps_seen = self._grow_rows, core.growth_steps
            grown = (core.object_size[rows] - self._initial_size) > GROWN_THRESHOLD
            self._grown[rows] = (grown & self._grow_ok).any(axis=1)
        result |= self._grown
        if self._relation_rows.size:
            self._relations(held, core.object_position, result)
        return result

    def _relations(self, held: np.ndarray, object_position: np.ndarray, result) -> None:
        """ORs in the two-object goals. The oracle reads initial positions as o_t − (o_t − o_0)
        from the observation (float32): so does this, for the same rounding."""
        rows = self._relation_rows
        held_rows = held[rows]
        if not (held_rows >= 0).any():
            return
        position = object_position[rows]
        initial = position - (position - self._initial_position)  # [R, N, 2]
        candidate = np.arange(position.shape[1]) == held_rows[:, None]  # [R, N]
        candidate &= self._relation_held
        holds = relation_holds(initial[:, :, None, :], initial[:, None, :, :], self._relation)
        pairs = candidate[:, :, None] & self._relation_reference[:, None, :] & holds & self._other
        result[rows] |= pairs.any(axis=(1, 2))
