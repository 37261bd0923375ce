"""Checks a PredictRequest's inputs against a signature before the model sees them.

Every problem is a `RequestError` whose message says what was given, what was expected and
how to fix it; the servicer answers it with INVALID_ARGUMENT. What only the model can check
(unknown words, a state width that fits no N, ...) fails inside the signature with an
`InvalidArgumentError`, whose assertion message `model_error_message` extracts.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from imagine_tf_client.tensors import shape_of, to_array


class RequestError(ValueError):
    """A malformed request (INVALID_ARGUMENT)."""


def _expected(spec: tf.TensorSpec) -> str:
    return f"{spec.dtype.name} {list(spec.shape) if spec.shape.rank is not None else '[...]'}"


def _fits(expected: tf.TensorShape, shape: tuple[int, ...]) -> bool:
    """``expected.is_compatible_with(shape)`` for a fully known ``shape``, at a tenth of its cost."""
    if expected.rank is None:
        return True
    dims = expected.as_list()
    return len(dims) == len(shape) and all(d is None or d == s for d, s in zip(dims, shape))


def convert_inputs(
    request_inputs, specs: dict[str, tf.TensorSpec], max_batch_size: int
) -> dict[str, np.ndarray]:
    """The request's TensorProtos as arrays, checked against a signature's input ``specs``.

    Checks: missing and extra inputs, dtype, rank and fixed dimensions, batch sizes (first
    dimensions) within ``max_batch_size`` (all from the protos' headers, before decoding),
    contents that fit the declared shape, finite floats. (Whether the inputs' batch sizes must
    agree is the signature's business: ``score`` checks it, ``scan`` crosses them.)
    """
    given, wanted = set(request_inputs.keys()), set(specs)
    if given != wanted:
        problems = []
        if wanted - given:
            problems.append(f"missing {sorted(wanted - given)}")
        if given - wanted:
            problems.append(f"unexpected {sorted(given - wanted)}")
        raise RequestError(
            f"inputs {sorted(given)}: {', '.join(problems)}; this signature takes "
            + ", ".join(f"{name} ({_expected(spec)})" for name, spec in sorted(specs.items()))
        )
    arrays = {}
    for name, spec in specs.items():
        proto = request_inputs[name]
        if proto.dtype != spec.dtype.as_datatype_enum:
            raise RequestError(
                f"input {name!r} has dtype {tf.dtypes.as_dtype(proto.dtype).name}, expected "
                f"{spec.dtype.name}"
            )
        shape = shape_of(proto)
        if shape is None or not _fits(spec.shape, shape):
            raise RequestError(
                f"input {name!r} has shape {list(shape) if shape is not None else 'unknown'}, "
                f"expected {_expected(spec)} (None: any size)"
            )
        if shape and shape[0] > max_batch_size:
            raise RequestError(
                f"input {name!r} has {shape[0]} rows, more than this server's maximum batch "
                f"size {max_batch_size}: split the request"
            )
        try:
            array = to_array(proto)
        except Exception as error:  # a TensorProto whose content does not match its shape
            raise RequestError(f"input {name!r} cannot be decoded: {error}") from None
        if spec.dtype == tf.string:
            _check_utf8(name, array)
        if spec.dtype.is_floating:
            if not np.all(np.isfinite(array)):
                where = ""
                if array.ndim:
                    rows = np.flatnonzero(~np.isfinite(array.reshape(len(array), -1)).all(axis=1))
                    where = f" (rows {rows[:10].tolist()})"
                raise RequestError(f"input {name!r} contains NaN or inf{where}")
        arrays[name] = array
    return arrays


def _check_utf8(name: str, array: np.ndarray) -> None:
    """Strings must be UTF-8 text: a RequestError naming the row and the byte position."""
    for index, value in enumerate(array.ravel()):
        if isinstance(value, bytes):
            try:
                value.decode("utf-8")
            except UnicodeDecodeError as error:
                where = np.unravel_index(index, array.shape) if array.ndim else ()
                raise RequestError(
                    f"input {name!r} at {list(map(int, where))}: bytes that are not UTF-8 text "
                    f"at byte {error.start} ({value[error.start : error.start + 4]!r}); strings "
                    "(goal sentences) must be UTF-8 encoded"
                ) from None


def model_error_message(error: tf.errors.OpError) -> str:
    """The useful line of an error raised inside a signature (its assertion message)."""
    lines = [line.strip() for line in str(error.message).splitlines() if line.strip()]
    for line in lines:
        if line.startswith("assertion failed:"):
            return line[len("assertion failed:") :].strip()
    for line in reversed(lines):
        if not line.startswith("[[") and "Op:__inference" not in line:
            return line
    return lines[0] if lines else type(error).__name__
