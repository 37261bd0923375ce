"""A scripted expert that reaches any achievable goal from the observation, vectorised over B.

It is the upper bound for success rates and the generator of rich trajectory data:

* Go: move to a point well inside the zone (gripper open).
* Grasp: move to the nearest object with the goal's colour and name with the gripper open,
  close it on arrival, then hold still. A wrong object in hand is released first.
* Grow: fetch the nearest supply that feeds a matching living thing (water for plants, food or
  water for animals), carry it onto that living thing and stay there.
* Grasp any <rel> X thing: grasp an object that was initially <rel> some other object matching X.

Actions are clipped to [-1, 1]; ``noise_std`` adds Gaussian noise to every dimension (the
environment clips executed actions). `ScriptedPyPolicy` wraps it as a TF-Agents `PyPolicy`
reading ``observation["goal"]`` token ids.
"""

from __future__ import annotations

import numpy as np
from tf_agents.policies import py_policy
from tf_agents.trajectories import policy_step

from imagine_tf.env import ontology
from imagine_tf.env.config import ACTION_SCALE, HAND_SIZE
from imagine_tf.env.observation import decode_observation
from imagine_tf.env.scene_generation import relation_holds
from imagine_tf.language.goal_table import (
    VERB_GO,
    VERB_GROW,
    VERB_RELATIONAL,
    GoalTable,
)
from imagine_tf.language.oracle import matching_objects

# How far inside a half-open Go zone the policy aims.
_ZONE_MARGIN = 0.4
_NONE = -1


class ScriptedPolicy:
    """Goal-reaching expert over batches of observations.

    Args:
      table: the goals (ids index it).
      noise_std: standard deviation of Gaussian action noise (0 = deterministic).
      seed: seed of the noise.
    """

    def __init__(self, table: GoalTable, noise_std: float = 0.0, seed: int | None = None):
        if noise_std < 0:
            raise ValueError(f"noise_std must be >= 0, got {noise_std!r}.")
        self.table = table
        self.noise_std = float(noise_std)
        self._rng = np.random.default_rng(seed)
        zone = table.zone
        low, high = zone[:, [0, 2]], zone[:, [1, 3]]
        finite_low, finite_high = np.isfinite(low), np.isfinite(high)
        low, high = np.where(finite_low, low, 0.0), np.where(finite_high, high, 0.0)
        # [G, 2]: the zone's centre, or a point _ZONE_MARGIN inside a half-open side.
        self._zone_target = np.where(
            finite_low & finite_high,
            (low + high) / 2,
            np.where(finite_high, high - _ZONE_MARGIN, low + _ZONE_MARGIN),
        )
        self._zone_free = ~(finite_low | finite_high)  # [G, 2]: the axis is unconstrained

    def action(self, states: np.ndarray, goal_ids: np.ndarray) -> np.ndarray:
        """Actions for states s_t [B, D] pursuing goals [B]; float32 [B, 3]."""
        facts = decode_observation(states)
        goal_ids = np.asarray(goal_ids, dtype=np.int64)
        batch = facts.batch_size
        rows = np.arange(batch)
        verb = self.table.verb[goal_ids]
        hand = facts.hand_position.astype(np.float64)
        position = facts.object_position.astype(np.float64)
        holding = facts.held.any(axis=1)
        held_index = np.where(holding, facts.held.argmax(axis=1), _NONE)

        # Which object to grasp, per goal family.
        matching = matching_objects(facts, self.table, goal_ids)  # [B, N]
        distance = np.linalg.norm(position - hand[:, None, :], axis=2)
        # Grow: a supply s feeding a matching living thing l; carry s onto l.
        has_pair, feeder, recipient = _grow_pair(facts, matching, distance, held_index)
        # Relational: an object initially <rel> another object that matches the reference.
        relative_ok = self._relational_candidates(facts, goal_ids, matching)

        grasp_ok = np.where((verb == VERB_RELATIONAL)[:, None], relative_ok, matching)
        keep = (held_index >= 0) & grasp_ok[rows, np.maximum(held_index, 0)]
        grasp_target = np.where(keep, held_index, _nearest(grasp_ok, distance))
        grasp_target = np.where(verb == VERB_GROW, feeder, grasp_target)

        # Default: fetch-and-grasp `grasp_target`.
        target_position = np.where(
            (grasp_target >= 0)[:, None], position[rows, np.maximum(grasp_target, 0)], hand
        )
        in_hand = (grasp_target >= 0) & (held_index == grasp_target)
        wrong_in_hand = holding & ~in_hand
        move = _move_towards(hand, target_position)
        arrived = np.linalg.norm(hand + move * ACTION_SCALE - target_position, axis=1)
        radius = (facts.object_size[rows, np.maximum(grasp_target, 0)] + HAND_SIZE) / 2
        close = in_hand | ((grasp_target >= 0) & ~wrong_in_hand & (arrived < 0.5 * radius))
        move = np.where(in_hand[:, None], 0.0, move)
        # Grow: once the feeder is in hand, carry it onto the recipient.
        carrying = (verb == VERB_GROW) & in_hand & has_pair & (recipient >= 0)
        onto = position[rows, np.maximum(recipient, 0)]
        move = np.where(carrying[:, None], _move_towards(hand, onto), move)
        # Go: into the zone, gripper open.
        go = verb == VERB_GO
        zone_target = np.where(self._zone_free[goal_ids], hand, self._zone_target[goal_ids])
        move = np.where(go[:, None], _move_towards(hand, zone_target), move)
        close &= ~go

        action = np.concatenate([move, np.where(close, 1.0, -1.0)[:, None]], axis=1)
        if self.noise_std > 0:
            action = action + self._rng.normal(0.0, self.noise_std, size=action.shape)
        return np.clip(action, -1.0, 1.0).astype(np.float32)

    def _relational_candidates(
        self, facts, goal_ids: np.ndarray, matching: np.ndarray
    ) -> np.ndarray:
        """bool [B, N]: objects that match the goal and were initially <relation> another
        object that matches the goal's reference."""
        reference = matching_objects(facts, self.table, goal_ids, reference=True)
        relation = self.table.relation[goal_ids]
        initial = facts.initial_position
        holds = relation_holds(
            initial[:, :, None, :], initial[:, None, :, :], relation[:, None, None]
        )
        other = ~np.eye(facts.num_objects, dtype=bool)
        return (holds & other & reference[:, None, :]).any(axis=2) & matching


