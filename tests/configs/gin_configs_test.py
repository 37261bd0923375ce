"""Every configs/*.gin parses and builds the environment it configures."""

import pathlib

import gin
import pytest

from imagine_tf import playground
from imagine_tf.runs.config_files import parse_config_files

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIGS = sorted(
    p for p in (ROOT / "configs").glob("*/*.gin") if p.parent.name not in ("base", "experiments")
)


pytestmark = pytest.mark.usefixtures("clear_gin")


def test_there_are_configs():
    assert CONFIGS


ENV_CONFIGS = [p for p in CONFIGS if p.parent.name == "world"]
REWARD_CONFIGS = [p for p in CONFIGS if p.parent.name == "reward" or p.name.startswith("reward_")]
AGENT_CONFIGS = [
    p
    for p in CONFIGS
    if p.parent.name == "agent"
    and p.name in ("ma.gin", "fa.gin", "fc.gin", "ma_oracle.gin", "ma_final_goal.gin")
]
IMAGINE_CONFIGS = [p for p in CONFIGS if p.parent.name == "agent" and p.stem.startswith("imagine")]
TUNE_CONFIGS = [p for p in CONFIGS if p.parent.name == "tuning"]


QUICKSTART = ROOT / "configs" / "agent" / "quickstart.gin"
SMOKE = ROOT / "configs" / "agent" / "smoke.gin"
IMAGINE = ROOT / "configs" / "agent" / "imagine.gin"
STUDY = ROOT / "configs" / "studies" / "imagination.gin"
PREREGISTERED = ROOT / "configs" / "studies" / "imagination_preregistered.gin"


def test_every_config_is_tested():
    tested = set(ENV_CONFIGS) | set(REWARD_CONFIGS) | set(AGENT_CONFIGS) | set(IMAGINE_CONFIGS)
    tested |= set(TUNE_CONFIGS)
    assert tested | {QUICKSTART, SMOKE, STUDY, PREREGISTERED} == set(CONFIGS)


def test_the_preregistered_study_is_imagine_with_final_goals_at_the_reference_epochs(
    tmp_path, monkeypatch
):
    import argparse

    from imagine_tf.cli.common import parse_gin
    from imagine_tf.training import train_eval

    monkeypatch.chdir(tmp_path)
    parse_gin(argparse.Namespace(gin_file=[str(PREREGISTERED)], gin_binding=[]), train_eval)
    config = train_eval.TrainConfig()
    assert (config.architecture, config.reward, config.final_goal_ratio) == ("ma", "learned", 0.5)
    assert (config.episodes_per_cycle, config.cycles_per_epoch) == (12, 50)
    assert (config.updates_per_cycle, config.batch_size, config.reward_update_every) == (50, 256, 2)
    assert (config.imagination, config.imagination_start) == ("cgh", 10)
    assert config.compute_dtype == "float32" and config.final_layer_init == "he_uniform"
    assert gin.query_parameter("train_eval.num_epochs") == 30


def test_the_imagination_study_is_the_quickstart_in_shorter_epochs(tmp_path, monkeypatch):
    import argparse

    from imagine_tf.cli.common import parse_gin
    from imagine_tf.training import train_eval

    monkeypatch.chdir(tmp_path)
    parse_gin(argparse.Namespace(gin_file=[str(STUDY)], gin_binding=[]), train_eval)
    config = train_eval.TrainConfig()
    assert (config.architecture, config.reward, config.final_goal_ratio) == ("ma", "learned", 0.5)
    assert (config.cycles_per_epoch, config.updates_per_cycle) == (10, 20)
    assert config.compute_dtype == "float32" and config.imagination == "none"
    assert gin.query_parameter("train_eval.num_epochs") == 30


def test_imagine_is_the_reference_run_with_cgh_from_epoch_10(tmp_path, monkeypatch):
    import argparse

    from imagine_tf.cli.common import parse_gin
    from imagine_tf.training import train_eval

    monkeypatch.chdir(tmp_path)
    parse_gin(argparse.Namespace(gin_file=[str(IMAGINE)], gin_binding=[]), train_eval)
    config = train_eval.TrainConfig()
    assert (config.architecture, config.reward_model.architecture, config.reward) == (
        "ma",
        "ma",
        "learned",
    )
    assert (config.imagination, config.imagination_start) == ("cgh", 10)
    assert config.imagined_target_probability == config.imagined_candidate_share == 0.5
    assert config.final_goal_ratio == 0.0 and config.final_layer_init == "he_uniform"
    assert gin.query_parameter("train_eval.num_epochs") == 167
    gin.clear_config()
    with pytest.raises(ValueError, match="TrainConfig.imagination must be one of"):
        train_eval.TrainConfig(imagination="dream")


