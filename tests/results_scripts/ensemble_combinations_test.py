"""docs/results/scripts/ensemble_combinations.py, run as its docstring says (in this process,
its prepared dataset replaced by small synthetic data) on four finished runs that kept their
test probabilities, and an ensemble of three of them."""

import json
import pathlib
import runpy
import sys

import numpy as np
import pytest

from imagine_tf.data import supervised
from imagine_tf.language import grammar
from imagine_tf.reward.kept_probabilities import keep_test_probabilities
from imagine_tf.reward.supervised_training import held_out_metrics

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "results" / "scripts" / "ensemble_combinations.py"


def table_1_goals() -> tuple[str, ...]:
    """Goals of each Table 1 column: Grasp one-object train, Grasp test (not Type 2), two-object
    train and test; and a Go goal, which no column scores."""
    grasp = [g for g in grammar.one_object_goals() if g.startswith("Grasp")]
    train = [g for g in grasp if not grammar.is_test_goal(g)][:3]
    test = [g for g in grasp if grammar.generalization_type(g) not in (None, 2)][:2]
    relational = grammar.relational_goals()
    pairs = [g for g in relational if not grammar.is_test_goal(g)][:2]
    pairs += [g for g in relational if grammar.is_test_goal(g)][:2]
    return tuple(train + test + pairs + ["Go left"])


@pytest.fixture
def data() -> supervised.SupervisedData:
    rng = np.random.default_rng(0)
    goals, states = table_1_goals(), 60
    labels = rng.random((states, len(goals))) < 0.3
    labels[0], labels[1] = True, False  # each goal has a positive and a negative state
    return supervised.SupervisedData(
        goals=goals,
        train_states=rng.random((5, 240), dtype=np.float32),
        train_labels=rng.random((5, len(goals))) < 0.3,
        test_states=rng.random((states, 240), dtype=np.float32),
        test_labels=labels,
        test_episode=np.arange(states),
    )


def finished_run(root: pathlib.Path, data, probabilities: np.ndarray, **more) -> pathlib.Path:
    """A run as `reward study` leaves an ensemble's member: metrics.json and its kept test
    probabilities."""
    root.mkdir(parents=True)
    kept = keep_test_probabilities(root, probabilities, data.test_states)
    metrics = {"test_probabilities": kept, **held_out_metrics(data, probabilities), **more}
    (root / "metrics.json").write_text(json.dumps(metrics))
    return root


def run_script(monkeypatch, tmp_path, data, *argv) -> dict:
    dataset = tmp_path / "dataset"
    dataset.mkdir(exist_ok=True)
    (dataset / "dataset_info.json").write_text("{}")  # a prepared dataset, as far as it checks
    monkeypatch.setattr(supervised, "load_supervised_data", lambda *args: data)
    out = tmp_path / "combinations.json"
    command = ["--dataset-dir", dataset, "--cache-dir", tmp_path / "cache", "--out", out, *argv]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *map(str, command)])
    runpy.run_path(str(SCRIPT), run_name="__main__")
    return json.loads(out.read_text())


def members(tmp_path, data) -> list[pathlib.Path]:
    """Four runs, each wrong on a different fifth of the (state, goal) pairs."""
    rng = np.random.default_rng(1)
    runs = []
    for seed in range(4):
        wrong = rng.random(data.test_labels.shape) < 0.2
        probabilities = np.where(data.test_labels != wrong, 0.9, 0.1).astype(np.float32)
        runs.append(finished_run(tmp_path / "study" / f"ma_s{seed}", data, probabilities))
    return runs


def test_every_combination_is_scored_and_an_ensemble_is_checked(monkeypatch, tmp_path, data):
    runs = members(tmp_path, data)
    probabilities = [np.load(run / "test_probabilities.npy") for run in runs[:3]]
    ensemble = finished_run(
        tmp_path / "study" / "ma_e3_s0",
        data,
        np.mean(probabilities, axis=0),
        members=[{"run": f"../{run.name}"} for run in runs[:3]],
    )
    record = run_script(
        monkeypatch, tmp_path, data, *runs, "--sizes", "1", "3", "--ensembles", ensemble
    )
    assert record["runs"] == [str(run) for run in runs]
    assert record["largest_gap_to_metrics_json"] == 0.0  # kept float32: the runs' own F1
    single, triple = record["by_ensemble_size"]["1"], record["by_ensemble_size"]["3"]
    assert (single["combinations"], single["of"], triple["combinations"], triple["of"]) == (
        4,
        4,
        4,
        4,
    )
    own = [json.loads((run / "metrics.json").read_text())["summary"] for run in runs]
    columns = [column.split(".") for column in record["columns"]]
    expected = np.mean([[s[a][b]["f1"] for a, b in columns] for s in own], axis=0)
    np.testing.assert_allclose(single["mean"], expected, atol=1e-4)
    assert all(t > s for t, s in zip(triple["mean"], single["mean"]))  # majorities err less
    assert 0.0 <= triple["fraction_meeting_all_four"] <= 1.0
    assert record["command"].startswith("python docs/results/scripts/ensemble_combinations.py")


def test_runs_whose_metrics_disagree_with_their_probabilities_are_refused(
    monkeypatch, tmp_path, data
):
    runs = members(tmp_path, data)
    np.save(runs[0] / "test_probabilities.npy", 1.0 - np.load(runs[0] / "test_probabilities.npy"))
    with pytest.raises(SystemExit, match="K = 1 differs from the runs' metrics.json"):
        run_script(monkeypatch, tmp_path, data, *runs, "--sizes", "1")
