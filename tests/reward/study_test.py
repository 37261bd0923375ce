"""The study report: runs grouped by network variant, mean ± std over seeds, the table."""

import json

import numpy as np
import pytest

from imagine_tf.reward.study import collect_study, format_study


def write_run(directory, architecture, seed, test_f1, **config):
    directory.mkdir(parents=True)
    summary = {
        "one_object": {
            "train": {"f1": 0.9, "goals": 191, "goals_without_positives": 0},
            "test": {"f1": test_f1, "goals": 64, "goals_without_positives": 0},
        }
    }
    metrics = {
        "config": {"architecture": architecture, "seed": seed, **config},
        "epochs": 100,
        "training_seconds": 100.0 + 2 * seed,
        "best_validation_f1": 0.8,
        "test_states": 10,
        "summary": summary,
    }
    (directory / "metrics.json").write_text(json.dumps(metrics))
    (directory / "command.txt").write_text(f"imagine-tf reward study --seeds {seed}\n")


def test_runs_are_grouped_by_architecture_and_gate_variant(tmp_path):
    write_run(tmp_path / "a" / "ma_pairs_s0", "ma_pairs", 0, 0.4)  # written before the options
    write_run(tmp_path / "a" / "ma_pairs_s1", "ma_pairs", 1, 0.6, pair_gate="per_slot")
    for seed, f1 in ((0, 0.7), (1, 0.5)):
        write_run(
            tmp_path / "b" / f"ma_pairs_s{seed}",
            "ma_pairs",
            seed,
            f1,
            pair_gate="shared",
            normalize_goal=True,
        )
    write_run(tmp_path / "c" / "ma_s0", "ma", 0, 0.3, normalize_goal=True)
    report = collect_study(tmp_path)
    table = report["mean_std"]
    assert sorted(table) == ["ma+norm", "ma_pairs", "ma_pairs+shared+norm"]
    assert table["ma_pairs"]["seeds"] == 2
    assert table["ma_pairs"]["one_object_test"]["mean"] == pytest.approx(0.5)
    # the sample std (ddof 1) of 0.7 and 0.5, as every report; one run has none
    assert table["ma_pairs+shared+norm"]["one_object_test"]["std"] == pytest.approx(0.1 * 2**0.5)
    assert table["ma+norm"]["one_object_test"]["std"] is None
    assert table["ma+norm"]["two_object_test"] is None  # a column the runs do not have
    assert {r["command"] for r in report["runs"]} >= {"imagine-tf reward study --seeds 1"}
    text = format_study(report, ["one_object_test"])
    assert "| ma_pairs+shared+norm | 2 | 0.60 ± 0.14 | 101 |" in text.splitlines()
    assert np.isclose(table["ma_pairs"]["training_seconds"]["mean"], 101.0)


def test_an_empty_directory_says_to_run_the_study(tmp_path):
    with pytest.raises(FileNotFoundError, match="reward study"):
        collect_study(tmp_path)


def test_an_earlier_report_keeps_the_runs_whose_directories_are_gone(tmp_path):
    from imagine_tf.reward.study import merge_reports

    write_run(tmp_path / "old" / "ma_s0", "ma", 0, 0.2)
    write_run(tmp_path / "old" / "ma_s1", "ma", 1, 0.4)
    earlier = json.loads(json.dumps(collect_study(tmp_path / "old")))  # as read from a file
    write_run(tmp_path / "new" / "ma_s1", "ma", 1, 0.6)  # the same name: replaces the old row
    write_run(tmp_path / "new" / "ma_pairs_s0", "ma_pairs", 0, 0.5, pair_relations=True)
    merged = merge_reports(collect_study(tmp_path / "new"), earlier)
    assert [(r["run"], r["one_object_test"]) for r in merged["runs"]] == [
        ("ma_pairs_s0", 0.5),
        ("ma_s0", 0.2),
        ("ma_s1", 0.6),
    ]
    assert merged["mean_std"]["ma"]["one_object_test"]["mean"] == pytest.approx(0.4)
    assert merged["mean_std"]["ma_pairs+rel"]["seeds"] == 1
    with pytest.raises(ValueError, match="reward report --out"):
        merge_reports(merged, {"mean_std": {}})
