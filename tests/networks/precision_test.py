"""Precision choices: the Keras policies, and telling native bfloat16 hardware from the CPU flags."""

import pytest
import tensorflow as tf

from imagine_tf.networks.precision import COMPUTE_DTYPES, dense_policy, has_native_bfloat16

AVX512_BF16_CPU = "flags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512_vnni\n"
AVX2_CPU = "flags\t\t: fpu sse2 avx2 fma\n"


def test_policies_compute_in_the_dtype_and_keep_float32_variables():
    for dtype, expected in zip(COMPUTE_DTYPES, ("float32", "bfloat16")):
        policy = dense_policy(dtype)
        assert policy.compute_dtype == expected and policy.variable_dtype == "float32"
    with pytest.raises(ValueError, match="got 'float16'"):
        dense_policy("float16")


@pytest.mark.skipif(bool(tf.config.list_physical_devices("GPU")), reason="a GPU is always native")
def test_native_bfloat16_is_read_from_the_cpu_flags():
    assert has_native_bfloat16(AVX512_BF16_CPU)
    assert has_native_bfloat16("flags : amx_bf16 amx_tile")
    assert not has_native_bfloat16(AVX2_CPU)
    assert not has_native_bfloat16("")  # nothing known: not native
