"""`StopSignal`: a stop request that signal handlers may raise and loops poll; `TrainingStopped`,
what the learner raises once it has seen it.

A `threading.Event` must not be set from a signal handler: the handler runs in the main thread
between two bytecodes, and if that thread is inside ``Event.wait`` at that moment it holds the
event's lock, so ``Event.set`` in the handler waits for it forever (seen with SIGTERM: a
process that never stops). `StopSignal` is a plain flag: setting it takes no lock, and
`wait` polls it.
"""

from __future__ import annotations

import signal
import threading
import time

POLL_SECONDS = 0.05


class TrainingStopped(Exception):
    """The learner was asked to stop (SIGTERM, Ctrl-C) before its last epoch."""


class StopSignal:
    """A flag set once to ask loops to stop; safe to set from a signal handler."""

    def __init__(self):
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout_s: float) -> bool:
        """Sleeps until the flag is set or ``timeout_s`` passed; returns the flag."""
        end = time.monotonic() + timeout_s
        while not self._set:
            remaining = end - time.monotonic()
            if remaining <= 0:
                break
            time.sleep(min(POLL_SECONDS, remaining))
        return self._set


class StopOnSignals:
    """While active, SIGTERM and SIGINT set ``stop`` (installed from the main thread only;
    the previous handlers come back on exit)."""

    def __init__(self, stop: StopSignal):
        self.stop, self._previous = stop, {}

    def __enter__(self) -> "StopOnSignals":
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGTERM, signal.SIGINT):
                self._previous[signum] = signal.signal(signum, lambda *_: self.stop.set())
        return self

    def __exit__(self, *exc_info) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}
