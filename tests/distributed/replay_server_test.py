"""The replay server: its tables, its port, stopping it, and clients when its process dies."""

import os
import pathlib
import select
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import reverb

from imagine_tf.distributed.address import free_port
from imagine_tf.distributed.episode_queue import EpisodeReader, EpisodeWriter
from imagine_tf.distributed.errors import PortInUse, ReplayServerUnavailable
from imagine_tf.distributed.replay_server import (
    EPISODES_TABLE,
    EVALUATION_REQUESTS_TABLE,
    EVALUATION_RESULTS_CAPACITY,
    EVALUATION_RESULTS_TABLE,
    RUN_CONFIG_TABLE,
    VARIABLES_TABLE,
    ReplayServer,
    serve_forever,
)
from imagine_tf.distributed.variable_container import VariableContainer

from tests.waiting import SLACK_S

pytestmark = pytest.mark.integration
HELPER = pathlib.Path(__file__).with_name("server_process.py")
REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def server():
    replay_server = ReplayServer(free_port(), queue_capacity=3)
    yield replay_server
    replay_server.stop()


def test_serves_the_five_tables(server):
    infos = reverb.Client(server.address).server_info(timeout=5)
    single = (VARIABLES_TABLE, RUN_CONFIG_TABLE, EVALUATION_REQUESTS_TABLE)
    assert set(infos) == {EPISODES_TABLE, EVALUATION_RESULTS_TABLE, *single}
    assert infos[EPISODES_TABLE].max_size == 3
    assert infos[EPISODES_TABLE].max_times_sampled == 1
    assert infos[EVALUATION_RESULTS_TABLE].max_size == EVALUATION_RESULTS_CAPACITY
    assert infos[EVALUATION_RESULTS_TABLE].max_times_sampled == 1
    for name in single:
        assert infos[name].max_size == 1
        assert infos[name].max_times_sampled == 0
        assert infos[name].rate_limiter_info.min_size_to_sample == 1
    assert server.address == f"127.0.0.1:{server.port}"


def test_stop_is_idempotent_and_ends_wait(server):
    assert server.running and not server.wait(timeout_s=0.01)
    threading.Timer(0.1, server.stop).start()
    assert server.wait(timeout_s=5)
    server.stop()
    assert not server.running
    with pytest.raises(ReplayServerUnavailable):
        EpisodeReader(server.address, deadline_s=0.2).size()


def test_the_context_manager_stops_the_server():
    with ReplayServer(free_port(), queue_capacity=1) as replay_server:
        assert replay_server.running
    assert not replay_server.running


def test_a_port_held_by_a_socket_is_refused_before_reverb_is_called():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with pytest.raises(PortInUse, match=f"port {port} is already in use.*--port"):
            ReplayServer(port, queue_capacity=1)


def test_a_second_server_on_the_port_of_a_first_is_refused(server):
    # Reverb alone would start it silently (gRPC's SO_REUSEPORT) and split the clients.
    with pytest.raises(PortInUse):
        ReplayServer(server.port, queue_capacity=1)


def test_bad_capacity_is_refused():
    with pytest.raises(ValueError, match="queue_capacity"):
        ReplayServer(free_port(), queue_capacity=0)


def test_serve_forever_serves_until_the_stop_event():
    stop, ready = threading.Event(), []
    port = free_port()
    thread = threading.Thread(target=serve_forever, args=(port, 2, stop, ready.append))
    thread.start()
    try:
        deadline = time.monotonic() + 5
        while not ready and time.monotonic() < deadline:
            time.sleep(0.01)
        assert ready and ready[0].port == port
        assert EpisodeReader(ready[0].address, deadline_s=2).size() == 0
    finally:
        stop.set()
        thread.join(5)
    assert not thread.is_alive() and not ready[0].running


def start_server_process(port, capacity=2):
    environment = dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.Popen(
        [sys.executable, str(HELPER), str(port), str(capacity)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )


def wait_ready(process, timeout_s=30.0):
    readable, _, _ = select.select([process.stdout], [], [], timeout_s)
    line = process.stdout.readline() if readable else ""
    if not line.startswith("ready"):
        process.kill()
        raise AssertionError(f"server process not ready: {line!r} {process.stderr.read()}")
    return line.split()[1]


@pytest.fixture(scope="module", autouse=True)
def processes():
    """Two server processes, to stop and to kill, started with the module's first test.

    Each imports TensorFlow (seconds), meanwhile the in-process tests above run.
    """
    started = {name: start_server_process(free_port()) for name in ("stopped", "killed")}
    yield started
    for process in started.values():
        if process.poll() is None:
            process.kill()
        process.wait(10)
        process.stdout.close()
        process.stderr.close()


def test_sigterm_stops_the_server_process_cleanly(processes):
    process = processes["stopped"]
    address = wait_ready(process)
    assert EpisodeReader(address, deadline_s=5).size() == 0
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0
    stderr = process.stderr.read()
    assert "Traceback" not in stderr and "TypeError" not in stderr, stderr


def test_clients_of_a_killed_server_raise_unavailable_within_their_deadline(processes, outcomes_of):
    process = processes["killed"]
    address = wait_ready(process)
    deadline_s = 1.0
    writer = EpisodeWriter(address, deadline_s=deadline_s, poll_s=0.1)
    reader = EpisodeReader(address, deadline_s=deadline_s)
    container = VariableContainer(address, deadline_s=deadline_s)
    container.push({"w": np.ones(3, np.float32)})
    assert writer.write({"x": np.zeros(2)})
    assert len(reader.take(1, timeout_s=2)) == 1
    assert container.pull() is not None
    os.kill(process.pid, signal.SIGKILL)
    process.wait(10)

    calls = {
        "write": lambda: writer.write({"x": np.zeros(2)}),
        "take": lambda: reader.take(1, timeout_s=5),
        "push": lambda: container.push({"w": np.ones(3, np.float32)}),
        "pull": lambda: container.pull(timeout_s=5),
    }
    outcomes = outcomes_of(calls, deadline_s + 5)
    assert set(outcomes) == set(calls), f"hung: {set(calls) - set(outcomes)}"
    for name, (message, elapsed) in outcomes.items():
        assert address in message, (name, message)
        # The deadline plus at most one probe (Reverb's server_info takes whole seconds).
        assert elapsed < deadline_s + 1.0 + SLACK_S, (name, elapsed)
