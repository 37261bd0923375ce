"""The loop learns: configs/agent/smoke.gin's Go goals reach a success rate random actions cannot
(tests/cli/readme_commands_test.py shows the main path, the MA policy with its co-trained
reward, learning as the README's `imagine-tf train` runs it).

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
REPETITIONS, SEED = 20, 12345  # episodes per goal: 180 against 180


@pytest.fixture
def smoke_config():
    parse_config_files([SMOKE])  # its include of base/agent.gin, from any directory
    try:
        yield TrainConfig()
    finally:
        gin.clear_config()


def random_action_success(builder: RunBuilder, goals: list[str], repetitions: int) -> dict:
    """Success of uniformly random actions on the evaluation's scenes, per goal: {goal: share of
    its ``repetitions`` episodes that reach it}."""
    rows = [goal for goal in goals for _ in range(repetitions)]
    env = builder.make_env(len(rows), SEED, split="all")
    env.seed(SEED)
    time_step = env.reset_with_goals(rows)
    rng = np.random.default_rng(0)
    for _ in range(env.config.episode_length):
        time_step = env.step(rng.uniform(-1, 1, (len(rows), 3)).astype(np.float32))
    table = GoalTable.from_sentences(sorted(set(goals)))
    reached = oracle.achieved(time_step.observation["state"], table, table.index(rows))
    return dict(zip(goals, reached.reshape(len(goals), repetitions).mean(axis=1).tolist()))


def go_success(learner) -> tuple[dict, dict]:
    """Per Go goal the learner knows: its policy's success and random actions', REPETITIONS
    episodes each on the same scenes ({goal: success}, twice)."""
    go = [goal for goal in learner.goals.sentences if goal.startswith("Go")]
    trained = learner.evaluator.evaluate(go, repetitions=REPETITIONS, seed=SEED)
    trained = {goal: float(trained[goal]) for goal in go}
    return trained, random_action_success(learner.builder, go, REPETITIONS)


def mean_success(success: dict) -> float:
    """The mean of {goal: success} over its goals."""
    return float(np.mean(list(success.values())))


def test_the_oracle_go_goals_of_the_smoke_config_are_learned(tmp_path, smoke_config):
    learner, records = train(smoke_config, tmp_path, num_epochs=4, progress=False)
    assert records[-1]["updates"] == 4 * 10 * 40
    trained, untrained = go_success(learner)
    assert len(trained) == 9 and len(learner.goals) == 9  # the partner spoke only of Go goals
    assert mean_success(untrained) < 0.5
    assert mean_success(trained) >= mean_success(untrained) + 0.3, (trained, untrained)
