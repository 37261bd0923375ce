"""`imagine-tf pretrained build` on a tiny finished run and a second seed of it (`slow`: a
minute on 2 cores): the models directory, its card and README; and the errors for runs that
cannot make one (on run directories of records only)."""

import json
import shutil

import pytest

from imagine_tf.cli.main import main
from imagine_tf.pretrained.build import BuildError, _seed_figures, check_runs, seed_spread
from imagine_tf.pretrained.card import render_readme
from tests.reward.export_test import TINY_ORACLE_RUN

pytestmark = pytest.mark.timeout(600)

TINY = TINY_ORACLE_RUN


def seed_copy(run, seed: int):
    """The run under another seed's name and config (the same networks: enough for a card)."""
    copy = run.parent / f"tiny_s{seed}"
    shutil.copytree(run, copy)
    config = json.loads((copy / "config.json").read_text())
    (copy / "config.json").write_text(json.dumps({**config, "seed": seed}))
    shutil.copy(run.parent / "tiny_s0.code_versions", run.parent / f"tiny_s{seed}.code_versions")
    return copy


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """RUNS/exp/tiny_s0 (one epoch, evaluated) and tiny_s1, with the experiment's report."""
    from imagine_tf.agent.config import TrainConfig
    from imagine_tf.analysis.run_evaluation import evaluate_run
    from imagine_tf.training.train_eval import train

    root = tmp_path_factory.mktemp("runs") / "exp"
    run = root / "tiny_s0"
    train(TrainConfig(**TINY), run, 1, progress=False)
    evaluate_run(str(run), repetitions=1)
    (root / "tiny_s0.code_versions").write_text("abc1234\nabc1234\n")
    record = {
        "experiment": "exp",
        "cell_commands": {
            f"tiny_s{s}": f"imagine-tf train --root-dir RUNS/exp/tiny_s{s}" for s in (0, 1)
        },
        "configurations": {"tiny": {}},
    }
    (root / "exp.json").write_text(json.dumps(record))
    return [run, seed_copy(run, 1)]


@pytest.mark.slow
def test_build_writes_the_models_their_card_and_readme(runs, tmp_path, capsys):
    out = tmp_path / "models"
    argv = [
        "pretrained",
        "build",
        "--run",
        str(runs[0]),
        "--seed-runs",
        str(runs[0].parent / "tiny_s*"),
    ]
    argv += ["--out", str(out), "--experiment-record", str(runs[0].parent / "exp.json")]
    assert main([*argv, "--max-num-objects", "3"]) == 0
    assert "wrote" in capsys.readouterr().out
    card = json.loads((out / "card.json").read_text())
    assert card["command"].startswith("imagine-tf pretrained build --run")
    assert (out / "README.md").read_text() == render_readme(card)
    assert card["agent"]["directory"] == "imagine_tiny_s0" and card["agent"]["epoch"] == 1
    assert card["source"]["commands"] == [
        "imagine-tf train --root-dir RUNS/exp/tiny_s0",
        "imagine-tf eval --root-dir RUNS/exp/tiny_s0 --repetitions 1",
    ]
    assert card["source"]["code_versions"] == {"tiny_s0": ["abc1234"]}
    shipped, recorded = card["shipped"], card["shipped"]["recorded"]
    assert shipped["train_success"] == pytest.approx(recorded["train_success"], abs=1e-9)
    assert shipped["served"]["test_goal_f1"] == pytest.approx(shipped["test_goal_f1"], abs=1e-6)
    assert card["seeds"]["spread"]["train_success"]["n"] == 2
    agent = out / "imagine_tiny_s0"
    assert sorted(p.name for p in (agent / "checkpoint").iterdir()) == [
        "state.npz",
        "tf.data-00000-of-00001",
        "tf.index",
    ]
    assert (agent / "reward" / "1" / "saved_model.pb").is_file()
    assert not (agent / "replay").exists() and not list(out.glob(".partial-*"))
    assert card["total_bytes"] == sum(f["bytes"] for f in card["files"].values())
    assert main(["pretrained", "readme", "--out", str(out)]) == 0  # the same README again
    assert (out / "README.md").read_text() == render_readme(card)


