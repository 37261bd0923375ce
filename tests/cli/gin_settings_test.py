"""Model and training settings on the command line: gin bindings, the errors that name them
for flags that are gin settings, and configs that include their base from any directory."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_reward_settings_spell_the_networks_choices_out():
    from imagine_tf.data.supervised import GOAL_SETS
    from imagine_tf.reward.network import ARCHITECTURES, PAIR_GATES
    from imagine_tf.reward import config as reward_config

    # reward_config spells them out so as not to import TensorFlow
    assert reward_config.ARCHITECTURES == ARCHITECTURES and reward_config.PAIR_GATES == PAIR_GATES
    for gate in PAIR_GATES:
        assert reward_config.RewardTrainConfig(pair_gate=gate).pair_gate == gate
    with pytest.raises(ValueError, match="pair_gate must be one of"):
        reward_config.RewardTrainConfig(pair_gate="nope")
    with pytest.raises(ValueError, match="goal_set must be one of"):
        reward_config.RewardTrainConfig(goal_set=GOAL_SETS[0] + "s")


def _cli(*argv, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "imagine_tf.cli.main", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_help_of_train_and_reward_study_lists_the_gin_settings():
    train = _cli("train", "--help")
    assert (
        train.returncode == 0 and "--gin-file" in train.stdout and "--gin-binding" in train.stdout
    )
    study = _cli("reward", "study", "--help")
    assert study.returncode == 0 and "--arch" not in study.stdout.split("Model and training")[0]
    assert "RewardStudyConfig.architectures = ('ma', 'fa', 'fc')" in study.stdout
    assert "--pair-relations" in study.stdout and "RewardTrainConfig.pair_relations" in study.stdout


@pytest.mark.parametrize(
    "argv, binding",
    [
        (
            ["reward", "study", "--root-dir", "r", "--arch", "ma", "fa"],
            "RewardStudyConfig.architectures = ('ma', 'fa', 'fc')",
        ),
        (
            ["reward", "study", "--root-dir", "r", "--normalize-goal"],
            "RewardTrainConfig.normalize_goal = True",
        ),
        (
            ["reward", "train", "--root-dir", "r", "--max-epochs", "3"],
            "RewardTrainConfig.max_epochs = 100",
        ),
        (["reward", "train", "--root-dir", "r", "--seed", "3"], "RewardTrainConfig.seed = 1"),
    ],
)
def test_a_model_flag_is_an_error_naming_its_gin_binding(argv, binding):
    process = _cli(*argv)
    flag = next(a for a in argv if a.startswith("--") and a != "--root-dir")
    assert process.returncode == 2 and "Traceback" not in process.stderr
    assert f'{flag} is a gin setting: use --gin-binding "{binding}"' in process.stderr


def test_a_config_includes_its_base_from_another_working_directory(tmp_path, monkeypatch, capsys):
    """In this process (TensorFlow loads once), from another working directory; the binding is
    refused after the config (and its include) parsed: nothing trains."""
    import gin

    from imagine_tf.cli.main import main

    monkeypatch.chdir(tmp_path)
    argv = ["train", "--root-dir", str(tmp_path / "run"), "--gin-binding", "DdpgAgent.gamma = 0.5"]
    for gin_file in ("configs/agent/ma.gin", str(ROOT / "configs" / "agent" / "quickstart.gin")):
        try:
            code = main([*argv, "--gin-file", gin_file])
        finally:
            gin.clear_config()
        err = capsys.readouterr().err
        assert code == 2 and "Unable to open" not in err
        assert "DdpgAgent.gamma has no effect" in err and "TrainConfig.gamma" in err
    # A missing file, in a process of its own (gin's resource reader fails differently once
    # other files were parsed in the process).
    process = _cli(*argv[:3], "--gin-file", "configs/nothing.gin", cwd=tmp_path)
    assert process.returncode == 2 and "bad gin configuration" in process.stderr


def test_a_recorded_command_line_splits_back_into_its_arguments():
    import argparse
    import shlex

    from imagine_tf.cli.common import command_line

    bindings = ["RewardTrainConfig.architecture = 'fc'", 'make_env.name = "a $b"']
    args = argparse.Namespace(
        gin_file=["configs/my runs.gin"],
        gin_binding=bindings,
        root_dir="runs/a b",
        seeds=[0, 1],
        threads=None,
    )
    line = command_line("reward study", args, ("root_dir", "seeds"), ("threads",))
    assert line.startswith("imagine-tf reward study --root-dir 'runs/a b' --seeds 0 1 ")
    assert "--gin-binding \"RewardTrainConfig.architecture = 'fc'\"" in line  # readable quotes
    assert "threads" not in line
    assert shlex.split(line) == [
        "imagine-tf",
        "reward",
        "study",
        "--root-dir",
        "runs/a b",
        "--seeds",
        "0",
        "1",
        "--gin-file",
        "configs/my runs.gin",
        "--gin-binding",
        bindings[0],
        "--gin-binding",
        bindings[1],
    ]
