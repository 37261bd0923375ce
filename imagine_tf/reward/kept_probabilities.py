"""The test probabilities a reward run keeps for its ensemble (`reward.ensemble`):
float32 [S, G] beside its ``metrics.json``, which names the file and hashes the test states
they are of, so that an ensemble (or an analysis) averages them instead of scoring again."""

from __future__ import annotations

import hashlib
import os
import pathlib

import numpy as np

from imagine_tf.atomic_files import save_array_atomically
from imagine_tf.reward.layout import TEST_PROBABILITIES


def states_fingerprint(states: np.ndarray) -> str:
    """A short hash of states [S, D]: whether kept probabilities are of these states."""
    return hashlib.sha1(np.ascontiguousarray(states, np.float32).tobytes()).hexdigest()[:16]


def keep_test_probabilities(
    run_dir: str | os.PathLike, probabilities: np.ndarray, states: np.ndarray
) -> dict:
    """Writes probabilities [S, G] of ``states`` into the run; returns its metrics.json entry."""
    save_array_atomically(pathlib.Path(run_dir) / TEST_PROBABILITIES, probabilities)
    return {"file": TEST_PROBABILITIES, "states": states_fingerprint(states)}


def kept_test_probabilities(
    run_dir: str | os.PathLike, metrics: dict, fingerprint: str, shape: tuple[int, int]
) -> np.ndarray | None:
    """A finished run's kept test probabilities [S, G], or None if it kept none, or none for
    the test states of ``fingerprint`` and ``shape`` = (S, G) (the hash covers the states,
    the shape also the number of goals)."""
    kept = metrics.get("test_probabilities")
    path = pathlib.Path(run_dir) / kept["file"] if kept else None
    if path is None or kept["states"] != fingerprint or not path.is_file():
        return None
    array = np.load(path, mmap_mode="r")  # the header first: a wrong shape reads no data
    return np.asarray(array) if array.shape == tuple(shape) else None
