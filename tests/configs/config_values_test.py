"""Each configs/*.gin, composed with ``include`` from configs/base/, makes exactly the values of
the runs it stands for: every field of its `TrainConfig` / `RewardTrainConfig` / `make_env`,
parsed from the repository root and from another working directory."""

import dataclasses
import inspect
import json
import pathlib

import gin
import pytest

from imagine_tf import playground
from imagine_tf.training import train_eval  # noqa: F401 - registers train_eval
from imagine_tf.agent.config import TrainConfig
from imagine_tf.runs.config_files import parse_config_files
from imagine_tf.runs.config_keys import flat_config
from imagine_tf.reward.config import RewardStudyConfig, reward_train_config

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The reference's run (configs/agent/ma.gin), every field (flat keys, `config_keys`; tuples as
# lists).
AGENT = {
    "architecture": "ma",
    "reward": "learned",
    "reward_model.architecture": "ma",
    "reward_model.learning_rate": 0.001,
    "reward_model.batch_size": 512,
    "reward_model.batches_per_epoch": 200,
    "reward_model.max_epochs": 100,
    "reward_model.patience": 15,
    "reward_model.positive_ratio": 0.2,
    "reward_model.hidden_units": 100,
    "reward_model.normalize_goal": False,
    "reward_model.aggregation": "or",
    "reward_model.pair_gate": "per_slot",
    "reward_model.pair_relations": False,
    "reward_model.validation_fraction": 0.1,
    "reward_model.max_held_out": 120,
    "reward_model.seed": 0,
    "reward_model.max_training_seconds": None,
    "num_objects": 3,
    "min_objects": None,
    "episodes_per_cycle": 12,
    "cycles_per_epoch": 50,
    "updates_per_cycle": 50,
    "batch_size": 256,
    "num_candidates": 50,
    "exploit_probability": 0.1,
    "goal_predicates": ["Go", "Grasp", "Grow"],
    "actor_learning_rate": 0.001,
    "critic_learning_rate": 0.001,
    "gamma": 0.98,
    "polyak": 0.95,
    "target_update_period": 50,
    "action_l2": 1.0,
    "noise_stddev": 0.2,
    "random_action_probability": 0.3,
    "clip_targets": True,
    "hidden_units": 256,
    "reward_update_every": 2,
    "final_layer_init": "small_uniform",
    "compute_dtype": "float32",
    "final_goal_ratio": 0.0,
    "imagination": "none",
    "imagination_start": 10,
    "imagined_target_probability": 0.5,
    "imagined_candidate_share": 0.5,
    "imagined_replay_checks": 50,
    "max_imagined_goals": 512,
    "replay_capacity": 50000,
    "memory_capacity": 50000,
    "queue_cycles": 2,
    "seed": 0,
    "train_eval.num_epochs": 167,
}
FINAL_GOAL = {"final_layer_init": "he_uniform", "compute_dtype": "auto", "final_goal_ratio": 0.5}
IMAGINE = {"final_layer_init": "he_uniform", "imagination": "cgh"}
AGENT_CONFIGS = {
    "agent/ma.gin": {},
    "agent/fa.gin": {"architecture": "fa"},
    "agent/fc.gin": {"architecture": "fc"},
    "agent/ma_oracle.gin": {"reward": "oracle"},
    "agent/ma_final_goal.gin": FINAL_GOAL,
    "agent/quickstart.gin": {
        **FINAL_GOAL,
        "updates_per_cycle": 20,
        "reward_model.batches_per_epoch": 100,
        "reward_model.max_epochs": 20,
        "reward_model.patience": 5,
        "train_eval.num_epochs": 16,
    },
    "studies/imagination.gin": {
        **FINAL_GOAL,
        "compute_dtype": "float32",
        "cycles_per_epoch": 10,
        "updates_per_cycle": 20,
        "reward_model.batches_per_epoch": 100,
        "reward_model.max_epochs": 20,
        "reward_model.patience": 5,
        "train_eval.num_epochs": 30,
    },
    "studies/imagination_preregistered.gin": {
        **IMAGINE,
        "final_goal_ratio": 0.5,
        "compute_dtype": "float32",
        "train_eval.num_epochs": 30,
    },
    "agent/imagine.gin": IMAGINE,
    "agent/imagine_none.gin": {**IMAGINE, "imagination": "none"},
    "agent/imagine_final_goal.gin": {**IMAGINE, "final_goal_ratio": 0.5},
    "agent/smoke.gin": {
        "architecture": "fc",
        "reward": "oracle",
        "episodes_per_cycle": 8,
        "cycles_per_epoch": 10,
        "updates_per_cycle": 40,
        "batch_size": 128,
        "num_candidates": 10,
        "goal_predicates": ["Go"],
        "final_goal_ratio": 0.5,
        "replay_capacity": 1000,
        "memory_capacity": 1000,
        "train_eval.num_epochs": 2,
    },
}

