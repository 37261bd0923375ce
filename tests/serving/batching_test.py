"""The batch scheduler: merging, splitting, failures one by one, bounds, shutdown.

The runner here is a plain function of arrays (the scheduler only needs ``input_specs``,
``input_names`` and ``run``); the integration test runs the real server with batching on.
"""

import threading
from concurrent import futures

import numpy as np
import pytest

from imagine_tf_serving.batching import BatchingOptions, BatchingRunner, QueueFullError
from tests.waiting import wait_until


class DoublingRunner:
    """outputs: y = 2 x; a negative x fails the whole run, like a model assertion."""

    input_names, input_specs = ["x"], {"x": None}

    def __init__(self, hold_first=False):
        self.sizes, self.release = [], threading.Event()
        self.hold_first = hold_first
        if not hold_first:
            self.release.set()

    def run(self, inputs):
        self.sizes.append(len(inputs["x"]))
        self.release.wait(10)
        if (inputs["x"] < 0).any():
            raise ValueError("negative input")
        return {"y": 2 * inputs["x"], "n": np.full(len(inputs["x"]), len(inputs["x"]))}


def _submit_while_first_runs(runner, batching, requests):
    """Sends requests[0], waits until it runs, sends the rest, then releases the runner."""
    with futures.ThreadPoolExecutor(len(requests)) as pool:
        first = pool.submit(batching.run, {"x": requests[0]})
        wait_until(lambda: runner.sizes, what="the first request to run")
        rest = [pool.submit(batching.run, {"x": x}) for x in requests[1:]]
        waiting = sum(len(x) for x in requests[1:])
        wait_until(lambda: batching._waiting_rows >= waiting, what="the other requests to queue")
        runner.release.set()
        return [first, *rest]


def test_requests_waiting_together_run_as_one_batch_and_get_their_own_rows():
    runner = DoublingRunner(hold_first=True)
    batching = BatchingRunner(runner, BatchingOptions(max_batch_size=64))
    requests = [np.arange(k, k + 1 + k % 3, dtype=np.float32) for k in range(9)]
    results = [f.result(timeout=10) for f in _submit_while_first_runs(runner, batching, requests)]
    assert runner.sizes == [1, sum(len(x) for x in requests[1:])]  # the 8 waiting: one run
    for x, result in zip(requests, results):
        np.testing.assert_array_equal(result["y"], 2 * x)
    batching.close()


def test_a_failing_request_fails_alone_and_the_others_are_answered():
    runner = DoublingRunner(hold_first=True)
    batching = BatchingRunner(runner, BatchingOptions(max_batch_size=64))
    requests = [
        np.ones(2, np.float32),
        np.ones(1, np.float32),
        -np.ones(1, np.float32),
        np.full(3, 5.0, np.float32),
    ]
    calls = _submit_while_first_runs(runner, batching, requests)
    np.testing.assert_array_equal(calls[1].result(10)["y"], [2.0])
    np.testing.assert_array_equal(calls[3].result(10)["y"], [10.0] * 3)
    assert calls[3].result(10)["n"][0] == 3  # run alone after the merged run failed
    with pytest.raises(ValueError, match="negative"):
        calls[2].result(10)
    batching.close()


def test_batches_respect_max_size_and_large_requests_run_alone():
    runner = DoublingRunner(hold_first=True)
    batching = BatchingRunner(runner, BatchingOptions(max_batch_size=4))
    requests = [np.ones(1, np.float32)] + [np.ones(3, np.float32)] * 3
    calls = _submit_while_first_runs(runner, batching, requests)
    assert all(f.result(10)["y"].shape == (len(x),) for f, x in zip(calls, requests))
    assert max(runner.sizes) <= 4
    big = batching.run({"x": np.ones(9, np.float32)})
    assert big["n"][0] == 9 and runner.sizes[-1] == 9
    batching.close()


def test_a_full_queue_refuses_and_a_closed_runner_runs_requests_directly():
    runner = DoublingRunner(hold_first=True)
    batching = BatchingRunner(runner, BatchingOptions(max_batch_size=2, max_enqueued_batches=1))
    with futures.ThreadPoolExecutor(2) as pool:
        first = pool.submit(batching.run, {"x": np.ones(1, np.float32)})
        wait_until(lambda: runner.sizes, what="the first request to run")
        second = pool.submit(batching.run, {"x": np.ones(2, np.float32)})  # fills the queue
        wait_until(lambda: batching._waiting_rows >= 2, what="the second request to queue")
        with pytest.raises(QueueFullError, match="full"):
            batching.run({"x": np.ones(1, np.float32)})
        runner.release.set()
        assert first.result(10)["y"].tolist() == [2.0] and second.result(10)["y"].shape == (2,)
    batching.close()
    batching._thread.join(5)
    assert not batching._thread.is_alive()
    assert batching.run({"x": np.ones(1, np.float32)})["y"].tolist() == [2.0]


def test_options_are_checked():
    with pytest.raises(ValueError, match="max_batch_size"):
        BatchingOptions(max_batch_size=0)
