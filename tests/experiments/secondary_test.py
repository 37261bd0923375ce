"""What a report gives beside its claims (`secondary`, `markdown_secondary`): the seed paper's
per-type readings, the interim label, the declared earlier epochs and a fork's own cost."""

import json
import pathlib

import numpy as np
import pytest

from imagine_tf.experiments import comparisons, markdown_secondary, secondary
from imagine_tf.experiments.cells import grid
from imagine_tf.experiments.markdown import markdown
from imagine_tf.experiments.report import _agent_cost
from imagine_tf.experiments.spec import ExperimentSpec

pytestmark = pytest.mark.usefixtures("clear_gin")

ROOT = pathlib.Path(__file__).resolve().parents[2]
TYPES = {f"type {t}": f"per_type.{t}" for t in range(1, 6)}


def _spec(**overrides) -> ExperimentSpec:
    configurations = {"trunk": {"num_epochs": 2}}
    configurations |= {arm: {"fork_from": "trunk", "read_epochs": [3]} for arm in ("a", "b")}
    settings = dict(
        name="study",
        configurations=configurations,
        seeds=4,
        num_epochs=4,
        metrics={"test SR": "test_success", **TYPES},
        comparisons=(("a", "b", "test SR"),),
        gate=("a", "b", "test SR"),
        type_claims=("a",),
    )
    return ExperimentSpec(**(settings | overrides))


def _metrics(per_seed: dict[str, list[float]]) -> dict:
    return {
        name: comparisons.describe({str(s): v for s, v in enumerate(values)})
        for name, values in per_seed.items()
    }


def test_the_seed_papers_type_claims_are_read_on_their_intervals():
    rng = np.random.default_rng(0)
    a = {
        "test SR": [0.5] * 4,
        "type 1": list(0.9 + rng.normal(0, 0.01, 4)),  # generalizes: above 0.5
        "type 2": [0.0] * 4,  # fails: a point interval at 0, below 0.2
        "type 3": [0.1, 0.9, 0.2, 0.95],  # too spread to say
        "type 4": list(0.2 + rng.normal(0, 0.01, 4)),  # below 0.5: contradicted
        "type 5": list(0.85 + rng.normal(0, 0.01, 4)),  # easier than 1, 3, 4: contradicted
    }
    spec = _spec()
    readings = secondary.type_claims(spec, {"a": {"metrics": _metrics(a)}})
    assert [r["reading"] for r in readings] == [
        "reproduced",
        "reproduced",
        "undecided",
        "contradicted",
        "contradicted",
    ]
    assert readings[0]["ci"] == [0.0, 0.0] and readings[1]["ci"][0] > 0.5
    harder = readings[-1]
    expected = np.mean(a["type 5"]) - np.mean(np.mean([a["type 1"], a["type 3"], a["type 4"]], 0))
    assert harder["mean"] == pytest.approx(expected) and harder["n"] == 4


def test_type_claims_need_the_five_type_metrics_and_known_arms():
    with pytest.raises(ValueError, match="type_claims"):
        _spec(type_claims=("nobody",))
    with pytest.raises(ValueError, match="type 1"):
        _spec(metrics={"test SR": "test_success"})


def test_a_report_with_missing_cells_is_interim_and_takes_no_verdict():
    spec = _spec(type_claims=())
    rng = np.random.default_rng(1)
    values = {
        label: {"test SR": list(shift + rng.normal(0, 0.01, 4)), **{t: [0.5] * 4 for t in TYPES}}
        for label, shift in (("a", 0.9), ("b", 0.1))
    }
    configurations = {
        label: {"seeds": [0, 1, 2, 3], "metrics": _metrics(v)} for label, v in values.items()
    }
    configurations["trunk"] = {"seeds": [0, 1, 2, 3, 4], "metrics": _metrics(values["b"])}
    tests, _ = comparisons.claims_and_descriptions(
        spec,
        {k: {m: e["by_seed"] for m, e in c["metrics"].items()} for k, c in configurations.items()},
    )
    content = {"configurations": configurations, "comparisons": tests, "missing": ["a_s4"]}
    content["family"] = comparisons.adjust_family(tests)
    assert tests[0]["verdict"] == "holds"  # what the complete grid would say
    secondary.mark_interim(spec, content)
    assert tests[0]["verdict"] == "interim" and content["family"]["gate"] == "not read (interim)"
    assert content["interim"] == {"seeds_complete": 4, "seeds_declared": 4}
    page = markdown(spec, content)
    assert page.splitlines()[2].startswith("**Interim report: 4 of 4 seeds complete")
    assert (
        "interim (no verdict)" in page and "| **holds** |" not in page and "Insensitive" not in page
    )


