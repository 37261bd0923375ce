"""A copy of a run's checkpoint taken while the run saves is retaken until consistent."""

import os
import shutil

import pytest

from imagine_tf.runs import snapshot as checkpoint_snapshot
from imagine_tf.runs.snapshot import SnapshotError, snapshot_checkpoint


def make_checkpoint(root, name, epoch):
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "state.npz").write_text(f"epoch {epoch}")
    (directory / "tf.index").write_text(f"epoch {epoch}")


def save_like_the_trainer(root, epoch):
    """`LearnerCheckpoint.save`: a new directory, the landed one renamed away, the new one in."""
    make_checkpoint(root, "checkpoint.tmp", epoch)
    os.replace(root / "checkpoint", root / "checkpoint.old")
    os.replace(root / "checkpoint.tmp", root / "checkpoint")
    shutil.rmtree(root / "checkpoint.old")


@pytest.fixture
def run(tmp_path):
    root = tmp_path / "run"
    make_checkpoint(root, "checkpoint", 1)
    (root / "config.json").write_text("{}")
    return root


def test_a_quiet_run_is_copied_once(run, tmp_path):
    into = snapshot_checkpoint(run, tmp_path / "copy", wait_seconds=0)
    assert (into / "config.json").read_text() == "{}"
    assert (into / "checkpoint" / "state.npz").read_text() == "epoch 1"


def test_a_copy_overtaken_by_a_save_is_taken_again(run, tmp_path, monkeypatch):
    real_copytree, calls = shutil.copytree, []

    def copy_then_the_run_saves(source, destination):
        calls.append(source)
        real_copytree(source, destination)
        if len(calls) == 1:  # the run lands epoch 2 while the first copy finishes
            save_like_the_trainer(run, 2)

    monkeypatch.setattr(checkpoint_snapshot.shutil, "copytree", copy_then_the_run_saves)
    into = snapshot_checkpoint(run, tmp_path / "copy", wait_seconds=0)
    assert len(calls) == 2  # the first copy (epoch 1, from a directory renamed since) was dropped
    assert (into / "checkpoint" / "state.npz").read_text() == "epoch 2"
    assert (into / "checkpoint" / "tf.index").read_text() == "epoch 2"


def test_a_run_that_always_saves_during_the_copy_is_a_clear_error(run, tmp_path, monkeypatch):
    real_copytree, epochs = shutil.copytree, iter(range(2, 100))

    def copy_then_the_run_saves(source, destination):
        real_copytree(source, destination)
        save_like_the_trainer(run, next(epochs))

    monkeypatch.setattr(checkpoint_snapshot.shutil, "copytree", copy_then_the_run_saves)
    with pytest.raises(SnapshotError, match="overtaken by a save"):
        snapshot_checkpoint(run, tmp_path / "copy", attempts=3, wait_seconds=0)


def test_an_interrupted_save_falls_back_to_the_old_checkpoint(run, tmp_path):
    os.replace(run / "checkpoint", run / "checkpoint.old")  # killed between the two renames
    into = snapshot_checkpoint(run, tmp_path / "copy", wait_seconds=0)
    assert (into / "checkpoint.old" / "state.npz").read_text() == "epoch 1"


def test_no_checkpoint_is_a_clear_error(run, tmp_path):
    shutil.rmtree(run / "checkpoint")
    with pytest.raises(FileNotFoundError, match="train at least one epoch"):
        snapshot_checkpoint(run, tmp_path / "copy", wait_seconds=0)
