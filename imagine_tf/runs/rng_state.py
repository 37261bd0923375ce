"""A numpy `Generator`'s state as bytes and back, for the npz files of checkpoints."""

from __future__ import annotations

import ast

import numpy as np


def encode_rng_state(rng: np.random.Generator) -> np.ndarray:
    """A numpy Generator's state as bytes (uint8 array), for npz checkpoints."""
    return np.frombuffer(repr(rng.bit_generator.state).encode(), np.uint8)


def decode_rng_state(rng: np.random.Generator, encoded: np.ndarray) -> None:
    """Restores what `encode_rng_state` wrote."""
    rng.bit_generator.state = ast.literal_eval(bytes(encoded).decode())
