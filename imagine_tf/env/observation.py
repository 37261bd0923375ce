"""The observation layout of the reference and its decoding into symbolic scene facts.

One time step ``o_t`` is ``3 + 39 N`` values: the body (hand x, y, gripper ±1) then, per object,
``[one-hot type (32), x, y, size, R, G, B, grasped ±1]``. The agent sees ``s_t = [o_t, o_t − o_0]``,
``2 (3 + 39 N)`` values; ``o_0 = o_t − Δo_t`` recovers the initial step.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from imagine_tf.env import ontology
from imagine_tf.constants import BODY_DIM, OBJECT_DIM
from imagine_tf.env.config import GROWN_THRESHOLD

_TYPE_IDS = np.arange(ontology.NUM_TYPES, dtype=np.float32)
# Offsets inside one object's 39 features.
TYPE_SLICE = slice(0, ontology.NUM_TYPES)
POSITION_SLICE = slice(32, 34)
SIZE_INDEX = 34
RGB_SLICE = slice(35, 38)
GRASPED_INDEX = 38


def step_dim(num_objects: int) -> int:
    """Length of one time step o_t: 3 + 39 N."""
    return BODY_DIM + OBJECT_DIM * num_objects


def observation_dim(num_objects: int) -> int:
    """Length of the agent's observation s_t = [o_t, o_t - o_0]: 2 (3 + 39 N)."""
    return 2 * step_dim(num_objects)


def num_objects_of(observation: np.ndarray) -> int:
    """Infers N from the last axis of s_t; raises if the length fits no N."""
    dim = np.shape(observation)[-1]
    num_objects, rest = divmod(dim // 2 - BODY_DIM, OBJECT_DIM)
    if dim % 2 or rest or num_objects < 1:
        raise ValueError(
            f"An observation has 2 (3 + 39 N) values for N >= 1 objects; got a last axis of {dim}."
        )
    return num_objects


@dataclasses.dataclass(frozen=True)
class SceneFacts:
    """Symbolic facts of a batch of scenes, read from observations (what the partner perceives).

    Shapes use B for the batch and N for objects.

    Attributes:
      hand_position: float [B, 2], final hand (x, y).
      object_type: int [B, N], type index (one-hot order).
      object_colour: int [B, N], colour index decoded from RGB (-1 if none).
      held: bool [B, N], the object is grasped at the final step.
      grown: bool [B, N], final size > initial size + 0.001.
      initial_position: float [B, N, 2], object positions at t = 0.
      object_position: float [B, N, 2], current object positions.
      object_size: float [B, N], current sizes.
      present: bool [B, N], the object exists (a padded slot of a scene with fewer objects
        than N is all zeros: no type; `imagine_tf.env.object_padding`).
    """

    hand_position: np.ndarray
    object_type: np.ndarray
    object_colour: np.ndarray
    held: np.ndarray
    grown: np.ndarray
    initial_position: np.ndarray
    object_position: np.ndarray
    object_size: np.ndarray
    present: np.ndarray

    @property
    def batch_size(self) -> int:
        return self.object_type.shape[0]

    @property
    def num_objects(self) -> int:
        return self.object_type.shape[1]


def decode_observation(observation: np.ndarray) -> SceneFacts:
    """Reads the symbolic facts of final states ``s_T`` (the authors' Playground, flowersteam/Imagine).

    Args:
      observation: float array [B, 2 (3 + 39 N)] (or one state [2 (3 + 39 N)]).

    Returns:
      The `SceneFacts` of the batch (a batch of one for a single state).
    """
    observation = np.asarray(observation, dtype=np.float32)
    if observation.ndim == 1:
        observation = observation[None]
    if observation.ndim != 2:
        raise ValueError(
            f"Expected observations of shape [batch, 2 (3 + 39 N)], got {observation.shape}."
        )
    num_objects = num_objects_of(observation)
    half = step_dim(num_objects)
    current, delta = observation[:, :half], observation[:, half:]
    objects = current[:, BODY_DIM:].reshape(-1, num_objects, OBJECT_DIM)
    object_deltas = delta[:, BODY_DIM:].reshape(-1, num_objects, OBJECT_DIM)
    size = objects[..., SIZE_INDEX]
    types = objects[..., TYPE_SLICE]
    return SceneFacts(
        hand_position=current[:, 0:2],
        # Exact one-hot rows: a dot with 0..31 is the argmax, an order of magnitude faster.
        object_type=np.rint(types @ _TYPE_IDS).astype(np.int64),
        object_colour=ontology.decode_colour(objects[..., RGB_SLICE]),
        held=objects[..., GRASPED_INDEX] > 0,
        grown=object_deltas[..., SIZE_INDEX] > GROWN_THRESHOLD,
        initial_position=objects[..., POSITION_SLICE] - object_deltas[..., POSITION_SLICE],
        object_position=objects[..., POSITION_SLICE],
        object_size=size,
        present=types.max(axis=-1) > 0.5,
    )
