"""How the shipped run was made and what it learned from, for the card: read from the run's
records (config.json, fork.json, progress.jsonl, ``<cell>.code_versions`` beside it) and from
its experiment's report (``cell_commands``), never typed in."""

from __future__ import annotations

import json
import pathlib

from imagine_tf.pretrained.location import REPOSITORY
from imagine_tf.runs import layout as run_layout


class ProvenanceError(ValueError):
    """A record the card needs is missing or does not name the run."""


def _experiment_record(path: pathlib.Path) -> dict:
    if not path.is_file():
        raise ProvenanceError(
            f"No experiment report at {path}: give --experiment-record, the JSON that "
            "`imagine-tf experiment NAME --report` wrote (docs/results/experiments/NAME.json)."
        )
    return json.loads(path.read_text())


def _code_versions(path: pathlib.Path) -> list[str]:
    """The distinct code versions a cell ran (its ``.code_versions``, one line per start)."""
    if not path.is_file():
        raise ProvenanceError(
            f"No {path.name} beside the run: the card names the code that trained it, which "
            f"`imagine-tf experiment` records in {path}."
        )
    return list(dict.fromkeys(path.read_text().split()))


def _shown(path: pathlib.Path) -> str:
    """A path inside the repository relative to its root, others as they are."""
    path = pathlib.Path(path).resolve()
    return str(path.relative_to(REPOSITORY)) if path.is_relative_to(REPOSITORY) else str(path)


def _cells(run: pathlib.Path) -> tuple[list[str], dict | None]:
    """The experiment cells that made the run, first to last (a fork's source first), and
    its fork.json."""
    fork_file = run / run_layout.FORK
    fork = json.loads(fork_file.read_text()) if fork_file.is_file() else None
    sources = [pathlib.Path(fork["source"]).name] if fork else []
    return [*sources, run.name], fork


def provenance(run: pathlib.Path, record_path: pathlib.Path, evaluation: dict) -> dict:
    """The run, its experiment and configuration, the commands that made and read it (the
    experiment's, with RUNS for its runs directory), the code versions each step ran."""
    record = _experiment_record(record_path)
    experiment, commands = record["experiment"], record.get("cell_commands", {})
    cells, fork = _cells(run)
    missing = [cell for cell in cells if cell not in commands]
    if missing:
        raise ProvenanceError(
            f"{record_path} (experiment {experiment!r}) has no command for {missing}: give the "
            "report of the experiment that made the run."
        )
    config = json.loads((run / run_layout.CONFIG_JSON).read_text())
    label = run.name.removesuffix(f"_s{config['seed']}")
    if label not in record.get("configurations", {}):
        raise ProvenanceError(
            f"{record_path} reports no configuration {label!r} (the run {run.name}); it has "
            f"{sorted(record.get('configurations', {}))}."
        )
    read = (
        f"imagine-tf eval --root-dir RUNS/{experiment}/{run.name} "
        f"--repetitions {evaluation['repetitions']}"
    )
    return {
        "run": str(run),
        "experiment": experiment,
        "experiment_record": _shown(record_path),
        "experiment_command": f"imagine-tf experiment {experiment}",
        "configuration": label,
        "seed": config["seed"],
        "commands": [commands[cell] for cell in cells] + [read],
        "code_versions": {
            cell: _code_versions(run.parent / f"{cell}.code_versions") for cell in cells
        },
        "fork": fork,
    }


def data_summary(config: dict, progress: list[dict], run: pathlib.Path) -> dict:
    """What the agent and its reward learned from: its own episodes and the partner's
    descriptions of their final states (no dataset), counted from its records."""
    last = progress[-1]
    fork_file = run / run_layout.FORK
    fork_epoch = json.loads(fork_file.read_text())["epoch"] if fork_file.is_file() else None
    at_fork = next((r for r in progress if r["epoch"] == fork_epoch), None)
    return {
        "episodes": last["episodes"],
        "updates": last["updates"],
        "epochs": last["epoch"],
        "batch_size": config["batch_size"],
        "num_objects": config["num_objects"],
        "partner_predicates": config["goal_predicates"],
        "discovered_goals": last["discovered_goals"],
        "imagination": config["imagination"],
        "imagination_start": config["imagination_start"],
        "imagined_goals": last.get("imagined_goals"),
        "imagined_test_goals": last.get("imagined_test_goals"),
        "forked_at_epoch": fork_epoch,
        "episodes_before_fork": at_fork["episodes"] if at_fork else None,
    }
