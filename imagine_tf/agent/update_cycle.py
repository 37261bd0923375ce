"""A cycle's DDPG updates: its invariant work batched, then its sequential steps (Colas et al. 2020; flowersteam/Imagine).

Within the U updates of a cycle (U = 50), until the next Polyak move of the targets
(`Ddpg.update_targets`, after every 50th update), nothing the relabelling and the TD targets
read changes: the replay (sampled before the cycle), the reward model (retrained at the end of
an epoch), the goal embeddings and the target networks π′, Q′. So one graph call
(`UpdateCycle.run`) does, for all U batches at once:

1. s = [o_t, o_t − o_0] and s′ = [o_{t+1}, o_{t+1} − o_0] from the sampled observations;
2. the random keys of U updates, drawn in the order single updates draw them (per update, the
   candidate goals' keys, then the relabelling's: `HerRelabeler.draw_cycle_keys`), the U × K
   candidates, the U scans of B states × K candidates and their balancing
   (`HerRelabeler.relabel_cycle`);
3. the U × B targets y = r + γ Q′(s′, π′(s′)) in one pass of the target networks (large
   products: M = U · B · N rows instead of B · N);

then the U critic and actor steps in a `tf.while_loop` (`Ddpg.update`'s parts, the critic step
of update i + 1 beside the actor step of update i: two cores busy with small products). The mathematics are
those of U single updates (relabel, target, step; tests/agent/update_cycle_test.py compares
the two within float rounding). A cycle that crosses a Polyak move is split there: the calls
before and after it each compute their targets with the targets they see.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from imagine_tf.agent.ddpg import Ddpg
from imagine_tf.agent.relabelling import HerRelabeler

#: `EpisodeReplay.sample_cycle`'s arrays the cycle reads, with their dtypes and trailing shapes
#: ("o": an observation's size, "a": the action's, "e": the goal embedding's).
CYCLE_FIELDS = {
    "first_observations": (tf.float32, "o"),
    "observations": (tf.float32, "o"),
    "next_observations": (tf.float32, "o"),
    "actions": (tf.float32, "a"),
    "goal_ids": (tf.int64, ""),
    "goal_embeddings": (tf.float32, "e"),
    "sampled_goal_ids": (tf.int64, ""),
}


#: Updates whose transitions go through the target networks in one pass (`_targets`).
TARGET_CHUNK = 5


class UpdateCycle:
    """Runs a cycle's updates (see the module docstring).

    Args:
      ddpg: the `Ddpg` trained.
      relabeler: the `HerRelabeler` (its scorer: the learned reward or the oracle).
      embedding_table: the known goals' embeddings, a variable [G_max, E].
      imagined_mask: which known goals are imagined, a variable bool [G_max].
      batch_size: B; num_candidates: K at most (50).
      observation_dim, action_dim: an observation's and an action's sizes.
    """

    def __init__(
        self,
        ddpg: Ddpg,
        relabeler: HerRelabeler,
        embedding_table: tf.Variable,
        imagined_mask: tf.Variable,
        batch_size: int,
        num_candidates: int,
        observation_dim: int,
        action_dim: int,
    ):
        self.ddpg, self.relabeler = ddpg, relabeler
        self.embedding_table, self.imagined_mask = embedding_table, imagined_mask
        self.batch_size, self.num_candidates = batch_size, num_candidates
        sizes = {
            "o": [observation_dim],
            "a": [action_dim],
            "e": [embedding_table.shape[-1]],
            "": [],
        }
        specs = [
            tf.TensorSpec([None, batch_size] + sizes[size], dtype, name)
            for name, (dtype, size) in CYCLE_FIELDS.items()
        ]
        scalars = [
            tf.TensorSpec([], tf.int32, "num_goals"),
            tf.TensorSpec([], tf.bool, "imagining"),
        ]
        # No AutoGraph: the loops are written as tf.while_loop.
        self._function = tf.function(
            self._updates, autograph=False, input_signature=[tuple(specs), *scalars]
        )

    @property
    def tracing_count(self) -> int:
        """How many times the cycle's graph was traced (once per process)."""
        return self._function.experimental_get_tracing_count()

    def run(self, cycle: dict[str, np.ndarray], num_goals: int, imagining: bool) -> np.ndarray:
        """The U updates of ``cycle`` (`EpisodeReplay.sample_cycle`'s arrays [U, B, ...]),
        with the first ``num_goals`` known goals as candidates: (loss, share of r = 0) per
        update, float32 [U, 2]."""
        count = len(cycle["goal_ids"])
        done = int(self.ddpg.train_step_counter.numpy())
        period = self.ddpg.target_update_period
        results, start = [], 0
        while start < count:  # up to and including the next Polyak move
            end = min(count, start + period - (done + start) % period)
            arrays = tuple(tf.constant(cycle[name][start:end]) for name in CYCLE_FIELDS)
            results.append(
                self._function(arrays, tf.constant(num_goals), tf.constant(imagining)).numpy()
            )
            start = end
        return np.concatenate(results) if results else np.zeros((0, 2), np.float32)

    # -- in the graph --------------------------------------------------------------------------
    def _updates(self, arrays, num_goals, imagining):
        """The module docstring's steps 1–3, then the U steps: (loss, share of r = 0) [U, 2]."""
        fields = dict(zip(CYCLE_FIELDS, arrays))
        first = fields["first_observations"]
        states = tf.concat([fields["observations"], fields["observations"] - first], axis=-1)
        next_states = tf.concat(
            [fields["next_observations"], fields["next_observations"] - first], axis=-1
        )
        relabelled = self._relabel(states, next_states, fields, num_goals, imagining)
        rewards = relabelled.rewards  # [U, B]
        targets = self._targets(next_states, relabelled.goal_embeddings, rewards)
        losses = pipelined_steps(
            self.ddpg, states, relabelled.goal_embeddings, fields["actions"], targets
        )
        shares = tf.reduce_mean(tf.cast(rewards == 0.0, tf.float32), axis=1)
        return tf.stack([losses, shares], axis=1)

    def _targets(self, next_states, goal_embeddings, rewards):
        """y [U, B] of the U batches (`Ddpg.td_targets`), TARGET_CHUNK updates' transitions
        per pass, two passes side by side: products of M = 5 · 256 · 3 rows keep their
        activations in cache and both cores busy, where one pass of M = 50 · 256 · 3 rows
        does not."""
        count, batch = tf.shape(rewards)[0], tf.shape(rewards)[1]
        chunks = (count + TARGET_CHUNK - 1) // TARGET_CHUNK
        rows = chunks * TARGET_CHUNK * batch

        def chunked(tensor):  # [U, B, ...] -> [chunks, TARGET_CHUNK · B, ...], zeros at the end
            trailing = tensor.shape[2:].as_list()  # static: the networks read their widths
            flat = tf.reshape(tensor, [count * batch, *trailing])
            padding = [[0, rows - count * batch]] + [[0, 0]] * len(trailing)
            return tf.reshape(tf.pad(flat, padding), [chunks, -1, *trailing])

        targets = tf.map_fn(
            lambda chunk: self.ddpg.td_targets({"state": chunk[0], "goal": chunk[1]}, chunk[2]),
            (chunked(next_states), chunked(goal_embeddings), chunked(rewards)),
            fn_output_signature=tf.float32,
            parallel_iterations=2,
        )
        return tf.reshape(tf.reshape(targets, [-1])[: count * batch], [count, batch])

    def _relabel(self, states, next_states, fields, num_goals, imagining):
        """`HerRelabeler.relabel_cycle` of the U batches, with candidates and keys drawn as U
        single updates draw them."""
        relabeler, table = self.relabeler, self.embedding_table
        imagined = self.imagined_mask[:num_goals]
        candidate_keys, keys = relabeler.draw_cycle_keys(
            tf.shape(states)[0],
            num_goals,
            self.num_candidates,
            self.batch_size,
            imagined,
            imagining,
        )
        candidates = relabeler.candidates_from_keys(
            candidate_keys, self.num_candidates, imagined, imagining
        )  # [U, K]
        final_ids = fields["sampled_goal_ids"]
        return relabeler.relabel_cycle(
            states,
            next_states,
            fields["goal_ids"],
            fields["goal_embeddings"],
            candidates,
            tf.gather(table, candidates),
            keys,
            final_ids,
            tf.gather(table, tf.maximum(final_ids, 0)),
        )