def test_smoke_is_two_small_epochs_of_go_goals():
    from imagine_tf.agent.config import TrainConfig

    parse_config_files([SMOKE])
    config = TrainConfig()
    assert gin.query_parameter("train_eval.num_epochs") == 2
    assert config.goal_predicates == ("Go",) and config.reward == "oracle"
    assert config.cycles_per_epoch * config.updates_per_cycle <= 400
    assert config.cycles_per_epoch * config.episodes_per_cycle <= 80


def test_quickstart_is_a_short_ma_run():
    from imagine_tf.training.train_eval import TrainConfig

    parse_config_files([QUICKSTART])
    config = TrainConfig()
    assert config.architecture == "ma"
    epochs = gin.query_parameter("train_eval.num_epochs")
    updates = epochs * config.cycles_per_epoch * config.updates_per_cycle
    episodes = epochs * config.cycles_per_epoch * config.episodes_per_cycle
    # Under 4 % of the reference's 167 epochs (417,500 updates, 100,200 episodes).
    assert 0 < updates <= 16_000 and 0 < episodes <= 9_600
    # The reward model is retrained with a bounded budget: at most 2,000 batches each time.
    assert config.reward_model.max_epochs * config.reward_model.batches_per_epoch <= 2_000


@pytest.mark.parametrize("path", AGENT_CONFIGS, ids=lambda p: p.name)
def test_agent_config_binds_the_training_config(path, tmp_path, monkeypatch):
    import argparse

    from imagine_tf.cli.common import parse_gin
    from imagine_tf.training import train_eval

    monkeypatch.chdir(tmp_path)  # agent configs are self-contained: they work from any directory
    parse_gin(argparse.Namespace(gin_file=[str(path)], gin_binding=[]), train_eval)
    config = train_eval.TrainConfig()
    assert config.architecture == path.stem.split("_")[0]
    assert config.reward == ("oracle" if "oracle" in path.stem else "learned")
    assert config.final_goal_ratio == (0.5 if "final_goal" in path.stem else 0.0)
    assert gin.query_parameter("train_eval.num_epochs") == 167


@pytest.mark.parametrize("path", REWARD_CONFIGS, ids=lambda p: p.name)
def test_reward_config_builds_its_network(path):
    from imagine_tf.language.vocabulary import Vocabulary
    from imagine_tf.reward.network import RewardNetwork, example_inputs
    from imagine_tf.reward.config import RewardStudyConfig, reward_train_config

    parse_config_files([path])
    config, study = reward_train_config(), RewardStudyConfig()
    vocabulary = Vocabulary.default()
    for architecture in study.architectures_of(config):
        if path.parent.name == "reward":
            assert path.stem == architecture
        network = RewardNetwork(
            architecture,
            vocabulary.words[1:],
            vocabulary.max_length,
            normalize_goal=config.normalize_goal,
        )
        assert network(example_inputs(3, vocabulary.max_length)).shape == (1,)


@pytest.mark.parametrize("path", TUNE_CONFIGS, ids=lambda p: p.name)
def test_tune_config_declares_a_space_that_holds_its_base(path):
    from imagine_tf.agent.config import TrainConfig
    from imagine_tf.reward.config import reward_train_config
    from imagine_tf.tuning.agent_tuning import agent_hyperparameters
    from imagine_tf.tuning.config import AgentSearchSpace, RewardSearchSpace
    from imagine_tf.tuning.supervised_tuning import reward_hyperparameters

    parse_config_files([path])
    if path.stem.startswith("reward"):
        base = reward_train_config()
        hyperparameters = reward_hyperparameters(
            RewardSearchSpace().of(base.architecture), base, grid=True
        )
    else:
        hyperparameters = agent_hyperparameters(AgentSearchSpace().space(), TrainConfig())
    assert len(hyperparameters.space) >= 2


@pytest.mark.parametrize("path", ENV_CONFIGS, ids=lambda p: p.name)
def test_config_builds_the_environment(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    parse_config_files([path])
    env = playground.make_env(batch_size=2, seed=0)
    bound = gin.query_parameter("make_env.num_objects")
    assert env.config.num_objects == bound
    assert env.reset().observation["state"].shape == (2, 2 * (3 + 39 * bound))


def test_caller_arguments_win_over_bindings():
    gin.parse_config("make_env.num_objects = 7")
    assert playground.make_env(batch_size=1).config.num_objects == 7
    assert playground.make_env(batch_size=1, num_objects=2).config.num_objects == 2


def test_parsing_checks_the_bindings_and_leaves_configurables_registrable():
    with pytest.raises(ValueError, match="UNDEFINED_MACRO"):  # gin's finalize checks still run
        parse_config_files([], ["make_env.num_objects = %UNDEFINED_MACRO"])
    gin.clear_config()
    parse_config_files([], ["make_env.num_objects = 4"])
    assert not gin.config_is_locked()

    @gin.configurable  # what a module imported after the parse does (TF-Agents' specs)
    def registered_after_parsing(value=1):
        return value

    assert registered_after_parsing() == 1 and gin.query_parameter("make_env.num_objects") == 4
