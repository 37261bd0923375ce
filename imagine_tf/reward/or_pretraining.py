"""Pretraining of the OR network on synthetic data (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

Data: 500,000 points, balanced, each sorted largest first (the OR layer sorts its inputs). Positives are points of U[0, 1]^n whose max is > 0.5;
negatives are points of U[0, 0.5]^n. Loss: binary cross-entropy on the rescaled output
0.98·y + 0.01. Adam, learning rate 5e-3, ×0.1 after every 8 epochs, 15 epochs, weight decay
1e-3 (Keras' decoupled form; the reference's PyTorch Adam adds it to the gradient).

Deviation, for speed: batches of 1,024 instead of 64 (7,300 steps instead of 117,000; about 20 s
per net on one core). The accuracy on U[0, 1]^n stays above the reference's 97.4 %
(`or_accuracy`; tests/reward/or_network_test.py checks ≥ 97 %).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from imagine_tf.reward.or_network import HIDDEN, WEIGHT_NAMES, or_forward


def or_training_data(num_inputs: int, num_points: int, rng: np.random.Generator):
    """(x float32 [num_points, n], y float32 [num_points]): half positives, half negatives.

    Each row is sorted, largest first (see `imagine_tf.reward.or_network`).
    """
    half = num_points // 2
    positives = np.empty((0, num_inputs))
    while len(positives) < half:
        draw = rng.random((2 * half, num_inputs))
        positives = np.concatenate([positives, draw[draw.max(axis=1) > 0.5]])
    negatives = rng.random((half, num_inputs)) * 0.5
    x = np.concatenate([positives[:half], negatives]).astype(np.float32)
    x = -np.sort(-x, axis=1)  # sorted, largest first: the order the OR layer feeds its net
    y = np.concatenate([np.ones(half), np.zeros(half)]).astype(np.float32)
    order = rng.permutation(len(x))
    return x[order], y[order]


def or_accuracy(
    weights: dict[str, np.ndarray], num_points: int = 100_000, seed: int = 1, balanced: bool = False
) -> float:
    """Accuracy of "output > 0.5" against "max > 0.5".

    On U[0, 1]^n (the reference's measure), or with ``balanced=True`` on the pretraining
    distribution (half positives, half U[0, 0.5]^n negatives), which stays informative for
    large n, where almost every uniform point is positive.
    """
    num_inputs = weights["kernel_0"].shape[0]
    rng = np.random.default_rng(seed)
    if balanced:
        points, _ = or_training_data(num_inputs, num_points, rng)
    else:
        points = rng.random((num_points, num_inputs)).astype(np.float32)
    output = or_forward(
        tf.constant(points), [tf.constant(weights[n]) for n in WEIGHT_NAMES]
    ).numpy()
    return float(np.mean((output > 0.5) == (points.max(axis=1) > 0.5)))


def pretrain_or_network(
    num_inputs: int,
    num_points: int = 500_000,
    epochs: int = 15,
    batch_size: int = 1024,
    learning_rate: float = 5e-3,
    weight_decay: float = 1e-3,
    seed: int = 0,
    verbose: int = 0,
) -> dict[str, np.ndarray]:
    """Trains one OR net for n inputs; returns its weights (kernel_0 ... bias_2)."""
    if num_inputs < 2:
        raise ValueError(f"An OR net needs >= 2 inputs, got {num_inputs} (n = 1 is the identity).")
    tf.keras.utils.set_random_seed(seed)
    x, y = or_training_data(num_inputs, num_points, np.random.default_rng(seed))
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(HIDDEN, "tanh", input_shape=(num_inputs,)),
            tf.keras.layers.Dense(HIDDEN, "tanh"),
            tf.keras.layers.Dense(1, "sigmoid"),
            tf.keras.layers.Rescaling(0.98, offset=0.01),
        ]
    )
    model.compile(
        tf.keras.optimizers.Adam(learning_rate, weight_decay=weight_decay),
        tf.keras.losses.BinaryCrossentropy(),
    )
    schedule = tf.keras.callbacks.LearningRateScheduler(
        lambda epoch: learning_rate * 0.1 ** (epoch // 8)
    )
    model.fit(
        x, y[:, None], batch_size=batch_size, epochs=epochs, verbose=verbose, callbacks=[schedule]
    )
    values = [v.numpy() for layer in model.layers[:3] for v in layer.weights]
    return dict(zip(WEIGHT_NAMES, values))
