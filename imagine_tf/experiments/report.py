"""`imagine-tf experiment NAME --report`: what the grid's finished cells measured.

Per configuration and metric, mean ± std over the seeds that finished; for every pair the
experiment names, Welch's t-test per metric; the curves (agent: SR against episodes, mean ±
std per epoch; objects: each metric at every evaluated N). With evaluations at several N
(``eval_num_objects``), also the tests at each N and each configuration's retention (the
metric at the largest N over the smallest); pairs whose own evaluations ran at different N
are compared only there. With the paper's figures (``paper_values``), a row of them and
Welch's test of each configuration against them (`paper`). Written as JSON (with the cells' commands, the code version and what
is missing), a markdown table and the figure.
"""

from __future__ import annotations

import datetime
import json
import pathlib
import shlex
import subprocess
from typing import Sequence

import numpy as np

from imagine_tf.experiments.cells import Cell
from imagine_tf.experiments.paper import compare_with_paper, paper_markdown, paper_rows
from imagine_tf.experiments.spec import ExperimentSpec
from imagine_tf.experiments.statistics import ALPHA, first_significant, summary, welch
from imagine_tf.atomic_files import write_text_atomically

CURVE_KEYS = ("eval_train_success", "eval_test_success")
CURVE_NAMES = {"eval_train_success": "train SR", "eval_test_success": "test SR"}


def lookup(results: dict | None, path: str):
    """The value at a dotted path ("per_type.5") of a results dict, or None."""
    value = results
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value if isinstance(value, (int, float)) else None


def code_version(repository: pathlib.Path) -> str:
    """The git commit of the repository (``+dirty`` with local changes outside the records of
    ``docs/results/``), or the package's version outside a git checkout."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=repository,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(  # records (docs/results/) are outputs, not code
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs/results"],
            cwd=repository,
            capture_output=True,
            text=True,
        ).stdout.strip()
        return commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        import imagine_tf

        return f"imagine-tf {getattr(imagine_tf, '__version__', 'unknown')}"


def _curves(progress: Sequence[list[dict]]) -> dict:
    """{key: [{"epoch", "episodes", "mean", "std", "n", "values"}, ...]} per epoch over the
    cells' progress records (the per-epoch evaluation: one episode per goal)."""
    by_epoch: dict[int, dict] = {}
    for records in progress:
        for record in records:
            entry = by_epoch.setdefault(
                record["epoch"], {"episodes": [], **{k: [] for k in CURVE_KEYS}}
            )
            entry["episodes"].append(record["episodes"])
            for key in CURVE_KEYS:
                entry[key].append(record.get(key))
    curves = {key: [] for key in CURVE_KEYS}
    for epoch in sorted(by_epoch):
        entry = by_epoch[epoch]
        for key in CURVE_KEYS:
            curves[key].append(
                {
                    "epoch": epoch,
                    "episodes": float(np.mean(entry["episodes"])),
                    **summary(entry[key]),
                }
            )
    return curves


def _read(cell: Cell) -> dict:
    """A finished cell's files, read once: its results at each N (None: the run's N), its
    progress records (agent) and its training seconds: the sum of an agent run's per-epoch
    ``seconds_*`` (collection, updates, reward, evaluation), or a reward run's
    ``training_seconds`` (an ensemble's: the members' sum)."""
    files = cell.result_files()
    read = {path: json.loads(path.read_text()) for path in set(files.values())}  # once each
    results = {num_objects: read[path] for num_objects, path in files.items()}
    if cell.spec.kind != "agent":
        return {"results": results, "seconds": results[None].get("training_seconds")}
    progress = cell.curves()
    seconds = sum(
        value
        for record in progress
        for key, value in record.items()
        if key.startswith("seconds_") and value is not None
    )
    return {
        "results": results,
        "progress": progress,
        "seconds": float(seconds),
    }


