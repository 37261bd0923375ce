"""docs/results/scripts/reward_retraining_ab.py, run as its docstring says (in this process) on a
small saved reward memory, with a reward update of a few small batches (gin binds the
`RewardModelConfig` fields of the script's default `TrainConfig`)."""

import json
import pathlib
import runpy
import sys

import gin
import numpy as np
import pytest

import imagine_tf.reward.config  # noqa: F401 - registers RewardModelConfig
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.memory import RewardMemory

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "results" / "scripts" / "reward_retraining_ab.py"
GOALS = ["Go left", "Go right", "Grasp red cat"]
STATE_DIM = 240  # 3 objects


@pytest.fixture
def small_updates():
    gin.clear_config()
    gin.parse_config(
        [
            "RewardModelConfig.batch_size = 16",
            "RewardModelConfig.batches_per_epoch = 2",
            "RewardModelConfig.max_epochs = 3",
        ]
    )
    yield
    gin.clear_config()


def saved_memory(path: pathlib.Path) -> pathlib.Path:
    """mem.npz as the docstring says: the memory's `state_dict()` plus the goals' tokens."""
    rng = np.random.default_rng(0)
    memory = RewardMemory(1000, STATE_DIM, len(GOALS))
    states = rng.random((700, STATE_DIM), dtype=np.float32)
    memory.add(states, states[:, : len(GOALS)] > 0.6)
    tokens = Vocabulary.default().encode(GOALS)
    np.savez(path, tokens=tokens, **memory.state_dict())
    return path


def test_one_retraining_of_a_fresh_reward_model_on_the_saved_memory(
    monkeypatch, tmp_path, capsys, small_updates
):
    memory = saved_memory(tmp_path / "mem.npz")
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "2", str(memory)])
    runpy.run_path(str(SCRIPT), run_name="__main__")
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["seed"] == 2 and report["epochs"] == 3  # max_epochs: patience 15 never stops
    assert report["held_out_states"] == 120  # the 600 newest states, at most 120 held out
    assert 0.0 <= report["held_out_f1"] <= 1.0 and report["seconds"] > 0
