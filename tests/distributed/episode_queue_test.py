"""Batches of episodes through the replay server's FIFO queue."""

import threading
import time

import numpy as np
import pytest

from imagine_tf.distributed.codec import array_text, text_array
from imagine_tf.distributed.episode_queue import EpisodeReader, EpisodeWriter

from tests.waiting import SLACK_S

pytestmark = pytest.mark.integration
CAPACITY = 3


@pytest.fixture
def server(make_server):
    return make_server(CAPACITY)


@pytest.fixture
def writer(server):
    with EpisodeWriter(server.address, deadline_s=5, poll_s=0.05) as episode_writer:
        yield episode_writer


@pytest.fixture
def reader(server):
    return EpisodeReader(server.address, deadline_s=5)


def item(index, episodes=2):
    return {
        "index": np.array(index, dtype=np.int64),
        "observations": np.full((episodes, 4, 6), index, dtype=np.float32),
        "achieved": np.arange(episodes * 3).reshape(episodes, 3) % 2 == 0,
    }


def indices(items):
    return [int(taken["index"]) for taken in items]


def test_items_come_out_in_order_and_once(writer, reader):
    for index in range(CAPACITY):
        assert writer.write(item(index))
    assert reader.size() == CAPACITY
    assert indices(reader.take(2, timeout_s=1)) == [0, 1]
    assert indices(reader.take(5, timeout_s=0.1)) == [2]
    assert reader.take(5, timeout_s=0) == [] and reader.size() == 0


def test_items_keep_their_dtypes_and_shapes(writer, reader):
    sent = {
        "observations": np.random.rand(12, 51, 120).astype(np.float32),
        "goal_ids": np.arange(12, dtype=np.int64),
        "achieved": np.random.rand(12, 200) < 0.5,
        "goal": text_array("Grasp any animal"),
        "step": np.array(3, dtype=np.int32),
    }
    assert writer.write(sent)
    (got,) = reader.take(1, timeout_s=1)
    assert set(got) == set(sent)
    for key, value in sent.items():
        assert got[key].dtype == value.dtype and got[key].shape == value.shape, key
        np.testing.assert_array_equal(got[key], value)
    assert array_text(got["goal"]) == "Grasp any animal"
    # Items of another layout (fewer episodes) go through the same writer.
    assert writer.write(item(0, episodes=1)) and writer.write(item(1, episodes=3))
    assert [taken["observations"].shape[0] for taken in reader.take(2, timeout_s=1)] == [1, 3]


def test_take_on_an_empty_queue_returns_nothing_after_its_timeout(reader):
    start = time.monotonic()
    assert reader.take(1, timeout_s=0) == []
    assert time.monotonic() - start < SLACK_S
    start = time.monotonic()
    assert reader.take(4, timeout_s=0.2) == []
    assert 0.2 <= time.monotonic() - start < 0.2 + SLACK_S
    assert reader.take(0, timeout_s=1) == []


def test_take_waits_for_items_written_meanwhile(server, reader):
    def write_later():
        with EpisodeWriter(server.address, deadline_s=5) as late_writer:
            time.sleep(0.2)
            late_writer.write(item(7))
            late_writer.write(item(8))

    thread = threading.Thread(target=write_later)
    thread.start()
    assert indices(reader.take(2, timeout_s=5)) == [7, 8]
    thread.join(5)


def test_a_full_queue_makes_write_wait_until_the_reader_takes_one(writer, reader):
    for index in range(CAPACITY):
        assert writer.write(item(index))
    done = threading.Event()
    thread = threading.Thread(target=lambda: writer.write(item(CAPACITY)) and done.set())
    thread.start()
    assert not done.wait(0.3)  # Still waiting for room.
    assert indices(reader.take(1, timeout_s=1)) == [0]
    assert done.wait(3)
    thread.join(1)
    assert indices(reader.take(CAPACITY, timeout_s=1)) == [1, 2, 3]


def test_a_waiting_write_honours_should_stop_and_timeout(writer, reader):
    for index in range(CAPACITY):
        assert writer.write(item(index))
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    start = time.monotonic()
    assert writer.write(item(10), should_stop=stop.is_set) is False
    assert 0.2 <= time.monotonic() - start < 0.2 + SLACK_S
    start = time.monotonic()
    assert writer.write(item(11), timeout_s=0.2) is False
    assert 0.2 <= time.monotonic() - start < 0.2 + SLACK_S
    # Reverb cannot withdraw a pending insert: the item lands once room is made, and only once.
    taken = reader.take(CAPACITY, timeout_s=1)
    taken += reader.take(CAPACITY, timeout_s=0.5)
    assert sorted(indices(taken)) == [0, 1, 2, 10, 11]
    assert reader.size() == 0


def test_a_malformed_address_is_refused():
    with pytest.raises(ValueError, match="HOST:PORT"):
        EpisodeWriter("localhost:")
    with pytest.raises(ValueError, match="HOST:PORT"):
        EpisodeReader("host:abc")
