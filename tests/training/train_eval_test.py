"""The co-training loop: tiny runs with the oracle and the learned reward, logs, resume.

Two tiny runs of two epochs are trained once for the module (`oracle_run`, `learned_run`);
the tests read them, and those that train on, evaluate or kill a run do it in a copy."""

import dataclasses
import json
import pathlib
import shutil

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.agent.replay import EPISODE_FIELDS
from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.runs.lock import RunConfigMismatch
from imagine_tf.env.grow_outcomes import GROW_LOG_KEYS
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig, binding_name
from imagine_tf.agent.learning import Learner
from imagine_tf.reward.config import RewardModelConfig
from imagine_tf.runs.config_keys import declared_defaults, flat_config
from imagine_tf.training.train_eval import make_learner, train

TINY = dict(
    episodes_per_cycle=4,
    cycles_per_epoch=3,
    updates_per_cycle=2,
    batch_size=16,
    num_candidates=5,
    reward_model=RewardModelConfig(batches_per_epoch=3, max_epochs=2),
    replay_capacity=100,
    memory_capacity=100,
)
#: The oracle-reward run; half of each batch keeps the goal its episode was drawn for.
ORACLE = TrainConfig(reward="oracle", final_goal_ratio=0.5, **TINY)
#: The learned-reward run (MA policy and reward); its gates read the normalised goal.
LEARNED = TrainConfig(
    architecture="ma",
    reward="learned",
    **{**TINY, "reward_model": dataclasses.replace(TINY["reward_model"], normalize_goal=True)},
)


@dataclasses.dataclass
class TinyRun:
    """A run trained for two epochs: its directory, config, learner and records."""

    root: pathlib.Path
    config: TrainConfig
    trainer: Learner
    logs: list[dict]

    def copy(self, into: pathlib.Path) -> pathlib.Path:
        """A copy of the run directory to train on, evaluate or kill."""
        return pathlib.Path(shutil.copytree(self.root, into))


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory) -> TinyRun:
    """`ORACLE`, two epochs, in a directory where a first save killed before its main
    checkpoint left an episode file (it must not count: `test_eval_and_report_of_a_tiny_run`)."""
    root = tmp_path_factory.mktemp("oracle_run")
    empty = RunBuilder(ORACLE).make_replay()
    (root / "replay").mkdir()
    np.savez(
        root / "replay" / "episodes_000000000000.npz",
        **{name: np.full_like(getattr(empty, name)[:12], 999) for name in EPISODE_FIELDS},
    )
    trainer, logs = train(ORACLE, root, num_epochs=2, progress=False)
    return TinyRun(root, ORACLE, trainer, logs)


@pytest.fixture(scope="module")
def learned_run(tmp_path_factory) -> TinyRun:
    """`LEARNED`, two epochs."""
    root = tmp_path_factory.mktemp("learned_run")
    trainer, logs = train(LEARNED, root, num_epochs=2, progress=False)
    return TinyRun(root, LEARNED, trainer, logs)


def oracle_bindings() -> list[str]:
    """The gin bindings of `ORACLE`: its non-default settings."""
    values = flat_config(json.loads(ORACLE.to_json()))
    defaults = json.loads(json.dumps(declared_defaults(TrainConfig)))  # tuples as lists
    return [f"{binding_name(k)} = {v!r}" for k, v in values.items() if v != defaults[k]]


