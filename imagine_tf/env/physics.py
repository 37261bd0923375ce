"""The batched Playground core: B scenes of N objects as numpy arrays (the authors' Playground, flowersteam/Imagine).

`PlaygroundCore` holds the state of B synchronous scenes and advances them all at once; there is
no Python loop over scenes or objects in `step`. It knows no language: scenes are drawn from
`SceneConstraints`. `imagine_tf.env.playground_env.PlaygroundEnv` wraps it as a TF-Agents
environment.

One step, for every scene at once:
  1. the action is clipped to [-1, 1]^3; hand <- clip(hand + 0.15 a[:2], -1.2, 1.2);
  2. gripper <- +1 (closed) if a[2] > 0 else -1 (a level command, not a toggle);
  3. grasp: an open gripper releases the held object (it stays where it is); a closed gripper
     keeps its object, or, holding nothing, takes the first object (in list order) with
     ||obj - hand|| < (size + 0.05) / 2; at most one object is held;
  4. the held object moves to the hand;
  5. growth: a living thing whose centre is closer than (size_l + size_s) / 2 to a supply that
     feeds it (animals: food or water; plants: water) grows by 0.04, capped at 0.34.

Timing choice (ours): contact is checked on the positions *after* this step's move and
carry, so growth can happen one step earlier than in the per-object loop of the reference code.

`PlaygroundConfig.update_order="authors"` follows that loop instead (their
``PlayGroundNavigationV1.step`` calls ``update_state`` object by object, and a living thing's
``update_state`` checks its supplies before the grasp and carry of `Thing.update_state`):
  * a living thing's contact is checked on its own previous position and on the previous
    positions of supplies later in the list (earlier ones have already been carried);
  * it grows before the grasp test, so its reach uses the grown size;
  * it grows by 0.04 per touching supply (an animal on food and water: 0.08), capped at 0.34.
`release_rule="in_reach"` is their release: an open gripper drops the held object only while
the hand (after its move) is within the object's reach; otherwise the object keeps following.
"""

from __future__ import annotations

import math

import numpy as np

from imagine_tf.env import ontology
from imagine_tf.env.config import (
    ACTION_SCALE,
    ARENA_LIMIT,
    GROWTH_PER_STEP,
    HAND_SIZE,
    MAX_SIZE,
    PlaygroundConfig,
)
from imagine_tf.env.observation import (
    BODY_DIM,
    GRASPED_INDEX,
    OBJECT_DIM,
    POSITION_SLICE,
    RGB_SLICE,
    SIZE_INDEX,
    TYPE_SLICE,
    step_dim,
)
from imagine_tf.env.scene_generation import SceneConstraints, SceneLayout, generate_scenes

NO_OBJECT = -1
# The raw clip ufunc: np.clip's Python wrapper costs more than the work on small batches.
_clip = np.core.umath.clip


def check_actions(action: np.ndarray, batch_size: int) -> np.ndarray:
    """Validates a batch of actions and returns it as float32 [B, 3] (not yet clipped).

    Raises:
      ValueError: wrong shape or non-finite values, with what was given and what is expected.
    """
    action = np.asarray(action, dtype=np.float32)
    if action.shape != (batch_size, 3):
        if action.shape == (3,) and batch_size == 1:
            action = action[None]
        else:
            raise ValueError(
                f"Expected actions of shape ({batch_size}, 3) = (batch_size, [dx, dy, gripper]), "
                f"got shape {action.shape}. Pass one 3-vector per scene."
            )
    if not math.isfinite(action.ravel().dot(action.ravel())):  # NaN and inf propagate
        bad = np.argwhere(~np.isfinite(action))[:3].tolist()
        raise ValueError(
            f"Actions must be finite; got NaN or inf at (scene, dim) {bad}. "
            "Check the policy's output before stepping the environment."
        )
    return action


