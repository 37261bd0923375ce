"""`StackedSteps`: the RLDS `steps` feature (a `tfds.features.Dataset`) with a fast encoder.

`tfds.features.Dataset.encode_example` encodes a dict of stacked arrays step by step (51 steps
x 7 features = 357 Python calls per episode), which dominated the build time. When every leaf
of the step feature is a fixed-shape `tfds.features.Tensor` (or `Scalar`), this subclass checks
dtypes and shapes once on the stacked arrays and returns exactly what the step-by-step path
returns (tested against it); anything else falls back to the base class. Decoding is
unchanged, so the data on disk is the standard RLDS layout.
"""

from __future__ import annotations

import numpy as np
import tensorflow_datasets as tfds


class _NotStackable(Exception):
    pass


def _encode_leaf(feature, values, length: int):
    if type(feature) not in (tfds.features.Tensor, tfds.features.Scalar):
        raise _NotStackable  # subclasses (Text, Image, ...) encode differently
    info = feature.get_serialized_info()
    if any(d is None for d in info.shape):
        raise _NotStackable
    dtype = np.dtype(feature.np_dtype)
    array = np.asarray(values)
    if array.dtype != dtype:
        if array.dtype.kind != dtype.kind and not (dtype == np.bool_ and array.dtype.kind == "b"):
            raise _NotStackable  # let the base class raise its precise error
        array = array.astype(dtype)
    if array.shape[:1] != (length,) or array.shape[1:] != tuple(feature.shape):
        raise _NotStackable
    if feature._encoded_to_bytes:  # noqa: SLF001 - mirrors Tensor.encode_example
        if feature._encoding != tfds.features.Encoding.BYTES:  # noqa: SLF001
            raise _NotStackable
        return [row.tobytes() for row in array]  # as stack_nested leaves bytes: a list
    return array


def _encode(feature, values, length: int):
    if isinstance(feature, tfds.features.FeaturesDict):
        if not isinstance(values, dict) or set(values) != set(feature.keys()):
            raise _NotStackable
        return {key: _encode(feature[key], values[key], length) for key in feature.keys()}
    return _encode_leaf(feature, values, length)


class StackedSteps(tfds.features.Dataset):
    """`tfds.features.Dataset` that also encodes dicts of stacked step arrays in one go.

    It records itself as a plain `tfds.features.Dataset` in the dataset's metadata, so a built
    dataset is standard RLDS, readable with `tfds.builder_from_directory` anywhere.
    """

    @property
    def _fully_qualified_class_name(self) -> str:
        base = tfds.features.Dataset
        return f"{base.__module__}.{base.__name__}"

    def encode_example(self, example_ds):
        if isinstance(example_ds, dict):
            lengths = {len(v) for v in _leaves(example_ds)}
            if len(lengths) == 1:
                try:
                    return _encode(self.feature, example_ds, lengths.pop())
                except _NotStackable:
                    pass
        return super().encode_example(example_ds)


def _leaves(nested):
    if isinstance(nested, dict):
        for value in nested.values():
            yield from _leaves(value)
    else:
        yield nested
