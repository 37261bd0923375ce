"""Tests over seeds, corrected for multiplicity, and the words a result may use.

* **Summaries**: mean, sample std (ddof = 1: the only convention in this project's records),
  median and interquartile range; the IQM and bootstrap CIs are in `intervals`.
* **Tests**, two-tailed: a paired design (the arms of one seed forked from one run) uses the
  paired t-test, with the Wilcoxon signed-rank test beside it (exact without zero or tied
  differences, else scipy's normal approximation: ``wilcoxon_method`` says which; with 5
  pairs its smallest exact p is 0.0625, so it can only confirm); independent samples use
  Welch's t-test, as Karch, Colas et al. (2020) do.
* **Multiplicity**: Holm's step-down adjustment over a report's family of m tests; the
  verdicts read intervals adjusted to the family, at level 1 − α / m (Bonferroni's, which
  contain every difference Holm's procedure could call significant).
* **CIs of a difference** are t-based, matching the test (`difference_interval`): with 3 to
  10 seeds a percentile bootstrap CI undercovers, so the bootstrap serves the per-configuration
  estimates and P(a > b) (`intervals`), the t interval the verdicts.
* **Verdicts** (`verdict`), on the adjusted interval: a claim "a > b + margin" *holds* when
  its Holm-adjusted p < α and the interval lies above the margin (above −margin for "≥",
  non-inferiority); it *is refuted* when the interval lies below the smallest effect of
  interest (``refute_below``, by default the margin; −margin for "≥"); it is *undecided*
  otherwise. "Not significant" is never "does not hold".
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy import stats

ALPHA = 0.05
RELATIONS = (">", ">=")
VERDICTS = ("holds", "refuted", "undecided", "not tested", "gate failed")


def _kept(values: Sequence[float]) -> list[float]:
    return [float(v) for v in values if v is not None and not math.isnan(v)]


def summary(values: Sequence[float]) -> dict:
    """{"mean", "std" (ddof 1; None below 2 values), "n", "values"} of the non-missing values."""
    kept = _kept(values)
    return {
        "mean": float(np.mean(kept)) if kept else None,
        "std": float(np.std(kept, ddof=1)) if len(kept) > 1 else None,
        "n": len(kept),
        "values": kept,
    }


def spread(values: Sequence[float]) -> dict:
    """{"median", "q1", "q3", "min", "max"} of the non-missing values (None if none)."""
    kept = _kept(values)
    if not kept:
        return {key: None for key in ("median", "q1", "q3", "min", "max")}
    q1, median, q3 = np.percentile(kept, [25, 50, 75])
    return {
        "median": float(median),
        "q1": float(q1),
        "q3": float(q3),
        "min": float(min(kept)),
        "max": float(max(kept)),
    }


def welch(a: Sequence[float], b: Sequence[float]) -> dict:
    """Welch's two-tailed t-test of a against b: t, p, degrees of freedom, mean difference, and
    whether a > b at α = 0.05 (``a_greater``; unadjusted). None where either side has fewer than
    2 values or both have no variance."""
    b = summary(b)
    return welch_against(a, b["mean"], b["std"], b["n"])


def welch_against(a: Sequence[float], mean: float, std: float | None, n: int) -> dict:
    """`welch` of the values a against a sample known only by its mean, std (ddof 1) and size
    n: a paper's "mean ± std over n seeds" (`scipy.stats.ttest_ind_from_stats`)."""
    a = summary(a)
    result = {"test": "welch", "n_a": a["n"], "n_b": n, "difference": None, "t": None}
    result.update(p=None, df=None, a_greater=None)
    if a["n"] < 2 or n < 2 or std is None:
        return result
    result["difference"] = a["mean"] - mean
    if a["std"] ** 2 < 1e-12 and std**2 < 1e-12:  # constant samples: no test
        return result
    test = stats.ttest_ind_from_stats(a["mean"], a["std"], a["n"], mean, std, n, equal_var=False)
    variance_a, variance_b = a["std"] ** 2 / a["n"], std**2 / n  # Welch-Satterthwaite
    df = (variance_a + variance_b) ** 2 / (variance_a**2 / (a["n"] - 1) + variance_b**2 / (n - 1))
    result.update(
        t=float(test.statistic),
        p=float(test.pvalue),
        df=float(df),
        a_greater=bool(test.pvalue < ALPHA and result["difference"] > 0),
    )
    return result


def paired(a: Sequence[float], b: Sequence[float], shift: float = 0.0) -> dict:
    """The paired two-tailed t-test of a[i] − b[i] + ``shift`` against 0 (``shift`` = a
    non-inferiority margin), with the exact Wilcoxon signed-rank test's p beside it."""
    d = np.asarray(a, float) - np.asarray(b, float)
    result = {"test": "paired t", "n_a": len(d), "n_b": len(d), "t": None, "p": None}
    result.update(df=None, wilcoxon_p=None, a_greater=None)
    result["difference"] = float(d.mean()) if len(d) else None
    shifted = d + shift
    if len(d) < 2 or np.var(shifted) < 1e-24:  # one pair, or no variance: no test
        return result
    test = stats.ttest_1samp(shifted, 0.0)
    result.update(t=float(test.statistic), p=float(test.pvalue), df=float(len(d) - 1))
    result["a_greater"] = bool(test.pvalue < ALPHA and shifted.mean() > 0)
    if np.any(shifted != 0):
        result["wilcoxon_p"] = float(stats.wilcoxon(shifted, zero_method="wilcox").pvalue)
        result["wilcoxon_method"] = wilcoxon_method(shifted)
    return result


