"""The precision of the actor / critic hidden layers and of the relabelling scan.

``"float32"`` (the default) or ``"bfloat16"``: Keras' ``mixed_bfloat16`` policy, float32
variables, gradients and optimizer state, bfloat16 matrix products with float32 accumulation.
bfloat16 keeps float32's exponent range (no loss scaling) and ~3 significant digits. It pays
off on CPUs with native bfloat16 dot products (x86 ``avx512_bf16`` or ``amx_bf16``: ≈ 1.75× the
float32 matmul throughput measured on this project's AMD EPYC) and on GPUs of compute
capability 8.0 or more; elsewhere it is emulated, slower than float32. ``"auto"``
(`resolve_compute_dtype`) picks ``"bfloat16"`` where it is native and ``"float32"`` elsewhere.
"""

from __future__ import annotations

import pathlib

import tensorflow as tf

COMPUTE_DTYPES = ("float32", "bfloat16")
AUTO = "auto"
NATIVE_BFLOAT16_CPU_FLAGS = ("avx512_bf16", "amx_bf16")
NATIVE_BFLOAT16_GPU_CAPABILITY = (8, 0)  # Ampere and later


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


def gpu_compute_capabilities() -> list[tuple[int, int]]:
    """The compute capability (major, minor) of each visible GPU ((0, 0) where not reported)."""
    return [
        tuple(tf.config.experimental.get_device_details(gpu).get("compute_capability", (0, 0)))
        for gpu in tf.config.list_physical_devices("GPU")
    ]


def has_native_bfloat16(
    cpuinfo: str | None = None, gpu_capabilities: list[tuple[int, int]] | None = None
) -> bool:
    """True if a GPU of compute capability ≥ 8.0 is visible or the CPU flags name native
    bfloat16 dot products.

    Args:
      cpuinfo: the text of ``/proc/cpuinfo`` (default: read it; empty on other systems).
      gpu_capabilities: (major, minor) per GPU (default: the visible GPUs').
    """
    if gpu_capabilities is None:
        gpu_capabilities = gpu_compute_capabilities()
    if any(tuple(c) >= NATIVE_BFLOAT16_GPU_CAPABILITY for c in gpu_capabilities):
        return True
    if cpuinfo is None:
        path = pathlib.Path("/proc/cpuinfo")
        cpuinfo = path.read_text() if path.exists() else ""
    flags = set(cpuinfo.split())
    return any(flag in flags for flag in NATIVE_BFLOAT16_CPU_FLAGS)


def resolve_compute_dtype(
    compute_dtype: str,
    cpuinfo: str | None = None,
    gpu_capabilities: list[tuple[int, int]] | None = None,
) -> str:
    """``compute_dtype``, with ``"auto"`` replaced by ``"bfloat16"`` on native bfloat16 hardware
    (`has_native_bfloat16`) and by ``"float32"`` elsewhere.

    Raises ValueError for a name that is neither "auto" nor one of `COMPUTE_DTYPES`.
    """
    if compute_dtype != AUTO:
        compute_dtype_of(compute_dtype)  # the ValueError with the choices
        return compute_dtype
    return "bfloat16" if has_native_bfloat16(cpuinfo, gpu_capabilities) else "float32"
