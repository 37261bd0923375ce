"""A report's statistics: per configuration and metric, the estimates over seeds; per declared
claim, its test, CIs and probability of improvement; one family per report, Holm-adjusted, and
each claim's verdict (`statistics.verdict`).

The family is every test the report makes: each claim (`ExperimentSpec.claims`) on each of its
metrics, at the run's N and at each of ``eval_num_objects``, and each comparison with the
paper's figures. Metrics a claim does not name are described (difference, CI, P(a > b)) but
not tested.
"""

from __future__ import annotations

from typing import Sequence

from imagine_tf.experiments import intervals, statistics
from imagine_tf.experiments.spec import Claim, ExperimentSpec


def describe(by_seed: dict[str, float | None]) -> dict:
    """A metric over seeds ({seed: value}): mean, std (ddof 1), n, the values (in seed order),
    median, quartiles, IQM and the bootstrap CIs of the mean and IQM."""
    values = [value for _, value in sorted(by_seed.items(), key=lambda kv: int(kv[0]))]
    entry = statistics.summary(values)
    return {
        **entry,
        "by_seed": dict(by_seed),
        **statistics.spread(entry["values"]),
        **intervals.estimates(entry["values"]),
    }


def by_seed_of(entry: dict, seeds: Sequence[int]) -> dict[str, float | None]:
    """{seed: value} of a metric entry: its "by_seed", or, in records written before it, its
    values matched to the configuration's seeds (only when there are as many)."""
    if "by_seed" in entry:
        return dict(entry["by_seed"])
    if len(entry["values"]) != len(seeds):
        raise ValueError(
            f"{len(entry['values'])} values for seeds {list(seeds)}: which seed each value "
            "belongs to is unknown; report from the runs instead."
        )
    return {str(seed): value for seed, value in zip(seeds, entry["values"])}


def _pair(a: dict, b: dict, paired: bool) -> tuple[list[float], list[float], list[str]]:
    """The values compared: a paired design's seeds with a value on both sides, in order;
    else each side's own values."""
    if paired:
        seeds = sorted((s for s in a if s in b and a[s] is not None and b[s] is not None), key=int)
        return [a[s] for s in seeds], [b[s] for s in seeds], seeds
    kept = [[v for v in side.values() if v is not None] for side in (a, b)]
    return kept[0], kept[1], []


def describe_pair(a: str, b: str, metric: str, side_a: dict, side_b: dict, paired: bool) -> dict:
    """A difference a − b from the sides' {seed: value}: estimates and CIs, no test."""
    return _described(a, b, metric, *_pair(side_a, side_b, paired), paired)


def _described(a, b, metric, values_a, values_b, seeds, paired: bool) -> dict:
    return {
        "a": a,
        "b": b,
        "metric": metric,
        "design": "paired" if paired else "independent",
        "paired_seeds": seeds,
        **intervals.difference_estimates(values_a, values_b, paired),
        "difference_ci": statistics.difference_interval(values_a, values_b, paired),
    }


def test_claim(claim: Claim, metric: str, a: dict, b: dict, paired: bool) -> dict:
    """One test of the family: ``claim`` on ``metric`` (`describe_pair` and its test)."""
    values_a, values_b, seeds = _pair(a, b, paired)
    described = _described(claim.a, claim.b, metric, values_a, values_b, seeds, paired)
    # the null at the claim's margin: a − b + margin (non-inferiority, >=), a − b − margin (>)
    shift = claim.margin if claim.relation == ">=" else -claim.margin
    if paired:
        test = statistics.paired(values_a, values_b, shift=shift)
    else:
        test = statistics.welch([v + shift for v in values_a], values_b)
    return {
        "claim": claim.text(metric),
        "relation": claim.relation,
        "margin": claim.margin,
        "refute_below": claim.refute_below,
        "gate": False,
        **test,
        **described,  # its unshifted difference, not the shifted test's
        "values_a": values_a,  # for the family-adjusted interval (`adjust_family`)
        "values_b": values_b,
    }


def claims_and_descriptions(
    spec: ExperimentSpec, metrics_of: dict[str, dict]
) -> tuple[list[dict], list[dict]]:
    """Tests of the claims and descriptions of the other metrics of the same pairs, from
    ``metrics_of[label][metric]`` = {seed: value} (one N)."""
    tests, descriptions, described = [], [], set()
    tested = {
        (c.a, c.b, m) for c in spec.claims() for m in ([c.metric] if c.metric else spec.metrics)
    }
    for claim in spec.claims():
        paired = spec.paired(claim.a, claim.b)
        for metric in [claim.metric] if claim.metric else list(spec.metrics):
            side_a, side_b = metrics_of[claim.a][metric], metrics_of[claim.b][metric]
            tests.append(test_claim(claim, metric, side_a, side_b, paired))
            tests[-1]["gate"] = spec.is_gate(claim, metric)
        for metric in spec.metrics:
            key = (claim.a, claim.b, metric)
            if key in tested or key in described:
                continue
            described.add(key)
            side_a, side_b = metrics_of[claim.a][metric], metrics_of[claim.b][metric]
            descriptions.append(describe_pair(claim.a, claim.b, metric, side_a, side_b, paired))
    return tests, descriptions


def adjust_family(tests: Sequence[dict]) -> dict:
    """Holm's adjustment over every test in ``tests`` (in place: "p_holm"; claims also get
    the family-adjusted interval "adjusted_ci" at 1 − α / m and their "verdict"); returns the
    family's description. When a gate (the positive control) does not hold, every other
    claim's verdict is "gate failed"."""
    adjusted = statistics.holm([test["p"] for test in tests])
    size = sum(test["p"] is not None for test in tests)
    confidence = statistics.adjusted_confidence(size)
    for test, p_holm in zip(tests, adjusted):
        test["p_holm"] = p_holm
        if "relation" in test:
            test["adjusted_ci"] = _adjusted_interval(test, confidence)
            test["verdict"] = statistics.verdict(
                test["relation"],
                p_holm,
                test["adjusted_ci"],
                test["margin"],
                test.get("refute_below"),
            )
    gates = [test for test in tests if test.get("gate")]
    gate_holds = all(test["verdict"] == "holds" for test in gates)
    if not gate_holds:
        for test in tests:
            if "relation" in test and not test.get("gate"):
                test["verdict"] = "gate failed"
    return {
        "adjustment": "holm",
        "alpha": statistics.ALPHA,
        "size": size,
        "tests": len(tests),
        "adjusted_confidence": confidence,
        "gate": None if not gates else ("holds" if gate_holds else "failed"),
    }


def _adjusted_interval(test: dict, confidence: float) -> list[float] | None:
    """The family-adjusted t interval of a claim's difference (from its values; a record
    written before they were kept has its raw interval only: None)."""
    if "values_a" not in test:
        return None
    paired = test["design"] == "paired"
    return statistics.difference_interval(test["values_a"], test["values_b"], paired, confidence)
