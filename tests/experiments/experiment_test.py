"""`imagine-tf experiment`: the committed experiment files, the statistics, and a small grid
run for real (subprocesses, two at a time), resumed, reported, and reported partially."""

import json
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from imagine_tf.experiments.cells import grid
from imagine_tf.experiments.report import collect, lookup
from imagine_tf.experiments.spec import ExperimentSpec, load_experiment
from imagine_tf.experiments.statistics import summary, welch
from tests.experiments.small_cells import gin_items
from tests.waiting import wait_until

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXPERIMENTS = sorted((ROOT / "configs" / "experiments").glob("*.gin"))


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.stem)
def test_every_committed_experiment_loads_and_its_gin_files_exist(path):
    spec = load_experiment(path)
    assert spec.name == path.stem and spec.seeds >= 3
    for configuration in spec.configurations.values():
        for gin_file in configuration.get("gin_files", []):
            assert (ROOT / gin_file).is_file(), gin_file


def test_summary_and_welch_match_scipy_and_the_sample_std():
    a, b = [0.8, 0.7, 0.9, 0.75], [0.5, 0.6, 0.4]
    assert summary(a)["std"] == pytest.approx(np.std(a, ddof=1))
    assert summary([0.3, None, float("nan")]) == {"mean": 0.3, "std": None, "n": 1, "values": [0.3]}
    test = welch(a, b)
    expected = stats.ttest_ind(a, b, equal_var=False)
    assert test["p"] == pytest.approx(expected.pvalue) and test["t"] == pytest.approx(
        expected.statistic
    )
    assert test["a_greater"] is True and welch(b, a)["a_greater"] is False
    assert welch([0.5], b)["p"] is None  # one seed: no test


def test_bad_experiments_are_refused_naming_what_is_wrong():
    with pytest.raises(ValueError, match="kind must be one of"):
        ExperimentSpec(kind="robot", configurations={"a": {}}, metrics={"m": "x"})
    with pytest.raises(ValueError, match="Comparison"):
        ExperimentSpec(configurations={"a": {}}, metrics={"m": "x"}, comparisons=(("a", "b"),))
    with pytest.raises(ValueError, match="gin_files, bindings, args, seeds"):
        ExperimentSpec(configurations={"a": {"gin": []}}, metrics={"m": "x"})
    with pytest.raises(ValueError, match="an int >= 1"):
        ExperimentSpec(configurations={"a": {"seeds": 0}}, metrics={"m": "x"})
    assert lookup({"per_type": {"5": 0.25}}, "per_type.5") == 0.25
    assert lookup({"per_type": {}}, "per_type.5") is None


# Two configurations of 2 seeds, 2 epochs of small cells (`small_cells`): a cell costs seconds.
SMALL = f"""
ExperimentSpec.name = "small"
ExperimentSpec.description = "two tiny configurations"
ExperimentSpec.kind = "agent"
ExperimentSpec.configurations = {{
    "fc": {{"gin_files": ["configs/agent/smoke.gin"], "bindings": [{gin_items()}]}},
    "fa": {{"gin_files": ["configs/agent/smoke.gin"],
           "bindings": [{gin_items('TrainConfig.architecture = "fa"')}]}},
}}
ExperimentSpec.seeds = 2
ExperimentSpec.num_epochs = 2
ExperimentSpec.repetitions = 1
ExperimentSpec.eval_num_objects = (3,)
ExperimentSpec.metrics = {{"train SR": "train_success", "Go SR": "train_per_predicate.Go"}}
ExperimentSpec.comparisons = (("fc", "fa"),)
ExperimentSpec.figure = "curves"
"""


def _experiment_command(tmp_path, *args) -> list[str]:
    """`imagine-tf experiment` of tmp_path/small.gin, runs in tmp_path/runs, report in out."""
    small, runs, out = (str(tmp_path / name) for name in ("small.gin", "runs", "out"))
    cli = [sys.executable, "-m", "imagine_tf.cli.main", "experiment", small]
    return [*cli, "--root-dir", runs, "--out-dir", out, *args]