@pytest.mark.parametrize("reward", ["oracle", "learned"])
def test_tiny_run_logs_checkpoints_and_resumes(request, tmp_path, reward):
    run = request.getfixturevalue(f"{reward}_run")
    trainer, logs = run.trainer, run.logs
    assert [r["epoch"] for r in logs] == [1, 2]
    lines = [json.loads(x) for x in (run.root / "progress.jsonl").read_text().splitlines()]
    assert lines == logs
    last = logs[-1]
    assert last["episodes"] == 2 * 3 * 4 and last["discovered_goals"] > 0
    expected_updates = (
        (2 if reward == "oracle" else 1) * 3 * 2
    )  # learned: no policy update in epoch 0
    assert last["updates"] == expected_updates
    assert last["actors"] == 1 and last["policy_lag_updates"] == 0  # one process: no lag
    assert 0.0 <= last["eval_train_success"] <= 1.0 and last["seconds_collection"] > 0
    grow_shares = [v for k, v in last.items() if k.startswith("eval_train_grow_")]
    assert len(grow_shares) == 5 and sum(grow_shares) == pytest.approx(1.0)
    assert set(GROW_LOG_KEYS.values()) <= set(last)
    assert last["eval_train_grow_achieved"] == pytest.approx(last["eval_train_success_grow"])
    if reward == "learned":
        assert logs[0]["reward_epochs"] == 2  # the reward model is updated at the end of epoch 0
    # A new trainer on (a copy of) the same directory continues where the first one stopped.
    root = run.copy(tmp_path / "run")
    resumed, more = train(run.config, root, num_epochs=3, progress=False)
    assert [r["epoch"] for r in more] == [3]
    assert resumed.replay.episodes_added == 3 * 3 * 4
    assert resumed.goals.sentences[: len(trainer.goals)] == trainer.goals.sentences
    np.testing.assert_array_equal(resumed.memory.states[:24], trainer.memory.states[:24])
    np.testing.assert_array_equal(
        resumed.replay.observations[:24], trainer.replay.observations[:24]
    )
    assert sorted(p.name for p in (root / "replay").iterdir()) == [
        f"episodes_{first:012d}.npz" for first in (0, 12, 24)
    ]  # one file of new episodes per epoch
    assert more[0]["updates"] == expected_updates + 3 * 2


def test_the_normalised_reward_gate_is_trained_and_reloaded_with_the_run(learned_run):
    from imagine_tf.analysis.saved_run import load_reward_network

    trainer = learned_run.trainer
    assert trainer.reward_network.normalize_goal
    loaded, _ = load_reward_network(learned_run.root)
    assert loaded.normalize_goal
    inputs = {
        "state": trainer.memory.states[:8],
        "goal": trainer.builder.goal_tokens(trainer.goals.sentences)[:1].repeat(8, 0),
    }
    np.testing.assert_allclose(loaded(inputs), trainer.reward_network(inputs), atol=1e-6)


