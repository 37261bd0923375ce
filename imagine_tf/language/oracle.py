"""The oracle: a vectorised predicate (final state, goal) -> bool (the authors' Playground, flowersteam/Imagine).

Reads what the goal means from a `GoalTable` and what the scene is from `SceneFacts`:

* Go: the final hand position is strictly inside the zone;
* Grasp: an object held at the final step has the goal's colour and name;
* Grow: a living thing that has grown (size_T > size_0 + 0.001) has the colour and name;
* Grasp any <rel> <X> thing: the held object was initially strictly <rel> another object
  matching X.

Two entry points: `achieved_matrix` scores every state against every goal ([B, G]) and
`achieved` scores each state against its own goal ([B]).
"""

from __future__ import annotations

import numpy as np

from imagine_tf.env import ontology
from imagine_tf.env.observation import SceneFacts, decode_observation
from imagine_tf.env.scene_generation import relation_holds
from imagine_tf.language.goal_table import (
    VERB_GO,
    VERB_GRASP,
    VERB_GROW,
    VERB_RELATIONAL,
    GoalTable,
)


def _facts(states: np.ndarray | SceneFacts) -> SceneFacts:
    return states if isinstance(states, SceneFacts) else decode_observation(states)


def achieved_matrix(states: np.ndarray | SceneFacts, table: GoalTable) -> np.ndarray:
    """Which goals each state satisfies.

    Args:
      states: final observations s_T, float [B, 2 (3 + 39 N)], or their `SceneFacts`.
      table: the G goals.

    Returns:
      bool [B, G].
    """
    facts = _facts(states)
    result = np.zeros((facts.batch_size, len(table)), dtype=bool)
    for verb, evaluate in _EVALUATORS.items():
        columns = np.flatnonzero(table.verb == verb)
        if columns.size:
            result[:, columns] = evaluate(facts, table, columns[None, :])
    return result & table.achievable


def achieved(states: np.ndarray | SceneFacts, table: GoalTable, goal_ids: np.ndarray) -> np.ndarray:
    """Whether each state satisfies its own goal.

    Args:
      states: float [B, 2 (3 + 39 N)] observations, or their `SceneFacts`.
      table: the goals.
      goal_ids: int [B], one goal id per state.

    Returns:
      bool [B].
    """
    facts = _facts(states)
    goal_ids = np.asarray(goal_ids, dtype=np.int64)
    if goal_ids.shape != (facts.batch_size,):
        raise ValueError(
            f"Expected one goal id per state ({facts.batch_size},), got shape {goal_ids.shape}."
        )
    result = np.zeros(facts.batch_size, dtype=bool)
    verbs = table.verb[goal_ids]
    for verb, evaluate in _EVALUATORS.items():
        rows = np.flatnonzero(verbs == verb)
        if rows.size:
            sub = _take_facts(facts, rows)
            result[rows] = evaluate(sub, table, goal_ids[rows][:, None])[:, 0]
    return result & table.achievable[goal_ids]


# ------------------------------------------------------------------------------------------------
# Per-verb evaluators. `goals` is an int array of goal ids broadcastable against [B, G'] (either
# [1, G'] for the matrix or [B, 1] for one goal per state); each returns bool [B, G'].
# ------------------------------------------------------------------------------------------------
def _in_zone(facts: SceneFacts, table: GoalTable, goals: np.ndarray) -> np.ndarray:
    zone = table.zone[goals]  # [.., .., 4]
    x = facts.hand_position[:, 0:1]
    y = facts.hand_position[:, 1:2]
    return (x > zone[..., 0]) & (x < zone[..., 1]) & (y > zone[..., 2]) & (y < zone[..., 3])


def _matches(
    facts: SceneFacts, colour: np.ndarray, name_mask: np.ndarray, goals: np.ndarray
) -> np.ndarray:
    """bool [B, N, G']: object n has the goals' colour (or any) and a type the name accepts."""
    goal_colour = colour[goals][:, None, :]  # [B|1, 1, G']
    colour_ok = (goal_colour < 0) | (facts.object_colour[:, :, None] == goal_colour)
    if goals.shape[0] == 1:  # matrix: [N types, G'] lookup by each object's type
        name_ok = name_mask[goals[0]].T[facts.object_type]  # [B, N, G']
    else:  # one goal per state
        name_ok = np.take_along_axis(name_mask[goals[:, 0]], facts.object_type, axis=1)[..., None]
    return colour_ok & name_ok


def _grasped(facts: SceneFacts, table: GoalTable, goals: np.ndarray) -> np.ndarray:
    match = _matches(facts, table.colour, table.name_mask, goals)
    return (match & facts.held[:, :, None]).any(axis=1)


def _grown(facts: SceneFacts, table: GoalTable, goals: np.ndarray) -> np.ndarray:
    # Only living things grow in the world; a size change of anything else is not "grown".
    grown = facts.grown & ontology.IS_LIVING[facts.object_type]
    match = _matches(facts, table.colour, table.name_mask, goals)
    return (match & grown[:, :, None]).any(axis=1)


def _grasped_relative(facts: SceneFacts, table: GoalTable, goals: np.ndarray) -> np.ndarray:
    num_objects = facts.num_objects
    reference = _matches(facts, table.reference_colour, table.reference_name_mask, goals)
    reference &= facts.present[:, :, None]  # a padded slot is no reference object
    held = _matches(facts, table.colour, table.name_mask, goals) & facts.held[:, :, None]
    initial = facts.initial_position
    # holds[b, h, r, g]: object h was initially <relation g> object r.
    relation = np.broadcast_to(table.relation[goals], held.shape[:1] + held.shape[2:])
    holds = relation_holds(
        initial[:, :, None, None, :], initial[:, None, :, None, :], relation[:, None, None, :]
    )
    other = ~np.eye(num_objects, dtype=bool)[None, :, :, None]
    pairs = held[:, :, None, :] & reference[:, None, :, :] & holds & other
    return pairs.any(axis=(1, 2))


_EVALUATORS = {
    VERB_GO: _in_zone,
    VERB_GRASP: _grasped,
    VERB_GROW: _grown,
    VERB_RELATIONAL: _grasped_relative,
}


def matching_objects(
    facts: SceneFacts, table: GoalTable, goal_ids: np.ndarray, reference: bool = False
) -> np.ndarray:
    """bool [B, N]: object n of scene b has the colour and name of goal b (or of its reference
    object, for a relational goal). What the scripted policy looks for."""
    colour, names = (
        (table.reference_colour, table.reference_name_mask)
        if reference
        else (table.colour, table.name_mask)
    )
    return _matches(facts, colour, names, np.asarray(goal_ids, dtype=np.int64)[:, None])[..., 0]


def _take_facts(facts: SceneFacts, rows: np.ndarray) -> SceneFacts:
    return SceneFacts(**{k: v[rows] for k, v in vars(facts).items()})
