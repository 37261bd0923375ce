"""PaddedObjects: n objects seen as N; the partner, the oracle and MA networks see n."""

import numpy as np
import tensorflow as tf

from imagine_tf.env.object_padding import PaddedObjects, padding_columns
from imagine_tf.language.social_partner import SocialPartner
from imagine_tf.playground import make_env, play


def test_padding_keeps_the_objects_in_their_slots_and_zeros_the_rest():
    env = PaddedObjects(make_env(batch_size=2, num_objects=3, seed=0), padded_objects=5)
    assert env.observation_spec()["state"].shape == (2 * (3 + 39 * 5),)
    assert env.time_step_spec().observation["state"].shape == (2 * (3 + 39 * 5),)
    first = env.reset_with_goals(["Grasp red cat", "Go left"])
    state = first.observation["state"]
    inner = env.wrapped_env()._core.observation()
    np.testing.assert_array_equal(state[:, padding_columns(3, 5)], inner)
    half = 3 + 39 * 5
    for offset in (0, half):  # both halves: o_t and o_t − o_0
        np.testing.assert_array_equal(state[:, offset + 3 + 39 * 3 : offset + half], 0.0)
    step = env.step(np.zeros((2, 3), np.float32))
    assert step.observation["state"].shape == (2, 2 * half)


def test_the_partner_describes_a_padded_state_as_the_real_one():
    partner = SocialPartner(relational=True)
    goals = ["Grasp red cat", "Grow any plant", "Grasp any right_of blue thing", "Go top"] * 3
    states = play(goals, policy="scripted", seed=4, num_objects=3).states[-1]
    padded = np.zeros((len(states), 2 * (3 + 39 * 6)), np.float32)
    padded[:, padding_columns(3, 6)] = states
    np.testing.assert_array_equal(partner.describe_matrix(padded), partner.describe_matrix(states))


def test_ma_networks_ignore_padded_slots():
    from imagine_tf.reward.network import RewardNetwork
    from imagine_tf.language.vocabulary import Vocabulary

    vocabulary = Vocabulary.default()
    states = (
        play(
            ["Grasp red cat", "Grow any plant", "Go top"] * 2,
            policy="scripted",
            seed=2,
            num_objects=3,
        )
        .states[::10]
        .reshape(-1, 240)
    )
    padded = np.zeros((len(states), 2 * (3 + 39 * 5)), np.float32)
    padded[:, padding_columns(3, 5)] = states
    tf.keras.utils.set_random_seed(0)
    reward = RewardNetwork("ma", vocabulary.words[1:], vocabulary.max_length, num_objects=3)
    tokens = vocabulary.encode(["Grasp red cat"] * len(states))
    reward({"state": states[:1], "goal": tokens[:1]})
    wide = reward.with_num_objects(5)
    # The OR nets of 3 and 5 inputs differ: compare the module probabilities and the scans.
    three = reward.module_probabilities({"state": states, "goal": tokens}).numpy()
    five = wide.module_probabilities({"state": padded, "goal": tokens}).numpy()
    np.testing.assert_allclose(five[:, :3], three, atol=1e-6)
    np.testing.assert_array_equal(five[:, 3:], 0.0)
    embeddings = wide.encoder(tf.constant(tokens[:2]))
    general = wide.scan(tf.constant(padded), embeddings).numpy()
    structured = wide.scan(tf.constant(padded), embeddings, playground_states=True).numpy()
    np.testing.assert_allclose(structured, general, atol=1e-5)

    from tests.agent.actor_network_test import make_actor

    actor = make_actor("ma")
    goal = tf.constant(vocabulary.encode(["Grasp red cat"] * len(states)), tf.int32)
    actions, _ = actor({"state": tf.constant(states), "goal": goal})
    actions_padded, _ = actor.with_num_objects(5)({"state": tf.constant(padded), "goal": goal})
    np.testing.assert_allclose(actions_padded, actions, atol=1e-5)
