"""The markdown page of an experiment's report, from `report.collect`'s (or `restate`'s)
content: the estimates per configuration, the claims with their verdicts, the described
differences, the tests at each N, against the paper, and the curves' dating."""

from __future__ import annotations

from imagine_tf.experiments.formatting import (
    difference,
    estimates,
    improvement,
    interval,
    mean_std,
    number,
)
from imagine_tf.experiments.markdown_secondary import (
    authors_row,
    cost_lines,
    interim_lines,
    mechanism_lines,
    read_epoch_lines,
    type_claim_lines,
)
from imagine_tf.experiments.paper import paper_markdown, paper_rows
from imagine_tf.experiments.spec import ExperimentSpec
from imagine_tf.experiments.statistics import ALPHA

VERDICT_WORDS = {
    "holds": "**holds**",
    "refuted": "**refuted**",
    "undecided": "undecided",
    "not tested": "not tested",
    "gate failed": "not decided (gate failed)",
    "interim": "interim (no verdict)",
}


def _test_cells(test: dict) -> list[str]:
    statistic = "—" if test["t"] is None else f"t = {test['t']:.2f}"
    if test.get("wilcoxon_p") is not None:
        method = {"exact": "exact", "normal approximation": "normal approx."}.get(
            test.get("wilcoxon_method"), "method not recorded"
        )
        statistic += f" (Wilcoxon p = {test['wilcoxon_p']:.2g}, {method})"
    return [statistic, number(test["p"], ".2g"), number(test.get("p_holm"), ".2g")]