def _grow_pair(
    facts, matching: np.ndarray, distance: np.ndarray, held_index: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A grow goal's supply s feeding a matching living thing l: whether one exists, bool [B];
    the feeder (the held supply, else the nearest), and its recipient, int [B] (-1: none).
    ``matching``: bool [B, N]; ``distance``: [B, N] from the hand; ``held_index``: [B]."""
    rows = np.arange(facts.batch_size)
    living = ontology.IS_LIVING[facts.object_type]
    feeds = ontology.FEEDS[facts.object_type[:, None, :], facts.object_type[:, :, None]]
    pairs = feeds & (matching & living)[:, :, None]  # [B, l, s]
    has_pair = pairs.any(axis=(1, 2))
    supply_ok = pairs.any(axis=1)  # [B, s]
    supply = _nearest(supply_ok, distance)
    carried = (held_index >= 0) & supply_ok[rows, np.maximum(held_index, 0)]
    feeder = np.where(carried, held_index, supply)
    recipient = _first(pairs[rows, :, np.maximum(feeder, 0)])
    return has_pair, feeder, recipient


def _move_towards(hand: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The (dx, dy) action reaching `target` as fast as the 0.15-per-step speed allows."""
    return np.clip((target - hand) / ACTION_SCALE, -1.0, 1.0)


def _nearest(candidates: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """Index of the nearest candidate object per row [B], -1 if none."""
    masked = np.where(candidates, distance, np.inf)
    return np.where(candidates.any(axis=1), masked.argmin(axis=1), _NONE)


def _first(candidates: np.ndarray) -> np.ndarray:
    """Index of the first candidate per row [B], -1 if none."""
    return np.where(candidates.any(axis=1), candidates.argmax(axis=1), _NONE)


class ScriptedPyPolicy(py_policy.PyPolicy):
    """`ScriptedPolicy` as a TF-Agents `PyPolicy` for a batched `PlaygroundEnv`.

    Goals are read from ``time_step.observation["goal"]`` (token ids) and looked up in the
    goal source's vocabulary-encoded table.

    Args:
      time_step_spec, action_spec: the environment's specs.
      table: the goal table of the environment's goal source.
      goal_tokens: int32 [G, L] token ids of every goal of the table.
      noise_std, seed: see `ScriptedPolicy`.
    """

    def __init__(self, time_step_spec, action_spec, table, goal_tokens, noise_std=0.0, seed=None):
        super().__init__(time_step_spec, action_spec)
        self._policy = ScriptedPolicy(table, noise_std=noise_std, seed=seed)
        self._goal_of_tokens = {row.tobytes(): i for i, row in enumerate(goal_tokens)}

    @classmethod
    def from_env(cls, env, noise_std: float = 0.0, seed: int | None = None) -> "ScriptedPyPolicy":
        """The expert for a `PlaygroundEnv` whose goal source is a `GoalCatalog`."""
        catalog = env.goal_source
        return cls(
            env.time_step_spec(),
            env.action_spec(),
            catalog.table,
            catalog.goal_tokens,
            noise_std=noise_std,
            seed=seed,
        )

    def _action(self, time_step, policy_state):
        observation = time_step.observation
        tokens = np.asarray(observation["goal"], dtype=np.int32)
        try:
            goal_ids = np.array([self._goal_of_tokens[row.tobytes()] for row in tokens])
        except KeyError as error:
            raise ValueError(
                "The scripted policy got goal tokens that match no goal of its table; build it "
                "from the same goal source as the environment."
            ) from error
        action = self._policy.action(observation["state"], goal_ids)
        return policy_step.PolicyStep(action, policy_state, ())
