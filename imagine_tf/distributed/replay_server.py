"""The Reverb server between actors and the learner: two queues and three 1-item tables.

Tables (no signatures: the server knows nothing of the model):

* `EPISODES_TABLE`, ``reverb.Table.queue``: each item is one actor's batch of episodes, taken
  once, in FIFO order, by the learner. When the queue is full an insert waits: this is how the
  learner's update-to-data ratio holds back the actors.
* `VARIABLES_TABLE`: the policy weights and a few small arrays for the actors, as TF-Agents'
  ``ReverbVariableContainer`` keeps them: ``max_size=1``, FIFO remover (a push replaces the
  item), uniform sampler with unlimited samples (a pull leaves it), ``MinSize(1)`` limiter.
* `RUN_CONFIG_TABLE`: the same for the run's configuration (JSON text), so that an actor can
  check it runs the learner's configuration.
* `EVALUATION_REQUESTS_TABLE`: the same for the policy to evaluate at the end of an epoch
  (weights, the evaluated goals' embeddings, the epoch): a newer request replaces one the
  evaluator has not taken yet, so the learner never waits for it.
* `EVALUATION_RESULTS_TABLE`, a queue: the evaluator's results, one item per evaluated epoch,
  taken by the learner (``EVALUATION_RESULTS_CAPACITY`` of them wait at most).

The port is checked before Reverb is asked to serve on it (`check_port_free`). Reverb's own
``Server.__del__`` raises a ``TypeError`` ("'NoneType' object is not callable", from
``portpicker``) when it runs during interpreter shutdown, even after ``stop()``: `ReplayServer`
drops its Reverb server as soon as it stops and stops any server left running ``atexit``.
Reverb's ``Server.wait()`` is not used either: it replaces Python's SIGINT handler for good.
"""

from __future__ import annotations

import atexit
import logging
import threading
from typing import Callable

import reverb

from imagine_tf.distributed.address import check_port_free
from imagine_tf.distributed.errors import PortInUse
from imagine_tf.distributed.stop_signal import StopOnSignals, StopSignal

EPISODES_TABLE = "episodes"
VARIABLES_TABLE = "variables"
RUN_CONFIG_TABLE = "run_config"
EVALUATION_REQUESTS_TABLE = "evaluation_requests"
EVALUATION_RESULTS_TABLE = "evaluation_results"
EVALUATION_RESULTS_CAPACITY = 64

_log = logging.getLogger(__name__)


class _NoCheckpoints(reverb.checkpointers.CheckpointerBase):
    """No checkpointer (Reverb's default makes and reloads a fresh temporary directory).

    The queue is transient: the learner checkpoints the replay it takes items into.
    """

    def internal_checkpointer(self) -> None:
        return None


def make_tables(queue_capacity: int) -> list[reverb.Table]:
    """The five tables of the server (see the module docstring)."""
    if queue_capacity < 1:
        raise ValueError(f"queue_capacity must be >= 1, got {queue_capacity}")

    def single_item(name: str) -> reverb.Table:
        return reverb.Table(
            name=name,
            sampler=reverb.selectors.Uniform(),
            remover=reverb.selectors.Fifo(),
            max_size=1,
            rate_limiter=reverb.rate_limiters.MinSize(1),
            max_times_sampled=0,
        )

    return [
        reverb.Table.queue(EPISODES_TABLE, max_size=queue_capacity),
        single_item(VARIABLES_TABLE),
        single_item(RUN_CONFIG_TABLE),
        single_item(EVALUATION_REQUESTS_TABLE),
        reverb.Table.queue(EVALUATION_RESULTS_TABLE, max_size=EVALUATION_RESULTS_CAPACITY),
    ]


class ReplayServer:
    """A running Reverb server with the five tables, on all interfaces at `port`.

    Use as a context manager, or call `stop` (idempotent); a server still running at interpreter
    exit is stopped then.
    """

    def __init__(self, port: int, queue_capacity: int):
        """Starts serving.

        Args:
          port: the TCP port, 1..65535 (see `free_port`).
          queue_capacity: how many items (episode batches) the episode queue holds.

        Raises:
          PortInUse: if the port is taken (checked before Reverb is called).
          ValueError: if `queue_capacity` < 1 or the port is out of range.
        """
        tables = make_tables(queue_capacity)
        check_port_free(port)
        self._port = port
        self._queue_capacity = queue_capacity
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        try:
            self._server: reverb.Server | None = reverb.Server(
                tables, port=port, checkpointer=_NoCheckpoints()
            )
        except ValueError as error:  # Reverb's only word for a failed bind.
            if "BuildAndStart" not in str(error):
                raise
            raise PortInUse(port, "taken while the server was starting") from None
        atexit.register(self.stop)

    @property
    def port(self) -> int:
        """The port served on (all interfaces)."""
        return self._port

    @property
    def address(self) -> str:
        """``127.0.0.1:PORT``: the address for clients on this machine (others use HOST:PORT)."""
        return f"127.0.0.1:{self._port}"

    @property
    def queue_capacity(self) -> int:
        """The episode queue's max_size."""
        return self._queue_capacity

    @property
    def running(self) -> bool:
        """False once `stop` was called."""
        return not self._stopped.is_set()

    def stop(self) -> None:
        """Stops serving (clients then get `ReplayServerUnavailable`); idempotent."""
        with self._lock:
            server, self._server = self._server, None
            if server is not None:
                server.stop()
                del server  # Reverb's __del__ now, while the interpreter is whole.
                atexit.unregister(self.stop)
        self._stopped.set()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Blocks until the server is stopped (by another thread or a signal handler).

        Returns:
          True if stopped, False if `timeout_s` passed first.
        """
        return self._stopped.wait(timeout_s)

    def __enter__(self) -> ReplayServer:
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"ReplayServer(port={self._port}, queue_capacity={self._queue_capacity}, {state})"


def serve_forever(
    port: int,
    queue_capacity: int,
    stop: StopSignal | threading.Event | None = None,
    on_ready: Callable[[ReplayServer], None] | None = None,
) -> None:
    """Runs a `ReplayServer` until ``stop`` is set or the process gets SIGTERM or SIGINT.

    The signal handlers (which set a `StopSignal`, never a `threading.Event`: see
    `stop_signal`) are installed only when called from the main thread, and the previous
    handlers are restored on return.

    Args:
      port: as for `ReplayServer`.
      queue_capacity: as for `ReplayServer`.
      stop: set it (from another thread) to stop.
      on_ready: called with the server once it serves (e.g. to print its address).

    Raises:
      PortInUse: if the port is taken.
    """
    signalled = StopSignal()
    with StopOnSignals(signalled), ReplayServer(port, queue_capacity) as server:
        _log.info("replay server serving on port %d", port)
        if on_ready is not None:
            on_ready(server)
        while not (signalled.wait(0.25) or (stop is not None and stop.is_set())):
            pass
        _log.info("replay server on port %d stopping", port)
