"""The errors users act on: their messages, pickling, and a wrong replay-server address."""

import pickle
from concurrent import futures

import grpc
import pytest

from imagine_tf.distributed.address import free_port
from imagine_tf.distributed.episode_queue import EpisodeReader, EpisodeWriter
from imagine_tf.distributed.errors import PortInUse, ReplayServerUnavailable
from imagine_tf.distributed.variable_container import VariableContainer

from tests.waiting import SLACK_S


def test_the_unavailable_message_names_the_address_the_wait_and_the_fix():
    error = ReplayServerUnavailable("10.0.0.7:8123", "read the queue", 12.34, tries=7)
    message = str(error)
    assert "10.0.0.7:8123" in message
    assert "could not read the queue" in message
    assert "7 tries over 12.3 s" in message
    assert "imagine-tf replay-server --root-dir R --port 8123" in message
    assert "--replay-server" in message
    assert isinstance(error, RuntimeError)


def test_errors_survive_pickling():
    error = pickle.loads(pickle.dumps(ReplayServerUnavailable("h:1", "x", 1.0, 2)))
    assert (error.address, error.what, error.waited_s, error.tries) == ("h:1", "x", 1.0, 2)
    port_error = pickle.loads(pickle.dumps(PortInUse(8000)))
    assert port_error.port == 8000 and "--port" in str(port_error)


def test_a_wrong_address_raises_unavailable_within_the_deadline(outcomes_of):
    address = f"127.0.0.1:{free_port()}"  # Nothing listens there.
    calls = {
        "take": lambda: EpisodeReader(address, deadline_s=0.5).take(1, timeout_s=0.1),
        "write": lambda: EpisodeWriter(address, deadline_s=0.5, poll_s=0.1).write({"x": [1.0]}),
        "pull": lambda: VariableContainer(address, deadline_s=0.5).pull(),
    }
    outcomes = outcomes_of(calls, 5)
    assert set(outcomes) == set(calls), f"hung: {set(calls) - set(outcomes)}"
    for name, (message, elapsed) in outcomes.items():
        assert address in message, (name, message)
        # The deadline, plus at most one probe (Reverb's server_info takes whole seconds).
        assert elapsed < 0.5 + 1.0 + SLACK_S, (name, elapsed)


@pytest.mark.integration  # a server on 127.0.0.1
def test_a_grpc_server_that_is_not_reverb_is_named_as_such():
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    grpc_server.start()
    address = f"127.0.0.1:{port}"
    try:
        with pytest.raises(ValueError, match=f"{address} is not a Reverb server"):
            EpisodeReader(address, deadline_s=1).take(1, timeout_s=0)
        with pytest.raises(ValueError, match=f"{address} is not a Reverb server"):
            EpisodeWriter(address, deadline_s=1).write({"x": [1.0]})
    finally:
        grpc_server.stop(0)
