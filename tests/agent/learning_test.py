"""The learner (`agent/learning.py`) with imagination: imagined goals as actors' targets,
relabelling candidates and replay lists, never reward labels; the same-batch negatives rule of
the reward memory; its checkpoint; the epoch's records of the imagined set."""

import dataclasses

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.language import oracle
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.playground import play
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig
from imagine_tf.agent.episode_batch import EpisodeBatch, GoalView
from imagine_tf.reward.config import RewardModelConfig

CONFIG = TrainConfig(
    architecture="fc",
    reward_model=RewardModelConfig(architecture="fc"),
    reward="oracle",
    episodes_per_cycle=4,
    replay_capacity=100,
    memory_capacity=100,
    imagination="cgh",
    imagination_start=0,
)


def _batch(builder, goals, seed=0):
    """A handmade batch: scripted episodes of ``goals`` and the partner's descriptions."""
    episode = play(goals, policy="scripted", seed=seed)
    observed = builder.state_dim // 2
    states = np.swapaxes(episode.states, 0, 1)  # [B, T + 1, D]
    return EpisodeBatch(
        observations=states[..., :observed].astype(np.float32),
        actions=np.zeros((len(goals), states.shape[1] - 1, 3), np.float32),
        goal_ids=np.full(len(goals), -1),
        goal_embeddings=np.zeros((len(goals), 100), np.float32),
        descriptions=builder.partner.describe_matrix(states[:, -1]),
        final_states=states[:, -1].astype(np.float32),
    )


@pytest.fixture(scope="module")
def learner():
    return RunBuilder(CONFIG).make_learner()


def test_goals_first_discovered_in_a_batch_are_no_negatives_for_its_other_episodes():
    learner = RunBuilder(dataclasses.replace(CONFIG, imagination="none")).make_learner()
    first = _batch(learner.builder, ["Go left", "Go right"])
    learner.observe(first)
    goals = learner.goals.sentences
    left, right = goals.index("Go left"), goals.index("Go right")
    assert learner.memory.positives[0, left] and learner.memory.positives[1, right]
    assert not learner.memory.negatives[:2].any()  # all discovered in this very batch
    learner.observe(_batch(learner.builder, ["Go right", "Go left"], seed=1))
    assert learner.memory.negatives[2, left] and learner.memory.negatives[3, right]


def test_discoveries_make_imagined_goals_that_are_never_reward_labels(learner):
    learner.observe(
        _batch(learner.builder, ["Grasp red cat", "Grasp blue dog", "Grow green cat", "Go left"])
    )
    imagined = learner.goals.imagined_ids
    assert imagined.size and learner.imagination.imagined
    assert {learner.goals.sentences[i] for i in imagined} == set(learner.imagination.imagined)
    assert not learner.memory.positives[:, imagined].any()
    assert not learner.memory.negatives[:, imagined].any()
    np.testing.assert_array_equal(
        learner.imagined_mask.numpy()[: len(learner.goals)],
        learner.goals.imagined[: len(learner.goals)],
    )


def test_imagined_goals_the_reward_says_are_reached_join_the_replay_lists(learner):
    goal = "Grasp green dog"  # a test goal: the partner never says it
    ids = learner.goals.imagine([goal])
    goal_id = ids[0] if ids.size else learner.goals.sentences.index(goal)
    learner.embed_goals()
    episodes_before = learner.replay.size
    batch = _batch(learner.builder, [goal, goal, "Go top", "Go bottom"], seed=3)
    truth = oracle.achieved_matrix(batch.final_states, GoalTable.from_sentences([goal]))[:, 0]
    learner.observe(batch)
    rows = np.arange(episodes_before, episodes_before + 4)
    achieved = learner.replay.achieved[rows, goal_id]
    np.testing.assert_array_equal(achieved, truth)  # the oracle reward of this config
    assert achieved[:2].any() and not achieved[2:].any()
    assert goal_id in learner.replay.reached_goals
    assert not learner.memory.positives[:, goal_id].any()


