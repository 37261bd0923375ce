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
