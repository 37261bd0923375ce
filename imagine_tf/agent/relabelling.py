"""Hindsight relabelling with a goal scorer, fully tensorized (Colas et al. 2020; Karch, Colas et al. 2020; flowersteam/Imagine).

Per update, for B transitions and K = min(50, known goals) candidate goals (the same for the
batch; with goal imagination on, half of them imagined goals, `sample_candidates`):

1. one batched call scores every (transition, candidate) pair: bool [B, K] (`GoalScorer.scan`,
   on s_t as the reference — "current" — or on s_{t+1} — "next", the usual convention);
2. walking the transitions in order, the first ⌊ρ B⌋ (ρ = 0.5) that have a positive candidate
   take a random positive candidate as their goal (r = 0);
3. every other transition takes a random negative candidate (r = −1);
4. a transition with no negative candidate (all K positive) and not taken in 2 keeps its own
   goal, rewarded by the scorer (`GoalScorer.score`).

Option, not in the reference: ``final_goal_ratio`` φ > 0 gives the first ⌊φ B⌋ transitions the
goal their episode was drawn for by goal-biased sampling (its final state achieved it: HER's
"final" strategy), rewarded by the scorer, before steps 2–4 balance the others (⌊ρ × the rest⌋
positives). The reference's random candidates rarely pair the steps *before* an achievement
with the goal achieved later, which is what carries the value of a two-stage goal (Grow: fetch
a supply, then bring it) back to its first steps.

The selection is masks, cumulative sums and arg-maxes of random keys: no Python loop over
transitions, and it runs inside the `tf.function` of the update. Choice (documented): where the
reference fills the last slots with *repeated* positive transitions given a negative goal, case
4 keeps the transition's own goal instead (one output row per sampled transition); this only
happens when all K candidates are positive for a transition. The batch is not reshuffled: the
losses are means over the batch. Rewards are in {−1, 0}.

Scorers: `LearnedRewardScorer` (the reward network, R > 0.5) and `OracleScorer` (the oracle's
rules, through `tf.numpy_function`), for ablations and fast baselines: same code path.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import numpy as np
import tensorflow as tf

from imagine_tf.language import oracle
from imagine_tf.language.goal_table import GoalTable


class GoalScorer(Protocol):
    """Says which goals states achieve."""

    def scan(self, states: tf.Tensor, goal_ids: tf.Tensor, goal_embeddings: tf.Tensor) -> tf.Tensor:
        """bool [B, K]: states [B, D] × K goals (ids [K], embeddings [K, E])."""

    def scan_many(
        self, states: tf.Tensor, goal_ids: tf.Tensor, goal_embeddings: tf.Tensor
    ) -> tf.Tensor:
        """bool [U, B, K]: `scan` of U batches, states [U, B, D] × their goals (ids [U, K],
        embeddings [U, K, E])."""

    def score(
        self, states: tf.Tensor, goal_ids: tf.Tensor, goal_embeddings: tf.Tensor
    ) -> tf.Tensor:
        """bool [B]: state i × goal i (ids [B], embeddings [B, E])."""


class LearnedRewardScorer:
    """The learned reward: achieved iff R(s, g) > threshold (0.5). Ids are not used.

    ``compute_dtype="bfloat16"`` scans in bfloat16 (`RewardNetwork.scan`; MA and FA rewards).
    """

    def __init__(self, reward_network, threshold: float = 0.5, compute_dtype: str = "float32"):
        self.reward_network, self.threshold = reward_network, threshold
        self.compute_dtype = compute_dtype

    def scan(self, states, goal_ids, goal_embeddings):
        structured = self.reward_network.architecture == "ma"  # relabelled states are the env's
        probabilities = self.reward_network.scan(
            states, goal_embeddings, playground_states=structured, compute_dtype=self.compute_dtype
        )
        return probabilities > self.threshold

    def scan_many(self, states, goal_ids, goal_embeddings):
        # one batch at a time in a loop: the scan's hidden layer of U batches at once would be
        # U·B·N·K·H floats (50 × 256 × 3 × 50 × 100: 768 MB)
        return tf.map_fn(
            lambda pair: self.scan(pair[0], None, pair[1]),
            (states, goal_embeddings),
            fn_output_signature=tf.bool,
        )

    def score(self, states, goal_ids, goal_embeddings):
        return self.reward_network.head(states, goal_embeddings) > self.threshold


class OracleScorer:
    """The oracle's rules on goal ids of a goal table. Embeddings are not used."""

    def __init__(self, goal_table: GoalTable):
        self.goal_table = goal_table

    def _achieved(self, states: np.ndarray) -> np.ndarray:
        return oracle.achieved_matrix(states, self.goal_table)  # [B, G]

    def scan(self, states, goal_ids, goal_embeddings):
        def matrix(states, goal_ids):
            return self._achieved(states)[:, goal_ids]

        result = tf.numpy_function(matrix, [states, goal_ids], tf.bool)
        return tf.ensure_shape(result, [states.shape[0], goal_ids.shape[0]])

    def scan_many(self, states, goal_ids, goal_embeddings):
        def matrices(states, goal_ids):  # the rules once on the U·B states
            achieved = self._achieved(states.reshape(-1, states.shape[-1]))
            achieved = achieved.reshape(*states.shape[:2], -1)
            return np.take_along_axis(achieved, goal_ids[:, None, :], axis=2)

        result = tf.numpy_function(matrices, [states, goal_ids], tf.bool)
        return tf.ensure_shape(result, [*states.shape[:2], goal_ids.shape[-1]])

    def score(self, states, goal_ids, goal_embeddings):
        def diagonal(states, goal_ids):  # a negative id (no goal yet) is never achieved
            known = goal_ids >= 0
            return oracle.achieved(states, self.goal_table, np.where(known, goal_ids, 0)) & known

        result = tf.numpy_function(diagonal, [states, goal_ids], tf.bool)
        return tf.ensure_shape(result, [states.shape[0]])