def test_half_the_relabelling_candidates_are_imagined(learner):
    imagined = tf.constant(learner.goals.imagined[: len(learner.goals)])
    count = tf.constant(len(learner.goals))
    candidates = learner.relabeler.sample_candidates(count, 50, imagined, True).numpy()
    available = int(imagined.numpy().sum())
    n = min(50, len(learner.goals))
    from_imagined = min(n // 2, available)
    assert (
        len(candidates)
        == len(set(candidates))
        == min(n, from_imagined + (len(learner.goals) - available))
    )
    assert learner.goals.imagined[candidates[:from_imagined]].all()
    assert not learner.goals.imagined[candidates[from_imagined:]].any()
    off = learner.relabeler.sample_candidates(count, 50, imagined, False).numpy()
    assert not learner.goals.imagined[off].any()


def test_actors_target_imagined_goals_in_half_the_cycles_while_imagining():
    from tests.agent.acting_test import make_actor

    builder, actor = make_actor(dataclasses.replace(CONFIG, architecture="ma"))
    sentences = ["Go left", "Go right", "Grow red door", "Grasp green dog"]
    imagined = np.array([False, False, True, True])
    embeddings = np.random.default_rng(0).normal(size=(4, 100)).astype(np.float32)
    actor.set_goals(GoalView(sentences, embeddings, imagined, imagining=True))
    cycles = [set(actor._targets()[1]) for _ in range(200)]
    imagined_cycles = sum(ids <= {2, 3} for ids in cycles)
    assert all(ids <= {0, 1} or ids <= {2, 3} for ids in cycles)  # one draw per cycle
    assert 70 < imagined_cycles < 130
    actor.set_goals(GoalView(sentences, embeddings, imagined, imagining=False))
    assert all(set(actor._targets()[1]) <= {0, 1} for _ in range(20))
    actor.set_goals(GoalView(sentences, embeddings, imagined, imagining=True))
    batch = actor.collect()  # imagined sentences outside the grammar make scenes too
    assert batch.observations.shape[0] == 4


def test_a_checkpoint_restores_the_imagined_set_and_the_heuristic(learner, tmp_path):
    from imagine_tf.runs.checkpoint import LearnerCheckpoint

    LearnerCheckpoint(learner, tmp_path).save()
    restored = RunBuilder(CONFIG).make_learner()
    assert LearnerCheckpoint(restored, tmp_path).restore()
    assert restored.goals.sentences == learner.goals.sentences
    np.testing.assert_array_equal(restored.goals.imagined, learner.goals.imagined)
    assert restored.imagination.imagined == learner.imagination.imagined
    assert restored.imagination.heuristic.invent() == learner.imagination.heuristic.invent()
    count = len(learner.goals)
    np.testing.assert_allclose(
        restored.embedding_table[:count], learner.embedding_table[:count], atol=1e-6
    )  # recomputed from the restored encoder
    assert restored.rng.random() == learner.rng.random()


def test_each_epoch_logs_the_imagined_set_and_the_learned_reward_on_test_goals():
    config = dataclasses.replace(
        CONFIG, reward="learned", reward_model=RewardModelConfig(architecture="ma", max_epochs=2)
    )
    learner = RunBuilder(config).make_learner()
    learner.observe(
        _batch(learner.builder, ["Grasp red cat", "Grasp blue dog", "Grow green cat", "Go left"])
    )
    record = learner.end_epoch({})
    assert record["imagined_goals"] == len(learner.imagination.imagined) > 0
    assert record["imagined_test_coverage"] == record["imagined_test_goals"] / 64
    assert 0 < record["imagined_precision"] <= 1
    assert 0 <= record["reward_test_goal_f1"] <= 1
    if record["imagined_test_goals"]:
        assert 0 <= record["reward_imagined_test_goal_f1"] <= 1
    oracle_run = RunBuilder(CONFIG).make_learner().end_epoch({})  # no learned reward: no probe
    assert "reward_test_goal_f1" not in oracle_run and "imagined_precision" in oracle_run
