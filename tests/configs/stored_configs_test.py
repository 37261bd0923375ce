"""The configs that run directories store still parse and resume: an agent run's config.gin and
config.json written without the newer `TrainConfig` fields (its reward settings flat, as before
`RewardModelConfig`), and a reward run's operative config that binds
``train_reward_model.<field>``."""

import json

import gin
import pytest

from imagine_tf.cli.main import main
from imagine_tf.agent.config import TrainConfig
from imagine_tf.reward.config import RewardTrainConfig, reward_train_config
from imagine_tf.runs.config_files import parse_config_files
from imagine_tf.runs.config_keys import flat_config
from tests.configs.earlier_layout import earlier_layout

# An agent run's config.gin as `imagine-tf train` writes it (gin.config_str()), tiny sizes.
AGENT_RUN_GIN = """import imagine_tf.training.train_eval

# Parameters for train_eval:
# ==============================================================================
train_eval.demo_goals = ['Go left']
train_eval.num_epochs = 1

# Parameters for TrainConfig:
# ==============================================================================
TrainConfig.architecture = 'fc'
TrainConfig.batch_size = 8
TrainConfig.compute_dtype = 'float32'
TrainConfig.cycles_per_epoch = 2
TrainConfig.episodes_per_cycle = 2
TrainConfig.final_goal_ratio = 0.5
TrainConfig.memory_capacity = 50
TrainConfig.num_candidates = 5
TrainConfig.replay_capacity = 50
TrainConfig.reward = 'oracle'
TrainConfig.reward_patience = 3
TrainConfig.updates_per_cycle = 1
"""
# Fields a stored config.json may lack (they take their defaults, the values of those runs).
NEWER_FIELDS = (
    "clip_targets",
    "hidden_units",
    "reward_batch_size",
    "reward_learning_rate",
    "reward_positive_ratio",
)

# A reward run's operative_config.gin as `imagine-tf reward train` wrote it.
REWARD_OPERATIVE_GIN = """import imagine_tf.training.reward_recipe

# Parameters for train_reward_model:
# ==============================================================================
train_reward_model.architecture = 'ma_pairs'
train_reward_model.batch_size = 512
train_reward_model.batches_per_epoch = 200
train_reward_model.goal_set = 'all'
train_reward_model.hidden_units = 100
train_reward_model.learning_rate = 0.001
train_reward_model.max_epochs = 100
train_reward_model.max_test_episodes = None
train_reward_model.max_train_episodes = None
train_reward_model.max_training_seconds = None
train_reward_model.normalize_goal = True
train_reward_model.pair_gate = 'per_slot'
train_reward_model.pair_relations = True
train_reward_model.patience = 15
train_reward_model.positive_ratio = 0.2
train_reward_model.progress = True
train_reward_model.seed = 3
"""


pytestmark = pytest.mark.usefixtures("clear_gin")


def test_an_agent_run_with_a_stored_config_resumes_with_no_gin_flags(tmp_path, capsys):
    parse_config_files([], [AGENT_RUN_GIN])  # as `train` reads it: the flat names renamed
    stored = earlier_layout(json.loads(TrainConfig().to_json()))
    assert stored["reward_patience"] == 3
    gin.clear_config()
    for field in NEWER_FIELDS:
        del stored[field]
    (tmp_path / "config.json").write_text(json.dumps(stored))
    (tmp_path / "config.gin").write_text(AGENT_RUN_GIN)
    code = main(["train", "--root-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "resuming" in err and json.loads(out)["epoch"] == 1
    written = flat_config(json.loads((tmp_path / "config.json").read_text()))
    earlier = flat_config(stored)  # "reward_patience" is "reward_model.patience"
    assert {k: written[k] for k in earlier} == earlier and written["hidden_units"] == 256
    assert written["reward_model.batch_size"] == 512


def test_a_reward_runs_operative_config_parses_into_its_reward_config():
    parse_config_files([], [REWARD_OPERATIVE_GIN])  # its old module name read as today's
    config = reward_train_config()
    assert config == RewardTrainConfig(
        architecture="ma_pairs",
        goal_set="all",
        learning_rate=1e-3,
        normalize_goal=True,
        pair_relations=True,
        seed=3,
    )


def test_the_reward_config_name_wins_over_the_stored_name():
    parse_config_files([], [REWARD_OPERATIVE_GIN])
    gin.parse_config("RewardTrainConfig.seed = 7")  # e.g. a --gin-binding after the file
    assert reward_train_config().seed == 7
    assert reward_train_config(seed=9).seed == 9  # the caller wins over both


def test_a_stored_name_that_is_no_setting_is_refused_naming_the_settings():
    import imagine_tf.reward.config  # noqa: F401 - registers train_reward_model

    gin.parse_config("train_reward_model.arch = 'ma'")
    with pytest.raises(ValueError, match="train_reward_model.arch is not a reward setting"):
        reward_train_config()
