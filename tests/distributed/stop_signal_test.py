"""StopSignal: signal handlers stop waiting loops (a threading.Event there can deadlock)."""

import os
import signal
import subprocess
import sys
import time

from imagine_tf.distributed.stop_signal import StopSignal

WAITER = """
import sys
from imagine_tf.distributed.stop_signal import StopOnSignals, StopSignal
stop = StopSignal()
with StopOnSignals(stop):
    print("waiting", flush=True)
    while not stop.wait(0.5):
        pass
print("stopped", flush=True)
"""


def test_wait_returns_when_set_or_after_the_timeout():
    stop = StopSignal()
    start = time.monotonic()
    assert not stop.wait(0.1) and time.monotonic() - start >= 0.1
    stop.set()
    assert stop.is_set() and stop.wait(10)


def test_sigterm_stops_a_process_waiting_on_it_every_time():
    for _ in range(3):  # the Event deadlock needed the signal inside wait: try several times
        process = subprocess.Popen(
            [sys.executable, "-c", WAITER],
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        )
        assert process.stdout.readline() == b"waiting\n"
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=10)
        assert process.returncode == 0 and out == b"stopped\n"
