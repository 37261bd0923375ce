"""The private descriptor pool of the generated TF Serving modules.

The generated ``*_pb2`` modules register their files here instead of in protobuf's default
pool, so TensorFlow's own copies of the same files (``tensorflow.core.framework.tensor_pb2``,
``tensorflow_serving.apis.predict_pb2``, possibly of another version) can be imported in the
same process without a "duplicate file" or "duplicate symbol" error.
"""

from __future__ import annotations

import importlib

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

POOL = descriptor_pool.DescriptorPool()


def add_serialized_file(data: bytes):
    """Adds a FileDescriptorProto (bytes) to `POOL`, after the well-known types it imports."""
    for dependency in descriptor_pb2.FileDescriptorProto.FromString(data).dependency:
        if dependency.startswith("google/protobuf/"):
            _add_well_known(dependency)
    return POOL.AddSerializedFile(data)


def _add_well_known(name: str) -> None:
    try:
        POOL.FindFileByName(name)
    except KeyError:
        stem = name.removeprefix("google/protobuf/").removesuffix(".proto")
        module = importlib.import_module(f"google.protobuf.{stem}_pb2")
        add_serialized_file(module.DESCRIPTOR.serialized_pb)
        # their classes in this pool (the generated modules build only their own files')
        message_factory.GetMessageClassesForFiles([name], POOL)
