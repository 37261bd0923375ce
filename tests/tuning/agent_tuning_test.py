"""keras-tuner searches over the agent's settings: short runs of configs/agent/smoke.gin in run
directories, resume, and clear errors."""

import json
import pathlib

import gin
import pytest

from imagine_tf.agent.config import TrainConfig
from imagine_tf.runs.config_files import parse_config_files
from imagine_tf.tuning.agent_tuning import objective_value, trial_gin, tune_agent
from imagine_tf.tuning.search_space import SearchSpaceError

SMOKE = pathlib.Path(__file__).resolve().parents[2] / "configs" / "agent" / "smoke.gin"
SPACE = {"actor_learning_rate": (1e-3, 3e-4), "polyak": {"min": 0.9, "max": 0.99}}


@pytest.fixture
def smoke():
    """The smoke run's `TrainConfig` and gin text (gin cleared before and after)."""
    gin.clear_config()
    parse_config_files([SMOKE])
    base, text = TrainConfig(), gin.config_str()
    gin.clear_config()
    yield base, text
    gin.clear_config()


@pytest.mark.slow
def test_two_smoke_trials_write_run_directories_and_a_rerun_resumes(smoke, tmp_path):
    base, text = smoke

    def tune():
        return tune_agent(
            str(tmp_path),
            base,
            text,
            SPACE,
            epochs_per_trial=1,
            max_trials=2,
            objective="train_success_go",
        )

    report = tune()
    assert report["trials_completed"] == 2 and report["default"]["trial"] == "0"
    trials = {row["trial"]: row for row in report["ranking"]}
    assert trials["0"]["values"] == {"actor_learning_rate": 1e-3, "polyak": 0.95}
    for trial, row in trials.items():
        run = tmp_path / "agent" / f"trial_{trial}" / "run"
        record = json.loads((run / "progress.jsonl").read_text().splitlines()[-1])
        assert record["epoch"] == 1 and row["train_success_go"] == record["eval_train_success_go"]
        assert row["metrics"]["wall_seconds"] > 0
        config = json.loads((run / "config.json").read_text())
        assert config["polyak"] == row["values"]["polyak"]
        binding = f"TrainConfig.polyak = {row['values']['polyak']!r}"
        assert binding in (run / "config.gin").read_text()
    progress = tmp_path / "agent" / "trial_1" / "run" / "progress.jsonl"
    written = progress.stat().st_mtime_ns
    again = tune()
    assert again["ranking"] == report["ranking"] and progress.stat().st_mtime_ns == written


@pytest.mark.parametrize(
    "space, objective, message",
    [
        ({"episodes_per_cycle": (4, 8)}, "train_success", "cannot change"),
        ({"polyak": (0.9, 0.99)}, "train_success", "does not hold the base value 0.95"),
        ({"batch_size": (0, 128)}, "train_success", "TrainConfig.batch_size must be >= 1"),
        (SPACE, "test_success", "never selects on test goals"),
    ],
)
def test_bad_searches_are_clear_errors(smoke, tmp_path, space, objective, message):
    base, text = smoke
    with pytest.raises((SearchSpaceError, ValueError), match=message):
        tune_agent(str(tmp_path), base, text, space, epochs_per_trial=1, objective=objective)
    assert not (tmp_path / "agent").exists()


def test_a_trials_gin_binds_its_values_after_the_base(smoke):
    base, text = smoke
    run_gin = trial_gin(text, "3", {"polyak": 0.9, "final_layer_init": "he_uniform"}, 2)
    gin.parse_config(run_gin)
    config = TrainConfig()
    assert (config.polyak, config.final_layer_init) == (0.9, "he_uniform")
    assert config.architecture == "fc"  # from the base
    assert gin.query_parameter("train_eval.num_epochs") == 2


def test_the_objective_comes_from_the_last_record_or_an_evaluation():
    record = {"eval_train_success": 0.25, "eval_train_success_go": 0.75}
    evaluation = {"train_success": 0.3, "train_per_predicate": {"Go": 0.8}}
    assert objective_value("train_success", record) == 0.25
    assert objective_value("train_success_go", record) == 0.75
    assert objective_value("train_success", record, evaluation) == 0.3
    assert objective_value("train_success_go", record, evaluation) == 0.8


def test_a_reward_model_setting_is_searched_by_its_flat_key(smoke):
    from imagine_tf.tuning.agent_tuning import agent_hyperparameters

    base, text = smoke
    flat = {"reward_model.learning_rate": (1e-3, 3e-3)}
    earlier = {"reward_learning_rate": (1e-3, 3e-3)}  # the name before it was nested
    for space in (flat, earlier):
        hyperparameters = agent_hyperparameters(space, base)
        assert [hp.name for hp in hyperparameters.space] == ["reward_model.learning_rate"]
    run_gin = trial_gin(text, "1", {"reward_model.learning_rate": 3e-3, "polyak": 0.9}, 1)
    assert "RewardModelConfig.learning_rate = 0.003" in run_gin
    gin.parse_config(run_gin)
    config = TrainConfig()
    assert (config.reward_model.learning_rate, config.polyak) == (3e-3, 0.9)


def test_a_search_recorded_with_flat_reward_settings_compares_equal(smoke):
    import dataclasses

    from imagine_tf.tuning.agent_tuning import comparable_search
    from tests.configs.earlier_layout import earlier_layout

    base, _ = smoke
    now = json.loads(json.dumps({"search_space": SPACE, "base_config": dataclasses.asdict(base)}))
    earlier = {**now, "base_config": earlier_layout(now["base_config"])}
    assert "reward_patience" in earlier["base_config"]
    assert comparable_search(earlier) == comparable_search(now)
    changed = {**now, "search_space": {"reward_learning_rate": [1e-3, 3e-3]}}
    assert comparable_search(changed) != comparable_search(now)
    assert list(comparable_search(changed)["search_space"]) == ["reward_model.learning_rate"]
