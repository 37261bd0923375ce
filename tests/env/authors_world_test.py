"""`world="authors"` against the authors' own Playground (flowersteam/Imagine), step by step.

tests/fixtures/authors/playground_trace.npz holds episodes of their environment (recorded by
docs/results/scripts/record_authors_trace.py): initial scenes, actions and their observations.
Replayed here from the same scenes with the same actions, the authors' world must give the same
observations at every step, within ``STATE_TOLERANCE`` (float32 here, float64 there); the
default world must differ where docs/environment.md says, and each rule must matter.
"""

import pathlib

import numpy as np
import pytest

from imagine_tf.env import ontology
from imagine_tf.env.config import (
    WORLDS,
    DistractorSampling,
    PlaygroundConfig,
    check_world,
    world_config,
)
from imagine_tf.env.physics import PlaygroundCore
from imagine_tf.env.scene_generation import SceneLayout, generate_scenes
from imagine_tf.language.goal_source import GoalCatalog

TRACE = (
    pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "authors" / "playground_trace.npz"
)
#: Max |ours - theirs| over every value of every observation (measured: 2.8e-7).
STATE_TOLERANCE = 1e-6
# One rule of the authors' world changed back at a time (the rest as theirs).
AUTHORS = dict(distractor_sampling="category_first", living_thing_supply="water")
DOCUMENTED_ORDER = PlaygroundConfig(update_order="documented", release_rule="in_reach", **AUTHORS)
RELEASE_ON_OPEN = PlaygroundConfig(update_order="authors", release_rule="on_open", **AUTHORS)


@pytest.fixture(scope="module")
def trace():
    with np.load(TRACE) as data:
        return {key: data[key] for key in data.files}


def replay(trace, config: PlaygroundConfig) -> np.ndarray:
    """Our observations [E, T + 1, D] from their scenes and actions (all episodes as a batch)."""
    episodes = len(trace["goal"])
    core = PlaygroundCore(config, batch_size=episodes, seed=0)
    core.set_layout(
        SceneLayout(
            object_type=np.vectorize(ontology.TYPE_INDEX.get)(trace["object_type"]),
            colour=np.vectorize(ontology.COLOUR_INDEX.get)(trace["colour"]),
            rgb=trace["rgb"].astype(np.float32),
            size=trace["size"].astype(np.float32),
            position=trace["position"].astype(np.float32),
        )
    )
    states = [core.observation()]
    for t in range(trace["actions"].shape[1]):
        states.append(core.step(trace["actions"][:, t]))
    return np.stack(states, axis=1)


