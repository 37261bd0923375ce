"""The paper's figures beside an experiment's (`ExperimentSpec.paper_values`).

A paper gives mean ± std over its seeds, not its runs' values, so each configuration is tested
against them with Welch's two-tailed t-test from those summary statistics
(`statistics.welch_against`).
"""

from __future__ import annotations

from imagine_tf.experiments.spec import ExperimentSpec
from imagine_tf.experiments.statistics import ALPHA, welch_against


def compare_with_paper(spec: ExperimentSpec, configurations: dict) -> dict | None:
    """{"source", "seeds", "values": {label: {metric: {"mean", "std"}}}, "comparisons": [...]}
    (each comparison: configuration, metric, the paper's mean and std, and `welch_against`'s
    fields, "a" being the configuration); None without ``paper_values``."""
    if not spec.paper_values:
        return None
    values, comparisons = {}, []
    for label, figures in spec.paper_values.items():
        values[label] = {m: {"mean": f[0], "std": f[1]} for m, f in figures.items()}
        for metric, (mean, std) in figures.items():
            ours = configurations[label]["metrics"][metric]["values"]
            comparisons.append(
                {
                    "configuration": label,
                    "metric": metric,
                    "paper_mean": mean,
                    "paper_std": std,
                    **welch_against(ours, mean, std, spec.paper_seeds),
                }
            )
    return {
        "source": spec.paper_source,
        "seeds": spec.paper_seeds,
        "values": values,
        "comparisons": comparisons,
    }


def paper_rows(paper: dict | None, names: list[str]) -> list[str]:
    """Rows of the report's main table: the paper's mean ± std per configuration it gives."""
    rows = []
    for label, figures in (paper or {}).get("values", {}).items():
        cells = [
            f"{figures[n]['mean']:.2f} ± {figures[n]['std']:.2f}" if n in figures else "—"
            for n in names
        ]
        rows.append(f"| the paper ({label}) | {paper['seeds']} | " + " | ".join(cells) + " |")
    return rows


def paper_markdown(paper: dict | None) -> list[str]:
    """The tests against the paper, as markdown lines (none without paper figures)."""
    if not paper:
        return []
    lines = [
        "",
        f"Against {paper['source']}: Welch's two-tailed t-test from its mean ± std over "
        f"{paper['seeds']} seeds, α = {ALPHA}.",
        "",
        "| configuration | metric | ours − paper | t | p | differs |",
        "|---|---|---|---|---|---|",
    ]
    for test in paper["comparisons"]:
        if test["p"] is None:
            cells = ["—"] * 3 + ["not tested (fewer than 2 seeds or no variance)"]
            if test["difference"] is not None:
                cells[0] = f"{test['difference']:+.3f}"
        else:
            cells = [
                f"{test['difference']:+.3f}",
                f"{test['t']:.2f}",
                f"{test['p']:.2g}",
                (
                    ("yes: above" if test["difference"] > 0 else "yes: below")
                    if test["p"] < ALPHA
                    else "no"
                ),
            ]
        lines.append(f"| {test['configuration']} | {test['metric']} | " + " | ".join(cells) + " |")
    return lines
