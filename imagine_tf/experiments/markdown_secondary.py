"""The report's sections beside its claims (`secondary`): the interim label, the declared
earlier epochs, the seed paper's per-type claims, the mechanism's curves, the cost and the
authors' agent beside the table."""

from __future__ import annotations

from imagine_tf.experiments.formatting import difference, interval, mean_std, number
from imagine_tf.experiments.spec import ExperimentSpec

#: how many epochs of each curve the mechanism table shows (evenly spaced, the last included)
MECHANISM_EPOCHS = 6


def interim_lines(content: dict) -> list[str]:
    """The report's first line while cells are missing (none when complete)."""
    interim = content.get("interim")
    if not interim:
        return []
    return [
        f"**Interim report: {interim['seeds_complete']} of {interim['seeds_declared']} seeds "
        "complete. No verdict is taken from it; the declared plan stands.**",
        "",
    ]


def read_epoch_lines(spec: ExperimentSpec, content: dict) -> list[str]:
    """Each configuration's metrics at the declared earlier epochs and the family's pairs'
    differences there (unadjusted: no verdict)."""
    configurations = content["configurations"]
    epochs = sorted({e for entry in configurations.values() for e in entry.get("read_epochs", {})})
    if not epochs:
        return []
    names = list(spec.metrics)
    lines = []
    for epoch in epochs:
        lines += [
            "",
            f"## At epoch {epoch} (declared secondary reading: no verdict)",
            "",
            "| configuration | seeds | " + " | ".join(names) + " |",
            "|---|---|" + "---|" * len(names),
        ]
        for label, entry in configurations.items():
            metrics = entry.get("read_epochs", {}).get(epoch)
            if metrics is None:
                continue
            cells = [mean_std(metrics[n]) for n in names]
            lines.append(f"| {label} | {metrics[names[0]]['n']} | " + " | ".join(cells) + " |")
        differences = [
            d for d in content.get("read_epoch_differences", []) if d["epoch"] == int(epoch)
        ]
        if differences:
            lines += [
                "",
                "| a − b | metric | difference [95 % t CI, unadjusted] |",
                "|---|---|---|",
            ]
            lines += [
                f"| {d['a']} − {d['b']} | {d['metric']} | {difference(d)} |" for d in differences
            ]
    return lines


def type_claim_lines(content: dict) -> list[str]:
    """The seed paper's per-type claims (Karch, Colas et al. 2020) with their readings."""
    readings = content.get("type_claims")
    if not readings:
        return []
    lines = [
        "",
        "## The seed paper's per-type claims (Karch, Colas et al. 2020; 95 % t intervals over "
        "seeds, not in the family)",
        "",
        "Reproduced when the interval lies on the claimed side of the threshold, contradicted "
        'when it lies on the other, else undecided. "Harder" reads type 5 − mean(types 1, 3, '
        "4) per seed.",
        "",
        "| configuration | claim | threshold | n | mean [95 % CI] | reading |",
        "|---|---|---|---|---|---|",
    ]
    for r in readings:
        lines.append(
            f"| {r['configuration']} | {r['claim']} | {r['side']} {r['threshold']:g} | {r['n']} | "
            f"{number(r['mean'], '+.3f')}{interval(r['ci'], '+.3f')} | {r['reading']} |"
        )
    return lines


def _shown_epochs(epochs: list[int]) -> list[int]:
    step = max(1, len(epochs) // MECHANISM_EPOCHS)
    return sorted(set(epochs[step - 1 :: step]) | {epochs[-1]})


def mechanism_lines(spec: ExperimentSpec, content: dict) -> list[str]:
    """The curves after the first two (the SRs), per configuration at a few epochs (the
    per-epoch means over seeds; the full curves are in the JSON and the figure)."""
    names = list(spec.curves)[2:]
    configurations = content["configurations"]
    if spec.kind != "agent" or not names:
        return []
    lines = ["", "## The mechanism, per epoch (mean over seeds)", ""]
    for name in names:
        key = spec.curves[name]
        rows = {
            label: entry.get("curves", {}).get(key, []) for label, entry in configurations.items()
        }
        rows = {
            label: row for label, row in rows.items() if any(p["mean"] is not None for p in row)
        }
        if not rows:
            continue
        epochs = _shown_epochs(sorted({p["epoch"] for row in rows.values() for p in row}))
        lines += [
            f"{name}:",
            "",
            "| configuration | " + " | ".join(f"epoch {e}" for e in epochs) + " |",
        ]
        lines.append("|---|" + "---|" * len(epochs))
        for label, row in rows.items():
            at = {p["epoch"]: p["mean"] for p in row}
            lines.append(f"| {label} | " + " | ".join(number(at.get(e)) for e in epochs) + " |")
        lines.append("")
    return lines


def cost_lines(configurations: dict) -> list[str]:
    """Seconds per cell, a fork's without its source's epochs: in-epoch seconds (the phases
    the runs timed) and, where sampled, the CPU and wall seconds of the cells' processes."""
    lines = []
    timed = {
        label: e["seconds_per_cell"]
        for label, e in configurations.items()
        if e.get("seconds_per_cell", {}).get("mean") is not None
    }
    if timed:
        per_label = ", ".join(f"{label} {mean_std(e, '.0f')}" for label, e in timed.items())
        lines += [
            "",
            "Training seconds per cell (the phases the runs timed, one TensorFlow thread each; a "
            f"fork's without its source's epochs; mean ± std): {per_label}.",
        ]
    for key, what in (("cpu_seconds_per_cell", "CPU"), ("process_seconds_per_cell", "wall")):
        sampled = {label: e[key] for label, e in configurations.items() if key in e}
        if sampled:
            total = sum(e["total"] for e in sampled.values()) / 3600
            per_label = ", ".join(
                f"{label} {number(e['mean'], '.0f')} (n = {e['n']})" for label, e in sampled.items()
            )
            lines += [
                "",
                f"{what} seconds of the cells' processes (sampled every 30 s beside the grid, "
                f"mean per cell): {per_label}; in all {total:.2f} {what} hours over the sampled "
                "cells.",
            ]
    machines = sorted({m for e in configurations.values() for m in e.get("machines", ())})
    if machines:
        lines += ["", "Machines (as sampled): " + "; ".join(machines) + "."]
    return lines


def authors_row(content: dict, names: list[str]) -> list[str]:
    """The main table's row of the authors' released agent (`secondary.authors_reference`)."""
    reference = content.get("authors_agent")
    if not reference:
        return []
    cells = [number(reference["metrics"][n]) for n in names]
    return [
        "| the authors' released agent, measured here (1 run) | — | " + " | ".join(cells) + " |",
        "",
        f"(The authors' agent: {reference['budget']}; {reference['episodes_per_goal']} "
        f"noise-free episodes per goal in this project's default world, `{reference['record']}`.)",
    ]
