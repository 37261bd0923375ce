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

import dataclasses
import datetime
import os
import platform
import threading
import time

import tensorflow as tf

from imagine_tf.distributed.address import free_port
from imagine_tf.distributed.episode_queue import EpisodeReader
from imagine_tf.distributed.replay_server import ReplayServer
from imagine_tf.distributed.variable_container import VariableContainer
from imagine_tf.training.builder import RunBuilder
from imagine_tf.training.config import TrainConfig
from imagine_tf.training.distributed_run import ActorProcesses, EpisodeQueueSource
from imagine_tf.training.learner import Learner
from imagine_tf.training.run_layout import RunLayout
from imagine_tf.training.train_eval import in_process_actor


def _publish(learner: Learner, container: VariableContainer) -> None:
    container.push(learner.snapshot().to_arrays(learner.builder.partner.goals))


def _start_actors(address: str, count: int, logs_dir: str, reader: EpisodeReader) -> ActorProcesses:
    """K actor processes, returned once each has written a first batch (TensorFlow started,
    policy traced); the queue is drained."""
    actors = ActorProcesses(address, count, RunLayout(logs_dir))
    actors.start_all()
    received, deadline = 0, time.monotonic() + 300
    while received < 2 * count and time.monotonic() < deadline:
        received += len(reader.take(2 * count - received, timeout_s=1.0))
    reader.take(1000, timeout_s=0)
    return actors


def _collection_rate(address: str, count: int, seconds: float, logs_dir: str,
                     batch_size: int) -> float:  # fmt: skip
    """Episodes/s that ``count`` actors write while this process only drains the queue."""
    reader = EpisodeReader(address)
    actors = _start_actors(address, count, logs_dir, reader)
    try:
        start, items = time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            items += len(reader.take(1000, timeout_s=0.2))
        return items * batch_size / (time.perf_counter() - start)
    finally:
        actors.stop_all()


def _learner_rates(learner: Learner, address: str, count: int, seconds: float,
                   logs_dir: str) -> dict:  # fmt: skip
    """The training loop's updates/s and episodes/s with ``count`` actors feeding it."""
    container, reader = VariableContainer(address), EpisodeReader(address)
    _publish(learner, container)
    actors = _start_actors(address, count, logs_dir, reader)
    source = EpisodeQueueSource(reader, threading.Event())
    try:
        updates_before = int(learner.agent.train_step_counter.numpy())
        start, episodes, waiting = time.perf_counter(), 0, 0.0
        while time.perf_counter() - start < seconds:
            batch, spent = source()
            waiting += spent["waiting"]
            learner.observe(batch)
            learner.train_cycle()
            _publish(learner, container)
            episodes += len(batch)
        elapsed = time.perf_counter() - start
        updates = int(learner.agent.train_step_counter.numpy()) - updates_before
        return {"updates_per_s": updates / elapsed, "episodes_per_s": episodes / elapsed,
                "learner_waiting_share": waiting / elapsed}  # fmt: skip
    finally:
        actors.stop_all()
        container.close()


def run_distributed_benchmark(quick: bool = False, logs_dir: str = "/tmp/imagine_bench_logs") -> dict:
    """Measures the distributed loop (``quick``: short windows, for tests)."""
    seconds = 5.0 if quick else 30.0
    config = TrainConfig()
    learner = Learner(RunBuilder(config))
    source = in_process_actor(learner)
    for _ in range(2):  # discoveries, so that updates score K = 50 candidates as in training
        learner.observe(source()[0])
    learner.epoch.assign(1)  # past epoch 0: cycles update the policy
    learner.run_updates(3)  # tracing
    start = time.perf_counter()
    learner.run_updates(20 if quick else 100)
    alone = (20 if quick else 100) / (time.perf_counter() - start)
    collection = {}
    with ReplayServer(free_port(), queue_capacity=100_000) as server:
        address = f"127.0.0.1:{server.port}"
        with VariableContainer(address) as container:
            container.push_run_config(config.to_json())
            _publish(learner, container)
        for count in (1, 2):
            collection[count] = _collection_rate(address, count, seconds, logs_dir,
                                                 config.episodes_per_cycle)  # fmt: skip
    running = {}
    with ReplayServer(free_port(), queue_capacity=config.queue_cycles) as server:
        address = f"127.0.0.1:{server.port}"
        with VariableContainer(address) as container:
            container.push_run_config(config.to_json())
        for count in (1, 2):
            running[count] = _learner_rates(learner, f"127.0.0.1:{server.port}", count, seconds,
                                            logs_dir)  # fmt: skip
    episodes_per_update = config.episodes_per_cycle / config.updates_per_cycle
    per_actor = collection[1]
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "tensorflow": tf.__version__},  # fmt: skip
        "how": "actors: separate processes, 1 TensorFlow thread each; learner: this process, "
        "all cores; everything on one machine, nothing else running; "
        f"windows of {seconds:.0f} s after each actor wrote its first batches",
        "config": {key: getattr(config, key) for key in (
            "architecture", "reward", "episodes_per_cycle", "updates_per_cycle", "batch_size",
            "num_candidates", "compute_dtype", "queue_cycles")},  # fmt: skip
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
