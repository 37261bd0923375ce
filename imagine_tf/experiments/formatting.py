"""How the report writes numbers: values, intervals, mean ± std, estimates, differences."""

from __future__ import annotations


def number(value, style: str = ".3f") -> str:
    return "—" if value is None else format(value, style)


def interval(ci, style: str = ".3f") -> str:
    return "" if not ci else f" [{ci[0]:{style}}, {ci[1]:{style}}]"


def mean_std(entry: dict, style: str = ".3f") -> str:
    if entry["mean"] is None:
        return "—"
    return format(entry["mean"], style) + (
        "" if entry["std"] is None else f" ± {entry['std']:{style}}"
    )


def estimates(entry: dict) -> str:
    """ "0.652 [0.48, 0.79]; IQM 0.66 [0.45, 0.80]" of a metric entry."""
    if entry["mean"] is None:
        return "—"
    text = f"{entry['mean']:.3f}{interval(entry.get('mean_ci'))}"
    if entry.get("iqm") is not None:
        text += f"; IQM {entry['iqm']:.3f}{interval(entry.get('iqm_ci'))}"
    return text


def difference(test: dict) -> str:
    if test.get("difference") is None:
        return "—"
    return f"{test['difference']:+.3f}{interval(test.get('difference_ci'), '+.3f')}"


def improvement(test: dict) -> str:
    if test.get("probability_of_improvement") is None:
        return "—"
    ci = test.get("probability_of_improvement_ci")
    return f"{test['probability_of_improvement']:.2f}{interval(ci, '.2f')}"