def claims_table(tests: list[dict], with_n: bool = False) -> list[str]:
    """One row per claim: design, pairs, difference [CI], P(a > b) [CI], the test, raw and
    Holm-adjusted p, and the verdict."""
    n_column = "N | " if with_n else ""
    lines = [
        f"| claim | {n_column}design (n) | a − b [95 % t CI] | adjusted CI | "
        "P(a > b) [bootstrap CI] | test | p | Holm p | verdict |",
        "|---|" + ("---|" if with_n else "") + "---|---|---|---|---|---|---|---|",
    ]
    for test in tests:
        n = (
            len(test["paired_seeds"])
            if test["design"] == "paired"
            else f"{test['n_a']}, {test['n_b']}"
        )
        cells = [
            test["claim"],
            *([str(test["num_objects"])] if with_n else []),
            f"{test['design']} ({n})",
            difference(test),
            interval(test.get("adjusted_ci"), "+.3f").strip() or "—",
            improvement(test),
            *_test_cells(test),
            VERDICT_WORDS[test["verdict"]],
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown(spec: ExperimentSpec, content: dict) -> str:
    """The report as markdown."""
    configurations = content["configurations"]
    lines = [f"# Experiment `{spec.name}`", ""] + interim_lines(content)
    if content.get("family", {}).get("gate") == "failed":
        lines += ["**Insensitive: the positive control failed; this study decides nothing.**", ""]
    lines += [spec.description, ""]
    lines += _metric_tables(spec, content, configurations)
    lines += _claim_tables(spec, content)
    lines += read_epoch_lines(spec, content) + type_claim_lines(content)
    lines += mechanism_lines(spec, content)
    if spec.eval_num_objects:
        lines += _by_n_tables(spec, configurations)
    if content.get("comparisons_by_num_objects"):
        lines += ["", "Claims at each number of objects N at evaluation (in the family):", ""]
        lines += claims_table(content["comparisons_by_num_objects"], with_n=True)
    lines += paper_markdown(content.get("paper"))
    if content.get("curve_comparisons"):
        lines += [
            "",
            "During training (the per-epoch evaluation, one episode per goal; Welch's test at "
            "each epoch, not adjusted: descriptive only):",
            "",
        ]
        lines += [f"* {_dated(test, spec)}" for test in content["curve_comparisons"]]
    if content.get("missing"):
        lines += [
            "",
            f"Missing ({len(content['missing'])} cells not finished): "
            + ", ".join(content["missing"]),
        ]
    return "\n".join(lines) + "\n"


def _metric_tables(spec: ExperimentSpec, content: dict, configurations: dict) -> list[str]:
    """The metrics' mean ± std (with the paper's rows), their mean and IQM with bootstrap CIs,
    and the training seconds per cell."""
    names = list(spec.metrics)
    lines = []
    lines += [
        "Mean ± std over seeds (std with ddof 1):",
        "",
        "| configuration | seeds | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for label, entry in configurations.items():
        cells = [mean_std(entry["metrics"][n]) for n in names]
        lines.append(f"| {label} | {len(entry['seeds'])} | " + " | ".join(cells) + " |")
    lines += paper_rows(content.get("paper"), names) + authors_row(content, names)
    lines += [
        "",
        "Mean and IQM (interquartile mean) with 95 % percentile bootstrap CIs over seeds (with few seeds these undercover; the claims use t intervals):",
        "",
        "| configuration | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for label, entry in configurations.items():
        lines.append(
            f"| {label} | " + " | ".join(estimates(entry["metrics"][n]) for n in names) + " |"
        )
    if spec.eval_num_objects:
        lines += ["", "(Each at its configuration's own N, `TrainConfig.num_objects`.)"]
    lines += cost_lines(configurations)
    return lines


PAIRED_TEST = "paired t-test, Wilcoxon's signed-rank p beside it"
DESIGN_WORDS = {
    "forks": "Configurations whose cells fork from one run of a seed are paired "
    f"({PAIRED_TEST}); the others are independent samples (Welch's test).",
    "shared_trunk": "A seed's runs are one run until they part (declared from how the cells "
    f"were made): the claims' pairs are paired ({PAIRED_TEST}).",
    "independent": "No cells share a run: every pair is two independent samples (Welch's test).",
}


def _claim_tables(spec: ExperimentSpec, content: dict) -> list[str]:
    """The family's claims and the described (not tested) other metrics of the same pairs."""
    lines = []
    family = content.get("family", {})
    lines += [
        "",
        f"## Claims (one family of {family.get('size', 0)} tests, Holm-adjusted, α = {ALPHA})",
        "",
        "A claim **holds** when its Holm-adjusted p < α and its family-adjusted interval "
        f"(level {number(family.get('adjusted_confidence'), '.4f')}, 1 − α / m) lies above "
        "its margin (above −margin for ≥); it is **refuted** when that interval lies below "
        "the smallest effect of interest (the margin unless declared; −margin for ≥); "
        "otherwise it is undecided. Its p is two-sided, of a − b against the margin (a − b − "
        f"margin for >, a − b + margin for ≥). {DESIGN_WORDS[spec.design]}",
        "",
    ]
    if family.get("gate") is not None:
        lines += [
            f"**Gate (positive control): {family['gate']}.**"
            + (
                " The study cannot detect an effect: it decides nothing."
                if family["gate"] == "failed"
                else ""
            ),
            "",
        ]
    lines += (
        claims_table(content["comparisons"])
        if content["comparisons"]
        else ["(none at the runs' own N)"]
    )
    if content.get("descriptions"):
        lines += [
            "",
            "Other metrics of the same pairs, described, not tested:",
            "",
            "| a vs b | metric | a − b [95 % t CI] | P(a > b) [bootstrap CI] |",
            "|---|---|---|---|",
        ]
        for entry in content["descriptions"]:
            lines.append(
                f"| {entry['a']} vs {entry['b']} | {entry['metric']} | {difference(entry)} | "
                f"{improvement(entry)} |"
            )
    return lines


def _by_n_tables(spec: ExperimentSpec, configurations: dict) -> list[str]:
    """The metrics at every evaluated N and the retention from the smallest N to the largest."""
    columns = [(label, name) for label in configurations for name in spec.metrics]
    lines = [
        "",
        "At each number of objects N at evaluation (mean ± std over seeds):",
        "",
        "| N | " + " | ".join(f"{label} {name}" for label, name in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for n in spec.eval_num_objects:
        row = [mean_std(configurations[l]["by_num_objects"][str(n)][m]) for l, m in columns]
        lines.append(f"| {n} | " + " | ".join(row) + " |")
    lines += ["", "Retention, the metric at the largest N over the metric at the smallest:", ""]
    for label, name in columns:
        kept = configurations[label]["retention"][name]
        lines.append(
            f"* {label}, {name}, N = {kept['from_num_objects']} → {kept['to_num_objects']}: "
            f"ratio of the means {number(kept['ratio_of_means'])}; per seed "
            f"{mean_std(kept['per_seed'])} (n = {kept['per_seed']['n']})."
        )
    return lines


def _dated(test: dict, spec: ExperimentSpec) -> str:
    """When a curve of ``a`` first beats ``b`` (unadjusted Welch, α = 0.05), as a sentence."""
    names = {key: name for name, key in spec.curves.items()}
    what = f"{test['a']} > {test['b']} on {names.get(test['curve'], test['curve'])}"
    if test["first_epoch"] is None:
        return f"{what}: at no evaluation."
    when = f"epoch {test['first_epoch']} ({test['first_episodes']:,.0f} episodes)"
    if test["from_then_on"]:
        return f"{what}: from {when} on, at every later evaluation."
    return f"{what}: first at {when}, not at every later one."
