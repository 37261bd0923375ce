"""Paired grids: configurations that fork from another's run of the same seed
(`fork_from`, `num_epochs`): validation, waiting for the source, the fork commands."""

import json
import pathlib
import subprocess
import sys

import pytest

from imagine_tf.experiments.cells import grid
from imagine_tf.experiments.spec import ExperimentSpec
from tests.experiments.small_cells import gin_items

# ExperimentSpec is gin-configurable: an earlier test's bindings must not reach these specs.
pytestmark = pytest.mark.usefixtures("clear_gin")

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Epochs of small cells (`small_cells`): a cell costs seconds.
FORKS = f"""
ExperimentSpec.name = "forks"
ExperimentSpec.kind = "agent"
ExperimentSpec.configurations = {{
    "trunk": {{"gin_files": ["configs/agent/smoke.gin"], "bindings": [{gin_items()}], "num_epochs": 1}},
    "other": {{"gin_files": ["configs/agent/smoke.gin"],
              "bindings": [{gin_items("TrainConfig.final_goal_ratio = 0.25")}],
              "fork_from": "trunk", "read_epochs": [2]}},
}}
ExperimentSpec.seeds = 1
ExperimentSpec.num_epochs = 3
ExperimentSpec.repetitions = 1
ExperimentSpec.metrics = {{"train SR": "train_success"}}
ExperimentSpec.figure = "curves"
"""


def _spec(**configurations):
    return ExperimentSpec(configurations=configurations, metrics={"m": "x"}, num_epochs=4)


@pytest.mark.parametrize(
    "configurations, message",
    [
        ({"a": {"fork_from": "b"}}, "names no other configuration"),
        ({"a": {"fork_from": "a"}}, "names no other configuration"),
        ({"t": {"num_epochs": 4}, "a": {"fork_from": "t"}}, "already reaches epoch 4"),
        ({"t": {"num_epochs": 0}}, "num_epochs must be an int >= 1"),
        (
            {"t": {"num_epochs": 1}, "a": {"fork_from": "t"}, "b": {"fork_from": "a"}},
            "is itself a fork",
        ),
        ({"t": {"num_epochs": 1, "seeds": 2}, "a": {"fork_from": "t"}}, "fewer seeds"),
        ({"t": {"num_epochs": 2}, "a": {"fork_from": "t", "read_epochs": [2]}}, "2 < E < 4"),
        ({"a": {"read_epochs": [4]}}, "0 < E < 4"),
        ({"a": {"read_epochs": "3"}}, "0 < E < 4"),
    ],
)
def test_bad_forks_are_refused_naming_what_is_wrong(configurations, message):
    with pytest.raises(ValueError, match=message):
        _spec(**configurations)


def test_forks_of_one_trunk_are_paired_and_wait_for_it(tmp_path):
    spec = _spec(t={"num_epochs": 1}, a={"fork_from": "t"}, b={"fork_from": "t"}, c={})
    assert spec.paired("a", "b") and spec.paired("a", "t") and not spec.paired("a", "c")
    cells = {cell.name: cell for cell in grid(spec, tmp_path, ROOT)}
    assert cells["t_s0"].ready() and not cells["a_s0"].ready()
    command = cells["a_s0"].commands()[0]
    assert command[command.index("--fork-from") + 1] == str(tmp_path / "t_s0")
    assert command[command.index("--num-epochs") + 1] == "4"
    trunk = cells["t_s0"].commands()[0]
    assert trunk[trunk.index("--num-epochs") + 1] == "1"  # the trunk trains to its own epoch
    # and evaluates its last epoch in the same process, as `imagine-tf eval` would
    assert trunk[trunk.index("--eval-repetitions") + 1] == str(spec.repetitions)


def _progress(cell, epochs: int) -> None:
    cell.directory.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"epoch": epoch}) for epoch in range(1, epochs + 1)]
    (cell.directory / "progress.jsonl").write_text("\n".join(lines) + "\n")


def test_a_read_epoch_trains_to_it_then_evaluates_it_then_goes_on(tmp_path):
    spec = _spec(t={"num_epochs": 1}, a={"fork_from": "t", "read_epochs": [2]})
    arm = {cell.name: cell for cell in grid(spec, tmp_path, ROOT)}["a_s0"]
    command = arm.commands()[0]
    assert command[command.index("--num-epochs") + 1] == "2"
    _progress(arm, 2)  # trained to the read epoch, its evaluation interrupted: evaluate it
    assert arm.commands()[0][3:5] == ["eval", "--root-dir"]
    assert "--num-epochs" not in arm.commands()[0]
    arm.read_epoch_file(2).parent.mkdir()
    arm.read_epoch_file(2).write_text("{}")
    command = arm.commands()[0]
    assert command[command.index("--num-epochs") + 1] == "4"
    _progress(arm, 3)
    assert arm.commands()[0][command.index("--num-epochs") + 1] == "4"


def test_a_paired_grid_forks_its_arm_from_the_finished_trunk(tmp_path):
    (tmp_path / "forks.gin").write_text(FORKS)
    runs, out = tmp_path / "runs", tmp_path / "out"
    command = [sys.executable, "-m", "imagine_tf.cli.main", "experiment"]
    command += [str(tmp_path / "forks.gin"), "--root-dir", str(runs), "--out-dir", str(out)]
    result = subprocess.run(
        [*command, "--parallel", "2"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    trunk = [json.loads(line) for line in (runs / "trunk_s0" / "progress.jsonl").open()]
    assert [r["epoch"] for r in trunk] == [1]
    fork = json.loads((runs / "other_s0" / "fork.json").read_text())
    assert fork["source"] == str(runs / "trunk_s0") and fork["epoch"] == 1
    progress = [json.loads(line) for line in (runs / "other_s0" / "progress.jsonl").open()]
    assert [r["epoch"] for r in progress] == [1, 2, 3] and progress[0] == trunk[0]
    evaluations = runs / "other_s0" / "evaluations"
    read = [json.loads((evaluations / f"epoch_000{e}.json").read_text()) for e in (2, 3)]
    assert [r["epoch"] for r in read] == [2, 3]  # the declared earlier read, then the last
    files = {path.name for path in (runs / "other_s0").iterdir()}
    assert "learning_curve.png" in files and "agent.gif" not in files  # demo_goals = []
    changed = json.loads((runs / "other_s0" / "fork.json").read_text())["changed"]
    assert changed == {"final_goal_ratio": [0.5, 0.25]}
    record = json.loads((out / "forks.json").read_text())
    assert "--fork-from" in record["cell_commands"]["other_s0"]
    assert "--fork-from" not in record["cell_commands"]["trunk_s0"]
    assert record["cell_precisions"] == {name: "float32" for name in record["cell_commands"]}
    other = record["configurations"]["other"]
    read = other["read_epochs"]["2"]["train SR"]  # the declared earlier epoch, reported
    assert read["by_seed"] == {
        "0": json.loads((evaluations / "epoch_0002.json").read_text())["train_success"]
    }
    own = sum(v for r in progress[1:] for k, v in r.items() if k.startswith("seconds_"))
    assert other["seconds_per_cell"]["mean"] == pytest.approx(own)  # without the trunk's epoch
