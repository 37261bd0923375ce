"""The paper's figures beside an experiment's (`ExperimentSpec.paper_values`).

A paper gives mean ± std over its seeds, not its runs' values, so each configuration is tested
against them with Welch's two-tailed t-test from those summary statistics
(`statistics.welch_against`), with the t-based CI of the difference (no bootstrap without the
paper's values). The tests join the report's Holm family; "differs" needs the adjusted p.
"""

from __future__ import annotations

from scipy import stats

from imagine_tf.experiments.spec import ExperimentSpec
from imagine_tf.experiments.intervals import CONFIDENCE
from imagine_tf.experiments.statistics import ALPHA as ALPHA_DIFFERS
from imagine_tf.experiments.statistics import summary, welch_against


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
                    "difference_ci": _welch_interval(ours, mean, std, spec.paper_seeds),
                }
            )
    return {
        "source": spec.paper_source,
        "seeds": spec.paper_seeds,
        "values": values,
        "comparisons": comparisons,
    }


def _welch_interval(ours, mean: float, std: float, n: int) -> list[float] | None:
    """The Welch CI of mean(ours) − mean (Welch-Satterthwaite degrees of freedom)."""
    a = summary(ours)
    if a["n"] < 2 or n < 2:
        return None
    variance_a, variance_b = a["std"] ** 2 / a["n"], std**2 / n
    scale = (variance_a + variance_b) ** 0.5
    if scale == 0:
        return None
    df = (variance_a + variance_b) ** 2 / (variance_a**2 / (a["n"] - 1) + variance_b**2 / (n - 1))
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, df) * scale
    difference = a["mean"] - mean
    return [difference - half, difference + half]


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
        f"{paper['seeds']} seeds (t-based 95 % CI); p adjusted by Holm over the report's family.",
        "",
        "| configuration | metric | ours − paper [95 % CI] | t | p | Holm p | differs |",
        "|---|---|---|---|---|---|---|",
    ]
    for test in paper["comparisons"]:
        ci = test.get("difference_ci")
        difference = "—" if test["difference"] is None else f"{test['difference']:+.3f}"
        if ci:
            difference += f" [{ci[0]:+.3f}, {ci[1]:+.3f}]"
        if test["p"] is None:
            cells = [difference, "—", "—", "—", "not tested (fewer than 2 seeds or no variance)"]
        else:
            differs = test["p_holm"] < ALPHA_DIFFERS
            cells = [
                difference,
                f"{test['t']:.2f}",
                f"{test['p']:.2g}",
                f"{test['p_holm']:.2g}",
                (
                    ("yes: above" if test["difference"] > 0 else "yes: below")
                    if differs
                    else "undecided"
                ),
            ]
        lines.append(f"| {test['configuration']} | {test['metric']} | " + " | ".join(cells) + " |")
    return lines
