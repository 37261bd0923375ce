"""Actors and a learner on a real Reverb server on 127.0.0.1: runs, resumes and real kills.

Every process is started with a deadline and stopped by the test; the smoke config
(configs/agent/smoke.gin), with epochs of 2 cycles of 4 episodes and 10 updates, keeps each run
within seconds.
"""

import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys

import pytest

from imagine_tf.distributed.address import free_port
from tests.cli.in_process import main_here
from tests.waiting import wait_until

pytestmark = pytest.mark.integration

SMOKE = str(pathlib.Path(__file__).resolve().parents[2] / "configs" / "agent" / "smoke.gin")
ENVIRONMENT = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
CYCLES, EPISODES, UPDATES = 2, 4, 10
SMALL_EPOCHS = [
    *("--gin-binding", f"TrainConfig.cycles_per_epoch = {CYCLES}"),
    *("--gin-binding", f"TrainConfig.episodes_per_cycle = {EPISODES}"),
    *("--gin-binding", f"TrainConfig.updates_per_cycle = {UPDATES}"),
]
EPOCHS_UNREACHED = 1000  # the first two bring-ups are stopped long before it
QUEUE_CYCLES = 3  # the run's queue (2 by default)


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
        out, _ = process.communicate(timeout=30)
        pytest.fail(f"still running after {timeout} s: {(out or b'').decode()[-3000:]}")
    return (out or b"").decode()


def evaluations(log: pathlib.Path) -> list[int]:
    """The epochs that the evaluator's log says it evaluated, in order."""
    text = log.read_text() if log.exists() else ""
    return [int(epoch) for epoch in re.findall(r"epoch (\d+): train SR", text)]


def helpers(pid: int) -> list[int]:
    """The actors, the replay server and the evaluator of the learner ``pid``."""
    return children(pid) + children(pid, "replay-server") + children(pid, "evaluator")


@pytest.fixture(scope="module")
def faults(tmp_path_factory) -> dict:
    """One run through every fault, brought up three times: a learner with two actor processes
    loses an actor and its evaluator (both restarted), is paused (SIGSTOP) until the restarted
    evaluator has evaluated, is killed with SIGKILL (its actors, evaluator and server die with
    it), resumes with one actor (evaluating in the learner from here on), is stopped with
    SIGTERM, and resumes in one process (this one) for one more epoch (a distributed run's
    checkpoint is an ordinary run's). The run's queue holds QUEUE_CYCLES batches; its
    config.gin, which the resumes keep, makes no agent.gif. Returns what each step saw: {"root",
    "killed_actor", "killed_evaluator", "evaluations", "helpers_at_kill", "epochs_at_kill",
    "helpers_at_stop", "epochs", "stop_code", "stop_out", "first_out", "last_code", "last_out"}."""
    root = tmp_path_factory.mktemp("faults") / "run"
    seen = {"root": root}
    learner = start(
        "train", "--gin-file", SMOKE, *SMALL_EPOCHS, "--gin-binding", "train_eval.demo_goals = ()",
        "--gin-binding", f"TrainConfig.queue_cycles = {QUEUE_CYCLES}", "--root-dir", root,
        "--actors", 2, "--num-epochs", EPOCHS_UNREACHED, log=first_log(root),
    )  # fmt: skip
    try:
        evaluated = kill_an_actor_and_the_evaluator(learner, root, seen)
        pause_then_kill_the_learner(learner, evaluated, root, seen)
    finally:
        learner.kill()  # (if a step failed: its helpers stop with it)
    resume_then_stop(root, seen)
    seen["epochs"] = len(epochs_done(root)) + 1  # the last bring-up trains one more epoch
    code, out, err = main_here("train", "--root-dir", root, "--num-epochs", seen["epochs"])
    seen["last_code"], seen["last_out"] = code, out + err
    return seen


def first_log(root: pathlib.Path) -> pathlib.Path:
    """The output of the first bring-up's learner."""
    return root.parent / "first.log"


