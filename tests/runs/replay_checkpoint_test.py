"""ReplayCheckpoint: incremental saves restore the same ring buffer, prune, and survive crashes."""

import numpy as np
import pytest

from imagine_tf.agent.replay import EPISODE_FIELDS, EpisodeReplay
from imagine_tf.runs.replay_checkpoint import ReplayCheckpoint

LENGTH, DIM, GOALS = 4, 5, 6


def make(capacity=10, seed=0):
    return EpisodeReplay(capacity, LENGTH, DIM, embedding_dim=2, max_goals=GOALS, seed=seed)


def add(replay, count, start):
    """Episodes whose values encode their number (start, start + 1, ...)."""
    numbers = np.arange(start, start + count, dtype=np.float32)
    observations = np.broadcast_to(numbers[:, None, None], (count, LENGTH + 1, DIM))
    actions = np.broadcast_to(numbers[:, None, None], (count, LENGTH, 3))
    achieved = (np.arange(count)[:, None] + np.arange(GOALS)[None]) % 3 == 0
    replay.add(
        observations, actions, numbers.astype(np.int64), np.stack([numbers, -numbers], 1), achieved
    )


def restored_copy(checkpoint, replay):
    copy = make(replay.capacity)
    checkpoint.restore(copy, replay.episodes_added)
    copy.load_state_dict(replay.state_dict(include_episodes=False))
    return copy


def test_saves_write_only_new_episodes_and_restore_the_ring(tmp_path):
    replay, checkpoint = make(), ReplayCheckpoint(tmp_path / "replay")
    total = 0
    for count in (4, 3, 6, 5):  # 18 episodes in a ring of 10: wraps around
        add(replay, count, total)
        total += count
        checkpoint.save(replay)
        checkpoint.prune(replay.capacity)
    copy = restored_copy(checkpoint, replay)
    for name in EPISODE_FIELDS:
        np.testing.assert_array_equal(getattr(copy, name), getattr(replay, name))
    assert (copy.size, copy.next_index, copy.episodes_added) == (10, 8, 18)
    np.testing.assert_array_equal(copy.sample(32).goal_ids, replay.sample(32).goal_ids)
    # Files: [0, 4) and [4, 7) are fully overwritten (18 − 10 = 8 >= 7) and were pruned.
    assert sorted(p.name for p in (tmp_path / "replay").iterdir()) == [
        "episodes_000000000007.npz",
        "episodes_000000000013.npz",
    ]


def test_a_save_whose_main_checkpoint_never_landed_is_ignored(tmp_path):
    replay, checkpoint = make(), ReplayCheckpoint(tmp_path / "replay")
    add(replay, 4, 0)
    checkpoint.save(replay)
    main_checkpoint = replay.state_dict(include_episodes=False)  # written after the save
    add(replay, 3, 4)
    checkpoint.save(replay)  # ... and then the process is killed before the main checkpoint
    copy = make()
    checkpoint.restore(copy, int(main_checkpoint["episodes_added"]))
    copy.load_state_dict(main_checkpoint)
    assert copy.episodes_added == 4 and copy.size == 4
    np.testing.assert_array_equal(copy.goal_ids[:4], [0, 1, 2, 3])
    assert not copy.goal_ids[4:].any()
    assert [p.name for p in (tmp_path / "replay").iterdir()] == ["episodes_000000000000.npz"]


def test_missing_files_are_a_clear_error(tmp_path):
    replay, checkpoint = make(), ReplayCheckpoint(tmp_path / "replay")
    add(replay, 4, 0)
    checkpoint.save(replay)
    add(replay, 3, 4)
    checkpoint.save(replay)
    (tmp_path / "replay" / "episodes_000000000000.npz").unlink()
    with pytest.raises(ValueError, match="files are missing"):
        checkpoint.restore(make(), replay.episodes_added)


def test_files_of_a_run_without_a_checkpoint_are_dropped_and_rewritten(tmp_path):
    first_try = make()
    add(first_try, 4, 0)
    ReplayCheckpoint(tmp_path / "replay").save(first_try)  # killed before the main checkpoint
    replay, checkpoint = make(), ReplayCheckpoint(tmp_path / "replay")  # the restarted run
    checkpoint.restore(replay, 0)  # no main checkpoint: nothing to keep
    assert not list((tmp_path / "replay").iterdir())
    add(replay, 3, 100)  # other episodes this time
    checkpoint.save(replay)
    copy = restored_copy(ReplayCheckpoint(tmp_path / "replay"), replay)
    np.testing.assert_array_equal(copy.goal_ids[:3], [100, 101, 102])
