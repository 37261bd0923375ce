"""GoalTokenActorNetwork: the shared actor on goal token ids, through the per-goal cache."""

import numpy as np
import pytest
import tensorflow as tf
from tf_agents.policies import actor_policy
from tf_agents.specs import tensor_spec
from tf_agents.trajectories import time_step as ts

from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.agent.actor_network import ActorNetwork
from imagine_tf.networks.goal_conditioned_network import example_observation_spec
from imagine_tf.agent.goal_token_actor import GoalTokenActorNetwork

VOCABULARY = Vocabulary.default()
WORDS, LENGTH = VOCABULARY.words[1:], VOCABULARY.max_length
ACTION_SPEC = tensor_spec.BoundedTensorSpec([3], tf.float32, -1.0, 1.0, "action")
TOKEN_SPEC = dict(
    example_observation_spec(3, LENGTH),
    goal=tensor_spec.BoundedTensorSpec([LENGTH], tf.int32, 0, len(VOCABULARY) - 1, "goal"),
)
EMBEDDING_SPEC = dict(TOKEN_SPEC, goal=tf.TensorSpec([100], tf.float32, "goal"))
GOALS = ["Grasp red cat", "Go left", "Grow any plant"]


def make_actor(seed=0, spec=EMBEDDING_SPEC):
    tf.keras.utils.set_random_seed(seed)
    # He-uniform output: actions far from 0, so that a wrong embedding shows.
    return ActorNetwork(spec, ACTION_SPEC, "ma", WORDS, LENGTH, final_layer_init="he_uniform")


def observation(goals=GOALS, seed=0):
    state = np.random.default_rng(seed).uniform(-1, 1, (len(goals), 240)).astype(np.float32)
    return {"state": tf.constant(state), "goal": tf.constant(VOCABULARY.encode(goals))}


def expected_actions(actor, inputs, embeddings=None):
    """The wrapped actor's actions on the given embeddings (default: its encoder's)."""
    if embeddings is None:
        embeddings = actor.goal_embedding(inputs["goal"])
    return actor({"state": inputs["state"], "goal": embeddings})[0].numpy()


def test_actions_are_the_wrapped_actors_for_cached_uncached_and_mixed_batches():
    actor = make_actor()
    network = GoalTokenActorNetwork(actor, TOKEN_SPEC, cache_capacity=4)
    inputs = observation()
    expected = expected_actions(actor, inputs)
    assert np.abs(expected).max() > 0.1  # not a vacuous comparison of near-zero actions
    np.testing.assert_allclose(network(inputs)[0], expected, atol=1e-6)  # nothing cached
    tokens = inputs["goal"]
    network.set_goal_embeddings(tokens[:1], actor.goal_embedding(tokens[:1]))
    np.testing.assert_allclose(network(inputs)[0], expected, atol=1e-6)  # mixed
    network.set_goal_embeddings(tokens, actor.goal_embedding(tokens))
    np.testing.assert_allclose(network(inputs)[0], expected, atol=1e-6)  # all cached
    # The same in a (clipping) ActorPolicy under tf.function, through both branches.
    policy = actor_policy.ActorPolicy(ts.time_step_spec(TOKEN_SPEC), ACTION_SPEC, network)
    action = tf.function(policy.action)
    time_step = ts.restart(inputs, batch_size=3)
    np.testing.assert_allclose(action(time_step).action, expected, atol=1e-6)
    network.set_goal_embeddings(tokens[1:], actor.goal_embedding(tokens[1:]))
    np.testing.assert_allclose(action(time_step).action, expected, atol=1e-6)


