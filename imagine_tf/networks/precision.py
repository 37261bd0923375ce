"""The precision of the actor / critic hidden layers and of the relabelling scan.

``"float32"`` (the default) or ``"bfloat16"``: Keras' ``mixed_bfloat16`` policy, float32
variables, gradients and optimizer state, bfloat16 matrix products with float32 accumulation.
bfloat16 keeps float32's exponent range (no loss scaling) and ~3 significant digits. It pays
off on CPUs with native bfloat16 dot products (x86 ``avx512_bf16`` or ``amx_bf16``: ≈ 1.75× the
float32 matmul throughput measured on this project's AMD EPYC) and on GPUs / TPUs; elsewhere
oneDNN emulates it, slower than float32.
"""

from __future__ import annotations

import pathlib

import tensorflow as tf

COMPUTE_DTYPES = ("float32", "bfloat16")
NATIVE_BFLOAT16_CPU_FLAGS = ("avx512_bf16", "amx_bf16")


def compute_dtype_of(compute_dtype: str) -> tf.DType:
    """The `tf.DType` of a ``compute_dtype`` name; a ValueError with the choices otherwise."""
    if compute_dtype not in COMPUTE_DTYPES:
        raise ValueError(
            f"compute_dtype must be one of {COMPUTE_DTYPES}, got {compute_dtype!r}: "
            '"bfloat16" is mixed precision (float32 weights), "float32" the full precision.'
        )
    return tf.as_dtype(compute_dtype)


def dense_policy(compute_dtype: str) -> tf.keras.mixed_precision.Policy:
    """The Keras dtype policy of hidden layers computing in ``compute_dtype``."""
    bfloat16 = compute_dtype_of(compute_dtype) == tf.bfloat16
    return tf.keras.mixed_precision.Policy("mixed_bfloat16" if bfloat16 else "float32")


def has_native_bfloat16(cpuinfo: str | None = None) -> bool:
    """True if a GPU is visible or the CPU flags (``/proc/cpuinfo``, Linux) name native
    bfloat16 dot products; False where this cannot be told (other systems)."""
    if tf.config.list_physical_devices("GPU"):
        return True
    if cpuinfo is None:
        path = pathlib.Path("/proc/cpuinfo")
        cpuinfo = path.read_text() if path.exists() else ""
    flags = set(cpuinfo.split())
    return any(flag in flags for flag in NATIVE_BFLOAT16_CPU_FLAGS)
