"""docs/results/scripts/reward_patience_ab.py, run as its docstring says (in this process) on a
restored run made small: a reward memory of synthetic final states and labels, and a reward
update of a few small batches (gin binds the `RewardModelConfig` fields the script leaves at
their defaults)."""

import json
import pathlib
import runpy
import sys
import types

import gin
import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.analysis import saved_run as loading
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig
from imagine_tf.reward.memory import RewardMemory

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "results" / "scripts" / "reward_patience_ab.py"
GOALS = ("Go left", "Go right", "Grasp red cat", "Grasp any furniture")


def restored_learner(seed: int = 0):
    """What `load_agent` gives the script: the run's reward network, memory and goals."""
    builder = RunBuilder(TrainConfig(seed=seed))
    tf.keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    memory = RewardMemory(200, builder.state_dim, len(GOALS))
    states = rng.random((150, builder.state_dim), dtype=np.float32)
    memory.add(states, states[:, : len(GOALS)] > 0.6)  # a goal is a feature above 0.6
    return types.SimpleNamespace(
        builder=builder,
        config=builder.config,
        memory=memory,
        goals=types.SimpleNamespace(sentences=GOALS),
        reward_network=builder.make_reward_network(),
        epoch=tf.Variable(7),
    )


@pytest.fixture
def small_updates():
    gin.clear_config()
    gin.parse_config(["RewardModelConfig.batch_size = 16", "RewardModelConfig.max_epochs = 4"])
    gin.parse_config("RewardModelConfig.batches_per_epoch = 3")
    yield
    gin.clear_config()


def test_a_patience_retrains_the_restored_run_and_is_recorded(monkeypatch, tmp_path, small_updates):
    restored = []
    monkeypatch.setattr(
        loading, "load_agent", lambda run: restored.append(run) or restored_learner()
    )
    out = tmp_path / "ab.json"
    argv = ["run_a", "--patience", "1", "--held-out", "40", "--conditions", "x", "--out", out]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *map(str, argv)])
    runpy.run_path(str(SCRIPT), run_name="__main__")  # one patience: each compiles an update
    assert restored == ["run_a"]
    record = json.loads(out.read_text())
    assert record["command"].startswith("python docs/results/scripts/reward_patience_ab.py")
    assert "run_a --patience 1 --held-out 40 --threads 1" in record["command"]
    assert "F1 on the 40 most recent" in record["what"] and record["conditions"] == "x"
    [row] = record["rows"]
    assert row["run"] == str(pathlib.Path("run_a").resolve()) and row["patience"] == 1
    assert (row["epoch"], row["goals"], row["held_out_states"]) == (7, 4, 40)
    assert 0.0 <= row["mean_f1_before"] <= 1.0 and 0.0 <= row["mean_f1_after"] <= 1.0
    assert 2 <= row["reward_epochs"] <= 4  # the first epoch improves; at patience 1 one more
    # may not; at most max_epochs