def wilcoxon_method(differences: np.ndarray) -> str:
    """How scipy's `wilcoxon` (method "auto") computed its p for these differences: "exact"
    with at most 50 of them, none zero and no ties in |d|, else "normal approximation"."""
    magnitudes = np.abs(differences)
    exact = len(differences) <= 50 and np.all(magnitudes > 0)
    exact = exact and len(np.unique(magnitudes)) == len(magnitudes)
    return "exact" if exact else "normal approximation"


def adjusted_confidence(family_size: int) -> float:
    """The level of a family's adjusted intervals: 1 − α / m (0.95 for one test)."""
    return 1.0 - ALPHA / max(int(family_size), 1)


def difference_interval(
    a: Sequence[float], b: Sequence[float], paired_design: bool, confidence: float = 0.95
) -> list[float] | None:
    """The t-based CI of mean(a) − mean(b): of the mean difference (paired), or Welch's
    (independent). None below 2 values a side or with no variance."""
    a, b = np.asarray(_kept(a)), np.asarray(_kept(b))
    if len(a) < 2 or len(b) < 2:
        return None
    if paired_design:
        d = a - b
        scale, df = np.std(d, ddof=1) / np.sqrt(len(d)), len(d) - 1
    else:
        variance_a, variance_b = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
        scale = np.sqrt(variance_a + variance_b)
        if scale == 0:
            return None
        df = (variance_a + variance_b) ** 2 / (
            variance_a**2 / (len(a) - 1) + variance_b**2 / (len(b) - 1)
        )
    if scale == 0:
        return None
    half = float(stats.t.ppf(0.5 + confidence / 2, df) * scale)
    difference = float(a.mean() - b.mean())
    return [difference - half, difference + half]


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values, in the given order; None (no test) stays None and
    does not count in the family."""
    indexed = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running, m = 0.0, len(indexed)
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def verdict(
    relation: str,
    p_adjusted: float | None,
    ci: Sequence[float] | None,
    margin: float = 0.0,
    refute_below: float | None = None,
) -> str:
    """What a claim "a REL b" may be called (the module docstring): "holds", "refuted",
    "undecided", or "not tested" (no p or no CI).

    Args:
      relation: ">" (a exceeds b by more than ``margin``) or ">=" (a is no worse than b by
        more than ``margin``).
      p_adjusted: the test's Holm-adjusted p (for ">=", of the difference shifted by margin).
      ci: the family-adjusted CI of the difference a − b.
      margin: see ``relation`` (>= 0).
      refute_below: ">" only: the smallest effect of interest (>= margin): the claim is
        refuted when the whole interval lies below it (default: the margin).
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}.")
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}.")
    if refute_below is not None and (relation != ">" or refute_below < margin):
        raise ValueError(
            f"refute_below is the smallest effect of interest of a '>' claim, >= its margin "
            f"{margin}; got {refute_below} for {relation!r}."
        )
    if p_adjusted is None or ci is None:
        return "not tested"
    low, high = ci
    bound = margin if relation == ">" else -margin
    if p_adjusted < ALPHA and low > bound:
        return "holds"
    if relation == ">":
        excluded = high < (margin if refute_below is None else refute_below)
    else:
        excluded = high < -margin
    return "refuted" if excluded else "undecided"


def first_significant(curve_a: Sequence[dict], curve_b: Sequence[dict]) -> dict:
    """Welch's test of a against b at every evaluation both curves hold (points with "epoch",
    "episodes" and the seeds' "values"): the per-epoch p-values, the first epoch at which
    a > b at α = 0.05 (None if never) and whether a > b at every evaluation from then on.

    Descriptive only (one test per epoch, not adjusted): the Deep Sets paper dates its
    architecture result this way ("significant from ep = 600").
    """
    at_b = {point["epoch"]: point for point in curve_b}
    per_epoch = []
    for point in curve_a:
        other = at_b.get(point["epoch"])
        if other is None:
            continue
        test = welch(point["values"], other["values"])
        per_epoch.append(
            {
                "epoch": point["epoch"],
                "episodes": point["episodes"],
                "p": test["p"],
                "a_greater": test["a_greater"],
            }
        )
    greater = [bool(entry["a_greater"]) for entry in per_epoch]
    first = greater.index(True) if True in greater else None
    return {
        "first_epoch": None if first is None else per_epoch[first]["epoch"],
        "first_episodes": None if first is None else per_epoch[first]["episodes"],
        "from_then_on": first is not None and all(greater[first:]),
        "per_epoch": per_epoch,
    }
