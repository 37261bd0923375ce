"""RunLock: one process trains into a run directory; the lock dies with its holder."""

import os
import subprocess
import sys

import pytest

from imagine_tf.runs.lock import RunDirectoryBusy, RunLock


def test_a_second_writer_is_refused_with_the_holders_pid_and_the_lock_is_released(tmp_path):
    with RunLock(tmp_path / "run"):
        with pytest.raises(RunDirectoryBusy, match=f"pid {os.getpid()}.*another --root-dir"):
            with RunLock(tmp_path / "run"):
                pass
    with RunLock(tmp_path / "run"):  # released on exit
        pass


def test_readers_share_the_lock_and_exclude_a_writer(tmp_path):
    """Two forks of one trunk copy it together; neither copies it while it trains."""
    with RunLock(tmp_path, shared=True), RunLock(tmp_path, shared=True):
        with pytest.raises(RunDirectoryBusy):
            with RunLock(tmp_path):
                pass
    with RunLock(tmp_path):
        with pytest.raises(RunDirectoryBusy, match=f"pid {os.getpid()}"):
            with RunLock(tmp_path, shared=True):
                pass
    with RunLock(tmp_path, shared=True):  # released on exit
        pass


def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from imagine_tf.runs.lock import RunLock\n"
            f"with RunLock({str(tmp_path)!r}):\n    print('locked', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(RunDirectoryBusy, match=f"pid {holder.pid}"):
            with RunLock(tmp_path):
                pass
    finally:
        holder.kill()
        holder.wait(timeout=30)
    with RunLock(tmp_path):  # the kernel dropped the dead process's lock
        pass
