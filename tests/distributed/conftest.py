"""Fixtures of the Reverb plumbing tests: real replay servers on 127.0.0.1, and calls run
side by side with a bound on how long they may take."""

import threading
import time

import pytest

from imagine_tf.distributed.address import free_port
from imagine_tf.distributed.errors import ReplayServerUnavailable
from imagine_tf.distributed.replay_server import ReplayServer


@pytest.fixture
def make_server():
    """``make_server(queue_capacity)``: a started `ReplayServer`, stopped after the test."""
    servers = []

    def make(queue_capacity: int) -> ReplayServer:
        servers.append(ReplayServer(free_port(), queue_capacity=queue_capacity))
        return servers[-1]

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def outcomes_of():
    """``outcomes_of(calls, join_s)``: runs each named call in a thread; returns
    {name: (what it said, seconds)} — "returned", or the `ReplayServerUnavailable` message —
    for the calls that ended within ``join_s``."""

    def run_all(calls: dict, join_s: float) -> dict:
        outcomes = {}

        def run(name):
            start = time.monotonic()
            try:
                calls[name]()
                outcomes[name] = ("returned", time.monotonic() - start)
            except ReplayServerUnavailable as error:
                outcomes[name] = (str(error), time.monotonic() - start)

        threads = [threading.Thread(target=run, args=(name,), daemon=True) for name in calls]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(join_s)
        return outcomes

    return run_all
