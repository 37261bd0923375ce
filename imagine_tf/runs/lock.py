"""Who may write a run directory: one process at a time, with the run's own configuration.

Training runs resume from their directory, so a second process started on the same directory
(a repeated command, a scheduler retrying a job) would train from the same checkpoint and both
would overwrite each other's checkpoints and logs. `RunLock` takes an exclusive `flock` on
``<root_dir>/run.lock`` (released by the kernel when the process dies, so a killed run never
leaves a stale lock) and refuses with the holder's pid. A fork only reads its source: it
takes the lock shared (``RunLock(source, shared=True)``), so several forks of one trunk copy it
at once (an experiment grid starts its arms together), while none copies a run being trained.
"""

from __future__ import annotations

import fcntl
import os
import pathlib

from imagine_tf.runs.layout import LOCK


class RunDirectoryBusy(RuntimeError):
    """Another process is training into the run directory."""


class RunConfigMismatch(ValueError):
    """A run directory resumed with a configuration other than its config.json."""


class RunLock:
    """Context manager: ``with RunLock(root_dir): ...`` trains with the directory to itself;
    ``shared=True``: reads it beside other readers, never beside a writer."""

    def __init__(self, root_dir: str | os.PathLike, shared: bool = False):
        self.path = pathlib.Path(root_dir) / LOCK
        self.shared = shared
        self._file = None

    def __enter__(self) -> "RunLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+")
        try:
            fcntl.flock(handle, (fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise RunDirectoryBusy(
                f"{self.path.parent} is being trained by another process (pid {holder}, "
                f"holding {self.path}). Wait for it to finish or stop it, then run the command "
                "again to resume; or train into another --root-dir."
            ) from None
        self._file = handle
        if self.shared:  # the file names the last writer; readers leave it as it is
            return self
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        return self

    def __exit__(self, *exc_info) -> None:
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None
