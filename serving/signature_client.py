"""The reward model's calls (`score`, `scan`) over any transport, without TensorFlow.

`RewardClient` (gRPC, `client.py`) and `RestRewardClient` (REST, `rest_client.py`) give
`predict` and `close`; the REST client imports no TensorFlow, so `imagine-tf score --rest`
starts in well under a second.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


class SignatureClient:
    """The reward model's calls over any transport: subclasses give `predict` and `close`."""

    def predict(self, signature: str, inputs: dict) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def score(self, goals: Sequence[str], states: np.ndarray) -> dict[str, np.ndarray]:
        """One goal per state: goals [B], states float32 [B, D]."""
        return self.predict(
            "score",
            {"goals": np.asarray(goals, dtype=object), "states": np.asarray(states, np.float32)},
        )

    def scan(self, states: np.ndarray, goals: Sequence[str]) -> dict[str, np.ndarray]:
        """Every state with every goal: states [B, D], goals [K] -> [B, K]."""
        return self.predict(
            "scan",
            {"states": np.asarray(states, np.float32), "goals": np.asarray(goals, dtype=object)},
        )

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
