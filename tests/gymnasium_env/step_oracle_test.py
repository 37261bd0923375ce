"""`StepOracle` gives `oracle.achieved`'s verdict at every step, for every kind of goal."""

import numpy as np
import pytest

from imagine_tf.gymnasium_env.scenes import SceneBatch
from imagine_tf.language.goal_table import VERB_GO, VERB_GRASP, VERB_GROW, VERB_RELATIONAL
from imagine_tf.policies.scripted_policy import ScriptedPolicy


@pytest.mark.parametrize("relational, num_objects", [(False, 3), (True, 3), (True, 5)])
def test_the_step_oracle_is_the_oracle(relational, num_objects):
    scenes = SceneBatch(256, num_objects=num_objects, split="all", relational=relational)
    table = scenes.catalog.table
    rng = np.random.default_rng(0)
    expert = ScriptedPolicy(table, noise_std=0.4, seed=0)
    achieved_by_verb = np.zeros(4, dtype=int)
    for episode in range(4):  # scripted (noisy) and random episodes
        state = scenes.reset(rng)
        verbs = table.verb[scenes.goal_ids]
        while not scenes.truncated:
            if episode % 2 == 0:
                action = expert.action(state, scenes.goal_ids)
            else:
                action = rng.uniform(-1, 1, size=(256, 3)).astype(np.float32)
            state, achieved = scenes.step(action)
            truth = scenes.catalog.reward(state, scenes.goal_ids) == 0.0  # the oracle
            np.testing.assert_array_equal(achieved, truth)
            np.add.at(achieved_by_verb, verbs[truth], 1)
    kinds = [VERB_GO, VERB_GRASP, VERB_GROW] + ([VERB_RELATIONAL] if relational else [])
    assert (achieved_by_verb[kinds] > 0).all(), achieved_by_verb  # every kind was achieved
