"""Interval estimates over seeds, after Agarwal et al. (2021), "Deep Reinforcement Learning at
the Edge of the Statistical Precipice" (the `rliable` package's definitions, in numpy).

* **IQM**, the interquartile mean: the mean of the middle 50 % of the runs' scores
  (`scipy.stats.trim_mean` with 25 % cut at each end; of 5 runs, the middle 3).
* **95 % percentile bootstrap CIs**, stratified: each configuration's runs are resampled on
  their own (one task per metric here, so the strata are the configurations); a paired design
  resamples the seeds, keeping each seed's pair together.
* **Probability of improvement** P(a > b): the chance that a run of a scores more than a run
  of b, ties counting one half (the Mann-Whitney U statistic over n_a × n_b), with its CI.

Every estimate uses `BOOTSTRAP_SAMPLES` resamples from a fixed seed, so a report regenerated
from the same values is identical.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
BOOTSTRAP_SAMPLES = 20_000
BOOTSTRAP_SEED = 0


def iqm(values, axis: int = -1) -> np.ndarray | float:
    """The interquartile mean along ``axis``."""
    return stats.trim_mean(np.asarray(values, float), 0.25, axis=axis)


def _interval(samples: np.ndarray) -> list[float]:
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return [float(low), float(high)]


def _resample(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """[BOOTSTRAP_SAMPLES, n] rows of ``values`` drawn with replacement."""
    rows = rng.integers(0, len(values), size=(BOOTSTRAP_SAMPLES, len(values)))
    return values[rows]


def estimates(values: Sequence[float]) -> dict:
    """{"iqm", "mean_ci", "iqm_ci"} of one configuration's values (CIs need 2 values)."""
    values = np.asarray(values, float)
    if len(values) == 0:
        return {"iqm": None, "mean_ci": None, "iqm_ci": None}
    result = {"iqm": float(iqm(values)), "mean_ci": None, "iqm_ci": None}
    if len(values) > 1:
        samples = _resample(values, np.random.default_rng(BOOTSTRAP_SEED))
        result["mean_ci"] = _interval(samples.mean(1))
        result["iqm_ci"] = _interval(iqm(samples, axis=1))
    return result


def probability_of_improvement(a: np.ndarray, b: np.ndarray) -> np.ndarray | float:
    """P(a > b) over the last axis of a [..., n] and b [..., m]: ties count 1/2."""
    a, b = np.asarray(a, float)[..., :, None], np.asarray(b, float)[..., None, :]
    return ((a > b) + 0.5 * (a == b)).mean(axis=(-2, -1))


def difference_estimates(a: Sequence[float], b: Sequence[float], paired: bool) -> dict:
    """The difference of means a − b and of IQMs, P(a > b), each with its bootstrap CI
    (``difference_bootstrap_ci``: the verdicts use the t interval, `statistics`).

    Paired (a[i] and b[i] share seed i): the seeds are resampled together; independent: each
    side on its own. CIs need 2 values on each side.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if paired and len(a) != len(b):
        raise ValueError(f"a paired difference needs as many a as b, got {len(a)} and {len(b)}.")
    result = {
        "difference": float(a.mean() - b.mean()) if len(a) and len(b) else None,
        "iqm_difference": float(iqm(a) - iqm(b)) if len(a) and len(b) else None,
        "probability_of_improvement": (
            float(probability_of_improvement(a, b)) if len(a) and len(b) else None
        ),
        "difference_bootstrap_ci": None,
        "iqm_difference_ci": None,
        "probability_of_improvement_ci": None,
    }
    if len(a) < 2 or len(b) < 2:
        return result
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    if paired:
        rows = rng.integers(0, len(a), size=(BOOTSTRAP_SAMPLES, len(a)))
        sample_a, sample_b = a[rows], b[rows]
    else:
        sample_a, sample_b = _resample(a, rng), _resample(b, rng)
    result["difference_bootstrap_ci"] = _interval(sample_a.mean(1) - sample_b.mean(1))
    result["iqm_difference_ci"] = _interval(iqm(sample_a, axis=1) - iqm(sample_b, axis=1))
    result["probability_of_improvement_ci"] = _interval(
        probability_of_improvement(sample_a, sample_b)
    )
    return result
