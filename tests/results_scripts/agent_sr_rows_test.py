"""docs/results/scripts/agent_sr_rows.py, run as its docstring says on the committed record:
every row names its run directory, its precision and the commit that first recorded it, a
run name that repeats is one directory at distinct epochs, and a second run changes nothing."""

import json
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "results" / "scripts" / "agent_sr_rows.py"
RECORD = "docs/results/agent_sr.json"


def test_the_committed_agent_rows_are_complete_and_the_script_changes_nothing(tmp_path):
    record = json.loads((ROOT / RECORD).read_text())
    rows = record["runs"]
    keys = [(row["run"], row["evaluated_at_epoch"], row["directory"]) for row in rows]
    assert len(set(keys)) == len(keys)
    for row in rows:
        assert row["directory"] and row["reported_by"] and row["first_recorded_in"]
        assert row["compute_dtype"] in ("float32", "bfloat16")
        if row["epochs"] == row["evaluated_at_epoch"]:
            assert row["evaluated_at_updates"] == row["updates"]
    # run on a copy of the record in the repository (its git history is the repository's)
    copy = ROOT / "docs" / "results" / f"agent_sr_copy_{tmp_path.name}.json"
    shutil.copy(ROOT / RECORD, copy)
    try:
        subprocess.run(
            [sys.executable, str(SCRIPT), str(copy.relative_to(ROOT))], cwd=ROOT, check=True
        )
        again = json.loads(copy.read_text())
    finally:
        copy.unlink()
    assert again["earlier_command"] == record["earlier_command"]
    assert again["runs"] == rows  # the copy has no history: what was recorded is kept
