"""Batches of episodes, actors -> learner, through the replay server's FIFO queue.

Each actor writes a batch of episodes as one item (`EpisodeWriter.write`); the learner, the one
reader, takes items in FIFO order, each once (`EpisodeReader.take`). The queue's capacity
throttles the actors: a write into a full queue waits until the learner takes an item.

Reverb 0.14 has no timeout on sampling, so `take` samples only the items that the table reports
as present (with one reader nobody else removes them), polling the size meanwhile.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np
import reverb

from imagine_tf.distributed import codec, table_io
from imagine_tf.distributed.address import parse_address
from imagine_tf.distributed.replay_server import EPISODES_TABLE


class EpisodeWriter:
    """Writes items (dicts of arrays) into the episode queue, waiting while it is full.

    Not thread-safe: one writer per thread (writers may share a server freely).
    """

    def __init__(
        self,
        address: str,
        table: str = EPISODES_TABLE,
        *,
        deadline_s: float = 60.0,
        poll_s: float = 0.25,
    ):
        """Connects (lazily: nothing is sent before the first write).

        Args:
          address: the replay server's ``HOST:PORT``.
          table: the queue.
          deadline_s: how long an unreachable server is retried before
            `ReplayServerUnavailable`.
          poll_s: how often a waiting write checks `should_stop` and the server.

        Raises:
          ValueError: if `address` is not ``HOST:PORT``.
        """
        parse_address(address)
        self.address = address
        self._writer = table_io.ItemWriter(
            reverb.Client(address), address, table, deadline_s=deadline_s, poll_s=poll_s
        )

    def write(
        self,
        item: dict[str, np.ndarray],
        *,
        timeout_s: float | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> bool:
        """Inserts `item` (priority 1) and waits until the server has it.

        While the queue is full the write waits, for as long as the server answers, unless
        `should_stop()` turns true or `timeout_s` passes.

        Args:
          item: string keys to numeric or bool arrays (see `codec.encode`).
          timeout_s: the longest wait for room in the queue; None: no limit.
          should_stop: checked every `poll_s` while waiting, e.g. ``stop_event.is_set``.

        Returns:
          True once the item is in the queue; False if the wait was ended by `should_stop` or
          `timeout_s`. Reverb cannot withdraw the pending insert: the server still adds the item
          when the learner makes room (it never adds it twice).

        Raises:
          ReplayServerUnavailable: if the server does not answer for `deadline_s`.
          TypeError: if `item` cannot be encoded.
        """
        return self._writer.insert(codec.encode(item), timeout_s=timeout_s, should_stop=should_stop)

    def close(self) -> None:
        """Closes the Reverb writer."""
        self._writer.close()

    def __enter__(self) -> EpisodeWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class EpisodeReader(table_io.TableClient):
    """Takes items from the episode queue (the one reader: the learner).

    There must be one reader per queue: `take` samples the items the queue reports, and a
    sample of an item that another reader took first would wait for the next insert.
    """

    def __init__(
        self,
        address: str,
        table: str = EPISODES_TABLE,
        *,
        deadline_s: float = 60.0,
        poll_s: float = 0.05,
    ):
        """Connects (lazily: nothing is sent before the first call).

        Args:
          address: the replay server's ``HOST:PORT``.
          table: the queue.
          deadline_s: how long an unreachable server is retried before
            `ReplayServerUnavailable`.
          poll_s: how often `take` looks at the queue's size while waiting.

        Raises:
          ValueError: if `address` is not ``HOST:PORT``.
        """
        super().__init__(address, table, deadline_s, poll_s)

    def size(self) -> int:
        """How many items wait in the queue.

        Raises:
          ReplayServerUnavailable: if the server does not answer for `deadline_s`.
        """
        info = table_io.table_info(
            self._client, self._table, self.address, deadline_s=self._deadline_s
        )
        return int(info.current_size)

    def take(self, count: int, timeout_s: float) -> list[dict[str, np.ndarray]]:
        """Removes and returns up to `count` items, oldest first.

        Args:
          count: how many items at most.
          timeout_s: the longest wait for `count` items; 0 takes what is there now.

        Returns:
          `count` items, or fewer (possibly none) if `timeout_s` passed first.

        Raises:
          ReplayServerUnavailable: if the server does not answer for `deadline_s`.
        """
        if count < 0:
            raise ValueError(f"count must be >= 0, got {count}")
        end = time.monotonic() + timeout_s
        items: list[dict[str, np.ndarray]] = []
        while len(items) < count:
            ready = min(self.size(), count - len(items))
            if ready:
                flats = table_io.sample(
                    self._client, self._table, ready, self.address, timeout_s=self._deadline_s
                )
                items.extend(codec.decode(flat) for flat in flats)
                continue
            remaining = end - time.monotonic()
            if remaining <= 0:
                break
            time.sleep(min(self._poll_s, remaining))
        return items
