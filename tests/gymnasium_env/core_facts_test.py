"""`core_facts` reads from the core's arrays exactly what `decode_observation` reads from its
observation, at every step of scripted and random episodes."""

import dataclasses

import numpy as np
import pytest

from imagine_tf.env.observation import decode_observation
from imagine_tf.gymnasium_env.core_facts import current_facts, initial_facts
from imagine_tf.gymnasium_env.scenes import SceneBatch
from imagine_tf.policies.scripted_policy import ScriptedPolicy


def assert_same_facts(facts, expected):
    for field in dataclasses.fields(expected):
        actual, wanted = getattr(facts, field.name), getattr(expected, field.name)
        assert actual.shape == wanted.shape, field.name
        np.testing.assert_array_equal(actual, wanted, err_msg=field.name)


@pytest.mark.parametrize("num_objects", [2, 3, 6])
def test_the_facts_of_the_core_are_the_decoded_observations(num_objects):
    scenes = SceneBatch(128, num_objects=num_objects, split="all", relational=True)
    expert = ScriptedPolicy(scenes.catalog.table, noise_std=0.4, seed=0)
    rng = np.random.default_rng(0)
    grown = held = 0
    for episode in range(2):
        state = scenes.reset(rng)
        initial = initial_facts(scenes.core)
        assert_same_facts(initial, decode_observation(state))
        while not scenes.truncated:
            if episode == 0:
                action = expert.action(state, scenes.goal_ids)
            else:
                action = rng.uniform(-1, 1, size=(128, 3)).astype(np.float32)
            state, _ = scenes.step(action)
            facts = current_facts(scenes.core, initial)
            assert_same_facts(facts, decode_observation(state))
            grown, held = grown + facts.grown.sum(), held + facts.held.sum()
    assert held > 0 and grown > 0  # the episodes grasp and grow things
