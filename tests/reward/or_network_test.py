"""The OR network: shipped weights, accuracy >= 97 %, symmetry, max variant, missing weights."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.reward import or_network
from imagine_tf.reward.or_network import OrNetwork, load_or_weights, save_or_weights
from imagine_tf.reward.or_pretraining import or_accuracy, or_training_data, pretrain_or_network

SHIPPED = (2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 21, 28, 36, 45)  # N = 2..10 and C(N, 2) for N <= 10


@pytest.mark.parametrize("num_inputs", SHIPPED)
def test_shipped_weights_are_at_least_97_percent_accurate(num_inputs):
    path = or_network.weights_path(num_inputs, or_network.PACKAGED_DIR)
    assert path.exists(), f"missing {path}: run `imagine-tf reward pretrain-or`"
    weights = load_or_weights(num_inputs)
    assert or_accuracy(weights, num_points=20_000) >= 0.97
    assert or_accuracy(weights, num_points=20_000, balanced=True) >= 0.97


def test_layer_is_frozen_symmetric_and_bounded():
    layer = OrNetwork(3)
    p = tf.constant([[0.9, 0.1, 0.2], [0.1, 0.2, 0.3], [0.49, 0.49, 0.49], [0.0, 0.0, 0.51]])
    out = layer(p).numpy()
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 6
    assert out.shape == (4,) and np.all((out >= 0.01) & (out <= 0.99))
    assert out[0] > 0.5 and out[1] < 0.5 and out[2] < 0.5
    for order in ([1, 2, 0], [2, 1, 0]):
        np.testing.assert_array_equal(layer(tf.gather(p, order, axis=1)).numpy(), out)


def test_max_variant_and_single_input():
    p = tf.constant([[0.2, 0.7, 0.1]])
    np.testing.assert_allclose(OrNetwork(3, "max")(p), [0.7])
    np.testing.assert_allclose(OrNetwork(1)(p[:, :1]), [0.2])
    with pytest.raises(ValueError, match="aggregation"):
        OrNetwork(3, "mean")
    with pytest.raises(ValueError, match="build one per n"):
        OrNetwork(3, "max")(tf.zeros([1, 4]))


def test_missing_weights_name_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("IMAGINE_TF_OR_WEIGHTS", str(tmp_path))
    monkeypatch.setattr(or_network, "CACHE_DIR", tmp_path / "cache")
    monkeypatch.setattr(or_network, "PACKAGED_DIR", tmp_path / "packaged")
    with pytest.raises(FileNotFoundError, match="imagine-tf reward pretrain-or --num-inputs 11"):
        OrNetwork(11)(tf.zeros([1, 11]))


def test_training_data_is_balanced_sorted_and_labelled():
    x, y = or_training_data(4, 10_000, np.random.default_rng(0))
    assert x.shape == (10_000, 4) and y.mean() == 0.5
    assert np.all(np.diff(x, axis=1) <= 0)  # largest first
    np.testing.assert_array_equal(x.max(axis=1) > 0.5, y == 1)


def test_pretraining_learns_the_or_and_weights_round_trip(tmp_path, monkeypatch):
    weights = pretrain_or_network(2, num_points=40_000, epochs=3, batch_size=256, seed=0)
    # A constant "yes" scores 75 % for n = 2: the short run must do clearly better.
    assert or_accuracy(weights, num_points=20_000) > 0.95
    path = save_or_weights(weights, tmp_path)
    assert path.name == "or_2.npz"
    monkeypatch.setenv("IMAGINE_TF_OR_WEIGHTS", str(tmp_path))
    np.testing.assert_array_equal(load_or_weights(2)["kernel_0"], weights["kernel_0"])
