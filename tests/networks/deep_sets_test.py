"""Object-centred views of the state: the per-object and pair inputs."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.networks.deep_sets import (
    object_inputs,
    pair_inputs,
    split_state,
)


def _state(num_objects, seed=0):
    width = 2 * (3 + 39 * num_objects)
    return tf.constant(np.random.default_rng(seed).normal(size=(5, width)).astype(np.float32))


@pytest.mark.parametrize("num_objects", [1, 3, 7])
def test_object_inputs_are_body_delta_body_object_delta_object(num_objects):
    state = _state(num_objects).numpy()
    step = 3 + 39 * num_objects
    inputs = object_inputs(tf.constant(state), num_objects).numpy()
    assert inputs.shape == (5, num_objects, 84)
    for i in range(num_objects):
        obj = slice(3 + 39 * i, 3 + 39 * (i + 1))
        expected = np.concatenate(
            [state[:, :3], state[:, step : step + 3], state[:, obj], state[:, step:][:, obj]],
            axis=1,
        )
        np.testing.assert_array_equal(inputs[:, i], expected)


def test_pair_inputs_join_the_body_and_both_objects():
    state = _state(3)
    body, objects = split_state(state, 3)
    pairs = pair_inputs(state, 3).numpy()
    assert pairs.shape == (5, 3, 162)
    np.testing.assert_array_equal(pairs[:, 2, 6:84], objects.numpy()[:, 1])  # pair (1, 2)
    np.testing.assert_array_equal(pairs[:, 2, 84:], objects.numpy()[:, 2])
    np.testing.assert_array_equal(
        pair_inputs(state, 3, swap=True).numpy()[:, 2, 6:84], objects.numpy()[:, 2]
    )


def test_pair_relations_are_the_signed_parts_of_the_initial_offset():
    # Object 0 starts at (0.5, -0.2) and has moved by (0.3, 0.1); object 1 starts at (-0.1, 0.4).
    state = np.zeros((1, 240), np.float32)
    state[0, 3 + 32 : 3 + 34] = [0.8, -0.1]
    state[0, 120 + 3 + 32 : 120 + 3 + 34] = [0.3, 0.1]
    state[0, 3 + 39 + 32 : 3 + 39 + 34] = [-0.1, 0.4]
    relations = pair_inputs(tf.constant(state), 3, relations=True).numpy()
    assert relations.shape == (1, 3, 166)
    # pair (0, 1): p0_0 - p0_1 = (0.6, -0.6): right of (0.6), below (0.6)
    np.testing.assert_allclose(relations[0, 0, 162:], [0.6, 0.0, 0.0, 0.6], atol=1e-6)
    swapped = pair_inputs(tf.constant(state), 3, swap=True, relations=True).numpy()
    np.testing.assert_allclose(swapped[0, 0, 162:], [0.0, 0.6, 0.6, 0.0], atol=1e-6)
    np.testing.assert_array_equal(relations[..., :162], pair_inputs(tf.constant(state), 3))


def test_a_state_of_the_wrong_width_names_both_widths():
    with pytest.raises(ValueError, match="240 values, got 200"):
        object_inputs(tf.zeros([1, 200]), 3)