def first_mismatch(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Per episode, the first step whose observation differs (> tolerance), or -1. [E]"""
    wrong = (np.abs(ours - theirs) > STATE_TOLERANCE).any(axis=2)  # [E, T + 1]
    return np.where(wrong.any(axis=1), wrong.argmax(axis=1), -1)


def first_growth(sizes: np.ndarray) -> np.ndarray:
    """Per episode, the first step at which some object is bigger than at the start, or -1."""
    grown = (sizes > sizes[:, :1] + 1e-6).any(axis=2)  # [E, T + 1]
    return np.where(grown.any(axis=1), grown.argmax(axis=1), -1)


def sizes_of(states: np.ndarray, num_objects: int) -> np.ndarray:
    objects = states[..., 3 : 3 + 39 * num_objects].reshape(states.shape[:-1] + (num_objects, 39))
    return objects[..., 34]


def test_the_authors_world_replays_their_episodes_step_by_step(trace):
    theirs = trace["observations"]
    ours = replay(trace, world_config("authors"))
    assert ours.shape == theirs.shape
    error = np.abs(ours - theirs).max(axis=2)  # [E, T + 1]
    worst = np.unravel_index(error.argmax(), error.shape)
    assert error.max() <= STATE_TOLERANCE, (
        f"episode {worst[0]} ({trace['goal'][worst[0]]}, {trace['plan'][worst[0]]}), step "
        f"{worst[1]}: |ours - theirs| = {error.max():.2e}"
    )
    # Their recorded object state agrees with their observations (the trace is consistent).
    np.testing.assert_allclose(sizes_of(theirs, 3), trace["sizes"], atol=1e-6)


def test_the_trace_covers_grasps_growth_and_both_supplies(trace):
    held = trace["grasped"].any(axis=2)  # [E, T + 1]
    grew = first_growth(trace["sizes"]) > 0
    assert held.any(axis=1).sum() >= 15 and grew.sum() >= 14
    supply = trace["object_type"][grew]
    assert {"food", "water"} <= set(supply.ravel())
    assert any("living_thing" in goal for goal in trace["goal"][grew])


def test_growth_is_one_step_later_there_unless_an_earlier_supply_was_carried(trace):
    """Rule 1: their contact check sees the living thing (and later supplies) where they were."""
    theirs = first_growth(trace["sizes"])
    ours = first_growth(sizes_of(replay(trace, DOCUMENTED_ORDER), 3))
    grows = np.flatnonzero(theirs > 0)
    expected_delay = []
    for e in grows:
        grown = np.flatnonzero(trace["sizes"][e, theirs[e]] > trace["sizes"][e, 0] + 1e-6)[0]
        mover = np.flatnonzero(trace["grasped"][e, theirs[e] - 1])
        early_supply = mover.size and trace["object_type"][e, mover[0]] in ontology.SUPPLIES
        expected_delay.append(0 if early_supply and mover[0] < grown else 1)
    expected_delay = np.array(expected_delay)
    assert {0, 1} <= set(expected_delay)  # both cases are in the trace
    np.testing.assert_array_equal(theirs[grows] - ours[grows], expected_delay)


def test_release_needs_the_hand_in_reach_there(trace):
    """Rule 2: opening the gripper far from the held object (a fast move) does not drop it."""
    theirs = trace["observations"]
    open_and_held = (theirs[..., 2] < 0) & trace["grasped"].any(axis=2)  # [E, T + 1]
    episodes = np.flatnonzero(open_and_held.any(axis=1))
    assert episodes.size >= 10
    mismatch = first_mismatch(replay(trace, RELEASE_ON_OPEN), theirs)
    np.testing.assert_array_equal(mismatch[episodes], open_and_held[episodes].argmax(axis=1))
    np.testing.assert_array_equal(np.delete(mismatch, episodes), -1)  # no other difference


def test_each_touching_supply_adds_growth_there(trace):
    """Rule 3: an animal between food and water grows by 0.04 per supply and step."""
    (episode,) = np.flatnonzero(trace["plan"] == "two_supplies")
    theirs = np.diff(trace["sizes"][episode, :, 0])
    assert theirs.max() > 0.04 + 1e-3
    default = np.diff(sizes_of(replay(trace, world_config("default")), 3)[episode, :, 0])
    assert default.max() <= 0.04 + 1e-6


def test_the_grown_size_already_counts_for_the_grasp_there(trace):
    """Rule 4: a living thing grows before its grasp test; two episodes take one that only the
    grown reach holds (hand beyond its previous reach)."""
    obs, sizes = trace["observations"], trace["sizes"]
    episodes = np.flatnonzero(trace["plan"] == "grasp_growing")
    assert episodes.size == 2
    for e in episodes:
        position, grasped = obs[e, :, 35:37], obs[e, :, 41] > 0  # object 0
        gap = np.linalg.norm(obs[e, 1:, :2] - position[:-1], axis=1)
        taken = grasped[1:] & ~grasped[:-1] & (gap >= (sizes[e, :-1, 0] + 0.05) / 2)
        assert taken.any(), trace["goal"][e]


def test_the_default_world_differs_only_in_episodes_with_growth_or_a_late_release(trace):
    theirs = trace["observations"]
    mismatch = first_mismatch(replay(trace, world_config("default")), theirs)
    grows = first_growth(trace["sizes"]) > 0
    late = ((theirs[..., 2] < 0) & trace["grasped"].any(axis=2)).any(axis=1)
    np.testing.assert_array_equal(mismatch >= 0, grows | late)


def supply_types(goal: str, config: PlaygroundConfig, scenes: int, seed: int = 0) -> np.ndarray:
    constraints = GoalCatalog(split="all").encode([goal] * scenes).constraints
    return generate_scenes(constraints, config, np.random.default_rng(seed)).object_type[:, 1]


@pytest.mark.parametrize("goal", ["Grow red living_thing", "Grow any living_thing"])
def test_living_thing_grow_scenes_get_water_in_the_authors_world(goal, trace):
    authors = supply_types(goal, world_config("authors"), 4000)
    assert (authors == ontology.WATER).all()
    default = supply_types(goal, world_config("default"), 4000)
    assert 0.22 < (default == ontology.FOOD).mean() < 0.28  # animal (1/2) x food (1/2)
    row = list(trace["supply_goal"]).index(goal)
    assert trace["supply_water"][row] == trace["supply_scenes"][row]  # theirs: always water


def test_other_grow_scenes_draw_their_supply_as_theirs(trace):
    for goal, water, scenes in zip(
        trace["supply_goal"], trace["supply_water"], trace["supply_scenes"]
    ):
        ours = (
            supply_types(str(goal), world_config("authors"), 4000, seed=1) == ontology.WATER
        ).mean()
        spread = 4 * np.sqrt(0.25 / scenes + 0.25 / 4000)  # 4 sd of the difference
        assert abs(ours - water / scenes) < spread, goal


def test_worlds_and_their_settings():
    assert WORLDS == ("default", "authors")
    assert world_config("default") == PlaygroundConfig()
    authors = world_config("authors", num_objects=5)
    assert authors.num_objects == 5
    assert authors.distractor_sampling is DistractorSampling.CATEGORY_FIRST
    assert (authors.update_order, authors.release_rule) == ("authors", "in_reach")
    assert authors.living_thing_supply == "water"
    assert world_config("authors", distractor_sampling="category_first") == world_config("authors")
    assert world_config("default", distractor_sampling="category_first").distractor_sampling is (
        DistractorSampling.CATEGORY_FIRST
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: check_world("Authors"), r"world='Authors' is not one of \['default', 'authors'\]"),
        (lambda: world_config("paper"), "not one of"),
        (
            lambda: world_config("authors", distractor_sampling="uniform_types"),
            "world='authors' sets distractor_sampling='category_first'",
        ),
        (lambda: world_config("authors", object_init_range=1.2), "object_init_range=1.2"),
        (lambda: world_config("default", growth="late"), "Unknown PlaygroundConfig fields"),
        (lambda: PlaygroundConfig(update_order="late"), "update_order='late' is not one of"),
        (lambda: PlaygroundConfig(release_rule="never"), "release_rule"),
        (lambda: PlaygroundConfig(living_thing_supply="food"), "living_thing_supply"),
    ],
)
def test_bad_worlds_and_settings_raise_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_make_env_and_gymnasium_take_the_world():
    import gymnasium

    import imagine_tf
    from imagine_tf.gymnasium_env import ENV_ID

    env = imagine_tf.make_env(world="authors", seed=0)
    assert env._config == world_config("authors")
    with pytest.raises(ValueError, match="world='authors' sets distractor_sampling"):
        imagine_tf.make_env(world="authors", distractor_sampling="uniform_types")
    with pytest.raises(ValueError, match="not one of"):
        imagine_tf.make_env(world="nope")
    gym_env = gymnasium.make(ENV_ID, world="authors")
    assert gym_env.unwrapped._scenes.config == world_config("authors")
    vector = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="vector_entry_point")
    assert vector.unwrapped._scenes.config == PlaygroundConfig()
