"""docs/results/scripts/imagination_summary.py, run as its docstring says on two small run
directories (one with imagination and an evaluation, one without either)."""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "results" / "scripts" / "imagination_summary.py"


def make_run(root: pathlib.Path, imagination: str, evaluated: bool) -> pathlib.Path:
    (root / "evaluations").mkdir(parents=True)
    config = {"seed": 3, "imagination": imagination, "final_goal_ratio": 0.5}
    (root / "config.json").write_text(json.dumps(config))
    records = [
        {"epoch": e, "eval_test_success": 0.1 * e}
        | ({"imagined_goals": 10 * e, "imagined_test_goals": e} if imagination != "none" else {})
        for e in (1, 2)
    ]
    (root / "progress.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if evaluated:
        evaluation = {
            "epoch": 2,
            "repetitions": 30,
            "train_success": 0.4,
            "test_success": 0.2,
            "per_type": {"1": 0.3},
            "train_per_predicate": {"Go": 0.9},
            "imagination": {"imagined": 20},
        }
        (root / "evaluations" / "epoch_0002.json").write_text(json.dumps(evaluation))
    return root


def test_the_summary_has_a_row_per_run_with_its_evaluation_and_imagined_set(tmp_path):
    cgh = make_run(tmp_path / "cgh_s3", "cgh", evaluated=True)
    none = make_run(tmp_path / "none_s3", "none", evaluated=False)
    out, plot = tmp_path / "summary.json", tmp_path / "summary.png"
    command = [sys.executable, SCRIPT, "--epoch", "2", "--out", out, "--plot", plot, cgh, none]
    result = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "wrote" in result.stdout and plot.stat().st_size > 1000
    summary = json.loads(out.read_text())
    assert summary["command"].startswith("python docs/results/scripts/imagination_summary.py")
    first, second = summary["runs"]
    assert (first["run"], first["imagination"], first["epochs_trained"]) == ("cgh_s3", "cgh", 2)
    assert first["imagined_over_epochs"][1] == {
        "epoch": 2,
        "imagined": 20,
        "imagined_test_goals": 2,
    }
    assert first["test_success"] == 0.2 and first["per_type"] == {"1": 0.3}
    assert first["imagination_at_evaluation"] == {"imagined": 20}
    assert second["imagined_over_epochs"] == [] and "test_success" not in second
    assert second["in_training_test_success"] == [[1, 0.1], [2, 0.2]]
