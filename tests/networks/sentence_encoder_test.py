import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.networks.gated_attention import GatedAttention
from imagine_tf.networks.sentence_encoder import SentenceEncoder, prefix_tree

VOCABULARY = Vocabulary.default()


def encoder():
    return SentenceEncoder(VOCABULARY.words[1:], VOCABULARY.max_length, units=8)


def test_in_graph_tokenization_matches_the_vocabulary():
    goals = ["Grasp any red thing", "go LEFT", "Grow blue flower"]
    ids = encoder().tokenize(tf.constant(goals)).numpy()
    np.testing.assert_array_equal(ids, VOCABULARY.encode(goals))


def test_one_hot_inputs_pad_with_zero_vectors():
    one_hot = encoder().one_hot(tf.constant(["Go left"])).numpy()
    assert one_hot.shape == (1, 4, 51)
    np.testing.assert_array_equal(one_hot[0, :2].sum(axis=1), 1.0)
    np.testing.assert_array_equal(one_hot[0, 2:], 0.0)  # padding: all-zero rows
    assert one_hot[..., 0].sum() == 0  # column 0 (pad id) is never hot


def test_embedding_is_the_last_padded_step_and_deterministic():
    layer = encoder()
    embedding = layer(tf.constant(["Grasp red cat", "Grasp red cat"]))
    assert embedding.shape == (2, 8)
    np.testing.assert_allclose(embedding[0], embedding[1])
    full = tf.keras.layers.LSTM(8, return_sequences=True)
    inputs = layer.one_hot(tf.constant(["Grasp red cat"]))
    full(inputs)
    full.set_weights(layer.lstm.get_weights())
    sequence = full(inputs)
    np.testing.assert_allclose(sequence[0, -1], embedding[0], atol=1e-6)


@pytest.mark.parametrize("graph", [False, True])
def test_unknown_words_and_long_goals_fail_naming_them(graph):
    layer = encoder()
    call = tf.function(layer.tokenize) if graph else layer.tokenize
    with pytest.raises(tf.errors.InvalidArgumentError, match="(?s)kat.*Known words"):
        call(tf.constant(["Grasp red kat"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="longer than 4"):
        call(tf.constant(["Grasp any red cat thing"]))


def test_config_round_trip():
    layer = encoder()
    clone = SentenceEncoder.from_config(layer.get_config())
    assert clone.words == layer.words and clone.max_length == 4 and clone.units == 8
    with pytest.raises(ValueError, match="implicit"):
        SentenceEncoder(["<pad>", "go"], 4)


def test_gated_attention_on_a_hand_computed_input():
    layer = GatedAttention(3)
    features = tf.constant([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]])  # [1, 2 objects, 3]
    goal = tf.constant([[1.0, -1.0]])
    layer((features, goal))
    layer.gate.set_weights(
        [np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]), np.array([0.0, 0.0, 50.0])]
    )
    # alpha = sigmoid([0, 1, 50]) = [0.5, 0.731, 1.0], the same for both objects.
    alpha = 1 / (1 + np.exp(-np.array([0.0, 1.0, 50.0])))
    np.testing.assert_allclose(layer((features, goal))[0], features[0] * alpha, rtol=1e-6)
    flat = layer((features[:, 0], goal))
    np.testing.assert_allclose(flat[0], features[0, 0] * alpha, rtol=1e-6)
    assert GatedAttention.from_config(layer.get_config()).feature_dim == 3


def assert_same_values_and_gradients(layer, expected_fn, got_fn, power: int = 2):
    """``got_fn()`` equals ``expected_fn()`` (embeddings, atol 1e-6), and so do the gradients
    of the sum of their ``power``-th powers with respect to the layer's weights (atol 1e-5)."""
    with tf.GradientTape(persistent=True) as tape:
        expected, got = expected_fn(), got_fn()
        expected_loss, got_loss = tf.reduce_sum(expected**power), tf.reduce_sum(got**power)
    np.testing.assert_allclose(got, expected, atol=1e-6)
    for a, b in zip(
        tape.gradient(expected_loss, layer.trainable_variables),
        tape.gradient(got_loss, layer.trainable_variables),
    ):
        np.testing.assert_allclose(tf.convert_to_tensor(b), tf.convert_to_tensor(a), atol=1e-5)


def test_the_direct_lstm_equals_keras_lstm_on_one_hot_words():
    from imagine_tf.language import grammar

    layer = encoder()
    ids = tf.constant(VOCABULARY.encode(list(grammar.one_object_goals())))
    assert_same_values_and_gradients(
        layer, lambda: layer.lstm(layer.one_hot(ids)), lambda: layer(ids)
    )


def test_the_prefix_tree_gives_each_goals_embedding_and_its_gradients():
    from imagine_tf.language import grammar

    layer = encoder()
    ids = VOCABULARY.encode(list(grammar.one_object_goals()))
    tree = prefix_tree(ids)
    rows = [int(tf.size(words)) for words in tree.words]
    assert rows[0] == len({row[0] for row in ids}) and rows[-1] == len(ids)
    assert sum(rows) < 0.7 * ids.size  # shared prefixes are computed once
    assert_same_values_and_gradients(
        layer, lambda: layer(tf.constant(ids)), lambda: layer.over_prefix_tree(tree), power=3
    )
    with pytest.raises(ValueError, match=r"token ids \[G, L\], got shape \(4,\)"):
        prefix_tree(ids[0])
