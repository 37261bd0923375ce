"""The `objects` experiment: a cell is finished with its evaluation at every N, and the report
gives each configuration's retention (largest N over smallest) and Welch's test at each N."""

import json
import pathlib

import pytest
from scipy import stats

from imagine_tf.experiments.cells import grid
from imagine_tf.experiments.report import collect, markdown
from imagine_tf.experiments.spec import load_experiment

ROOT = pathlib.Path(__file__).resolve().parents[2]
OBJECTS = ROOT / "configs" / "experiments" / "objects.gin"


def test_an_objects_cell_is_finished_only_with_its_evaluation_at_every_n(tmp_path):
    spec = load_experiment(OBJECTS)
    cell = {c.name: c for c in grid(spec, tmp_path / "objects", ROOT)}["ma_n3_s0"]
    evaluations = tmp_path / "architectures" / "ma_s0" / "evaluations"
    assert cell.state() == "to run"
    evaluations.mkdir(parents=True)
    (evaluations.parent / "config.json").write_text(json.dumps({"num_objects": 3}))
    progress = evaluations.parent / "progress.jsonl"
    progress.write_text(json.dumps({"epoch": 7}) + "\n")
    assert cell.state() == "epoch 7 of 16"
    # Training first, alone: its evaluations are listed once it has trained.
    assert [c[3] for c in cell.commands()] == ["train"]
    fresh = {c.name: c for c in grid(spec, tmp_path / "objects", ROOT)}["ma_n3_10_s0"]
    assert [c[3] for c in fresh.commands()] == ["train"]
    progress.write_text(json.dumps({"epoch": 16}) + "\n")
    (evaluations / "epoch_0016.json").write_text(json.dumps({"train_success": 0.5}))
    assert cell.results_file().exists() and not cell.finished()
    assert cell.state() == "evaluated at 1 of 8 N"
    assert [c[c.index("--num-objects") + 1] for c in cell.commands()] == [
        str(n) for n in range(4, 11)
    ]
    for n in range(4, 11):
        (evaluations / f"epoch_0016_n{n}.json").write_text(json.dumps({"train_success": 0.4}))
    assert cell.finished() and cell.commands() == [] and cell.state() == "finished"


def _finished_objects_run(directory, num_objects, train_at_n):
    """A run directory as an `objects` cell leaves it: its config, progress, and an evaluation
    at every N (``train_at_n``: {N: train SR}; the run's own N is the unsuffixed file)."""
    evaluations = directory / "evaluations"
    evaluations.mkdir(parents=True)
    (directory / "config.json").write_text(json.dumps({"num_objects": num_objects}))
    progress = {"epoch": 16, "episodes": 9600, "eval_train_success": 0.5, "seconds_updates": 9}
    (directory / "progress.jsonl").write_text(json.dumps(progress) + "\n")
    for n, value in train_at_n.items():
        suffix = "" if n == num_objects else f"_n{n}"
        results = {"num_objects": n, "train_success": value, "test_success": value / 4}
        (evaluations / f"epoch_0016{suffix}.json").write_text(json.dumps(results))


def test_the_objects_report_gives_retention_and_tests_at_each_n(tmp_path):
    spec = load_experiment(OBJECTS)
    cells = grid(spec, tmp_path / "objects", ROOT)
    for seed, scale in enumerate([1.0, 0.9, 1.1, 0.95, 1.05]):
        # Trained at 3: SR falls from 0.6 to 0.3; trained at 3..10: from 0.5 to 0.45.
        falling = {n: scale * (0.6 - 0.3 * (n - 3) / 7) for n in range(3, 11)}
        _finished_objects_run(tmp_path / "architectures" / f"ma_s{seed}", 3, falling)
        flat = {n: scale * (0.5 - 0.05 * (n - 3) / 7) for n in range(3, 11)}
        _finished_objects_run(tmp_path / "objects" / f"ma_n3_10_s{seed}", 10, flat)
    content = collect(spec, cells)
    assert content["missing"] == []
    # Their own evaluations ran at N = 3 and N = 10: compared only at equal N.
    assert content["comparisons"] == [] and content["curve_comparisons"] == []
    kept = content["configurations"]["ma_n3_10"]["retention"]["train SR"]
    assert kept["ratio_of_means"] == pytest.approx(0.45 / 0.5)
    assert kept["per_seed"]["n"] == 5 and kept["per_seed"]["mean"] == pytest.approx(0.9)
    dropped = content["configurations"]["ma_n3"]["retention"]["train SR"]
    assert dropped["ratio_of_means"] == pytest.approx(0.5) and dropped["from_num_objects"] == 3
    tests = {(t["num_objects"], t["metric"]): t for t in content["comparisons_by_num_objects"]}
    assert len(tests) == 8 * 2
    at_10, at_3 = tests[10, "train SR"], tests[3, "train SR"]
    assert at_10["difference"] == pytest.approx(0.45 - 0.3) and at_10["a_greater"] is True
    assert at_3["difference"] == pytest.approx(-0.1) and at_3["a_greater"] is False
    # Runs that only share a seed number (no fork) are independent samples: Welch's test.
    assert at_10["design"] == "independent" and at_10["paired_seeds"] == []
    assert at_10["p"] == pytest.approx(
        stats.ttest_ind(
            [s * 0.45 for s in (1.0, 0.9, 1.1, 0.95, 1.05)],
            [s * 0.3 for s in (1.0, 0.9, 1.1, 0.95, 1.05)],
            equal_var=False,
        ).pvalue
    )
    # one family of 16 tests: Holm multiplies the smallest p by 16 at most
    assert content["family"]["size"] == 16 and at_10["p"] <= at_10["p_holm"] <= 16 * at_10["p"]
    assert at_10["verdict"] == "holds"
    # At N = 3 the raw 95 % interval lies below 0, the family's (1 − 0.05 / 16) does not:
    # the verdict reads the adjusted one, so the claim is not refuted.
    assert at_3["difference_ci"][1] < 0 < at_3["adjusted_ci"][1]
    assert at_3["verdict"] == "undecided"
    text = markdown(spec, content)
    assert "| 10 | 0.300 ± 0.024 | 0.075 ± 0.006 | 0.450 ± 0.036 | 0.113 ± 0.009 |" in text
    assert "ma_n3_10, train SR, N = 3 → 10: ratio of the means 0.900" in text
