"""`imagine-tf bench distributed`: actors and a learner through a real Reverb server.

On this machine, with the default `TrainConfig` (MA policy and MA learned reward, cycles of 12
episodes, 50 updates of 256 transitions per cycle), each actor a separate process with one
TensorFlow thread:

* **collection, learner idle**: episodes/s that K = 1 and K = 2 actors write into the queue,
  which this process only drains (the queue is large: actors never wait);
* **learner running**: the learner's loop as in training (take a batch, observe it, 50
  updates, publish the policy) fed by K actors through a queue of ``queue_cycles`` batches:
  updates/s and episodes/s consumed; beside it, the learner's updates/s with no actor running;
* a projection: how many actors one learner absorbs at the configured update-to-data ratio,
  from the measured per-actor episodes/s and the learner's updates/s.
"""

from __future__ import annotations

import datetime
import os
import pathlib
import platform
import tempfile
import time

import numpy as np
import tensorflow as tf

from imagine_tf.distributed.address import free_port
from imagine_tf.distributed.episode_queue import EpisodeReader
from imagine_tf.distributed.stop_signal import StopSignal
from imagine_tf.distributed.variable_container import VariableContainer
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig
from imagine_tf.runs import layout as run_layout
from imagine_tf.training.distributed_run import EpisodeQueueSource, RunProcesses
from imagine_tf.agent.learning import Learner
from imagine_tf.runs.layout import RunLayout
from imagine_tf.training.train_eval import in_process_actor
from imagine_tf.provenance import machine_description


def _publish(learner: Learner, container: VariableContainer) -> None:
    container.push(learner.snapshot().to_arrays())


def _start(
    learner: Learner, root: pathlib.Path, actors: int, queue_cycles: int, reader_count: int = 2
) -> tuple[RunProcesses, EpisodeReader, VariableContainer]:
    """A replay server process with a queue of ``queue_cycles`` batches and ``actors`` actor
    processes, returned once each actor has written its first batches (TensorFlow started,
    policy traced) and the queue is drained."""
    root.mkdir(parents=True)
    (root / run_layout.RUN_GIN).write_text(
        f"import imagine_tf.training.train_eval\nTrainConfig.queue_cycles = {queue_cycles}\n"
    )
    processes = RunProcesses(RunLayout(root), free_port(), actors)
    processes.start()
    reader, container = EpisodeReader(processes.address), VariableContainer(processes.address)
    container.push_run_config(learner.config.to_json())
    _publish(learner, container)
    received, deadline = 0, time.monotonic() + 300
    while received < reader_count * actors and time.monotonic() < deadline:
        received += len(reader.take(reader_count * actors - received, timeout_s=1.0))
    reader.take(1000, timeout_s=0)
    return processes, reader, container


def _collection_rate(learner: Learner, root: pathlib.Path, actors: int, seconds: float) -> float:
    """Episodes/s that ``actors`` actors write while this process only drains the queue."""
    processes, reader, container = _start(learner, root, actors, queue_cycles=100_000)
    try:
        start, items = time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            items += len(reader.take(1000, timeout_s=0.2))
        return items * learner.config.episodes_per_cycle / (time.perf_counter() - start)
    finally:
        processes.stop()
        container.close()


def _learner_rates(learner: Learner, root: pathlib.Path, actors: int, seconds: float) -> dict:
    """The training loop's updates/s and episodes/s with ``actors`` actors feeding it."""
    processes, reader, container = _start(learner, root, actors, learner.config.queue_cycles)
    source = EpisodeQueueSource(reader, StopSignal())
    try:
        updates_before = int(learner.ddpg.train_step_counter.numpy())
        start, episodes, waiting = time.perf_counter(), 0, 0.0
        while time.perf_counter() - start < seconds:
            batch, spent = source()
            waiting += spent["waiting"]
            learner.observe(batch)
            learner.train_cycle()
            _publish(learner, container)
            episodes += len(batch)
        elapsed = time.perf_counter() - start
        updates = int(learner.ddpg.train_step_counter.numpy()) - updates_before
        return {
            "updates_per_s": updates / elapsed,
            "episodes_per_s": episodes / elapsed,
            "learner_waiting_share": waiting / elapsed,
        }
    finally:
        processes.stop()
        container.close()


# The TrainConfig fields the record shows.
_RECORDED_CONFIG = (
    "architecture",
    "reward",
    "episodes_per_cycle",
    "updates_per_cycle",
    "batch_size",
    "num_candidates",
    "compute_dtype",
    "queue_cycles",
)


def _steady_state_learner(config: TrainConfig) -> Learner:
    """A learner past epoch 0 that has observed one batch of an in-process actor and, as in
    the steady state, knows at least ``num_candidates`` goals (updates score K candidates)."""
    learner = RunBuilder(config).make_learner()
    source = in_process_actor(learner)
    learner.observe(source()[0])
    if len(learner.goals) < config.num_candidates:  # updates score K = 50 candidates, as in
        descriptions = np.zeros((1, learner.builder.num_partner_goals), bool)  # steady state
        descriptions[0, : config.num_candidates] = True
        learner.goals.discover(descriptions)
        learner.embed_goals()
    learner.epoch.assign(1)  # past epoch 0: cycles update the policy
    return learner


def _updates_per_second(learner: Learner, updates: int) -> float:
    """The learner's updates per second alone (after 3 updates that trace)."""
    learner.run_updates(3)  # tracing
    start = time.perf_counter()
    learner.run_updates(updates)
    return updates / (time.perf_counter() - start)


def run_distributed_benchmark(quick: bool = False) -> dict:
    """Measures the distributed loop (``quick``: short windows, for tests)."""
    seconds = 5.0 if quick else 30.0
    config = TrainConfig()
    learner = _steady_state_learner(config)
    alone = _updates_per_second(learner, 20 if quick else 100)
    with tempfile.TemporaryDirectory(prefix="imagine_bench_") as scratch:
        collection = {
            count: _collection_rate(
                learner, pathlib.Path(scratch) / f"idle_{count}", count, seconds
            )
            for count in (1, 2)
        }
        running = {
            count: _learner_rates(learner, pathlib.Path(scratch) / f"run_{count}", count, seconds)
            for count in (1, 2)
        }
    episodes_per_update = config.episodes_per_cycle / config.updates_per_cycle
    per_actor = collection[1]
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            **machine_description(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "tensorflow": tf.__version__,
        },
        "how": "replay server and actors: separate processes (actors with 1 TensorFlow thread "
        "each), learner: this process, all cores; one machine, nothing else running; "
        f"windows of {seconds:.0f} s after each actor wrote its first batches",
        "config": {key: getattr(config, key) for key in _RECORDED_CONFIG},
        "collection_episodes_per_s_learner_idle": {str(k): v for k, v in collection.items()},
        "collection_speedup_2_over_1": collection[2] / collection[1],
        "learner_running": {str(k): v for k, v in running.items()},
        "learner_updates_per_s_alone": alone,
        "projection": {
            "episodes_per_s_per_actor": per_actor,
            "episodes_per_s_the_learner_absorbs": alone * episodes_per_update,
            "actors_one_learner_absorbs": alone * episodes_per_update / per_actor,
        },
    }
