"""Data-parallel DDPG learners: K processes, one synchronous Adam step on the all-reduced gradient.

The reference trains with 6 synchronous MPI workers: each computes the gradients of its own
batch of 256, the gradients are summed over the workers, and every worker takes the same Adam
step on the sum (an effective batch of 6 × 256; Colas et al. 2020, flowersteam/Imagine). Here
the workers are processes under `tf.distribute.MultiWorkerMirroredStrategy` (CPU collectives
over gRPC, ring all-reduce) and the reduction is the only change to `Ddpg`: its
``reduce_gradients`` hook (`Ddpg.critic_step`, `Ddpg.actor_step`) goes through
`GradientAllReduce`. The networks, their targets and the optimizers stay ordinary variables of
each process, created from the same seed: equal inputs to equal ops keep them equal, step after
step (`tests/distributed/data_parallel_test.py` compares them and checks the parity with one learner
on the workers' batches put together).

``reduction``: ``"sum"`` (the reference's; one step sees K × B transitions with the gradient
of the sum of the K batch means) or ``"mean"`` (the gradient of the mean over the K · B
transitions: one learner's step on the batches put together).

Every collective has a timeout (``timeout_seconds``): a worker whose peer died fails with
`tf.errors.DeadlineExceededError` or `UnavailableError` instead of waiting for ever. Workers
started with different settings are refused before any step (`check_same_config`).
"""

from __future__ import annotations

import json
from typing import Sequence

import tensorflow as tf

REDUCTIONS = ("sum", "mean")


def worker_strategy(
    workers: Sequence[str], index: int, timeout_seconds: float = 30.0
) -> tf.distribute.MultiWorkerMirroredStrategy:
    """The strategy of worker ``index`` among ``workers`` (HOST:PORT each, the same list in
    every worker). Make it first in the process, before any other TensorFlow op."""
    if not 0 <= index < len(workers):
        raise ValueError(
            f"worker index {index} is not among the {len(workers)} workers {list(workers)}: "
            f"give 0 … {len(workers) - 1}."
        )
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec({"worker": list(workers)}), task_type="worker", task_id=index
    )
    options = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING,
        timeout_seconds=timeout_seconds,
    )
    return tf.distribute.MultiWorkerMirroredStrategy(
        cluster_resolver=resolver, communication_options=options
    )


class GradientAllReduce:
    """``reduce(gradients) -> gradients``: the workers' gradients summed (or averaged) by one
    all-reduce over `worker_strategy`'s workers (one local replica each).

    Args:
      strategy: the process's `worker_strategy`.
      reduction: "sum" (the reference's) or "mean".
    """

    def __init__(self, strategy: tf.distribute.Strategy, reduction: str = "sum"):
        if reduction not in REDUCTIONS:
            raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}.")
        self.strategy = strategy
        self.op = tf.distribute.ReduceOp.SUM if reduction == "sum" else tf.distribute.ReduceOp.MEAN

    def __call__(self, gradients: Sequence[tf.Tensor]) -> list[tf.Tensor]:
        """The all-reduced gradients (dense; IndexedSlices are densified first), in order."""
        dense = [tf.convert_to_tensor(g) for g in gradients]

        def replica_reduce(values):  # ops made here are placed on the replica's device
            placed = [tf.identity(value) for value in values]
            return tf.distribute.get_replica_context().all_reduce(self.op, placed)

        reduced = self.strategy.run(replica_reduce, args=(dense,))
        return [self.strategy.experimental_local_results(g)[0] for g in reduced]


class ConfigMismatch(ValueError):
    """Data-parallel workers started with configurations that differ (said with what differs)."""


def check_same_config(strategy: tf.distribute.Strategy, config: dict) -> None:
    """Raises `ConfigMismatch` in every worker unless all hold the same ``config`` (a JSON-able
    dict: the run's settings, seed included): each worker's JSON is all-gathered (one
    collective, bounded by the strategy's timeout) and compared key by key with worker 0's."""
    text = json.dumps(config, sort_keys=True).encode()
    codes = tf.constant(list(text), tf.int32)

    def gather(values):
        context = tf.distribute.get_replica_context()
        length = tf.reduce_max(context.all_gather(tf.reshape(tf.size(values), [1]), axis=0))
        padded = tf.pad(tf.identity(values), [[0, length - tf.size(values)]], constant_values=-1)
        return context.all_gather(padded[None], axis=0)

    gathered = strategy.experimental_local_results(
        tf.function(lambda: strategy.run(gather, args=(codes,)), autograph=False)()
    )[0]
    configs = [json.loads(bytes(int(c) for c in row if c >= 0)) for row in gathered.numpy()]
    reference = configs[0]
    for index, other in enumerate(configs[1:], start=1):
        differs = sorted(k for k in set(reference) | set(other) if reference.get(k) != other.get(k))
        if differs:
            shown = ", ".join(f"{k}: {reference.get(k)!r} vs {other.get(k)!r}" for k in differs)
            raise ConfigMismatch(
                f"worker {index}'s configuration differs from worker 0's in {shown}: start every "
                "worker with the same configuration (only --worker-index differs)."
            )
