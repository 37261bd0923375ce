"""DiscoveredGoals: discovery order, id mapping of the partner's descriptions, sampling."""

import numpy as np

from imagine_tf.agents.goal_sampler import DiscoveredGoals
from imagine_tf.language.social_partner import SocialPartner
from imagine_tf.playground import play


def test_discovery_from_real_partner_feedback():
    partner = SocialPartner()
    goals = DiscoveredGoals(partner.goals)
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
    restored = DiscoveredGoals(partner.goals)
    restored.load_state_dict(goals.state_dict())
    assert restored.sentences == goals.sentences
    np.testing.assert_array_equal(restored.achieved(descriptions), achieved)
