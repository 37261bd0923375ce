"""`make_vec("imagine_tf/Playground-v0", vectorization_mode="vector_entry_point")`: batched
spaces, next-step autoreset, agreement with the single environment, goals, seeding.

Gymnasium 1.2 has no checker for vector environments, so these tests check its contract
(spaces, shapes, dtypes, autoreset) explicitly."""

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

import imagine_tf  # noqa: F401  (registers the ids)
from imagine_tf.gymnasium_env import ENV_ID
from imagine_tf.gymnasium_env.vector_env import PlaygroundVectorEnv
from imagine_tf.language import grammar
from imagine_tf.language.social_partner import SocialPartner


def make_vec(num_envs, **kwargs):
    return gymnasium.make_vec(
        ENV_ID, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )


@pytest.mark.parametrize("goal_text", [False, True])
def test_spaces_are_the_single_environments_batched(goal_text):
    envs = make_vec(5, goal_text=goal_text)
    single = gymnasium.make(ENV_ID, goal_text=goal_text)
    assert isinstance(envs, PlaygroundVectorEnv) and envs.num_envs == 5
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.observation_space == batch_space(single.observation_space, 5)
    assert envs.action_space == batch_space(single.action_space, 5)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    observation, info = envs.reset(seed=0)
    assert observation in envs.observation_space
    assert observation["state"].shape == (5, 240) and observation["goal"].shape == (5, 4)
    assert list(info["goal"]) == envs.unwrapped.goals and info["_goal"].all()
    observation, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
    assert observation in envs.observation_space
    assert reward.shape == terminated.shape == truncated.shape == (5,)
    assert reward.dtype == np.float32 and terminated.dtype == truncated.dtype == bool


def test_next_step_autoreset_after_the_synchronous_truncation():
    envs = make_vec(6, episode_length=10)
    observation, info = envs.reset(seed=1)
    first_goals = list(info["goal"])
    for t in range(1, 11):
        observation, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
        np.testing.assert_array_equal(reward, np.where(info["is_success"], 0.0, -1.0))
        assert (
            not terminated.any() and truncated.all() == (t == 10) and truncated.any() == (t == 10)
        )
        assert ("descriptions" in info) == (t == 10)
    described = SocialPartner().describe(observation["state"])
    assert list(info["descriptions"]) == described and info["_descriptions"].all()
    # The next step resets every scene: actions ignored, reward 0, no flag, new goals.
    observation, reward, terminated, truncated, info = envs.step(np.full((6, 3), np.nan))
    np.testing.assert_array_equal(reward, 0.0)
    assert not terminated.any() and not truncated.any()
    assert set(info) == {"goal", "_goal"} and list(info["goal"]) == envs.unwrapped.goals
    assert list(info["goal"]) != first_goals
    half = observation["state"].shape[1] // 2
    np.testing.assert_array_equal(observation["state"][:, half:], 0.0)  # s_0: o_0 − o_0 = 0
    assert not envs.step(envs.action_space.sample())[3].any()  # a new episode


def test_one_scene_gives_the_single_environments_episodes():
    envs, env = make_vec(1), gymnasium.make(ENV_ID)
    vector_observation, _ = envs.reset(seed=4)
    observation, _ = env.reset(seed=4)
    actions = np.random.default_rng(0).uniform(-1, 1, size=(101, 3)).astype(np.float32)
    for action in actions:  # two episodes and the autoreset between them
        np.testing.assert_array_equal(vector_observation["state"][0], observation["state"])
        np.testing.assert_array_equal(vector_observation["goal"][0], observation["goal"])
        vector = envs.step(action[None])
        if vector[3][0] or not env.unwrapped._scenes.truncated:
            observation, reward, terminated, truncated, info = env.step(action)
            assert (reward, terminated, truncated) == (vector[1][0], vector[2][0], vector[3][0])
        else:
            observation, info = env.reset()
        vector_observation = vector[0]


def test_goals_per_scene_and_for_all_scenes():
    envs = make_vec(3)
    goals = ["Grasp red cat", "go left", "Grow any plant"]
    _, info = envs.reset(seed=0, options={"goals": goals})
    assert list(info["goal"]) == ["Grasp red cat", "Go left", "Grow any plant"]
    observation, info = envs.reset(options={"goal": "Go top"})
    assert list(info["goal"]) == ["Go top"] * 3
    decoded = envs.unwrapped._scenes.catalog.vocabulary.decode(observation["goal"])
    assert decoded == ["Go top"] * 3
    with pytest.raises(ValueError, match="one per scene"):
        envs.reset(options={"goals": goals[:2]})
    with pytest.raises(ValueError, match="Grasp purple cat"):
        envs.reset(options={"goals": ["Grasp purple cat"] * 3})
    with pytest.raises(ValueError, match="one int"):
        envs.reset(seed=[0, 1, 2])


def test_a_seed_fixes_every_scene_and_sampled_goals_are_training_goals():
    def rollout(seed):
        envs = make_vec(8)
        envs.action_space.seed(seed)
        observation, info = envs.reset(seed=seed)
        states, rewards = [observation["state"]], []
        for _ in range(60):  # past the autoreset
            observation, reward, *_ = envs.step(envs.action_space.sample())
            states.append(observation["state"])
            rewards.append(reward)
        return list(info["goal"]), np.stack(states), np.stack(rewards)

    first, again, other = rollout(3), rollout(3), rollout(4)
    assert first[0] == again[0] and set(first[0]) <= set(grammar.train_goals())
    np.testing.assert_array_equal(first[1], again[1])
    np.testing.assert_array_equal(first[2], again[2])
    assert not np.array_equal(first[1][0], other[1][0])


def test_render_and_errors():
    envs = make_vec(2, render_mode="rgb_array")
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros((2, 3), np.float32))
    envs.reset(seed=0)
    frames = envs.render()
    assert len(frames) == 2 and frames[0].dtype == np.uint8 and frames[0].shape[2] == 3
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        envs.step(np.zeros((3, 3), np.float32))
    with pytest.raises(ValueError, match="num_envs"):
        PlaygroundVectorEnv(num_envs=0)
