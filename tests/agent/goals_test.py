"""KnownGoals: discovery order, id mapping of the partner's descriptions, imagined goals."""

import numpy as np
import pytest

from imagine_tf.agent.goals import KnownGoals
from imagine_tf.language.social_partner import SocialPartner
from imagine_tf.playground import play


def test_discovery_from_real_partner_feedback():
    partner = SocialPartner()
    goals = KnownGoals(partner.goals)
    assert goals.sample(np.random.default_rng(0), 3) is None  # nothing discovered yet
    first = play(["Grasp red cat", "Go left"], seed=0)
    descriptions = partner.describe_matrix(first.states[-1])
    new = goals.discover(descriptions)
    assert list(new) == list(range(len(goals))) and len(goals) == descriptions.any(axis=0).sum()
    assert "Grasp red cat" in goals.sentences and "Go left" in goals.sentences
    # The same feedback again discovers nothing; ids follow discovery order.
    assert goals.discover(descriptions).size == 0
    second = play(["Grow any plant"], seed=1)
    more = goals.discover(partner.describe_matrix(second.states[-1]))
    assert more.size > 0 and more[0] == len(goals) - more.size
    # achieved() maps the partner's columns onto discovered ids.
    achieved = goals.achieved(descriptions)
    described = [set(np.array(partner.goals)[row]) for row in descriptions]
    for row, sentences in zip(achieved, described):
        assert {goals.sentences[i] for i in np.flatnonzero(row)} == sentences
    targets = goals.sample(np.random.default_rng(0), 10_000)
    assert set(targets) == set(range(len(goals)))
    restored = KnownGoals(partner.goals)
    restored.load_state_dict(goals.state_dict())
    assert restored.sentences == goals.sentences
    np.testing.assert_array_equal(restored.achieved(descriptions), achieved)


def test_imagined_goals_share_the_ids_and_become_discovered_when_described():
    partner = SocialPartner()
    goals = KnownGoals(partner.goals, max_goals=3)
    descriptions = np.zeros((2, len(partner.goals)), bool)
    descriptions[0, partner.goals.index("Go left")] = True
    goals.discover(descriptions)
    ids = goals.imagine(["Grow red door", "Go right", "Go left"])  # "Go left" is known
    assert ids.tolist() == [1, 2] and goals.imagined_ids.tolist() == [1, 2]
    assert goals.sample(np.random.default_rng(0), 50, imagined=True).tolist().count(0) == 0
    # imagined goals are neither positives nor negatives: achieved() is False for them
    descriptions[1, partner.goals.index("Go right")] = True
    assert not goals.achieved(descriptions)[:, 1].any()
    assert goals.discover(descriptions).tolist() == [2]  # "Go right" keeps its id
    assert goals.imagined_ids.tolist() == [1] and goals.num_discovered == 2
    assert goals.achieved(descriptions).tolist() == [[True, False, False], [False, False, True]]
    restored = KnownGoals(partner.goals, max_goals=3)
    restored.load_state_dict(goals.state_dict())
    assert restored.sentences == goals.sentences
    np.testing.assert_array_equal(restored.imagined, goals.imagined)
    np.testing.assert_array_equal(restored.achieved(descriptions), goals.achieved(descriptions))
    with pytest.raises(ValueError, match="max_imagined_goals"):
        goals.imagine(["Grow blue door"])