def kill_an_actor_and_the_evaluator(
    learner: subprocess.Popen, root: pathlib.Path, seen: dict
) -> int:
    """Kills an actor once an epoch is done, then the evaluator once it has evaluated, and
    waits for the learner to restart both; how many evaluations the killed evaluator made."""
    wait_until(
        lambda: epochs_done(root) and len(children(learner.pid)) == 2,
        timeout=180,
        interval=0.2,
        what="two actors and a first epoch",
        process=learner,
    )
    seen["killed_actor"] = sorted(children(learner.pid))[0]
    os.kill(seen["killed_actor"], signal.SIGKILL)
    evaluator_log = root / "logs" / "evaluator.log"
    wait_until(
        lambda: evaluations(evaluator_log),
        timeout=180,
        interval=0.2,
        what="the evaluator's first evaluation",
        process=learner,
    )
    seen["killed_evaluator"] = children(learner.pid, "evaluator")[0]
    os.kill(seen["killed_evaluator"], signal.SIGKILL)
    evaluated = len(evaluations(evaluator_log))
    wait_until(
        lambda: first_log(root).read_text().count("restarting it") >= 2
        and len(epochs_done(root)) >= 2,
        timeout=180,
        interval=0.2,
        what="the actor's and the evaluator's restarts, a second epoch",
        process=learner,
    )
    return evaluated


def pause_then_kill_the_learner(
    learner: subprocess.Popen, evaluated: int, root: pathlib.Path, seen: dict
) -> None:
    """Pauses the learner (it trains no further epochs meanwhile) until the restarted
    evaluator has evaluated its last request, then kills it with SIGKILL."""
    learner.send_signal(signal.SIGSTOP)
    evaluator_log = root / "logs" / "evaluator.log"
    wait_until(
        lambda: len(evaluations(evaluator_log)) > evaluated,
        timeout=180,
        interval=0.2,
        what="an evaluation by the restarted evaluator",
        process=learner,
    )
    seen["evaluations"] = evaluations(evaluator_log)
    seen["helpers_at_kill"] = helpers(learner.pid)
    os.kill(learner.pid, signal.SIGKILL)
    learner.wait(timeout=30)
    seen["epochs_at_kill"] = epochs_done(root)
    seen["first_out"] = first_log(root).read_text()
    # Actors and server die with their learner (no orphan keeps playing).
    wait_until(
        lambda: not any(alive(pid) for pid in seen["helpers_at_kill"]),
        timeout=30,
        interval=0.2,
        what="the helpers to stop",
    )


def resume_then_stop(root: pathlib.Path, seen: dict) -> None:
    """The second bring-up: resumes with its config.gin and one actor, the learner evaluating
    (no evaluator process), until an epoch is done; then SIGTERM."""
    resumed = start(
        "train",
        "--root-dir",
        root,
        "--actors",
        1,
        "--evaluate-in-learner",
    )
    at_kill = len(seen["epochs_at_kill"])
    wait_until(
        lambda: len(epochs_done(root)) > at_kill,
        timeout=180,
        interval=0.2,
        what="an epoch after resuming",
        process=resumed,
    )
    seen["helpers_at_stop"] = helpers(resumed.pid)
    resumed.send_signal(signal.SIGTERM)
    seen["stop_out"] = finish(resumed, 60)
    seen["stop_code"] = resumed.returncode


def test_an_actor_and_the_evaluator_killed_mid_run_are_restarted(faults):
    assert "exited (code -9); restarting it" in faults["first_out"]
    assert "evaluator exited (code -9); restarting it" in faults["first_out"]
    assert not alive(faults["killed_actor"]) and not alive(faults["killed_evaluator"])
    root = faults["root"]
    assert sorted(p.name for p in (root / "logs").iterdir()) == [
        "actor_0.log",
        "actor_1.log",
        "evaluator.log",
        "replay_server.log",
    ]


def test_the_evaluator_evaluates_the_epochs_and_the_learner_records_the_last(faults):
    root = faults["root"]
    records = [json.loads(line) for line in (root / "progress.jsonl").read_text().splitlines()]
    assert records[-1]["eval_train_success"] is not None
    assert 0 <= records[-1]["eval_train_success"] <= 1 and records[-1]["seconds_evaluation"] > 0
    # the killed evaluator's restart went on evaluating the learner's epochs, in order
    evaluated = faults["evaluations"]
    assert len(evaluated) >= 2 and evaluated == sorted(evaluated), evaluated
    assert set(evaluated) <= set(range(1, faults["epochs"] + 1)), evaluated


