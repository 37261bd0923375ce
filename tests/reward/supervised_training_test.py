"""Supervised reward training: F1, metrics, resumable runs."""

import json

import numpy as np
import pytest

from imagine_tf.data.episodes import EpisodeSpec
from imagine_tf.data.supervised import generate_supervised_data
from imagine_tf.language import grammar
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.config import RewardModelConfig
from imagine_tf.reward.f1 import f1_per_goal
from imagine_tf.reward.supervised_training import (
    SupervisedTrainer,
    summarize_f1,
)


@pytest.fixture(scope="module")
def data():
    return generate_supervised_data(EpisodeSpec(seed=4), 300)


def test_f1_per_goal_by_hand():
    labels = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 0]], bool)
    predicted = np.array([[1, 0, 1], [0, 1, 0], [0, 1, 0], [1, 0, 0]], bool)
    # goal 0: TP 1, FN 1, FP 1 -> 2/4; goal 1: TP 2 -> 1; goal 2: no positive -> NaN.
    f1 = f1_per_goal(predicted, labels).numpy()
    np.testing.assert_allclose(f1[:2], [0.5, 1.0])
    assert np.isnan(f1[2])


def test_summary_groups(data):
    f1 = np.where(data.test_labels.any(axis=0), 1.0, np.nan)
    summary = summarize_f1(data, f1)
    assert summary["one_object"]["train"]["goals"] == 191
    assert summary["one_object"]["test"]["goals"] == 64
    assert summary["two_object"]["test"]["goals"] == 2
    assert sum(summary["per_type"][t]["goals"] for t in "12345") == 64
    assert summary["grasp_one_object"]["test"]["goals"] == 11  # the paper's Table 1
    assert summary["grasp_one_object"]["test_type_2"]["goals"] == 4
    assert summary["one_object"]["test_without_type_2"]["goals"] == 56


# learning rate None: per architecture, as a supervised run's default
TINY = dict(learning_rate=None, batch_size=64, batches_per_epoch=3, hidden_units=16, max_epochs=2)


@pytest.mark.parametrize("architecture", ["ma", "fc"])
def test_a_tiny_run_writes_everything_and_resumes(data, tmp_path, architecture):
    trainer = SupervisedTrainer(data, RewardModelConfig(architecture, **TINY), tmp_path)
    metrics = trainer.train(progress=False)
    assert metrics["epochs"] == 2
    saved = json.loads((tmp_path / "metrics.json").read_text())
    assert saved["summary"]["one_object"]["test"]["goals"] == 64
    assert set(saved["f1_per_goal"]) == set(data.goals)
    assert (tmp_path / "best.weights.h5").exists()
    assert list((tmp_path / "tensorboard").glob("events.*"))
    resumed = SupervisedTrainer(
        data, RewardModelConfig(architecture, **{**TINY, "max_epochs": 3}), tmp_path
    )
    resumed_metrics = resumed.train(progress=False)
    assert resumed_metrics["epochs"] == 3  # continued from epoch 2
    assert (
        resumed_metrics["training_seconds"] > metrics["training_seconds"] > 0
    )  # summed over sessions
    assert 1 <= resumed_metrics["best_epoch"] <= 3


def test_resuming_with_another_network_is_refused_and_changes_nothing(data, tmp_path):
    SupervisedTrainer(data, RewardModelConfig("ma", **{**TINY, "max_epochs": 1}), tmp_path).train(
        progress=False, evaluate_test=False
    )
    before = {p.name: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    wider = RewardModelConfig("ma", **{**TINY, "max_epochs": 2, "hidden_units": 32})
    with pytest.raises(ValueError, match=r"hidden_units: 16 in the run, 32 now.*new --root-dir"):
        SupervisedTrainer(data, wider, tmp_path).train(progress=False, evaluate_test=False)
    more_words = Vocabulary.from_goals([*data.goals, "Grasp purple cat"])
    with pytest.raises(ValueError, match=r"words: \d+ in the run, \d+ now \(new: \['purple'\]"):
        SupervisedTrainer(
            data, RewardModelConfig("ma", **TINY), tmp_path, vocabulary=more_words
        ).train(progress=False, evaluate_test=False)
    assert {p.name: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


@pytest.mark.slow
def test_ma_learns(tmp_path):
    data = generate_supervised_data(EpisodeSpec(seed=6), 3000, grammar.one_object_goals(), 50)
    config = RewardModelConfig("ma", batches_per_epoch=100, max_epochs=8, patience=8)
    metrics = SupervisedTrainer(data, config, tmp_path).train(progress=False)
    assert metrics["best_validation_f1"] > 0.5
    assert metrics["summary"]["one_object"]["train"]["f1"] > 0.5
