"""Variables and run configuration through the replay server's 1-item tables."""

import threading
import time

import numpy as np
import pytest
import reverb

from imagine_tf.distributed.replay_server import VARIABLES_TABLE
from imagine_tf.distributed.variable_container import VariableContainer

from tests.waiting import SLACK_S

pytestmark = pytest.mark.integration


@pytest.fixture
def server(make_server):
    return make_server(2)


@pytest.fixture
def container(server):
    with VariableContainer(server.address, deadline_s=5, poll_s=0.01) as variable_container:
        yield variable_container


def weights(seed):
    rng = np.random.default_rng(seed)
    return {
        "actor/kernel": rng.random((4, 3), dtype=np.float32),
        "embeddings": rng.random((5, 100), dtype=np.float32),
        "version": np.array(seed, dtype=np.int64),
    }


def assert_same(got, expected):
    assert set(got) == set(expected)
    for key in expected:
        assert got[key].dtype == expected[key].dtype
        np.testing.assert_array_equal(got[key], expected[key])


def test_pull_before_any_push_returns_none_after_the_timeout(container):
    start = time.monotonic()
    assert container.pull() is None
    assert container.pull(timeout_s=0.2) is None
    assert 0.2 <= time.monotonic() - start < 0.2 + SLACK_S


def test_push_then_pull_round_trip(container):
    container.push(weights(1))
    assert_same(container.pull(), weights(1))


def test_a_second_push_replaces_the_first(server, container):
    container.push(weights(1))
    container.push(weights(2))
    assert_same(container.pull(), weights(2))
    assert reverb.Client(server.address).server_info(5)[VARIABLES_TABLE].current_size == 1


def test_pulling_leaves_the_item(server):
    pusher = VariableContainer(server.address, deadline_s=5)
    pusher.push(weights(3))
    pullers = [VariableContainer(server.address, deadline_s=5) for _ in range(2)]
    for _ in range(2):
        for puller in pullers:
            assert_same(puller.pull(), weights(3))


def test_pull_waits_for_a_push_within_its_timeout(server, container):
    pusher = VariableContainer(server.address, deadline_s=5)
    threading.Timer(0.2, pusher.push, args=(weights(4),)).start()
    assert_same(container.pull(timeout_s=5), weights(4))


def test_run_config_push_and_pull(container):
    assert container.pull_run_config() is None
    config = '{"agent": "ddpg", "goal": "Grasp red cat", "é": [1, 2]}'
    container.push_run_config(config)
    assert container.pull_run_config() == config
    container.push_run_config("{}")
    assert container.pull_run_config() == "{}"
    assert container.pull() is None  # The variables' table is another table.


def test_a_malformed_address_is_refused():
    with pytest.raises(ValueError, match="HOST:PORT"):
        VariableContainer("localhost")
