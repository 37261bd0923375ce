"""A server that accepts connections and never answers: the clients fail within their
timeout (`imagine_tf_client.ServerUnavailable`: gRPC DEADLINE_EXCEEDED, a REST timeout) instead
of hanging."""

import socket
import threading
import time

import numpy as np
import pytest

from imagine_tf_client import GrpcRewardClient, RewardClient, ServerUnavailable

pytestmark = pytest.mark.integration  # a listener on 127.0.0.1


@pytest.fixture
def silent_port():
    """A loopback port whose listener accepts every connection and never writes a byte."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted, stop = [], threading.Event()

    def accept():
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join(5)
    for connection in accepted:
        connection.close()
    listener.close()


def test_the_grpc_client_fails_at_its_deadline(silent_port):
    client = GrpcRewardClient(f"127.0.0.1:{silent_port}", timeout=1.0)
    start = time.monotonic()
    with pytest.raises(ServerUnavailable, match="within 1 s|unavailable|cannot connect"):
        client.score(np.zeros((1, 240), np.float32), ["Grasp red cat"])
    assert time.monotonic() - start < 30
    client.close()


def test_the_rest_client_fails_at_its_timeout(silent_port):
    client = RewardClient(f"http://127.0.0.1:{silent_port}", timeout=1.0)
    start = time.monotonic()
    with pytest.raises(ServerUnavailable):
        client.score(np.zeros((1, 240), np.float32), ["Grasp red cat"])
    assert time.monotonic() - start < 30
    client.close()
