"""Success-rate table of trained runs (`imagine-tf report`) -> ``docs/results/agent_sr.json``.

A run directory holds ``config.json`` and ``progress.jsonl`` (written by `imagine-tf train`) and
``evaluations/epoch_EEEE.json`` and ``eval.json`` (written by `imagine-tf eval`, 30 noise-free
episodes per goal by default). One row per run and evaluated epoch: its configuration (policy,
reward, seed, precision, ...), how far it went when reported (epochs, episodes, updates) and at
the evaluated epoch (``evaluated_at_*``), the training wall time (the epochs' own timings,
summed over every start; the checkpoint writes are not counted), the code versions and
machines that trained it (``starts.jsonl``), and the success rates of the evaluation
(``repetitions`` episodes per goal): train, test, per generalization type and per predicate. A run never evaluated has one row with its last
in-training evaluation instead (one episode per goal), marked as such.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
from typing import Sequence

from imagine_tf.provenance import read_starts
from imagine_tf.runs import layout as run_layout
from imagine_tf.atomic_files import write_record
from imagine_tf.runs.earlier_report import earlier_runs_not_given


def run_logs(root_dir: str | os.PathLike) -> list[dict]:
    """The per-epoch records of a run (its ``progress.jsonl``)."""
    text = (pathlib.Path(root_dir) / run_layout.PROGRESS).read_text()
    return [json.loads(line) for line in text.splitlines() if line]


# What tells experiments apart besides the run's name (directories of two experiments may share
# a name, e.g. budget10/fa_s0 and budget15/fa_s0), with the value a run made before the field
# existed had (None: always recorded).
EXPERIMENT_FIELDS = {
    "architecture": None,
    "reward": None,
    "seed": None,
    "batch_size": None,
    "final_layer_init": "small_uniform",
    "compute_dtype": "float32",
    "final_goal_ratio": 0.0,
    "imagination": "none",
}


def row_key(row: dict) -> tuple:
    """What a newer row replaces: the same run (name and `EXPERIMENT_FIELDS`) evaluated
    (`imagine-tf eval`) at the same epoch, or the same run's in-training row (whatever its
    epoch: a run still training is reported again and again)."""
    evaluated = isinstance(row.get("repetitions"), int)
    experiment = tuple(row.get(name, default) for name, default in EXPERIMENT_FIELDS.items())
    return row["run"], experiment, row.get("evaluated_at_epoch") if evaluated else "in training"


def _run_columns(root: pathlib.Path, config: dict, logs: list[dict]) -> dict:
    """The columns every row of a run shares: its name, `EXPERIMENT_FIELDS`, how far it went,
    its wall time, its actor processes and, for a fork, where it was forked from."""
    last = logs[-1] if logs else {}
    row = {
        "run": root.name,
        **{
            name: config[name] if default is None else config.get(name, default)
            for name, default in EXPERIMENT_FIELDS.items()
        },
        "epochs": last.get("epoch", 0),
        "episodes": last.get("episodes", 0),
        "updates": last.get("updates", 0),
        "wall_seconds": round(
            sum(v for r in logs for k, v in r.items() if k.startswith("seconds_")), 1
        ),
        # 0: actor and learner in one process; K: `imagine-tf train --actors K` (its logs).
        "actor_processes": len(list((root / run_layout.LOGS).glob("actor_*.log"))),
        **_provenance(root),
    }
    if (root / run_layout.FORK).exists():
        fork = json.loads((root / run_layout.FORK).read_text())
        row["forked_from"] = {key: fork[key] for key in ("source", "epoch", "changed")}
    return row


def _provenance(root: pathlib.Path) -> dict:
    """The code versions and machines that trained the run (its ``starts.jsonl``; None for
    runs made before starts were recorded)."""
    starts = read_starts(root)
    if not starts:
        return {"code_versions": None, "machines": None}
    machines = [start["machine"] for start in starts]
    return {
        "code_versions": list(dict.fromkeys(start["code_version"] for start in starts)),
        "machines": list(
            dict.fromkeys(
                f"{m['cpu_model']} ({' '.join(m['instruction_sets']) or 'no AVX2'}; "
                f"{m['logical_cpus']} logical CPUs)"
                for m in machines
            )
        ),
    }


def _kept_evaluations(root: pathlib.Path) -> dict[int, dict]:
    """{epoch: evaluation} of the run's evaluations at its N (``eval.json`` and
    ``evaluations/epoch_EEEE.json``, the latter winning)."""
    evaluations = {}
    at_other_n = re.compile(r"epoch_\d+_n\d+")  # evaluations at another N are not rows
    kept = sorted((root / run_layout.EVALUATIONS).glob("epoch_*.json"))
    for path in [root / run_layout.EVAL_JSON, *kept]:
        if path.exists() and not at_other_n.fullmatch(path.stem):
            evaluation = json.loads(path.read_text())
            evaluations[evaluation["epoch"]] = evaluation  # the kept file wins over eval.json
    return evaluations


def run_rows(root_dir: str | os.PathLike) -> list[dict]:
    """The table rows of one run directory: one per evaluation at the run's N
    (``evaluations/epoch_EEEE.json``, and ``eval.json`` for runs evaluated before those were
    kept), by epoch; the last in-training evaluation if it has none. A FileNotFoundError if the
    directory holds no run."""
    root = pathlib.Path(root_dir)
    if not (root / run_layout.CONFIG_JSON).exists() or not (root / run_layout.PROGRESS).exists():
        raise FileNotFoundError(
            f"{root} is not a training run (no config.json / progress.jsonl): "
            "give directories made by `imagine-tf train`."
        )
    config = json.loads((root / run_layout.CONFIG_JSON).read_text())
    logs = run_logs(root)
    last = logs[-1] if logs else {}
    row = _run_columns(root, config, logs)
    evaluations = _kept_evaluations(root)
    if not evaluations:
        if not logs:
            return [row]
        return [
            {
                **row,
                "evaluated_at_epoch": last["epoch"],
                "evaluated_at_episodes": last["episodes"],
                "evaluated_at_updates": last.get("updates"),
                "repetitions": "1 (in-training evaluation; run `imagine-tf eval` for 30)",
                "train_success": last["eval_train_success"],
                "test_success": last["eval_test_success"],
            }
        ]
    at = {r.get("epoch"): r for r in logs}
    return [
        {
            **row,
            # The run may have gone on since its evaluation: the SR belongs to this many episodes.
            "evaluated_at_epoch": epoch,
            "evaluated_at_episodes": at.get(epoch, {}).get("episodes"),
            "evaluated_at_updates": at.get(epoch, {}).get("updates"),
            "repetitions": evaluation["repetitions"],
            "train_success": evaluation["train_success"],
            "test_success": evaluation["test_success"],
            "per_type": evaluation["per_type"],
            "train_per_predicate": evaluation.get("train_per_predicate"),
            **({"imagined": evaluation["imagination"]} if "imagination" in evaluation else {}),
        }
        for epoch, evaluation in sorted(evaluations.items())
    ]


def write_agent_report(
    root_dirs: Sequence[str | os.PathLike],
    path: str | os.PathLike,
    command: str,
    earlier: dict | None = None,
) -> dict:
    """Rows of the runs, written as JSON (atomically) with the command and a timestamp.

    ``earlier``: a report written before (an agent_sr.json) whose rows are kept unless a row
    given here replaces them (`row_key`); run directories do not always outlive a machine,
    written rows do, and a run evaluated again later adds a row beside the earlier one.
    Each kept row records the command that wrote it (``reported_by``).
    """
    rows = [row for root in root_dirs for row in run_rows(root)]
    if earlier is not None:
        kept = earlier_runs_not_given(rows, earlier, "imagine-tf report", key=row_key)
        rows = [
            {**row, "reported_by": row.get("reported_by", earlier.get("command"))} for row in kept
        ] + rows
    return write_record(path, {"runs": rows}, command)
