"""The `imagine-tf` command line: JSON outputs, files, and clear errors."""

import json
import pathlib

import pytest

from imagine_tf.cli.main import main

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "world" / "playground.gin"


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


def test_bad_goal_is_a_clear_error_without_traceback(capsys):
    code, _, err = run(capsys, "play", "--goal", "Grasp red kat")
    assert code == 2
    assert "Unknown goal 'Grasp red kat'" in err and "Grasp red cat" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "--goal", "Grow any plant", "--num-objects", "1"], "num_objects >= 2"),
        (["play", "--goal", "Go left", "--out", "x.mp4"], ".gif or .png"),
        (["goals", "--split", "train", "--type", "2"], "--type selects test goals"),
        (["goals", "--known", "k.txt"], "add --imagined"),
        (["goals", "--imagined", "--known", "missing.txt"], "no such file"),
        (["train", "--root-dir", "r", "--num-epochs", "0"], "--num-epochs must be >= 1, got 0"),
        (
            [
                "reward",
                "study",
                "--root-dir",
                "r",
                "--gin-binding",
                "RewardStudyConfig.ensemble_size = 0",
            ],
            "RewardStudyConfig.ensemble_size must be >= 1, got 0",
        ),
    ],
)
def test_usage_errors(capsys, argv, message):
    import gin

    code, _, err = run(capsys, *argv)
    gin.clear_config()
    assert code == 2 and message in err


def test_demo_writes_gifs(capsys, tmp_path):
    code, out, _ = run(capsys, "demo", "--out-dir", str(tmp_path))
    assert code == 0 and out.count("achieved") == 6 and "NOT" not in out
    assert len(list(tmp_path.glob("*.gif"))) == 6


def test_play_with_gin_binding(capsys):
    import gin

    try:
        code, out, _ = run(
            capsys,
            "play",
            "--goal",
            "Go left",
            "--json",
            "--gin-file",
            str(CONFIG),
            "--gin-binding",
            "make_env.num_objects = 5",
        )
    finally:
        gin.clear_config()
    assert code == 0 and json.loads(out)["achieved"] is True
    code, _, err = run(capsys, "play", "--goal", "Go left", "--gin-binding", "make_env.nope = 1")
    gin.clear_config()
    assert code == 2 and "bad gin configuration" in err


def test_tf_agents_flag_spelling_parses_like_ours_and_serve_flags_keep_theirs():
    from imagine_tf.cli.main import build_parser

    parser = build_parser()
    theirs = parser.parse_args(
        [
            "train",
            "--root_dir",
            "runs/ma_s0",
            "--gin_bindings",
            "TrainConfig.batch_size = 8",
            "--gin_file=configs/agent/ma.gin",
            "--num_epochs",
            "2",
        ]
    )
    ours = parser.parse_args(
        [
            "train",
            "--root-dir",
            "runs/ma_s0",
            "--gin-binding",
            "TrainConfig.batch_size = 8",
            "--gin-file=configs/agent/ma.gin",
            "--num-epochs",
            "2",
        ]
    )
    assert vars(theirs) == vars(ours) and ours.gin_binding == ["TrainConfig.batch_size = 8"]
    serve = parser.parse_args(
        ["serve", "--model_base_path", "m", "--tensorflow_intra_op_parallelism", "1"]
    )
    assert serve.tensorflow_intra_op_parallelism == 1  # underscore-only server flags still parse


def test_train_then_eval_at_another_n(capsys, tmp_path):
    import gin

    root = tmp_path / "run"
    bindings = [
        "TrainConfig.episodes_per_cycle = 4",
        "TrainConfig.cycles_per_epoch = 2",
        "TrainConfig.updates_per_cycle = 2",
        "TrainConfig.batch_size = 16",
        "TrainConfig.reward = 'oracle'",
        "TrainConfig.replay_capacity = 50",
        "TrainConfig.memory_capacity = 50",
        "train_eval.demo_goals = []",  # no agent.gif (tests/training/train_eval_test.py draws one)
    ]
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
    code, out, _ = run(
        capsys,
        "report",
        str(root),
        str(tmp_path / "fork"),
        "--out",
        str(tmp_path / "sr.json"),
        "--plot",
        str(tmp_path / "curves.png"),
    )
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
    fork_three = ["train", "--root-dir", str(tmp_path / "fork"), "--num-epochs", "3"]
    code, _, err = run(capsys, *fork_three, "--eval-repetitions", "0")
    assert code == 2 and "--eval-repetitions must be >= 1, got 0" in err
    code, out, _ = run(capsys, *fork_three)  # (tests/experiments: --eval-repetitions R)
    gin.clear_config()
    assert code == 0 and json.loads(out)["epoch"] == 3
    assert "train_eval.num_epochs = 3" in (tmp_path / "fork" / "config.gin").read_text()


def test_eval_of_a_run_without_a_usable_checkpoint_is_a_clear_error(capsys, tmp_path, monkeypatch):
    from imagine_tf.runs import snapshot as checkpoint_snapshot
    from imagine_tf.analysis import saved_run as model_loading

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
    assert (
        exit_.value.code == 0
        and capsys.readouterr().out.strip() == f"imagine-tf {imagine_tf.__version__}"
    )
