"""A search's project directory: what it searches, recorded so that a rerun resumes it.

    <root_dir>/<project>/
      search.json        the search: tuner, space, base configuration, budget, objective
      oracle.json, tuner0.json, trial_<id>/trial.json    keras-tuner's own state
      trial_<id>/...     the trial's training runs (`supervised_tuning`, `agent_tuning`)
      report.json        the ranking (`search_report`)

keras-tuner resumes a project from its own files but would silently keep the space and budget
it started with; `check_search` refuses a rerun that asks for another search instead. Only
``max_trials`` may change between runs (a search may be extended).
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Callable

import keras_tuner

from imagine_tf.atomic_files import write_record, write_text_atomically
from imagine_tf.runs.lock import RunLock
from imagine_tf.tuning.search_report import search_report

SEARCH_JSON = "search.json"
REPORT_JSON = "report.json"


def run_search(
    root_dir: str,
    project: str,
    search: dict,
    build_tuner: Callable[[], keras_tuner.Tuner],
    defaults: dict,
    command: str,
    max_trials: int,
    objective_is: str,
    comparable: Callable[[dict], dict] | None = None,
) -> dict:
    """Runs (or resumes) ``search`` in ``<root_dir>/<project>`` and writes its report there.

    Args:
      search: what is searched (`check_search`); its ``"objective"`` names the metric ranked.
      build_tuner: makes the `keras_tuner.Tuner`, once the project is locked and checked.
      defaults: the hyperparameter values of the default configuration (`search_report`).
      command, max_trials, objective_is: recorded in the report.
      comparable: how a stored search and ``search`` are compared (`check_search`).

    Raises:
      SearchMismatch: the project holds another search; `RunLockError`: another process
      searches in it.
    """
    project_dir = pathlib.Path(root_dir) / project
    with RunLock(project_dir):  # one process per project
        check_search(project_dir, search, comparable)
        tuner = build_tuner()
        tuner.search()
    context = {"command": command, **search, "max_trials": max_trials, "objective_is": objective_is}
    report = search_report(tuner.oracle, search["objective"], defaults, context)
    return write_record(project_dir / REPORT_JSON, report)  # with the time it was written


class SearchMismatch(ValueError):
    """A project directory that holds another search than the one asked for."""


def check_search(
    project_dir: str | os.PathLike,
    search: dict,
    comparable: Callable[[dict], dict] | None = None,
) -> None:
    """Records ``search`` in a new project; raises `SearchMismatch` naming what differs if the
    project holds another one. ``comparable`` maps both records before they are compared (a
    record written before its config's layout changed compares as it is now)."""
    path = pathlib.Path(project_dir) / SEARCH_JSON
    wanted = json.loads(json.dumps(search))  # tuples as lists, as stored
    if path.exists():
        stored = json.loads(path.read_text())
        if comparable is not None:
            stored, wanted = comparable(stored), comparable(wanted)
        differences = [
            key for key in sorted(set(stored) | set(wanted)) if stored.get(key) != wanted.get(key)
        ]
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
