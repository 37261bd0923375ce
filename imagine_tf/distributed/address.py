"""Addresses and ports of the replay server: parse ``HOST:PORT``, check a port, pick a free one.

Reverb's server listens on ``[::]:PORT`` (every interface, IPv4 and IPv6) with gRPC's
``SO_REUSEPORT``; `check_port_free` therefore tests the port the same way before a server is
started (see `PortInUse` for what Reverb does otherwise).
"""

from __future__ import annotations

import errno
import socket

from imagine_tf.distributed.errors import PortInUse

MIN_PORT = 1
MAX_PORT = 65535
_EXPECTED = f"expected HOST:PORT, e.g. 127.0.0.1:8000, with PORT in {MIN_PORT}..{MAX_PORT}"


def parse_address(text: str) -> tuple[str, int]:
    """Splits ``"HOST:PORT"`` (or ``"[IPV6]:PORT"``) into host and port.

    Args:
      text: the address, e.g. ``"127.0.0.1:8000"``, ``"learner.local:8000"``, ``"[::1]:8000"``.

    Returns:
      ``(host, port)``; an IPv6 host is returned without its brackets.

    Raises:
      ValueError: if `text` is not of that form or the port is out of range; the message says
        what was given and what is expected.
    """

    def invalid(reason: str) -> ValueError:
        return ValueError(f"invalid address {text!r} ({reason}): {_EXPECTED}")

    if not isinstance(text, str):
        raise invalid(f"a {type(text).__name__}, not a string")
    host, colon, port_text = text.strip().rpartition(":")
    if not colon:
        raise invalid("no ':PORT'")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        if not host:
            raise invalid("empty IPv6 host")
    elif ":" in host:
        raise invalid("an IPv6 host must be in brackets, e.g. [::1]:8000")
    if not host:
        raise invalid("no HOST")
    if not port_text:
        raise invalid("no PORT")
    if not (port_text.isascii() and port_text.isdigit()):
        raise invalid(f"PORT {port_text!r} is not a number")
    port = int(port_text)
    if not MIN_PORT <= port <= MAX_PORT:
        raise invalid(f"PORT {port} is out of range")
    return host, port


def format_address(host: str, port: int) -> str:
    """The inverse of `parse_address`: ``"HOST:PORT"``, an IPv6 host in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def check_port_free(port: int, host: str = "127.0.0.1") -> None:
    """Checks that a replay server can serve on `port`, before Reverb is asked to.

    Two checks: nothing accepts connections at ``host:port``, and the port can be bound on every
    interface (IPv6 dual-stack when available, else IPv4), as Reverb binds ``[::]:port``. The
    bind probe uses ``SO_REUSEADDR`` like gRPC, so connections of a server that just stopped
    (``TIME_WAIT``) do not count as "in use", but does not use ``SO_REUSEPORT``, so another
    Reverb server on the port does.

    Args:
      port: the port, 1..65535.
      host: where a listener is looked for with a connection attempt (0.5 s at most).

    Raises:
      PortInUse: (an `OSError`) if something listens on the port; the message names the port
        and suggests another ``--port``.
      ValueError: if `port` is out of range.
      OSError: if the port cannot be bound for another reason (e.g. permission denied below
        1024).
    """
    if not isinstance(port, int) or not MIN_PORT <= port <= MAX_PORT:
        raise ValueError(f"port {port!r} is out of range {MIN_PORT}..{MAX_PORT}")
    try:
        with socket.create_connection((host, port), timeout=0.5):
            pass
    except OSError:
        pass
    else:
        raise PortInUse(port, f"something accepts connections at {format_address(host, port)}")
    for family, wildcard in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            probe = socket.socket(family, socket.SOCK_STREAM)
        except OSError:  # No IPv6 on this machine: probe IPv4 only.
            continue
        with probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            try:
                probe.bind((wildcard, port))
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    raise PortInUse(port, "bound by another socket") from None
                if error.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
                    continue
                raise OSError(
                    error.errno, f"cannot serve on port {port}: {error.strerror}"
                ) from None
        return


def free_port() -> int:
    """A TCP port free on every interface now (for tests and single-machine launches).

    Another process may take it before it is used; `check_port_free` catches that.
    """
    for family, wildcard in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            probe = socket.socket(family, socket.SOCK_STREAM)
        except OSError:
            continue
        with probe:
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            try:
                probe.bind((wildcard, 0))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise OSError("no free TCP port found on this machine")
