"""keras-tuner search over the reward model's hyperparameters (tiny budgets)."""

import json

import pytest

from imagine_tf.data.episodes import EpisodeSpec
from imagine_tf.data.supervised import generate_supervised_data
from imagine_tf.language import grammar
from imagine_tf.tuning.reward_tuning import format_results, tune_reward_model


@pytest.fixture(scope="module")
def data():
    return generate_supervised_data(EpisodeSpec(seed=5), 100, grammar.one_object_goals())


@pytest.mark.parametrize("tuner", ["random", "hyperband"])
def test_search_runs_records_and_resumes(data, tmp_path, tuner):
    kwargs = dict(architecture="fc", tuner=tuner, max_trials=2, max_epochs=2, batches_per_epoch=2)
    results = tune_reward_model(data, str(tmp_path), **kwargs)
    assert len(results) >= 2
    scores = [r["validation_f1"] for r in results]
    assert all(s is not None and 0 <= s <= 1 for s in scores) and scores == sorted(
        scores, reverse=True
    )
    assert {"learning_rate", "hidden_units", "batch_size", "positive_ratio"} <= set(results[0])
    saved = json.loads((tmp_path / "tuning_results_fc.json").read_text())
    assert saved == results
    assert "validation_f1" in format_results(results)
    again = tune_reward_model(data, str(tmp_path), **kwargs)  # resumes: no new trials
    assert len(again) == len(results)
