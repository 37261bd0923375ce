"""The reward model's memory during co-learning (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

A FIFO of the last 50,000 final states s_T, each with its **positive** goals (the partner's
descriptions, as goal ids) and its **negative** goals (the goals discovered before its batch
that the partner did not say; the learner decides). A goal discovered later is neither for an
older state, as in the reference.

Batches are drawn in the graph (`CompiledRewardEpoch`) from the memory's `sampling_tables`. The
most recent min(n_new, 120) states are held out of an update for its early stopping
(`held_out_rows`).
"""

from __future__ import annotations

import numpy as np

from imagine_tf.reward.compiled_epoch import SamplingTables, sampling_tables


class RewardMemory:
    """Final states with positive and negative goal ids.

    Args:
      capacity: states kept (50,000).
      state_dim: D.
      max_goals: G_max, the most discovered goals.
    """

    def __init__(self, capacity: int, state_dim: int, max_goals: int):
        self.capacity, self.max_goals = capacity, max_goals
        self.states = np.zeros((capacity, state_dim), np.float32)
        self.positives = np.zeros((capacity, max_goals), bool)
        self.negatives = np.zeros((capacity, max_goals), bool)
        self.added_at = np.full(capacity, -1, np.int64)  # insertion counter of each row
        self.size, self.next_row, self.states_added = 0, 0, 0
        self.used_goals = 0  # goal columns ever given: sampling reads only these

    def add(
        self, final_states: np.ndarray, positives: np.ndarray, negatives: np.ndarray | None = None
    ) -> None:
        """Stores B final states [B, D] with their positive and negative goal ids, bool [B, G]
        each (``negatives`` by default: every one of the G goals not positive)."""
        positives = np.asarray(positives, bool)
        negatives = ~positives if negatives is None else np.asarray(negatives, bool)
        count, known = positives.shape
        if known > self.max_goals:
            raise ValueError(
                f"{known} goals given, the memory tracks max_goals = {self.max_goals}."
            )
        if len(final_states) != count or negatives.shape != positives.shape:
            raise ValueError(
                f"{len(final_states)} states, positives {positives.shape} and negatives "
                f"{negatives.shape}: expected one row of each per state, of the same goals."
            )
        rows = (self.next_row + np.arange(count)) % self.capacity
        self.states[rows] = final_states
        self.positives[rows] = False
        self.negatives[rows] = False
        self.positives[rows, :known] = positives
        self.negatives[rows, :known] = negatives
        self.used_goals = max(self.used_goals, known)
        self.added_at[rows] = self.states_added + np.arange(count)
        self.next_row = int((self.next_row + count) % self.capacity)
        self.size = min(self.size + count, self.capacity)
        self.states_added += count

    def state_dict(self) -> dict:
        used, goals = slice(0, self.size), slice(0, self.used_goals)
        return {
            "states": self.states[used],
            "positives": self.positives[used, goals],
            "negatives": self.negatives[used, goals],
            "added_at": self.added_at[used],
            "counters": np.array([self.next_row, self.states_added]),
        }

    def load_state_dict(self, state: dict) -> None:
        size = len(state["states"])
        self.states[:size], self.added_at[:size] = state["states"], state["added_at"]
        known = state["positives"].shape[1]  # may be fewer than max_goals (an older run)
        for name in ("positives", "negatives"):
            getattr(self, name)[:size] = False
            getattr(self, name)[:size, :known] = state[name]
        self.size, self.used_goals = size, known
        self.next_row, self.states_added = (int(x) for x in state["counters"])

    def held_out_rows(self, num_new: int, max_held_out: int = 120) -> np.ndarray:
        """Rows of the most recent min(num_new, max_held_out) states."""
        count = min(num_new, max_held_out, self.size)
        return np.flatnonzero(self.added_at[: self.size] >= self.states_added - count)

    def sampling_tables(self, exclude_rows: np.ndarray | None = None) -> SamplingTables:
        """The memory as `SamplingTables` for `CompiledRewardEpoch` (``exclude_rows`` are
        never drawn: the held-out states)."""
        usable = np.ones(self.size, bool)
        if exclude_rows is not None:
            usable[exclude_rows] = False
        used = (slice(0, self.size), slice(0, self.used_goals))
        labelled = (self.positives[used] | self.negatives[used]).any(axis=0)
        if not labelled.any():
            raise ValueError("The reward memory has no labelled goal yet.")
        return sampling_tables(
            self.states[: self.size],
            self.positives[used] & usable[:, None],
            self.negatives[used] & usable[:, None],
            present=labelled,  # held-out rows included: they are measured
        )
