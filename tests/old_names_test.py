"""Module names of earlier versions stay importable (imagine_tf/old_names.py), and the config
files that runs stored with them still parse (tests/configs/stored/)."""

import importlib
import pathlib

import gin
import pytest

from imagine_tf.old_names import MOVED
from imagine_tf.runs.config_files import parse_config_files

STORED = pathlib.Path(__file__).resolve().parent / "configs" / "stored"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_name_is_the_module_that_holds_its_code_now(old):
    module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert module.__spec__.name == MOVED[old]  # the module keeps its own spec


def test_from_an_old_name_import_a_name():
    from imagine_tf.agent.config import TrainConfig
    from imagine_tf.training.config import TrainConfig as OldTrainConfig

    assert OldTrainConfig is TrainConfig


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
