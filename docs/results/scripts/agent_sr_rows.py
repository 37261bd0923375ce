"""Completes the rows of docs/results/agent_sr.json written before the report recorded what
each row now says, from what the record and its git history hold (no number is estimated):

* ``directory``: the run directory the row's ``reported_by`` command named (a run name that
  repeats is one directory evaluated at several epochs);
* ``evaluated_at_updates``: the updates at the evaluated epoch, where the row was reported at
  that epoch (else None: the run had gone on and its per-epoch records are gone);
* ``compute_dtype``: "float32" for rows made before the field (the report's default then);
* ``code_versions`` / ``machines``: None where the run did not record them;
* ``reported_by``: the command that wrote the row, for the rows that did not name it;
* ``first_recorded_in``: the first commit whose agent_sr.json holds the row (the run's code is
  that commit's or older).

    python docs/results/scripts/agent_sr_rows.py [docs/results/agent_sr.json]
"""

from __future__ import annotations

import json
import pathlib
import re
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from imagine_tf.atomic_files import write_record  # noqa: E402

RECORD = "docs/results/agent_sr.json"


def _identity(row: dict) -> tuple:
    return row["run"], row.get("evaluated_at_epoch"), row.get("train_success")


def first_commits(path: str) -> dict[tuple, str]:
    """{row identity: the first commit whose version of ``path`` holds the row}."""
    log = ["git", "log", "--reverse", "--format=%h", "--", path]
    first = {}
    for commit in subprocess.run(log, cwd=ROOT, capture_output=True, text=True).stdout.split():
        shown = subprocess.run(
            ["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, text=True
        )
        if shown.returncode != 0:
            continue
        try:
            rows = json.loads(shown.stdout).get("runs", [])
        except json.JSONDecodeError:
            continue
        for row in rows:
            first.setdefault(_identity(row), commit)
    return first


def directory_of(row: dict, command: str | None) -> str | None:
    """The argument of the row's ``reported_by`` command (else the record's ``command``) that
    names its run: the only one, or, among a run and its copies for evaluation at epoch E
    (``.../eE/RUN``), the one of the row's epoch."""
    arguments = shlex.split(row.get("reported_by") or command or "")[2:]
    named = list(
        dict.fromkeys(
            a for a in arguments if not a.startswith("-") and pathlib.PurePath(a).name == row["run"]
        )
    )
    if len(named) > 1:
        copy = [
            a for a in named if pathlib.PurePath(a).parent.name == f"e{row['evaluated_at_epoch']}"
        ]
        originals = [a for a in named if not re.fullmatch(r"e\d+", pathlib.PurePath(a).parent.name)]
        named = copy or originals
    return named[0] if len(named) == 1 else None


def completed(row: dict, first: dict[tuple, str], command: str | None) -> dict:
    read_at_last = row.get("epochs") == row.get("evaluated_at_epoch")
    return {
        **row,
        "directory": row.get("directory") or directory_of(row, command),
        "reported_by": row.get("reported_by") or command,
        "compute_dtype": row.get("compute_dtype") or "float32",
        "evaluated_at_updates": row.get(
            "evaluated_at_updates", row.get("updates") if read_at_last else None
        ),
        "code_versions": row.get("code_versions"),
        "machines": row.get("machines"),
        "first_recorded_in": row.get("first_recorded_in") or first.get(_identity(row)),
    }


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else RECORD
    record = json.loads((ROOT / path).read_text())
    first = first_commits(path)
    # the report command that wrote the record (before this script, if it ran already)
    earlier = record.get("earlier_command") or record.get("command")
    rows = [completed(row, first, earlier) for row in record["runs"]]
    keys = [(row["run"], row.get("evaluated_at_epoch"), row.get("directory")) for row in rows]
    if len(set(keys)) != len(keys):
        raise SystemExit(f"{path}: two rows of one run directory at one epoch; resolve them first")
    command = f"python docs/results/scripts/agent_sr_rows.py {path}"
    write_record(ROOT / path, {"runs": rows, "earlier_command": earlier}, command)


if __name__ == "__main__":
    main()
