"""Ddpg: the reference's critic target clipping, losses, action penalty and target schedule."""

import numpy as np
import tensorflow as tf
from tf_agents.policies import actor_policy
from tf_agents.specs import tensor_spec
from tf_agents.trajectories import time_step as ts

from imagine_tf.agent.ddpg import Ddpg
from imagine_tf.agent.ddpg import GaussianEpsilonPolicy
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.agent.actor_network import ActorNetwork
from imagine_tf.agent.critic_network import CriticNetwork
from imagine_tf.networks.goal_conditioned_network import example_observation_spec
from imagine_tf.reward.network import RewardNetwork

VOCABULARY = Vocabulary.default()
WORDS, LENGTH = VOCABULARY.words[1:], VOCABULARY.max_length
OBSERVATION_SPEC = example_observation_spec(3, LENGTH)
ACTION_SPEC = tensor_spec.BoundedTensorSpec([3], tf.float32, -1.0, 1.0)
TIME_STEP_SPEC = ts.time_step_spec(OBSERVATION_SPEC)


def make_agent(architecture="fc", **kwargs):
    tf.keras.utils.set_random_seed(0)
    actor = ActorNetwork(OBSERVATION_SPEC, ACTION_SPEC, architecture, WORDS, LENGTH)
    critic = CriticNetwork((OBSERVATION_SPEC, ACTION_SPEC), architecture, WORDS, LENGTH)
    for network in (actor, critic):
        network.create_variables()
    return Ddpg(actor, critic, **kwargs)


def transitions(batch=8, seed=0, reward=None):
    """(observation, actions, next observation, rewards) of ``batch`` random transitions."""
    rng = np.random.default_rng(seed)

    def observation():
        state = rng.normal(size=(batch, 240)).astype(np.float32)
        goal = VOCABULARY.encode(["Grasp red cat"] * batch).astype(np.int32)
        return {"state": tf.constant(state), "goal": tf.constant(goal)}

    rewards = reward if reward is not None else -(rng.random(batch) < 0.5).astype(np.float32)
    first, second = observation(), observation()
    actions = tf.constant(rng.uniform(-1, 1, (batch, 3)), tf.float32)
    return first, actions, second, tf.constant(rewards, tf.float32)


def test_td_targets_are_clipped_to_the_reachable_returns():
    agent = make_agent()
    _, _, following, rewards = transitions()
    bias = agent.target_critic_network.value_layer.bias
    for value, expected in ((100.0, 0.0), (-1000.0, -50.0)):
        bias.assign([value])
        np.testing.assert_allclose(agent.td_targets(following, rewards), np.full(8, expected))
    unclipped = make_agent(clip_targets=False)
    unclipped.target_critic_network.value_layer.bias.assign([100.0])
    assert np.all(unclipped.td_targets(following, rewards).numpy() > 50)


def hand_set(layer, kernel=(), bias=()):
    """Zeroes a Dense layer, then sets the given kernel (row, column) and bias entries."""
    weights = np.zeros_like(layer.kernel.numpy())
    biases = np.zeros_like(layer.bias.numpy())
    for (row, column), value in kernel:
        weights[row, column] = value
    for column, value in bias:
        biases[column] = value
    layer.set_weights([weights, biases])


def hand_set_critic(critic, offset):
    """FC critic on [s (240), a (3), g (100)]: Q = 10 (a_0 + 2) + 40 (s_1 + 2) + offset."""
    first, second = critic.trunk.layers_before_sum
    hand_set(first, [((240, 0), 1.0), ((1, 1), 1.0)], [(0, 2.0), (1, 2.0)])  # a_0 + 2, s_1 + 2
    hand_set(second, [((0, 0), 1.0), ((1, 1), 1.0)])
    hand_set(critic.value_layer, [((0, 0), 10.0), ((1, 0), 40.0)], [(0, offset)])


def test_td_targets_and_critic_loss_match_hand_computed_values():
    agent = make_agent(gamma=0.98)
    # Target actor (FC, on [s, g]): π′(s′) = (tanh(s′_0 + 2), 0, 0).
    first, second = agent.target_actor_network.trunk.layers_before_sum
    hand_set(first, [((0, 0), 1.0)], [(0, 2.0)])
    hand_set(second, [((0, 0), 1.0)])
    hand_set(agent.target_actor_network.action_layer, [((0, 0), 1.0)])
    hand_set_critic(agent.target_critic_network, -150.0)
    hand_set_critic(agent.critic_network, -120.0)
    # Rows: (s′_0, s′_1, r).
    rows = np.array(
        [[0.0, 1.0, 0.0], [1.0, 1.5, 0.0], [-1.0, -1.0, -1.0], [0.5, 0.0, -1.0]], np.float32
    )
    observation, actions, following, _ = transitions(batch=len(rows))
    state = following["state"].numpy()
    state[:, :2] = rows[:, :2]
    following = dict(following, state=tf.constant(state))
    q_next = 10.0 * (np.tanh(rows[:, 0] + 2.0) + 2.0) + 40.0 * (rows[:, 1] + 2.0) - 150.0
    raw = rows[:, 2] + 0.98 * q_next  # bootstraps at every step: the episodes are truncated
    expected = np.clip(raw, -1.0 / (1.0 - 0.98), 0.0)
    assert raw[1] > 0 and raw[2] < -50 and -50 < raw[0] < 0
    targets = agent.td_targets(following, tf.constant(rows[:, 2]))
    np.testing.assert_allclose(targets, expected, rtol=1e-5, atol=1e-4)
    # The critic loss is the mean squared TD error against Q(s, a) = 10 (a_0 + 2) + ... − 120.
    states = observation["state"].numpy()
    q = 10.0 * (actions.numpy()[:, 0] + 2.0) + 40.0 * (states[:, 1] + 2.0) - 120.0
    np.testing.assert_allclose(
        agent.critic_network((observation, actions))[0], q, rtol=1e-5, atol=1e-4
    )
    loss = agent.critic_step(observation, actions, targets)  # the loss before its step
    np.testing.assert_allclose(loss, np.mean(np.square(expected - q)), rtol=1e-5)


