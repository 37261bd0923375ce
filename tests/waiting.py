"""`wait_until`: every wait of the tests has a deadline, so a regression fails instead of
hanging."""

import time


def wait_until(
    condition, timeout: float = 30.0, interval: float = 0.001, what: str = "", process=None
) -> None:
    """Polls ``condition()`` until it is true; fails the test after ``timeout`` seconds, or as
    soon as ``process`` (a `subprocess.Popen` the condition waits on) has ended."""
    deadline = time.monotonic() + timeout
    while not condition():
        if process is not None and process.poll() is not None:
            out = process.stdout.read() if process.stdout else ""
            out = out.decode(errors="replace") if isinstance(out, bytes) else out
            raise AssertionError(
                f"the process ended (code {process.returncode}) before {what}: {out[-3000:]}"
            )
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting for {what or condition}")
        time.sleep(interval)


#: Time bounds in tests only catch hangs: generous for a loaded 2-core machine.
SLACK_S = 5.0
