"""A dict of numpy arrays as the flat list of arrays that a Reverb item holds, and back.

The tables have no signature, so an item is just a list of tensors. The first one carries the
dict's keys (sorted, as JSON text in a uint8 array) and the values follow in that order, so a
reader rebuilds the dict without knowing the keys in advance::

    {"b": x, "a": y}  <->  [text_array('["a", "b"]'), y, x]

Strings travel the same way, as the UTF-8 bytes of a uint8 array (`text_array`, `array_text`).
"""

from __future__ import annotations

import json
from typing import Mapping, Sequence

import numpy as np


def text_array(text: str) -> np.ndarray:
    """The UTF-8 bytes of `text` as a 1-d uint8 array."""
    if not isinstance(text, str):
        raise TypeError(f"text_array takes a str, got {type(text).__name__}")
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).copy()


def array_text(array: np.ndarray) -> str:
    """The text held by a uint8 array made by `text_array`.

    Raises:
      ValueError: if `array` is not a 1-d uint8 array of UTF-8 bytes.
    """
    array = np.asarray(array)
    if array.dtype != np.uint8 or array.ndim != 1:
        raise ValueError(f"expected a 1-d uint8 array of text, got {array.dtype} {array.shape}")
    try:
        return array.tobytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"the array does not hold UTF-8 text: {error}") from None


def encode(nest: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """``[keys, values...]``: the flat list of arrays of one Reverb item.

    Args:
      nest: string keys to arrays (or anything `np.asarray` takes) of numeric or bool dtype.

    Returns:
      The keys (sorted) as a JSON uint8 array, then the values in that order.

    Raises:
      TypeError: if a key is not a string or a value is not numeric or bool (e.g. a str:
        encode it with `text_array`).
    """
    if not isinstance(nest, Mapping):
        raise TypeError(f"encode takes a dict of arrays, got {type(nest).__name__}")
    bad_keys = [key for key in nest if not isinstance(key, str)]
    if bad_keys:
        raise TypeError(f"keys must be strings, got {bad_keys!r}")
    keys = sorted(nest)
    values = []
    for key in keys:
        value = np.asarray(nest[key])
        if value.dtype.kind not in "biuf":
            raise TypeError(
                f"{key!r} has dtype {value.dtype}: only numeric and bool arrays can be sent"
                " (send text as text_array(string))"
            )
        values.append(value)
    return [text_array(json.dumps(keys)), *values]


def decode(flat: Sequence[np.ndarray]) -> dict[str, np.ndarray]:
    """The dict that `encode` flattened.

    Raises:
      ValueError: if `flat` was not made by `encode` (no keys array, or a count mismatch).
    """
    if len(flat) == 0:
        raise ValueError("an encoded item starts with its keys, got an empty list")
    try:
        keys = json.loads(array_text(flat[0]))
    except (ValueError, TypeError) as error:
        raise ValueError(f"the first array is not an encoded list of keys: {error}") from None
    if not isinstance(keys, list) or len(keys) != len(flat) - 1:
        raise ValueError(f"{len(flat) - 1} values for the keys {keys!r}")
    return {key: np.asarray(value) for key, value in zip(keys, flat[1:])}
