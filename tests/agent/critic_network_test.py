"""Critic networks: the paper's parameter counts, Deep Sets invariance, any N, target copies."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.agent.critic_network import CriticNetwork
from imagine_tf.networks.goal_conditioned_network import example_observation_spec
from tests.agent.actor_network_test import (
    ACTION_SPEC,
    LENGTH,
    WORDS,
    count,
    observation,
    permute_objects,
)


def make_critic(architecture, num_objects=3, seed=0):
    tf.keras.utils.set_random_seed(seed)
    spec = (example_observation_spec(num_objects, LENGTH), ACTION_SPEC)
    return CriticNetwork(spec, architecture, WORDS, LENGTH)


ACTIONS = tf.constant(np.random.default_rng(1).uniform(-1, 1, (4, 3)), tf.float32)


@pytest.mark.parametrize(
    "architecture, parameters", [("ma", 165_721), ("fa", 153_056), ("fc", 154_113)]
)
def test_parameter_counts_and_shapes(architecture, parameters):
    critic = make_critic(architecture)
    q_values, _ = critic((observation(), ACTIONS))
    assert q_values.shape == (4,)
    assert count(critic.trainable_weights) == parameters


def test_ma_is_invariant_to_object_order_depends_on_the_action_and_works_at_any_n():
    critic = make_critic("ma")
    inputs = observation()
    q_values, _ = critic((inputs, ACTIONS))
    permuted = dict(inputs, state=tf.constant(permute_objects(inputs["state"].numpy(), [1, 2, 0])))
    np.testing.assert_allclose(critic((permuted, ACTIONS))[0], q_values, atol=1e-4)
    assert not np.allclose(critic((inputs, -ACTIONS))[0], q_values)
    assert critic.with_num_objects(5)((observation(num_objects=5), ACTIONS))[0].shape == (4,)


def test_target_copy():
    critic = make_critic("fc")
    critic((observation(), ACTIONS))
    target = critic.copy(name="TargetCriticNetwork")
    target.create_variables()
    assert count(target.trainable_weights) == count(critic.trainable_weights)


def test_bfloat16_critic_gradients_reach_float32_weights_in_the_float32_direction():
    exact = make_critic("ma")
    spec = (example_observation_spec(3, LENGTH), ACTION_SPEC)
    mixed = CriticNetwork(spec, "ma", WORDS, LENGTH, compute_dtype="bfloat16")
    inputs = observation(batch=4)
    exact((inputs, ACTIONS)), mixed((inputs, ACTIONS))
    mixed.set_weights(exact.get_weights())
    gradients = []
    for critic in (exact, mixed):
        with tf.GradientTape() as tape:
            q_values = critic((inputs, ACTIONS))[0]
            total = tf.reduce_sum(q_values)
        gradients.append(tape.gradient(total, critic.trainable_weights))
        assert q_values.dtype == tf.float32
    for exact_gradient, mixed_gradient in zip(*gradients):
        assert mixed_gradient.dtype == tf.float32
        exact_vector, mixed_vector = exact_gradient.numpy().ravel(), mixed_gradient.numpy().ravel()
        cosine = (
            exact_vector
            @ mixed_vector
            / np.linalg.norm(exact_vector)
            / np.linalg.norm(mixed_vector)
        )
        assert 0.99 < cosine < 1.0 + 1e-6  # the same direction, with bfloat16's rounding
    assert not np.array_equal(gradients[0][2].numpy(), gradients[1][2].numpy())  # hidden_1 kernel
