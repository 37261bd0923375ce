"""Object-centred views of the Playground state for Deep Sets networks (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

The state is s = [o_t, o_t − o_0], with o_t = body (3) + N objects × 39. A Deep Sets module
sees one object at a time: x_i = [body, Δbody, obj_i, Δobj_i] (3 + 3 + 39 + 39 = 84 values, in
this order); obj_i = [one-hot type (32), x, y, size, R, G, B, grasped]. A pair module sees
x_ij = [body, Δbody, obj_i, Δobj_i, obj_j, Δobj_j] (162 values), and optionally the pair's
relation features r_ij (`pair_relations`, 4 values).
Sizes arrive as arguments (this package knows no environment).
"""

from __future__ import annotations

import itertools

import numpy as np
import tensorflow as tf

from imagine_tf.constants import BODY_DIM, OBJECT_DIM
from imagine_tf.networks.gated_attention import GatedAttention, he_uniform_dense
from imagine_tf.networks.precision import dense_policy

NUM_TYPES = 32  # an object's first 32 features: its type, one-hot
POSITION_OFFSET = 32  # an object's x, y features
RGB_OFFSET = 35  # an object's R, G, B features
RELATION_DIM = 4  # `pair_relations`
# The 49 of the 84 per-object input values that can vary in Playground observations: all but
# Δtype and ΔRGB (zero: types and colours never change within an episode).
PLAYGROUND_VARYING_INPUTS = [
    i
    for i in range(2 * BODY_DIM + 2 * OBJECT_DIM)
    if not (
        2 * BODY_DIM + OBJECT_DIM <= i < 2 * BODY_DIM + OBJECT_DIM + NUM_TYPES
        or 2 * BODY_DIM + OBJECT_DIM + RGB_OFFSET <= i < 2 * BODY_DIM + OBJECT_DIM + RGB_OFFSET + 3
    )
]


def split_state(
    state: tf.Tensor, num_objects: int, body_dim: int = BODY_DIM, object_dim: int = OBJECT_DIM
):
    """(body [B, 2 body_dim], objects [B, N, 2 object_dim]) from s [B, 2 (body + N object)].

    Both halves keep the order (current, delta): body = [body, Δbody], objects[:, i] =
    [obj_i, Δobj_i].
    """
    step = body_dim + num_objects * object_dim
    if state.shape[-1] is not None and state.shape[-1] != 2 * step:
        raise ValueError(
            f"A state for {num_objects} objects has 2 x ({body_dim} + {num_objects} x {object_dim}) "
            f"= {2 * step} values, got {state.shape[-1]}."
        )
    current, delta = state[:, :step], state[:, step:]
    body = tf.concat([current[:, :body_dim], delta[:, :body_dim]], axis=-1)
    shape = [-1, num_objects, object_dim]
    objects = tf.concat(
        [tf.reshape(current[:, body_dim:], shape), tf.reshape(delta[:, body_dim:], shape)], axis=-1
    )
    return body, objects


def object_input_columns(
    num_objects: int, body_dim: int = BODY_DIM, object_dim: int = OBJECT_DIM
) -> np.ndarray:
    """int32 [N, 2 (body + object)]: which state value each per-object input x_i reads."""
    step = body_dim + num_objects * object_dim
    body = np.concatenate([np.arange(body_dim), step + np.arange(body_dim)])
    columns = []
    for i in range(num_objects):
        start = body_dim + i * object_dim
        own = np.arange(start, start + object_dim)
        columns.append(np.concatenate([body, own, step + own]))
    return np.stack(columns).astype(np.int32)


def object_inputs(state: tf.Tensor, num_objects: int) -> tf.Tensor:
    """Per-object inputs x_i = [body, Δbody, obj_i, Δobj_i], float [B, N, 84].

    Slices and a concat: as one gather of the state's columns (`object_input_columns`) the
    training steps were slower (the gather's gradient is a scatter)."""
    body, objects = split_state(state, num_objects)
    body = tf.tile(body[:, None, :], [1, num_objects, 1])
    return tf.concat([body, objects], axis=-1)


def present_objects(per_object: tf.Tensor) -> tf.Tensor:
    """float [..., N]: 1 for an object, 0 for a padded slot (all zeros: no type one-hot), of
    per-object inputs [..., N, F ≥ 38] (`object_inputs`: the type one-hot is at 6..37).
    Scenes with fewer objects than the network's N are padded so (`env.object_padding`); MA
    networks leave padded slots out of their sums and ORs."""
    types = per_object[..., 2 * BODY_DIM : 2 * BODY_DIM + NUM_TYPES]
    return tf.cast(tf.reduce_max(types, axis=-1) > 0.5, tf.float32)


def object_pairs(num_objects: int) -> list[tuple[int, int]]:
    """The C(N, 2) unordered pairs (i, j), i < j."""
    return list(itertools.combinations(range(num_objects), 2))


