"""The reward model's measure: F1 per goal of a reward's decisions over a set of states.

F1 of a goal = 2 TP / (2 TP + FP + FN), "positive" = probability > 0.5. A goal without any
positive state in the set has no F1 (NaN). Every F1 of this package is this one: the held-out
F1 of each reward-epoch (in its compiled graph), the validation and test F1 of supervised runs,
the probes of test and imagined goals.
"""

from __future__ import annotations

import tensorflow as tf


def f1_per_goal(predicted, labels) -> tf.Tensor:
    """F1 per column, float32 [G]: predictions and labels bool [S, G] (tensors or arrays);
    NaN where a column has no positive label."""
    predicted = tf.cast(predicted, tf.bool)
    labels = tf.cast(labels, tf.bool)

    def count(mask):
        return tf.reduce_sum(tf.cast(mask, tf.float32), axis=0)

    true_positive = count(predicted & labels)
    errors = count(predicted & ~labels) + count(~predicted & labels)
    f1 = 2 * true_positive / tf.maximum(2 * true_positive + errors, 1.0)
    return tf.where(tf.reduce_any(labels, axis=0), f1, float("nan"))


def mean_f1(predicted, labels) -> tf.Tensor:
    """The mean of `f1_per_goal` over the goals that have one (0 if none has), float32 []."""
    f1 = f1_per_goal(predicted, labels)
    defined = ~tf.math.is_nan(f1)
    total = tf.reduce_sum(tf.where(defined, f1, 0.0))
    return total / tf.maximum(tf.reduce_sum(tf.cast(defined, tf.float32)), 1.0)
