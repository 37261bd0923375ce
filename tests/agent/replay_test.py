"""EpisodeReplay: FIFO, state reconstruction, goal-biased sampling, save/restore."""

import numpy as np
import pytest

from imagine_tf.agent.replay import EpisodeReplay

T, OBS = 5, 3 + 39 * 3


def episodes(count, start=0, achieved=None, goals=4):
    observations = np.arange(start, start + count, dtype=np.float32)[
        :, None, None
    ] * 1000 + np.arange(T + 1)[None, :, None] * np.ones((1, 1, OBS), np.float32)
    actions = np.full((count, T, 3), 0.5, np.float32)
    goal_ids = np.arange(start, start + count) % goals
    embeddings = np.tile(goal_ids[:, None], (1, 100)).astype(np.float32)
    achieved = np.zeros((count, goals), bool) if achieved is None else achieved
    return observations, actions, goal_ids, embeddings, achieved


def test_states_are_rebuilt_as_current_and_delta_to_the_first_observation():
    replay = EpisodeReplay(10, T, OBS, seed=0)
    replay.add(*episodes(3))
    batch = replay.sample(64)
    index = batch.episodes.astype(np.float32) * 1000
    np.testing.assert_array_equal(batch.states[:, 0], index + batch.steps)
    np.testing.assert_array_equal(batch.states[:, OBS], batch.steps)  # o_t - o_0
    np.testing.assert_array_equal(batch.next_states[:, OBS], batch.steps + 1)
    assert batch.steps.min() >= 0 and batch.steps.max() <= T - 1
    np.testing.assert_array_equal(batch.goal_embeddings[:, 0], batch.goal_ids)


def test_fifo_overwrites_the_oldest_and_forgets_their_achievements():
    replay = EpisodeReplay(4, T, OBS, seed=0)
    first = np.zeros((3, 4), bool)
    first[0, 2] = True  # only episode 0 achieved goal 2
    replay.add(*episodes(3, achieved=first))
    assert list(replay.reached_goals) == [2]
    slots = replay.add(*episodes(3, start=3))
    assert list(slots) == [3, 0, 1] and replay.size == 4 and replay.episodes_added == 6
    assert replay.reached_goals.size == 0  # episode 0 was overwritten
    assert sorted(replay.observations[:, 0, 0] // 1000) == [2, 3, 4, 5]


def test_sampling_is_uniform_over_reached_goals_then_over_their_episodes():
    replay = EpisodeReplay(100, T, OBS, seed=1)
    achieved = np.zeros((100, 4), bool)
    achieved[:90, 0] = True  # goal 0: 90 episodes
    achieved[90:, 1] = True  # goal 1: 10 episodes
    achieved[95, 3] = True  # goal 3: 1 episode
    replay.add(*episodes(100, achieved=achieved))
    sampled, _ = replay.sample_episodes(30_000)
    goal_of = np.where(sampled < 90, 0, 1)
    # Each reached goal gets 1/3 of the draws: goal 0's episodes get ~1/3, not 90 %.
    assert abs(np.mean(goal_of == 0) - 1 / 3) < 0.02
    assert abs(np.mean(sampled == 95) - (1 / 3 + 1 / 3 / 10)) < 0.02
    assert np.unique(sampled[sampled < 90]).size == 90
    # A batch says which goal each episode was drawn for, and that episode achieved it.
    batch = replay.sample(2_000)
    assert np.all(replay.achieved[batch.episodes, batch.sampled_goal_ids])
    assert set(batch.sampled_goal_ids) == {0, 1, 3}


def test_uniform_while_no_goal_is_reached_and_clear_errors():
    replay = EpisodeReplay(10, T, OBS, max_goals=4, seed=0)
    with pytest.raises(ValueError, match="empty"):
        replay.sample(1)
    replay.add(*episodes(5))
    assert set(replay.sample_episodes(500)[0]) == set(range(5))
    assert np.all(replay.sample(50).sampled_goal_ids == -1)  # drawn uniformly: no goal
    with pytest.raises(ValueError, match=r"shape \(2, 6, 120\)"):
        replay.add(np.zeros((2, 3, OBS)), *episodes(2)[1:])
    with pytest.raises(ValueError, match="max_goals = 4"):
        replay.add(*episodes(2, achieved=np.zeros((2, 9), bool)))


def test_state_dict_round_trip_gives_the_same_future():
    replay = EpisodeReplay(10, T, OBS, seed=3)
    achieved = np.eye(6, 4, dtype=bool)
    replay.add(*episodes(6, achieved=achieved))
    replay.sample(7)
    restored = EpisodeReplay(10, T, OBS, seed=99)
    restored.load_state_dict(replay.state_dict())
    a, b = replay.sample(32), restored.sample(32)
    np.testing.assert_array_equal(a.episodes, b.episodes)
    np.testing.assert_array_equal(a.states, b.states)
    assert list(restored.reached_goals) == list(replay.reached_goals)
