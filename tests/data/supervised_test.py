"""Supervised examples: labels from the oracle, balanced batches."""

import numpy as np
import pytest

from imagine_tf.data.episodes import EpisodeSpec, generate_episodes, rbf_actions
from imagine_tf.data.supervised import generate_supervised_data
from imagine_tf.language import grammar


@pytest.fixture(scope="module")
def data():
    return generate_supervised_data(EpisodeSpec(seed=1), 200)


def test_episodes_follow_the_rlds_layout_and_are_reproducible():
    first = dict(generate_episodes(EpisodeSpec(seed=2), 0, 8, batch_size=4))
    again = dict(generate_episodes(EpisodeSpec(seed=2), 4, 8, batch_size=4))
    episode = first[5]
    steps = episode["steps"]
    assert steps["observation"]["state"].shape == (51, 240) and steps["action"].shape == (51, 3)
    assert steps["is_first"][0] and steps["is_last"][-1] and not steps["is_terminal"].any()
    np.testing.assert_array_equal(steps["action"][-1], 0.0)
    assert episode["goal"] == (grammar.one_object_goals() + grammar.relational_goals())[5]
    np.testing.assert_array_equal(
        again[5]["steps"]["observation"]["state"], steps["observation"]["state"]
    )
    assert set(episode["descriptions"]) <= set(grammar.train_goals(True) + grammar.train_goals())


def test_rbf_actions_are_smooth_and_bounded():
    actions = rbf_actions(np.random.default_rng(0), 16, 50)
    assert actions.shape == (50, 16, 3) and np.abs(actions).max() <= 1
    assert np.abs(np.diff(actions, axis=0)).mean() < 0.2  # smooth in time


def test_labels_and_splits(data):
    assert data.train_states.shape == (180, 240) and data.test_states.shape == (20 * 51, 240)
    assert data.train_labels.shape == (180, 415)
    assert data.is_test_goal.sum() == 64 + 2 and data.is_relational.sum() == 160
    # Scripted episodes reach their goals: many positives across goals.
    assert data.train_labels.any(axis=0).sum() > 100
    assert (data.generalization_type > 0).sum() == 64