def test_cached_embeddings_are_used_and_the_encoder_only_for_misses():
    actor = make_actor()
    network = GoalTokenActorNetwork(actor, TOKEN_SPEC, cache_capacity=8)
    inputs = observation()
    tokens = inputs["goal"]
    embeddings = actor.goal_embedding(tokens).numpy()
    # A deliberately wrong embedding for "Grasp red cat" (row 0): "Grow any plant"'s.
    planted = embeddings.copy()
    planted[0] = embeddings[2]
    network.set_goal_embeddings(tokens, planted)
    actions = network(inputs)[0].numpy()
    np.testing.assert_allclose(actions, expected_actions(actor, inputs, planted), atol=1e-6)
    assert np.abs(actions[0] - expected_actions(actor, inputs)[0]).max() > 1e-3
    # All goals cached: the encoder is not used (zeroing it changes nothing) ...
    network.set_goal_embeddings(tokens, embeddings)
    before = network(inputs)[0].numpy()
    actor.encoder.set_weights([np.zeros_like(w) for w in actor.encoder.get_weights()])
    np.testing.assert_allclose(network(inputs)[0], before, atol=1e-6)
    # ... while an uncached goal now gets the (zeroed) encoder's embedding.
    network.clear_goal_embeddings()
    zero = expected_actions(actor, inputs, np.zeros_like(embeddings))
    np.testing.assert_allclose(network(inputs)[0], zero, atol=1e-6)


def test_shares_the_wrapped_actors_variables_and_gives_the_encoder_no_gradient():
    actor = make_actor()
    network = GoalTokenActorNetwork(actor, TOKEN_SPEC)
    inputs = observation()
    shared = {id(v) for v in network.trainable_variables}
    assert shared == {id(v) for v in actor.trainable_variables}
    assert {v.name for v in network.variables} >= {"goal_keys:0", "goal_embeddings:0"}
    before = network(inputs)[0].numpy()
    actor.action_layer.bias.assign([0.5, -0.5, 0.25])  # a "training update" of the actor
    after = network(inputs)[0].numpy()
    assert np.abs(after - before).max() > 1e-3
    np.testing.assert_allclose(after, expected_actions(actor, inputs), atol=1e-6)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(network(inputs)[0])
    gradients = tape.gradient(loss, actor.encoder.weights + actor.trainable_variables)
    assert all(g is None for g in gradients[: len(actor.encoder.weights)])
    assert all(g is not None for g in gradients[len(actor.encoder.weights) :])


def test_capacity_and_bad_inputs_are_refused_with_the_numbers():
    actor = make_actor()
    network = GoalTokenActorNetwork(actor, TOKEN_SPEC, cache_capacity=2)
    tokens = observation()["goal"]
    with pytest.raises(ValueError, match="3 goals do not fit the cache of 2"):
        network.set_goal_embeddings(tokens, tf.zeros([3, 100]))
    with pytest.raises(ValueError, match=r"embeddings must be \[G, E\] = \[2, 100\]"):
        network.set_goal_embeddings(tokens[:2], tf.zeros([2, 99]))
    with pytest.raises(ValueError, match="appears 2 times"):
        network.set_goal_embeddings(tf.stack([tokens[0], tokens[0]]), tf.zeros([2, 100]))
    with pytest.raises(ValueError, match=r"Token ids must be in \[0, 51\)"):
        network.set_goal_embeddings(tf.fill([1, LENGTH], 51), tf.zeros([1, 100]))
    with pytest.raises(ValueError, match="cache_capacity must be at least 1"):
        GoalTokenActorNetwork(actor, TOKEN_SPEC, cache_capacity=0)
    with pytest.raises(ValueError, match="must read goal embeddings"):
        GoalTokenActorNetwork(make_actor(spec=TOKEN_SPEC), TOKEN_SPEC)
    with pytest.raises(ValueError, match="another number of objects"):
        GoalTokenActorNetwork(actor, example_observation_spec(4, LENGTH))
    # 1001 ids ^ 7 positions > 2^63: a goal would not fit one int64 key.
    words, length = [f"w{i}" for i in range(1000)], 7
    big_spec = dict(example_observation_spec(3, length), goal=EMBEDDING_SPEC["goal"])
    big = ActorNetwork(big_spec, ACTION_SPEC, "ma", words, length)
    with pytest.raises(ValueError, match=r"1001\^7 possible sequences"):
        GoalTokenActorNetwork(big, example_observation_spec(3, length))
