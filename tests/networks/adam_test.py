"""`Adam`: Keras's Adam step within float rounding, one fused op per variable, its state
checkpointed, and the wrong variables refused."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.networks.adam import Adam


def _variables(seed=0):
    rng = np.random.default_rng(seed)
    return [tf.Variable(rng.normal(size=shape).astype(np.float32)) for shape in ((4, 3), (3,))]


def _gradients(step):
    rng = np.random.default_rng(100 + step)
    return [tf.constant(rng.normal(size=shape).astype(np.float32)) for shape in ((4, 3), (3,))]


@pytest.mark.parametrize("learning_rate", [1e-3, 1e-1])
def test_three_steps_are_keras_adams(learning_rate):
    ours, keras = _variables(), _variables()
    adam = Adam(learning_rate)
    adam.build(ours)
    reference = tf.keras.optimizers.Adam(learning_rate)
    for step in range(3):
        adam.apply(_gradients(step), ours)
        reference.apply_gradients(zip(_gradients(step), keras))
    for a, b in zip(ours, keras):  # rounding: an ulp, or < 3e-5 of a step (lr)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=3e-5 * learning_rate)
    assert int(adam.iterations.numpy()) == 3
    # moments by hand: m = Σ (1 − β₁) β₁^(2 − k) g_k
    expected_m = sum(0.1 * 0.9 ** (2 - k) * _gradients(k)[1].numpy() for k in range(3))
    np.testing.assert_allclose(adam.m[1].numpy(), expected_m, rtol=1e-5)


def test_the_state_goes_through_a_checkpoint(tmp_path):
    variables = _variables()
    adam = Adam()
    adam.build(variables)
    adam.apply(_gradients(0), variables)
    path = tf.train.Checkpoint(adam=adam, variables=variables).write(str(tmp_path / "ckpt"))
    other_variables = _variables(seed=1)
    other = Adam()
    other.build(other_variables)
    tf.train.Checkpoint(adam=other, variables=other_variables).read(path).assert_consumed()
    assert int(other.iterations.numpy()) == 1
    np.testing.assert_array_equal(other.v[0].numpy(), adam.v[0].numpy())


def test_other_variables_and_dtypes_are_refused():
    variables = _variables()
    adam = Adam()
    adam.build(variables)
    with pytest.raises(ValueError, match="takes the 2 variables it was built for"):
        adam.apply(_gradients(0), _variables())
    with pytest.raises(ValueError, match="built already"):
        adam.build(variables)
    with pytest.raises(TypeError, match="float32"):
        Adam().build([tf.Variable(np.zeros(2, np.float64))])
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        Adam(0.0)
