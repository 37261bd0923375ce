"""docs/results/scripts/torch_update_floor.py (PyTorch, which imagine-tf does not depend on:
skipped without it): the networks have the parameter counts of the reference's, and a measure
at a tiny batch reports every figure."""

import importlib.util
import pathlib

import pytest

torch = pytest.importorskip("torch")

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "docs/results/scripts/torch_update_floor.py"


@pytest.fixture(scope="module")
def floor():
    spec = importlib.util.spec_from_file_location("torch_update_floor", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_networks_have_the_reference_shapes(floor):
    actor, critic = floor.Actor(), floor.Critic()
    objects, goal = torch.zeros(2, floor.OBJECTS, floor.OBJECT_INPUT), torch.zeros(2, floor.GOAL)
    action = actor(objects, goal)
    assert action.shape == (2, floor.ACTION) and float(action.abs().max()) <= 1.0
    assert critic(objects, goal, action).shape == (2,)
    assert floor.RewardMA()(objects, goal).shape == (2,)
    # MA: attention F, 2 per-object layers (F -> 256 -> N·F), 2 after the sum (N·F -> 256 -> out)
    f = floor.OBJECT_INPUT
    attention, before = 100 * f + f, f * 256 + 256 + 256 * 3 * f + 3 * f
    assert floor.count(actor) == attention + before + 3 * f * 256 + 256 + 256 * 3 + 3


def test_a_measure_at_a_tiny_batch_reports_every_figure(floor):
    result = floor.measure(batch=4, repeats=3)
    assert result["batch"] == 4 and result["threads"] == 1
    assert result["update_ms_median"] > 0 and result["relabel_scoring_ms_median"] > 0
    assert result["updates_per_s"] > result["update_with_scoring_per_s"] > 0
    assert set(result["parameters"]) == {"actor", "critic"}
    assert floor.batch_pairs(result) == "4 × 50"
