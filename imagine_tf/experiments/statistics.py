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
    a, b = summary(a)["values"], summary(b)["values"]
    result = {
        "n_a": len(a),
        "n_b": len(b),
        "difference": None,
        "t": None,
        "p": None,
        "df": None,
        "a_greater": None,
    }
    if len(a) < 2 or len(b) < 2:
        return result
    result["difference"] = float(np.mean(a) - np.mean(b))
    if np.var(a) < 1e-12 and np.var(b) < 1e-12:  # constant samples: no test
        return result
    test = stats.ttest_ind(a, b, equal_var=False)
    result.update(
        t=float(test.statistic),
        p=float(test.pvalue),
        df=float(test.df),
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
