"""The Gymnasium spaces of the Playground: the state, the goal (token ids, text), the action.

Shapes for N objects, D = 2 (3 + 39 N) (`imagine_tf.env.observation`), L the padded goal
length and V the vocabulary size (pad id 0 included):

* ``state``: Box float32 [D], s_t = [o_t, o_t − o_0]. Every feature of o_t lies in
  [−1.2, 1.2] (the arena, one-hot types, sizes ≤ 0.34, RGB, ±1 flags), so every feature of
  o_t − o_0 lies in [−2.4, 2.4].
* ``goal``: MultiDiscrete int32 [L], token ids in [0, V − 1], padded with 0.
* ``goal_text`` (optional): Text, the goal sentence.
* action: Box float32 [3] in [−1, 1]: (dx, dy, gripper; > 0 closes).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from gymnasium import spaces

from imagine_tf.env.config import ARENA_LIMIT
from imagine_tf.env.observation import step_dim


def state_space(num_objects: int) -> spaces.Box:
    """Box float32 [2 (3 + 39 N)]: o_t within ±1.2, o_t − o_0 within ±2.4."""
    half = step_dim(num_objects)
    high = np.concatenate(
        [np.full(half, ARENA_LIMIT, np.float32), np.full(half, 2 * ARENA_LIMIT, np.float32)]
    )
    return spaces.Box(-high, high, dtype=np.float32)


def goal_token_space(vocabulary_size: int, max_length: int) -> spaces.MultiDiscrete:
    """MultiDiscrete int32 [L]: one token id in [0, V − 1] per word slot (0 pads)."""
    return spaces.MultiDiscrete(np.full(max_length, vocabulary_size), dtype=np.int32)


def goal_text_space(sentences: Sequence[str]) -> spaces.Text:
    """Text of at most the longest sentence's length, over the sentences' characters."""
    characters = sorted(set("".join(sentences)))
    return spaces.Text(
        max_length=max(len(s) for s in sentences), min_length=1, charset="".join(characters)
    )


def action_space() -> spaces.Box:
    """Box float32 [3] in [−1, 1]: (dx, dy, gripper)."""
    return spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)


def observation_space(
    num_objects: int,
    vocabulary_size: int,
    max_length: int,
    sentences: Sequence[str] | None = None,
) -> spaces.Dict:
    """``Dict(state, goal)``, plus ``goal_text`` when the goals' ``sentences`` are given."""
    members = {
        "state": state_space(num_objects),
        "goal": goal_token_space(vocabulary_size, max_length),
    }
    if sentences is not None:
        members["goal_text"] = goal_text_space(sentences)
    return spaces.Dict(members)
