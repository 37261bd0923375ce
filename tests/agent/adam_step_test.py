"""`apply_adam` takes Keras's Adam step to the bit, on the optimizer's own slots."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.agent.adam_step import apply_adam, takes_exactly


def _variables(seed: int) -> list[tf.Variable]:
    rng = np.random.default_rng(seed)
    shapes = [(7, 5), (5,), (5, 1), (1,)]
    return [tf.Variable(rng.normal(size=shape).astype(np.float32)) for shape in shapes]


def _train(step, optimizer, variables, steps: int) -> list[float]:
    """``steps`` steps of a small regression in one `tf.function`; the losses."""
    rng = np.random.default_rng(1)
    x = tf.constant(rng.normal(size=(32, 7)).astype(np.float32))
    y = tf.constant(rng.normal(size=(32, 1)).astype(np.float32))

    @tf.function(autograph=False)
    def one_step():
        with tf.GradientTape() as tape:
            hidden = tf.nn.relu(x @ variables[0] + variables[1])
            loss = tf.reduce_mean(tf.square(hidden @ variables[2] + variables[3] - y))
        step(optimizer, tape.gradient(loss, variables), variables)
        return loss

    return [float(one_step()) for _ in range(steps)]


def _keras_step(optimizer, gradients, variables):
    optimizer.apply_gradients(zip(gradients, variables))


@pytest.mark.parametrize("learning_rate", [1e-3, 0.05])
def test_the_step_is_keras_adams_to_the_bit(learning_rate):
    runs = {}
    for name, step in (("keras", _keras_step), ("ours", apply_adam)):
        variables = _variables(0)
        optimizer = tf.keras.optimizers.Adam(learning_rate)
        optimizer.build(variables)
        assert takes_exactly(optimizer, [tf.zeros_like(v) for v in variables], variables)
        losses = _train(step, optimizer, variables, steps=25)
        runs[name] = (losses, [v.numpy() for v in variables + optimizer.variables])
    (keras_losses, keras_values), (losses, values) = runs["keras"], runs["ours"]
    assert losses == keras_losses and keras_losses[-1] < keras_losses[0]
    assert len(values) == len(keras_values) == 4 + 1 + 2 * 4  # iterations, m and v of each
    for ours, theirs in zip(values, keras_values):
        np.testing.assert_array_equal(ours, theirs)


def _built(optimizer, variables):
    optimizer.build(variables)
    return optimizer


def test_only_a_plain_adam_with_its_slots_on_dense_float32_steps_qualifies():
    variables = _variables(0)
    gradients = [tf.zeros_like(v) for v in variables]
    assert takes_exactly(_built(tf.keras.optimizers.Adam(), variables), gradients, variables)
    assert not takes_exactly(tf.keras.optimizers.Adam(), gradients, variables)  # no slots yet
    for optimizer in (
        tf.keras.optimizers.Adam(amsgrad=True),
        tf.keras.optimizers.Adam(clipnorm=1.0),
        tf.keras.optimizers.Adam(weight_decay=0.01),
        tf.keras.optimizers.Adam(tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)),
        tf.keras.optimizers.SGD(),
    ):
        optimizer = _built(optimizer, variables)
        assert not takes_exactly(optimizer, gradients, variables), optimizer.get_config()
    half = [tf.Variable(tf.zeros([2], tf.bfloat16))]
    optimizer = _built(tf.keras.optimizers.Adam(), half)
    assert not takes_exactly(optimizer, [tf.zeros([2], tf.bfloat16)], half)
    sparse = tf.IndexedSlices(tf.zeros([1, 5]), tf.constant([0]), tf.constant([7, 5]))
    optimizer = _built(tf.keras.optimizers.Adam(), variables[:1])
    assert not takes_exactly(optimizer, [sparse], variables[:1])
