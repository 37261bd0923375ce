"""Rows of a report written earlier, kept beside new ones (`--include OLD.json`).

Run directories do not always outlive a machine; the rows of a written report do. Both the
reward-model report (`reward_study.merge_reports`) and the agent report
(`agent_report.write_agent_report`) keep an earlier report's rows whose run is not given again.
"""

from __future__ import annotations

import json
import os
import pathlib


def read_earlier_report(path: str | os.PathLike) -> dict:
    """The JSON report at ``path``; a ValueError naming the file if it is missing or not JSON."""
    try:
        return json.loads(pathlib.Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"--include {path}: not a readable JSON report ({error}).") from None


def earlier_runs_not_given(runs: list[dict], earlier: dict, made_by: str,
                           keys: tuple[str, ...] = ("run",)) -> list[dict]:  # fmt: skip
    """The rows of ``earlier`` that no row of ``runs`` replaces: rows agree on all of ``keys``
    (the run's name; for the agent report also the epoch it was evaluated at, so a run's
    evaluations at several epochs are all kept).

    Raises:
      ValueError: ``earlier`` has no "runs" (not written by ``made_by --out``).
    """
    if "runs" not in earlier:
        raise ValueError(
            f"The earlier report has no 'runs': give a JSON file written by `{made_by} --out`."
        )
    given = {tuple(run.get(k) for k in keys) for run in runs}
    return [run for run in earlier["runs"] if tuple(run.get(k) for k in keys) not in given]