# The paper's supervised reward run, every field (learning rate: None = per architecture).
REWARD = {
    "architecture": "ma",
    "goal_set": "one_object",
    "learning_rate": None,
    "batch_size": 512,
    "batches_per_epoch": 200,
    "max_epochs": 100,
    "patience": 15,
    "positive_ratio": 0.2,
    "hidden_units": 100,
    "normalize_goal": False,
    "aggregation": "or",
    "pair_gate": "per_slot",
    "pair_relations": False,
    "validation_fraction": 0.1,
    "max_held_out": 120,
    "seed": 0,
    "max_training_seconds": None,
    "max_train_episodes": None,
    "max_test_episodes": None,
}
MA_PAIRS = {
    "architecture": "ma_pairs",
    "goal_set": "all",
    "learning_rate": 1e-3,
    "normalize_goal": True,
    "pair_relations": True,
}
RELATIONS_STUDY = {**MA_PAIRS, "validation_fraction": 0.04, "max_test_episodes": 1000}
# The two-object variants: the paper's MA-pairs at the relations study's validation and test sizes.
TWO_OBJECT_STUDY = {
    "architecture": "ma_pairs",
    "goal_set": "all",
    "validation_fraction": 0.04,
    "max_test_episodes": 1000,
}
REWARD_CONFIGS = {  # {name: (RewardTrainConfig differences, RewardStudyConfig)}
    "reward/ma.gin": ({"learning_rate": 1e-3}, RewardStudyConfig()),
    "reward/fa.gin": ({"architecture": "fa", "learning_rate": 1e-4}, RewardStudyConfig()),
    "reward/fc.gin": ({"architecture": "fc", "learning_rate": 1e-4}, RewardStudyConfig()),
    "reward/ma_pairs.gin": (MA_PAIRS, RewardStudyConfig()),
    "studies/reward_generalization.gin": ({}, RewardStudyConfig(("ma", "fa", "fc"))),
    "studies/reward_two_object.gin": (
        {"architecture": "ma_pairs", "goal_set": "all"},
        RewardStudyConfig(),
    ),
    "studies/reward_two_object_relations.gin": (RELATIONS_STUDY, RewardStudyConfig()),
    "studies/reward_two_object_relations_x5.gin": (RELATIONS_STUDY, RewardStudyConfig((), 5)),
    "studies/reward_generalization_ma_norm.gin": (
        {"normalize_goal": True},
        RewardStudyConfig(("ma",)),
    ),
    "studies/reward_two_object_baseline.gin": (TWO_OBJECT_STUDY, RewardStudyConfig()),
    "studies/reward_two_object_shared_gate.gin": (
        {**TWO_OBJECT_STUDY, "pair_gate": "shared", "normalize_goal": True},
        RewardStudyConfig(),
    ),
    "studies/reward_two_object_residual_gate.gin": (
        {**TWO_OBJECT_STUDY, "pair_gate": "residual", "normalize_goal": True},
        RewardStudyConfig(),
    ),
    "studies/reward_two_object_relations_no_norm.gin": (
        {**RELATIONS_STUDY, "normalize_goal": False},
        RewardStudyConfig(),
    ),
    "studies/reward_two_object_relations_x3.gin": (RELATIONS_STUDY, RewardStudyConfig((), 3)),
}

# The searches: their base configuration and their space.
TUNE_CONFIGS = {
    "tuning/reward_ma.gin": (
        {"learning_rate": 1e-3},
        {"learning_rate": [1e-3, 3e-3], "normalize_goal": [False, True]},
    ),
    "tuning/agent_quickstart.gin": (
        AGENT_CONFIGS["agent/quickstart.gin"],
        {
            "actor_learning_rate": {"min": 1e-4, "max": 3e-3, "sampling": "log"},
            "critic_learning_rate": {"min": 1e-4, "max": 3e-3, "sampling": "log"},
            "polyak": {"min": 0.9, "max": 0.99},
            "final_goal_ratio": {"min": 0.0, "max": 0.8},
        },
    ),
}