def test_eval_and_report_of_a_tiny_run(oracle_run, tmp_path):
    from imagine_tf.analysis.success_report import run_rows
    from imagine_tf.analysis.run_evaluation import evaluate_run

    root = oracle_run.copy(tmp_path / "run")
    # A first save killed before its main checkpoint left an episode file: it must not count.
    resumed, _ = make_learner(ORACLE, root)
    assert resumed.replay.episodes_added == 24
    trained = oracle_run.trainer.replay.goal_ids[:24]
    np.testing.assert_array_equal(resumed.replay.goal_ids[:24], trained)
    assert not np.any(resumed.replay.goal_ids[:24] == 999)
    other = dataclasses.replace(ORACLE, batch_size=32)
    with pytest.raises(RunConfigMismatch, match="batch_size: run 16, given 32"):
        train(other, root, 3, progress=False)
    assert json.loads((root / "config.json").read_text())["batch_size"] == 16
    with pytest.raises(FileNotFoundError, match="training run"):
        run_rows(tmp_path / "nothing")
    [before] = run_rows(root)
    assert before["repetitions"].startswith("1 (in-training") and before["episodes"] == 24
    # A run still training replaces its own earlier in-training row, whatever its epoch.
    from imagine_tf.analysis.success_report import write_agent_report

    from imagine_tf.analysis.success_report import EXPERIMENT_FIELDS

    same = {name: before[name] for name in EXPERIMENT_FIELDS}  # this run's experiment
    in_training = {
        "run": root.name,
        **same,
        "marker": -3,
        "evaluated_at_epoch": 0,
        "repetitions": "1 (in-training evaluation)",
    }
    record = write_agent_report([root], tmp_path / "sr.json", "cmd", {"runs": [in_training]})
    assert [(r["run"], r.get("marker")) for r in record["runs"]] == [(root.name, None)]
    result = evaluate_run(root, repetitions=2)
    assert json.loads((root / "eval.json").read_text())["per_goal"] == result["per_goal"]
    kept = json.loads((root / "evaluations" / "epoch_0002.json").read_text())
    assert kept == json.loads((root / "eval.json").read_text())
    assert len(result["per_goal"]) == 255 and set(result["per_type"]) == {"1", "2", "3", "4", "5"}
    per_goal, types = result["per_goal"], result["per_type"]
    assert result["test_success_type_mean"] == pytest.approx(sum(types.values()) / 5)
    no_flower = [per_goal[g] for g in grammar.test_goals() if "flower" not in g]
    assert result["test_success_imaginable"] == pytest.approx(sum(no_flower) / 56)
    assert set(result["train_per_predicate"]) == {"Go", "Grasp", "Grow"}
    test_grow = [per_goal[g] for g in grammar.test_goals() if g.startswith("Grow")]
    assert set(result["test_per_predicate"]) == {"Grasp", "Grow"}  # no Go goal is held out
    assert result["test_per_predicate"]["Grow"] == pytest.approx(sum(test_grow) / len(test_grow))
    grow_train = [g for g in grammar.train_goals() if g.startswith("Grow")]
    outcomes = result["grow_outcomes"]["train"]
    assert outcomes["episodes"] == 2 * len(grow_train) == 2 * 46
    assert outcomes["achieved"] == pytest.approx(result["train_per_predicate"]["Grow"])
    [row] = run_rows(root)
    assert row["repetitions"] == 2 and row["train_success"] == result["train_success"]
    assert row["evaluated_at_epoch"] == 2 and row["evaluated_at_episodes"] == 24
    assert row["wall_seconds"] > 0 and row["updates"] == 2 * 3 * 2
    assert row["evaluated_at_updates"] == row["updates"]  # read at its last epoch
    # the code and machine of each training start (this run: trained, then resumed)
    assert row["code_versions"] and all(isinstance(v, str) for v in row["code_versions"])
    assert row["machines"] and "logical CPUs" in row["machines"][0]
    assert row["compute_dtype"] == "float32" and row["final_layer_init"] == "small_uniform"
    assert row["final_goal_ratio"] == 0.5
    # Every kept evaluation at the run's N is a row, by epoch; one at another N is not.
    (root / "evaluations" / "epoch_0000.json").write_text(json.dumps({**kept, "epoch": 0}))
    (root / "evaluations" / "epoch_0002_n4.json").write_text(json.dumps({**kept, "num_objects": 4}))
    rows = run_rows(root)
    assert [(r["evaluated_at_epoch"], r["repetitions"]) for r in rows] == [(0, 2), (2, 2)]
    assert rows[0]["evaluated_at_episodes"] is None and rows[1]["evaluated_at_episodes"] == 24
    (root / "evaluations" / "epoch_0000.json").unlink()
    # An earlier report keeps the rows of runs whose directories are gone, a run's rows
    # evaluated at other epochs, its in-training row and the rows of another experiment whose
    # directory had the same name; an evaluation of the same run and epoch is replaced.
    earlier = {
        "command": "imagine-tf report old_run",
        "runs": [
            {"run": "old_run", "seed": 7, "marker": 7},
            {
                "run": root.name,
                **same,
                "marker": -1,
                "evaluated_at_epoch": 2,
                "repetitions": 30,
            },
            {
                "run": root.name,
                **same,
                "marker": -2,
                "evaluated_at_epoch": 0,
                "repetitions": 30,
            },
            {
                "run": root.name,
                **same,
                "final_goal_ratio": 0.0,
                "marker": -4,
                "evaluated_at_epoch": 2,
                "repetitions": 30,
            },
            in_training,
        ],
    }
    record = write_agent_report([root], tmp_path / "sr.json", "cmd", earlier)
    assert [(r["run"], r.get("marker")) for r in record["runs"]] == [
        ("old_run", 7),
        (root.name, -2),
        (root.name, -4),
        (root.name, -3),
        (root.name, None),
    ]
    assert record["runs"][0]["reported_by"] == "imagine-tf report old_run"
    assert json.loads((tmp_path / "sr.json").read_text()) == record
    with pytest.raises(ValueError, match="has no 'runs'"):
        write_agent_report([root], tmp_path / "sr.json", "cmd", {"command": "x"})


