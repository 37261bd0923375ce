"""PyTorch's legacy serialization (``torch.save`` before 1.6, the authors' checkpoints) read
without PyTorch: tensors become numpy arrays.

The file is five pickles in a row: a magic number, the protocol version, the system info, the
object (its tensors are `torch._utils._rebuild_tensor_v2` calls on storages named by
persistent ids), the list of storage keys; then each storage's raw bytes in that order, each
after its element count (int64 little-endian). Only what the authors' files hold is read:
float, double, long and int storages, ordered dicts, numpy arrays; any other class is refused
by name.
"""

from __future__ import annotations

import collections
import os
import pickle
import struct

import numpy as np

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
#: storage class -> element type of its raw bytes
STORAGE_DTYPES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "HalfStorage": np.float16,
    "ByteStorage": np.uint8,
}
ALLOWED_GLOBALS = {
    ("collections", "OrderedDict"): collections.OrderedDict,
}


#: (last part of the module, name) of what a pickled numpy array or scalar needs
NUMPY_GLOBALS = {
    ("multiarray", "_reconstruct"),
    ("multiarray", "scalar"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
}


class _Tensor:
    """A tensor to be filled once its storage has been read: a view of it."""

    def __init__(self, storage_key: str, offset: int, size: tuple, stride: tuple):
        self.storage_key, self.offset, self.size, self.stride = storage_key, offset, size, stride

    def array(self, storages: dict[str, np.ndarray]) -> np.ndarray:
        storage = storages[self.storage_key]
        itemsize = storage.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(
            storage[self.offset :],
            shape=self.size,
            strides=tuple(s * itemsize for s in self.stride),
        )
        return np.array(view)  # a copy: the arrays own their data


def _rebuild_tensor(storage, offset, size, stride, *unused):
    return _Tensor(storage[0], offset, tuple(size), tuple(stride))


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, storage_types: dict):
        super().__init__(file)
        self.storage_types = storage_types

    def find_class(self, module: str, name: str):
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor
        if module == "torch" and name in STORAGE_DTYPES:
            return name
        if (module, name) in ALLOWED_GLOBALS:
            return ALLOWED_GLOBALS[module, name]
        if (module.split(".")[-1], name) in NUMPY_GLOBALS or (module, name) == (
            "_codecs",
            "encode",
        ):  # numpy arrays pickled beside tensors
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"{module}.{name} is not something a PyTorch checkpoint of tensors, numpy arrays and "
            "dicts holds; this reader loads only those (it never runs a checkpoint's code)."
        )

    def persistent_load(self, saved_id):
        kind, storage_type, key, _location, size = saved_id[:5]
        if kind != "storage":
            raise pickle.UnpicklingError(f"unknown persistent id {saved_id!r}")
        self.storage_types[key] = (storage_type, int(size))
        return (key,)


def _filled(value, storages: dict):
    if isinstance(value, _Tensor):
        return value.array(storages)
    if isinstance(value, dict):
        return type(value)((k, _filled(v, storages)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return type(value)(_filled(v, storages) for v in value)
    return value


def load_legacy(path: str | os.PathLike):
    """The object a legacy ``torch.save`` wrote to ``path``, its tensors as numpy arrays."""
    with open(path, "rb") as file:
        storage_types: dict[str, tuple[str, int]] = {}
        unpickler = _Unpickler(file, storage_types)  # never the default one: no code runs
        magic = unpickler.load()
        if magic != MAGIC_NUMBER:
            raise ValueError(
                f"{path} is not a legacy PyTorch file (magic {magic!r}); give one written by "
                "torch.save with _use_new_zipfile_serialization=False or PyTorch < 1.6."
            )
        if unpickler.load() != PROTOCOL_VERSION:
            raise ValueError(f"{path}: unknown PyTorch protocol version")
        if not unpickler.load().get("little_endian", False):  # the system info
            raise ValueError(f"{path} was written on a big-endian machine: not supported")
        value = unpickler.load()
        keys = unpickler.load()
        storages = {}
        for key in keys:
            (count,) = struct.unpack("<q", file.read(8))
            storage_type, size = storage_types[key]
            dtype = np.dtype(STORAGE_DTYPES[storage_type]).newbyteorder("<")
            if count != size:
                raise ValueError(f"{path}: storage {key} has {count} elements, expected {size}")
            storages[key] = np.frombuffer(file.read(count * dtype.itemsize), dtype)
    return _filled(value, storages)
