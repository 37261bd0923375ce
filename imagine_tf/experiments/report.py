"""`imagine-tf experiment NAME --report`: what the grid's finished cells measured.

Per configuration and metric: mean, std (ddof 1), median and quartiles, IQM, and bootstrap CIs
of the mean and IQM over the seeds that finished (`comparisons.describe`). Per declared claim
and metric (and at each N of ``eval_num_objects``): the difference with its CI, P(a > b), a
paired t-test (forks of one run, or cells of one seed) or Welch's test, Holm's adjustment over
the report's family and the verdict; the other metrics of the same pairs are described, not
tested. The curves (agent: each curve metric against episodes, mean ± std per epoch);
with the paper's figures, Welch's test against them (in the family). Written as JSON (with the
cells' commands, the code version and what is missing), a markdown page and the figure.

`restate` recomputes the statistics of a report from the per-seed values its JSON record
holds, for grids whose run directories are gone.
"""

from __future__ import annotations

import json
import pathlib
import shlex
from typing import Sequence

import numpy as np

from imagine_tf.atomic_files import write_record, write_text_atomically
from imagine_tf.provenance import code_version
from imagine_tf.experiments import comparisons, secondary
from imagine_tf.experiments.cells import Cell
from imagine_tf.experiments.markdown import markdown
from imagine_tf.experiments.paper import compare_with_paper
from imagine_tf.experiments.spec import ExperimentSpec
from imagine_tf.experiments.statistics import first_significant, summary
from imagine_tf.runs import layout as run_layout


def lookup(results: dict | None, path: str):
    """The value at a dotted path ("per_type.5") of a results dict, or None."""
    value = results
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value if isinstance(value, (int, float)) else None


def _curves(progress: Sequence[list[dict]], keys: Sequence[str]) -> dict:
    """{key: [{"epoch", "episodes", "mean", "std", "n", "values"}, ...]} per epoch over the
    cells' progress records (SR: the per-epoch evaluation, one episode per goal)."""
    by_epoch: dict[int, dict] = {}
    for records in progress:
        for record in records:
            entry = by_epoch.setdefault(record["epoch"], {"episodes": [], **{k: [] for k in keys}})
            entry["episodes"].append(record["episodes"])
            for key in keys:
                entry[key].append(record.get(key))
    curves = {key: [] for key in keys}
    for epoch in sorted(by_epoch):
        entry = by_epoch[epoch]
        for key in keys:
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
    progress records (agent) and its cost (`_agent_cost`; a reward run's
    ``training_seconds``, an ensemble's: the members' sum)."""
    files = cell.result_files()
    read = {path: json.loads(path.read_text()) for path in set(files.values())}  # once each
    results = {num_objects: read[path] for num_objects, path in files.items()}
    if cell.spec.kind != "agent":
        return {"results": results, "seconds": results[None].get("training_seconds")}
    progress = cell.curves()
    read_epochs = {
        epoch: json.loads(path.read_text())
        for epoch in cell.spec.read_epochs_of(cell.label)
        if (path := cell.read_epoch_file(epoch)).exists()
    }
    return {
        "results": results,
        "progress": progress,
        "read_epochs": read_epochs,
        **_agent_cost(cell, progress),
    }


def _agent_cost(cell: Cell, progress: Sequence[dict]) -> dict:
    """An agent cell's own cost, a fork's without its source's epochs: "seconds", the sum of
    its epochs' ``seconds_*`` (collection, updates, reward, evaluation); "cpu_seconds" and
    "process_seconds", the CPU and wall seconds of its processes as sampled beside the grid
    (``cpu_seconds.json``, docs/results/scripts/sample_cell_cpu.py), None where not sampled."""
    fork = cell.directory / "fork.json"
    forked_at = json.loads(fork.read_text())["epoch"] if fork.exists() else 0
    seconds = sum(
        value
        for record in progress
        if record["epoch"] > forked_at
        for key, value in record.items()
        if key.startswith("seconds_") and value is not None
    )
    sampled = cell.directory / "cpu_seconds.json"
    processes = json.loads(sampled.read_text()).values() if sampled.exists() else None
    return {
        "seconds": float(seconds),
        "cpu_seconds": None if processes is None else sum(p["cpu_seconds"] for p in processes),
        "process_seconds": None if processes is None else sum(p["wall_seconds"] for p in processes),
        "machines": sorted({p["machine"] for p in processes or () if p.get("machine")}),
    }


def collect(spec: ExperimentSpec, cells: Sequence[Cell]) -> dict:
    """The report's content (see the module docstring) from the finished cells."""
    readings = {cell.name: _read(cell) for cell in cells if cell.finished()}
    configurations = {}
    for label in spec.configurations:
        finished = [c for c in cells if c.label == label and c.name in readings]
        own = {c.seed: readings[c.name] for c in finished}

        def metrics_at(num_objects):
            return {
                name: comparisons.describe(
                    {str(s): lookup(r["results"][num_objects], path) for s, r in own.items()}
                )
                for name, path in spec.metrics.items()
            }

        entry = {
            "seeds": [c.seed for c in finished],
            # The N of the configuration's own evaluations (agent: its TrainConfig's).
            "num_objects": sorted(
                {r["results"][None].get("num_objects") for r in own.values()}, key=str
            ),
            "metrics": metrics_at(None),
            "seconds_per_cell": summary([r["seconds"] for r in own.values()]),
            **_cost_summaries(own.values()),
        }
        if spec.eval_num_objects:
            entry["by_num_objects"] = {str(n): metrics_at(n) for n in spec.eval_num_objects}
            entry["retention"] = _retention(spec, list(own.values()))
        if spec.kind == "agent":  # the finished cells, as in the table
            entry["curves"] = _curves([r["progress"] for r in own.values()], spec.curve_keys)
        if spec.read_epochs_of(label):
            entry["read_epochs"] = {
                str(epoch): secondary.describe_metrics(
                    spec,
                    {
                        name: {
                            str(s): lookup(r["read_epochs"].get(epoch), path)
                            for s, r in own.items()
                        }
                        for name, path in spec.metrics.items()
                    },
                )
                for epoch in spec.read_epochs_of(label)
            }
        configurations[label] = entry
    content = analyse(spec, configurations)
    content["missing"] = [c.name for c in cells if c.name not in readings]  # in grid order
    secondary.mark_interim(spec, content)
    return content


