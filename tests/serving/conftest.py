"""One reward server for the tests that only send it requests (gRPC and REST on 127.0.0.1):
started once per test process, stopped with SIGTERM at the end (it must exit with 0)."""

import dataclasses
import pathlib
import signal
import subprocess

import pytest

from tests.serving.models import MAX_MESSAGE_MB, export, wait_available


@dataclasses.dataclass
class RunningServer:
    process: subprocess.Popen
    target: str  # "127.0.0.1:PORT" (gRPC)
    rest_url: str  # "http://127.0.0.1:PORT"
    model_dir: pathlib.Path  # its model base path: version 1, seed 0; label stable=1


@pytest.fixture(scope="session")
def reward_server(tmp_path_factory) -> RunningServer:
    from serving.launcher import launch

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
