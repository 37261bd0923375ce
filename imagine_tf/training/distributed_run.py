"""The learner fed by actor processes through a Reverb replay server.

Two layouts, one design (TF-Agents' actor / learner split, Reverb between them):

* one machine — `run_with_actor_processes` (``imagine-tf train --actors K``): the learner's
  process starts an ``imagine-tf replay-server`` process and K ``imagine-tf actor`` processes
  (logs in ``<root>/logs/``), restarts an actor that dies, and stops them all at the end, on
  Ctrl-C or SIGTERM;
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
import time

from imagine_tf.distributed.address import check_port_free, free_port, parse_address
from imagine_tf.distributed.episode_queue import EpisodeReader
from imagine_tf.distributed.stop_signal import StopOnSignals, StopSignal, TrainingStopped
from imagine_tf.distributed.variable_container import VariableContainer
from imagine_tf.agent.episode_batch import EpisodeBatch
from imagine_tf.agent.learning import Learner
from imagine_tf.runs.checkpoint import LearnerCheckpoint
from imagine_tf.training.loop import run_epochs
from imagine_tf.training.triggers import RemoteEvaluationTrigger
from imagine_tf.runs.layout import RunLayout

WAIT_NOTICE_SECONDS = 60.0
PR_SET_PDEATHSIG = 1  # <sys/prctl.h>


class EpisodeQueueSource:
    """The learner's episode source: one batch from the replay server's queue per call.

    Args:
      reader: the queue's `EpisodeReader`.
      stop: set to stop waiting (`TrainingStopped`).
      while_waiting: called at each call and about once a second while no batch is there
        (e.g. to restart dead actors).
      log: where to say that the learner has been waiting long.
    """

    def __init__(self, reader: EpisodeReader, stop: StopSignal, while_waiting=None, log=print):
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
                self.log(
                    f"the learner has waited {time.perf_counter() - start:.0f} s for "
                    f"episodes at {self.reader.address}: are actors running?"
                )
                last_notice = time.perf_counter()


def serve_learner(
    learner: Learner,
    checkpoint: LearnerCheckpoint,
    address: str,
    num_epochs: int,
    progress: bool,
    stop: StopSignal,
    while_waiting=None,
    retry_seconds: float = 60.0,
    log=print,
    remote_evaluation: bool = False,
) -> list[dict]:
    """Runs the learner's epochs against the replay server at ``address`` (retried for
    ``retry_seconds`` when it does not answer). ``remote_evaluation``: an evaluator process
    evaluates the epochs (`RemoteEvaluationTrigger`), else this process does."""
    container = VariableContainer(address, deadline_s=retry_seconds)
    reader = EpisodeReader(address, deadline_s=retry_seconds)
    evaluation = (
        RemoteEvaluationTrigger(learner, address, retry_seconds) if remote_evaluation else None
    )

    def publish(learner: Learner, finished: bool = False) -> None:
        container.push(learner.snapshot(finished).to_arrays())

    try:
        container.push_run_config(learner.config.to_json())
        publish(learner, finished=int(learner.epoch.numpy()) >= num_epochs)
        source = EpisodeQueueSource(reader, stop, while_waiting, log)
        records = run_epochs(learner, checkpoint, source, num_epochs, progress, publish, evaluation)
        publish(learner, finished=True)
        return records
    finally:
        container.close()
        if evaluation is not None:
            evaluation.close()


EVALUATOR = "evaluator"  # the evaluator's process name (and log file's)


class RunProcesses:
    """The replay server, K actors and the evaluator of ``imagine-tf train --actors K``, as
    child processes.

    Each child logs to ``<root>/logs/``, is started in its own session (Ctrl-C reaches the
    learner, which stops them) and gets SIGTERM if the learner dies, even by SIGKILL. Actors
    and the evaluator that exit are restarted (`restart_dead`); the server is not (the learner
    then stops with `ReplayServerUnavailable`).

    Args:
      layout: the run's layout (``logs/``).
      port: the replay server's port.
      actors: K.
      threads: TensorFlow threads per actor.
      evaluator: start the evaluator process.
    """

    def __init__(
        self, layout: RunLayout, port: int, actors: int, threads: int = 1, evaluator: bool = True
    ):
        self.layout, self.port, self.actors, self.threads = layout, port, actors, threads
        self.evaluator = evaluator
        self.address = f"127.0.0.1:{port}"
        self.processes: dict[str, subprocess.Popen] = {}
        self.restarts = 0
        layout.logs.mkdir(parents=True, exist_ok=True)

    def _start(self, name: str, arguments: list[str]) -> None:
        command = [sys.executable, "-m", "imagine_tf.cli.main", *arguments]
        log = open(self.layout.logs / f"{name}.log", "ab")
        environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
        self.processes[name] = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,
            preexec_fn=_terminate_with_parent,
        )
        log.close()

    def start_server(self) -> None:
        self._start(
            "replay_server",
            ["replay-server", "--root-dir", str(self.layout.root), "--port", str(self.port)],
        )

    def start_actor(self, actor_id: int) -> None:
        self._start(
            f"actor_{actor_id}",
            [
                "actor",
                "--replay-server",
                self.address,
                "--actor-id",
                str(actor_id),
                "--threads",
                str(self.threads),
            ],
        )

    def start_evaluator(self) -> None:
        self._start(
            EVALUATOR,
            ["evaluator", "--replay-server", self.address, "--threads", str(self.threads)],
        )

    def start(self) -> None:
        """The server, then (once it answers) the actors and the evaluator."""
        self.start_server()
        EpisodeReader(self.address).size()  # waits for it (ReplayServerUnavailable if never)
        for actor_id in range(self.actors):
            self.start_actor(actor_id)
        if self.evaluator:
            self.start_evaluator()

    def actor_pids(self) -> list[int]:
        return [p.pid for name, p in self.processes.items() if name.startswith("actor_")]

    def restart_dead(self, log=print) -> None:
        """Starts again every actor, and the evaluator, that exited (a crash, a kill)."""
        for name, process in list(self.processes.items()):
            code = process.poll()
            if code is not None and (name.startswith("actor_") or name == EVALUATOR):
                log(
                    f"{name.replace('_', ' ')} exited (code {code}); restarting it "
                    f"(log: {self.layout.logs / name}.log)"
                )
                self.restarts += 1
                if name == EVALUATOR:
                    self.start_evaluator()
                else:
                    self.start_actor(int(name.split("_")[1]))

    def stop(self, grace_seconds: float = 10.0) -> None:
        """Actors first (they may be waiting on the server), then the server."""
        ordered = sorted(self.processes.items(), key=lambda item: item[0] == "replay_server")
        for _, process in ordered:
            if process.poll() is None:
                process.terminate()
            try:
                process.wait(timeout=grace_seconds)
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


def run_with_actor_processes(
    learner: Learner,
    checkpoint: LearnerCheckpoint,
    num_epochs: int,
    actors: int,
    port: int | None = None,
    progress: bool = True,
    log=print,
    remote_evaluation: bool = True,
) -> list[dict]:
    """A replay server process, ``actors`` actor processes, an evaluator process (unless not
    ``remote_evaluation``: the learner then evaluates), and the learner's epochs here.

    Raises `TrainingStopped` on SIGTERM / Ctrl-C (the last checkpoint stands), `PortInUse` if
    ``port`` is taken, `ReplayServerUnavailable` if the server stops answering.
    """
    stop = StopSignal()
    port = port or free_port()
    check_port_free(port)
    processes = RunProcesses(checkpoint.layout, port, actors, evaluator=remote_evaluation)
    with StopOnSignals(stop):
        try:
            processes.start()
            return serve_learner(
                learner,
                checkpoint,
                processes.address,
                num_epochs,
                progress,
                stop,
                while_waiting=lambda: processes.restart_dead(log),
                log=log,
                remote_evaluation=remote_evaluation,
            )
        finally:
            processes.stop()


def run_remote_learner(
    learner: Learner,
    checkpoint: LearnerCheckpoint,
    replay_server: str,
    num_epochs: int,
    progress: bool = True,
    retry_seconds: float = 60.0,
    log=print,
    remote_evaluation: bool = False,
) -> list[dict]:
    """The learner of a replay server started apart (``imagine-tf replay-server``); with
    ``remote_evaluation`` an ``imagine-tf evaluator`` of that server evaluates the epochs.

    Raises `ValueError` for an address that is not HOST:PORT, `ReplayServerUnavailable` if no
    server answers there, `TrainingStopped` on SIGTERM / Ctrl-C.
    """
    parse_address(replay_server)
    stop = StopSignal()
    with StopOnSignals(stop):
        return serve_learner(
            learner,
            checkpoint,
            replay_server,
            num_epochs,
            progress,
            stop,
            retry_seconds=retry_seconds,
            log=log,
            remote_evaluation=remote_evaluation,
        )