class PlaygroundCore:
    """B synchronous Playground scenes as arrays.

    The state lives in the buffer of the current time step o_t (float32 [B, D], D = 3 + 39 N),
    so a step updates it in place and never re-assembles the observation; the only other state
    is the index of the held object per scene. Small batches are dominated by numpy's per-call
    overhead, so every constant is a pre-allocated array and every update writes in place.

    Shapes: B = batch_size, N = config.num_objects.

    Read-only views (owned by the core):
      hand_position: float32 [B, 2]; gripper: float32 [B] (+1 closed, -1 open).
      held: int64 [B], index of the held object or -1.
      object_type: int64 [B, N]; colour: int64 [B, N] (colour index).
      object_position: float32 [B, N, 2]; object_size: float32 [B, N]; rgb: float32 [B, N, 3].
      num_steps: steps since the last reset.
      growth_steps: steps since the last reset at which some object grew (sizes change only
        then: a reader can skip re-reading them while it stays the same).
    """

    def __init__(self, config: PlaygroundConfig, batch_size: int, seed: int | None = None):
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}.")
        self.config = config
        self.batch_size = batch = int(batch_size)
        self.rng = np.random.default_rng(seed)
        num_objects = config.num_objects
        self._step_dim = step_dim(num_objects)
        # o_t and o_0, and views of o_t that hold the state.
        self._current = np.zeros((batch, self._step_dim), dtype=np.float32)
        self._zero_and_initial = np.zeros((batch, 2, self._step_dim), dtype=np.float32)
        self._initial = self._zero_and_initial[:, 1]  # o_0
        row_stride, item = self._current.strides
        self._current_twice = np.lib.stride_tricks.as_strided(
            self._current, (batch, 2, self._step_dim), (row_stride, 0, item), writeable=False
        )  # [o_t, o_t]
        features = self._current[:, BODY_DIM:].reshape(batch, num_objects, OBJECT_DIM)
        self._features = features
        self.hand_position = self._current[:, 0:2]
        self.gripper = self._current[:, 2]
        self.object_position = features[..., POSITION_SLICE]
        self.object_size = features[..., SIZE_INDEX]
        self.rgb = features[..., RGB_SLICE]
        self._grasped = features[..., GRASPED_INDEX]
        self.held = np.full(batch, NO_OBJECT, dtype=np.int64)
        # Constants as arrays: numpy ufuncs on small arrays pay more for a Python scalar.
        self._rows = np.arange(batch)
        self._minus_one = np.full((batch, 3), -1.0, dtype=np.float32)
        self._plus_one = np.ones((batch, 3), dtype=np.float32)
        self._action = np.zeros((batch, 3), dtype=np.float32)
        self._move = np.zeros((batch, 2), dtype=np.float32)
        self._scale = np.full((batch, 2), ACTION_SCALE, dtype=np.float32)
        self._low = np.full((batch, 2), -ARENA_LIMIT, dtype=np.float32)
        self._high = np.full((batch, 2), ARENA_LIMIT, dtype=np.float32)
        self._zeros = np.zeros(batch, dtype=np.float32)
        self._no_object = np.full(batch, NO_OBJECT, dtype=np.int64)
        self._zero_index = np.zeros(batch, dtype=np.int64)
        self._object_index = np.arange(num_objects)[None, :]
        self._reach = np.ones((batch, num_objects + 1), dtype=bool)
        self._first_or_none = np.append(np.arange(num_objects), NO_OBJECT)
        self._list_order = config.update_order == "authors"
        self._release_in_reach = config.release_rule == "in_reach"
        self.num_steps = 0
        self.reset(SceneConstraints.free(batch))

    # ------------------------------------------------------------------------------------------
    def reset(self, constraints: SceneConstraints) -> np.ndarray:
        """Starts B new scenes drawn under the constraints; returns s_0, float32 [B, 2D]."""
        if constraints.batch_size != self.batch_size:
            raise ValueError(
                f"Got constraints for {constraints.batch_size} scenes, expected {self.batch_size}."
            )
        self.set_layout(generate_scenes(constraints, self.config, self.rng))
        return self.observation()

    def set_layout(self, layout: SceneLayout) -> None:
        """Starts scenes from an explicit layout (hand at the origin, gripper open)."""
        expected = (self.batch_size, self.config.num_objects)
        if np.shape(layout.object_type) != expected or np.shape(layout.position) != expected + (2,):
            raise ValueError(
                f"Layout shapes {np.shape(layout.object_type)}/{np.shape(layout.position)} do not "
                f"match (batch, num_objects) = {expected} (+ 2 for positions)."
            )
        self.object_type = np.asarray(layout.object_type, dtype=np.int64)
        self.colour = np.asarray(layout.colour, dtype=np.int64)
        features = self._features
        features[..., TYPE_SLICE] = _ONE_HOT[self.object_type]
        features[..., RGB_SLICE] = layout.rgb
        features[..., POSITION_SLICE] = layout.position
        features[..., SIZE_INDEX] = layout.size
        features[..., GRASPED_INDEX] = -1.0
        self._current[:, 0:2] = 0.0
        self._current[:, 2] = -1.0
        self.held.fill(NO_OBJECT)
        # feeds[b, l, s]: object s makes object l grow on contact.
        self._feeds = ontology.FEEDS[self.object_type[:, None, :], self.object_type[:, :, None]]
        self._feeds_any = bool(np.count_nonzero(self._feeds))
        self._feeds_row = self._feeds.any(axis=(1, 2)) if self._feeds_any else None
        self._growing_rows = np.zeros(self.batch_size, dtype=bool)
        if self._list_order and self._feeds_any:  # the first step checks every contact
            self._growing_rows = self._feeds_row.copy()
        self._update_reach()
        self._initial[:] = self._current
        self.num_steps = 0
        self.growth_steps = 0

    def _update_reach(self) -> None:
        self._reach2 = _grasp_radius2(self.object_size)

    # ------------------------------------------------------------------------------------------
    def step(self, action: np.ndarray) -> np.ndarray:
        """Advances every scene by one step; returns s_t, float32 [B, 2D].

        Args:
          action: [B, 3] actions (dx, dy, gripper); clipped to [-1, 1].

        Raises:
          ValueError: actions of the wrong shape or not finite (the state is left unchanged).
        """
        action = _clip(
            check_actions(action, self.batch_size),
            self._minus_one,
            self._plus_one,
            out=self._action,
        )
        hand = self.hand_position
        np.add(hand, np.multiply(action[:, :2], self._scale, out=self._move), out=hand)
        _clip(hand, self._low, self._high, out=hand)
        closed = np.greater(action[:, 2], self._zeros)
        _SIGN.take(closed.view(np.int8), out=self.gripper)  # +1 closed, -1 open
        if self._list_order:
            return self._step_in_list_order(closed)

        # Grasp: an open gripper holds nothing ("in_reach": unless out of the object's reach); a
        # closed one keeps its object or, if empty, takes the first reachable one in list order.
        # (The branches skip work a batch does not need: numpy's per-call cost dominates.)
        position = self.object_position
        grasped = self._grasped
        keep = (closed | self._out_of_reach(self._reach2)) if self._release_in_reach else closed
        if np.count_nonzero(keep):
            held = np.where(keep, self.held, self._no_object)
            searching = np.less(held, self._zero_index) & closed
            if np.count_nonzero(searching):
                gap = position - hand[:, None, :]
                d2 = np.add.reduce(np.square(gap), axis=2)
                # Column N stays True: argmax finds the first reachable object, or N for none.
                np.less(d2, self._reach2, out=self._reach[:, :-1])
                first = self._first_or_none[self._reach.argmax(axis=1)]
                held = np.where(searching, first, held)
            # Carry, and the grasped flags (+1 held, -1 not).
            holding = np.greater_equal(held, self._zero_index)
            if np.count_nonzero(holding):
                held_mask = np.equal(held[:, None], self._object_index)  # [B, N]
                np.copyto(position, hand[:, None, :], where=held_mask[..., None])
                _SIGN.take(held_mask.view(np.int8), out=grasped)
                if self._feeds_any:
                    self._growing_rows |= holding & self._feeds_row
            else:
                grasped.fill(-1.0)
        else:  # every gripper open: nothing is held
            held = self._no_object.copy()
            grasped.fill(-1.0)
        self.held = held

        # Growth: contacts change only when something moves, or while something grows.
        if self._feeds_any and np.count_nonzero(self._growing_rows):
            self._grow()
        self.num_steps += 1
        return self.observation()

    def _grow(self) -> None:
        """Living things touching a supply that feeds them grow by 0.04, up to 0.34.

        Only the scenes flagged in `_growing_rows` (something carried, or something that grew
        at the previous step) are checked: other scenes cannot have a new contact.
        """
        rows = self._rows[self._growing_rows]
        size, position = self.object_size[rows], self.object_position[rows]
        offset = position[:, :, None, :] - position[:, None, :, :]
        reach_sum = (size[:, :, None] + size[:, None, :]) * np.float32(0.5)
        touching = (np.square(offset).sum(axis=3) < np.square(reach_sum)) & self._feeds[rows]
        grows = touching.any(axis=2) & (size < np.float32(MAX_SIZE))  # [R, N]
        growing = grows.any(axis=1)
        self._growing_rows[rows] = growing
        if np.count_nonzero(growing):
            self.growth_steps += 1
            size = np.minimum(size + grows * np.float32(GROWTH_PER_STEP), np.float32(MAX_SIZE))
            self.object_size[rows] = size
            self._reach2[rows] = _grasp_radius2(size)

    def _out_of_reach(self, reach2: np.ndarray) -> np.ndarray:
        """bool [B]: the held object is out of the moved hand's reach (see `_held_reach`)."""
        return self._held_reach(reach2) == _OUT_OF_REACH

    def _held_reach(self, reach2: np.ndarray) -> np.ndarray:
        """int8 [B]: per scene, 0 (nothing held), `_IN_REACH` or `_OUT_OF_REACH`: where the
        held object (still at its previous position) is for the moved hand, under the squared
        reach radii ``reach2`` [B, N]."""
        held = self.held
        holding = np.greater_equal(held, self._zero_index)
        if not np.count_nonzero(holding):
            return np.zeros(self.batch_size, dtype=np.int8)
        index = np.maximum(held, 0)
        gap = self.object_position[self._rows, index] - self.hand_position
        near = np.add.reduce(np.square(gap), axis=1) < reach2[self._rows, index]
        return np.where(holding, np.where(near, _IN_REACH, _OUT_OF_REACH), 0).astype(np.int8)

    def _step_in_list_order(self, closed: np.ndarray) -> np.ndarray:
        """Growth, grasp and carry as the authors' per-object loop (module docstring), for
        every scene at once; the hand has moved and ``closed`` (bool [B]) is the gripper.
        Returns s_t, float32 [B, 2D]."""
        size, position, feeds = self.object_size, self.object_position, self._feeds
        new_size = size.copy()
        # Rows where a contact can be new: something moved or grew at the last step, or a
        # supply may move now; the others had no contact then and have none now.
        check = self._growing_rows | np.greater_equal(self.held, 0) | closed
        rows = self._rows[check & self._feeds_row] if self._feeds_any else self._rows[:0]
        if rows.size:  # first as if nothing moved: exact up to the object that moves
            new_size[rows] = _grown_in_list_order(size[rows], position[rows], feeds[rows])
        reach2 = _grasp_radius2(new_size)
        held = self._grasp_in_list_order(closed, reach2)
        if rows.size:  # a carried supply is seen at the hand by the living things after it
            mover = held[rows]
            later = np.arange(self.config.num_objects)[None, :] > mover[:, None]  # [R, N]
            fed = feeds[rows, :, np.maximum(mover, 0)] & later & (mover >= 0)[:, None]
            again = rows[fed.any(axis=1)]
            if again.size:
                new_size[again] = _grown_in_list_order(
                    size[again],
                    position[again],
                    feeds[again],
                    held[again],
                    self.hand_position[again],
                )
                reach2[again] = _grasp_radius2(new_size[again])
        grew = np.not_equal(new_size, size).any(axis=1)
        if np.count_nonzero(grew):
            self.growth_steps += 1
        self._growing_rows = grew
        size[:] = new_size
        self._reach2 = reach2
        held_mask = np.equal(held[:, None], self._object_index)  # [B, N]
        np.copyto(position, self.hand_position[:, None, :], where=held_mask[..., None])
        _SIGN.take(held_mask.view(np.int8), out=self._grasped)
        self.held = held
        self.num_steps += 1
        return self.observation()

    def _grasp_in_list_order(self, closed: np.ndarray, reach2: np.ndarray) -> np.ndarray:
        """The held object after the grasp test (int64 [B], -1 none), on the previous object
        positions and the grown reach radii ``reach2`` [B, N]: a held object stays held while
        the gripper is closed (or, "in_reach", open out of reach); an empty closed gripper
        takes the first reachable object in list order."""
        where = self._held_reach(reach2)
        holding = where != 0
        keep = holding & closed
        if self._release_in_reach:
            keep |= where == _OUT_OF_REACH
        gap = self.object_position - self.hand_position[:, None, :]
        np.less(np.add.reduce(np.square(gap), axis=2), reach2, out=self._reach[:, :-1])
        first = self._first_or_none[self._reach.argmax(axis=1)]
        return np.where(keep, self.held, np.where(closed & ~holding, first, NO_OBJECT))

    # ------------------------------------------------------------------------------------------
    def observation(self) -> np.ndarray:
        """A fresh copy of s_t = [o_t, o_t - o_0], float32 [B, 2D].

        One subtraction builds it: [o_t, o_t] (a stride-0 view of o_t) minus [0, o_0].
        """
        both = np.subtract(self._current_twice, self._zero_and_initial)  # [B, 2, D]
        return both.reshape(self.batch_size, 2 * self._step_dim)


