"""Actors and a learner on a real Reverb server on 127.0.0.1: runs, resumes and real kills.

Every process is started with a deadline and stopped by the test; the smoke config
(configs/smoke.gin: epochs of 10 cycles of 8 episodes, 40 updates per cycle) keeps each run
within seconds.
"""

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import pytest

from imagine_tf.distributed.address import free_port

pytestmark = pytest.mark.integration

SMOKE = str(pathlib.Path(__file__).resolve().parents[2] / "configs" / "smoke.gin")
ENVIRONMENT = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
CYCLES, EPISODES, UPDATES = 10, 8, 40  # configs/smoke.gin


def cli(*args) -> list[str]:
    return [sys.executable, "-m", "imagine_tf.cli.main", *map(str, args)]


def start(*args, log=None) -> subprocess.Popen:
    out = open(log, "wb") if log else subprocess.PIPE
    return subprocess.Popen(cli(*args), env=ENVIRONMENT, stdout=out, stderr=subprocess.STDOUT)


def epochs_done(root: pathlib.Path) -> list[int]:
    progress = root / "progress.jsonl"
    if not progress.exists():
        return []
    return [json.loads(line)["epoch"] for line in progress.read_text().splitlines()]


def wait_until(condition, timeout: float, what: str, process=None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        if process is not None and process.poll() is not None:
            out = process.stdout.read().decode() if process.stdout else ""
            pytest.fail(
                f"the process ended (code {process.returncode}) before {what}: {out[-3000:]}"
            )
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def children(pid: int, command: str = "actor") -> list[int]:
    """The ``imagine-tf <command>`` processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                arguments = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and command.encode() in arguments:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def finish(process: subprocess.Popen, timeout: float = 120) -> str:
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
        pytest.fail(f"still running after {timeout} s: {(out or b'').decode()[-3000:]}")
    return (out or b"").decode()


def test_two_actor_processes_train_and_an_actor_killed_mid_run_is_restarted(tmp_path):
    root = tmp_path / "run"
    learner = start(
        "train", "--gin-file", SMOKE, "--root-dir", root, "--actors", 2, "--num-epochs", 4
    )
    wait_until(
        lambda: len(children(learner.pid)) == 2 and epochs_done(root),
        180,
        "two actors and a first epoch",
        learner,
    )
    victim = sorted(children(learner.pid))[0]
    os.kill(victim, signal.SIGKILL)
    out = finish(learner, 240)
    assert learner.returncode == 0, out[-3000:]
    assert "exited (code -9); restarting it" in out
    assert epochs_done(root) == [1, 2, 3, 4]
    last = json.loads((root / "progress.jsonl").read_text().splitlines()[-1])
    # The update-to-data ratio is the config's whatever the actors did.
    assert last["episodes"] == 4 * CYCLES * EPISODES and last["updates"] == 4 * CYCLES * UPDATES
    assert last["actors"] in (1, 2)  # actor ids 0 and 1 (a restarted actor keeps its id)
    assert last["policy_lag_updates"] >= 0
    assert sorted(p.name for p in (root / "logs").iterdir()) == [
        "actor_0.log",
        "actor_1.log",
        "replay_server.log",
    ]
    assert not [pid for pid in (victim, *children(learner.pid)) if alive(pid)]
    assert (root / "logs" / "replay_server.log").exists()


def test_a_learner_killed_with_sigkill_resumes_from_its_checkpoint_replay_intact(tmp_path):
    root = tmp_path / "run"
    learner = start(
        "train", "--gin-file", SMOKE, "--root-dir", root, "--actors", 2, "--num-epochs", 6
    )
    wait_until(lambda: len(epochs_done(root)) >= 2, 180, "two epochs", learner)
    actors = children(learner.pid) + children(learner.pid, "replay-server")
    assert len(actors) == 3
    os.kill(learner.pid, signal.SIGKILL)
    learner.wait(timeout=30)
    done = epochs_done(root)
    # Actors and server die with their learner (no orphan keeps playing).
    wait_until(lambda: not any(alive(pid) for pid in actors), 30, "the actors to stop")
    resumed = start("train", "--root-dir", root, "--actors", 2)  # resumes with its config.gin
    out = finish(resumed, 240)
    assert resumed.returncode == 0, out[-3000:]
    assert epochs_done(root) == [1, 2, 3, 4, 5, 6] and len(done) >= 2
    last = json.loads((root / "progress.jsonl").read_text().splitlines()[-1])
    assert last["episodes"] == 6 * CYCLES * EPISODES  # nothing lost, nothing doubled
    from imagine_tf.training.config import TrainConfig
    from imagine_tf.training.train_eval import make_learner

    restored, _ = make_learner(TrainConfig.from_json((root / "config.json").read_text()), root)
    assert restored.replay.episodes_added == 6 * CYCLES * EPISODES
    assert restored.memory.states_added == 6 * CYCLES * EPISODES


def test_sigterm_stops_the_learner_and_its_processes_cleanly(tmp_path):
    root = tmp_path / "run"
    learner = start(
        "train", "--gin-file", SMOKE, "--root-dir", root, "--actors", 2, "--num-epochs", 50
    )
    wait_until(lambda: epochs_done(root), 180, "a first epoch", learner)
    helpers = children(learner.pid) + children(learner.pid, "replay-server")
    learner.send_signal(signal.SIGTERM)
    out = finish(learner, 60)
    assert learner.returncode == 130, out[-3000:]
    assert "stopped; the last checkpoint stands" in out and "Traceback" not in out
    assert len(helpers) == 3 and not any(alive(pid) for pid in helpers)


def test_three_commands_and_the_replay_server_gone(tmp_path):
    root, port = tmp_path / "run", free_port()
    address = f"127.0.0.1:{port}"
    server = start("replay-server", "--root-dir", root, "--port", port)
    wait_until(lambda: (root / "replay_server.json").exists(), 60, "the server", server)
    learner = start(
        "learner",
        "--root-dir",
        root,
        "--replay-server",
        address,
        "--gin-file",
        SMOKE,
        "--num-epochs",
        100,
        "--retry-seconds",
        3,
    )
    actor = start("actor", "--replay-server", address, "--actor-id", 3, "--retry-seconds", 3)
    wait_until(lambda: epochs_done(root), 180, "a first epoch", learner)
    server.send_signal(signal.SIGKILL)
    server.wait(timeout=30)
    for process in (learner, actor):
        out = finish(process, 90)  # retries for 3 s, then a clear exit: never a hang
        assert process.returncode == 1, out[-3000:]
        assert f"no replay server answered at {address}" in out
        assert "Traceback" not in out


def test_bad_addresses_a_busy_port_and_a_foreign_config_are_refused_clearly(tmp_path):
    bad = subprocess.run(
        cli("actor", "--replay-server", "localhost"),
        env=ENVIRONMENT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "expected HOST:PORT" in bad.stderr
    nobody = f"127.0.0.1:{free_port()}"
    unreachable = subprocess.run(
        cli("actor", "--replay-server", nobody, "--retry-seconds", 2),
        env=ENVIRONMENT,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert (
        unreachable.returncode == 1
        and f"no replay server answered at {nobody}" in unreachable.stderr
    )
    assert "Traceback" not in unreachable.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = subprocess.run(
            cli(
                "train",
                "--gin-file",
                SMOKE,
                "--root-dir",
                tmp_path / "r",
                "--actors",
                1,
                "--port",
                port,
            ),
            env=ENVIRONMENT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert busy.returncode == 2 and f"port {port} is already in use" in busy.stderr
    assert "Traceback" not in busy.stderr
    from imagine_tf.distributed.replay_server import ReplayServer
    from imagine_tf.distributed.variable_container import VariableContainer
    from imagine_tf.training.config import TrainConfig

    with ReplayServer(free_port(), 2) as server:
        with VariableContainer(f"127.0.0.1:{server.port}") as container:
            container.push_run_config(TrainConfig(batch_size=64).to_json())
        foreign = subprocess.run(
            cli(
                "actor",
                "--replay-server",
                f"127.0.0.1:{server.port}",
                "--gin-binding",
                "TrainConfig.batch_size = 32",
            ),
            env=ENVIRONMENT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert foreign.returncode == 2, foreign.stderr[-2000:]
    assert "batch_size: learner 64, actor 32" in foreign.stderr
