"""One reward-model epoch as one compiled graph: sampling, Adam steps and the held-out F1.

The co-learning update (`CoLearnedReward`) trains up to 100 epochs of 200 batches of 512
(Colas et al. 2020, IMAGINE; flowersteam/Imagine). Each step is small (a few MFLOP), so calling
a `tf.function` per step from Python, with batches drawn in numpy, spent as much time in the
calls and the sampling as in the step. Here a whole epoch — the batches, the steps and the F1
on the held-out states — is one call (`tf.while_loop` inside a `tf.function`).

Batches follow the reference, drawn in the graph from `SamplingTables`: B goals among the goals
present in the memory (without replacement when there are at least B, else all of them plus
uniform extras); for each goal, with probability ρ (0.2) a uniformly drawn positive state
(label 1), else a negative one (label 0). A goal that lacks a positive or a negative state
gets weight 0 (the reference drops it): the loss is the mean cross-entropy over the kept
examples, and a batch with none kept makes no step.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import tensorflow as tf

from imagine_tf.data.supervised import grouped_rows
from imagine_tf.networks.sentence_encoder import prefix_tree
from imagine_tf.reward.f1 import mean_f1
from imagine_tf.reward.network import RewardNetwork


@dataclasses.dataclass(frozen=True)
class SamplingTables:
    """What the in-graph sampler needs of a reward memory (numpy; ``*_rows`` end with one
    spare row 0 so that a goal with no row never indexes past the end).

    Attributes:
      states: the memory's states, float32 [S, D].
      positive_rows, positive_start, positive_count: CSR of the rows where each goal is
        positive (rows int64 [P + 1], start / count int64 [G]); ``negative_*`` likewise.
      present: ids of the goals with any label, int64 [G_p].
      both: bool [G], the goal has at least one positive and one negative row.
    """

    states: np.ndarray
    positive_rows: np.ndarray
    positive_start: np.ndarray
    positive_count: np.ndarray
    negative_rows: np.ndarray
    negative_start: np.ndarray
    negative_count: np.ndarray
    present: np.ndarray
    both: np.ndarray


def sampling_tables(
    states: np.ndarray,
    positives: np.ndarray,
    negatives: np.ndarray,
    present: np.ndarray | None = None,
) -> SamplingTables:
    """`SamplingTables` of states [S, D] labelled by bool [S, G] matrices of positive and
    negative (state, goal) pairs (a pair in neither is never drawn); ``present`` bool [G]: the
    goals trained and measured (default: those with a drawable pair)."""
    positive, negative = grouped_rows(positives), grouped_rows(negatives)
    if present is None:
        present = (positives | negatives).any(axis=0)
    present = np.flatnonzero(present)
    if present.size == 0:
        raise ValueError("No goal has a labelled state: nothing to train the reward on.")
    spare = np.zeros(1, np.int64)
    return SamplingTables(
        states=np.asarray(states, np.float32),
        positive_rows=np.concatenate([positive.rows, spare]),
        positive_start=positive.start.astype(np.int64),
        positive_count=positive.count.astype(np.int64),
        negative_rows=np.concatenate([negative.rows, spare]),
        negative_start=negative.start.astype(np.int64),
        negative_count=negative.count.astype(np.int64),
        present=present.astype(np.int64),
        both=(positive.count > 0) & (negative.count > 0),
    )


class CompiledRewardEpoch:
    """Runs reward epochs of ``num_batches`` steps in one graph call.

    Args:
      network: the `RewardNetwork` (trained in place).
      optimizer: its optimizer (its state persists across calls).
      batch_size: B (512).
      positive_ratio: ρ (0.2).
      seed: seed of the in-graph sampler.
      parts: the step's goal ranges (`_step`); None: one per inter-op thread, at most 2.
    """

    def __init__(
        self,
        network: RewardNetwork,
        optimizer,
        batch_size: int = 512,
        positive_ratio: float = 0.2,
        seed: int = 0,
        parts: int | None = None,
    ):
        self.network, self.optimizer = network, optimizer
        self.batch_size, self.positive_ratio = int(batch_size), float(positive_ratio)
        threads = tf.config.threading.get_inter_op_parallelism_threads() or os.cpu_count() or 1
        self.parts = int(parts) if parts is not None else min(threads, 2)
        if self.parts < 1:
            raise ValueError(f"parts must be >= 1, got {parts}.")
        self.generator = tf.random.Generator.from_seed(seed)
        # Control flow is written as tf.while_loop / tf.cond: no AutoGraph conversion to pay.
        self._run = tf.function(self._epoch, reduce_retracing=True, autograph=False)

    def bind(
        self,
        tables: SamplingTables,
        goal_tokens: np.ndarray,
        held_states: np.ndarray,
        held_labels: np.ndarray,
    ):
        """``run(num_batches) -> F1``: trains ``num_batches`` steps, then returns the mean
        per-goal F1 of the held-out states [H, D] against their labels bool [H, G] (over the
        goals with a positive held-out state; 0 if none has). The memory goes to tensors, and
        its states to the network's training inputs, once for all the epochs of an update."""
        fields = [tf.constant(getattr(tables, f.name)) for f in dataclasses.fields(tables)]
        fields[0] = self.network.training_inputs(fields[0])
        fixed = (*fields, tf.constant(goal_tokens), self._goal_parts(goal_tokens, tables.present))
        held = (tf.constant(held_states, tf.float32), tf.constant(held_labels, tf.bool))

        def run(num_batches: int) -> float:
            return float(self._run(*fixed, tf.constant(num_batches, tf.int32), *held))

        return run

    def held_out_f1(
        self, goal_tokens: np.ndarray, held_states: np.ndarray, held_labels: np.ndarray
    ) -> float:
        """The F1 of `bind`'s runs without training."""
        empty = np.zeros(0, np.int64)
        every_goal = np.arange(len(goal_tokens))
        tables = SamplingTables(
            np.zeros((1, held_states.shape[-1]), np.float32),
            *[empty] * 3,
            *[empty] * 3,
            every_goal,
            np.zeros(0, bool),
        )
        return self.bind(tables, goal_tokens, held_states, held_labels)(0)

    def _goal_parts(self, goal_tokens: np.ndarray, present: np.ndarray) -> tuple:
        """The present goals in `parts` contiguous ranges: (start, stop, the range's
        `PrefixTree`) each, rows of the present goals (`present` is sorted)."""
        tokens = np.asarray(goal_tokens)[present]
        bounds = np.linspace(0, len(tokens), min(self.parts, max(len(tokens), 1)) + 1).astype(int)
        return tuple(
            (
                tf.constant(start, tf.int64),
                tf.constant(stop, tf.int64),
                prefix_tree(tokens[start:stop]),
            )
            for start, stop in zip(bounds[:-1], bounds[1:])
        )

    # -- in the graph --------------------------------------------------------------------------
    def _epoch(
        self,
        inputs,
        positive_rows,
        positive_start,
        positive_count,
        negative_rows,
        negative_start,
        negative_count,
        present,
        both,
        goal_tokens,
        goal_parts,
        num_batches,
        held_states,
        held_labels,
    ):
        positives = (positive_rows, positive_start, positive_count)
        negatives = (negative_rows, negative_start, negative_count)

        present_tokens = tf.gather(goal_tokens, present)  # the held-out F1 scores these only

        def body(step):
            goals, rows, labels, weights = self._sample(present, both, positives, negatives)
            goal_rows = tf.searchsorted(present, goals, out_type=tf.int64)  # present is sorted
            tf.cond(
                tf.reduce_sum(weights) > 0,
                lambda: self._step(inputs, rows, goal_parts, goal_rows, labels, weights),
                lambda: tf.constant(0.0),
            )
            return (step + 1,)

        tf.while_loop(lambda step: step < num_batches, body, (tf.constant(0),))
        # goals with a positive held-out state are present in the memory
        return self._held_out_f1(
            present_tokens, held_states, tf.gather(held_labels, present, axis=1)
        )

    def _sample(self, present, both, positives, negatives):
        """(goal ids [B], state rows [B], labels float [B], weights float [B])."""
        batch, generator = self.batch_size, self.generator
        count = tf.size(present)
        shuffled = tf.gather(present, tf.argsort(generator.uniform([count])))
        extra = tf.gather(
            present, generator.uniform([tf.maximum(batch - count, 0)], 0, count, dtype=tf.int32)
        )
        goals = tf.cond(
            count >= batch, lambda: shuffled[:batch], lambda: tf.concat([present, extra], axis=0)
        )
        goals = tf.ensure_shape(goals, [batch])
        positive = generator.uniform([batch]) < self.positive_ratio
        uniform = generator.uniform([batch])
        rows = tf.where(
            positive, _draw(positives, goals, uniform), _draw(negatives, goals, uniform)
        )
        weights = tf.cast(tf.gather(both, goals), tf.float32)
        return goals, rows, tf.cast(positive, tf.float32), weights

    def _step(self, inputs, rows, goal_parts, goal_rows, labels, weights):
        """Adam's step on L = Σ_b w_b CE(label_b, logit_b) / Σ_b w_b over the batch's
        (state row, goal row) pairs [B]. L is a sum over the goal ranges of ``goal_parts``:
        each range's goals are encoded (`SentenceEncoder.over_prefix_tree`) and its examples
        scored, with their loss and gradient, apart from the other ranges'. The ranges' graphs
        do not wait for each other, so the inter-op threads run them side by side (a step's
        products are too small for one op to gain from two cores); the gradient is their
        sum, the whole batch's up to float rounding. Returns L."""
        network, variables = self.network, self.network.trainable_variables
        total = tf.reduce_sum(weights)
        losses, gradients = [], []
        for start, stop, tree in goal_parts:
            picked = tf.where((goal_rows >= start) & (goal_rows < stop))[:, 0]
            with tf.GradientTape() as tape:
                embeddings = network.encoder.over_prefix_tree(tree)  # [stop − start, E]
                logits = network.training_logits(
                    tf.gather(inputs, tf.gather(rows, picked)),
                    embeddings,
                    tf.gather(goal_rows, picked) - start,
                )
                cross_entropy = tf.nn.sigmoid_cross_entropy_with_logits(
                    tf.gather(labels, picked), logits
                )
                losses.append(tf.reduce_sum(tf.gather(weights, picked) * cross_entropy) / total)
            gradients.append(
                [tf.convert_to_tensor(g) for g in tape.gradient(losses[-1], variables)]
            )
        self.optimizer.apply([tf.add_n(parts) for parts in zip(*gradients)], variables)
        return tf.add_n(losses)

    def _held_out_f1(self, goal_tokens, held_states, held_labels):
        return tf.cond(
            tf.shape(held_states)[0] == 0,
            lambda: tf.constant(0.0),
            lambda: self._scored_f1(goal_tokens, held_states, held_labels),
        )

    def _scored_f1(self, goal_tokens, held_states, held_labels):
        network = self.network
        probabilities = network.scan(
            held_states,
            network.encoder(goal_tokens),
            playground_states=network.architecture == "ma",
        )
        return mean_f1(probabilities > 0.5, held_labels)


def _draw(grouped, goals, uniform):
    """One row per goal, uniform among the goal's rows (CSR ``grouped``)."""
    rows, start, count = grouped
    picked = tf.gather(start, goals) + tf.cast(
        uniform * tf.cast(tf.maximum(tf.gather(count, goals), 1), tf.float32), tf.int64
    )
    return tf.gather(rows, tf.minimum(picked, tf.cast(tf.size(rows) - 1, tf.int64)))
