"""The `imagine-tf` command line: JSON outputs, files, and clear errors."""

import json
import pathlib
import subprocess
import sys

import pytest

from imagine_tf.cli.main import main

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "playground.gin"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_goals_json_counts(capsys):
    code, out, _ = run(capsys, "goals", "--split", "test", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 64 and all(r["split"] == "test" for r in rows)
    _, out, _ = run(capsys, "goals", "--split", "test", "--type", "5", "--json")
    assert len(json.loads(out)) == 44
    _, out, _ = run(capsys, "goals", "--split", "train", "--json")
    assert len(json.loads(out)) == 191
    _, out, _ = run(capsys, "goals", "--relational", "--json")
    assert len(json.loads(out)) == 160
    _, out, _ = run(capsys, "goals")
    assert out.strip().endswith("# 255 goals")


def test_imagined_goals_with_their_coverage(capsys, tmp_path):
    code, out, _ = run(capsys, "goals", "--imagined", "--json")
    result = json.loads(out)
    assert code == 0 and result["known_goals"] == 191 and result["imagined"] == 120
    assert result["test_goals_found"] == 56 and len(result["goals"]) == 120
    kinds = {row["goal"]: row["split"] for row in result["goals"]}
    assert kinds["Grow red tree"] == "test" and kinds["Grow red door"] == "not achievable"
    assert ["Grasp", "Grow"] in result["classes"]
    _, out, _ = run(capsys, "goals", "--imagined")
    assert "# 120 goals invented from 191 known goals" in out and "Grasp any flower" in out
    known = tmp_path / "known.txt"
    known.write_text("Grasp red cat\nGrasp blue cat\n# a comment\nGrasp red dog\n")
    code, out, _ = run(capsys, "goals", "--imagined", "--known", str(known), "--json")
    rows = json.loads(out)["goals"]  # blue ~ red; "Grasp red dog" is a second template
    assert code == 0 and rows == [{"goal": "Grasp blue dog", "split": "train", "type": None}]
    known.write_text("Grasp red kat\n")
    code, _, err = run(capsys, "goals", "--imagined", "--known", str(known))
    assert code == 2 and "kat" in err


def test_play_json(capsys, tmp_path):
    gif = tmp_path / "episode.gif"
    code, out, _ = run(capsys, "play", "--goal", "Grasp red cat", "--json", "--out", str(gif))
    result = json.loads(out)
    assert code == 0 and set(result) == {"goal", "achieved", "descriptions"}
    assert result["goal"] == "Grasp red cat" and result["achieved"] is True
    assert "Grasp red cat" in result["descriptions"]
    assert gif.stat().st_size > 1000


def test_play_random_policy_and_many_objects(capsys):
    code, out, _ = run(
        capsys, "play", "--goal", "go LEFT", "--policy", "random", "--num-objects", "10", "--json"
    )
    assert code == 0 and json.loads(out)["goal"] == "Go left"


def test_bad_goal_is_a_clear_error_without_traceback():
    process = subprocess.run(
        [sys.executable, "-m", "imagine_tf.cli.main", "play", "--goal", "Grasp red kat"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 2
    assert "Unknown goal 'Grasp red kat'" in process.stderr and "Grasp red cat" in process.stderr
    assert "Traceback" not in process.stderr


@pytest.mark.parametrize(
    "argv, message",
    [(["play", "--goal", "Grow any plant", "--num-objects", "1"], "num_objects >= 2"),
     (["play", "--goal", "Go left", "--out", "x.mp4"], ".gif or .png"),
     (["goals", "--split", "train", "--type", "2"], "--type selects test goals"),
     (["goals", "--known", "k.txt"], "add --imagined"),
     (["goals", "--imagined", "--known", "missing.txt"], "no such file"),
     (["train", "--root-dir", "r", "--num-epochs", "0"], "--num-epochs must be >= 1, got 0"),
     (["reward", "study", "--root-dir", "r", "--gin-binding", "RewardStudyConfig.ensemble_size = 0"],
      "RewardStudyConfig.ensemble_size must be >= 1, got 0")],
)  # fmt: skip
def test_usage_errors(capsys, argv, message):
    import gin

    code, _, err = run(capsys, *argv)
    gin.clear_config()
    assert code == 2 and message in err


def test_demo_writes_gifs(capsys, tmp_path):
    code, out, _ = run(capsys, "demo", "--out-dir", str(tmp_path))
    assert code == 0 and out.count("achieved") == 6 and "NOT" not in out
    assert len(list(tmp_path.glob("*.gif"))) == 6


def test_bench_quick_json(capsys, tmp_path):
    path = tmp_path / "bench.json"
    code, out, _ = run(capsys, "bench", "env", "--quick", "--json", "--out", str(path))
    results = json.loads(out)
    assert code == 0 and json.loads(path.read_text()) == results
    assert set(results["env_core_steps_per_s"]) == {"1", "64", "1024"}
    assert all(v > 0 for v in results["env_core_steps_per_s"].values())
    assert results["machine"]["cpu_count"] >= 1


def test_play_with_gin_binding(capsys):
    import gin

    try:
        code, out, _ = run(
            capsys, "play", "--goal", "Go left", "--json",
            "--gin-file", str(CONFIG), "--gin-binding", "make_env.num_objects = 5",
        )  # fmt: skip
    finally:
        gin.clear_config()
    assert code == 0 and json.loads(out)["achieved"] is True
    code, _, err = run(capsys, "play", "--goal", "Go left", "--gin-binding", "make_env.nope = 1")
    gin.clear_config()
    assert code == 2 and "bad gin configuration" in err


def test_pretrain_or_writes_skips_and_reports(capsys, tmp_path):
    argv = ["reward", "pretrain-or", "--num-inputs", "2", "--points", "4000", "--epochs", "1",
            "--out-dir", str(tmp_path)]  # fmt: skip
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
        capsys, "reward", "train", "--config", "tiny", "--data-dir", str(data_dir),
        "--root-dir", str(root), "--gin-binding", "RewardTrainConfig.max_epochs = 1",
        "--gin-binding", "RewardTrainConfig.batches_per_epoch = 2",
        "--gin-binding", "train_reward_model.batch_size = 32",  # the stored configs' name
    )  # fmt: skip
    import gin

    gin.clear_config()
    assert code == 0 and json.loads(out)["epochs"] == 1
    assert json.loads((root / "metrics.json").read_text())["config"]["batch_size"] == 32
    assert "RewardTrainConfig.max_epochs = 1" in (root / "operative_config.gin").read_text()
    tune_dir = tmp_path / "tune"
    code, out, _ = run(
        capsys, "reward", "tune", "--gin-file", "configs/reward_fc.gin", "--config", "tiny",
        "--data-dir", str(data_dir), "--root-dir", str(tune_dir), "--max-trials", "1",
        "--max-epochs", "1", "--gin-binding", "RewardTrainConfig.batches_per_epoch = 2",
    )  # fmt: skip
    gin.clear_config()
    assert code == 0 and "validation_f1" in out and (tune_dir / "reward_fc" / "report.json").exists()
    study_dir = tmp_path / "study"
    settings = ["RewardTrainConfig.architecture = 'fc'", "RewardTrainConfig.patience = 3",
                "RewardTrainConfig.max_training_seconds = 0.01"]  # fmt: skip
    study = ["reward", "study", "--seeds", "0", "1", "--config", "tiny", "--data-dir", str(data_dir),
             "--root-dir", str(study_dir), *[f"--gin-binding={binding}" for binding in settings]]  # fmt: skip
    code, out, _ = run(capsys, *study)
    gin.clear_config()
    assert code == 0 and "| fc | 2 |" in out
    first = (study_dir / "fc_s0" / "metrics.json").stat().st_mtime_ns
    assert json.loads((study_dir / "fc_s0" / "metrics.json").read_text())["config"]["patience"] == 3
    assert run(capsys, *study)[0] == 0  # resumes: finished runs are not retrained
    gin.clear_config()
    assert (study_dir / "fc_s0" / "metrics.json").stat().st_mtime_ns == first
    report_file, plot_file = tmp_path / "reward_f1.json", tmp_path / "reward_f1.png"
    code, out, _ = run(capsys, "reward", "report", "--root-dir", str(study_dir), "--out", str(report_file),
                       "--plot", str(plot_file))  # fmt: skip
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
    seed_0 = [a for a in study if a != "1"]  # seed 0 of ensembles of 2: members 0, 1
    code, out, _ = run(capsys, *seed_0, "--gin-binding", "RewardStudyConfig.ensemble_size = 2")
    gin.clear_config()
    assert code == 0 and "| fc x2 | 1 |" in out
    assert (study_dir / "fc_s0" / "metrics.json").stat().st_mtime_ns == first
    ensemble = json.loads((study_dir / "fc_x2_s0" / "metrics.json").read_text())
    assert [m["seed"] for m in ensemble["members"]] == [0, 1]
    code, _, err = run(capsys, "reward", "report", "--root-dir", str(tmp_path / "empty"))
    assert code == 2 and "reward study" in err
    code, _, err = run(capsys, "reward", "train", "--root-dir", str(root), "--config", "nope",
                       "--data-dir", str(data_dir))  # fmt: skip
    assert code == 2 and "dataset build" in err
    code, _, err = run(capsys, "dataset", "build", "--config", "nope", "--data-dir", str(data_dir))
    assert code == 2 and "Unknown dataset config" in err


def test_bench_dataset_small(capsys, tmp_path):
    out_file = tmp_path / "dataset_bench.json"
    code, out, _ = run(capsys, "bench", "dataset", "--num-episodes", "40", "--out", str(out_file))
    results = json.loads(out)
    assert code == 0 and results["episodes"] == 40 and results["build_seconds"] > 0
    assert (
        results["examples"]["train_states"] == 36 and results["examples"]["test_states"] == 4 * 51
    )
    assert json.loads(out_file.read_text()) == results


def test_the_bench_flags_offer_every_compute_dtype_of_the_networks():
    from imagine_tf.cli.main import build_parser
    from imagine_tf.networks.precision import COMPUTE_DTYPES

    parser = build_parser()
    for dtype in COMPUTE_DTYPES:
        assert (
            parser.parse_args(["bench", "train", "--compute-dtype", dtype]).compute_dtype == dtype
        )
    with pytest.raises(SystemExit):
        parser.parse_args(["bench", "train", "--compute-dtype", "float16"])


def test_tf_agents_flag_spelling_parses_like_ours_and_serve_flags_keep_theirs():
    from imagine_tf.cli.main import build_parser

    parser = build_parser()
    theirs = parser.parse_args(
        ["train", "--root_dir", "runs/ma_s0", "--gin_bindings", "TrainConfig.batch_size = 8",
         "--gin_file=configs/ma.gin", "--num_epochs", "2"]
    )  # fmt: skip
    ours = parser.parse_args(
        ["train", "--root-dir", "runs/ma_s0", "--gin-binding", "TrainConfig.batch_size = 8",
         "--gin-file=configs/ma.gin", "--num-epochs", "2"]
    )  # fmt: skip
    assert vars(theirs) == vars(ours) and ours.gin_binding == ["TrainConfig.batch_size = 8"]
    serve = parser.parse_args(
        ["serve", "--model_base_path", "m", "--tensorflow_intra_op_parallelism", "1"]
    )
    assert serve.tensorflow_intra_op_parallelism == 1  # underscore-only server flags still parse


def test_train_then_eval_at_another_n(capsys, tmp_path):
    import gin

    root = tmp_path / "run"
    bindings = ["TrainConfig.episodes_per_cycle = 4", "TrainConfig.cycles_per_epoch = 2",
                "TrainConfig.updates_per_cycle = 2", "TrainConfig.batch_size = 16",
                "TrainConfig.reward = 'oracle'", "TrainConfig.replay_capacity = 50",
                "TrainConfig.memory_capacity = 50"]  # fmt: skip
    argv = ["train", "--root_dir", str(root), "--num_epochs=1"]  # TF-Agents' spelling works too
    for binding in bindings:
        argv += ["--gin_bindings", binding]
    code, out, _ = run(capsys, *argv)
    gin.clear_config()
    assert code == 0 and json.loads(out)["epoch"] == 1
    assert (root / "operative_config.gin").exists() and (root / "checkpoint" / "state.npz").exists()
    code, out, _ = run(
        capsys, "eval", "--root-dir", str(root), "--repetitions", "1", "--num-objects", "4"
    )
    result = json.loads(out)
    assert code == 0 and result["num_objects"] == 4 and set(result["per_type"]) == set("12345")
    assert json.loads((root / "eval_n4.json").read_text())["repetitions"] == 1
    code, _, err = run(capsys, "eval", "--root-dir", str(tmp_path / "nothing"))
    assert code == 2 and "imagine-tf train" in err
    code, _, err = run(capsys, *argv, "--gin-binding", "TrainConfig.batch_size = 32")
    gin.clear_config()
    assert code == 2 and "batch_size: run 16, given 32" in err  # resumed with another config
    assert "with no gin flags" in err  # the run has a config.gin to resume with
    assert "batch_size = 32" not in (root / "config.gin").read_text()  # the refused gin is not kept
    # A fork of the run trains on from its epoch with the other batch; repeating resumes it.
    fork = ["--gin-binding", "TrainConfig.batch_size = 32", "--fork-from", str(root)]
    fork_argv = [a if a != str(root) else str(tmp_path / "fork") for a in argv] + fork
    fork_argv[fork_argv.index("--num_epochs=1")] = "--num_epochs=2"
    code, out, _ = run(capsys, *fork_argv)
    gin.clear_config()
    assert code == 0 and json.loads(out)["epoch"] == 2
    record = json.loads((tmp_path / "fork" / "fork.json").read_text())
    assert record["epoch"] == 1 and record["changed"] == {"batch_size": [16, 32]}
    code, out, _ = run(capsys, *fork_argv)
    gin.clear_config()
    assert code == 0 and json.loads(out)["note"] == "already trained"
    code, out, _ = run(capsys, "report", str(root), str(tmp_path / "fork"), "--out",
                       str(tmp_path / "sr.json"), "--plot", str(tmp_path / "curves.png"))  # fmt: skip
    rows = json.loads((tmp_path / "sr.json").read_text())["runs"]
    assert code == 0 and "wrote" in out and (tmp_path / "curves.png").stat().st_size > 0
    assert [r.get("forked_from", {}).get("epoch") for r in rows] == [None, 1]
    code, _, err = run(capsys, *argv, "--fork-from", str(tmp_path / "fork"))
    gin.clear_config()
    assert code == 2 and "not a fork" in err  # forking onto the existing run would overwrite it
    # With no gin flags a run resumes with its own config.gin (the fork's: batch 32, 2 epochs).
    fork_gin = (tmp_path / "fork" / "config.gin").read_text()
    assert "TrainConfig.batch_size = 32" in fork_gin and "train_eval.num_epochs = 2" in fork_gin
    code, out, err = run(capsys, "train", "--root-dir", str(tmp_path / "fork"))
    gin.clear_config()
    assert code == 0 and json.loads(out)["note"] == "already trained" and "config.gin" in err
    code, out, _ = run(capsys, "train", "--root-dir", str(tmp_path / "fork"), "--num-epochs", "3")
    gin.clear_config()
    assert code == 0 and json.loads(out)["epoch"] == 3
    assert "train_eval.num_epochs = 3" in (tmp_path / "fork" / "config.gin").read_text()


@pytest.mark.slow
def test_bench_train_quick(capsys, tmp_path):
    out_file = tmp_path / "train_bench.json"
    code, out, _ = run(
        capsys, "bench", "train", "--quick", "--reward-patience", "5", "--out", str(out_file)
    )
    results = json.loads(out_file.read_text())
    assert results["config"]["reward_patience"] == 5
    assert code == 0 and results["config"]["updates_per_epoch"] == 250
    assert results["machine"]["bfloat16_matmul_speedup"] > 0
    assert results["updates_per_s"] > 0 and results["collection_steps_per_s"] > 0
    # Epoch 0 trains no policy (learned reward); the update's tracing makes 3 before epoch 1.
    assert results["warm_up_epoch"]["updates"] == 0 and results["epoch"]["updates"] == 3 + 250


@pytest.mark.slow
def test_bench_distributed_quick(capsys, tmp_path):
    out_file = tmp_path / "distributed_bench.json"
    code, _, _ = run(capsys, "bench", "distributed", "--quick", "--out", str(out_file))
    results = json.loads(out_file.read_text())
    assert code == 0 and set(results["collection_episodes_per_s_learner_idle"]) == {"1", "2"}
    assert all(v > 0 for v in results["collection_episodes_per_s_learner_idle"].values())
    assert results["learner_running"]["2"]["updates_per_s"] > 0


def test_eval_of_a_run_without_a_usable_checkpoint_is_a_clear_error(capsys, tmp_path, monkeypatch):
    from imagine_tf.training import checkpoint_snapshot, model_loading

    (tmp_path / "config.json").write_text("{}")  # a run that has not finished its first epoch
    code, _, err = run(capsys, "eval", "--root-dir", str(tmp_path))
    assert code == 2 and "train at least one epoch" in err

    def always_overtaken(root, into):
        raise checkpoint_snapshot.SnapshotError("each copy was overtaken by a save")

    monkeypatch.setattr(model_loading, "snapshot_checkpoint", always_overtaken)  # load_agent's
    code, _, err = run(capsys, "eval", "--root-dir", str(tmp_path))
    assert code == 2 and "overtaken by a save" in err


def test_version(capsys):
    import imagine_tf

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"imagine-tf {imagine_tf.__version__}"