_ONE_HOT = np.eye(ontology.NUM_TYPES, dtype=np.float32)
_HAND_SIZE, _HALF = np.float32(HAND_SIZE), np.float32(0.5)


def _grasp_radius2(size: np.ndarray) -> np.ndarray:
    """Squared grasp radius per object, ((size + 0.05) / 2)^2, float32, shape of `size`."""
    return np.square((size + _HAND_SIZE) * _HALF)


_SIGN = np.array([-1.0, 1.0], dtype=np.float32)  # False -> -1, True -> +1
# `_held_reach` codes (0: nothing held).
_IN_REACH, _OUT_OF_REACH = 1, 2


def _grown_in_list_order(size, position, feeds, mover=None, hand=None) -> np.ndarray:
    """Sizes after the authors' growth checks, float32 [R, N].

    Living thing i checks the supplies j in list order, each at its previous position
    ``position`` [R, N, 2] (or at ``hand`` [R, 2] when j is ``mover`` [R] and j < i: carried
    before i's turn), against its own previous position and current size, and grows by 0.04
    (capped at 0.34) per touching supply. ``feeds`` [R, N, N]: [r, i, j] j feeds i.
    """
    gap2 = np.square(position[:, None, :, :] - position[:, :, None, :]).sum(axis=3)  # [R, i, j]
    if mover is not None:
        index = np.arange(size.shape[1])
        at_hand = np.square(hand[:, None, :] - position).sum(axis=2)  # [R, i]
        seen = (index[None, None, :] == mover[:, None, None]) & (index[:, None] > index)[None]
        gap2 = np.where(seen, at_hand[:, :, None], gap2)
    grown = size.copy()
    for j in np.flatnonzero(feeds.any(axis=(0, 1))):  # the supply slots, in list order
        touching = feeds[:, :, j] & (gap2[:, :, j] < np.square((grown + size[:, j, None]) * _HALF))
        grown = np.minimum(grown + touching * np.float32(GROWTH_PER_STEP), np.float32(MAX_SIZE))
    return grown
