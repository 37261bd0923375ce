"""Goal-conditioned scene generation (the authors' Playground, flowersteam/Imagine)."""

import numpy as np
import pytest

from imagine_tf.env import ontology
from imagine_tf.env.config import PlaygroundConfig
from imagine_tf.env.scene_generation import (
    SceneConstraints,
    generate_scenes,
    relation_holds,
)
from imagine_tf.language import grammar
from imagine_tf.language.goal_table import GoalTable

TABLE = GoalTable.from_sentences(grammar.one_object_goals() + grammar.relational_goals())


def scenes_for(goal, count=200, num_objects=3, seed=0, **config):
    ids = TABLE.index([goal] * count)
    layout = generate_scenes(
        TABLE.constraints(ids),
        PlaygroundConfig(num_objects=num_objects, **config),
        np.random.default_rng(seed),
    )
    return layout


def test_grasp_goal_puts_a_matching_object_first():
    layout = scenes_for("Grasp red cat")
    assert (layout.object_type[:, 0] == ontology.TYPE_INDEX["cat"]).all()
    assert (layout.colour[:, 0] == ontology.COLOUR_INDEX["red"]).all()
    np.testing.assert_array_equal(ontology.decode_colour(layout.rgb[:, 0]), layout.colour[:, 0])


def test_category_goal_draws_a_type_of_the_category():
    layout = scenes_for("Grasp any furniture")
    assert ontology.CATEGORY_MEMBERS[ontology.FURNITURE_CATEGORY, layout.object_type[:, 0]].all()
    assert len(set(layout.object_type[:, 0])) > 5


@pytest.mark.parametrize("goal", ["Grow any plant", "Grow blue cat", "Grow any red thing"])
def test_grow_goal_has_a_living_thing_and_a_supply_that_feeds_it(goal):
    layout = scenes_for(goal)
    living, supply = layout.object_type[:, 0], layout.object_type[:, 1]
    assert ontology.IS_LIVING[living].all()
    assert ontology.FEEDS[supply, living].all()
    if goal == "Grow any plant":
        assert (supply == ontology.WATER).all()


def test_relational_goal_places_a_reference_in_the_relation():
    layout = scenes_for("Grasp any left_of blue thing", count=500)
    assert (layout.colour[:, 1] == ontology.COLOUR_INDEX["blue"]).all()
    left_of = np.full(500, 1)
    assert relation_holds(layout.position[:, 0], layout.position[:, 1], left_of).all()


def test_grow_and_relational_goals_need_two_objects():
    with pytest.raises(ValueError, match="num_objects >= 2"):
        scenes_for("Grow any animal", num_objects=1)
    assert scenes_for("Grasp red cat", num_objects=1).object_type.shape == (200, 1)


def shade_of(rgb, colour):
    """0 light / 1 dark: which box of the object's colour holds its RGB."""
    light = ontology.COLOUR_BOXES[colour, 0]  # [..., 3, 2]
    inside = (rgb >= light[..., 0] - 1e-6) & (rgb <= light[..., 1] + 1e-6)
    return np.where(inside.all(axis=-1), 0, 1)


def test_uniform_distractors_are_uniform_over_types_without_duplicates():
    layout = generate_scenes(
        SceneConstraints.free(20_000), PlaygroundConfig(num_objects=3), np.random.default_rng(1)
    )
    counts = np.bincount(layout.object_type.ravel(), minlength=32) / layout.object_type.size
    np.testing.assert_allclose(counts, 1 / 32, atol=0.004)
    size_class = (layout.size >= 0.25).astype(int)
    shade = shade_of(layout.rgb, layout.colour)
    key = ((layout.object_type * 3 + layout.colour) * 2 + shade) * 2 + size_class
    ordered = np.sort(key, axis=1)
    assert not (ordered[:, 1:] == ordered[:, :-1]).any()  # no two objects alike in a scene
    # Without the rejection, about 1 scene in 130 would hold such a pair (3 pairs x 1/384).
    raw = generate_scenes(
        SceneConstraints.free(20_000),
        PlaygroundConfig(num_objects=3, distractor_sampling="category_first"),
        np.random.default_rng(1),
    )
    raw_key = ((raw.object_type * 3 + raw.colour) * 2 + shade_of(raw.rgb, raw.colour)) * 2 + (
        raw.size >= 0.25
    )
    raw_sorted = np.sort(raw_key, axis=1)
    assert (raw_sorted[:, 1:] == raw_sorted[:, :-1]).any()  # the check above can fail


def test_category_first_sampling_favours_supplies():
    layout = generate_scenes(
        SceneConstraints.free(20_000),
        PlaygroundConfig(num_objects=3, distractor_sampling="category_first"),
        np.random.default_rng(2),
    )
    counts = np.bincount(layout.object_type.ravel(), minlength=32) / layout.object_type.size
    np.testing.assert_allclose(counts[[ontology.FOOD, ontology.WATER]], 0.1, atol=0.01)
    assert counts[ontology.TYPE_INDEX["door"]] == pytest.approx(0.02, abs=0.005)


def test_init_range_switch():
    layout = scenes_for("Go left", count=2000, object_init_range=1.2)
    assert np.abs(layout.position).max() > 1.0