def _experiment(tmp_path, *args):
    command = _experiment_command(tmp_path, *args)
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_unknown_experiments_are_a_usage_error(capsys):
    from imagine_tf.cli.main import main

    assert main(["experiment", "nonexistent"]) == 2
    assert "the experiments are ['architectures'" in capsys.readouterr().err


def test_the_grid_is_seed_major(tmp_path):
    spec = load_experiment(ROOT / "configs" / "experiments" / "architectures.gin")
    cells = grid(spec, tmp_path, ROOT)
    assert [c.name for c in cells[:4]] == ["ma_s0", "fa_s0", "fc_s0", "ma_s1"]
    assert collect(spec, cells)["missing"][:3] == ["ma_s0", "fa_s0", "fc_s0"]


def test_a_configuration_may_run_fewer_seeds(tmp_path):
    spec = ExperimentSpec(configurations={"a": {}, "b": {"seeds": 2}}, seeds=3, metrics={"m": "x"})
    assert [c.name for c in grid(spec, tmp_path, ROOT)] == ["a_s0", "b_s0", "a_s1", "b_s1", "a_s2"]
    assert spec.seeds_of("b") == 2 and spec.seeds_of("a") == 3
    assert (
        ExperimentSpec(configurations={"b": {"seeds": 5}}, seeds=2, metrics={"m": "x"}).seeds_of(
            "b"
        )
        == 2
    )


def test_reward_cells_run_their_gin_files_with_the_seed_as_a_binding(tmp_path):
    spec = load_experiment(ROOT / "configs" / "experiments" / "two_object.gin")
    cells = {c.name: c for c in grid(spec, tmp_path, ROOT)}
    (command,) = cells["ensemble3_s1"].commands()
    assert command[3:5] == ["reward", "study"] and command[command.index("--seeds") + 1] == "1"
    assert "configs/studies/reward_two_object_relations.gin" in command
    assert "RewardStudyConfig.ensemble_size = 3" in command
    assert (
        cells["ensemble3_s1"].results_file()
        == tmp_path / "ensemble3_s1" / "ma_pairs_x3_s1" / "metrics.json"
    )
    assert (
        cells["single_s2"].results_file() == tmp_path / "single_s2" / "ma_pairs_s2" / "metrics.json"
    )
    spec = load_experiment(ROOT / "configs" / "experiments" / "reward_architectures.gin")
    (command,) = {c.name: c for c in grid(spec, tmp_path, ROOT)}["fa_s4"].commands()
    assert command[3:5] == ["reward", "train"] and "configs/reward/fa.gin" in command
    assert "RewardTrainConfig.seed = 4" in command


def test_runs_of_makes_cells_the_runs_of_another_experiment(tmp_path):
    from imagine_tf.experiments.report import cell_command

    spec = load_experiment(ROOT / "configs" / "experiments" / "objects.gin")
    architectures = load_experiment(ROOT / "configs" / "experiments" / "architectures.gin")
    assert (
        spec.configurations["ma_n3"]["bindings"] == architectures.configurations["ma"]["bindings"]
    )
    cells = {c.name: c for c in grid(spec, tmp_path / "objects", ROOT)}
    shared, own = cells["ma_n3_s4"], cells["ma_n3_10_s4"]
    assert shared.directory == tmp_path / "architectures" / "ma_s4"
    assert shared.code_versions_file == tmp_path / "architectures" / "ma_s4.code_versions"
    assert own.directory == tmp_path / "objects" / "ma_n3_10_s4"
    assert "--root-dir RUNS/architectures/ma_s4" in cell_command(shared)
    assert "--root-dir RUNS/objects/ma_n3_10_s4" in cell_command(own)


