"""Server-side batching: concurrent requests to one signature merged into one session run.

TF Serving's ``--enable_batching`` with its batching parameters: requests wait in a queue; a
batch thread takes every request waiting (up to ``max_batch_size`` rows, waiting at most
``batch_timeout_micros`` for more after the first), concatenates each input along the first
dimension, runs the signature once and splits the outputs by rows. With a timeout of 0
(the default) nothing waits on purpose: the requests that arrive while one batch runs form
the next one, so a lone client sees no added latency and many clients share the per-run cost.

Only signatures whose every input and output has the batch as its first dimension may be
batched (the reward model's ``score`` / ``serving_default``; not ``scan``, which crosses B
states with K goals): the server batches the signatures it is told to. If a merged run fails
(one request with an unknown word fails the whole run), each request of the batch is run on
its own, so each gets its own answer or its own error. A request larger than
``max_batch_size`` rows runs alone. When ``max_enqueued_batches`` batches' worth of rows are
waiting, a new request is refused (`QueueFullError`: UNAVAILABLE, as TF Serving).
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from concurrent.futures import Future

import numpy as np

LOG = logging.getLogger("serving")


class QueueFullError(RuntimeError):
    """The batching queue is full (the client should retry later)."""


@dataclasses.dataclass(frozen=True)
class BatchingOptions:
    """TF Serving's batching parameters (the ones that apply to one batch thread per signature)."""

    max_batch_size: int = 1024  # rows per merged run
    batch_timeout_micros: int = 0  # wait for more requests after the first (0: never)
    max_enqueued_batches: int = 64  # queue bound, in batches of max_batch_size rows

    def __post_init__(self):
        if (
            self.max_batch_size < 1
            or self.batch_timeout_micros < 0
            or self.max_enqueued_batches < 1
        ):
            raise ValueError(
                f"batching options {self}: max_batch_size and max_enqueued_batches must be >= 1 "
                "and batch_timeout_micros >= 0"
            )


@dataclasses.dataclass
class _Task:
    inputs: dict[str, np.ndarray]
    rows: int
    future: Future


_STOP = object()


class BatchingRunner:
    """A `SignatureRunner` with the same interface (``input_specs``, ``run``, ``submit``) that
    batches.

    Args:
      runner: the signature to run.
      options: `BatchingOptions`.
      name: for the batch thread's name and the log.
    """

    def __init__(self, runner, options: BatchingOptions, name: str = "signature"):
        self.runner, self.options, self.name = runner, options, name
        self.input_specs = runner.input_specs
        self._queue: queue.Queue = queue.Queue()
        self._waiting_rows, self._closed = 0, False
        self._lock = threading.Lock()
        self.runs = self.batched_rows = 0  # statistics
        self._thread = threading.Thread(target=self._loop, name=f"batch-{name}", daemon=True)
        self._thread.start()

    # -- request threads ------------------------------------------------------------------------
    def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The signature's outputs for one request (blocks until its batch has run)."""
        submitted = self.submit(inputs)
        return self.runner.run(inputs) if submitted is None else submitted.result()

    def submit(self, inputs: dict[str, np.ndarray]) -> Future | None:
        """Queues one request: the future of its outputs, or None if it must run alone (too
        large, no batch dimension, or a retired version). Raises `QueueFullError`."""
        rows = _rows(inputs)
        task = _Task(inputs, rows, Future())
        with self._lock:  # enqueued under the lock: never behind the stop signal
            if self._closed or rows is None or rows > self.options.max_batch_size:
                task = None
            else:
                limit = self.options.max_enqueued_batches * self.options.max_batch_size
                if self._waiting_rows + rows > limit:
                    raise QueueFullError(
                        f"the batching queue of {self.name!r} is full ({self._waiting_rows} "
                        "rows waiting): retry later"
                    )
                self._waiting_rows += rows
                self._queue.put(task)
        return None if task is None else task.future

    def close(self) -> None:
        """Stops the batch thread once the requests already queued have run; later requests
        run unbatched."""
        with self._lock:
            self._closed = True
            self._queue.put(_STOP)

    # -- the batch thread ----------------------------------------------------------------------
    def _loop(self) -> None:
        carry = None  # a task that did not fit the previous batch, or _STOP
        while True:
            first, carry = (carry if carry is not None else self._queue.get()), None
            if first is _STOP:
                LOG.info(
                    "batching of %r stopped: %d runs, %.1f rows per run",
                    self.name,
                    self.runs,
                    self.batched_rows / max(self.runs, 1),
                )
                return
            batch, carry = self._collect(first)
            with self._lock:
                self._waiting_rows -= sum(task.rows for task in batch)
            self._run(batch)

    def _collect(self, first: _Task) -> tuple[list[_Task], object]:
        """``first`` and the tasks waiting after it, up to max_batch_size rows; and the task (or
        stop signal) that ends the batch without joining it, if any."""
        batch, rows = [first], first.rows
        deadline = time.perf_counter() + self.options.batch_timeout_micros / 1e6
        while rows < self.options.max_batch_size:
            timeout = deadline - time.perf_counter()
            try:
                task = self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
            except queue.Empty:
                break
            if task is _STOP or rows + task.rows > self.options.max_batch_size:
                return batch, task
            batch.append(task)
            rows += task.rows
        return batch, None

    def _run(self, batch: list[_Task]) -> None:
        self.runs += 1
        self.batched_rows += sum(task.rows for task in batch)
        if len(batch) == 1:
            _settle(batch[0], self.runner.run)
            return
        try:
            merged = {
                name: np.concatenate([task.inputs[name] for task in batch])
                for name in self.runner.input_names
            }
            outputs = self.runner.run(merged)
            total = sum(task.rows for task in batch)
            if any(np.ndim(value) == 0 or len(value) != total for value in outputs.values()):
                raise ValueError(f"outputs of {self.name!r} are not batched by rows")
        except Exception as error:  # noqa: BLE001 - each request is retried alone below
            LOG.debug(
                "merged run of %d requests failed (%s): running them one by one", len(batch), error
            )
            for task in batch:
                _settle(task, self.runner.run)
            return
        start = 0
        for task in batch:
            end = start + task.rows
            task.future.set_result({name: value[start:end] for name, value in outputs.items()})
            start = end


def _rows(inputs: dict[str, np.ndarray]) -> int | None:
    """The common first dimension of the inputs (None if they have none in common)."""
    sizes = {np.shape(value)[0] if np.ndim(value) else None for value in inputs.values()}
    return sizes.pop() if len(sizes) == 1 else None


def _settle(task: _Task, run) -> None:
    try:
        task.future.set_result(run(task.inputs))
    except Exception as error:  # noqa: BLE001 - handed to the request's thread
        task.future.set_exception(error)
