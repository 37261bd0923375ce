"""Multi-seed reward-model studies and their report (`imagine-tf reward study | report`).

The paper's two supervised experiments (Colas et al. 2020, IMAGINE; flowersteam/Imagine), each
a gin config of a `RewardTrainConfig` and a `RewardStudyConfig`:

* **generalization** (``configs/studies/reward_generalization.gin``) — MA, FA and FC on the
  one-object goals (191 train / 64 test), F1 on the train goals, the test goals, the test goals
  without Type 2 ("flower", a word never heard in training) and per generalization type;
* **two_object** (``configs/studies/reward_two_object.gin``) — MA-pairs on all 415 goals: trained
  on the 191 one-object and 158 two-object train goals, F1 reported as in Table 1 on the Grasp
  goals (11 one-object and 2 two-object test goals). The one-object Go and Grow train goals stay
  in training: "Grow any fly" and "Grow any animal" are the only places where the words of the
  Type 4 test goals "Grasp any fly" / "Grasp any animal" are heard as one-object goals (the
  authors' Playground, flowersteam/Imagine); a study on the Grasp goals alone (the ``grasp``
  goal set) never hears them, and scored 0.00 on the fly goals.

`run_reward_study` trains one run per (architecture, seed) into ``<root_dir>/<arch>_s<seed>``
with the supervised recipe, loading the dataset once; a run whose ``metrics.json`` exists is
skipped, so a study resumes. `collect_study` reads every ``metrics.json`` under a directory and
gives per-run rows and mean ± std per architecture; `plot_study` draws the bar chart.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Iterable, Sequence

import numpy as np

from imagine_tf.data.supervised import goal_set as goals_of_set
from imagine_tf.data.supervised import load_supervised_data
from imagine_tf.atomic_files import save_figure_atomically
from imagine_tf.reward.layout import COMMAND, METRICS_JSON
from imagine_tf.runs.earlier_report import earlier_runs_not_given
from imagine_tf.reward.config import RewardStudyConfig, RewardTrainConfig
from imagine_tf.reward.ensemble import ensemble_directory, evaluate_ensemble, member_seeds
from imagine_tf.runs.lock import RunLock

# (column name, path in metrics["summary"]) of the reported F1 values.
COLUMNS = (
    ("one_object_train", ("one_object", "train")),
    ("one_object_test", ("one_object", "test")),
    ("one_object_test_without_type_2", ("one_object", "test_without_type_2")),
    *((f"type_{t}", ("per_type", str(t))) for t in range(1, 6)),
    ("grasp_one_object_train", ("grasp_one_object", "train")),
    ("grasp_one_object_test", ("grasp_one_object", "test")),
    ("two_object_train", ("two_object", "train")),
    ("two_object_test", ("two_object", "test")),
)


def run_reward_study(
    dataset_dir: str | os.PathLike,
    root_dir: str | os.PathLike,
    seeds: Sequence[int] = (0, 1, 2),
    config: RewardTrainConfig = RewardTrainConfig(),
    study: RewardStudyConfig = RewardStudyConfig(),
    progress: bool = True,
    command: str | None = None,
) -> dict:
    """Trains every (architecture, seed) of a study that has no metrics yet; returns the report.

    Each run is ``config`` with the study's architecture and the seed
    (`reward_recipe.supervised_config`). ``command``, the command line that ran the study, is
    kept in each run's ``command.txt`` (and in the report). With ``study.ensemble_size`` K > 1,
    seed s is an ensemble of the runs of seeds F + s·K … F + s·K + K − 1 (`reward_ensemble`;
    F = ``study.first_member_seed``), trained as above and then scored together into
    ``<arch>_x<K>_s<s>``.
    """
    from imagine_tf.reward.supervised_training import SupervisedTrainer  # TensorFlow
    from imagine_tf.reward.recipe import supervised_config

    data = load_supervised_data(
        dataset_dir,
        goals_of_set(config.goal_set),
        config.max_train_episodes,
        config.max_test_episodes,
    )
    root = pathlib.Path(root_dir)
    ensemble_size, first_member = study.ensemble_size, study.first_member_seed
    for architecture in study.architectures_of(config):
        for seed in seeds:
            members = member_seeds(seed, ensemble_size, first_member)
            member_dirs = {m: root / f"{architecture}_s{m}" for m in members}
            for member, run_dir in member_dirs.items():
                if (run_dir / METRICS_JSON).exists():
                    continue
                if command:
                    run_dir.mkdir(parents=True, exist_ok=True)
                    (run_dir / COMMAND).write_text(command + "\n")
                run_config = supervised_config(config, architecture, member)
                with RunLock(run_dir):
                    SupervisedTrainer(data, run_config, run_dir).train(
                        progress=progress, keep_test_probabilities=ensemble_size > 1
                    )
            ensemble_dir = root / ensemble_directory(architecture, seed, ensemble_size)
            if ensemble_size > 1 and not (ensemble_dir / METRICS_JSON).exists():
                with RunLock(ensemble_dir):
                    evaluate_ensemble(data, list(member_dirs.values()), ensemble_dir, seed, command)
    return collect_study(root)


def _value(summary: dict, path: tuple[str, str]) -> float | None:
    entry = summary.get(path[0], {}).get(path[1])
    return None if entry is None else entry["f1"]


def collect_study(root_dir: str | os.PathLike) -> dict:
    """Rows per run and mean ± std per architecture from the ``metrics.json`` files under a dir."""
    paths = sorted(pathlib.Path(root_dir).rglob(METRICS_JSON))
    if not paths:
        raise FileNotFoundError(
            f"No metrics.json under {root_dir}: run `imagine-tf reward study` first."
        )
    runs = []
    for path in paths:
        metrics = json.loads(path.read_text())
        command_file = path.parent / COMMAND
        runs.append(
            {
                "run": str(path.parent.relative_to(root_dir)),
                "architecture": metrics["config"]["architecture"],
                "seed": metrics["config"]["seed"],
                "normalize_goal": metrics["config"].get("normalize_goal", False),
                "pair_gate": metrics["config"].get("pair_gate", "per_slot"),
                "pair_relations": metrics["config"].get("pair_relations", False),
                "ensemble_size": metrics["config"].get("ensemble_size", 1),
                "epochs": metrics["epochs"],
                "training_seconds": metrics["training_seconds"],
                "best_epoch": metrics.get("best_epoch"),
                "seconds_to_best": metrics.get("seconds_to_best"),
                "best_validation_f1": metrics.get("best_validation_f1"),
                "test_states": metrics["test_states"],
                **{name: _value(metrics["summary"], where) for name, where in COLUMNS},
                "command": command_file.read_text().strip() if command_file.exists() else None,
            }
        )
    return {"runs": runs, "mean_std": _aggregate(runs)}


def merge_reports(report: dict, earlier: dict) -> dict:
    """``report`` plus the runs of an ``earlier`` report (a written reward_f1.json) it lacks.

    Run directories do not always outlive a machine; the rows of a written report do. A run of
    ``report`` replaces the earlier row of the same name (its path under the study root), and
    mean ± std is recomputed over all rows.
    """
    kept = earlier_runs_not_given(report["runs"], earlier, "imagine-tf reward report")
    runs = kept + list(report["runs"])
    runs.sort(key=lambda run: run["run"])
    return {"runs": runs, "mean_std": _aggregate(runs)}


def _aggregate(runs: Iterable[dict]) -> dict:
    by_architecture: dict[str, list[dict]] = {}
    for run in runs:  # variants apart: "ma+norm", "ma_pairs+shared+norm"
        gate = run.get("pair_gate", "per_slot")
        name = run["architecture"] + ("" if gate == "per_slot" else f"+{gate}")
        name += "+rel" if run.get("pair_relations") else ""
        name += "+norm" if run.get("normalize_goal") else ""
        name += f" x{run['ensemble_size']}" if run.get("ensemble_size", 1) > 1 else ""
        by_architecture.setdefault(name, []).append(run)
    table = {}
    for architecture, rows in by_architecture.items():
        entry = {"seeds": len(rows)}
        for name in [c for c, _ in COLUMNS] + [
            "training_seconds",
            "seconds_to_best",
            "epochs",
            "best_epoch",
        ]:
            values = np.array([r[name] for r in rows if r.get(name) is not None], dtype=float)
            entry[name] = (
                None
                if values.size == 0
                else {  # the sample std (ddof 1), as every report; None for one run
                    "mean": float(values.mean()),
                    "std": float(values.std(ddof=1)) if values.size > 1 else None,
                }
            )
        table[architecture] = entry
    return table


def _mean_std(figure: dict) -> str:
    if figure["std"] is None:
        return f"{figure['mean']:.2f}"
    return f"{figure['mean']:.2f} ± {figure['std']:.2f}"


def format_study(report: dict, columns: Sequence[str] | None = None) -> str:
    """A Markdown table, one row per architecture, mean ± std over seeds."""
    columns = columns or [c for c, _ in COLUMNS]
    lines = [
        "| arch | seeds | " + " | ".join(columns) + " | train s |",
        "|---" * (len(columns) + 3) + "|",
    ]
    for architecture, entry in report["mean_std"].items():
        cells = ["–" if entry[c] is None else _mean_std(entry[c]) for c in columns]
        seconds = entry["training_seconds"]
        lines.append(
            f"| {architecture} | {entry['seeds']} | "
            + " | ".join(cells)
            + f" | {seconds['mean']:.0f} |"
        )
    return "\n".join(lines)


def plot_study(report: dict, path: str | os.PathLike, columns: Sequence[str] | None = None) -> None:
    """Grouped bar chart of mean F1 ± std per architecture (PNG, written atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = report["mean_std"]
    columns = columns or [c for c, _ in COLUMNS if any(e[c] is not None for e in table.values())]
    width = 0.8 / max(len(table), 1)
    figure, axes = plt.subplots(figsize=(max(6, 1.1 * len(columns)), 3.6))
    for index, (architecture, entry) in enumerate(table.items()):
        means = [entry[c]["mean"] if entry[c] else np.nan for c in columns]
        stds = [(entry[c]["std"] or 0.0) if entry[c] else 0.0 for c in columns]
        positions = np.arange(len(columns)) + (index - (len(table) - 1) / 2) * width
        axes.bar(
            positions,
            means,
            width,
            yerr=stds,
            capsize=2,
            label=f"{architecture} ({entry['seeds']} seeds)",
        )
    axes.set_xticks(
        np.arange(len(columns)), [c.replace("_", " ") for c in columns], rotation=30, ha="right"
    )
    axes.set_ylabel("F1 (test states)")
    axes.set_ylim(0, 1.05)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside, not over bars
    figure.tight_layout()
    save_figure_atomically(figure, path)
