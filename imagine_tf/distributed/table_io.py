"""The blocking Reverb calls of the package, each bounded: table sizes, insert, sample.

Reverb 0.14's Python client can block forever: ``server_info()`` without a timeout,
``TrajectoryWriter.flush()`` without ``timeout_ms`` (e.g. on a full queue), and ``sample()``,
which has no timeout and, when no item is there or the server dies mid-stream, never returns.
Here ``server_info`` always gets a timeout, flushes wait in slices between which the caller's
`should_stop` and the server's liveness are checked, and samples run in a daemon thread that is
abandoned (not waited for) past a deadline; only items known to be in the table are sampled.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import numpy as np
import reverb

from imagine_tf.distributed.address import parse_address
from imagine_tf.distributed.backoff import call_with_backoff, is_connection_error
from imagine_tf.distributed.errors import ReplayServerUnavailable

# Timeout of one ServerInfo call: Reverb takes whole seconds and 0 would mean "no deadline".
PROBE_TIMEOUT_S = 1


def table_info(
    client: reverb.Client, table: str, address: str, *, deadline_s: float
) -> reverb.reverb_types.TableInfo:
    """The table's info (``current_size``, ``max_size``, ...), retried up to `deadline_s`.

    Raises:
      ReplayServerUnavailable: if the server does not answer within the deadline.
      ValueError: if the server is not a Reverb server or has no such table.
    """
    try:
        infos = call_with_backoff(
            lambda: client.server_info(timeout=PROBE_TIMEOUT_S),
            address,
            deadline_s=deadline_s,
            what=f"read the size of table {table!r}",
        )
    except NotImplementedError as error:
        raise _not_reverb(address, error) from None
    if table not in infos:
        raise ValueError(
            f"the Reverb server at {address} has no table {table!r} (it has {sorted(infos)}):"
            " is --replay-server the address of an imagine-tf replay server?"
        )
    return infos[table]


def _not_reverb(address: str, error: NotImplementedError) -> ValueError:
    # gRPC's UNIMPLEMENTED status, which Reverb raises as NotImplementedError: another service.
    return ValueError(
        f"the gRPC server at {address} is not a Reverb server ({error}): is --replay-server the"
        " address of an imagine-tf replay server?"
    )


def sample(
    client: reverb.Client, table: str, count: int, address: str, *, timeout_s: float
) -> list[list[np.ndarray]]:
    """Samples `count` items (flat lists of arrays); call only when they are in the table.

    Raises:
      ReplayServerUnavailable: if the items have not all arrived within `timeout_s` (the
        sampling thread is then abandoned) or the stream failed with a connection error.
    """
    items: list[list[np.ndarray]] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            for sampled in client.sample(table, count, emit_timesteps=False):
                items.append(list(sampled.data))
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread.
            failure.append(error)

    start = time.monotonic()
    thread = threading.Thread(target=run, name=f"reverb-sample-{table}", daemon=True)
    thread.start()
    thread.join(timeout_s)
    what = f"take {count} item(s) from table {table!r}"
    if thread.is_alive():
        raise ReplayServerUnavailable(address, what, time.monotonic() - start)
    if failure:
        if is_connection_error(failure[0]):
            raise ReplayServerUnavailable(address, what, time.monotonic() - start) from failure[0]
        raise failure[0]
    return items


class ItemWriter:
    """Inserts one item at a time into one table and waits, bounded, until the server has it.

    The Reverb trajectory writer is kept between inserts while the items' dtypes and shapes stay
    the same (Reverb fixes them per column) and replaced when they change. Not thread-safe: one
    per thread.
    """

    def __init__(
        self,
        client: reverb.Client,
        address: str,
        table: str,
        *,
        deadline_s: float,
        poll_s: float,
    ):
        """Prepares the writer (the Reverb writer is made at the first insert).

        Args:
          client: connected to `address`.
          address: ``HOST:PORT``, for errors.
          table: where the items go.
          deadline_s: how long an unreachable server is retried before
            `ReplayServerUnavailable`.
          poll_s: the slices in which a flush waits (how often `should_stop` is checked).
        """
        self._client = client
        self._address = address
        self._table = table
        self._deadline_s = deadline_s
        self._poll_ms = max(1, int(round(poll_s * 1000)))
        self._writer: reverb.TrajectoryWriter | None = None
        self._layout: tuple | None = None

    def insert(
        self,
        flat: list[np.ndarray],
        *,
        priority: float = 1.0,
        timeout_s: float | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> bool:
        """Sends one item and waits until the server has inserted it.

        Reverb holds an insert while the table's rate limiter refuses it (a full queue); the
        wait goes on while the server answers, until `should_stop()` is true or `timeout_s`
        passes. A flush that times out is retried as is: the item stays pending, never sent
        twice.

        Returns:
          True once the server confirmed the insert; False if `should_stop` or `timeout_s`
          ended the wait first. Reverb cannot withdraw a pending insert: the server still
          inserts the item when room frees, unless it stops first.

        Raises:
          ReplayServerUnavailable: if the server stops answering for `deadline_s`.
          ValueError: if the server is not a Reverb server.
          RuntimeError: Reverb's other errors, e.g. "Priority table x was not found".
        """
        writer = self._writer_for(flat)
        writer.append(flat)
        writer.create_item(self._table, priority, [column[-1] for column in writer.history])
        start = time.monotonic()
        while True:
            try:
                writer.flush(timeout_ms=self._poll_ms)
                return True
            except reverb.errors.DeadlineExceededError:
                pass
            except Exception as error:
                self.close()
                if isinstance(error, NotImplementedError):
                    raise _not_reverb(self._address, error) from None
                if is_connection_error(error):
                    what = f"insert into table {self._table!r}"
                    waited = time.monotonic() - start
                    raise ReplayServerUnavailable(self._address, what, waited) from error
                raise
            if (should_stop is not None and should_stop()) or (
                timeout_s is not None and time.monotonic() - start >= timeout_s
            ):
                self.close()
                return False
            try:  # The insert waits: for room in the table, or for a server that is gone?
                table_info(self._client, self._table, self._address, deadline_s=self._deadline_s)
            except ReplayServerUnavailable:
                self.close()
                raise

    def _writer_for(self, flat: list[np.ndarray]) -> reverb.TrajectoryWriter:
        """The open writer, or a new one if there is none or the item's dtypes and shapes
        changed (a writer's columns keep their first item's)."""
        layout = tuple((array.dtype.str, array.shape) for array in flat)
        if self._writer is None or layout != self._layout:
            self.close()
            self._writer = self._client.trajectory_writer(
                num_keep_alive_refs=1, validate_items=False
            )
            self._layout = layout
        return self._writer

    def close(self) -> None:
        """Closes the Reverb writer (a pending insert is not withdrawn)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
            self._layout = None


class TableClient:
    """A client of one table of the replay server at ``address`` (what the readers and the
    variable container share): the Reverb client, the retry deadline, the polling period.

    Raises:
      ValueError: if `address` is not ``HOST:PORT``.
    """

    def __init__(self, address: str, table: str, deadline_s: float, poll_s: float):
        parse_address(address)
        self.address = address
        self._client = reverb.Client(address)
        self._table = table
        self._deadline_s = deadline_s
        self._poll_s = poll_s