def _cost_summaries(readings) -> dict:
    """The sampled CPU and process seconds of the cells that have them and the machines they
    ran on (agent grids)."""
    summaries = {}
    for key in ("cpu_seconds", "process_seconds"):
        values = [r[key] for r in readings if r.get(key) is not None]
        if values:
            summaries[f"{key}_per_cell"] = {**summary(values), "total": float(sum(values))}
    machines = sorted({m for r in readings for m in r.get("machines", ())})
    return {**summaries, "machines": machines} if machines else summaries


def analyse(
    spec: ExperimentSpec, configurations: dict, comparable: set[tuple[str, str]] | None = None
) -> dict:
    """The claims' tests (one Holm family per report), the descriptions of the other metrics,
    the tests at each N, against the paper, and the curves' dating, from ``configurations``.

    ``comparable``: the pairs compared at the runs' own N (default: those whose runs have the
    same N); the others are compared only at each N of ``eval_num_objects``.
    """

    def sides(metrics_of_label):
        return {
            label: {
                name: comparisons.by_seed_of(entry, configurations[label]["seeds"])
                for name, entry in metrics_of_label(label).items()
            }
            for label in configurations
        }

    own_n = {label: tuple(e.get("num_objects", ())) for label, e in configurations.items()}
    tests, descriptions = comparisons.claims_and_descriptions(
        spec, sides(lambda label: configurations[label]["metrics"])
    )
    if comparable is None:
        comparable = {(c.a, c.b) for c in spec.claims() if own_n[c.a] == own_n[c.b]}
    # pairs whose runs have different N are compared only at each N of eval_num_objects
    tests = [t for t in tests if (t["a"], t["b"]) in comparable]
    descriptions = [d for d in descriptions if (d["a"], d["b"]) in comparable]
    family = list(tests)
    content = {"configurations": configurations, "comparisons": tests}
    if spec.eval_num_objects:
        content["comparisons_by_num_objects"] = []
        for n in spec.eval_num_objects:
            at_n, _ = comparisons.claims_and_descriptions(
                spec, sides(lambda label: configurations[label]["by_num_objects"][str(n)])
            )
            for test in at_n:
                test["num_objects"] = n
            content["comparisons_by_num_objects"] += at_n
        family += content["comparisons_by_num_objects"]
    if spec.paper_values:
        content["paper"] = compare_with_paper(spec, configurations)
        family += content["paper"]["comparisons"]
    content["family"] = comparisons.adjust_family(family)
    content["descriptions"] = descriptions
    content["read_epoch_differences"] = secondary.read_epoch_differences(spec, configurations)
    content["type_claims"] = secondary.type_claims(spec, configurations)
    content["authors_agent"] = secondary.authors_reference(spec)
    content["curve_comparisons"] = [
        {
            "a": a,
            "b": b,
            "curve": key,
            **first_significant(configurations[a]["curves"][key], configurations[b]["curves"][key]),
        }
        for a, b in dict.fromkeys((c.a, c.b) for c in spec.claims())
        if spec.kind == "agent" and (a, b) in comparable
        for key in spec.curve_keys[:2]
    ]
    return content


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
        "report_code_version": code_version(repository),
        # The code each cell ran (one entry per version it was started with); cells started
        # before versions were recorded are absent.
        "cell_code_versions": {
            name: versions
            for name, versions in ((cell.name, cell.code_versions()) for cell in cells)
            if versions
        },
        "seeds_per_configuration": {label: spec.seeds_of(label) for label in spec.configurations},
        "cell_commands": {cell.name: cell_command(cell) for cell in cells},
        # The precision each agent run ran in (its config.json: "auto" resolved at its start).
        "cell_precisions": {
            cell.name: precision
            for cell in cells
            if (precision := cell_precision(cell)) is not None
        },
        **content,
    }
    record = write_record(
        out_dir / f"{spec.name}.json", record, f"imagine-tf experiment {spec.name} --report"
    )
    write_text_atomically(out_dir / f"{spec.name}.md", markdown(spec, content))
    draw(spec, content, out_dir / f"{spec.name}.png")
    return record


