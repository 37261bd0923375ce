"""The figure of an experiment's report (PNG), from `report.collect`'s content.

* "curves": each of the experiment's curves (train and test SR by default) against episodes,
  mean ± std over seeds per configuration (the Deep Sets paper's Fig. 2);
* "objects": each metric against the number of objects N at evaluation (its Fig. 4);
* "types": the per-type metrics as grouped bars with std error bars;
* "bars": every metric as grouped bars with std error bars, and the paper's mean ± std (red
  diamonds) on the bars of configurations it gives figures for.
"""

from __future__ import annotations

import pathlib

import numpy as np

from imagine_tf.experiments.spec import ExperimentSpec
from imagine_tf.atomic_files import save_figure_atomically


def draw(spec: ExperimentSpec, content: dict, path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configurations = content["configurations"]
    if spec.figure == "curves":
        figure = _draw_curves(plt, spec, configurations)
    elif spec.figure == "objects":
        figure = _draw_objects(plt, spec, configurations)
    else:
        figure = _draw_bars(plt, spec, content, configurations)
    figure.suptitle(spec.name, fontsize=10)
    figure.tight_layout()
    save_figure_atomically(figure, path, dpi=110)


def _draw_curves(plt, spec: ExperimentSpec, configurations: dict):
    """One panel per curve: each configuration's mean ± std over seeds against episodes."""
    panels = list(spec.curves.items())
    columns = min(3, len(panels))
    rows = -(-len(panels) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.5 * columns, 3.3 * rows), squeeze=False)
    for axis, (title, key) in zip(axes.flat, panels):
        for index, (label, entry) in enumerate(configurations.items()):
            points = [p for p in entry.get("curves", {}).get(key, []) if p["mean"] is not None]
            if not points:  # (a configuration keeps its colour in every panel)
                continue
            x = np.array([p["episodes"] / 1000 for p in points])
            mean = np.array([p["mean"] for p in points])
            std = np.array([p["std"] or 0.0 for p in points])
            axis.plot(
                x,
                mean,
                marker="o",
                markersize=3,
                color=f"C{index}",
                label=f"{label} (n = {max(p['n'] for p in points)})",
            )
            axis.fill_between(x, mean - std, mean + std, alpha=0.2, color=f"C{index}")
        axis.set(title=title, xlabel="episodes (×10³)", ylim=(0, 1.02))
    for axis in axes.flat[len(panels) :]:
        axis.axis("off")
    axes[0][0].set_ylabel("mean ± std over seeds")
    axes[0][0].legend(fontsize=8)
    return figure


def _draw_objects(plt, spec: ExperimentSpec, configurations: dict):
    """One panel per metric: each configuration's mean ± std against the objects N."""
    figure, axes = plt.subplots(
        1, len(spec.metrics), figsize=(4.5 * len(spec.metrics), 3.4), sharey=True, squeeze=False
    )
    for axis, name in zip(axes[0], spec.metrics):
        for label, entry in configurations.items():
            by_n = entry.get("by_num_objects", {})
            ns = sorted(int(n) for n in by_n if by_n[n][name]["mean"] is not None)
            if not ns:
                continue
            mean = np.array([by_n[str(n)][name]["mean"] for n in ns])
            std = np.array([by_n[str(n)][name]["std"] or 0.0 for n in ns])
            axis.errorbar(ns, mean, yerr=std, marker="o", capsize=3, label=label)
        axis.set(title=name, xlabel="objects N at evaluation", ylim=(0, 1.02))
    axes[0][0].set_ylabel("success rate (mean ± std)")
    axes[0][0].legend(fontsize=8)
    return figure


def _draw_bars(plt, spec: ExperimentSpec, content: dict, configurations: dict):
    """Grouped bars of every metric (mean ± std), the paper's figures as red diamonds."""
    names = list(spec.metrics)
    bars = len(names) * len(configurations)
    figure, axis = plt.subplots(figsize=(min(10.0, max(5.0, 2.0 + 0.55 * bars)), 3.4))
    width = 0.8 / max(len(configurations), 1)
    paper = (content.get("paper") or {}).get("values", {})
    for index, (label, entry) in enumerate(configurations.items()):
        means = [entry["metrics"][n]["mean"] or 0.0 for n in names]
        stds = [entry["metrics"][n]["std"] or 0.0 for n in names]
        positions = np.arange(len(names)) + index * width
        axis.bar(
            positions,
            means,
            width,
            yerr=stds,
            capsize=3,
            label=f"{label} (n = {len(entry['seeds'])})",
        )
        marked = [
            (x, paper[label][n]) for x, n in zip(positions, names) if n in paper.get(label, {})
        ]
        if marked:  # the paper's mean ± std on the configuration's bar
            axis.errorbar(
                [x for x, _ in marked],
                [f["mean"] for _, f in marked],
                yerr=[f["std"] for _, f in marked],
                fmt="D",
                color="crimson",
                markersize=4,
                capsize=3,
                label=f"the paper ({label})",
            )
    axis.set_xticks(
        np.arange(len(names)) + width * (len(configurations) - 1) / 2,
        names,
        rotation=20 if max(map(len, names)) > 12 else 0,
    )
    axis.set(ylim=(0, 1.05), ylabel="mean ± std over seeds")
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # beside the bars
    return figure
