"""Precision choices: the Keras policies, native bfloat16 hardware (CPU flags, GPU compute
capability) and what "auto" resolves to."""

import pytest

from imagine_tf.networks.precision import (
    COMPUTE_DTYPES,
    MIN_BFLOAT16_SPEEDUP,
    bfloat16_matmul_speedup,
    dense_policy,
    has_native_bfloat16,
    resolve_compute_dtype,
)

AVX512_BF16_CPU = "flags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512_vnni\n"
AVX2_CPU = "flags\t\t: fpu sse2 avx2 fma\n"


def test_policies_compute_in_the_dtype_and_keep_float32_variables():
    for dtype, expected in zip(COMPUTE_DTYPES, ("float32", "bfloat16")):
        policy = dense_policy(dtype)
        assert policy.compute_dtype == expected and policy.variable_dtype == "float32"
    with pytest.raises(ValueError, match="got 'float16'"):
        dense_policy("float16")


def test_native_bfloat16_is_read_from_the_cpu_flags():
    assert has_native_bfloat16(AVX512_BF16_CPU, gpu_capabilities=[])
    assert has_native_bfloat16("flags : amx_bf16 amx_tile", gpu_capabilities=[])
    assert not has_native_bfloat16(AVX2_CPU, gpu_capabilities=[])
    assert not has_native_bfloat16("", gpu_capabilities=[])  # nothing known: not native


def test_a_gpu_is_native_from_compute_capability_8():
    assert has_native_bfloat16(AVX2_CPU, gpu_capabilities=[(8, 0)])
    assert has_native_bfloat16(AVX2_CPU, gpu_capabilities=[(7, 5), (9, 0)])
    assert not has_native_bfloat16(AVX2_CPU, gpu_capabilities=[(7, 5)])
    assert has_native_bfloat16(AVX512_BF16_CPU, gpu_capabilities=[(6, 1)])


def test_auto_resolves_to_bfloat16_only_where_it_is_native_and_measured_faster():
    def auto(cpuinfo, gpus, speedup=None):
        return resolve_compute_dtype(
            "auto", cpuinfo, gpu_capabilities=gpus, bfloat16_speedup=speedup
        )

    assert auto(AVX512_BF16_CPU, [], speedup=1.75) == "bfloat16"  # as on an AMD EPYC
    assert auto(AVX512_BF16_CPU, [], speedup=0.6) == "float32"  # as on an Intel Xeon VM
    assert auto(AVX512_BF16_CPU, [], speedup=MIN_BFLOAT16_SPEEDUP) == "bfloat16"
    assert auto(AVX2_CPU, [], speedup=5.0) == "float32"  # emulated: no probe believed
    assert auto(AVX2_CPU, [(8, 6)]) == "bfloat16"  # a GPU: no probe
    measured = bfloat16_matmul_speedup()
    assert auto(AVX512_BF16_CPU, []) == (
        "bfloat16" if measured >= MIN_BFLOAT16_SPEEDUP else "float32"
    )
    for dtype in COMPUTE_DTYPES:  # a named precision is kept, native or not
        assert resolve_compute_dtype(dtype, AVX2_CPU, gpu_capabilities=[]) == dtype
    with pytest.raises(ValueError, match="got 'float16'"):
        resolve_compute_dtype("float16", AVX2_CPU, gpu_capabilities=[])


def test_the_probe_measures_a_positive_speedup_once_per_process():
    first = bfloat16_matmul_speedup()
    assert 0.05 < first < 20 and bfloat16_matmul_speedup() == first  # cached