def test_a_learner_killed_with_sigkill_takes_its_helpers_and_resumes_replay_intact(faults):
    assert len(faults["helpers_at_kill"]) == 4 and len(faults["epochs_at_kill"]) >= 2
    assert faults["last_code"] == 0, faults["last_out"][-3000:]
    root = faults["root"]
    epochs = faults["epochs"]
    assert epochs_done(root) == list(range(1, epochs + 1))  # each epoch logged once, in order
    last = json.loads((root / "progress.jsonl").read_text().splitlines()[-1])
    # Nothing lost, nothing doubled; the update-to-data ratio is the config's whatever the
    # actors did.
    assert last["episodes"] == epochs * CYCLES * EPISODES
    assert last["updates"] == epochs * CYCLES * UPDATES
    assert last["actors"] in (1, 2)  # actor ids 0 and 1 (a restarted actor keeps its id)
    assert last["policy_lag_updates"] >= 0
    from imagine_tf.agent.config import TrainConfig
    from imagine_tf.training.train_eval import make_learner

    restored, _ = make_learner(TrainConfig.from_json((root / "config.json").read_text()), root)
    assert restored.replay.episodes_added == epochs * CYCLES * EPISODES
    assert restored.memory.states_added == epochs * CYCLES * EPISODES


def test_the_replay_server_of_a_resumed_run_sizes_its_queue_by_the_run_config(faults):
    served = json.loads((faults["root"] / "replay_server.json").read_text())
    assert served["queue_capacity"] == QUEUE_CYCLES


def test_sigterm_stops_the_learner_and_its_processes_cleanly(faults):
    out = faults["stop_out"]
    assert faults["stop_code"] == 130, out[-3000:]
    assert "stopped; the last checkpoint stands" in out and "Traceback" not in out
    helpers = faults["helpers_at_stop"]
    assert len(helpers) == 2 and not any(alive(pid) for pid in helpers)  # server, actor


def test_three_commands_and_the_replay_server_gone(tmp_path):
    root, port = tmp_path / "run", free_port()
    address = f"127.0.0.1:{port}"
    server = start("replay-server", "--root-dir", root, "--port", port)
    wait_until(
        lambda: (root / "replay_server.json").exists(),
        timeout=60,
        interval=0.2,
        what="the server",
        process=server,
    )
    learner = start(
        "learner", "--root-dir", root, "--replay-server", address, "--gin-file", SMOKE,
        *SMALL_EPOCHS, "--num-epochs", EPOCHS_UNREACHED, "--retry-seconds", 3,
    )  # fmt: skip
    actor = start("actor", "--replay-server", address, "--actor-id", 3, "--retry-seconds", 3)
    wait_until(
        lambda: epochs_done(root), timeout=180, interval=0.2, what="a first epoch", process=learner
    )
    server.send_signal(signal.SIGKILL)
    server.wait(timeout=30)
    for process in (learner, actor):
        out = finish(process, 90)  # retries for 3 s, then a clear exit: never a hang
        assert process.returncode == 1, out[-3000:]
        assert f"no replay server answered at {address}" in out
        assert "Traceback" not in out


@pytest.mark.usefixtures("clear_gin")  # tests/conftest.py
def test_bad_addresses_a_busy_port_and_a_foreign_config_are_refused_clearly(tmp_path, capsys):
    from imagine_tf.cli.main import main

    def refused(*argv) -> tuple[int, str]:
        code = main([str(arg) for arg in argv])
        return code, capsys.readouterr().err

    code, err = refused("actor", "--replay-server", "localhost")
    assert code == 2 and "expected HOST:PORT" in err
    nobody = f"127.0.0.1:{free_port()}"
    for command in ("actor", "evaluator"):
        code, err = refused(command, "--replay-server", nobody, "--retry-seconds", 0.5)
        assert code == 1 and f"no replay server answered at {nobody}" in err, command
    code, err = refused("evaluator", "--replay-server", "localhost")
    assert code == 2 and "expected HOST:PORT" in err
    code, err = refused("train", "--root-dir", tmp_path / "one", "--evaluate-in-learner")
    assert code == 2 and "--evaluate-in-learner goes with --actors K" in err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, err = refused(
            "train", "--gin-file", SMOKE, "--root-dir", tmp_path / "r", "--actors", 1,
            "--port", port,
        )  # fmt: skip
    assert code == 2 and f"port {port} is already in use" in err
    from imagine_tf.distributed.replay_server import ReplayServer
    from imagine_tf.distributed.variable_container import VariableContainer
    from imagine_tf.agent.config import TrainConfig

    with ReplayServer(free_port(), 2) as server:
        with VariableContainer(f"127.0.0.1:{server.port}") as container:
            container.push_run_config(TrainConfig(batch_size=64).to_json())
        code, err = refused(
            "actor", "--replay-server", f"127.0.0.1:{server.port}",
            "--gin-binding", "TrainConfig.batch_size = 32",
        )  # fmt: skip
    assert code == 2, err[-2000:]
    assert "batch_size: learner 64, actor 32" in err