def pair_relations(objects: tf.Tensor, first: list[int], second: list[int]) -> tf.Tensor:
    """Relation features r_ij = [ReLU(p⁰_i − p⁰_j), ReLU(p⁰_j − p⁰_i)] of ordered pairs: [..., P, 4].

    p⁰ = (x, y) − (Δx, Δy) is an object's initial position (the two-object goals are about
    initial positions, the authors' Playground, flowersteam/Imagine). The difference is split into its positive and
    negative parts because a sigmoid gate can only scale an input by (0, 1), never flip its
    sign: with p⁰_i − p⁰_j alone, "right_of" and "left_of" need the same hidden units to
    respond to opposite signs. With the split, a word's gate selects the direction (right_of:
    the first value, left_of: the third; above: the second, below: the fourth).

    Args:
      objects: [..., N, 78] per-object features [obj, Δobj] (`split_state`).
      first, second: the P ordered pairs' object indices.
    """
    x = POSITION_OFFSET
    initial = objects[..., x : x + 2] - objects[..., OBJECT_DIM + x : OBJECT_DIM + x + 2]
    difference = tf.gather(initial, first, axis=-2) - tf.gather(initial, second, axis=-2)
    return tf.concat([tf.nn.relu(difference), tf.nn.relu(-difference)], axis=-1)


def pair_inputs(
    state: tf.Tensor, num_objects: int, swap: bool = False, relations: bool = False
) -> tf.Tensor:
    """Pair inputs x_ij = [body, Δbody, obj_i, Δobj_i, obj_j, Δobj_j], float [B, C(N,2), 162].

    With ``swap=True`` each pair is given in the other order (obj_j first); with ``relations``
    the pair's relation features r_ij (`pair_relations`) follow: [B, C(N,2), 166].
    """
    pairs = object_pairs(num_objects)
    if not pairs:
        raise ValueError(f"Pair inputs need at least 2 objects, got {num_objects}.")
    body, objects = split_state(state, num_objects)
    first, second = (list(index) for index in zip(*pairs))
    if swap:
        first, second = second, first
    body = tf.tile(body[:, None, :], [1, len(pairs), 1])
    parts = [body, tf.gather(objects, first, axis=1), tf.gather(objects, second, axis=1)]
    if relations:
        parts.append(pair_relations(objects, first, second))
    return tf.concat(parts, axis=-1)


class DeepSetsTrunk(tf.keras.layers.Layer):
    """The goal-conditioned body shared by the actor and the critic (Colas et al. 2020; Karch, Colas et al. 2020; flowersteam/Imagine).

    * ``ma``: x_i ⊙ σ(Dense(F)(g)) -> ReLU(Dense(H)) -> ReLU(Dense(latent)) per object (shared
      weights), **sum over objects** (padded slots left out, `present_objects`), ->
      ReLU(Dense(H)). Any N: the sum has the latent width.
    * ``fa``: s ⊙ σ(Dense(F)(g)) -> ReLU(Dense(H)) -> ReLU(Dense(H)).
    * ``fc``: [s, g] -> ReLU(Dense(H)) -> ReLU(Dense(H)).

    Inputs: ``(features, goal_embedding)``, features [B, N, F] (ma) or [B, F] (fa, fc) and
    goal_embedding [B, E]. Output [B, H], to which the actor and critic add their output layer.

    ``compute_dtype="bfloat16"`` runs the three hidden Dense layers in mixed precision
    (`precision`); the attention gate and the sum over objects stay float32, and the output is
    cast back to float32.

    Args:
      architecture: "ma", "fa" or "fc".
      feature_dim: F, per-object (ma) or flat (fa) input width gated by the attention.
      hidden_units: H (256).
      latent_units: the MA latent width (the paper's N × dim(x_i)); unused by fa and fc.
      compute_dtype: "float32" (default) or "bfloat16", see above.
    """

    def __init__(
        self,
        architecture: str,
        feature_dim: int,
        hidden_units: int = 256,
        latent_units: int | None = None,
        compute_dtype: str = "float32",
        **kwargs,
    ):
        super().__init__(**kwargs)
        if architecture not in ("ma", "fa", "fc"):
            raise ValueError(f"architecture must be 'ma', 'fa' or 'fc', got {architecture!r}.")
        if architecture == "ma" and not latent_units:
            raise ValueError("The MA trunk needs latent_units (N × per-object width).")
        self.architecture = architecture
        policy = dense_policy(compute_dtype)
        self.attention = (
            None if architecture == "fc" else GatedAttention(feature_dim, name="attention")
        )
        second = latent_units if architecture == "ma" else hidden_units
        self.layers_before_sum = [
            he_uniform_dense(hidden_units, "relu", name="hidden_1", dtype=policy),
            he_uniform_dense(second, "relu", name="hidden_2", dtype=policy),
        ]
        self.after_sum = (
            he_uniform_dense(hidden_units, "relu", name="after_sum", dtype=policy)
            if architecture == "ma"
            else None
        )

    def call(self, inputs):
        features, goal_embedding = inputs
        present = present_objects(features) if self.after_sum is not None else None
        if self.attention is None:
            features = tf.concat([features, goal_embedding], axis=-1)
        else:
            features = self.attention((features, goal_embedding))
        # On [B·N, F] (ma) or [B, F]: 2-D products, fused with their bias and ReLU.
        shape = tf.shape(features)
        rows = tf.reshape(features, [-1, features.shape[-1]])
        for layer in self.layers_before_sum:
            rows = layer(rows)
        if self.after_sum is not None:  # sum over objects (in float32), then the last layer
            per_object = tf.reshape(tf.cast(rows, tf.float32), [shape[0], shape[1], -1])
            rows = self.after_sum(tf.reduce_sum(per_object * present[..., None], axis=1))
        return tf.cast(rows, tf.float32)
