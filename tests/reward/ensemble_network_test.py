"""RewardEnsemble: the members' mean through every entry point, and one kind of member only."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.ensemble_network import RewardEnsemble
from imagine_tf.reward.network import RewardNetwork, example_inputs

VOCABULARY = Vocabulary.default(relational=True)


def member(seed, architecture="ma_pairs", num_objects=3):
    tf.keras.utils.set_random_seed(seed)
    net = RewardNetwork(
        architecture,
        VOCABULARY.words[1:],
        VOCABULARY.max_length,
        num_objects,
        hidden_units=16,
        pair_relations=architecture == "ma_pairs",
    )
    net(example_inputs(num_objects, VOCABULARY.max_length))
    return net


def test_every_output_is_the_mean_of_the_members():
    members = [member(seed) for seed in (0, 1, 2)]
    ensemble = RewardEnsemble(members)
    assert ensemble.hidden_units == 3 * 16  # score_matrix's chunks hold every member's activations
    states = tf.random.stateless_uniform([5, 240], seed=(1, 2), minval=-1, maxval=1)
    goals = tf.constant(
        [
            "Grasp any left_of blue thing",
            "Grasp red cat",
            "Go left",
            "Grow any fly",
            "Grasp any fly",
        ]
    )
    inputs = {"state": states, "goal": goals}
    outputs = [m(inputs).numpy() for m in members]
    assert np.ptp(np.stack(outputs), axis=0).max() > 1e-3  # the members differ
    np.testing.assert_allclose(ensemble(inputs), np.mean(outputs, axis=0), atol=1e-6)
    embeddings = ensemble.encoder(goals)
    assert embeddings.shape == (5, 300)
    probability, modules = ensemble.probability_and_modules(states, embeddings)
    np.testing.assert_allclose(probability, np.mean(outputs, axis=0), atol=1e-6)
    member_modules = [m.module_probabilities(inputs).numpy() for m in members]
    np.testing.assert_allclose(modules, np.mean(member_modules, axis=0), atol=1e-6)
    scanned = ensemble.scan(states, embeddings)
    member_scans = [m.scan(states, m.encoder(goals)).numpy() for m in members]
    np.testing.assert_allclose(scanned, np.mean(member_scans, axis=0), atol=1e-6)
    np.testing.assert_allclose(np.diag(scanned), np.mean(outputs, axis=0), atol=1e-5)


def test_other_n_and_one_member():
    members = [member(seed) for seed in (3, 4)]
    wider = RewardEnsemble(members).with_num_objects(4)
    states = tf.random.stateless_uniform([2, 318], seed=(3, 4))
    inputs = {"state": states, "goal": tf.constant(["Grasp any cat", "Go left"])}
    expected = np.mean([m.with_num_objects(4)(inputs).numpy() for m in members], axis=0)
    np.testing.assert_allclose(wider(inputs), expected, atol=1e-6)
    single = RewardEnsemble(members[:1])
    np.testing.assert_allclose(
        single(inputs | {"state": states[:, :240]}),
        members[0](inputs | {"state": states[:, :240]}),
        atol=1e-7,
    )


def test_members_of_another_kind_are_refused():
    with pytest.raises(ValueError, match="member 1 is a ma network for N = 3"):
        RewardEnsemble([member(0), member(1, architecture="ma")])
    with pytest.raises(ValueError, match="at least one member"):
        RewardEnsemble([])
