"""Object-centred views of the Playground state for Deep Sets networks (REFERENCE_FACTS §5.1).

The state is s = [o_t, o_t − o_0], with o_t = body (3) + N objects × 39. A Deep Sets module
sees one object at a time: x_i = [body, Δbody, obj_i, Δobj_i] (3 + 3 + 39 + 39 = 84 values, in
this order). A pair module sees x_ij = [body, Δbody, obj_i, Δobj_i, obj_j, Δobj_j] (162 values).
Sizes arrive as arguments (this package knows no environment).
"""

from __future__ import annotations

import itertools

import tensorflow as tf

BODY_DIM = 3
OBJECT_DIM = 39


def split_state(state: tf.Tensor, num_objects: int, body_dim: int = BODY_DIM, object_dim: int = OBJECT_DIM):
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


def object_inputs(state: tf.Tensor, num_objects: int) -> tf.Tensor:
    """Per-object inputs x_i = [body, Δbody, obj_i, Δobj_i], float [B, N, 84]."""
    body, objects = split_state(state, num_objects)
    body = tf.tile(body[:, None, :], [1, num_objects, 1])
    return tf.concat([body, objects], axis=-1)


def object_pairs(num_objects: int) -> list[tuple[int, int]]:
    """The C(N, 2) unordered pairs (i, j), i < j."""
    return list(itertools.combinations(range(num_objects), 2))


def pair_inputs(state: tf.Tensor, num_objects: int, swap: bool = False) -> tf.Tensor:
    """Pair inputs x_ij = [body, Δbody, obj_i, Δobj_i, obj_j, Δobj_j], float [B, C(N,2), 162].

    With ``swap=True`` each pair is given in the other order (obj_j first).
    """
    pairs = object_pairs(num_objects)
    if not pairs:
        raise ValueError(f"Pair inputs need at least 2 objects, got {num_objects}.")
    body, objects = split_state(state, num_objects)
    first, second = zip(*pairs)
    if swap:
        first, second = second, first
    body = tf.tile(body[:, None, :], [1, len(pairs), 1])
    return tf.concat(
        [body, tf.gather(objects, first, axis=1), tf.gather(objects, second, axis=1)], axis=-1
    )
