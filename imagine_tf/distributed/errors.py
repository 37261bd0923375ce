"""The two errors of the package that a user can act on: a busy port and an absent server."""

from __future__ import annotations


class PortInUse(OSError):
    """The replay server's port is taken: found before Reverb is asked to serve on it.

    A subclass of `OSError` (as `bind` failing with ``EADDRINUSE`` is). Checking first matters:
    gRPC binds its listening socket with ``SO_REUSEPORT``, so a second Reverb server on the port
    of a first one starts *silently* and the kernel then spreads the clients' connections over
    both; a port held by another program makes Reverb 0.14 fail with a bare
    ``ValueError("Failed to BuildAndStart gRPC server")`` and a JSON dump from gRPC on stderr
    (`ReplayServer` turns that into this error too, should the port be taken in between).

    Attributes:
      port: the port asked for.
    """

    def __init__(self, port: int, detail: str = ""):
        self.port = port
        message = f"port {port} is already in use on this machine"
        if detail:
            message += f" ({detail})"
        message += "; choose another --port for the replay server (or stop what holds it)"
        super().__init__(message)

    def __reduce__(self):
        return type(self), (self.port,)


class ReplayServerUnavailable(RuntimeError):
    """No Reverb replay server answered at an address before a deadline.

    Raised by every client of the package (`EpisodeWriter`, `EpisodeReader`,
    `VariableContainer`) when the server is not running, was killed, or the address is wrong,
    instead of blocking forever as Reverb's own calls would.

    Attributes:
      address: the ``HOST:PORT`` tried.
      what: what the caller was doing, e.g. ``"read the tables' sizes"``.
      waited_s: seconds spent trying.
      tries: attempts made (None when not counted, e.g. a stalled stream).
    """

    def __init__(self, address: str, what: str, waited_s: float, tries: int | None = None):
        self.address = address
        self.what = what
        self.waited_s = waited_s
        self.tries = tries
        attempts = f"{tries} tries over " if tries is not None else ""
        port = address.rsplit(":", 1)[-1] if ":" in address else "P"
        super().__init__(
            f"no replay server answered at {address}: could not {what}"
            f" ({attempts}{waited_s:.1f} s). Start it with"
            f" `imagine-tf replay-server --root-dir R --port {port}`, or check --replay-server"
            " (the HOST:PORT of the learner's replay server)."
        )

    def __reduce__(self):
        return type(self), (self.address, self.what, self.waited_s, self.tries)
