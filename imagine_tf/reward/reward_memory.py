"""The reward model's memory during co-learning (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

A FIFO of the last 50,000 final states s_T, each with its **positive** goals (the partner's
descriptions, as discovered-goal ids) and its **negative** goals (the goals discovered by then
that the partner did not say). A goal discovered later is neither for an older state, as in
the reference.

Batches follow the reference: B goal ids drawn among the goals present in the memory (without
replacement when there are at least B of them, else all of them plus random extras); for each
goal with at least one positive and one negative training state, a random positive state with
probability 0.2 (label 1), else a random negative one (label 0); goals lacking a class are
skipped, so a batch can be smaller than B. The most recent min(n_new, 120) states are held out
of an update for its early stopping (`held_out_rows`).
"""

from __future__ import annotations

import numpy as np

from imagine_tf.data.supervised import grouped_rows


class RewardMemory:
    """Final states with positive and negative goal ids.

    Args:
      capacity: states kept (50,000).
      state_dim: D.
      max_goals: G_max, the most discovered goals.
      seed: sampling seed.
    """

    def __init__(self, capacity: int, state_dim: int, max_goals: int, seed: int | None = None):
        self.capacity, self.max_goals = capacity, max_goals
        self.states = np.zeros((capacity, state_dim), np.float32)
        self.positives = np.zeros((capacity, max_goals), bool)
        self.negatives = np.zeros((capacity, max_goals), bool)
        self.added_at = np.full(capacity, -1, np.int64)  # insertion counter of each row
        self.size, self.next_row, self.states_added = 0, 0, 0
        self.rng = np.random.default_rng(seed)

    def add(self, final_states: np.ndarray, achieved: np.ndarray) -> None:
        """Stores B final states [B, D] with their descriptions as discovered ids, bool [B, G_d]."""
        achieved = np.asarray(achieved, bool)
        count, known = achieved.shape
        if known > self.max_goals:
            raise ValueError(
                f"{known} discovered goals, the memory tracks max_goals = {self.max_goals}."
            )
        if len(final_states) != count:
            raise ValueError(f"{len(final_states)} states but {count} rows of descriptions.")
        rows = (self.next_row + np.arange(count)) % self.capacity
        self.states[rows] = final_states
        self.positives[rows] = False
        self.negatives[rows] = False
        self.positives[rows, :known] = achieved
        self.negatives[rows, :known] = ~achieved
        self.added_at[rows] = self.states_added + np.arange(count)
        self.next_row = int((self.next_row + count) % self.capacity)
        self.size = min(self.size + count, self.capacity)
        self.states_added += count

    def state_dict(self) -> dict:
        used = slice(0, self.size)
        return {"states": self.states[used], "positives": self.positives[used],
                "negatives": self.negatives[used], "added_at": self.added_at[used],
                "counters": np.array([self.next_row, self.states_added])}  # fmt: skip

    def load_state_dict(self, state: dict) -> None:
        size = len(state["states"])
        for name in ("states", "positives", "negatives", "added_at"):
            getattr(self, name)[:size] = state[name]
        self.size = size
        self.next_row, self.states_added = (int(x) for x in state["counters"])

    def held_out_rows(self, num_new: int, max_held_out: int = 120) -> np.ndarray:
        """Rows of the most recent min(num_new, max_held_out) states."""
        count = min(num_new, max_held_out, self.size)
        return np.flatnonzero(self.added_at[: self.size] >= self.states_added - count)

    def batches(
        self,
        batch_size: int = 512,
        positive_ratio: float = 0.2,
        exclude_rows: np.ndarray | None = None,
    ):
        """Endless (states [b, D], goal ids [b], labels float32 [b]) with b <= batch_size."""
        usable = np.ones(self.size, bool)
        if exclude_rows is not None:
            usable[exclude_rows] = False
        positives = grouped_rows(self.positives[: self.size] & usable[:, None])
        negatives = grouped_rows(self.negatives[: self.size] & usable[:, None])
        present = np.flatnonzero(
            (self.positives[: self.size] | self.negatives[: self.size]).any(axis=0)
        )
        if present.size == 0:
            raise ValueError("The reward memory has no labelled goal yet.")
        both = (positives.count > 0) & (negatives.count > 0)
        while True:
            if present.size >= batch_size:
                goals = self.rng.choice(present, batch_size, replace=False)
            else:
                extra = self.rng.choice(present, batch_size - present.size)
                goals = np.concatenate([present, extra])
            goals = goals[both[goals]]
            positive = self.rng.random(goals.size) < positive_ratio
            uniform = self.rng.random(goals.size)
            rows = np.where(
                positive, positives.draw(goals, uniform), negatives.draw(goals, uniform)
            )
            yield self.states[rows], goals, positive.astype(np.float32)
