"""Data-parallel DDPG workers (`distributed/data_parallel.py`) as real processes on 127.0.0.1 under
MultiWorkerMirroredStrategy: equal weights after every run of steps, the same steps as one
learner on their batches put together, and a bounded failure when a peer is killed."""

import signal
import subprocess
import time

import numpy as np
import pytest

from imagine_tf.distributed.data_parallel import GradientAllReduce, worker_strategy
from imagine_tf.benchmarks.data_parallel_worker import worker_process
from imagine_tf.distributed.address import free_port

pytestmark = pytest.mark.timeout(180)


def start(workers: str, index: int, reduction: str, out, *options) -> subprocess.Popen:
    """A worker (`imagine_tf.benchmarks.data_parallel_worker`): 3 updates of MA networks of
    width 32 on its 16 transitions, its weights to ``out``."""
    options = ["--weights", str(out), "--reduction", reduction.removesuffix("_cycle"), *options]
    return worker_process(workers, index, options + ["--cycle"] * reduction.endswith("_cycle"))


def finish(process: subprocess.Popen, timeout: float = 120) -> str:
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        pytest.fail(f"a worker did not finish in {timeout} s:\n{output[-2000:]}")
    return output


def cluster() -> str:
    return ",".join(f"127.0.0.1:{free_port()}" for _ in range(2))


@pytest.mark.parametrize(
    "reduction",  # "_cycle": the steps as `update_cycle.pipelined_steps` pipelines them, in one graph
    [
        "sum_cycle",
        pytest.param("sum", marks=pytest.mark.slow),
        pytest.param("mean", marks=pytest.mark.slow),
    ],
)
def test_two_workers_stay_equal_and_step_as_one_learner_on_both_batches(tmp_path, reduction):
    workers = cluster()
    processes = [start(workers, i, reduction, tmp_path / f"w{i}.npz") for i in (0, 1)]
    single = start("", 0, reduction, tmp_path / "single.npz")
    for process in (*processes, single):
        output = finish(process)
        assert process.returncode == 0, output[-3000:]
    first, second, alone = (np.load(tmp_path / f) for f in ("w0.npz", "w1.npz", "single.npz"))
    trained = [name for name in first.files if not name.startswith("initial/")]
    assert first.files == second.files and len(trained) > 8
    for name in trained:  # the same ops on the same all-reduced gradients
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)
    for name in trained:  # float rounding of one gradient summed in two halves
        np.testing.assert_allclose(first[name], alone[name], rtol=1e-4, atol=1e-6, err_msg=name)
    critic = [name for name in trained if name.startswith("critic/")]
    moved = [np.abs(first[n] - first[f"initial/{n.split('/')[1]}"]).max() for n in critic]
    assert min(moved) > 1e-4  # three Adam steps moved every critic weight


def test_a_killed_peer_stops_the_other_worker_within_the_collective_timeout(tmp_path):
    workers = cluster()
    survivor = start(workers, 0, "sum", tmp_path / "w0.npz")
    victim = start(
        workers, 1, "sum", tmp_path / "w1.npz", "--pause", "60"
    )  # sleeps after its 1st step
    stepped, deadline = tmp_path / "w1.npz.stepped", time.monotonic() + 90
    while not stepped.exists() and time.monotonic() < deadline and victim.poll() is None:
        time.sleep(0.2)
    assert stepped.exists(), finish(victim, timeout=5)
    victim.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    victim.wait(10)
    output = finish(survivor, timeout=60)
    took = time.monotonic() - killed_at
    assert victim.returncode == -signal.SIGKILL
    assert survivor.returncode != 0 and not (tmp_path / "w0.npz").exists()
    assert any(e in output for e in ("DeadlineExceeded", "Unavailable", "Cancelled")), output
    assert took < 30, took  # the collectives' timeout is 5 s; the heartbeat's ≈ 15 s


def test_workers_started_with_other_settings_are_refused_naming_what_differs(tmp_path):
    workers = cluster()
    first = start(workers, 0, "sum", tmp_path / "w0.npz", "--seed", "0")
    second = start(workers, 1, "sum", tmp_path / "w1.npz", "--seed", "1")
    for process in (first, second):
        output = finish(process, timeout=90)
        assert process.returncode != 0
        assert "worker 1's configuration differs from worker 0's in seed: 0 vs 1" in output, output
    assert not (tmp_path / "w0.npz").exists() and not (tmp_path / "w1.npz").exists()


def test_bad_worker_settings_are_refused_with_what_to_give():
    with pytest.raises(ValueError, match=r"worker index 2 is not among the 2 workers"):
        worker_strategy(["127.0.0.1:1", "127.0.0.1:2"], 2)
    with pytest.raises(ValueError, match=r"reduction must be one of \('sum', 'mean'\)"):
        GradientAllReduce(strategy=None, reduction="max")
