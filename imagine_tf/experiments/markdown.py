"""The markdown page of an experiment's report, from `report.collect`'s (or `restate`'s)
content: the estimates per configuration, the claims with their verdicts, the described
differences, the tests at each N, against the paper, and the curves' dating."""

from __future__ import annotations

from imagine_tf.experiments.paper import paper_markdown, paper_rows
from imagine_tf.experiments.spec import ExperimentSpec
from imagine_tf.experiments.statistics import ALPHA

VERDICT_WORDS = {
    "holds": "**holds**",
    "refuted": "**refuted**",
    "undecided": "undecided",
    "not tested": "not tested",
    "gate failed": "not decided (gate failed)",
}


def _number(value, style: str = ".3f") -> str:
    return "—" if value is None else format(value, style)


def _interval(ci, style: str = ".3f") -> str:
    return "" if not ci else f" [{ci[0]:{style}}, {ci[1]:{style}}]"


def _mean_std(entry: dict, style: str = ".3f") -> str:
    if entry["mean"] is None:
        return "—"
    return format(entry["mean"], style) + (
        "" if entry["std"] is None else f" ± {entry['std']:{style}}"
    )


def _estimates(entry: dict) -> str:
    """ "0.652 [0.48, 0.79]; IQM 0.66 [0.45, 0.80]" of a metric entry."""
    if entry["mean"] is None:
        return "—"
    text = f"{entry['mean']:.3f}{_interval(entry.get('mean_ci'))}"
    if entry.get("iqm") is not None:
        text += f"; IQM {entry['iqm']:.3f}{_interval(entry.get('iqm_ci'))}"
    return text


def _difference(test: dict) -> str:
    if test.get("difference") is None:
        return "—"
    return f"{test['difference']:+.3f}{_interval(test.get('difference_ci'), '+.3f')}"


def _improvement(test: dict) -> str:
    if test.get("probability_of_improvement") is None:
        return "—"
    ci = test.get("probability_of_improvement_ci")
    return f"{test['probability_of_improvement']:.2f}{_interval(ci, '.2f')}"


def _test_cells(test: dict) -> list[str]:
    statistic = "—" if test["t"] is None else f"t = {test['t']:.2f}"
    if test.get("wilcoxon_p") is not None:
        method = {"exact": "exact", "normal approximation": "normal approx."}.get(
            test.get("wilcoxon_method"), "method not recorded"
        )
        statistic += f" (Wilcoxon p = {test['wilcoxon_p']:.2g}, {method})"
    return [statistic, _number(test["p"], ".2g"), _number(test.get("p_holm"), ".2g")]


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
            _difference(test),
            _interval(test.get("adjusted_ci"), "+.3f").strip() or "—",
            _improvement(test),
            *_test_cells(test),
            VERDICT_WORDS[test["verdict"]],
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown(spec: ExperimentSpec, content: dict) -> str:
    """The report as markdown."""
    configurations = content["configurations"]
    lines = [f"# Experiment `{spec.name}`", ""]
    if content.get("family", {}).get("gate") == "failed":
        lines += ["**Insensitive: the positive control failed; this study decides nothing.**", ""]
    lines += [spec.description, ""]
    lines += _metric_tables(spec, content, configurations)
    lines += _claim_tables(content)
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
        cells = [_mean_std(entry["metrics"][n]) for n in names]
        lines.append(f"| {label} | {len(entry['seeds'])} | " + " | ".join(cells) + " |")
    lines += paper_rows(content.get("paper"), names)
    lines += [
        "",
        "Mean and IQM (interquartile mean) with 95 % percentile bootstrap CIs over seeds (with few seeds these undercover; the claims use t intervals):",
        "",
        "| configuration | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for label, entry in configurations.items():
        lines.append(
            f"| {label} | " + " | ".join(_estimates(entry["metrics"][n]) for n in names) + " |"
        )
    if spec.eval_num_objects:
        lines += ["", "(Each at its configuration's own N, `TrainConfig.num_objects`.)"]
    timed = {
        label: entry["seconds_per_cell"]
        for label, entry in configurations.items()
        if entry.get("seconds_per_cell", {}).get("mean") is not None
    }
    if timed:
        per_label = ", ".join(f"{label} {_mean_std(e, '.0f')}" for label, e in timed.items())
        lines += [
            "",
            "Training seconds per cell (as the cells measured them, one TensorFlow "
            f"thread each; mean ± std): {per_label}.",
        ]
    return lines


def _claim_tables(content: dict) -> list[str]:
    """The family's claims and the described (not tested) other metrics of the same pairs."""
    lines = []
    family = content.get("family", {})
    lines += [
        "",
        f"## Claims (one family of {family.get('size', 0)} tests, Holm-adjusted, α = {ALPHA})",
        "",
        "A claim **holds** when its Holm-adjusted p < α and its family-adjusted interval "
        f"(level {_number(family.get('adjusted_confidence'), '.4f')}, 1 − α / m) lies above "
        "its margin (above −margin for ≥); it is **refuted** when that interval lies below "
        "the smallest effect of interest (the margin unless declared; −margin for ≥); "
        "otherwise it is undecided. Its p is two-sided, of a − b against the margin (a − b − "
        "margin for >, a − b + margin for ≥). Configurations whose cells fork from one run of "
        "a seed are paired (paired t-test, Wilcoxon's signed-rank p beside it); the others are "
        "independent samples (Welch's test).",
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
                f"| {entry['a']} vs {entry['b']} | {entry['metric']} | {_difference(entry)} | "
                f"{_improvement(entry)} |"
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
        row = [_mean_std(configurations[l]["by_num_objects"][str(n)][m]) for l, m in columns]
        lines.append(f"| {n} | " + " | ".join(row) + " |")
    lines += ["", "Retention, the metric at the largest N over the metric at the smallest:", ""]
    for label, name in columns:
        kept = configurations[label]["retention"][name]
        lines.append(
            f"* {label}, {name}, N = {kept['from_num_objects']} → {kept['to_num_objects']}: "
            f"ratio of the means {_number(kept['ratio_of_means'])}; per seed "
            f"{_mean_std(kept['per_seed'])} (n = {kept['per_seed']['n']})."
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
