"""keras-tuner searches over the reward model's settings: ranking, the default first, resume,
and errors for spaces that cannot be searched (tiny budgets)."""

import dataclasses
import json

import pytest

from imagine_tf.data.episodes import EpisodeSpec
from imagine_tf.data.supervised import generate_supervised_data
from imagine_tf.language import grammar
from imagine_tf.reward.config import RewardTrainConfig
from imagine_tf.tuning.search_project import SearchMismatch
from imagine_tf.tuning.search_report import format_report
from imagine_tf.tuning.supervised_tuning import tune_reward_model
from imagine_tf.tuning.search_space import SearchSpaceError

# FC learns the Go goals of 1,000 scripted episodes in 300 steps (validation F1 0.82-0.85
# over seeds 0-2) where an untrained network scores 0.21-0.37.
BASE = RewardTrainConfig(
    architecture="fc",
    learning_rate=1e-2,
    positive_ratio=0.5,
    batch_size=64,
    batches_per_epoch=30,
    hidden_units=16,
    validation_fraction=0.3,
)


@pytest.fixture(scope="module")
def data():
    goals = [g for g in grammar.one_object_goals() if g.startswith("Go")]
    return generate_supervised_data(EpisodeSpec(seed=5), 1000, goals)


def test_a_grid_ranks_a_dead_learning_rate_below_the_default_and_resumes(data, tmp_path):
    space = {"learning_rate": (1e-9, 1e-2)}
    report = tune_reward_model(
        data,
        str(tmp_path),
        BASE,
        space,
        epochs_per_trial=10,
        tuner="grid",
        max_trials=2,
        command="test",
    )
    first, second = report["ranking"]
    assert first["default"] and first["values"] == {"learning_rate": 1e-2} and first["rank"] == 1
    assert second["values"] == {"learning_rate": 1e-9} and second["rank"] == 2
    assert first["validation_f1"] > second["validation_f1"] + 0.3
    assert report["default"] == {"trial": "0", "rank": 1, "validation_f1": first["validation_f1"]}
    assert report["best"]["is_default"] and report["best"]["margin_over_default"] == 0.0
    assert report["budget"] == {
        "epochs_per_trial": 10,
        "batches_per_epoch": 30,
        "gradient_steps_per_run": 300,
        "seeds": [0],
    }
    project = tmp_path / "reward_fc"
    assert json.loads((project / "report.json").read_text()) == report
    assert "rank 1 of 2" in format_report(report)
    checkpoint = project / "trial_1" / "seed_0" / "best.weights.h5"
    trained = checkpoint.stat().st_mtime_ns
    again = tune_reward_model(
        data, str(tmp_path), BASE, space, epochs_per_trial=10, tuner="grid", max_trials=2
    )
    scores = [row["validation_f1"] for row in again["ranking"]]
    assert scores == [first["validation_f1"], second["validation_f1"]]
    assert checkpoint.stat().st_mtime_ns == trained  # finished trials are not trained again
    with pytest.raises(SearchMismatch, match="epochs_per_trial"):
        tune_reward_model(data, str(tmp_path), BASE, space, epochs_per_trial=5, tuner="grid")


def test_random_search_runs_the_default_first_and_averages_seeds(data, tmp_path):
    space = {
        "learning_rate": {"min": 1e-9, "max": 1e-1, "sampling": "log"},
        "hidden_units": (8, 16),
    }
    tiny = dataclasses.replace(BASE, batches_per_epoch=2)
    report = tune_reward_model(
        data, str(tmp_path), tiny, space, epochs_per_trial=1, max_trials=2, seeds=(0, 1)
    )
    by_trial = {row["trial"]: row for row in report["ranking"]}
    assert by_trial["0"]["default"] and by_trial["0"]["values"] == {
        "learning_rate": 1e-2,
        "hidden_units": 16,
    }
    assert not by_trial["1"]["default"] and report["trials_completed"] == 2
    metrics = by_trial["1"]["metrics"]
    seeds = [metrics["validation_f1_seed_0"], metrics["validation_f1_seed_1"]]
    assert by_trial["1"]["validation_f1"] == pytest.approx(sum(seeds) / 2)
    assert "validation_f1_seed_std" in metrics and metrics["training_seconds"] > 0
    assert (tmp_path / "reward_fc" / "trial_1" / "seed_1" / "network.json").exists()
    more = tune_reward_model(
        data, str(tmp_path), tiny, space, epochs_per_trial=1, max_trials=3, seeds=(0, 1)
    )  # a rerun may extend the search
    assert more["trials"] == 3 and by_trial["1"]["values"] in [r["values"] for r in more["ranking"]]


@pytest.mark.parametrize(
    "space, tuner, message",
    [
        ({"max_epochs": (10, 20)}, "random", "cannot change"),
        ({"learning_rate": (1e-4, 1e-3)}, "random", "does not hold the base value 0.01"),
        ({"learning_rate": {"min": 0.0, "max": 1e-1, "sampling": "log"}}, "random", "log needs"),
        ({"learning_rate": {"min": 1e-3}}, "random", "a range is"),
        ({"learning_rate": {"min": 1e-3, "max": 1e-1}}, "grid", "needs a finite set"),
        ({"batch_size": (0, 64)}, "random", "RewardTrainConfig.batch_size must be >= 1"),
        ({"normalize_goal": (False, True)}, "random", "'fc' architecture ignores"),
        ({"hidden_units": 16}, "random", "give a tuple of values"),
        ({}, "random", "non-empty dict"),
        ({"learning_rate": (1e-2,)}, "random", "at least two values"),
        ({"learning_rate": (1e-2, 1e-3)}, "hyperband", "different numbers of epochs"),
    ],
)
def test_spaces_that_cannot_be_searched_are_clear_errors(data, tmp_path, space, tuner, message):
    with pytest.raises((SearchSpaceError, ValueError), match=message):
        tune_reward_model(data, str(tmp_path), BASE, space, epochs_per_trial=1, tuner=tuner)
    assert not (tmp_path / "reward_fc").exists()  # nothing was started
