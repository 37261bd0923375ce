"""Rows of a report written earlier, kept beside new ones (`--include OLD.json`).

Run directories do not always outlive a machine; the rows of a written report do. Both the
reward-model report (`reward_study.merge_reports`) and the agent report
(`agent_report.write_agent_report`) keep an earlier report's rows whose run is not given again.
"""

from __future__ import annotations

import json
import os
import pathlib
from operator import itemgetter
from typing import Callable, Hashable


def read_earlier_report(path: str | os.PathLike) -> dict:
    """The JSON report at ``path``; a ValueError naming the file if it is missing or not JSON."""
    try:
        return json.loads(pathlib.Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"--include {path}: not a readable JSON report ({error}).") from None


def earlier_runs_not_given(
    runs: list[dict],
    earlier: dict,
    made_by: str,
    key: Callable[[dict], Hashable] = itemgetter("run"),
) -> list[dict]:
    """The rows of ``earlier`` that no row of ``runs`` replaces: a row replaces those with the
    same ``key`` (the run's name; the agent report also tells evaluations apart, `row_key`).

    Raises:
      ValueError: ``earlier`` has no "runs" (not written by ``made_by --out``).
    """
    if "runs" not in earlier:
        raise ValueError(
            f"The earlier report has no 'runs': give a JSON file written by `{made_by} --out`."
        )
    given = {key(run) for run in runs}
    return [run for run in earlier["runs"] if key(run) not in given]
