"""Module names of earlier versions in stored configs import today's modules as the configs are
parsed (imagine_tf/old_names.py; Python's import system is left alone), the config files that
runs stored with them still parse (tests/configs/stored/), and the flat reward settings of
earlier `TrainConfig`s bind and load as the nested `RewardModelConfig`."""

import dataclasses
import importlib
import json
import pathlib

import gin
import pytest

from imagine_tf.old_names import MOVED, MOVED_BINDINGS, renamed_bindings, renamed_imports
from imagine_tf.runs.config_files import parse_config_files

STORED = pathlib.Path(__file__).resolve().parent / "configs" / "stored"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_name_in_a_config_imports_the_module_now(old, tmp_path, clear_gin):
    gin_file = tmp_path / "old.gin"
    gin_file.write_text(f"import {old}  # a stored run's line\n")
    parse_config_files([gin_file])  # gin imports the line's module: the new one
    assert renamed_imports(f"import {old}") == f"import {MOVED[old]}"
    assert importlib.import_module(MOVED[old])


def test_import_imagine_tf_adds_no_finder_for_old_names():
    import subprocess
    import sys

    script = (
        "import sys; before = list(sys.meta_path); import imagine_tf; "
        "print(any('OldNames' in type(f).__name__ for f in sys.meta_path)); "
        "import importlib.util; print(importlib.util.find_spec('imagine_tf.training.config'))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.stdout.split() == ["False", "None"], out.stderr[-2000:]


@pytest.mark.parametrize("name", ["imagination_cgh_run.gin", "tuning_trial_run.gin"])
def test_a_stored_agent_run_config_parses_and_binds_its_values(name, clear_gin):
    from imagine_tf.agent.config import TrainConfig

    parse_config_files([STORED / name])
    config = TrainConfig()
    stored = (STORED / name).read_text()
    assert f"TrainConfig.architecture = '{config.architecture}'" in stored
    assert f"TrainConfig.batch_size = {config.batch_size}" in stored


def test_a_stored_reward_run_operative_config_parses(clear_gin):
    import tf_agents.policies.actor_policy  # noqa: F401  (its configurables are bound there)

    from imagine_tf.reward.config import reward_train_config

    parse_config_files([STORED / "reward_run_operative.gin"])
    stored = (STORED / "reward_run_operative.gin").read_text()
    config = reward_train_config()
    assert f"RewardTrainConfig.architecture = '{config.architecture}'" in stored
    assert f"train_reward_model.batch_size = {config.batch_size}" in stored


def test_a_config_importing_old_names_parses(tmp_path, clear_gin):
    gin_file = tmp_path / "old.gin"
    gin_file.write_text(
        "import imagine_tf.training.config\n"
        "import imagine_tf.training.reward_config\n"
        "import imagine_tf.agents.ddpg_agent\n"
        "TrainConfig.batch_size = 7\n"
        "RewardTrainConfig.max_epochs = 3\n"
    )
    parse_config_files([gin_file])
    assert gin.query_parameter("TrainConfig.batch_size") == 7
    assert gin.query_parameter("RewardTrainConfig.max_epochs") == 3


def test_a_config_path_of_before_the_folders_per_kind_reads_the_file_there_now(clear_gin):
    from imagine_tf.agent.config import TrainConfig
    from imagine_tf.old_names import MOVED_CONFIG_FILES

    root = pathlib.Path(__file__).resolve().parents[1]
    assert all((root / new).is_file() for new in MOVED_CONFIG_FILES.values())
    assert not any((root / old).exists() for old in MOVED_CONFIG_FILES)
    parse_config_files(["configs/smoke.gin"])
    assert TrainConfig().goal_predicates == ("Go",)


# -- the reward model's settings, flat in TrainConfig before they were nested -------------------
QUICKSTART_MODEL = {"batches_per_epoch": 100, "max_epochs": 20, "patience": 5}


def test_a_stored_flat_config_gin_binds_the_nested_reward_model(clear_gin):
    from imagine_tf.agent.config import TrainConfig
    from imagine_tf.reward.config import RewardModelConfig

    stored = (STORED / "quickstart_run.gin").read_text()
    assert "TrainConfig.reward_max_epochs = 20" in stored  # the old names
    parse_config_files([STORED / "quickstart_run.gin"])
    assert TrainConfig().reward_model == RewardModelConfig(**QUICKSTART_MODEL)
    assert gin.query_parameter("RewardModelConfig.max_epochs") == 20
    gin.clear_config()
    parse_config_files(["configs/agent/quickstart.gin"])  # the new names: the same values
    assert TrainConfig().reward_model == RewardModelConfig(**QUICKSTART_MODEL)


def test_a_stored_flat_config_json_loads_into_the_nested_reward_model():
    from imagine_tf.agent.config import TrainConfig, config_differences
    from imagine_tf.reward.config import RewardModelConfig

    text = (STORED / "quickstart_run_config.json").read_text()
    assert '"reward_max_epochs": 20' in text
    config = TrainConfig.from_json(text)
    assert config.reward_model == RewardModelConfig(**QUICKSTART_MODEL)
    assert (config.reward_update_every, config.final_goal_ratio) == (2, 0.5)
    assert config_differences(json.loads(text), config) == {}
    again = TrainConfig.from_json(config.to_json())  # the nested layout, written and read
    assert again == config and "reward_max_epochs" not in config.to_json()
    changed = dataclasses.replace(config, reward_model=RewardModelConfig(max_epochs=20))
    assert config_differences(json.loads(text), changed) == {
        "reward_model.batches_per_epoch": (100, 200),
        "reward_model.patience": (5, 15),
    }


@pytest.mark.parametrize("old, new", sorted(MOVED_BINDINGS.items()))
def test_each_old_binding_name_binds_its_new_name(old, new, tmp_path, clear_gin):
    import imagine_tf.agent.config  # noqa: F401 - registers TrainConfig and RewardModelConfig

    text, value = {"architecture": ("'fc'", "fc"), "normalize_goal": ("True", True)}.get(
        new.split(".")[1], ("3", 3)
    )
    include = tmp_path / "included.gin"  # an included file, scoped, and a module-qualified name
    include.write_text(f"scoped/{old} = {text}\n")
    (tmp_path / "run.gin").write_text(f"include '{include}'\n{old} = {text}\n")
    parse_config_files([tmp_path / "run.gin"], [f"imagine_tf.agent.config.{old}= {text}"])
    assert gin.query_parameter(new) == gin.query_parameter(f"scoped/{new}") == value


def test_renamed_bindings_leave_other_text_alone():
    text = (
        "# TrainConfig.reward_patience = 5\n"
        "TrainConfig.reward_update_every = 3\n"
        "TrainConfig.reward = 'learned'\n"
        "X.s = 'TrainConfig.reward_patience = 5'\n"
    )
    assert renamed_bindings(text) == text
    assert renamed_bindings("  TrainConfig.reward_patience=5") == "  RewardModelConfig.patience=5"