def test_the_declared_earlier_epoch_is_compared_on_the_seeds_both_arms_have():
    spec = _spec()
    at_3 = {
        "a": _metrics({"test SR": [0.5, 0.6, 0.7], **{t: [0.5] * 3 for t in TYPES}}),
        "b": _metrics({"test SR": [0.4, 0.4, 0.4, 0.4], **{t: [0.5] * 4 for t in TYPES}}),
    }
    configurations = {label: {"read_epochs": {"3": m}} for label, m in at_3.items()}
    (difference,) = secondary.read_epoch_differences(spec, configurations)
    assert difference["epoch"] == 3 and difference["design"] == "paired"
    assert difference["paired_seeds"] == ["0", "1", "2"]
    assert difference["difference"] == pytest.approx(0.2)


def test_a_forks_cost_leaves_out_its_sources_epochs(tmp_path):
    spec = _spec()
    arm = {cell.name: cell for cell in grid(spec, tmp_path, ROOT)}["a_s0"]
    arm.directory.mkdir(parents=True)
    (arm.directory / "fork.json").write_text(json.dumps({"epoch": 2}))
    progress = [
        {"epoch": e, "seconds_updates": 10.0 * e, "seconds_reward": 1.0} for e in (1, 2, 3, 4)
    ]
    sampled = {
        "1 10": {"command": "train", "cpu_seconds": 50.0, "wall_seconds": 60.0, "machine": "m"},
        "2 20": {"command": "eval", "cpu_seconds": 5.0, "wall_seconds": 6.0, "machine": "m"},
    }
    (arm.directory / "cpu_seconds.json").write_text(json.dumps(sampled))
    cost = _agent_cost(arm, progress)
    assert cost["seconds"] == pytest.approx(30 + 40 + 2)  # epochs 3 and 4 only
    assert (cost["cpu_seconds"], cost["process_seconds"]) == (55.0, 66.0)
    assert cost["machines"] == ["m"]
    (arm.directory / "cpu_seconds.json").unlink()
    assert _agent_cost(arm, progress)["cpu_seconds"] is None


def test_the_authors_agent_stands_beside_an_agent_study_only(tmp_path, monkeypatch):
    record = {"repetitions": 30, "test_success": 0.8, "per_type": {"5": 0.9}, "budget": "B"}
    path = tmp_path / "docs" / "authors.json"
    path.parent.mkdir()
    path.write_text(json.dumps(record))
    monkeypatch.setattr(secondary, "REPOSITORY", tmp_path)
    reference = secondary.authors_reference(_spec(), "docs/authors.json")
    assert reference["metrics"] == {
        "test SR": 0.8, "type 1": None, "type 2": None, "type 3": None, "type 4": None,
        "type 5": 0.9,
    }  # fmt: skip
    assert reference["budget"] == "B" and reference["episodes_per_goal"] == 30
    content = {"configurations": {}, "authors_agent": reference}
    row = markdown_secondary.authors_row(content, ["test SR", "type 5"])[0]
    assert row.endswith("| — | 0.800 | 0.900 |")
    reward_study = ExperimentSpec(
        name="rewards", kind="reward", configurations={"ma": {}}, seeds=2, metrics={"F1": "f1"}
    )
    assert secondary.authors_reference(reward_study, "docs/authors.json") is None
    assert secondary.authors_reference(_spec(), "docs/missing.json") is None
