"""RewardMemory: positives / negatives as discovered then, FIFO, held-out rows, batches."""

import numpy as np
import pytest

from imagine_tf.reward.reward_memory import RewardMemory


def test_negatives_are_the_goals_known_then_and_not_described():
    memory = RewardMemory(10, 4, max_goals=5, seed=0)
    memory.add(np.zeros((2, 4)), np.array([[True, False], [False, False]]))  # 2 goals known
    memory.add(np.ones((1, 4)), np.array([[False, False, True]]))  # a 3rd goal discovered
    assert memory.positives[:3, :3].tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 1]]
    assert memory.negatives[:3, :3].tolist() == [[0, 1, 0], [1, 1, 0], [1, 1, 0]]


def test_fifo_and_held_out_rows():
    memory = RewardMemory(4, 1, max_goals=2, seed=0)
    for value in range(6):
        memory.add(np.full((1, 1), value), np.array([[value % 2 == 0, True]]))
    assert memory.size == 4 and sorted(memory.states[:, 0]) == [2, 3, 4, 5]
    held = memory.held_out_rows(num_new=3)
    assert sorted(memory.states[held, 0]) == [3, 4, 5]
    assert memory.held_out_rows(num_new=500, max_held_out=2).size == 2


def test_batches_are_balanced_per_goal_and_skip_goals_without_both_classes():
    rng = np.random.default_rng(1)
    memory = RewardMemory(1000, 2, max_goals=3, seed=2)
    states = rng.normal(size=(1000, 2)).astype(np.float32)
    achieved = np.zeros((1000, 3), bool)
    achieved[:100, 0] = True  # goal 0: 100 positives
    achieved[:, 1] = True  # goal 1: no negative -> never sampled
    achieved[500:520, 2] = True  # goal 2: 20 positives
    memory.add(states, achieved)
    held = memory.held_out_rows(num_new=50)
    batch_states, goals, labels = next(memory.batches(512, positive_ratio=0.2, exclude_rows=held))
    assert set(goals) == {0, 2} and len(goals) < 512
    rows = [np.flatnonzero((states == s).all(axis=1))[0] for s in batch_states]
    assert not set(rows) & set(held)
    np.testing.assert_array_equal(labels == 1, achieved[rows, goals])
    counts = [next(memory.batches(512))[2].mean() for _ in range(20)]
    assert 0.15 < np.mean(counts) < 0.25
    with pytest.raises(ValueError, match="max_goals = 3"):
        memory.add(states[:1], np.zeros((1, 4), bool))
