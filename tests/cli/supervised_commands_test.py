"""`imagine-tf dataset build`, `reward pretrain-or`, `reward train` and `reward study` end to
end."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.cli.main_test import run


def test_pretrain_or_writes_skips_and_reports(capsys, tmp_path):
    argv = [
        "reward",
        "pretrain-or",
        "--num-inputs",
        "2",
        "--points",
        "4000",
        "--epochs",
        "1",
        "--out-dir",
        str(tmp_path),
    ]
    code, out, err = run(capsys, *argv)
    assert code == 0 and (tmp_path / "or_2.npz").exists()
    assert "accuracy" in out + err
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "exists" in out
    code, _, err = run(capsys, "reward", "pretrain-or", "--num-inputs", "1-3")
    assert code == 2 and ">= 2 inputs" in err


def test_dataset_build_and_reward_train_end_to_end(capsys, tmp_path):
    data_dir = tmp_path / "tfds"
    code, out, _ = run(capsys, "dataset", "build", "--config", "tiny", "--data-dir", str(data_dir))
    assert code == 0 and "'train': 36" in out and "'test': 4" in out
    root = tmp_path / "run"
    code, out, _ = run(
        capsys,
        "reward",
        "train",
        "--config",
        "tiny",
        "--data-dir",
        str(data_dir),
        "--root-dir",
        str(root),
        "--gin-binding",
        "RewardTrainConfig.max_epochs = 1",
        "--gin-binding",
        "RewardTrainConfig.batches_per_epoch = 2",
        "--gin-binding",
        "train_reward_model.batch_size = 32",  # the stored configs' name
    )
    import gin

    gin.clear_config()
    assert code == 0 and json.loads(out)["epochs"] == 1
    assert json.loads((root / "metrics.json").read_text())["config"]["batch_size"] == 32
    assert "RewardTrainConfig.max_epochs = 1" in (root / "operative_config.gin").read_text()
    tune_dir = tmp_path / "tune"
    code, out, _ = run(
        capsys,
        "reward",
        "tune",
        "--gin-file",
        "configs/reward/fc.gin",
        "--config",
        "tiny",
        "--data-dir",
        str(data_dir),
        "--root-dir",
        str(tune_dir),
        "--max-trials",
        "1",
        "--max-epochs",
        "1",
        "--gin-binding",
        "RewardTrainConfig.batches_per_epoch = 2",
    )
    gin.clear_config()
    assert (
        code == 0 and "validation_f1" in out and (tune_dir / "reward_fc" / "report.json").exists()
    )
    study_dir = tmp_path / "study"
    settings = [
        "RewardTrainConfig.architecture = 'fc'",
        "RewardTrainConfig.patience = 3",
        "RewardTrainConfig.max_training_seconds = 0.01",
    ]
    study = [
        "reward",
        "study",
        "--seeds",
        "0",
        "1",
        "--config",
        "tiny",
        "--data-dir",
        str(data_dir),
        "--root-dir",
        str(study_dir),
        *[f"--gin-binding={binding}" for binding in settings],
    ]
    code, out, _ = run(capsys, *study)
    gin.clear_config()
    assert code == 0 and "| fc | 2 |" in out
    first = (study_dir / "fc_s0" / "metrics.json").stat().st_mtime_ns
    assert json.loads((study_dir / "fc_s0" / "metrics.json").read_text())["config"]["patience"] == 3
    assert run(capsys, *study)[0] == 0  # resumes: finished runs are not retrained
    gin.clear_config()
    assert (study_dir / "fc_s0" / "metrics.json").stat().st_mtime_ns == first
    report_file, plot_file = tmp_path / "reward_f1.json", tmp_path / "reward_f1.png"
    code, out, _ = run(
        capsys,
        "reward",
        "report",
        "--root-dir",
        str(study_dir),
        "--out",
        str(report_file),
        "--plot",
        str(plot_file),
    )
    report = json.loads(report_file.read_text())
    assert code == 0 and [r["seed"] for r in report["runs"]] == [0, 1]
    assert report["mean_std"]["fc"]["seeds"] == 2 and report["command"].startswith(
        "imagine-tf reward report"
    )
    assert report["runs"][0]["command"].startswith(
        f"imagine-tf reward study --root-dir {study_dir} --seeds 0 1 --gin-binding "
        "\"RewardTrainConfig.architecture = 'fc'\""
    )
    assert plot_file.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    train_f1 = [r["one_object_train"] for r in report["runs"]]
    assert report["mean_std"]["fc"]["one_object_train"]["std"] == pytest.approx(
        float(np.std(train_f1, ddof=1))  # the sample std, as every report
    )
    again = tmp_path / "again.json"  # an earlier report alone, aggregated again
    assert (
        run(capsys, "reward", "report", "--include", str(report_file), "--out", str(again))[0] == 0
    )
    assert json.loads(again.read_text())["mean_std"] == report["mean_std"]
    code, _, err = run(capsys, "reward", "report")
    assert code == 2 and "--include" in err
    seed_0 = [a for a in study if a != "1"]  # seed 0 of ensembles of 2: members 0, 1
    code, out, _ = run(capsys, *seed_0, "--gin-binding", "RewardStudyConfig.ensemble_size = 2")
    gin.clear_config()
    assert code == 0 and "| fc x2 | 1 |" in out
    assert (study_dir / "fc_s0" / "metrics.json").stat().st_mtime_ns == first
    ensemble = json.loads((study_dir / "fc_x2_s0" / "metrics.json").read_text())
    assert [m["seed"] for m in ensemble["members"]] == [0, 1]
    code, _, err = run(capsys, "reward", "report", "--root-dir", str(tmp_path / "empty"))
    assert code == 2 and "reward study" in err
    code, _, err = run(
        capsys,
        "reward",
        "train",
        "--root-dir",
        str(root),
        "--config",
        "nope",
        "--data-dir",
        str(data_dir),
    )
    assert code == 2 and "dataset build" in err
    code, _, err = run(capsys, "dataset", "build", "--config", "nope", "--data-dir", str(data_dir))
    assert code == 2 and "Unknown dataset config" in err


def test_an_ensemble_study_with_gin_bindings_runs_in_a_fresh_process(tmp_path):
    """A fresh process imports TF-Agents only to score the ensemble, after gin has parsed the
    bindings: gin must still accept the configurables those imports register."""
    environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}

    def cli(*argv):
        command = [sys.executable, "-m", "imagine_tf.cli.main", *argv]
        return subprocess.run(command, capture_output=True, env=environment, timeout=300)

    data = ("--config", "tiny", "--data-dir", str(tmp_path / "data"))
    assert cli("dataset", "build", *data).returncode == 0
    bindings = [
        "RewardTrainConfig.architecture = 'fc'",
        "RewardTrainConfig.max_epochs = 1",
        "RewardTrainConfig.batches_per_epoch = 2",
        "RewardStudyConfig.ensemble_size = 2",
    ]
    study = cli(
        "reward",
        "study",
        "--seeds",
        "0",
        "--root-dir",
        str(tmp_path / "study"),
        *data,
        *[f"--gin-binding={b}" for b in bindings],
    )
    assert study.returncode == 0, study.stderr.decode()[-2000:]
    ensemble = json.loads((tmp_path / "study" / "fc_x2_s0" / "metrics.json").read_text())
    assert [m["seed"] for m in ensemble["members"]] == [0, 1]
    assert ensemble["scored_from"] == "the members' saved test probabilities"