def cell_precision(cell: Cell) -> str | None:
    """The compute dtype an agent cell's run recorded (None: no run, or not an agent cell)."""
    config = cell.directory / run_layout.CONFIG_JSON
    if cell.spec.kind != "agent" or not config.exists():
        return None
    return json.loads(config.read_text()).get("compute_dtype")


def cell_command(cell: Cell) -> str:
    """The cell's first command, as a user would type it (the run that makes it), with RUNS
    for the experiments' directory (by default ``runs/experiments``)."""
    import dataclasses

    fresh = dataclasses.replace(cell, root=pathlib.Path("RUNS") / cell.spec.name)  # no state
    first = fresh.commands()[0]
    return "imagine-tf " + shlex.join(first[3:])


def _redescribe(metrics: dict, seeds: Sequence[int]) -> dict:
    """{metric: `comparisons.describe`} again, from each recorded metric's per-seed values."""
    return {
        name: comparisons.describe(comparisons.by_seed_of(metric, seeds))
        for name, metric in metrics.items()
    }


def restate(spec: ExperimentSpec, record_path: pathlib.Path, repository: pathlib.Path) -> dict:
    """Recomputes a report's statistics from the per-seed values of its JSON record (the
    grid's run directories may be gone) and rewrites its JSON, markdown and figure in place.
    What the cells ran (commands, code versions, curves, seconds) is kept as recorded."""
    from imagine_tf.experiments.figures import draw

    old = json.loads(record_path.read_text())
    configurations = {}
    for label, entry in old["configurations"].items():
        seeds = entry["seeds"]
        new = dict(entry, metrics=_redescribe(entry["metrics"], seeds))
        for key in ("read_epochs", "by_num_objects"):  # {epoch or N: metrics}
            if key in entry:
                new[key] = {at: _redescribe(metrics, seeds) for at, metrics in entry[key].items()}
        configurations[label] = new
    # without other N, every declared claim is compared (one declared since is tested too)
    comparable = {(t["a"], t["b"]) for t in old.get("comparisons", [])}
    content = analyse(spec, configurations, None if not spec.eval_num_objects else comparable)
    content["missing"] = old.get("missing", [])
    secondary.mark_interim(spec, content)
    first = old.get("restated") or {
        "cells_reported": old.get("written"),
        "cells_report_code_version": old.get("report_code_version"),
    }
    kept = (
        "file",
        "cell_code_versions",
        "seeds_per_configuration",
        "cell_commands",
        "cell_precisions",
    )
    record = {
        "experiment": spec.name,
        "description": spec.description,
        "report_code_version": code_version(repository),
        # The statistics are recomputed from the values the cells' report recorded then.
        "restated": first,
        **{key: old[key] for key in kept if key in old},
        **content,
    }
    record = write_record(record_path, record, f"imagine-tf experiment {spec.name} --restate")
    write_text_atomically(record_path.with_suffix(".md"), markdown(spec, content))
    draw(spec, content, record_path.with_suffix(".png"))
    return record
