"""Whole-episode FIFO replay with goal-biased sampling (Colas et al. 2020; Karch, Colas et al. 2020; flowersteam/Imagine).

Storage, per episode (ring buffer of `capacity` episodes, numpy):

* o_0..o_T, float32 [T + 1, 3 + 39 N] — only the observed part; the state the networks see,
  s_t = [o_t, o_t − o_0], is rebuilt when sampling (half the memory of storing s_t);
* a_0..a_{T−1}, float32 [T, A];
* the target goal's id and its embedding at collection time (kept: relabelled goals use the
  current embeddings, the original goal the one it was collected with, as the reference);
* which discovered goals the partner said the final state achieves: bool [capacity, G_max].

Goal-biased sampling: a goal uniformly among the goals achieved by some stored final state,
then an episode uniformly among those that achieved it (the same episode can be in several
goals' lists), then t uniform in [0, T − 1]. With no achieved goal yet: uniform episodes. The
per-goal lists are a CSR index rebuilt at each `add` (once per cycle), so sampling a batch is a
handful of vectorised numpy operations.

Memory: 50,000 episodes of N = 3 take 50,000 × (51 × 120 + 50 × 3 + 100) × 4 B ≈ 1.3 GB
(checkpointed incrementally by `imagine_tf.runs.replay_checkpoint`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from imagine_tf.runs.rng_state import decode_rng_state, encode_rng_state

# The per-episode arrays of the ring buffer, indexed by slot.
EPISODE_FIELDS = ("observations", "actions", "goal_ids", "goal_embeddings", "achieved")


@dataclasses.dataclass
class TransitionBatch:
    """B sampled transitions (numpy).

    Attributes:
      states, next_states: s_t and s_{t+1}, float32 [B, 2 (3 + 39 N)].
      actions: a_t, float32 [B, A].
      goal_ids: the episodes' target goals, int64 [B].
      goal_embeddings: their embeddings at collection time, float32 [B, E].
      episodes, steps: where they come from, int64 [B].
      sampled_goal_ids: the goal each episode was drawn for by goal-biased sampling (its final
        state achieved it), int64 [B]; −1 where the sampling was uniform.
    """

    states: np.ndarray
    next_states: np.ndarray
    actions: np.ndarray
    goal_ids: np.ndarray
    goal_embeddings: np.ndarray
    episodes: np.ndarray
    steps: np.ndarray
    sampled_goal_ids: np.ndarray


class EpisodeReplay:
    """FIFO of whole episodes with the reference's goal-biased sampling.

    Args:
      capacity: episodes kept (the oldest are overwritten).
      episode_length: T (50).
      observation_dim: 3 + 39 N.
      action_dim: A (3).
      embedding_dim: E (100).
      max_goals: G_max, the most discovered goals to track.
      seed: sampling seed.
    """

    #: Its per-episode arrays (what `imagine_tf.runs.replay_checkpoint` saves of an episode).
    episode_fields = EPISODE_FIELDS

    def __init__(
        self,
        capacity: int,
        episode_length: int,
        observation_dim: int,
        action_dim: int = 3,
        embedding_dim: int = 100,
        max_goals: int = 512,
        seed: int | None = None,
    ):
        if capacity < 1 or episode_length < 1:
            raise ValueError(
                f"capacity and episode_length must be >= 1, got {capacity}, {episode_length}."
            )
        self.capacity, self.episode_length, self.max_goals = capacity, episode_length, max_goals
        self.observations = np.zeros((capacity, episode_length + 1, observation_dim), np.float32)
        self.actions = np.zeros((capacity, episode_length, action_dim), np.float32)
        self.goal_ids = np.zeros(capacity, np.int64)
        self.goal_embeddings = np.zeros((capacity, embedding_dim), np.float32)
        self.achieved = np.zeros((capacity, max_goals), bool)
        self.size, self.next_index, self.episodes_added = 0, 0, 0
        self.used_goals = 0  # goal columns ever given: the index covers only these
        self.rng = np.random.default_rng(seed)
        self._index_goals()

    def add(
        self,
        observations: np.ndarray,
        actions: np.ndarray,
        goal_ids: np.ndarray,
        goal_embeddings: np.ndarray,
        achieved: np.ndarray,
    ) -> np.ndarray:
        """Stores B episodes; returns the slots they went to, int64 [B].

        Args:
          observations: o_0..o_T, [B, T + 1, 3 + 39 N] (or full states [B, T + 1, 2 (3 + 39 N)],
            whose first half is kept).
          actions: [B, T, A]; goal_ids: [B]; goal_embeddings: [B, E].
          achieved: bool [B, G ≤ G_max], the discovered goals the partner said s_T achieves.
        """
        observations = np.asarray(observations, np.float32)
        if observations.shape[-1] == 2 * self.observations.shape[-1]:
            observations = observations[..., : self.observations.shape[-1]]
        count = len(observations)
        expected = (count, self.episode_length + 1, self.observations.shape[-1])
        if observations.shape != expected:
            raise ValueError(f"observations must have shape {expected}, got {observations.shape}.")
        achieved = np.asarray(achieved, bool)
        if achieved.shape[1] > self.max_goals:
            raise ValueError(
                f"{achieved.shape[1]} goals given, the replay tracks at most max_goals = {self.max_goals}; "
                "make the replay with a larger max_goals."
            )
        slots = (self.next_index + np.arange(count)) % self.capacity
        self.observations[slots] = observations
        self.actions[slots] = actions
        self.goal_ids[slots] = goal_ids
        self.goal_embeddings[slots] = goal_embeddings
        self.achieved[slots] = False
        self.achieved[slots, : achieved.shape[1]] = achieved
        self.used_goals = max(self.used_goals, achieved.shape[1])
        self.next_index = int((self.next_index + count) % self.capacity)
        self.size = min(self.size + count, self.capacity)
        self.episodes_added += count
        self._index_goals()
        return slots

    def _index_goals(self) -> None:
        """CSR index: for every goal, the stored episodes whose final state achieved it."""
        goals, episodes = np.nonzero(self.achieved[: self.size, : self.used_goals].T)  # by goal
        self._episodes_by_goal = episodes
        self._goal_count = np.bincount(goals, minlength=self.max_goals)
        self._goal_start = np.concatenate([[0], np.cumsum(self._goal_count)[:-1]])
        self._reached_goals = np.flatnonzero(self._goal_count)

    @property
    def reached_goals(self) -> np.ndarray:
        """Ids of the goals some stored final state achieved."""
        return self._reached_goals

    def sample_episodes(self, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
        """Episode slots, goal-biased (uniform while no goal is reached), and the goals they
        were drawn for (−1: uniform), int64 [B] each."""
        if self.size == 0:
            raise ValueError("The replay is empty: add episodes before sampling.")
        if self._reached_goals.size == 0:
            return self.rng.integers(0, self.size, batch_size), np.full(batch_size, -1, np.int64)
        goals = self._reached_goals[self.rng.integers(0, self._reached_goals.size, batch_size)]
        offsets = (self.rng.random(batch_size) * self._goal_count[goals]).astype(np.int64)
        return self._episodes_by_goal[self._goal_start[goals] + offsets], goals.astype(np.int64)

    def sample(self, batch_size: int) -> TransitionBatch:
        """B transitions (s_t, a_t, s_{t+1}) of goal-biased episodes, t uniform in [0, T − 1]:
        a cycle of one batch (`sample_cycle`), with s = [o, o − o_0]."""
        one = {name: values[0] for name, values in self.sample_cycle(1, batch_size).items()}
        first = one["first_observations"]
        return TransitionBatch(
            states=np.concatenate([one["observations"], one["observations"] - first], axis=1),
            next_states=np.concatenate(
                [one["next_observations"], one["next_observations"] - first], axis=1
            ),
            actions=one["actions"],
            goal_ids=one["goal_ids"],
            goal_embeddings=one["goal_embeddings"],
            episodes=one["episodes"],
            steps=one["steps"],
            sampled_goal_ids=one["sampled_goal_ids"],
        )

    def sample_cycle(self, count: int, batch_size: int) -> dict[str, np.ndarray]:
        """``count`` batches of goal-biased transitions, drawn one after the other, as arrays
        [U, B, ...] filled in place: the observations o_0, o_t, o_{t+1} (the update builds
        s = [o, o − o_0] in its graph), a_t, the goal ids and embeddings, the goals the
        episodes were drawn for (``sampled_goal_ids``, −1: uniform), and where they come from
        (``episodes``, ``steps``)."""
        dims = self.observations.shape[-1], self.actions.shape[-1], self.goal_embeddings.shape[-1]
        shape = (count, batch_size)
        cycle = {
            "first_observations": np.empty((*shape, dims[0]), np.float32),
            "observations": np.empty((*shape, dims[0]), np.float32),
            "next_observations": np.empty((*shape, dims[0]), np.float32),
            "actions": np.empty((*shape, dims[1]), np.float32),
            "goal_ids": np.empty(shape, np.int64),
            "goal_embeddings": np.empty((*shape, dims[2]), np.float32),
            "sampled_goal_ids": np.empty(shape, np.int64),
            "episodes": np.empty(shape, np.int64),
            "steps": np.empty(shape, np.int64),
        }
        for i in range(count):
            episodes, cycle["sampled_goal_ids"][i] = self.sample_episodes(batch_size)
            steps = self.rng.integers(0, self.episode_length, batch_size)
            cycle["episodes"][i], cycle["steps"][i] = episodes, steps
            cycle["first_observations"][i] = self.observations[episodes, 0]
            cycle["observations"][i] = self.observations[episodes, steps]
            cycle["next_observations"][i] = self.observations[episodes, steps + 1]
            cycle["actions"][i] = self.actions[episodes, steps]
            cycle["goal_ids"][i] = self.goal_ids[episodes]
            cycle["goal_embeddings"][i] = self.goal_embeddings[episodes]
        return cycle

    def put(self, name: str, slots: np.ndarray, values: np.ndarray) -> None:
        """Writes one `EPISODE_FIELDS` array at slots (``achieved`` may have fewer goal
        columns than this replay: a checkpoint of a run with a smaller max_goals)."""
        if name == "achieved":
            self.achieved[slots] = False
            self.achieved[slots, : values.shape[1]] = values
            self.used_goals = max(self.used_goals, values.shape[1])
        else:
            getattr(self, name)[slots] = values

    def set_counters(self, episodes_added: int) -> None:
        """Sets the counters for ``episodes_added`` episodes already in their slots (e mod
        capacity), as an incremental restore leaves them, and rebuilds the goal index."""
        self.episodes_added = int(episodes_added)
        self.size = min(self.episodes_added, self.capacity)
        self.next_index = self.episodes_added % self.capacity
        self._index_goals()

    def state_dict(self, include_episodes: bool = True) -> dict:
        """Everything needed to restore the replay: counters, RNG state and (unless a
        `ReplayCheckpoint` keeps them) the episodes."""
        state = {
            "next_index": np.int64(self.next_index),
            "episodes_added": np.int64(self.episodes_added),
            "rng_state": encode_rng_state(self.rng),
        }
        if include_episodes:
            used = slice(0, self.size)
            state.update({name: getattr(self, name)[used] for name in EPISODE_FIELDS})
        return state

    def load_state_dict(self, state: dict) -> None:
        """Restores what `state_dict` returned (same capacity and shapes). Without episodes,
        only the counters and RNG: the episodes must already be in their slots."""
        decode_rng_state(self.rng, state["rng_state"])
        if "observations" not in state:
            self.set_counters(int(state["episodes_added"]))
            return
        size = len(state["observations"])
        if size > self.capacity:
            raise ValueError(
                f"The saved replay holds {size} episodes, more than capacity {self.capacity}."
            )
        for name in EPISODE_FIELDS:
            self.put(name, np.arange(size), state[name])
        self.size, self.next_index = size, int(state["next_index"])
        self.episodes_added = int(state["episodes_added"])
        self._index_goals()
