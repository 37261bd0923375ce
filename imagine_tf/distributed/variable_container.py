"""Policy weights (and a few small arrays) and the run's configuration, learner -> actors.

The pattern of TF-Agents' ``ReverbVariableContainer``: the learner pushes a dict of arrays into
a table with room for one item (the push replaces the previous item), actors pull it by sampling
the single item, which stays (unlimited samples per item). The run's configuration rides the
same way as text in its own table. No table signature: values are flattened by `codec`.
"""

from __future__ import annotations

import time

import numpy as np

from imagine_tf.distributed import codec, table_io
from imagine_tf.distributed.errors import ReplayServerUnavailable
from imagine_tf.distributed.replay_server import RUN_CONFIG_TABLE, VARIABLES_TABLE

_RUN_CONFIG_KEY = "run_config"


class VariableContainer(table_io.TableClient):
    """Pushes (learner) or pulls (actors) the variables and the run configuration.

    Not thread-safe: one container per thread.
    """

    def __init__(
        self,
        address: str,
        table: str = VARIABLES_TABLE,
        *,
        run_config_table: str = RUN_CONFIG_TABLE,
        deadline_s: float = 60.0,
        poll_s: float = 0.05,
    ):
        """Connects (lazily: nothing is sent before the first call).

        Args:
          address: the replay server's ``HOST:PORT``.
          table: the variables' table (``max_size`` 1).
          run_config_table: the run configuration's table (``max_size`` 1).
          deadline_s: how long an unreachable server is retried by each call before
            `ReplayServerUnavailable`.
          poll_s: how often `pull` looks whether something was pushed.

        Raises:
          ValueError: if `address` is not ``HOST:PORT``.
        """
        super().__init__(address, table, deadline_s, poll_s)
        self._run_config_table = run_config_table
        self._writers = {
            name: table_io.ItemWriter(
                self._client, address, name, deadline_s=deadline_s, poll_s=0.25
            )
            for name in (table, run_config_table)
        }

    def push(self, values: dict[str, np.ndarray]) -> None:
        """Replaces the variables on the server by `values` (returns once the server has them).

        Raises:
          ReplayServerUnavailable: if the server does not answer for `deadline_s`.
          TypeError: if `values` cannot be encoded (see `codec.encode`).
        """
        self._push(self._table, codec.encode(values))

    def pull(self, timeout_s: float = 0.0) -> dict[str, np.ndarray] | None:
        """The last pushed variables (left on the server for other pulls).

        Args:
          timeout_s: how long to wait for a first push; 0 looks once.

        Returns:
          The dict pushed last, or None if nothing was pushed within `timeout_s`.

        Raises:
          ReplayServerUnavailable: if the server does not answer for `deadline_s`.
        """
        flat = self._pull(self._table, timeout_s)
        return None if flat is None else codec.decode(flat)

    def push_run_config(self, text: str) -> None:
        """Replaces the run configuration (e.g. JSON) on the server by `text`.

        Raises:
          ReplayServerUnavailable: if the server does not answer for `deadline_s`.
        """
        self._push(self._run_config_table, codec.encode({_RUN_CONFIG_KEY: codec.text_array(text)}))

    def pull_run_config(self, timeout_s: float = 0.0) -> str | None:
        """The run configuration pushed last, or None if none was within `timeout_s`.

        Raises:
          ReplayServerUnavailable: if the server does not answer for `deadline_s`.
        """
        flat = self._pull(self._run_config_table, timeout_s)
        return None if flat is None else codec.array_text(codec.decode(flat)[_RUN_CONFIG_KEY])

    def close(self) -> None:
        """Closes the Reverb writers."""
        for writer in self._writers.values():
            writer.close()

    def __enter__(self) -> VariableContainer:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _push(self, table: str, flat: list[np.ndarray]) -> None:
        # A 1-item table with a FIFO remover never makes an insert wait: if the insert is not
        # confirmed within the deadline, the server is as good as gone.
        if not self._writers[table].insert(flat, timeout_s=self._deadline_s):
            what = f"insert into table {table!r}"
            raise ReplayServerUnavailable(self.address, what, self._deadline_s)

    def _pull(self, table: str, timeout_s: float) -> list[np.ndarray] | None:
        end = time.monotonic() + timeout_s
        while True:
            info = table_io.table_info(
                self._client, table, self.address, deadline_s=self._deadline_s
            )
            if info.current_size > 0:
                (flat,) = table_io.sample(
                    self._client, table, 1, self.address, timeout_s=self._deadline_s
                )
                return flat
            remaining = end - time.monotonic()
            if remaining <= 0:
                return None
            time.sleep(min(self._poll_s, remaining))
