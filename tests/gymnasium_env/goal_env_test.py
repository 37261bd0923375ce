"""`imagine_tf/PlaygroundGoal-v0`: the checker, and `compute_reward` against the oracle."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import imagine_tf  # noqa: F401  (registers the ids)
from imagine_tf.gymnasium_env import GOAL_ENV_ID
from imagine_tf.gymnasium_env.scenes import SceneBatch
from imagine_tf.language import grammar, oracle
from imagine_tf.policies.scripted_policy import ScriptedPolicy


@pytest.mark.parametrize("relational", [False, True])
def test_gymnasiums_checker_passes(relational):
    env = gymnasium.make(GOAL_ENV_ID, relational=relational)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    goals = 415 if relational else 255
    for key in ("achieved_goal", "desired_goal"):
        assert env.observation_space[key].shape == (goals,)


def test_the_desired_goal_is_the_episodes_goal_and_the_step_reward_is_compute_reward():
    env = gymnasium.make(GOAL_ENV_ID)
    unwrapped = env.unwrapped
    observation, info = env.reset(seed=0, options={"goal": "Go right"})
    (column,) = np.flatnonzero(observation["desired_goal"])
    assert unwrapped.goal_sentences[column] == "Go right"
    assert unwrapped.vocabulary.decode(unwrapped.goal_tokens[column]) == ["Go right"]
    rewards = []
    for t in range(50):
        action = np.array([1.0, 0.3, 0.0], np.float32) * (-1) ** (t // 4)
        observation, reward, _, _, info = env.step(action)
        ag, dg = observation["achieved_goal"], observation["desired_goal"]
        assert reward == unwrapped.compute_reward(ag, dg, info)  # Stable-Baselines3's check
        batch = unwrapped.compute_reward(np.stack([ag, ag]), np.stack([dg, dg]), [info, info])
        np.testing.assert_array_equal(batch, [reward, reward])
        assert unwrapped.compute_reward(ag, ag, info) == 0.0  # a state achieves its own goals
        rewards.append(reward)
    assert set(rewards) == {0.0, -1.0}


def scripted_episodes(num_states, seed):
    """Final states of scripted episodes towards random goals (grasps, growth, zones), and
    those goals."""
    scenes = SceneBatch(num_states, split="all", relational=True)
    expert = ScriptedPolicy(scenes.catalog.table, noise_std=0.3, seed=seed)
    state = scenes.reset(np.random.default_rng(seed))
    while not scenes.truncated:
        state, _ = scenes.step(expert.action(state, scenes.goal_ids))
    return state, scenes.goal_ids


def test_compute_reward_is_the_oracles_on_random_states_and_goals():
    env = gymnasium.make(GOAL_ENV_ID, relational=True).unwrapped
    table = env._scenes.catalog.table
    one_hot = np.eye(len(table), dtype=np.int8)
    states, targets = scripted_episodes(512, seed=0)
    achieved = oracle.achieved_matrix(states, table).astype(np.int8)  # what observations hold
    random_goals = np.random.default_rng(0).integers(0, len(table), size=len(states))
    for goal_ids in (random_goals, targets):
        rewards = env.compute_reward(achieved, one_hot[goal_ids], None)
        assert rewards.shape == (512,) and rewards.dtype == np.float32
        truth = oracle.achieved(states, table, goal_ids)
        np.testing.assert_array_equal(rewards, np.where(truth, 0.0, -1.0))
        assert 0 < truth.sum() < 512  # both outcomes are tested
    assert oracle.achieved(states, table, targets).mean() > 0.5  # the expert reached most


def test_observations_carry_the_oracles_verdict_on_every_goal():
    env = gymnasium.make(GOAL_ENV_ID)
    observation, _ = env.reset(seed=2)
    table = env.unwrapped._scenes.catalog.table
    for _ in range(20):
        observation, *_ = env.step(env.action_space.sample())
        expected = oracle.achieved_matrix(observation["observation"][None], table)[0]
        expected &= np.array([not grammar.is_test_goal(s) for s in table.sentences])
        np.testing.assert_array_equal(observation["achieved_goal"], expected)
        assert observation["achieved_goal"].any()  # some Go zone always holds


def test_goals_of_the_wrong_shape_are_refused():
    env = gymnasium.make(GOAL_ENV_ID).unwrapped
    with pytest.raises(ValueError, match=r"\[\.\.\., 255\]"):
        env.compute_reward(np.zeros((2, 255)), np.zeros((2, 4)), None)
    with pytest.raises(ValueError, match="goal_text"):
        gymnasium.make(GOAL_ENV_ID, goal_text=True)


def test_no_held_out_goal_is_ever_achieved_in_the_train_split_unless_asked():
    states, _ = scripted_episodes(512, seed=1)  # the expert reaches test goals too
    held_out = np.array([grammar.is_test_goal(s) for s in SceneBatch(1).catalog.table.sentences])
    train = gymnasium.make(GOAL_ENV_ID).unwrapped.goal_sets
    asked = gymnasium.make(GOAL_ENV_ID, achieved_test_goals=True).unwrapped.goal_sets
    every = gymnasium.make(GOAL_ENV_ID, split="all").unwrapped.goal_sets
    one_object = states  # N = 3 states: the one-object goals' table reads them too
    full = oracle.achieved_matrix(one_object, train.table)
    assert full[:, held_out].any()  # test goals are achieved in these states
    assert not train.achieved(one_object)[:, held_out].any()  # and never reported
    np.testing.assert_array_equal(train.achieved(one_object)[:, ~held_out], full[:, ~held_out])
    for sets in (asked, every):
        np.testing.assert_array_equal(sets.achieved(one_object), full)
    given = gymnasium.make(GOAL_ENV_ID, goals=["Grasp red tree"]).unwrapped.goal_sets
    assert given.counted[held_out].sum() == 1  # a goal it is given counts


def test_the_vector_form_restricts_goals_and_computes_rewards_through_wrappers():
    goals = ["Go left", "Grasp red cat"]
    envs = gymnasium.make_vec(
        GOAL_ENV_ID, num_envs=8, vectorization_mode="vector_entry_point", goals=goals
    )
    observation, info = envs.reset(seed=0)
    assert set(info["goal"]) <= set(goals) and observation["achieved_goal"].shape == (8, 255)
    sampled = set()
    for _ in range(3 * 51):  # three episodes, autoresets included
        observation, reward, _, _, info = envs.step(envs.action_space.sample())
        sampled |= set(info.get("goal", ()))
        achieved, desired = observation["achieved_goal"], observation["desired_goal"]
        if "goal" in info:  # the autoreset step: first observations, reward 0
            continue
        infos = np.array([{}] * 8)  # HER passes an array of infos
        rewards = envs.unwrapped.compute_reward(achieved, desired, infos)
        np.testing.assert_array_equal(rewards, reward)
    assert sampled == set(goals)
    single = gymnasium.make(GOAL_ENV_ID, goals=goals)
    compute = single.get_wrapper_attr("compute_reward")  # through Gymnasium's wrappers
    observation, _ = single.reset(seed=0)
    pair = observation["achieved_goal"][None], observation["desired_goal"][None]
    assert compute(*pair).shape == (1,)
    with pytest.raises(ValueError, match="non-empty list"):
        gymnasium.make(GOAL_ENV_ID, goals="Go left")
    with pytest.raises(ValueError, match="Unknown goal"):
        gymnasium.make(GOAL_ENV_ID, goals=["Go purple"])