def test_a_run_killed_with_sigkill_resumes_losing_at_most_one_epoch(oracle_run, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    root = oracle_run.copy(tmp_path / "run")  # two epochs done
    command = [
        sys.executable,
        "-m",
        "imagine_tf.cli.main",
        "train",
        "--root-dir",
        str(root),
        "--num-epochs",
        "4",
    ]
    for binding in oracle_bindings():
        command += ["--gin-binding", binding]
    environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    process = subprocess.Popen(
        command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    progress = root / "progress.jsonl"
    deadline = time.time() + 240
    while time.time() < deadline and process.poll() is None:
        if len(progress.read_text().splitlines()) >= 3:  # an epoch of its own is saved
            break
        time.sleep(0.2)
    assert process.poll() is None, "the run ended before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    done_before = len(progress.read_text().splitlines())
    assert done_before >= 3
    train(ORACLE, root, num_epochs=4, progress=False)  # the run started again
    epochs = [json.loads(line)["epoch"] for line in progress.read_text().splitlines()]
    assert epochs == [1, 2, 3, 4]  # every epoch logged once, in order
    trainer, _ = make_learner(ORACLE, root)
    assert int(trainer.epoch.numpy()) == 4
    assert trainer.replay.episodes_added == 4 * 3 * 4  # nothing lost, nothing doubled


def test_train_eval_writes_the_learning_curve_and_the_agent_gif(oracle_run, tmp_path):
    import gin
    from PIL import Image

    from imagine_tf.training.train_eval import train_eval

    root = oracle_run.copy(tmp_path / "run")  # trained by `train`: no curve, no GIF yet
    assert not (root / "learning_curve.png").exists() and not (root / "agent.gif").exists()
    gin.parse_config(oracle_bindings())
    try:
        train_eval(
            str(root), num_epochs=2, progress=False, demo_goals=("Go left", "Grasp any animal")
        )
    finally:
        gin.clear_config()
    assert Image.open(root / "learning_curve.png").size[0] > 500
    gif = Image.open(root / "agent.gif")
    assert 1 < gif.n_frames <= 2 * 51  # two episodes of s_0..s_50 (PIL merges identical frames)


def test_the_final_goal_share_reaches_the_relabelling_of_a_run(oracle_run, tmp_path):
    trainer, config = oracle_run.trainer, oracle_run.config
    assert json.loads((oracle_run.root / "config.json").read_text())["final_goal_ratio"] == 0.5
    batch = trainer.replay.sample(config.batch_size)
    assert np.all(batch.sampled_goal_ids >= 0)  # goals were reached: goal-biased sampling
    candidates = trainer.relabeler.sample_candidates(tf.constant(len(trainer.goals)), 5)
    table = trainer.embedding_table
    relabelled = trainer.relabeler.relabel(
        batch.states,
        batch.next_states,
        batch.goal_ids,
        batch.goal_embeddings,
        candidates,
        tf.gather(table, candidates),
        batch.sampled_goal_ids,
        tf.gather(table, batch.sampled_goal_ids),
    )
    half = config.batch_size // 2
    np.testing.assert_array_equal(relabelled.goal_ids.numpy()[:half], batch.sampled_goal_ids[:half])
    np.testing.assert_allclose(
        relabelled.goal_embeddings.numpy()[:half],
        trainer.embedding_table.numpy()[batch.sampled_goal_ids[:half]],
    )
    # Rewards are the oracle's on s_t for those goals (the episodes achieve them at s_T).
    table = GoalTable.from_sentences(trainer.goals.sentences)
    truth = oracle.achieved(batch.states[:half], table, batch.sampled_goal_ids[:half])
    np.testing.assert_array_equal(relabelled.rewards.numpy()[:half] == 0, truth)
    with pytest.raises(ValueError, match="final_goal_ratio must be in"):
        train(TrainConfig(final_goal_ratio=2.0, **TINY), tmp_path / "bad", 1, progress=False)
    assert not (tmp_path / "bad").exists()  # refused before anything is written
