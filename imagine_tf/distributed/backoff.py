"""Retrying a Reverb call while the server cannot be reached, up to a deadline.

What Reverb 0.14 raises when no server answers (measured on loopback, server never started or
``SIGKILL``-ed): ``Client.server_info(timeout=T)`` and ``TrajectoryWriter.flush(timeout_ms=T)``
wait the whole T (gRPC waits for the channel to be ready) then raise
`reverb.errors.DeadlineExceededError`; without a timeout both block forever, and so does
``Client.sample`` (which has no timeout at all), even when the server dies mid-stream. Other gRPC
failures reach Python as a bare `RuntimeError` carrying the status message (Reverb maps only
InvalidArgument, ResourceExhausted, Unimplemented and Internal to other types), and the TF ops of
Reverb raise `tf.errors.UnavailableError` / `tf.errors.DeadlineExceededError`.
"""

from __future__ import annotations

import time
from typing import Callable, TypeVar

import reverb
import tensorflow as tf

from imagine_tf.distributed.errors import ReplayServerUnavailable

T = TypeVar("T")

# Words of the gRPC status messages (lower case) that mean "the server is not reachable", as
# opposed to e.g. "Priority table x was not found", which retrying would not fix.
_CONNECTION_WORDS = (
    "unavailable",
    "deadline",
    "timeout",
    "timed out",
    "connect",
    "socket closed",
    "cancelled",
    "broken pipe",
    "transport",
)


def is_connection_error(error: BaseException) -> bool:
    """Whether `error`, raised by a Reverb call, means the server could not be reached."""
    if isinstance(
        error,
        (
            reverb.errors.DeadlineExceededError,
            tf.errors.UnavailableError,
            tf.errors.DeadlineExceededError,
        ),
    ):
        return True
    if type(error) is RuntimeError:
        message = str(error).lower()
        return any(word in message for word in _CONNECTION_WORDS)
    return False


def call_with_backoff(
    fn: Callable[[], T],
    address: str,
    *,
    deadline_s: float = 60.0,
    first_delay_s: float = 0.1,
    max_delay_s: float = 5.0,
    what: str = "reach the replay server",
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """Calls `fn` until it succeeds, retrying connection errors with exponential backoff.

    The delays between tries are `first_delay_s`, doubled each time up to `max_delay_s`, and
    never past the deadline. `fn` must itself be bounded (e.g. ``server_info(timeout=1)``): the
    deadline is checked between calls, so it is exceeded by at most one call of `fn`.

    Args:
      fn: the Reverb call, without arguments.
      address: the server's ``HOST:PORT``, for the error message.
      deadline_s: how long to keep trying, in seconds from the first call.
      first_delay_s: the first delay between tries.
      max_delay_s: the largest delay between tries.
      what: what `fn` does, for the error message ("could not <what>").
      sleep: waits a number of seconds (injected by tests).
      clock: monotonic seconds (injected by tests).

    Returns:
      What `fn` returns.

    Raises:
      ReplayServerUnavailable: if `fn` still raises a connection error (`is_connection_error`)
        when `deadline_s` has passed; it is chained to the last such error.
      Exception: any other error of `fn`, at once.
    """
    if deadline_s < 0 or first_delay_s <= 0 or max_delay_s < first_delay_s:
        raise ValueError(
            f"need deadline_s >= 0 and 0 < first_delay_s <= max_delay_s, got {deadline_s}, "
            f"{first_delay_s}, {max_delay_s}"
        )
    start = clock()
    delay = first_delay_s
    tries = 0
    while True:
        tries += 1
        try:
            return fn()
        except Exception as error:  # noqa: BLE001 - filtered just below.
            if not is_connection_error(error):
                raise
            last_error = error
        waited = clock() - start
        if waited >= deadline_s:
            raise ReplayServerUnavailable(address, what, waited, tries) from last_error
        sleep(min(delay, deadline_s - waited))
        delay = min(2.0 * delay, max_delay_s)