def collect(spec: ExperimentSpec, cells: Sequence[Cell]) -> dict:
    """The report's content (see the module docstring)."""
    readings = {cell.name: _read(cell) for cell in cells if cell.finished()}
    missing = [c.name for c in cells if c.name not in readings]  # in grid order
    configurations, own_n = {}, {}
    for label in spec.configurations:
        finished = [c for c in cells if c.label == label and c.name in readings]
        own = [readings[c.name] for c in finished]
        # The N of the configuration's own evaluations (agent: its TrainConfig's).
        own_n[label] = {r["results"][None].get("num_objects") for r in own}

        def metrics_at(num_objects):
            return {
                name: summary([lookup(r["results"][num_objects], path) for r in own])
                for name, path in spec.metrics.items()
            }

        entry = {
            "seeds": [c.seed for c in finished],
            "metrics": metrics_at(None),
            "seconds_per_cell": summary([r["seconds"] for r in own]),
        }
        if spec.eval_num_objects:
            entry["by_num_objects"] = {str(n): metrics_at(n) for n in spec.eval_num_objects}
            entry["retention"] = _retention(spec, own)
        if spec.kind == "agent":  # the finished cells, as in the table
            entry["curves"] = _curves([r["progress"] for r in own])
        configurations[label] = entry
    comparisons, curve_comparisons = [], []
    for a, b in spec.comparisons:
        if own_n[a] != own_n[b]:
            continue  # in scenes of different sizes (or unfinished): compared at each N below
        for name in spec.metrics:
            values_a = configurations[a]["metrics"][name]["values"]
            values_b = configurations[b]["metrics"][name]["values"]
            comparisons.append({"a": a, "b": b, "metric": name, **welch(values_a, values_b)})
        if spec.kind != "agent":
            continue
        for key in CURVE_KEYS:
            curve_a, curve_b = configurations[a]["curves"][key], configurations[b]["curves"][key]
            test = first_significant(curve_a, curve_b)
            curve_comparisons.append({"a": a, "b": b, "curve": key, **test})
    content = {
        "configurations": configurations,
        "comparisons": comparisons,
        "curve_comparisons": curve_comparisons,
        "missing": missing,
    }
    if spec.eval_num_objects:
        content["comparisons_by_num_objects"] = _comparisons_by_n(spec, configurations)
    if spec.paper_values:
        content["paper"] = compare_with_paper(spec, configurations)
    return content


def _comparisons_by_n(spec: ExperimentSpec, configurations: dict) -> list[dict]:
    """Welch's test of every named pair at every evaluated N, per metric."""
    tests = []
    for a, b in spec.comparisons:
        for n in spec.eval_num_objects:
            for name in spec.metrics:
                values_a = configurations[a]["by_num_objects"][str(n)][name]["values"]
                values_b = configurations[b]["by_num_objects"][str(n)][name]["values"]
                tests.append(
                    {"a": a, "b": b, "num_objects": n, "metric": name, **welch(values_a, values_b)}
                )
    return tests


def _retention(spec: ExperimentSpec, readings: Sequence[dict]) -> dict:
    """{metric: {"ratio_of_means", "per_seed"}}: the metric at the largest evaluated N over the
    metric at the smallest (the objects goal: train SR at N = 10 >= 0.8 x at N = 3), as the
    ratio of the seeds' means and as each seed's own ratio (mean ± std; seeds with both values
    and a nonzero one at the smallest N)."""
    smallest, largest = min(spec.eval_num_objects), max(spec.eval_num_objects)
    retention = {}
    for name, path in spec.metrics.items():
        pairs = [
            (lookup(r["results"][smallest], path), lookup(r["results"][largest], path))
            for r in readings
        ]
        low, high = (summary(values)["mean"] for values in zip(*pairs)) if pairs else (None, None)
        retention[name] = {
            "from_num_objects": smallest,
            "to_num_objects": largest,
            "ratio_of_means": None if not low or high is None else high / low,
            "per_seed": summary(
                [h / l for l, h in pairs if l is not None and h is not None and l > 0]
            ),
        }
    return retention


