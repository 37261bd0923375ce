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
for _ in range(ROUNDS):
    stop = StopSignal()
    with StopOnSignals(stop):
        print("waiting", flush=True)
        while not stop.wait(0.5):
            pass
    print("stopped", flush=True)
"""
ROUNDS = 3  # the Event deadlock needed the signal inside wait: try several times


def test_wait_returns_when_set_or_after_the_timeout():
    stop = StopSignal()
    start = time.monotonic()
    assert not stop.wait(0.1) and time.monotonic() - start >= 0.1
    stop.set()
    assert stop.is_set() and stop.wait(10)


def test_sigterm_stops_a_process_waiting_on_it_every_time():
    """One process (TensorFlow is imported once) waits ROUNDS times; each SIGTERM ends a wait."""
    process = subprocess.Popen(
        [sys.executable, "-c", f"ROUNDS = {ROUNDS}\n{WAITER}"],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    try:
        for _ in range(ROUNDS):
            assert process.stdout.readline() == b"waiting\n"
            process.send_signal(signal.SIGTERM)
            assert process.stdout.readline() == b"stopped\n"
        assert process.wait(timeout=10) == 0
    finally:
        process.kill()