def pipelined_steps(ddpg: Ddpg, states, goal_embeddings, actions, targets):
    """`Ddpg.update` of the U batches in order, pipelined: iteration i runs the actor step
    of update i and the critic step of update i + 1, which do not wait for each other (the
    actor step reads the critic before the critic step writes it). Losses [U]."""
    count = tf.shape(states)[0]

    def observation(i):
        return {"state": states[i], "goal": goal_embeddings[i]}

    # A call ends at a Polyak move (`run`): the move (`count_update`) can only come after
    # the last actor step, with no critic step of the next update before it.
    def step(i, critic_loss, losses):
        actor_loss = ddpg.actor_step(observation(i))
        following = tf.minimum(i + 1, count - 1)  # the last iteration: no next update
        next_critic_loss = tf.cond(
            i + 1 < count,
            lambda: ddpg.critic_step(
                observation(following), actions[following], targets[following]
            ),
            lambda: tf.constant(0.0),
        )
        ddpg.count_update()
        return i + 1, next_critic_loss, losses.write(i, critic_loss + actor_loss)

    first = ddpg.critic_step(observation(0), actions[0], targets[0])
    _, _, losses = tf.while_loop(
        lambda i, *_: i < count,
        step,
        (tf.constant(0), first, tf.TensorArray(tf.float32, size=count, element_shape=[])),
    )
    return losses.stack()