def _write_pair(directory, shared: str, epochs: int = 2) -> pathlib.Path:
    base = """ExperimentSpec.metrics = {"m": "x"}
ExperimentSpec.seeds = 2
"""
    (directory / "a.gin").write_text(
        base
        + """ExperimentSpec.name = "a"
ExperimentSpec.num_epochs = 2
ExperimentSpec.configurations = {"x": {"gin_files": ["configs/agent/smoke.gin"], "bindings": ["B = 1"]}}
"""
    )
    (directory / "b.gin").write_text(
        base
        + f"""ExperimentSpec.name = "b"
ExperimentSpec.num_epochs = {epochs}
ExperimentSpec.configurations = {{"y": {shared}}}
"""
    )
    return directory / "b.gin"


@pytest.mark.parametrize(
    "shared, epochs, message",
    [
        ('{"runs_of": "a/missing"}', 2, "has no configuration 'missing'"),
        ('{"runs_of": "nowhere/x"}', 2, "has no configuration 'x'"),
        ('{"runs_of": "a/x", "bindings": ["B = 2"]}', 2, "its bindings differ from a/x's"),
        (
            '{"runs_of": "a/x"}',
            3,
            "kind, num_epochs, repetitions ('agent', 2, 30) there against ('agent', 3, 30) here",
        ),
        ('{"runs_of": "a"}', 2, "runs_of ('EXPERIMENT/LABEL')"),
    ],
)
def test_runs_of_must_name_the_same_runs(tmp_path, shared, epochs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        load_experiment(_write_pair(tmp_path, shared, epochs))


def test_runs_of_copies_the_settings(tmp_path):
    spec = load_experiment(_write_pair(tmp_path, '{"runs_of": "a/x"}'))
    assert spec.configurations["y"]["bindings"] == ["B = 1"]
    assert spec.configurations["y"]["gin_files"] == ["configs/agent/smoke.gin"]


def test_two_object_ensembles_share_no_run_with_the_single_runs():
    from imagine_tf.reward.config import read_reward_configs
    from imagine_tf.reward.ensemble import member_seeds

    spec = load_experiment(ROOT / "configs" / "experiments" / "two_object.gin")
    ensemble = spec.configurations["ensemble3"]
    _, study = read_reward_configs([ROOT / f for f in ensemble["gin_files"]], ensemble["bindings"])
    members = [
        m
        for s in range(spec.seeds_of("ensemble3"))
        for m in member_seeds(s, study.ensemble_size, study.first_member_seed)
    ]
    assert len(set(members)) == 3 * spec.seeds_of("ensemble3")
    assert not set(members) & set(range(spec.seeds_of("single")))


def _processes_mentioning(text: str) -> list[int]:
    """Pids whose command line contains ``text`` (Linux /proc)."""
    pids = []
    for cmdline in pathlib.Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text in cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                pids.append(int(cmdline.parent.name))
        except OSError:  # the process ended meanwhile
            pass
    return pids


def test_a_grid_stopped_stops_its_runs_a_rerun_finishes_them_and_reports(tmp_path):
    """One grid of 4 cells, one at a time: stopped with SIGTERM once the cell has checkpointed
    its first epoch (the running cell stops with it), run again to the end two at a time (the
    report), again (nothing to run), and reported again without one cell's evaluation (partial
    report)."""
    import os
    import signal

    (tmp_path / "small.gin").write_text(SMALL)
    runner = subprocess.Popen(
        _experiment_command(tmp_path, "--parallel", "1"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    wait_until(
        lambda: list((tmp_path / "runs").glob("*/checkpoint")) or runner.poll() is not None,
        timeout=300,
        interval=0.2,
        what="a cell's first checkpoint",
    )
    assert _processes_mentioning(str(tmp_path / "runs")), "no cell was running"
    os.kill(runner.pid, signal.SIGTERM)
    stopped_out, _ = runner.communicate(timeout=120)
    assert "0 of 4 cells finished; running 4, 1 at a time" in stopped_out
    wait_until(
        lambda: not _processes_mentioning(str(tmp_path / "runs")),
        timeout=10,
        what="the cell to stop with its runner",
    )
    first = _experiment(tmp_path, "--parallel", "2")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "cells finished; running" in first.stdout
    record = json.loads((tmp_path / "out" / "small.json").read_text())
    assert (tmp_path / "out" / "small.png").stat().st_size > 1000
    assert "| fc | 2 |" in (tmp_path / "out" / "small.md").read_text()
    for label in ("fc", "fa"):
        cells = [
            json.loads(
                (
                    tmp_path / "runs" / f"{label}_s{s}" / "evaluations" / "epoch_0002.json"
                ).read_text()
            )
            for s in (0, 1)
        ]
        entry = record["configurations"][label]
        assert entry["seeds"] == [0, 1] and entry["metrics"]["train SR"]["values"] == [
            c["train_success"] for c in cells
        ]
        assert [p["epoch"] for p in entry["curves"]["eval_train_success"]] == [1, 2]
        assert entry["seconds_per_cell"]["n"] == 2 and entry["seconds_per_cell"]["mean"] > 0
    assert {t["metric"] for t in record["comparisons"]} == {"train SR", "Go SR"}
    curves = {(t["a"], t["b"], t["curve"]) for t in record["curve_comparisons"]}
    assert curves == {("fc", "fa", "eval_train_success"), ("fc", "fa", "eval_test_success")}
    assert record["missing"] == [] and record["report_code_version"]
    assert set(record["cell_code_versions"]) == {"fc_s0", "fc_s1", "fa_s0", "fa_s1"}
    assert all(len(v) == 1 and v[0] for v in record["cell_code_versions"].values())
    assert record["cell_commands"]["fa_s1"].startswith("imagine-tf train --threads 1 --root-dir")
    assert 'TrainConfig.architecture = "fa"' in shlex.split(record["cell_commands"]["fa_s1"])
    again = _experiment(tmp_path)
    assert "4 of 4 cells finished; running 0" in again.stdout
    # A cell without its evaluation is reported as missing, the others still are.
    shutil.rmtree(tmp_path / "runs" / "fa_s1" / "evaluations")
    partial = _experiment(tmp_path, "--report")
    assert partial.returncode == 0
    record = json.loads((tmp_path / "out" / "small.json").read_text())
    assert record["missing"] == ["fa_s1"] and record["configurations"]["fa"]["seeds"] == [0]
    assert [p["n"] for p in record["configurations"]["fa"]["curves"]["eval_train_success"]] == [
        1,
        1,
    ]
    assert "Missing (1 cells not finished): fa_s1" in (tmp_path / "out" / "small.md").read_text()


def _curve(values_per_epoch):
    return [
        {"epoch": e, "episodes": 600.0 * e, "values": v} for e, v in enumerate(values_per_epoch, 1)
    ]


def test_first_significant_dates_when_a_beats_b_and_whether_it_lasts():
    from imagine_tf.experiments.statistics import first_significant

    low, high = [0.1, 0.12, 0.11, 0.09], [0.5, 0.55, 0.6, 0.52]
    a = _curve([low, high, high, high])
    b = _curve([low, low, low, low])
    result = first_significant(a, b)
    assert (result["first_epoch"], result["first_episodes"], result["from_then_on"]) == (
        2,
        1200,
        True,
    )
    assert result["per_epoch"][0]["p"] == pytest.approx(1.0)
    lost = first_significant(_curve([low, high, low, high]), b)
    assert lost["first_epoch"] == 2 and lost["from_then_on"] is False
    never = first_significant(b, a)
    assert never["first_epoch"] is None and never["from_then_on"] is False
    assert [p["epoch"] for p in first_significant(a, b[:2])["per_epoch"]] == [1, 2]
