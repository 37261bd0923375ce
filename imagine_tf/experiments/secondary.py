"""What a study reports beside its family of claims, with no verdict taken from it.

* the declared earlier epochs (``read_epochs``): each configuration's metrics there and the
  family's pairs' differences with unadjusted 95 % t intervals;
* the seed paper's per-type claims (Karch, Colas et al. 2020: type 2 fails; types 1, 3 and 4
  generalize; type 5 is harder), read on ``ExperimentSpec.type_claims`` with 95 % t
  intervals over the seeds;
* while cells are missing, the interim label: every claim's verdict is "interim";
* beside an agent study's table, the authors' released agent measured here (one run: no
  statistics), with its budget (`authors_reference`).
"""

from __future__ import annotations

import json
from typing import Sequence

import numpy as np

from imagine_tf.experiments import comparisons, statistics
from imagine_tf.experiments.spec import ExperimentSpec
from imagine_tf.provenance import REPOSITORY

#: (claim, the types it reads, "above" / "below", threshold): reproduced when the 95 % t
#: interval of the per-seed value lies on the claimed side of the threshold, contradicted when
#: it lies on the other. "type 5 is harder" reads type 5 − mean(types 1, 3, 4) per seed.
SEED_PAPER_TYPE_CLAIMS = (
    ("type 2 fails", (2,), "below", 0.2),
    ("type 1 generalizes", (1,), "above", 0.5),
    ("type 3 generalizes", (3,), "above", 0.5),
    ("type 4 generalizes", (4,), "above", 0.5),
    ("type 5 is harder than types 1, 3, 4", (5, 1, 3, 4), "below", 0.0),
)
TYPE_METRIC = "type {}"  # the spec's metric names of the per-type test SR


def describe_metrics(spec: ExperimentSpec, values: dict[str, dict]) -> dict:
    """{metric: `comparisons.describe`} of ``values`` = {metric: {seed: value}}."""
    return {name: comparisons.describe(values[name]) for name in spec.metrics}


def read_epoch_differences(spec: ExperimentSpec, configurations: dict) -> list[dict]:
    """The family's pairs at each declared earlier epoch both sides were read at: a − b on
    every claimed metric, paired as in the family, with unadjusted 95 % t intervals."""
    differences = []
    for claim in spec.claims():
        epochs_a = configurations.get(claim.a, {}).get("read_epochs", {})
        epochs_b = configurations.get(claim.b, {}).get("read_epochs", {})
        paired = spec.paired(claim.a, claim.b)
        for epoch in sorted(set(epochs_a) & set(epochs_b), key=int):
            for metric in [claim.metric] if claim.metric else list(spec.metrics):
                side_a = comparisons.by_seed_of(epochs_a[epoch][metric], [])
                side_b = comparisons.by_seed_of(epochs_b[epoch][metric], [])
                described = comparisons.describe_pair(
                    claim.a, claim.b, metric, side_a, side_b, paired
                )
                differences.append({"epoch": int(epoch), **described})
    return differences


def _type_values(metrics: dict, types: Sequence[int]) -> list[float]:
    """Per seed (seeds with every type read): the first type's SR, minus the mean of the
    others' when there are others."""
    sides = [comparisons.by_seed_of(metrics[TYPE_METRIC.format(t)], []) for t in types]
    seeds = sorted((s for s in sides[0] if all(side.get(s) is not None for side in sides)), key=int)
    first = np.array([sides[0][s] for s in seeds], dtype=float)
    if len(types) == 1:
        return first.tolist()
    others = np.array([[side[s] for s in seeds] for side in sides[1:]], dtype=float)
    return (first - others.mean(axis=0)).tolist()


def _mean_interval(values: Sequence[float]) -> list[float] | None:
    """The 95 % t interval of the mean (a point when every seed has the same value; None
    below 2 values)."""
    if len(values) < 2:
        return None
    interval = statistics.difference_interval(values, [0.0] * len(values), True)
    return interval if interval is not None else [float(values[0])] * 2


def type_claims(spec: ExperimentSpec, configurations: dict) -> list[dict]:
    """The seed paper's per-type claims on each configuration of ``spec.type_claims``."""
    readings = []
    for label in spec.type_claims:
        metrics = configurations[label]["metrics"]
        for claim, types, side, threshold in SEED_PAPER_TYPE_CLAIMS:
            values = _type_values(metrics, types)
            ci = _mean_interval(values)
            if ci is None:
                reading = "undecided"
            elif (side == "below" and ci[1] < threshold) or (side == "above" and ci[0] > threshold):
                reading = "reproduced"
            elif (side == "below" and ci[0] > threshold) or (side == "above" and ci[1] < threshold):
                reading = "contradicted"
            else:
                reading = "undecided"
            readings.append(
                {
                    "configuration": label,
                    "claim": claim,
                    "side": side,
                    "threshold": threshold,
                    "n": len(values),
                    "mean": float(np.mean(values)) if values else None,
                    "ci": ci,
                    "reading": reading,
                }
            )
    return readings


def mark_interim(spec: ExperimentSpec, content: dict) -> None:
    """While cells are missing, no verdict is taken: each claim's verdict becomes "interim"
    (its numbers stay) and ``content["interim"]`` says how many seeds are complete."""
    if not content.get("missing"):
        return
    complete = set.intersection(
        *(set(entry["seeds"]) for entry in content["configurations"].values())
    )
    content["interim"] = {"seeds_complete": len(complete), "seeds_declared": spec.seeds}
    if content.get("family", {}).get("gate") is not None:
        content["family"]["gate"] = "not read (interim)"
    for tests in ("comparisons", "comparisons_by_num_objects"):
        for test in content.get(tests, []):
            if "verdict" in test:
                test["verdict"] = "interim"


#: the authors' released agent in the default world (`imagine-tf eval --agent authors --out`)
AUTHORS_RECORD = "docs/results/authors_agent/eval_world_default.json"


def authors_reference(spec: ExperimentSpec, record: str = AUTHORS_RECORD) -> dict | None:
    """The authors' agent's value of each of an agent study's metrics (None where its record
    has none), its budget and episodes per goal; None for other studies or without the record."""
    from imagine_tf.experiments.report import lookup

    path = REPOSITORY / record
    if spec.kind != "agent" or not path.is_file():
        return None
    results = json.loads(path.read_text())
    return {
        "record": record,
        "budget": results.get("budget"),
        "episodes_per_goal": results["repetitions"],
        "metrics": {name: lookup(results, key) for name, key in spec.metrics.items()},
    }
