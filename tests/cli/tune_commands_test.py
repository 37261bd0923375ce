"""`imagine-tf tune reward | agent` (and `reward tune`): help, a tiny agent search, errors."""

import json

import gin
import pytest

from imagine_tf.cli.main import main

TINY = [
    "TrainConfig.episodes_per_cycle = 4",
    "TrainConfig.cycles_per_epoch = 2",
    "TrainConfig.updates_per_cycle = 2",
    "TrainConfig.batch_size = 16",
]


pytestmark = pytest.mark.usefixtures("clear_gin")  # tests/conftest.py


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv", [["tune"], ["tune", "reward"], ["tune", "agent"], ["reward", "tune"]]
)
def test_help_gives_examples(capsys, argv):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    out = capsys.readouterr().out
    assert exit_info.value.code == 0 and "examples:" in out and "imagine-tf tune" in out


def test_a_tiny_agent_search_writes_a_report_and_ordinary_runs(capsys, tmp_path):
    bindings = [arg for binding in TINY for arg in ("--gin-binding", binding)]
    out_file = tmp_path / "results" / "agent_tune.json"
    argv = [
        "tune",
        "agent",
        "--gin-file",
        "configs/agent/smoke.gin",
        *bindings,
        "--max-trials",
        "1",
        "--epochs-per-trial",
        "1",
        "--root-dir",
        str(tmp_path / "tune"),
        "--out",
        str(out_file),
    ]
    code, out, _ = run(capsys, *argv)
    report = json.loads(out_file.read_text())
    assert code == 0 and "rank 1 of 1" in out and "No trial beats it" in out
    assert report["command"].startswith("imagine-tf tune agent --gin-file configs/agent/smoke.gin")
    assert report["default"]["rank"] == 1 and report["budget"]["epochs_per_trial"] == 1
    gin.clear_config()
    run_dir = tmp_path / "tune" / "agent" / "trial_0" / "run"
    code, out, err = run(capsys, "train", "--root-dir", str(run_dir))  # its own config.gin
    assert code == 0 and json.loads(out)["note"] == "already trained" and "config.gin" in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--objective", "test_success"], "never selects on test goals"),
        (["--tuner", "hyperband"], "different numbers of epochs"),
        (["--gin-binding", "AgentSearchSpace.hyperparameters = {'seed': (0, 1)}"], "cannot change"),
        (["--gin-binding", "AgentSearchSpace.hyperparameters = {'polyak': 0.9}"], "a tuple of"),
    ],
)
def test_agent_search_errors(capsys, tmp_path, extra, message):
    argv = [
        "tune",
        "agent",
        "--gin-file",
        "configs/agent/smoke.gin",
        "--epochs-per-trial",
        "1",
        "--root-dir",
        str(tmp_path),
        *extra,
    ]
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and not (tmp_path / "agent").exists()


def test_reward_search_errors(capsys, tmp_path):
    space = "RewardSearchSpace.hyperparameters = {'max_epochs': (10, 100)}"
    code, _, err = run(
        capsys,
        "tune",
        "reward",
        "--gin-binding",
        space,
        "--root-dir",
        str(tmp_path),
        "--dataset-dir",
        str(tmp_path / "none"),
    )
    assert code == 2 and "cannot change" in err  # the space is checked before the data
    gin.clear_config()
    code, _, err = run(
        capsys,
        "tune",
        "reward",
        "--root-dir",
        str(tmp_path),
        "--dataset-dir",
        str(tmp_path / "none"),
    )
    assert code == 2 and "imagine-tf dataset build" in err
    with pytest.raises(SystemExit):
        main(["reward", "tune", "--arch", "fc", "--root-dir", str(tmp_path)])
    assert "configs/reward/ma.gin" in capsys.readouterr().err
