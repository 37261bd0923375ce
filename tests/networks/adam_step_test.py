"""`adam_step` takes Keras's Adam step to the bit, on the optimizer's own slots."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.networks.adam_step import apply_gradients, takes_exactly


def _variables(seed: int) -> list[tf.Variable]:
    """An embedding table (its gradient is sparse) and a small network's weights (dense)."""
    rng = np.random.default_rng(seed)
    shapes = [(10, 7), (7, 5), (5,), (5, 1), (1,)]
    return [tf.Variable(rng.normal(size=shape).astype(np.float32)) for shape in shapes]


def _train(step, optimizer, variables, steps: int) -> tuple[list[float], int]:
    """``steps`` steps of a small regression on embedded ids (some repeated, some rows never
    drawn) in one `tf.function`: the losses and the number of Pow ops in its graph."""
    rng = np.random.default_rng(1)
    ids = tf.constant(rng.integers(0, 8, size=32))
    y = tf.constant(rng.normal(size=(32, 1)).astype(np.float32))

    @tf.function(autograph=False)
    def one_step():
        with tf.GradientTape() as tape:
            x = tf.gather(variables[0], ids)
            hidden = tf.nn.relu(x @ variables[1] + variables[2])
            loss = tf.reduce_mean(tf.square(hidden @ variables[3] + variables[4] - y))
        gradients = tape.gradient(loss, variables)
        assert isinstance(gradients[0], tf.IndexedSlices)
        step(optimizer, gradients, variables)
        return loss

    graph = one_step.get_concrete_function().graph
    powers = sum(op.type == "Pow" for op in graph.get_operations())
    return [float(one_step()) for _ in range(steps)], powers


def _keras_step(optimizer, gradients, variables):
    optimizer.apply_gradients(zip(gradients, variables))


@pytest.mark.parametrize("learning_rate", [1e-3, 0.05])
def test_the_step_is_keras_adams_to_the_bit(learning_rate):
    """Keras's `apply_gradients` against ours on a fresh optimizer (which builds its slots and
    takes `apply_adam`: β₁ᵗ, β₂ᵗ once, not once per variable), dense and sparse gradients."""
    runs = {}
    for name, step in (("keras", _keras_step), ("ours", apply_gradients)):
        variables = _variables(0)
        optimizer = tf.keras.optimizers.Adam(learning_rate)
        losses, powers = _train(step, optimizer, variables, steps=25)
        runs[name] = (losses, powers, [v.numpy() for v in variables + optimizer.variables])
    (keras_losses, keras_powers, keras_values), (losses, powers, values) = runs.values()
    assert (keras_powers, powers) == (2 * 5, 2)
    assert losses == keras_losses and keras_losses[-1] < keras_losses[0]
    assert len(values) == len(keras_values) == 5 + 1 + 2 * 5  # iterations, m and v of each
    for ours, theirs in zip(values, keras_values):
        np.testing.assert_array_equal(ours, theirs)


def _built(optimizer, variables):
    optimizer.build(variables)
    return optimizer


def test_only_a_plain_adam_with_its_slots_on_float32_variables_qualifies():
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
    sparse = tf.IndexedSlices(tf.zeros([1, 7]), tf.constant([0]), tf.constant([10, 7]))
    assert takes_exactly(_built(tf.keras.optimizers.Adam(), variables), [sparse], variables[:1])
    assert not takes_exactly(_built(tf.keras.optimizers.Adam(), variables), [None], variables[:1])
    constrained = [tf.Variable(tf.zeros([2]), constraint=lambda v: tf.clip_by_value(v, 0, 1))]
    optimizer = _built(tf.keras.optimizers.Adam(), constrained)
    assert not takes_exactly(optimizer, [tf.zeros([2])], constrained)
