"""The paper's statistics: mean ± standard deviation over seeds, Welch's two-tailed t-test.

Karch, Colas et al. (2020) report every result as mean ± std over 10 seeds and test
differences with a two-tailed Welch t-test at α = 0.05. The standard deviation here is the
sample one (ddof = 1).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy import stats

ALPHA = 0.05


def summary(values: Sequence[float]) -> dict:
    """{"mean", "std" (ddof 1; None below 2 values), "n", "values"} of the non-missing values."""
    kept = [float(v) for v in values if v is not None and not math.isnan(v)]
    return {
        "mean": float(np.mean(kept)) if kept else None,
        "std": float(np.std(kept, ddof=1)) if len(kept) > 1 else None,
        "n": len(kept),
        "values": kept,
    }


def welch(a: Sequence[float], b: Sequence[float]) -> dict:
    """Welch's two-tailed t-test of a against b: t, p, degrees of freedom, mean difference, and
    whether a > b at α = 0.05 (``a_greater``). None where either side has fewer than 2 values
    or both have no variance."""
    b = summary(b)
    return welch_against(a, b["mean"], b["std"], b["n"])


def welch_against(a: Sequence[float], mean: float, std: float | None, n: int) -> dict:
    """`welch` of the values a against a sample known only by its mean, std (ddof 1) and size
    n: a paper's "mean ± std over n seeds" (`scipy.stats.ttest_ind_from_stats`)."""
    a = summary(a)
    result = {
        "n_a": a["n"],
        "n_b": n,
        "difference": None,
        "t": None,
        "p": None,
        "df": None,
        "a_greater": None,
    }
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


def first_significant(curve_a: Sequence[dict], curve_b: Sequence[dict]) -> dict:
    """Welch's test of a against b at every evaluation both curves hold (points with "epoch",
    "episodes" and the seeds' "values"): the per-epoch p-values, the first epoch at which
    a > b at α = 0.05 (None if never) and whether a > b at every evaluation from then on.

    The Deep Sets paper dates its architecture result this way ("significant from ep = 600").
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
