"""The precision of the actor / critic hidden layers and of the relabelling scan.

``"float32"`` (the default) or ``"bfloat16"``: Keras' ``mixed_bfloat16`` policy, float32
variables, gradients and optimizer state, bfloat16 matrix products with float32 accumulation.
bfloat16 keeps float32's exponent range (no loss scaling) and ~3 significant digits. It can
pay off on CPUs with bfloat16 dot-product instructions (x86 ``avx512_bf16`` or ``amx_bf16``)
and on GPUs of compute capability 8.0 or more; elsewhere it is emulated, slower than float32.
The flag alone does not settle it: TensorFlow's bfloat16 matmul ran at ≈ 1.75× the float32
throughput on an AMD EPYC with ``avx512_bf16`` and at ≈ 0.55× on an Intel Xeon VM with the same
flag. So ``"auto"`` (`resolve_compute_dtype`) picks ``"bfloat16"`` on such GPUs, and on such
CPUs only where a short matmul probe (`bfloat16_matmul_speedup`, ~0.2 s) measures it at least
`MIN_BFLOAT16_SPEEDUP` times faster; ``"float32"`` elsewhere.
"""

from __future__ import annotations

import functools
import pathlib
import time

import tensorflow as tf

from imagine_tf.constants import AUTO, COMPUTE_DTYPES

NATIVE_BFLOAT16_CPU_FLAGS = ("avx512_bf16", "amx_bf16")
NATIVE_BFLOAT16_GPU_CAPABILITY = (8, 0)  # Ampere and later
# "auto" picks bfloat16 on a CPU only if the probe measures at least this speedup: below it,
# float32's precision is worth more than the time.
MIN_BFLOAT16_SPEEDUP = 1.2
# The probe's product: a critic layer on a batch of 256 scenes of 3 objects, [768, 256] x [256, 256].
PROBE_SHAPE = (768, 256, 256)


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


@functools.lru_cache(maxsize=1)
def bfloat16_matmul_speedup(rounds: int = 5, repeats: int = 10) -> float:
    """float32 time / bfloat16 time of a `PROBE_SHAPE` matmul on this machine's CPU, with the
    threads TensorFlow was given (the best of ``rounds`` alternating rounds of ``repeats``
    products each). Measured once per process."""
    m, k, n = PROBE_SHAPE
    with tf.device("/CPU:0"):
        operands = {
            dtype: (
                tf.cast(tf.random.stateless_uniform([m, k], (1, 2)), dtype),
                tf.cast(tf.random.stateless_uniform([k, n], (3, 4)), dtype),
            )
            for dtype in (tf.float32, tf.bfloat16)
        }
        best = {dtype: float("inf") for dtype in operands}
        for _ in range(rounds + 1):  # the first round warms up
            for dtype, (a, b) in operands.items():
                start = time.perf_counter()
                for _ in range(repeats):
                    product = tf.linalg.matmul(a, b)
                product.numpy()
                best[dtype] = min(best[dtype], time.perf_counter() - start)
    return best[tf.float32] / best[tf.bfloat16]


def resolve_compute_dtype(
    compute_dtype: str,
    cpuinfo: str | None = None,
    gpu_capabilities: list[tuple[int, int]] | None = None,
    bfloat16_speedup: float | None = None,
) -> str:
    """``compute_dtype``, with ``"auto"`` replaced by ``"bfloat16"`` on a GPU of compute
    capability ≥ 8.0, or on a CPU with bfloat16 instructions where the matmul probe measures a
    speedup ≥ `MIN_BFLOAT16_SPEEDUP`; by ``"float32"`` elsewhere.

    Args:
      cpuinfo, gpu_capabilities: see `has_native_bfloat16`.
      bfloat16_speedup: the probe's result (default: `bfloat16_matmul_speedup()`, run only on
        such a CPU).

    Raises ValueError for a name that is neither "auto" nor one of `COMPUTE_DTYPES`.
    """
    if compute_dtype != AUTO:
        compute_dtype_of(compute_dtype)  # the ValueError with the choices
        return compute_dtype
    if gpu_capabilities is None:
        gpu_capabilities = gpu_compute_capabilities()
    if has_native_bfloat16("", gpu_capabilities):
        return "bfloat16"
    if not has_native_bfloat16(cpuinfo, gpu_capabilities=[]):
        return "float32"
    if bfloat16_speedup is None:
        bfloat16_speedup = bfloat16_matmul_speedup()
    return "bfloat16" if bfloat16_speedup >= MIN_BFLOAT16_SPEEDUP else "float32"