def records_only(root, name: str, seed: int, **config) -> object:
    """A run directory of records only (config.json, progress.jsonl, eval.json, checkpoint/)."""
    run = root / name
    (run / "checkpoint").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"gamma": 0.98, **config, "seed": seed}))
    (run / "progress.jsonl").write_text(json.dumps({"epoch": 2, "episodes": 8}) + "\n")
    evaluation = {"epoch": 2, "repetitions": 1, "train_success": 0.1, "test_success": 0.0}
    (run / "eval.json").write_text(json.dumps(evaluation))
    return run


def test_runs_of_another_configuration_or_unevaluated_are_refused(tmp_path):
    run, seed1 = records_only(tmp_path, "a_s0", 0), records_only(tmp_path, "a_s1", 1)
    assert sorted(check_runs(run, [run, seed1])) == [run, seed1]
    with pytest.raises(BuildError, match="at least 2 seeds"):
        check_runs(run, [run])
    with pytest.raises(BuildError, match="is not among --seed-runs"):
        check_runs(run, [seed1, seed1])
    with pytest.raises(BuildError, match="repeat a seed"):
        check_runs(run, [run, records_only(tmp_path, "b_s0", 0)])
    other = records_only(tmp_path, "a_s2", 2, gamma=0.5)
    with pytest.raises(BuildError, match="gamma differ"):
        check_runs(run, [run, other])
    (other / "eval.json").unlink()
    with pytest.raises(BuildError, match=r"missing: evaluations/epoch_0002\.json"):
        check_runs(run, [run, other])
    shutil.rmtree(run / "checkpoint")  # the shipped run needs its checkpoint, the seeds not
    with pytest.raises(BuildError, match=r"missing: checkpoint"):
        check_runs(run, [run, seed1])
    (run / "checkpoint").mkdir()
    (seed1 / "progress.jsonl").write_text(json.dumps({"epoch": 3}) + "\n")
    with pytest.raises(BuildError, match="eval.json is of epoch 2, its last epoch is 3"):
        check_runs(run, [run, seed1])


def test_unmatched_seed_runs_or_a_missing_report_are_usage_errors(tmp_path, capsys):
    run, _ = records_only(tmp_path, "a_s0", 0), records_only(tmp_path, "a_s1", 1)
    argv = ["pretrained", "build", "--run", str(run), "--out", str(tmp_path / "models")]
    assert main([*argv, "--seed-runs", str(tmp_path / "none_s*")]) == 2
    assert "matched no directory" in capsys.readouterr().err
    seeds = ["--seed-runs", str(tmp_path / "a_s*")]
    assert main([*argv, *seeds, "--experiment-record", str(tmp_path / "no.json")]) == 2
    assert "No experiment report at" in capsys.readouterr().err
    assert not (tmp_path / "models").exists()


def test_seeds_given_as_kept_cells_count_by_their_records(tmp_path):
    """An experiment's kept cell (no checkpoint, its evaluation under evaluations/): its SR per
    type and recorded F1 enter the spread; the F1 the build measures has the shipped seed's."""
    run = records_only(tmp_path, "a_s0", 0)
    cell = records_only(tmp_path, "a_s1", 1)
    shutil.rmtree(cell / "checkpoint")
    evaluation = json.loads((cell / "eval.json").read_text())
    (cell / "eval.json").unlink()
    (cell / "evaluations").mkdir()
    evaluation.update(train_success=0.5, per_type={"1": 0.4, "5": 0.2})
    (cell / "evaluations" / "epoch_0002.json").write_text(json.dumps(evaluation))
    (cell / "progress.jsonl").write_text(json.dumps({"epoch": 2, "reward_test_goal_f1": 0.3}))
    records = check_runs(run, [run, cell])
    figures = _seed_figures(cell, records[cell], probes=None)
    assert figures["train_success"] == 0.5 and figures["per_type"] == {"1": 0.4, "5": 0.2}
    assert figures["train_goal_f1"] is None and figures["recorded_test_goal_f1"] == 0.3
    shipped = {**figures, "seed": 0, "train_success": 0.1, "train_goal_f1": 0.9}
    shipped.update(test_goal_f1=0.8, per_type={"1": 0.6}, recorded_test_goal_f1=None)
    spread = seed_spread({"a_s0": shipped, "a_s1": figures})
    assert spread["train_success"]["n"] == 2 and spread["train_success"]["mean"] == 0.3
    assert spread["train_goal_f1"] == {**spread["train_goal_f1"], "n": 1, "band": None}
    assert spread["type_1"]["n"] == 2 and spread["type_5"]["n"] == 1
    assert spread["recorded_test_goal_f1"]["mean"] == 0.3
