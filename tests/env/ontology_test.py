import numpy as np

from imagine_tf.env import ontology


def test_32_types_in_4_families_and_5_categories():
    assert len(ontology.OBJECT_TYPES) == 32
    assert list(ontology.OBJECT_TYPES) == sorted(ontology.OBJECT_TYPES)
    sizes = dict(zip(ontology.CATEGORIES, ontology.CATEGORY_MEMBERS.sum(axis=1)))
    assert sizes == {"animal": 10, "plant": 10, "furniture": 10, "supply": 2, "living_thing": 20}
    assert ontology.names_of_type("cat") == ("cat", "animal", "living_thing")
    assert ontology.names_of_type("door") == ("door", "furniture")


def test_feeding_rules():
    food, water = ontology.FOOD, ontology.WATER
    cat, rose, door = (ontology.TYPE_INDEX[t] for t in ("cat", "rose", "door"))
    assert ontology.FEEDS[food, cat] and ontology.FEEDS[water, cat]
    assert ontology.FEEDS[water, rose] and not ontology.FEEDS[food, rose]
    assert not ontology.FEEDS[:, door].any() and not ontology.FEEDS[:, water].any()
    assert ontology.FEEDS.sum() == 10 * 2 + 10


def test_colour_sampling_round_trips_through_decoding():
    rng = np.random.default_rng(0)
    colour = rng.integers(0, 3, size=20_000)
    rgb = ontology.sample_rgb(colour, rng)
    assert rgb.dtype == np.float32 and rgb.shape == (20_000, 3)
    np.testing.assert_array_equal(ontology.decode_colour(rgb), colour)


def test_colour_decoding_matches_brute_force_box_search():
    rng = np.random.default_rng(1)
    colour = rng.integers(0, 3, size=20_000)
    values = ontology.sample_rgb(colour, rng) + rng.normal(0, 0.04, (20_000, 3)).astype(np.float32)
    values = np.concatenate([values, rng.random((20_000, 3)).astype(np.float32)])
    low, high = ontology.COLOUR_BOXES[..., 0], ontology.COLOUR_BOXES[..., 1]
    inside = np.all(
        (values[:, None, None] >= low - 1e-6) & (values[:, None, None] <= high + 1e-6), -1
    )
    inside[:, 0, 0] &= values[:, 2] - values[:, 1] <= 0.05 + 1e-6  # light red: B - G <= 0.05
    per_colour = inside.any(-1)
    expected = np.where(per_colour.any(-1), per_colour.argmax(-1), -1)
    decoded = ontology.decode_colour(values)
    np.testing.assert_array_equal(decoded, expected)
    assert (decoded == -1).any() and (decoded >= 0).any()
