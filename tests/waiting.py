"""`wait_until`: every wait of the tests has a deadline, so a regression fails instead of
hanging."""

import time


def wait_until(condition, timeout: float = 30.0, interval: float = 0.001, what: str = "") -> None:
    """Polls ``condition()`` until it is true; fails the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting for {what or condition}")
        time.sleep(interval)


#: Time bounds in tests only catch hangs: generous for a loaded 2-core machine.
SLACK_S = 5.0
