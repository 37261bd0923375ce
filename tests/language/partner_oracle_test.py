"""The social partner says exactly what the oracle says is true (property test)."""

import os

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from imagine_tf.env import ontology
from imagine_tf.env.observation import step_dim
from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.language.social_partner import SocialPartner

FULL_PARTNER = SocialPartner(relational=True, include_test=True)
FULL_TABLE = GoalTable.from_sentences(FULL_PARTNER.goals)


def random_final_states(seed: int, batch: int, num_objects: int) -> np.ndarray:
    """Final states with random types, colours, positions, a held object and grown objects."""
    rng = np.random.default_rng(seed)
    dim = step_dim(num_objects)
    current, initial = np.zeros((batch, dim), np.float32), np.zeros((batch, dim), np.float32)
    current[:, 0:2] = rng.uniform(-1.2, 1.2, (batch, 2))
    # Sometimes exactly on a zone boundary, to exercise the strict inequalities.
    edges = np.array([-0.25, -0.05, 0.05, 0.25], np.float32)
    on_edge = rng.random((batch, 2)) < 0.2
    current[:, 0:2] = np.where(on_edge, rng.choice(edges, (batch, 2)), current[:, 0:2])
    current[:, 2] = rng.choice([-1.0, 1.0], batch)
    initial[:, 0:3] = 0.0
    objects = current[:, 3:].reshape(batch, num_objects, 39)
    start = initial[:, 3:].reshape(batch, num_objects, 39)
    types = rng.integers(0, 32, (batch, num_objects))
    objects[..., :32] = np.eye(32)[types]
    objects[..., 35:38] = ontology.sample_rgb(rng.integers(0, 3, (batch, num_objects)), rng)
    start_position = rng.uniform(-1, 1, (batch, num_objects, 2)).astype(np.float32)
    if num_objects > 1:  # sometimes a tie on x, to exercise the strict relations
        tie = rng.random(batch) < 0.2
        start_position[:, 1, 0] = np.where(tie, start_position[:, 0, 0], start_position[:, 1, 0])
    start[..., 32:34] = start_position
    objects[..., 32:34] = start_position + rng.normal(0, 0.3, start_position.shape)
    start[..., 34] = rng.uniform(0.2, 0.3, (batch, num_objects))
    growth = np.where(
        rng.random((batch, num_objects)) < 0.3,
        rng.choice([0.0005, 0.04, 0.08], (batch, num_objects)),
        0.0,
    )
    objects[..., 34] = start[..., 34] + growth
    held = np.where(rng.random(batch) < 0.7, rng.integers(0, num_objects, batch), -1)
    objects[..., 38] = np.where(np.arange(num_objects) == held[:, None], 1.0, -1.0)
    start[..., 38] = -1.0
    start[..., :32], start[..., 35:38] = objects[..., :32], objects[..., 35:38]
    return np.concatenate([current, current - initial], axis=1)


@settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", 25)), deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    batch=st.integers(1, 64),
    num_objects=st.integers(1, 6),
)
def test_partner_equals_oracle_on_random_states(seed, batch, num_objects):
    states = random_final_states(seed, batch, num_objects)
    said = FULL_PARTNER.describe_matrix(states)
    np.testing.assert_array_equal(said, oracle.achieved_matrix(states, FULL_TABLE))


def test_property_states_are_rich():
    states = random_final_states(0, 512, 3)
    said = FULL_PARTNER.describe_matrix(states)
    verbs = np.array([g.split()[0] for g in FULL_PARTNER.goals])
    relational = np.array([grammar.is_relational(g) for g in FULL_PARTNER.goals])
    for verb in ("Go", "Grasp", "Grow"):
        assert said[:, (verbs == verb) & ~relational].any()
    assert said[:, relational].any()


def test_held_red_cat_gives_seven_grasp_sentences():
    states = random_final_states(1, 200, 3)
    facts_held = states[:, 3 + 38] > 0  # object 0 held
    partner = SocialPartner(include_test=True)
    for state in states[facts_held][:20]:
        state = state.copy()
        state[3 : 3 + 32] = np.eye(32)[ontology.TYPE_INDEX["cat"]]
        state[3 + 35 : 3 + 38] = [0.95, 0.5, 0.52]  # light red
        said = [s for s in partner.describe(state[None])[0] if s.startswith("Grasp")]
        assert said == sorted(
            [
                "Grasp any animal",
                "Grasp any cat",
                "Grasp any living_thing",
                "Grasp any red thing",
                "Grasp red animal",
                "Grasp red cat",
                "Grasp red living_thing",
            ]
        )


def test_train_filter_and_describe_lists():
    states = random_final_states(2, 300, 3)
    train = SocialPartner()
    full = SocialPartner(include_test=True)
    said_train, said_full = train.describe(states), full.describe(states)
    test = set(grammar.test_goals())
    assert any(set(s) & test for s in said_full)
    for small, big in zip(said_train, said_full):
        assert set(small) == set(big) - test
        assert small == sorted(small)


def test_oracle_one_goal_per_state_matches_the_matrix():
    states = random_final_states(3, 400, 4)
    ids = np.random.default_rng(0).integers(0, len(FULL_TABLE), 400)
    matrix = oracle.achieved_matrix(states, FULL_TABLE)
    one_each = oracle.achieved(states, FULL_TABLE, ids)
    np.testing.assert_array_equal(one_each, matrix[np.arange(400), ids])


def test_zone_classes_cover_edges_exactly():
    from imagine_tf.language import social_partner

    points = social_partner._CLASS_POINTS
    np.testing.assert_array_equal(social_partner._zone_class(points), np.arange(81))
    # A hand exactly on an edge is in no zone that the edge bounds strictly.
    facts_state = random_final_states(5, 1, 1)
    facts_state[0, 0:2] = [0.05, -0.25]
    said = SocialPartner().describe(facts_state)[0]
    assert [s for s in said if s.startswith("Go")] == ["Go bottom"]


def test_partner_equals_oracle_on_real_episodes():
    from imagine_tf.playground import play

    goals = list(grammar.one_object_goals()[::5]) + list(grammar.relational_goals()[::8])
    result = play(goals, seed=4, noise_std=0.5)  # noisy expert: varied final states
    final = result.states[-1]
    said = FULL_PARTNER.describe_matrix(final)
    np.testing.assert_array_equal(said, oracle.achieved_matrix(final, FULL_TABLE))
    assert said.sum(axis=1).mean() > 5
