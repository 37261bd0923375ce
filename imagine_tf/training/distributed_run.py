"""The learner fed by actor processes through a Reverb replay server.

Two layouts, one design (TF-Agents' actor / learner split, Reverb between them):

* one machine — `run_with_actor_processes` (``imagine-tf train --actors K``): the learner's
  process serves the replay server, starts K ``imagine-tf actor`` processes (logs in
  ``<root>/logs/``), restarts an actor that dies, and stops them all at the end, on Ctrl-C or
  SIGTERM;
* several machines — `run_remote_learner` (``imagine-tf learner --replay-server HOST:P``)
  with a server from ``imagine-tf replay-server`` and actors started anywhere.

The learner publishes its configuration, then after every cycle its `PolicySnapshot`, and takes
one `EpisodeBatch` from the queue per cycle (`EpisodeQueueSource`) before its
``updates_per_cycle`` updates: the update-to-data ratio is the config's whatever the number of
actors, and the queue (``queue_cycles`` batches) bounds how far actors run ahead.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

from imagine_tf.distributed.address import free_port, parse_address
from imagine_tf.distributed.episode_queue import EpisodeReader
from imagine_tf.distributed.replay_server import ReplayServer
from imagine_tf.distributed.variable_container import VariableContainer
from imagine_tf.training.episode_batch import EpisodeBatch
from imagine_tf.training.learner import Learner
from imagine_tf.training.learner_state import LearnerCheckpoint
from imagine_tf.training.loop import run_epochs
from imagine_tf.training.run_layout import RunLayout

WAIT_NOTICE_SECONDS = 60.0
PR_SET_PDEATHSIG = 1  # <sys/prctl.h>


class TrainingStopped(Exception):
    """The learner was asked to stop (SIGTERM, Ctrl-C) before its last epoch."""


class EpisodeQueueSource:
    """The learner's episode source: one batch from the replay server's queue per call.

    Args:
      reader: the queue's `EpisodeReader`.
      stop: set to stop waiting (`TrainingStopped`).
      while_waiting: called at each call and about once a second while no batch is there
        (e.g. to restart dead actors).
      log: where to say that the learner has been waiting long.
    """

    def __init__(self, reader: EpisodeReader, stop: threading.Event, while_waiting=None,
                 log=print):  # fmt: skip
        self.reader, self.stop, self.while_waiting, self.log = reader, stop, while_waiting, log

    def __call__(self) -> tuple[EpisodeBatch, dict[str, float]]:
        start = last_notice = time.perf_counter()
        if self.while_waiting is not None:
            self.while_waiting()
        while True:
            if self.stop.is_set():
                raise TrainingStopped()
            items = self.reader.take(1, timeout_s=1.0)
            if items:
                return EpisodeBatch.from_arrays(items[0]), {"waiting": time.perf_counter() - start}
            if self.while_waiting is not None:
                self.while_waiting()
            if time.perf_counter() - last_notice > WAIT_NOTICE_SECONDS:
                self.log(f"the learner has waited {time.perf_counter() - start:.0f} s for "
                         f"episodes at {self.reader.address}: are actors running?")  # fmt: skip
                last_notice = time.perf_counter()


def serve_learner(learner: Learner, checkpoint: LearnerCheckpoint, address: str,
                  num_epochs: int, progress: bool, stop: threading.Event,
                  while_waiting=None, retry_seconds: float = 60.0,
                  log=print) -> list[dict]:  # fmt: skip
    """Runs the learner's epochs against the replay server at ``address`` (retried for
    ``retry_seconds`` when it does not answer)."""
    container = VariableContainer(address, deadline_s=retry_seconds)
    reader = EpisodeReader(address, deadline_s=retry_seconds)
    partner_goals = learner.builder.partner.goals

    def publish(learner: Learner, finished: bool = False) -> None:
        container.push(learner.snapshot(finished).to_arrays(partner_goals))

    try:
        container.push_run_config(learner.config.to_json())
        publish(learner, finished=int(learner.epoch.numpy()) >= num_epochs)
        source = EpisodeQueueSource(reader, stop, while_waiting, log)
        records = run_epochs(learner, checkpoint, source, num_epochs, progress, publish)
        publish(learner, finished=True)
        return records
    finally:
        container.close()


class ActorProcesses:
    """K ``imagine-tf actor`` processes on this machine, restarted when one dies.

    Args:
      address: the replay server's ``HOST:PORT``.
      count: K.
      layout: the run's layout (``logs/actor_I.log``).
      threads: TensorFlow threads per actor.
    """

    def __init__(self, address: str, count: int, layout: RunLayout, threads: int = 1):
        self.address, self.count, self.layout, self.threads = address, count, layout, threads
        self.processes: dict[int, subprocess.Popen] = {}
        self.restarts = 0
        layout.logs.mkdir(parents=True, exist_ok=True)

    def command(self, actor_id: int) -> list[str]:
        return [sys.executable, "-m", "imagine_tf.cli.main", "actor", "--replay-server",
                self.address, "--actor-id", str(actor_id), "--threads", str(self.threads)]  # fmt: skip

    def start(self, actor_id: int) -> None:
        log = open(self.layout.actor_log(actor_id), "ab")
        environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
        self.processes[actor_id] = subprocess.Popen(
            self.command(actor_id), stdout=log, stderr=subprocess.STDOUT, env=environment,
            start_new_session=True,  # Ctrl-C reaches the learner, which stops the actors
            preexec_fn=_terminate_with_parent,
        )
        log.close()

    def start_all(self) -> None:
        for actor_id in range(self.count):
            self.start(actor_id)

    def restart_dead(self, log=print) -> None:
        """Starts again every actor that exited (a crash, a kill)."""
        for actor_id, process in list(self.processes.items()):
            code = process.poll()
            if code is not None:
                log(f"actor {actor_id} exited (code {code}); restarting it "
                    f"(log: {self.layout.actor_log(actor_id)})")  # fmt: skip
                self.restarts += 1
                self.start(actor_id)

    def stop_all(self, grace_seconds: float = 10.0) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + grace_seconds
        for process in self.processes.values():
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _terminate_with_parent() -> None:
    """In a child before it runs: SIGTERM when the learner dies, even by SIGKILL (Linux
    ``PR_SET_PDEATHSIG``; elsewhere the actor stops when the server stops answering)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass


class _StopOnSignals:
    """Sets an event on SIGTERM / SIGINT while active (main thread only)."""

    def __init__(self, stop: threading.Event):
        self.stop, self.previous = stop, {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGTERM, signal.SIGINT):
                self.previous[signum] = signal.signal(signum, lambda *_: self.stop.set())
        return self

    def __exit__(self, *exc_info):
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)


def run_with_actor_processes(learner: Learner, checkpoint: LearnerCheckpoint, num_epochs: int,
                             actors: int, port: int | None = None, progress: bool = True,
                             log=print) -> list[dict]:  # fmt: skip
    """A replay server in this process, ``actors`` actor processes, and the learner's epochs.

    Raises `TrainingStopped` on SIGTERM / Ctrl-C (the last checkpoint stands) and `PortInUse`
    if ``port`` is taken.
    """
    stop = threading.Event()
    queue_capacity = learner.config.queue_cycles
    with _StopOnSignals(stop), ReplayServer(port or free_port(), queue_capacity) as server:
        processes = ActorProcesses(f"127.0.0.1:{server.port}", actors, checkpoint.layout)
        processes.start_all()
        try:
            return serve_learner(learner, checkpoint, processes.address, num_epochs, progress,
                                 stop, while_waiting=lambda: processes.restart_dead(log), log=log)  # fmt: skip
        finally:
            processes.stop_all()


def run_remote_learner(learner: Learner, checkpoint: LearnerCheckpoint, replay_server: str,
                       num_epochs: int, progress: bool = True, retry_seconds: float = 60.0,
                       log=print) -> list[dict]:  # fmt: skip
    """The learner of a replay server started apart (``imagine-tf replay-server``).

    Raises `ValueError` for an address that is not HOST:PORT, `ReplayServerUnavailable` if no
    server answers there, `TrainingStopped` on SIGTERM / Ctrl-C.
    """
    parse_address(replay_server)
    stop = threading.Event()
    with _StopOnSignals(stop):
        return serve_learner(learner, checkpoint, replay_server, num_epochs, progress, stop,
                             retry_seconds=retry_seconds, log=log)  # fmt: skip