def markdown(spec: ExperimentSpec, content: dict) -> str:
    """The table of means ± std and the tests, as markdown."""
    names = list(spec.metrics)
    lines = [
        f"# Experiment `{spec.name}`",
        "",
        spec.description,
        "",
        "| configuration | seeds | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for label, entry in content["configurations"].items():
        cells = [_mean_std(entry["metrics"][n]) for n in names]
        lines.append(f"| {label} | {len(entry['seeds'])} | " + " | ".join(cells) + " |")
    lines += paper_rows(content.get("paper"), names)
    if spec.eval_num_objects:
        lines += ["", "(Each at its configuration's own N, `TrainConfig.num_objects`.)"]
    timed = {
        label: entry["seconds_per_cell"]
        for label, entry in content["configurations"].items()
        if entry.get("seconds_per_cell", {}).get("mean") is not None
    }
    if timed:
        per_label = ", ".join(f"{label} {_mean_std(e, '.0f')}" for label, e in timed.items())
        lines += [
            "",
            "Training seconds per cell (as the cells measured them, one TensorFlow "
            f"thread each; mean ± std): {per_label}.",
        ]
    if content["comparisons"]:
        lines += [
            "",
            f"Welch's two-tailed t-test, α = {ALPHA}:",
            "",
            "| a vs b | metric | difference | t | p | a > b |",
            "|---|---|---|---|---|---|",
        ]
        for test in content["comparisons"]:
            lines.append(
                f"| {test['a']} vs {test['b']} | {test['metric']} | "
                f"{_number(test['difference'], '+.3f')} | {_number(test['t'], '.2f')} | "
                f"{_number(test['p'], '.2g')} | {_holds(test)} |"
            )
    lines += paper_markdown(content.get("paper"))
    if content.get("comparisons_by_num_objects") is not None:
        lines += _by_n_markdown(spec, content)
    if content.get("curve_comparisons"):
        lines += ["", "During training (the per-epoch evaluation, one episode per goal):", ""]
        lines += [f"* {_dated(test)}" for test in content["curve_comparisons"]]
    if content["missing"]:
        lines += [
            "",
            f"Missing ({len(content['missing'])} cells not finished): "
            + ", ".join(content["missing"]),
        ]
    return "\n".join(lines) + "\n"


def _by_n_markdown(spec: ExperimentSpec, content: dict) -> list[str]:
    """The metrics at every evaluated N, the retention from the smallest N to the largest and
    the tests at every N, as markdown lines."""
    configurations = content["configurations"]
    columns = [(label, name) for label in configurations for name in spec.metrics]
    lines = [
        "",
        "At each number of objects N at evaluation (mean ± std over seeds):",
        "",
        "| N | " + " | ".join(f"{label} {name}" for label, name in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for n in spec.eval_num_objects:
        row = [_mean_std(configurations[l]["by_num_objects"][str(n)][m]) for l, m in columns]
        lines.append(f"| {n} | " + " | ".join(row) + " |")
    lines += ["", "Retention, the metric at the largest N over the metric at the smallest:", ""]
    for label, name in columns:
        kept = configurations[label]["retention"][name]
        lines.append(
            f"* {label}, {name}, N = {kept['from_num_objects']} → {kept['to_num_objects']}: "
            f"ratio of the means {_number(kept['ratio_of_means'], '.3f')}; per seed "
            f"{_mean_std(kept['per_seed'])} (n = {kept['per_seed']['n']})."
        )
    if content["comparisons_by_num_objects"]:
        names = list(spec.metrics)
        lines += [
            "",
            f"Welch's two-tailed t-test at each N (difference a − b, p; α = {ALPHA}):",
            "",
            "| a vs b | N | " + " | ".join(names) + " |",
            "|---|---|" + "---|" * len(names),
        ]
        tests = {
            (t["a"], t["b"], t["num_objects"], t["metric"]): t
            for t in content["comparisons_by_num_objects"]
        }
        for a, b in spec.comparisons:
            for n in spec.eval_num_objects:
                row = [_difference_p(tests[a, b, n, name]) for name in names]
                lines.append(f"| {a} vs {b} | {n} | " + " | ".join(row) + " |")
    return lines


def _difference_p(test: dict) -> str:
    """ "+0.123, p = 0.004 (a > b)" for a Welch test; "—" without one."""
    if test["difference"] is None:
        return "—"
    text = f"{test['difference']:+.3f}, p = {_number(test['p'], '.2g')}"
    return text + (" (a > b)" if test["a_greater"] else "")


def _holds(test: dict) -> str:
    return {True: "yes", False: "no", None: "—"}[test["a_greater"]]


def _dated(test: dict) -> str:
    """When a curve of ``a`` first beats ``b`` (Welch, α = 0.05), as a sentence."""
    what = f"{test['a']} > {test['b']} on {CURVE_NAMES[test['curve']]}"
    if test["first_epoch"] is None:
        return f"{what}: at no evaluation."
    when = f"epoch {test['first_epoch']} ({test['first_episodes']:,.0f} episodes)"
    if test["from_then_on"]:
        return f"{what}: from {when} on, at every later evaluation."
    return f"{what}: first at {when}, not at every later one."


def _number(value, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def _mean_std(entry: dict, style: str = ".3f") -> str:
    if entry["mean"] is None:
        return "—"
    return format(entry["mean"], style) + (
        "" if entry["std"] is None else f" ± {entry['std']:{style}}"
    )


def write_report(
    spec: ExperimentSpec,
    cells: Sequence[Cell],
    out_dir: pathlib.Path,
    repository: pathlib.Path,
    experiment_file: pathlib.Path,
) -> dict:
    """Writes ``NAME.json``, ``NAME.md`` and ``NAME.png`` into ``out_dir``; returns the JSON."""
    from imagine_tf.experiments.figures import draw

    content = collect(spec, cells)
    record = {
        "experiment": spec.name,
        "description": spec.description,
        "file": str(experiment_file),
        "command": f"imagine-tf experiment {spec.name} --report",
        "report_code_version": code_version(repository),
        # The code each cell ran (one entry per version it was started with); cells started
        # before versions were recorded are absent.
        "cell_code_versions": {
            name: versions
            for name, versions in ((cell.name, cell.code_versions()) for cell in cells)
            if versions
        },
        "written": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seeds_per_configuration": {label: spec.seeds_of(label) for label in spec.configurations},
        "cell_commands": {cell.name: cell_command(cell) for cell in cells},
        **content,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomically(out_dir / f"{spec.name}.json", json.dumps(record, indent=1))
    write_text_atomically(out_dir / f"{spec.name}.md", markdown(spec, content))
    draw(spec, content, out_dir / f"{spec.name}.png")
    return record


def cell_command(cell: Cell) -> str:
    """The cell's first command, as a user would type it (the run that makes it), with RUNS
    for the experiments' directory (by default ``runs/experiments``)."""
    import dataclasses

    fresh = dataclasses.replace(cell, root=pathlib.Path("RUNS") / cell.spec.name)  # no state
    first = fresh.commands()[0]
    return "imagine-tf " + shlex.join(first[3:])