class Relabelled(NamedTuple):
    """The relabelled goals and rewards of B transitions (tensors; a nest, for tf.function).

    Attributes:
      goal_ids: int64 [B]; goal_embeddings: float32 [B, E]; rewards: float32 [B] in {−1, 0};
      relabelled: bool [B], whether the goal is a candidate (False: the original goal kept, or
        the goal the episode was drawn for, with ``final_goal_ratio`` > 0).
    """

    goal_ids: tf.Tensor
    goal_embeddings: tf.Tensor
    rewards: tf.Tensor
    relabelled: tf.Tensor


class HerRelabeler:
    """Relabels transitions with candidate goals, balanced to a ratio of positives.

    Args:
      scorer: a `GoalScorer`.
      positive_ratio: ρ, the share of the batch relabelled with positive goals (0.5).
      reward_on: "current" (R(s_t, g), the reference) or "next" (R(s_{t+1}, g)).
      seed: seed of the random choices.
      final_goal_ratio: φ, the share of the batch that keeps the goal its episode was drawn for
        (0: the reference).
      imagined_share: the share of the candidates that are imagined goals while imagining
        (0.5, the reference's p_imagined).
    """

    def __init__(
        self,
        scorer: GoalScorer,
        positive_ratio: float = 0.5,
        reward_on: str = "current",
        seed: int | None = None,
        final_goal_ratio: float = 0.0,
        imagined_share: float = 0.5,
    ):
        if reward_on not in ("current", "next"):
            raise ValueError(f"reward_on must be 'current' or 'next', got {reward_on!r}.")
        for name, value in (
            ("positive_ratio", positive_ratio),
            ("final_goal_ratio", final_goal_ratio),
            ("imagined_share", imagined_share),
        ):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value}.")
        self.scorer, self.positive_ratio, self.reward_on = scorer, positive_ratio, reward_on
        self.final_goal_ratio, self.imagined_share = final_goal_ratio, imagined_share
        self.generator = tf.random.Generator.from_seed(
            seed if seed is not None else np.random.randint(2**31)
        )

    def sample_candidates(
        self,
        num_goals: tf.Tensor,
        num_candidates: int = 50,
        imagined: tf.Tensor | None = None,
        imagining: tf.Tensor | bool = False,
    ) -> tf.Tensor:
        """Distinct goal ids in [0, num_goals), int64 [K], from a fresh draw of keys.

        Without imagined goals: K = min(num_candidates, num_goals) uniformly. With
        ``imagined`` (bool [num_goals]) and ``imagining``, as the reference: of n =
        min(num_candidates, num_goals), ⌊share · n⌋ imagined goals (at most all of them), then
        discovered goals up to n (at most all of them).
        """
        keys = self.generator.uniform([num_goals])
        return self.candidates_from_keys(keys[None], num_candidates, imagined, imagining)[0]

    def candidate_counts(self, num_goals, num_candidates: int, imagined=None, imagining=False):
        """(imagined, discovered) candidate counts, int32 [] each (`sample_candidates`)."""
        total = tf.minimum(num_candidates, num_goals)
        if imagined is None:
            return tf.constant(0), total
        available = tf.reduce_sum(tf.cast(imagined, tf.int32))
        wanted = tf.cast(tf.floor(self.imagined_share * tf.cast(total, tf.float32)), tf.int32)
        from_imagined = tf.where(imagining, tf.minimum(wanted, available), 0)
        return from_imagined, tf.minimum(num_goals - available, total - from_imagined)

    def candidates_from_keys(
        self, keys: tf.Tensor, num_candidates: int, imagined=None, imagining=False
    ) -> tf.Tensor:
        """`sample_candidates` of U updates from their keys, float [U, num_goals]: int64 [U, K]
        (the K smallest keys' ids; with imagination, the imagined ones first)."""
        if imagined is None:
            return tf.cast(tf.argsort(keys, axis=-1)[:, :num_candidates], tf.int64)
        from_imagined, from_discovered = self.candidate_counts(
            tf.shape(keys)[-1], num_candidates, imagined, imagining
        )
        imagined_first = tf.argsort(tf.where(imagined, keys, 2.0), axis=-1)[:, :from_imagined]
        discovered_first = tf.argsort(tf.where(imagined, 2.0, keys), axis=-1)[:, :from_discovered]
        return tf.cast(tf.concat([imagined_first, discovered_first], axis=-1), tf.int64)

    def draw_cycle_keys(
        self, count, num_goals, num_candidates: int, batch_size: int, imagined=None, imagining=False
    ):
        """The random keys of ``count`` updates, drawn in the order single updates draw them
        (per update: the candidates' keys, then the relabelling's): (candidate keys float
        [U, num_goals], relabelling keys float [U, B, K])."""
        from_imagined, from_discovered = self.candidate_counts(
            num_goals, num_candidates, imagined, imagining
        )
        shape = tf.stack([batch_size, from_imagined + from_discovered])

        def body(i, candidate_keys, relabel_keys):
            candidate_keys = candidate_keys.write(i, self.generator.uniform([num_goals]))
            return i + 1, candidate_keys, relabel_keys.write(i, self.generator.uniform(shape))

        arrays = (tf.TensorArray(tf.float32, size=count), tf.TensorArray(tf.float32, size=count))
        _, candidate_keys, relabel_keys = tf.while_loop(
            lambda i, *_: i < count, body, (tf.constant(0), *arrays)
        )
        return candidate_keys.stack(), relabel_keys.stack()

    def relabel(
        self,
        states,
        next_states,
        goal_ids,
        goal_embeddings,
        candidate_ids,
        candidate_embeddings,
        final_goal_ids=None,
        final_goal_embeddings=None,
    ) -> Relabelled:
        """Relabels B transitions (states [B, D], goals ids [B] / embeddings [B, E]) with K
        candidates (ids [K], embeddings [K, E]); with φ > 0, ``final_goal_ids`` [B] (−1: none)
        and ``final_goal_embeddings`` [B, E] are the goals the episodes were drawn for: a cycle
        of one update (`relabel_cycle`), its keys drawn now."""
        keys = self.generator.uniform(tf.stack([tf.shape(states)[0], tf.shape(candidate_ids)[0]]))
        one = [
            None if x is None else x[None]
            for x in (states, next_states, goal_ids, goal_embeddings, candidate_ids)
            + (candidate_embeddings, keys, final_goal_ids, final_goal_embeddings)
        ]
        return Relabelled(*(x[0] for x in self.relabel_cycle(*one)))

    def relabel_cycle(
        self,
        states,
        next_states,
        goal_ids,
        goal_embeddings,
        candidate_ids,
        candidate_embeddings,
        keys,
        final_goal_ids=None,
        final_goal_embeddings=None,
    ) -> Relabelled:
        """`relabel` of U updates' batches at once, with their keys (`draw_cycle_keys`): every
        argument has a leading axis U (states [U, B, D], candidate ids [U, K], keys [U, B, K],
        ...); one scan of the U × B states (`GoalScorer.scan_many`, step 1), one score of the
        kept goals; the random ``keys`` choose each transition's goal in steps 2–4. Fields
        [U, B, ...]."""
        scored_states = states if self.reward_on == "current" else next_states
        positive = self.scorer.scan_many(scored_states, candidate_ids, candidate_embeddings)
        batch_size = tf.shape(positive)[1]
        own_ids, own_embeddings = tf.cast(goal_ids, tf.int64), goal_embeddings
        use_final = tf.zeros(tf.shape(positive)[:2], tf.bool)
        if self.final_goal_ratio > 0.0:
            if final_goal_ids is None or final_goal_embeddings is None:
                raise ValueError("final_goal_ratio > 0 needs final_goal_ids and embeddings.")
            final_ids = tf.cast(final_goal_ids, tf.int64)
            count = tf.cast(
                tf.floor(self.final_goal_ratio * tf.cast(batch_size, tf.float32)), tf.int32
            )
            use_final = (tf.range(batch_size) < count) & (final_ids >= 0)
            own_ids = tf.where(use_final, final_ids, own_ids)
            own_embeddings = tf.where(use_final[..., None], final_goal_embeddings, own_embeddings)
        rest = batch_size - tf.reduce_sum(tf.cast(use_final, tf.int32), axis=1, keepdims=True)
        wanted = tf.cast(tf.floor(self.positive_ratio * tf.cast(rest, tf.float32)), tf.int32)
        has_positive = tf.reduce_any(positive, axis=-1) & ~use_final
        order = tf.cumsum(tf.cast(has_positive, tf.int32), axis=1)  # rank among those with one
        take_positive = has_positive & (order <= wanted)
        take_negative = ~use_final & ~take_positive & tf.reduce_any(~positive, axis=-1)
        positive_pick = tf.argmax(tf.where(positive, keys, -1.0), axis=-1)
        negative_pick = tf.argmax(tf.where(positive, -1.0, keys), axis=-1)
        pick = tf.where(take_positive, positive_pick, negative_pick)  # [U, B]
        relabelled = take_positive | take_negative
        picked_ids = tf.gather(tf.cast(candidate_ids, tf.int64), pick, batch_dims=1)
        new_ids = tf.where(relabelled, picked_ids, own_ids)
        new_embeddings = tf.where(
            relabelled[..., None],
            tf.gather(candidate_embeddings, pick, batch_dims=1),
            own_embeddings,
        )
        flat = tf.shape(own_ids)
        kept_achieved = tf.reshape(
            self.scorer.score(
                _flatten(scored_states), tf.reshape(own_ids, [-1]), _flatten(own_embeddings)
            ),
            flat,
        )
        achieved = tf.where(relabelled, take_positive, kept_achieved)
        rewards = tf.where(achieved, 0.0, -1.0)
        return Relabelled(new_ids, new_embeddings, rewards, relabelled)


def _flatten(tensor: tf.Tensor) -> tf.Tensor:
    """[U, B, F] -> [U·B, F]."""
    return tf.reshape(tensor, tf.concat([[-1], tf.shape(tensor)[2:]], axis=0))
