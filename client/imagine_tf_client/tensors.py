"""numpy arrays <-> TensorFlow's ``TensorProto``, without TensorFlow: the one converter of the
client and the server (which passes TensorFlow's own generated messages; the fields are the same).

Numbers and bools travel as ``tensor_content`` (little-endian bytes), strings as
``string_val``. Decoding accepts every encoding TensorFlow writes: ``tensor_content``, the typed
``*_val`` fields, and fewer values than the shape holds (the last one repeated).
"""

from __future__ import annotations

import numpy as np

from imagine_tf_client._protos.tensorflow.core.framework import tensor_pb2, types_pb2

#: numpy dtype -> (DataType, the TensorProto field of its values)
_NUMBERS = {
    np.dtype(np.float32): (types_pb2.DT_FLOAT, "float_val"),
    np.dtype(np.float64): (types_pb2.DT_DOUBLE, "double_val"),
    np.dtype(np.float16): (types_pb2.DT_HALF, "half_val"),
    np.dtype(np.int8): (types_pb2.DT_INT8, "int_val"),
    np.dtype(np.int16): (types_pb2.DT_INT16, "int_val"),
    np.dtype(np.int32): (types_pb2.DT_INT32, "int_val"),
    np.dtype(np.int64): (types_pb2.DT_INT64, "int64_val"),
    np.dtype(np.uint8): (types_pb2.DT_UINT8, "int_val"),
    np.dtype(np.uint16): (types_pb2.DT_UINT16, "int_val"),
    np.dtype(np.uint32): (types_pb2.DT_UINT32, "uint32_val"),
    np.dtype(np.uint64): (types_pb2.DT_UINT64, "uint64_val"),
    np.dtype(np.bool_): (types_pb2.DT_BOOL, "bool_val"),
}
_DTYPES = {enum: (dtype, field) for dtype, (enum, field) in _NUMBERS.items()}


def to_tensor_proto(value) -> tensor_pb2.TensorProto:
    """A TensorProto of an array or nested list; strings (str, UTF-8 encoded, or bytes) as
    ``string_val``. TypeError for a dtype TensorFlow has no type for."""
    return fill_tensor_proto(tensor_pb2.TensorProto(), value)


def fill_tensor_proto(proto, value):
    """Writes ``value`` into ``proto`` (an empty TensorProto of any generated class: this
    package's, or TensorFlow's own on the server, ``response.outputs[key]``) and returns it."""
    array = np.asarray(value)
    for size in array.shape:
        proto.tensor_shape.dim.add(size=size)
    if array.dtype.kind in "OSU":
        proto.dtype = types_pb2.DT_STRING
        proto.string_val.extend(
            v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in array.ravel()
        )
        return proto
    if array.dtype not in _NUMBERS:
        raise TypeError(f"no TensorFlow dtype for numpy {array.dtype}")
    proto.dtype = _NUMBERS[array.dtype][0]
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    proto.tensor_content = np.ascontiguousarray(little).tobytes()
    return proto


def shape_of(proto) -> tuple[int, ...] | None:
    """The shape a TensorProto declares (None when it declares an unknown rank)."""
    if proto.tensor_shape.unknown_rank:
        return None
    return tuple(dim.size for dim in proto.tensor_shape.dim)


def to_array(proto) -> np.ndarray:
    """The array of a TensorProto of any generated class (strings: an object array of bytes;
    numbers from ``tensor_content`` without a copy); ValueError if it is not one this package
    can read."""
    shape = shape_of(proto)
    if shape is None:
        raise ValueError("the tensor has an unknown rank")
    if proto.dtype == types_pb2.DT_STRING:
        return _fill(np.array(list(proto.string_val), dtype=object), shape)
    if proto.dtype not in _DTYPES:
        raise ValueError(f"unsupported dtype {types_pb2.DataType.Name(proto.dtype)}")
    dtype, field = _DTYPES[proto.dtype]
    if proto.tensor_content:
        values = np.frombuffer(proto.tensor_content, dtype.newbyteorder("<"))
        if values.size != np.prod(shape, dtype=np.int64):
            raise ValueError(f"{values.size} values in tensor_content for the shape {list(shape)}")
        return values.astype(dtype, copy=False).reshape(shape)
    if proto.dtype == types_pb2.DT_HALF:  # half_val holds the bits of each float16
        values = np.array(proto.half_val, np.uint16).view(np.float16)
    else:
        values = np.array(getattr(proto, field), dtype)
    return _fill(values, shape)


def _fill(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``values`` as ``shape``; fewer values than the shape holds: the last one repeated (none:
    zeros or empty strings, as TensorFlow reads them)."""
    count = int(np.prod(shape, dtype=np.int64))
    if values.size == count:
        return values.reshape(shape)
    if values.size == 0:
        return np.full(shape, b"" if values.dtype == object else 0, values.dtype)
    if values.size > count:
        raise ValueError(f"{values.size} values do not fill the shape {list(shape)}")
    return np.concatenate([values, np.repeat(values[-1:], count - values.size)]).reshape(shape)
