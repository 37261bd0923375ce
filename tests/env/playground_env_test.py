"""The TF-Agents environment: specs, validation, time limit, goals, rendering."""

import numpy as np
import pytest
import tensorflow as tf
from tf_agents.environments import tf_py_environment, utils

from imagine_tf.env.rendering import caption_height, render_state, render_states, write_episode
from imagine_tf.playground import make_env


def test_passes_tf_agents_validation():
    utils.validate_py_environment(make_env(batch_size=4, seed=0, episode_length=5), episodes=3)


@pytest.mark.parametrize("num_objects", [1, 3, 10])
def test_specs(num_objects):
    env = make_env(batch_size=3, num_objects=num_objects, seed=0)
    spec = env.observation_spec()
    assert spec["state"].shape == (2 * (3 + 39 * num_objects),)
    assert spec["goal"].shape == (4,) and spec["goal"].dtype == np.int32
    action = env.action_spec()
    assert action.shape == (3,) and action.dtype == np.float32
    assert (action.minimum, action.maximum) == (-1.0, 1.0)
    assert env.batched and env.batch_size == 3


def test_time_limit_is_a_truncation_after_50_steps():
    env = make_env(batch_size=2, seed=0)
    time_step = env.reset()
    for t in range(50):
        assert not time_step.is_last().any()
        time_step = env.step(np.zeros((2, 3), np.float32))
    assert time_step.is_last().all()
    np.testing.assert_array_equal(time_step.discount, 1.0)  # truncation, not termination
    assert env.step(np.zeros((2, 3), np.float32)).is_first().all()  # auto-reset


def test_reset_with_goals_sets_tokens_and_conditions_the_scene():
    env = make_env(batch_size=2, seed=0)
    time_step = env.reset_with_goals(["Grasp red cat", "grow ANY plant"])
    assert env.goals == ["Grasp red cat", "Grow any plant"]
    tokens = time_step.observation["goal"]
    assert tokens.shape == (2, 4) and (tokens[:, :3] > 0).all()
    assert env.core.object_type[0, 0] == 6  # "cat" in alphabetical one-hot order


def test_unknown_goal_names_the_nearest_goals():
    env = make_env(batch_size=1)
    with pytest.raises(ValueError, match="Grasp red cat"):
        env.reset_with_goals(["Grasp red kat"])
    with pytest.raises(ValueError, match="one per scene"):
        make_env(batch_size=2).set_goals(["Grasp red cat"] * 3)


def test_goal_reward_is_the_oracle():
    env = make_env(batch_size=1, seed=0, reward="goal")
    env.reset_with_goals(["Go right"])
    assert env.step(np.array([[1.0, 0.0, -1.0]], np.float32)).reward[0] == 0.0
    assert env.step(np.array([[-1.0, 0.0, -1.0]], np.float32)).reward[0] == -1.0
    quiet = make_env(batch_size=1, seed=0)
    quiet.reset()
    assert quiet.step(np.zeros((1, 3), np.float32)).reward[0] == 0.0


def test_bad_actions_are_rejected():
    env = make_env(batch_size=2, seed=0)
    env.reset()
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros((3, 3), np.float32))
    with pytest.raises(ValueError, match="finite"):
        env.step(np.full((2, 3), np.nan, np.float32))


def test_works_under_tf_py_environment():
    env = tf_py_environment.TFPyEnvironment(make_env(batch_size=3, seed=0))
    time_step = env.reset()
    assert time_step.observation["state"].shape == (3, 240)
    assert time_step.observation["goal"].dtype == tf.int32
    time_step = env.step(tf.zeros((3, 3)))
    assert time_step.step_type.shape == (3,)


def test_rendering_and_gif(tmp_path):
    env = make_env(batch_size=2, seed=0)
    env.reset()
    frames = env.render()
    assert frames.shape == (2, 480 + caption_height(480), 480, 3) and frames.dtype == np.uint8
    assert len(np.unique(frames.reshape(-1, 3), axis=0)) > 10  # objects drawn in colour
    path = write_episode(np.stack([frames[0], frames[1]]), str(tmp_path / "episode.gif"))
    from PIL import Image, ImageSequence

    with Image.open(path) as image:
        assert image.n_frames == 2
        decoded = [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(image)]
    # one shared palette: every frame within a few levels of what was rendered
    assert np.abs(np.stack(decoded).astype(int) - frames[:2]).max() <= 8
    write_episode(render_states(env.core.observation()[:1]), str(tmp_path / "last.png"))
    assert (tmp_path / "last.png").exists()
    with pytest.raises(ValueError, match="gif or .png"):
        write_episode(frames, str(tmp_path / "episode.mp4"))


def _ink_runs(columns: np.ndarray) -> list[int]:
    """Widths of the blank gaps between inked columns (bool [W])."""
    inked = np.flatnonzero(columns)
    return [int(b - a - 1) for a, b in zip(inked[:-1], inked[1:]) if b - a > 1]


def test_captions_keep_the_gaps_between_words():
    state = make_env(batch_size=1, seed=0).reset().observation["state"][0]
    band = caption_height(480)
    one_word = render_state(state, "Graspanyanimal")[:band].min(axis=-1) < 128
    three_words = render_state(state, "Grasp any animal")[:band].min(axis=-1) < 128
    widest_in_word = max(_ink_runs(one_word.any(axis=0)))
    gaps = sorted(_ink_runs(three_words.any(axis=0)), reverse=True)[:2]
    assert min(gaps) > widest_in_word + 2, (gaps, widest_in_word)
