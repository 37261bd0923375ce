"""HOST:PORT parsing, the port check run before a replay server starts, free ports."""

import socket

import pytest

from imagine_tf.distributed.address import check_port_free, format_address, free_port, parse_address
from imagine_tf.distributed.errors import PortInUse


@pytest.mark.parametrize(
    "text, expected",
    [
        ("127.0.0.1:8000", ("127.0.0.1", 8000)),
        ("learner.local:1", ("learner.local", 1)),
        ("[::1]:65535", ("::1", 65535)),
        (" localhost:8000\n", ("localhost", 8000)),
    ],
)
def test_parses_host_and_port(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "no ':PORT'"),
        ("foo", "no ':PORT'"),
        ("host:", "no PORT"),
        (":8000", "no HOST"),
        ("host:abc", "'abc' is not a number"),
        ("host:70000", "70000 is out of range"),
        ("host:0", "0 is out of range"),
        ("::1:8000", "in brackets"),
    ],
)
def test_a_malformed_address_says_what_was_given_and_what_is_expected(text, reason):
    with pytest.raises(ValueError) as raised:
        parse_address(text)
    message = str(raised.value)
    assert repr(text) in message
    assert reason in message
    assert "HOST:PORT, e.g. 127.0.0.1:8000" in message
    assert "1..65535" in message


def test_format_address_inverts_parse_address():
    for text in ("127.0.0.1:8000", "[::1]:9000", "learner:1"):
        assert format_address(*parse_address(text)) == text


def test_a_free_port_passes_the_check():
    port = free_port()
    assert 1 <= port <= 65535
    check_port_free(port)


@pytest.mark.integration  # a listener on a local port
@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_a_listening_socket_makes_the_port_in_use(host):
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, 0))
        listener.listen()
        port = listener.getsockname()[1]
        with pytest.raises(PortInUse) as raised:
            check_port_free(port)
    assert isinstance(raised.value, OSError)
    assert raised.value.port == port
    assert f"port {port} is already in use" in str(raised.value)
    assert "another --port" in str(raised.value)


@pytest.mark.integration  # a socket bound on 127.0.0.1
def test_a_bound_but_not_listening_socket_makes_the_port_in_use():
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        with pytest.raises(PortInUse):
            check_port_free(bound.getsockname()[1])


def test_an_out_of_range_port_is_refused():
    with pytest.raises(ValueError, match="out of range"):
        check_port_free(70000)
