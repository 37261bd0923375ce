"""Actor networks: the paper's parameter counts, bounds, Deep Sets invariance, any N, frozen encoder."""

import numpy as np
import pytest
import tensorflow as tf
from tf_agents.specs import tensor_spec

from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.agent.actor_network import ActorNetwork
from imagine_tf.networks.goal_conditioned_network import example_observation_spec
from imagine_tf.reward.network import RewardNetwork

VOCABULARY = Vocabulary.default()
WORDS, LENGTH = VOCABULARY.words[1:], VOCABULARY.max_length
ACTION_SPEC = tensor_spec.BoundedTensorSpec([3], tf.float32, -1.0, 1.0)
GOALS = ["Grasp red cat", "Grow any plant", "Go left", "Grasp any blue thing"]


def make_actor(architecture, num_objects=3, seed=0):
    tf.keras.utils.set_random_seed(seed)
    return ActorNetwork(
        example_observation_spec(num_objects, LENGTH), ACTION_SPEC, architecture, WORDS, LENGTH
    )


def observation(num_objects=3, batch=4, seed=0):
    rng = np.random.default_rng(seed)
    state = rng.normal(size=(batch, 2 * (3 + 39 * num_objects))).astype(np.float32)
    goal = VOCABULARY.encode([GOALS[i % len(GOALS)] for i in range(batch)]).astype(np.int32)
    return {"state": tf.constant(state), "goal": tf.constant(goal)}


def count(weights):
    return sum(int(np.prod(w.shape)) for w in weights)


def permute_objects(state, order, num_objects=3):
    step = 3 + 39 * num_objects
    halves = []
    for half in (state[:, :step], state[:, step:]):
        objects = half[:, 3:].reshape(len(state), num_objects, 39)[:, order]
        halves += [half[:, :3], objects.reshape(len(state), -1)]
    return np.concatenate(halves, axis=1)


@pytest.mark.parametrize(
    "architecture, parameters", [("ma", 160_547), ("fa", 152_499), ("fc", 153_859)]
)
def test_parameter_counts_and_bounded_actions(architecture, parameters):
    actor = make_actor(architecture)
    actions, _ = actor(observation())
    assert actions.shape == (4, 3)
    assert np.all(np.abs(actions.numpy()) <= 1.0)
    assert count(actor.trainable_weights) == parameters
    assert count(actor.encoder.weights) == 60_800 and not actor.encoder.trainable_weights


def test_ma_is_invariant_to_object_order_and_works_at_any_n():
    actor = make_actor("ma")
    inputs = observation()
    actions, _ = actor(inputs)
    permuted = dict(inputs, state=tf.constant(permute_objects(inputs["state"].numpy(), [2, 0, 1])))
    np.testing.assert_allclose(actor(permuted)[0], actions, atol=1e-5)
    bigger = actor.with_num_objects(7)
    assert bigger(observation(num_objects=7))[0].shape == (4, 3)
    assert count(bigger.trainable_weights) == 160_547
    with pytest.raises(ValueError, match="only MA works for any N"):
        make_actor("fa").with_num_objects(7)


def test_copy_makes_an_independent_target_network():
    actor = make_actor("ma")
    actor(observation())
    target = actor.copy(name="TargetActorNetwork")
    target.create_variables()
    assert count(target.trainable_weights) == count(actor.trainable_weights)
    assert all(a is not b for a, b in zip(actor.variables, target.variables))


def test_encoder_weights_come_from_the_reward_model_and_get_no_gradient():
    reward = RewardNetwork("ma", WORDS, LENGTH)
    inputs = observation()
    reward({"state": tf.zeros([1, 240]), "goal": inputs["goal"][:1]})
    actor = make_actor("ma")
    actor.set_encoder_weights(reward.encoder)
    np.testing.assert_allclose(
        actor.goal_embedding(inputs["goal"]), reward.encoder(inputs["goal"]), atol=1e-6
    )
    with tf.GradientTape(persistent=True) as tape:
        loss = tf.reduce_sum(actor(inputs)[0])
    gradients = tape.gradient(loss, actor.encoder.weights)
    assert all(g is None for g in gradients)
    # ... while the same loss does reach the trunk (the test above is not vacuous)
    assert all(g is not None for g in tape.gradient(loss, actor.trunk.trainable_weights))
    # With a float goal spec, the goal is an embedding computed beforehand: same actions.
    spec = dict(example_observation_spec(3, LENGTH), goal=tf.TensorSpec([100], tf.float32))
    on_embeddings = ActorNetwork(spec, ACTION_SPEC, "ma", WORDS, LENGTH)
    embedded = dict(inputs, goal=actor.goal_embedding(inputs["goal"]))
    on_embeddings(embedded)
    for mine, theirs in (
        (actor.trunk, on_embeddings.trunk),
        (actor.action_layer, on_embeddings.action_layer),
    ):
        theirs.set_weights(mine.get_weights())
    np.testing.assert_allclose(on_embeddings(embedded)[0], actor(inputs)[0], atol=1e-6)


def test_untrained_actions_are_near_zero_by_default_and_saturate_with_the_reference_init():
    """The DDPG / TF-Agents output init leaves exploration to the noise; He-uniform does not."""
    inputs = observation(batch=64)
    small = make_actor("ma")(inputs)[0].numpy()
    tf.keras.utils.set_random_seed(0)
    reference = ActorNetwork(
        example_observation_spec(3, LENGTH),
        ACTION_SPEC,
        "ma",
        WORDS,
        LENGTH,
        final_layer_init="he_uniform",
    )(inputs)[0].numpy()
    assert np.abs(small).max() < 0.2
    assert np.abs(reference).mean() > 5 * np.abs(small).mean()


def test_unknown_final_layer_init_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="small_uniform"):
        ActorNetwork(
            example_observation_spec(3, LENGTH),
            ACTION_SPEC,
            "ma",
            WORDS,
            LENGTH,
            final_layer_init="glorot",
        )


def test_bfloat16_hidden_layers_keep_float32_weights_outputs_and_target_copies():
    exact = make_actor("ma")
    mixed = ActorNetwork(
        example_observation_spec(3, LENGTH),
        ACTION_SPEC,
        "ma",
        WORDS,
        LENGTH,
        compute_dtype="bfloat16",
    )
    inputs = observation(batch=64)
    exact(inputs), mixed(inputs)
    mixed.set_weights(exact.get_weights())
    actions = mixed(inputs)[0]
    assert actions.dtype == tf.float32
    assert all(w.dtype == tf.float32 for w in mixed.trainable_weights)
    assert count(mixed.trainable_weights) == 160_547
    difference = np.abs(actions.numpy() - exact(inputs)[0].numpy())
    assert 0 < difference.max() < 2e-2  # bfloat16 products: close, not bit-equal
    target = mixed.copy(name="TargetActorNetwork")
    target.create_variables()
    assert target.trunk.layers_before_sum[0].dtype_policy.name == "mixed_bfloat16"


def test_an_unknown_compute_dtype_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"compute_dtype must be one of \('float32', 'bfloat16'\)"):
        ActorNetwork(
            example_observation_spec(3, LENGTH),
            ACTION_SPEC,
            "ma",
            WORDS,
            LENGTH,
            compute_dtype="float16",
        )
