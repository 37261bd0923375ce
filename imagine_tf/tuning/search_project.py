"""A search's project directory: what it searches, recorded so that a rerun resumes it.

    <root_dir>/<project>/
      search.json        the search: tuner, space, base configuration, budget, objective
      oracle.json, tuner0.json, trial_<id>/trial.json    keras-tuner's own state
      trial_<id>/...     the trial's training runs (`reward_tuning`, `agent_tuning`)
      report.json        the ranking (`search_report`)

keras-tuner resumes a project from its own files but would silently keep the space and budget
it started with; `check_search` refuses a rerun that asks for another search instead. Only
``max_trials`` may change between runs (a search may be extended).
"""

from __future__ import annotations

import json
import os
import pathlib

from imagine_tf.training.atomic_files import write_text_atomically

SEARCH_JSON = "search.json"
REPORT_JSON = "report.json"


class SearchMismatch(ValueError):
    """A project directory that holds another search than the one asked for."""


def check_search(project_dir: str | os.PathLike, search: dict) -> None:
    """Records ``search`` in a new project; raises `SearchMismatch` naming what differs if the
    project holds another one."""
    path = pathlib.Path(project_dir) / SEARCH_JSON
    wanted = json.loads(json.dumps(search))  # tuples as lists, as stored
    if path.exists():
        stored = json.loads(path.read_text())
        differences = [key for key in sorted(set(stored) | set(wanted))
                       if stored.get(key) != wanted.get(key)]  # fmt: skip
        if differences:
            listed = "; ".join(
                f"{key}: {stored.get(key)!r} there, {wanted.get(key)!r} now" for key in differences
            )
            raise SearchMismatch(
                f"{project_dir} holds another search ({listed}). Rerun it with the same gin "
                "files, bindings and budget to resume it (only --max-trials may grow), or "
                "search into a new --root-dir."
            )
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, json.dumps(wanted, indent=1))
