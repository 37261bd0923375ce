"""RewardMemory: positives / negatives as discovered then, FIFO, held-out rows, sampling tables."""

import numpy as np
import pytest

from imagine_tf.reward.memory import RewardMemory


def test_negatives_are_the_goals_known_then_and_not_described():
    memory = RewardMemory(10, 4, max_goals=5)
    memory.add(np.zeros((2, 4)), np.array([[True, False], [False, False]]))  # 2 goals known
    memory.add(np.ones((1, 4)), np.array([[False, False, True]]))  # a 3rd goal discovered
    assert memory.positives[:3, :3].tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 1]]
    assert memory.negatives[:3, :3].tolist() == [[0, 1, 0], [1, 1, 0], [1, 1, 0]]


def test_fifo_and_held_out_rows():
    memory = RewardMemory(4, 1, max_goals=2)
    for value in range(6):
        memory.add(np.full((1, 1), value), np.array([[value % 2 == 0, True]]))
    assert memory.size == 4 and sorted(memory.states[:, 0]) == [2, 3, 4, 5]
    held = memory.held_out_rows(num_new=3)
    assert sorted(memory.states[held, 0]) == [3, 4, 5]
    assert memory.held_out_rows(num_new=500, max_held_out=2).size == 2


def test_sampling_tables_group_rows_per_goal_without_the_held_out_rows():
    memory = RewardMemory(10, 1, max_goals=3)
    achieved = np.array([[1, 0], [1, 1], [0, 1], [1, 1]], bool)  # goal 2 of 3: never given
    memory.add(np.arange(4.0)[:, None], achieved)
    tables = memory.sampling_tables(exclude_rows=np.array([3]))
    positive_rows = [
        list(tables.positive_rows[s : s + c])
        for s, c in zip(tables.positive_start, tables.positive_count)
    ]
    assert positive_rows == [[0, 1], [1, 2]]  # only the goal columns ever given
    assert tables.negative_count.tolist() == [1, 1]  # row 2 for goal 0, row 0 for goal 1
    assert tables.present.tolist() == [0, 1] and tables.both.tolist() == [True, True]
    assert tables.positive_rows[-1] == 0  # the spare row
    with pytest.raises(ValueError, match="no labelled goal"):
        RewardMemory(2, 1, max_goals=1).sampling_tables()


def test_more_goals_than_tracked_is_refused():
    memory = RewardMemory(10, 2, max_goals=3)
    with pytest.raises(ValueError, match="max_goals = 3"):
        memory.add(np.zeros((1, 2)), np.zeros((1, 4), bool))
