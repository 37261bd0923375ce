"""What the noise-free policy did in its Grow episodes: the measured reason Grow goals fail.

A Grow goal takes two skills in a row: grasp a supply (water, or food for an animal) and bring
it onto the living thing, or carry the living thing onto the supply (the authors' Playground, flowersteam/Imagine). An
episode is put in the first class that fits, from what the hand held at any step:

* ``achieved``: the oracle says the goal holds at s_T;
* ``held a supply``: a supply was grasped but the goal's object did not grow;
* ``held a living thing``: no supply, but an animal or plant was carried;
* ``held furniture``: only furniture was grasped;
* ``held nothing``: the gripper never closed on an object.

`imagine-tf eval` writes the shares over the train and the test Grow goals into ``eval.json``
(``grow_outcomes``); training logs the train shares every epoch (`GROW_LOG_KEYS`).
"""

from __future__ import annotations

import numpy as np

from imagine_tf.env import ontology
from imagine_tf.env.observation import decode_observation

GROW_OUTCOMES = (
    "achieved",
    "held a supply",
    "held a living thing",
    "held furniture",
    "held nothing",
)
#: The per-epoch log key of each class's share in the in-training evaluation (``progress.jsonl``).
GROW_LOG_KEYS = {name: "eval_train_grow_" + name.replace(" ", "_") for name in GROW_OUTCOMES}


def grow_outcomes(states: np.ndarray, achieved: np.ndarray) -> np.ndarray:
    """The class of each episode, as an index into `GROW_OUTCOMES`.

    Args:
      states: float [B, T + 1, 2 (3 + 39 N)], the episodes' states s_0..s_T.
      achieved: bool [B], the oracle's verdict on s_T.

    Returns:
      int [B].
    """
    states = np.asarray(states)
    if states.ndim != 3:
        raise ValueError(f"Expected episode states [B, T + 1, D], got shape {states.shape}.")
    batch, steps = states.shape[:2]
    facts = decode_observation(states.reshape(batch * steps, -1))
    held = facts.held.reshape(batch, steps, -1).any(axis=1)  # [B, N]: held at some step
    object_type = facts.object_type.reshape(batch, steps, -1)[:, 0]  # types do not change
    category = ontology.CATEGORY_MEMBERS[:, object_type]  # [5, B, N]

    def held_a(members: np.ndarray) -> np.ndarray:
        return (held & members).any(axis=1)

    conditions = [
        np.asarray(achieved, dtype=bool),
        held_a(category[ontology.SUPPLY]),
        held_a(category[ontology.LIVING_THING]),
        held_a(category[ontology.FURNITURE_CATEGORY]),
    ]
    return np.select(conditions, np.arange(len(conditions)), default=len(GROW_OUTCOMES) - 1)


def grow_outcome_shares(states: np.ndarray, achieved: np.ndarray) -> dict:
    """{"episodes": B, class: share of the B episodes} (shares sum to 1; empty for B = 0)."""
    if len(achieved) == 0:
        return {"episodes": 0}
    counts = np.bincount(grow_outcomes(states, achieved), minlength=len(GROW_OUTCOMES))
    shares = {name: float(count) / len(achieved) for name, count in zip(GROW_OUTCOMES, counts)}
    return {"episodes": int(len(achieved)), **shares}