def test_the_update_is_the_critic_step_then_the_actor_step_on_the_updated_critic():
    agent, other = make_agent(), make_agent()
    observation, actions, following, rewards = transitions()
    targets = agent.td_targets(following, rewards)
    q_taken, _ = agent.critic_network((observation, actions))
    expected_critic = np.mean(np.square(targets - q_taken))
    loss = agent.update(observation, actions, targets)
    critic_loss = other.critic_step(observation, actions, targets)  # by hand, in order
    policy_actions, _ = other.actor_network(observation)
    q_values, _ = other.critic_network((observation, policy_actions))  # the updated critic
    expected_actor = -np.mean(q_values) + np.mean(np.square(policy_actions))
    np.testing.assert_allclose(critic_loss, expected_critic, rtol=1e-5)
    np.testing.assert_allclose(loss, expected_critic + expected_actor, rtol=1e-5)
    np.testing.assert_allclose(other.actor_step(observation), expected_actor, rtol=1e-5)
    for a, b in zip(agent.actor_network.get_weights(), other.actor_network.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert int(agent.train_step_counter.numpy()) == 1


def test_targets_move_once_per_cycle_of_50_updates():
    agent = make_agent(target_update_period=5)
    target = agent.target_actor_network.trainable_variables[0]
    frozen = agent.target_actor_network.encoder.variables[0]
    initial = target.numpy().copy()
    observation, actions, following, rewards = transitions()
    for update in range(1, 11):
        loss = agent.update(observation, actions, agent.td_targets(following, rewards))
        assert np.isfinite(loss.numpy())
        moved = not np.allclose(target.numpy(), initial)
        assert moved == (update >= 5), update
        if update == 5:
            after_first = target.numpy().copy()
            main = agent.actor_network.trainable_variables[0].numpy()
    # polyak 0.95: target = 0.95 target + 0.05 main (main after update 5); the frozen
    # encoder is copied, not averaged
    np.testing.assert_allclose(after_first, 0.95 * initial + 0.05 * main, atol=1e-6)
    np.testing.assert_array_equal(frozen.numpy(), agent.actor_network.encoder.variables[0].numpy())


def test_bad_settings_are_refused_with_what_to_give():
    import pytest

    with pytest.raises(ValueError, match="polyak must be in"):
        make_agent(polyak=1.5)
    with pytest.raises(ValueError, match="target_update_period must be >= 1"):
        make_agent(target_update_period=0)


def test_exploration_adds_noise_and_random_actions():
    agent = make_agent()
    # π(s) = 1 everywhere (saturated output), so that a noisy action (1 + N(0, 0.2)) and a
    # uniform one (U[-1, 1]) are told apart by their distance to π, whatever the init.
    agent.actor_network.action_layer.bias.assign([20.0, 20.0, 20.0])
    observation = transitions(batch=2000)[0]
    time_step = ts.TimeStep(
        tf.fill([2000], ts.StepType.MID), tf.zeros([2000]), tf.ones([2000]), observation
    )
    greedy_policy = actor_policy.ActorPolicy(TIME_STEP_SPEC, ACTION_SPEC, agent.actor_network)
    unclipped = actor_policy.ActorPolicy(
        TIME_STEP_SPEC, ACTION_SPEC, agent.actor_network, clip=False
    )
    greedy = greedy_policy.action(time_step).action.numpy()
    explored = GaussianEpsilonPolicy(unclipped, 0.2, 0.3, seed=1).action(time_step).action.numpy()
    np.testing.assert_allclose(greedy, 1.0)
    changed = np.abs(explored - greedy)
    assert explored.shape == (2000, 3)
    residual = (explored - greedy)[np.all(changed < 0.8, axis=1)]
    assert 0.15 < residual.std() < 0.25  # mostly Gaussian noise of σ = 0.2
    # ≈ 30 % replaced by uniform actions: 94 % of them are more than 0.8 away from π somewhere.
    far = np.mean(np.any(changed > 0.8, axis=1))
    assert 0.2 < far < 0.35
    # Not clipped before storage: about half the noisy actions exceed 1.
    assert 0.3 < np.mean(explored > 1.0) < 0.5


def test_goal_encoder_reaches_all_four_networks():
    agent = make_agent("ma")
    reward = RewardNetwork("ma", WORDS, LENGTH)
    reward({"state": tf.zeros([1, 240]), "goal": tf.constant(VOCABULARY.encode(["Go left"]))})
    agent.set_goal_encoder(reward.encoder)
    expected = reward.encoder.get_weights()
    for network in (
        agent.actor_network,
        agent.critic_network,
        agent.target_actor_network,
        agent.target_critic_network,
    ):
        for mine, theirs in zip(network.encoder.get_weights(), expected):
            np.testing.assert_array_equal(mine, theirs)
