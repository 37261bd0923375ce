"""Start the server (`python -m imagine_tf_serving`) as a child process and learn its address (tests, benchmarks, scripts)."""

from __future__ import annotations

import os
import pathlib
import re
import select
import subprocess
import sys

REPOSITORY = pathlib.Path(__file__).resolve().parents[1]


def launch(model_base_path: str | os.PathLike, *options: str) -> tuple[subprocess.Popen, str]:
    """(process, "127.0.0.1:PORT") of a server on a free loopback port, once it listens.

    ``options`` are more server flags (e.g. "--max_batch_size", "64"). Stop it with
    ``process.send_signal(signal.SIGTERM)`` (it drains, then exits with 0).
    """
    return launch_command(
        [
            sys.executable,
            "-m",
            __package__,  # the name this package was imported as: imagine_tf_serving
            "--model_base_path",
            str(model_base_path),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            *options,
        ]
    )


def launch_command(command: list[str], timeout: float = 180.0) -> tuple[subprocess.Popen, str]:
    """Runs a server command that prints "serving 'NAME' on HOST:PORT" once it listens; kills it
    and raises RuntimeError if it has not within ``timeout`` seconds."""
    path = os.pathsep.join(p for p in (str(REPOSITORY), os.environ.get("PYTHONPATH", "")) if p)
    environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": path}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment, text=True
    )
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    if not ready:
        process.kill()
        raise RuntimeError(f"the server printed nothing within {timeout:g} s: {command}")
    line = process.stdout.readline()  # "serving 'NAME' on 127.0.0.1:PORT" once listening
    match = _LISTENING.search(line)
    if not line.startswith("serving") or match is None:
        process.kill()
        raise RuntimeError(f"the server did not start (exit status {process.wait()}): {line!r}")
    # ", REST on HOST:PORT" when the REST API is on: its URL
    process.rest_url = f"http://127.0.0.1:{match['rest']}" if match["rest"] else None
    return process, f"127.0.0.1:{match['grpc']}"


_LISTENING = re.compile(r" on [^ ]+:(?P<grpc>\d+)(?:, REST on [^ ]+:(?P<rest>\d+))?")
