"""What actors and the learner exchange: episode batches one way, the goal view the other.

Both convert to flat dicts of numpy arrays (`to_arrays` / `from_arrays`) for the replay
server; in one process they are handed over as they are.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np

from imagine_tf.distributed.codec import array_text, text_array


@dataclasses.dataclass
class EpisodeBatch:
    """B episodes an actor played, with what the social partner said of their final states.

    Attributes:
      observations: o_0..o_T, float32 [B, T + 1, 3 + 39 N] (the state the networks read,
        s_t = [o_t, o_t − o_0], is rebuilt from them).
      actions: a_0..a_{T−1} as drawn (unclipped), float32 [B, T, 3].
      goal_ids: the pursued goals' discovered ids, int64 [B] (−1: the placeholder goal
        before any discovery).
      goal_embeddings: the embeddings the policy pursued them with, float32 [B, E].
      descriptions: the partner's descriptions of s_T over its goals, bool [B, partner goals].
      final_states: s_T as the environment gave it, float32 [B, 2 (3 + 39 N)] (what the partner
        describes and the reward memory stores; rebuilt from the observations if not given).
      policy_step: the learner's train step of the weights that played them.
      actor_id: which actor played them.
    """

    observations: np.ndarray
    actions: np.ndarray
    goal_ids: np.ndarray
    goal_embeddings: np.ndarray
    descriptions: np.ndarray
    final_states: np.ndarray | None = None
    policy_step: int = 0
    actor_id: int = 0

    def __post_init__(self):
        if self.final_states is None:
            final = self.observations[:, -1]
            self.final_states = np.concatenate([final, final - self.observations[:, 0]], axis=-1)

    def __len__(self) -> int:
        return len(self.observations)

    @property
    def states(self) -> np.ndarray:
        """s_0..s_T, float32 [B, T + 1, 2 (3 + 39 N)]."""
        return np.concatenate(
            [self.observations, self.observations - self.observations[:, :1]], axis=-1
        )

    def to_arrays(self) -> dict[str, np.ndarray]:
        arrays = {
            field.name: np.asarray(getattr(self, field.name)) for field in dataclasses.fields(self)
        }
        arrays["descriptions"] = np.packbits(self.descriptions, axis=-1)
        arrays["num_partner_goals"] = np.int64(self.descriptions.shape[-1])
        return arrays

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "EpisodeBatch":
        count = int(arrays["num_partner_goals"])
        descriptions = np.unpackbits(arrays["descriptions"], axis=-1, count=count).astype(bool)
        return cls(
            observations=arrays["observations"],
            actions=arrays["actions"],
            goal_ids=arrays["goal_ids"].astype(np.int64),
            goal_embeddings=arrays["goal_embeddings"],
            descriptions=descriptions,
            final_states=arrays["final_states"],
            policy_step=int(arrays["policy_step"]),
            actor_id=int(arrays["actor_id"]),
        )


@dataclasses.dataclass
class GoalView:
    """What actors need of the learner's goals: the known goals and their embeddings.

    Attributes:
      sentences: the known goals (discovered and imagined) in order of arrival (index = id).
      embeddings: their current embeddings (the reward model's encoder), float32 [G, E].
      imagined: bool [G], which ones are imagined (not discovered).
      imagining: whether imagination is on (targets may then be imagined goals).
    """

    sentences: list[str]
    embeddings: np.ndarray
    imagined: np.ndarray | None = None
    imagining: bool = False

    def __post_init__(self):
        if self.imagined is None:
            self.imagined = np.zeros(len(self.sentences), bool)

    def __len__(self) -> int:
        return len(self.sentences)


@dataclasses.dataclass
class PolicySnapshot:
    """The learner's published state: actor weights, goals, counters (one item of the
    replay server's variable table).

    Attributes:
      weights: the actor network's weights (`ActorNetwork.get_weights` order).
      goals: the `GoalView`.
      train_step: the learner's DDPG update count.
      epoch: the learner's epoch.
      goals_version: changes whenever the goals or their embeddings change.
      finished: the learner reached its last epoch: actors stop.
    """

    weights: list[np.ndarray]
    goals: GoalView
    train_step: int
    epoch: int
    goals_version: int = 0
    finished: bool = False

    def to_arrays(self) -> dict[str, np.ndarray]:
        arrays = {f"weight_{i:04d}": w for i, w in enumerate(self.weights)}
        arrays.update(
            goal_sentences=text_array(json.dumps(self.goals.sentences)),
            goal_embeddings=np.asarray(self.goals.embeddings, np.float32),
            goal_imagined=np.asarray(self.goals.imagined, bool),
            imagining=np.bool_(self.goals.imagining),
            train_step=np.int64(self.train_step),
            epoch=np.int64(self.epoch),
            goals_version=np.int64(self.goals_version),
            finished=np.bool_(self.finished),
        )
        return arrays

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "PolicySnapshot":
        names = sorted(k for k in arrays if k.startswith("weight_"))
        sentences = json.loads(array_text(arrays["goal_sentences"]))
        goals = GoalView(
            sentences,
            arrays["goal_embeddings"],
            arrays["goal_imagined"].astype(bool),
            bool(arrays["imagining"]),
        )
        return cls(
            weights=[arrays[name] for name in names],
            goals=goals,
            train_step=int(arrays["train_step"]),
            epoch=int(arrays["epoch"]),
            goals_version=int(arrays["goals_version"]),
            finished=bool(arrays["finished"]),
        )