PLAYGROUND = {
    "batch_size": 1,
    "num_objects": 3,
    "seed": None,
    "split": "train",
    "relational": False,
    "reward": "none",
    "distractor_sampling": None,
    "object_init_range": 1.0,
    "episode_length": 50,
    "world": "default",
}
PLAYGROUND_CONFIGS = {
    "world/playground.gin": {"distractor_sampling": "uniform_types"},
    "world/playground_many_objects.gin": {
        "num_objects": 10,
        "distractor_sampling": "category_first",
    },
    "world/playground_authors.gin": {"world": "authors"},
}


pytestmark = pytest.mark.usefixtures("clear_gin")


def kinds_of_configs() -> list[pathlib.Path]:
    """configs/<kind>/*.gin: what `imagine-tf` runs (base/ is included, experiments/ are grids)."""
    return sorted(
        p
        for p in (ROOT / "configs").glob("*/*.gin")
        if p.parent.name not in ("base", "experiments")
    )


def test_every_config_has_its_expected_values():
    configs = {str(p.relative_to(ROOT / "configs")) for p in kinds_of_configs()}
    expected = set(AGENT_CONFIGS) | set(REWARD_CONFIGS) | set(PLAYGROUND_CONFIGS)
    assert configs == expected | set(TUNE_CONFIGS)


@pytest.fixture(params=["repository", "elsewhere"])
def working_directory(request, tmp_path, monkeypatch):
    """Parses from the repository root, or from another directory."""
    monkeypatch.chdir(ROOT if request.param == "repository" else tmp_path)


@pytest.mark.parametrize("name", sorted(AGENT_CONFIGS))
def test_an_agent_config_makes_its_train_config(name, working_directory):
    parse_config_files([f"configs/{name}"])
    values = flat_config(json.loads(json.dumps(dataclasses.asdict(TrainConfig()))))
    values["train_eval.num_epochs"] = gin.query_parameter("train_eval.num_epochs")
    assert values == {**AGENT, **AGENT_CONFIGS[name]}


@pytest.mark.parametrize("name", sorted(REWARD_CONFIGS))
def test_a_reward_config_makes_its_reward_configs(name, working_directory):
    parse_config_files([ROOT / "configs" / name])
    differences, study = REWARD_CONFIGS[name]
    assert dataclasses.asdict(reward_train_config()) == {**REWARD, **differences}
    assert RewardStudyConfig() == study


@pytest.mark.parametrize("name", sorted(TUNE_CONFIGS))
def test_a_tune_config_makes_its_base_and_its_space(name, working_directory):
    from imagine_tf.tuning.config import AgentSearchSpace, RewardSearchSpace

    parse_config_files([f"configs/{name}"])
    differences, space = TUNE_CONFIGS[name]
    if name.startswith("tuning/reward"):
        assert dataclasses.asdict(reward_train_config()) == {**REWARD, **differences}
        searched = RewardSearchSpace().hyperparameters
    else:
        values = flat_config(json.loads(json.dumps(dataclasses.asdict(TrainConfig()))))
        values["train_eval.num_epochs"] = gin.query_parameter("train_eval.num_epochs")
        assert values == {**AGENT, **differences}
        searched = AgentSearchSpace().hyperparameters
    assert json.loads(json.dumps(searched)) == space


@pytest.mark.parametrize("name", sorted(PLAYGROUND_CONFIGS))
def test_a_playground_config_makes_its_environment_arguments(name, working_directory):
    parse_config_files([f"configs/{name}"])
    values = {}
    for argument, parameter in inspect.signature(playground.make_env).parameters.items():
        try:
            values[argument] = gin.query_parameter(f"make_env.{argument}")
        except ValueError:  # not bound: the default
            values[argument] = parameter.default
    assert values == {**PLAYGROUND, **PLAYGROUND_CONFIGS[name]}


def test_each_config_states_what_it_is_and_the_command_that_runs_it():
    for path in kinds_of_configs():
        header = []
        for line in path.read_text().splitlines():
            if not line.startswith("#"):
                break
            header.append(line)
        assert 1 <= len(header) <= 3, path.name
        assert any(
            line.startswith("#   imagine-tf ") and path.name in line for line in header
        ), path.name
