"""The loop learns: configs/agent/smoke.gin's Go goals reach a success rate random actions cannot.

This test fails if the actor loss's sign or the TD target is wrong (checked by hand: with
either broken the Go success stays near the untrained policy's).
"""

import pathlib

import gin
import numpy as np
import pytest

from imagine_tf.language import oracle
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig
from imagine_tf.runs.config_files import parse_config_files
from imagine_tf.training.train_eval import train

SMOKE = pathlib.Path(__file__).resolve().parents[2] / "configs" / "agent" / "smoke.gin"
REPETITIONS, SEED = 5, 12345


@pytest.fixture
def smoke_config():
    parse_config_files([SMOKE])  # its include of base/agent.gin, from any directory
    try:
        yield TrainConfig()
    finally:
        gin.clear_config()


def random_action_success(builder: RunBuilder, goals: list[str]) -> float:
    """Success of uniformly random actions on the evaluation's scenes."""
    env = builder.make_env(len(goals), SEED, split="all")
    env.seed(SEED)
    time_step = env.reset_with_goals(goals)
    rng = np.random.default_rng(0)
    for _ in range(env.config.episode_length):
        time_step = env.step(rng.uniform(-1, 1, (len(goals), 3)).astype(np.float32))
    table = GoalTable.from_sentences(sorted(set(goals)))
    return float(oracle.achieved(time_step.observation["state"], table, table.index(goals)).mean())


def test_the_oracle_go_goals_of_the_smoke_config_are_learned(tmp_path, smoke_config):
    learner, records = train(smoke_config, tmp_path, num_epochs=5, progress=False)
    assert records[-1]["updates"] == 5 * 10 * 40
    go = [g for g in learner.goals.sentences if g.startswith("Go")]
    assert len(go) == 9 and len(learner.goals) == 9  # the partner spoke only of Go goals
    success = learner.evaluator.evaluate(go, repetitions=REPETITIONS, seed=SEED)
    trained = float(np.mean(list(success.values())))
    untrained = random_action_success(learner.builder, [g for g in go for _ in range(REPETITIONS)])
    assert untrained < 0.5
    assert trained >= 0.8 and trained >= untrained + 0.4, (trained, untrained, success)


def test_the_main_path_learns_with_its_co_trained_reward(tmp_path, smoke_config):
    """The MA policy with the learned MA reward (the IMAGINE agent's networks), taught only by
    the partner's descriptions of the Go goals: the co-trained reward's held-out F1 rises, and
    the policy ends clearly above random actions."""
    import dataclasses

    config = dataclasses.replace(
        smoke_config,
        architecture="ma",
        reward="learned",
        reward_architecture="ma",
        reward_update_every=1,
        reward_max_epochs=10,
        reward_patience=5,
        reward_batches_per_epoch=100,
        updates_per_cycle=80,
    )
    learner, records = train(config, tmp_path, num_epochs=6, progress=False)
    f1 = [r["reward_held_out_f1"] for r in records if r["reward_held_out_f1"] is not None]
    assert len(f1) >= 4 and max(f1[2:]) > f1[0] + 0.1, f1  # the reward learns from feedback
    go = [g for g in learner.goals.sentences if g.startswith("Go")]
    success = learner.evaluator.evaluate(go, repetitions=REPETITIONS, seed=SEED)
    trained = float(np.mean(list(success.values())))
    untrained = random_action_success(learner.builder, [g for g in go for _ in range(REPETITIONS)])
    assert trained >= untrained + 0.3, (trained, untrained, f1, success)
