"""`imagine_tf/Playground-v0`: Gymnasium's checker, goals, the oracle's reward, the time limit,
the partner's descriptions, seeding, rendering and the README's example."""

import pathlib
import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import imagine_tf  # noqa: F401  (registers the ids)
from imagine_tf.gymnasium_env import ENV_ID
from imagine_tf.gymnasium_env.env import PlaygroundGymEnv
from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.language.social_partner import SocialPartner

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def checked(env):
    """Runs Gymnasium's `check_env`, failing on any warning it gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


@pytest.mark.parametrize(
    "kwargs", [{}, {"goal_text": True}, {"relational": True, "num_objects": 4}]
)
def test_gymnasiums_checker_passes(kwargs):
    checked(gymnasium.make(ENV_ID, **kwargs))


def test_spaces_and_a_first_observation():
    env = gymnasium.make(ENV_ID, num_objects=3, goal_text=True)
    observation, info = env.reset(seed=0, options={"goal": "grasp  Red cat"})
    assert info == {"goal": "Grasp red cat"} and observation["goal_text"] == "Grasp red cat"
    assert observation["state"].shape == (240,) and observation["state"].dtype == np.float32
    words = env.unwrapped.vocabulary.decode(observation["goal"])
    assert words == ["Grasp red cat"] and observation["goal"].dtype == np.int32
    assert observation in env.observation_space
    assert env.action_space.shape == (3,) and env.action_space.dtype == np.float32


def test_goals_are_sampled_from_the_training_split_with_np_random():
    env = gymnasium.make(ENV_ID)
    goals = {env.reset(seed=seed)[1]["goal"] for seed in range(60)}
    assert goals <= set(grammar.train_goals()) and len(goals) > 40
    env.reset(seed=5, options={"goal": "Grow red tree"})  # a test goal, set explicitly
    assert env.unwrapped.goal == "Grow red tree"
    assert env.reset()[1]["goal"] in grammar.train_goals()  # the option lasts one episode
    assert gymnasium.make(ENV_ID, split="test").reset(seed=0)[1]["goal"] in grammar.test_goals()


@pytest.mark.parametrize(
    "options, error, words",
    [
        ({"goal": "Grasp purple cat"}, ValueError, ["'Grasp purple cat'", "Grasp red cat"]),
        ({"goal": "Grasp any left_of red thing"}, ValueError, ["two-object", "relational=True"]),
        ({"goals": ["Go left", "Go right"]}, ValueError, ["2 sentences", "one per scene (1)"]),
        ({"gaol": "Go left"}, ValueError, ["['gaol']", "'goal'"]),
        ({"goal": 3}, TypeError, ["sentence", "int"]),
    ],
)
def test_bad_goals_raise_errors_that_say_what_to_do(options, error, words):
    env = gymnasium.make(ENV_ID)
    with pytest.raises(error) as raised:
        env.reset(seed=0, options=options)
    for word in words:
        assert word in str(raised.value)


def test_reward_is_the_oracles_and_the_episode_is_truncated_after_50_steps():
    env = gymnasium.make(ENV_ID)
    table = GoalTable.from_sentences(grammar.one_object_goals())
    # "Go right": a random walk reaches x > 0.05 now and then, so both rewards occur.
    observation, info = env.reset(seed=3, options={"goal": "Go right"})
    goal_id = table.index(["Go right"])
    rewards = []
    for t in range(1, 51):
        observation, reward, terminated, truncated, info = env.step(
            np.array([1.0, 0, 0]) * (-1) ** (t // 4)
        )
        expected = oracle.achieved(observation["state"][None], table, goal_id)[0]
        assert reward == (0.0 if expected else -1.0) and info["is_success"] == expected
        assert terminated is False and truncated is (t == 50)
        assert ("descriptions" in info) is (t == 50)
        rewards.append(reward)
    assert set(rewards) == {0.0, -1.0}
    with pytest.raises(RuntimeError, match="reset"):
        env.step(env.action_space.sample())


def test_the_last_step_gives_the_partners_descriptions_of_the_final_state():
    env = gymnasium.make(ENV_ID, episode_length=12)
    env.reset(seed=1, options={"goal": "Go top left"})
    for _ in range(12):
        observation, _, _, truncated, info = env.step(np.array([-1.0, 1.0, 0.0], np.float32))
    assert truncated
    assert info["descriptions"] == SocialPartner().describe(observation["state"][None])[0]
    assert "Go top left" in info["descriptions"] and info["is_success"]


def test_a_seed_fixes_the_goals_the_scenes_and_the_rewards():
    def episode(seed):
        env = gymnasium.make(ENV_ID)
        env.action_space.seed(seed)
        observation, info = env.reset(seed=seed)
        states, rewards = [observation["state"]], []
        for _ in range(50):
            observation, reward, *_ = env.step(env.action_space.sample())
            states.append(observation["state"])
            rewards.append(reward)
        observation, next_info = env.reset()  # the next episode follows from the seed too
        return info["goal"], np.stack(states), rewards, next_info["goal"], observation["state"]

    first, again, other = episode(7), episode(7), episode(8)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[1][0], other[1][0])


def test_actions_of_the_wrong_shape_are_refused():
    env = gymnasium.make(ENV_ID)
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.step(np.zeros(3))
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        env.unwrapped.step(np.zeros(2))


def test_rgb_array_rendering():
    env = gymnasium.make(ENV_ID, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    unrendered = gymnasium.make(ENV_ID)
    unrendered.reset(seed=0)
    assert unrendered.render() is None
    with pytest.raises(ValueError, match="render_mode"):
        PlaygroundGymEnv(render_mode="ansi")


def test_the_readme_example_runs():
    text = README.read_text()
    block = re.search(r"### Gymnasium\n.*?```python\n(.*?)```", text, re.S)
    assert block, "README.md has a '### Gymnasium' section with a python block"
    exec(compile(block.group(1), "README.md", "exec"), {})
