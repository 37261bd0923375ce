"""The paper's figures beside an experiment's: Welch's test from a mean ± std, the table's row,
the figure, and the refusal of figures that name nothing of the grid."""

import json
import pathlib

import numpy as np
import pytest

from imagine_tf.experiments.cells import grid
from imagine_tf.experiments.report import write_report
from imagine_tf.experiments.spec import ExperimentSpec, load_experiment
from imagine_tf.experiments.statistics import welch, welch_against

ROOT = pathlib.Path(__file__).resolve().parents[2]
TWO_OBJECT = ROOT / "configs" / "experiments" / "two_object.gin"


def test_welch_against_a_mean_and_std_is_welch_against_the_sample_they_summarise():
    ours, theirs = [0.99, 0.97, 1.0, 0.95], [0.97, 0.99, 0.98, 0.96, 0.99, 0.98, 0.97, 1.0, 0.98]
    from_values = welch(ours, theirs)
    from_summary = welch_against(ours, np.mean(theirs), np.std(theirs, ddof=1), len(theirs))
    for key in ("difference", "t", "p", "df"):
        assert from_summary[key] == pytest.approx(from_values[key], rel=1e-9)
    assert from_summary["a_greater"] == from_values["a_greater"]
    assert welch_against([0.9], 0.98, 0.01, 10)["p"] is None  # one seed: no test


def _finished_single(cell, one_object_train):
    """The metrics.json of a finished reward-study run, as `imagine-tf reward study` writes it."""
    summary = {
        "grasp_one_object": {"train": {"f1": one_object_train}, "test": {"f1": 0.9}},
        "two_object": {"train": {"f1": 0.97}, "test": {"f1": 0.95}},
    }
    cell.results_file().parent.mkdir(parents=True)
    cell.results_file().write_text(json.dumps({"summary": summary, "training_seconds": 600.0}))


def test_the_two_object_report_sets_table_1_beside_the_single_runs(tmp_path):
    spec = load_experiment(TWO_OBJECT)
    cells = [c for c in grid(spec, tmp_path / "two_object", ROOT) if c.label == "single"]
    values = [0.99, 0.995, 1.0, 0.985]
    for cell, value in zip(cells, values):
        _finished_single(cell, value)
    out = tmp_path / "report"
    record = write_report(spec, cells, out, ROOT, TWO_OBJECT)
    tests = {t["metric"]: t for t in record["paper"]["comparisons"]}
    assert set(tests) == set(spec.metrics) and record["paper"]["seeds"] == 10
    expected = welch_against(values, 0.98, 0.01, 10)
    assert tests["one-object train"]["p"] == pytest.approx(expected["p"])
    assert tests["one-object train"]["difference"] == pytest.approx(np.mean(values) - 0.98)
    assert tests["two-object test"]["paper_mean"] == 0.97
    text = (out / "two_object.md").read_text()
    assert (
        "| the paper (single) | 10 | 0.98 ± 0.01 | 0.94 ± 0.04 | 0.92 ± 0.02 | 0.97 ± 0.02 |"
        in text
    )
    assert "Against the Deep Sets paper's Table 1" in text
    assert "| single | two-object train | +0.050 [" in text  # 0.97 against 0.92, with its CI
    # in the report's family: Holm's p is at least the raw p
    assert all(t["p_holm"] >= t["p"] for t in record["paper"]["comparisons"] if t["p"])
    assert record["family"]["size"] == len(spec.metrics)  # no ensembles finished: no claims
    assert (out / "two_object.png").stat().st_size > 0


@pytest.mark.parametrize(
    "paper_values",
    [
        {"other": {"m": [0.9, 0.1]}},  # no such configuration
        {"a": {"other metric": [0.9, 0.1]}},
        {"a": {"m": [0.9]}},  # a mean without its std
        {"a": {"m": [0.9, -0.1]}},
        {"a": [0.9, 0.1]},
    ],
)
def test_paper_figures_must_name_a_configuration_and_its_metrics(paper_values):
    with pytest.raises(ValueError, match=r"paper_values\[.*\{metric: \[mean, std\]\}"):
        ExperimentSpec(configurations={"a": {}}, metrics={"m": "x"}, paper_values=paper_values)
