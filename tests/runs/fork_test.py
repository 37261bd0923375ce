"""Forking a run: the fork continues the source's checkpoint with changed settings; what cannot be
forked is refused before anything is written."""

import dataclasses
import json
import os
import shutil

import pytest

from imagine_tf.runs.config_keys import replaced
from imagine_tf.runs.fork import ForkError, fork_run, fork_source
from imagine_tf.runs.lock import RunDirectoryBusy, RunLock
from imagine_tf.agent.config import TrainConfig
from imagine_tf.training.train_eval import train
from tests.configs.earlier_layout import earlier_layout

TINY = TrainConfig(
    reward="oracle",
    episodes_per_cycle=4,
    cycles_per_epoch=2,
    updates_per_cycle=2,
    batch_size=16,
    num_candidates=5,
    replay_capacity=100,
    memory_capacity=100,
)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    root = tmp_path_factory.mktemp("source")
    train(TINY, root, num_epochs=2, progress=False)
    return root


def test_the_fork_resumes_the_source_checkpoint_with_the_changed_setting(source, tmp_path):
    config = replaced(TINY, {"batch_size": 32, "reward_model.patience": 3})
    record = fork_run(source, tmp_path / "fork", config)
    assert record["epoch"] == 2 and record["source"] == str(source.resolve())
    assert record["changed"] == {"batch_size": [16, 32], "reward_model.patience": [15, 3]}
    assert json.loads((tmp_path / "fork" / "fork.json").read_text()) == record
    assert fork_source(tmp_path / "fork") == str(source.resolve())
    assert fork_source(tmp_path / "fork", source) == str(source.resolve())
    with pytest.raises(ForkError, match="is a fork of .*, not of"):
        fork_source(tmp_path / "fork", tmp_path / "another_run")
    for path in (source / "replay").iterdir():  # replay files are shared, not copied
        assert os.path.samefile(path, tmp_path / "fork" / "replay" / path.name)
    fork, logs = train(config, tmp_path / "fork", num_epochs=3, progress=False)
    assert [r["epoch"] for r in logs] == [3] and fork.replay.episodes_added == 3 * 2 * 4
    assert logs[0]["updates"] == 2 * 2 * 2 + 2 * 2  # two epochs of the source, one of the fork
    lines = (tmp_path / "fork" / "progress.jsonl").read_text().splitlines()
    assert [json.loads(x)["epoch"] for x in lines] == [1, 2, 3]
    assert len((source / "progress.jsonl").read_text().splitlines()) == 2  # source untouched
    assert json.loads((source / "config.json").read_text())["batch_size"] == 16
    from imagine_tf.analysis.success_report import run_rows

    assert run_rows(tmp_path / "fork")[-1]["forked_from"] == {
        "source": str(source.resolve()),
        "epoch": 2,
        "changed": record["changed"],
    }


def test_a_setting_added_after_the_source_started_is_recorded_against_its_default(source, tmp_path):
    stored = json.loads((source / "config.json").read_text())
    older = tmp_path / "older"
    shutil.copytree(source, older)
    del stored["final_goal_ratio"]  # as a run started before the field existed
    (older / "config.json").write_text(json.dumps(stored))
    record = fork_run(older, tmp_path / "fork", dataclasses.replace(TINY, final_goal_ratio=0.5))
    assert record["changed"] == {"final_goal_ratio": [0.0, 0.5]}


def test_a_source_with_flat_reward_settings_compares_by_the_nested_keys(source, tmp_path):
    older = tmp_path / "older"
    shutil.copytree(source, older)
    stored = earlier_layout(json.loads((source / "config.json").read_text()))
    assert stored["reward_patience"] == 15 and "reward_model" not in stored
    (older / "config.json").write_text(json.dumps(stored))
    assert fork_run(older, tmp_path / "same", TINY)["changed"] == {}
    config = replaced(TINY, {"reward_model.patience": 3})
    assert fork_run(older, tmp_path / "fork", config)["changed"] == {
        "reward_model.patience": [15, 3]
    }
    with pytest.raises(ForkError, match="reward_model.architecture: source 'ma', fork 'fc'"):
        fork_run(older, tmp_path / "b", replaced(TINY, {"reward_model.architecture": "fc"}))


def test_what_cannot_be_forked_is_refused_and_nothing_is_written(source, tmp_path):
    with pytest.raises(ForkError, match="num_objects: source 3, fork 4"):
        fork_run(source, tmp_path / "a", dataclasses.replace(TINY, num_objects=4))
    with pytest.raises(ForkError, match="no run checkpoint"):
        fork_run(tmp_path / "nothing", tmp_path / "b", TINY)
    with pytest.raises(ForkError, match="the --root-dir itself"):
        fork_run(source, source, TINY)
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("mine")
    with pytest.raises(ForkError, match="is not empty"):
        fork_run(source, tmp_path / "used", TINY)
    with RunLock(source), pytest.raises(RunDirectoryBusy):
        fork_run(source, tmp_path / "c", TINY)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["used"]  # no partial forks left
    with pytest.raises(ForkError, match="not a fork"):
        fork_source(source)


def test_two_forks_of_one_source_copy_it_at_the_same_time(source, tmp_path):
    """An experiment grid starts a trunk's arms together: a fork in progress (its shared lock
    on the source held) does not refuse another."""
    with RunLock(source, shared=True):
        fork_run(source, tmp_path / "second", TINY)
    assert fork_source(tmp_path / "second") is not None
