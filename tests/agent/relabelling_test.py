"""HerRelabeler: balanced relabelling, rewards consistent with the scorer, learned = oracle path."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.agent.relabelling import HerRelabeler, LearnedRewardScorer, OracleScorer
from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.network import RewardNetwork
from imagine_tf.playground import play


class MatrixScorer:
    """A scorer whose answers are a fixed bool matrix [B, G] (rows = transitions)."""

    def __init__(self, matrix):
        self.matrix = tf.constant(matrix)

    def scan(self, states, goal_ids, goal_embeddings):
        return tf.gather(self.matrix, goal_ids, axis=1)

    def scan_many(self, states, goal_ids, goal_embeddings):
        return tf.map_fn(
            lambda ids: tf.gather(self.matrix, ids, axis=1), goal_ids, fn_output_signature=tf.bool
        )

    def score(self, states, goal_ids, goal_embeddings):
        return tf.gather(self.matrix, goal_ids, axis=1, batch_dims=1)


def relabel_with(matrix, goal_ids, seed=0, ratio=0.5):
    batch, goals = matrix.shape
    relabeler = HerRelabeler(MatrixScorer(matrix), positive_ratio=ratio, seed=seed)
    embeddings = tf.eye(goals)  # embedding of goal g = one-hot g
    states = tf.zeros([batch, 240])
    candidates = tf.range(goals, dtype=tf.int64)
    return relabeler.relabel(
        states,
        states,
        tf.constant(goal_ids),
        tf.gather(embeddings, goal_ids),
        candidates,
        embeddings,
    )


def test_first_half_with_positives_get_positive_goals_the_rest_negatives():
    rng = np.random.default_rng(0)
    matrix = rng.random((256, 50)) < 0.02
    matrix[:, 0] = False
    goal_ids = rng.integers(0, 50, 256)
    result = relabel_with(matrix, goal_ids)
    ids, rewards = result.goal_ids.numpy(), result.rewards.numpy()
    has_positive = matrix.any(axis=1)
    first_positives = np.flatnonzero(has_positive)[:128]
    assert np.all(rewards[first_positives] == 0) and np.sum(rewards == 0) == min(
        128, has_positive.sum()
    )
    assert np.all(result.relabelled.numpy())
    # Every reward is what the scorer says of (transition, new goal); embeddings follow ids.
    np.testing.assert_array_equal(rewards == 0, matrix[np.arange(256), ids])
    np.testing.assert_array_equal(np.argmax(result.goal_embeddings.numpy(), axis=1), ids)


def test_fewer_positives_than_wanted_and_all_positive_rows():
    matrix = np.zeros((8, 5), bool)
    matrix[3, 2] = True  # one transition with one positive candidate
    matrix[6] = True  # all candidates positive: becomes the positive (rank 2 <= 4)
    result = relabel_with(matrix, np.array([0, 1, 2, 3, 4, 0, 1, 2]))
    rewards = result.rewards.numpy()
    assert rewards[3] == 0 and result.goal_ids.numpy()[3] == 2
    assert rewards[6] == 0 and np.sum(rewards == 0) == 2
    # With ratio 0 nothing is positive; row 6 has no negative candidate and keeps its goal,
    # rewarded by the scorer (achieved: r = 0).
    kept = relabel_with(matrix, np.array([0, 1, 2, 3, 4, 0, 1, 2]), ratio=0.0)
    assert (
        not kept.relabelled.numpy()[6]
        and kept.goal_ids.numpy()[6] == 1
        and kept.rewards.numpy()[6] == 0
    )
    assert np.all(kept.rewards.numpy()[np.arange(8) != 6] == -1)


def test_the_final_goal_share_keeps_the_goals_the_episodes_were_drawn_for():
    rng = np.random.default_rng(1)
    matrix = rng.random((16, 6)) < 0.3
    goal_ids = rng.integers(0, 6, 16)
    final_ids = rng.integers(0, 6, 16)
    final_ids[1] = -1  # drawn uniformly: no final goal, balanced like the rest
    embeddings = tf.eye(6)
    relabeler = HerRelabeler(MatrixScorer(matrix), seed=0, final_goal_ratio=0.25)
    states = tf.zeros([16, 240])
    args = (
        states,
        states,
        tf.constant(goal_ids),
        tf.gather(embeddings, goal_ids),
        tf.range(6, dtype=tf.int64),
        embeddings,
    )
    finals = (tf.constant(final_ids), tf.gather(embeddings, np.maximum(final_ids, 0)))
    result = relabeler.relabel(*args, *finals)
    ids, rewards = result.goal_ids.numpy(), result.rewards.numpy()
    final_rows = np.array([0, 2, 3])  # the first ⌊0.25 × 16⌋ = 4 rows that have a final goal
    np.testing.assert_array_equal(ids[final_rows], final_ids[final_rows])
    assert not np.any(result.relabelled.numpy()[final_rows])
    others = np.setdiff1d(np.arange(16), final_rows)
    has_negative = ~matrix[others].all(axis=1)
    assert np.all(result.relabelled.numpy()[others][has_negative])  # candidates for the rest
    # Rewards are the scorer's for (transition, goal): 0 where the final goal already holds at s_t.
    np.testing.assert_array_equal(rewards == 0, matrix[np.arange(16), ids])
    np.testing.assert_array_equal(np.argmax(result.goal_embeddings.numpy(), axis=1), ids)
    # The other 13 rows are balanced to ⌊0.5 × 13⌋ = 6 positives at most.
    assert np.sum(rewards[others] == 0) == min(6, matrix[others].any(axis=1).sum())
    # φ = 0 ignores the final goals: the same draws and results as the reference's relabelling.
    plain = HerRelabeler(MatrixScorer(matrix), seed=5).relabel(*args)
    given = HerRelabeler(MatrixScorer(matrix), seed=5).relabel(*args, *finals)
    for a, b in zip(plain, given):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match="final_goal_ratio must be in"):
        HerRelabeler(MatrixScorer(matrix), final_goal_ratio=1.5)
    with pytest.raises(ValueError, match="needs final_goal_ids"):
        relabeler.relabel(*args)


@pytest.fixture(scope="module")
def episode():
    goals = ["Grasp red cat", "Go left", "Grow any plant", "Grasp any furniture"] * 4
    return play(goals, policy="scripted", seed=3)


def test_oracle_scorer_rewards_match_the_oracle_on_real_states(episode):
    table = GoalTable.from_sentences(grammar.train_goals())
    states = episode.states[[10, 30, 50]].reshape(-1, episode.states.shape[-1])  # [48, D]
    relabeler = HerRelabeler(OracleScorer(table), seed=1)
    candidates = relabeler.sample_candidates(len(table), 50)
    assert len(set(candidates.numpy())) == 50
    own = tf.constant(np.arange(len(states)) % len(table), tf.int64)
    result = tf.function(relabeler.relabel)(
        tf.constant(states),
        tf.constant(states),
        own,
        tf.zeros([len(states), 100]),
        candidates,
        tf.zeros([50, 100]),
    )
    truth = oracle.achieved(states, table, result.goal_ids.numpy())
    np.testing.assert_array_equal(result.rewards.numpy() == 0, truth)
    assert 0 < np.mean(truth) <= 0.5


def test_learned_scorer_uses_one_scan_and_agrees_with_the_network(episode):
    vocabulary = Vocabulary.default()
    network = RewardNetwork("ma", vocabulary.words[1:], vocabulary.max_length)
    goals = grammar.train_goals()[:50]
    tokens = tf.constant(vocabulary.encode(goals))
    states = tf.constant(episode.states[-1])  # [16, D]
    network({"state": states[:1], "goal": tokens[:1]})
    embeddings = network.encoder(tokens)
    scorer = LearnedRewardScorer(network)
    scan = scorer.scan(states, tf.range(50, dtype=tf.int64), embeddings).numpy()
    expected = network.scan(states, embeddings).numpy() > 0.5
    np.testing.assert_array_equal(scan, expected)
    relabeler = HerRelabeler(scorer, seed=0)
    result = relabeler.relabel(
        states,
        states,
        tf.zeros([16], tf.int64),
        tf.gather(embeddings, tf.zeros([16], tf.int64)),
        tf.range(50, dtype=tf.int64),
        embeddings,
    )
    ids = result.goal_ids.numpy()
    np.testing.assert_array_equal(result.rewards.numpy() == 0, expected[np.arange(16), ids])


def test_bad_arguments():
    with pytest.raises(ValueError, match="reward_on"):
        HerRelabeler(MatrixScorer(np.zeros((1, 1), bool)), reward_on="later")
    with pytest.raises(ValueError, match="positive_ratio"):
        HerRelabeler(MatrixScorer(np.zeros((1, 1), bool)), positive_ratio=2.0)
