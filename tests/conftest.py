"""Shared by every test: quiet TensorFlow on one thread, fixed seeds, a cleared gin config on request, the
shared reward server, the slowest modules collected first and the `slow` tests' time limit."""

import dataclasses
import os
import pathlib
import random
import signal
import subprocess

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# One TensorFlow thread per process (this one and every process a test starts: the variables are
# inherited), as `imagine-tf ... --threads 1` runs: `make test` runs two test processes on two
# cores, and TensorFlow's default pools (one thread per core each) spin and contend with the
# other process's. It also keeps the learning tests' numerics the same whatever the number of cores.
os.environ.setdefault("TF_NUM_INTRAOP_THREADS", "1")
os.environ.setdefault("TF_NUM_INTEROP_THREADS", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def fixed_seeds():
    random.seed(0)
    np.random.seed(0)
    yield


@pytest.fixture
def clear_gin():
    """A gin config cleared before and after the test (`pytest.mark.usefixtures("clear_gin")`)."""
    import gin

    gin.clear_config()
    yield
    gin.clear_config()


@dataclasses.dataclass
class RunningServer:
    process: subprocess.Popen
    target: str  # "127.0.0.1:PORT" (gRPC)
    rest_url: str  # "http://127.0.0.1:PORT"
    model_dir: pathlib.Path  # its model base path: version 1, seed 0; label stable=1


@pytest.fixture(scope="session")
def reward_server(tmp_path_factory) -> RunningServer:
    """One reward server for the tests that only send it requests (gRPC and REST on
    127.0.0.1; tests/serving/, tests/client/): started once per test process, stopped with
    SIGTERM at the end (it must exit with 0)."""
    from imagine_tf_serving.launcher import launch
    from tests.serving.models import MAX_MESSAGE_MB, export, wait_available

    base = tmp_path_factory.mktemp("shared_server") / "reward"
    export(base, seed=0)
    process, target = launch(
        base,
        "--poll_seconds", "0.3",
        "--max_batch_size", "64",
        "--max_message_mb", str(MAX_MESSAGE_MB),
        "--rest_api_port", "0",
        "--version_labels", "stable=1",
    )  # fmt: skip
    try:
        wait_available(process.rest_url)
        yield RunningServer(process, target, process.rest_url, base)
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


#: The modules that take longest, slowest first. `make test` runs the suite on two workers
#: (pytest-xdist, a module per worker at a time): started first, they overlap the many short
#: modules instead of ending the run alone.
SLOWEST_MODULES = (
    "tests/cli/readme_commands_test.py",
    "tests/training/distributed_run_test.py",
    "tests/experiments/experiment_test.py",
    "tests/training/train_eval_learns_test.py",
    "tests/training/train_eval_test.py",
    "tests/reward/export_test.py",
    "tests/notebooks/tour_test.py",
    "tests/pretrained/pretrained_test.py",
    "tests/serving/serving_test.py",
    "tests/experiments/fork_grid_test.py",
    "tests/cli/main_test.py",
    "tests/client/tf_free_client_test.py",
)


#: The time limit of a `slow` test that sets none (setup.cfg's `timeout` is for the others).
SLOW_TIMEOUT = 900


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))
    rank = {module: index for index, module in enumerate(SLOWEST_MODULES)}
    root = config.rootpath

    def position(item) -> int:
        return rank.get(item.path.relative_to(root).as_posix(), len(rank))

    items.sort(key=position)  # stable: the other modules keep their order


def pytest_collection_finish(session):
    """Once every test module is imported (TensorFlow with them): the millions of objects alive
    now are never garbage, so the cyclic collector stops traversing them (`gc.freeze`); the
    full collections that tf.function tracing triggers then visit only what tests create."""
    import gc

    gc.freeze()
