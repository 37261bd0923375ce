"""Gated attention: features gated by the goal, sigmoid(Dense(g)) ⊙ x (Colas et al. 2020, IMAGINE; flowersteam/Imagine)."""

from __future__ import annotations

import tensorflow as tf


def he_uniform_dense(
    units: int, activation=None, name: str | None = None, dtype=None
) -> tf.keras.layers.Dense:
    """Dense with He-uniform kernel and zero bias, the initialisation of the reference.

    ``dtype``: a Keras dtype policy (`precision.dense_policy`); None = the global one.
    """
    return tf.keras.layers.Dense(
        units,
        activation=activation,
        kernel_initializer="he_uniform",
        bias_initializer="zeros",
        name=name,
        dtype=dtype,
    )


#: How the last layer of the actor (tanh action) and of the critic (Q value) is initialised.
FINAL_LAYER_INITS = ("small_uniform", "he_uniform")


def final_dense(units: int, init: str, activation=None, name: str | None = None):
    """The output layer of a DDPG network.

    ``init="small_uniform"``: kernel and bias from U(−3·10⁻³, 3·10⁻³), as the DDPG paper
    (Lillicrap et al. 2016) and TF-Agents' actor and critic networks, so the first policy's
    actions are ≈ 0 and its exploration is the noise's. ``"he_uniform"``: the reference's
    (Colas et al. 2020, IMAGINE; flowersteam/Imagine), with which the untrained actor's tanh saturates: for seed 0 every
    epoch-0 episode, exploring or not, ends with the hand against the left wall (x = −1.2), so
    the first goals discovered are all on one side.
    """
    if init == "he_uniform":
        return he_uniform_dense(units, activation, name)
    if init != "small_uniform":
        raise ValueError(f"final layer init must be one of {FINAL_LAYER_INITS}, got {init!r}.")

    def small():  # one initializer per variable: Keras warns when an instance is reused
        return tf.keras.initializers.RandomUniform(-3e-3, 3e-3)

    return tf.keras.layers.Dense(
        units,
        activation=activation,
        kernel_initializer=small(),
        bias_initializer=small(),
        name=name,
    )


class GatedAttention(tf.keras.layers.Layer):
    """Gates per-object (or flat) features with an attention vector computed from the goal.

    α = sigmoid(Dense(F)(g)); output = x ⊙ α, the same α for every object (the paper's "modular
    attention" when x is per-object, "flat attention" when x is the whole state).

    With ``normalize_goal``, the gate reads ĝ = √G · g / ‖g‖ instead of g (parameter-free; not
    in the paper). At initialisation the LSTM's embeddings are tiny (mean |g| ≈ 0.014 for the
    191 training goals) and nearly equal, so α = 0.500 ± 0.005 for every goal: the goals are
    indistinguishable until the encoder has grown, which shows as a long plateau of the reward
    model's F1. With ĝ, α already differs between goals by ±0.23 at initialisation.

    Inputs: ``(features, goal_embedding)`` with features [B, F] or [B, N, F] and goal_embedding
    [B, G]. Output: the features' shape.

    Args:
      feature_dim: F, the width of the features to gate.
      normalize_goal: gate on the L2-normalised embedding (see above).
    """

    def __init__(self, feature_dim: int, normalize_goal: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.feature_dim = int(feature_dim)
        self.normalize_goal = bool(normalize_goal)
        self.gate = he_uniform_dense(self.feature_dim, name="gate")  # logits; σ below

    def gate_input(self, goal_embedding: tf.Tensor) -> tf.Tensor:
        """What the gate reads: g, or ĝ = √G · g / ‖g‖ with ``normalize_goal``; [B, G]."""
        if not self.normalize_goal:
            return goal_embedding
        width = tf.cast(tf.shape(goal_embedding)[-1], goal_embedding.dtype)
        return tf.math.l2_normalize(goal_embedding, axis=-1) * tf.sqrt(width)

    def attention_vector(self, goal_embedding: tf.Tensor) -> tf.Tensor:
        """α [B, F] of goal embeddings [B, G]."""
        return tf.sigmoid(self.gate(self.gate_input(goal_embedding)))

    def call(self, inputs):
        features, goal_embedding = inputs
        attention = self.attention_vector(goal_embedding)  # [B, F]
        if features.shape.rank == 3:
            attention = attention[:, None, :]
        return features * attention

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(feature_dim=self.feature_dim, normalize_goal=self.normalize_goal)
        return config
