"""Success-rate table of trained runs (`imagine-tf report`) -> ``docs/results/agent_sr.json``.

A run directory holds ``config.json`` and ``progress.jsonl`` (written by `imagine-tf train`) and
``eval.json`` (written by `imagine-tf eval`, 30 noise-free episodes per goal by default). One
row per run: its configuration (policy, reward, seed), how far it went (epochs, episodes,
updates), the training wall time (the epochs' own timings, summed over every session; the
checkpoint writes are not counted) and the success rates of ``eval.json``: train, test, per
generalization type and per predicate. Rows of runs without ``eval.json`` carry the
last in-training evaluation instead (one episode per goal), marked as such.
"""

from __future__ import annotations

import json
import os
import pathlib
import time
from typing import Sequence

from imagine_tf.training.atomic_files import write_text_atomically
from imagine_tf.training.earlier_report import earlier_runs_not_given


def run_logs(root_dir: str | os.PathLike) -> list[dict]:
    """The per-epoch records of a run (its ``progress.jsonl``)."""
    text = (pathlib.Path(root_dir) / "progress.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line]


def row_key(row: dict) -> tuple:
    """What a newer row replaces: the same run evaluated (`imagine-tf eval`) at the same epoch,
    or the same run's in-training row (whatever its epoch: a run still training is reported
    again and again)."""
    evaluated = isinstance(row.get("repetitions"), int)
    return row["run"], row.get("evaluated_at_epoch") if evaluated else "in training"


def run_row(root_dir: str | os.PathLike) -> dict:
    """The table row of one run directory; a FileNotFoundError if it holds no run."""
    root = pathlib.Path(root_dir)
    if not (root / "config.json").exists() or not (root / "progress.jsonl").exists():
        raise FileNotFoundError(
            f"{root} is not a training run (no config.json / progress.jsonl): "
            "give directories made by `imagine-tf train`."
        )
    config = json.loads((root / "config.json").read_text())
    logs = run_logs(root)
    last = logs[-1] if logs else {}
    row = {
        "run": root.name,
        "architecture": config["architecture"],
        "reward": config["reward"],
        "seed": config["seed"],
        "batch_size": config["batch_size"],
        "final_layer_init": config.get("final_layer_init", "small_uniform"),
        "compute_dtype": config.get("compute_dtype", "float32"),
        "final_goal_ratio": config.get("final_goal_ratio", 0.0),
        "epochs": last.get("epoch", 0),
        "episodes": last.get("episodes", 0),
        "updates": last.get("updates", 0),
        "wall_seconds": round(
            sum(v for r in logs for k, v in r.items() if k.startswith("seconds_")), 1
        ),
    }
    if (root / "fork.json").exists():
        fork = json.loads((root / "fork.json").read_text())
        row["forked_from"] = {key: fork[key] for key in ("source", "epoch", "changed")}
    if (root / "eval.json").exists():
        evaluation = json.loads((root / "eval.json").read_text())
        # The run may have gone on since its evaluation: the SR belongs to this many episodes.
        at_epoch = [r for r in logs if r.get("epoch") == evaluation["epoch"]]
        row.update(
            evaluated_at_epoch=evaluation["epoch"],
            evaluated_at_episodes=at_epoch[0]["episodes"] if at_epoch else None,
            repetitions=evaluation["repetitions"],
            train_success=evaluation["train_success"],
            test_success=evaluation["test_success"],
            per_type=evaluation["per_type"],
            train_per_predicate=evaluation.get("train_per_predicate"),
        )
    elif logs:
        row.update(
            evaluated_at_epoch=last["epoch"],
            evaluated_at_episodes=last["episodes"],
            repetitions="1 (in-training evaluation; run `imagine-tf eval` for 30)",
            train_success=last["eval_train_success"],
            test_success=last["eval_test_success"],
        )
    return row


def write_agent_report(root_dirs: Sequence[str | os.PathLike], path: str | os.PathLike,
                       command: str, earlier: dict | None = None) -> dict:  # fmt: skip
    """Rows of the runs, written as JSON (atomically) with the command and a timestamp.

    ``earlier``: a report written before (an agent_sr.json) whose rows are kept unless a row
    given here replaces them (`row_key`); run directories do not always outlive a machine,
    written rows do, and a run evaluated again later adds a row beside the earlier one.
    Each kept row records the command that wrote it (``reported_by``).
    """
    rows = [run_row(root) for root in root_dirs]
    if earlier is not None:
        kept = earlier_runs_not_given(rows, earlier, "imagine-tf report", key=row_key)
        rows = [{**row, "reported_by": row.get("reported_by", earlier.get("command"))}
                for row in kept] + rows  # fmt: skip
    record = {"command": command, "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "runs": rows}
    write_text_atomically(path, json.dumps(record, indent=1))
    return record
