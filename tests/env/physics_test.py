"""The physics rules of the authors' Playground, flowersteam/Imagine, one by one, on hand-made scenes."""

import numpy as np
import pytest

from imagine_tf.env import ontology
from imagine_tf.env.config import PlaygroundConfig
from imagine_tf.env.observation import decode_observation, observation_dim
from imagine_tf.env.physics import PlaygroundCore
from imagine_tf.env.scene_generation import SceneConstraints, SceneLayout


def make_core(types, positions, sizes=None, colours=None):
    """One scene with the given objects (type names, positions), hand at the origin."""
    num_objects = len(types)
    core = PlaygroundCore(PlaygroundConfig(num_objects=num_objects), batch_size=1, seed=0)
    colours = np.array([colours or [0] * num_objects])
    layout = SceneLayout(
        object_type=np.array([[ontology.TYPE_INDEX[t] for t in types]]),
        colour=colours,
        rgb=ontology.sample_rgb(colours, np.random.default_rng(0)),
        size=np.array([sizes or [0.2] * num_objects], dtype=np.float32),
        position=np.array([positions], dtype=np.float32),
    )
    core.set_layout(layout)
    return core


def move(core, dx=0.0, dy=0.0, grip=-1.0, times=1):
    state = core.observation()
    for _ in range(times):
        state = core.step(np.array([[dx, dy, grip]], dtype=np.float32))
    return state


def test_hand_moves_0_15_per_unit_and_is_clipped():
    core = make_core(["cat"], [[0.9, 0.9]])
    move(core, dx=1.0, dy=-0.5)
    np.testing.assert_allclose(core.hand_position[0], [0.15, -0.075], atol=1e-6)
    move(core, dx=1.0, dy=-1.0, times=20)
    np.testing.assert_allclose(core.hand_position[0], [1.2, -1.2], atol=1e-6)
    move(core, dx=7.0)  # actions are clipped to [-1, 1]
    np.testing.assert_allclose(core.hand_position[0], [1.2, -1.2], atol=1e-6)


@pytest.mark.parametrize("offset, grasped", [(0.124, True), (0.126, False)])
def test_grasp_threshold_is_half_of_size_plus_hand(offset, grasped):
    # size 0.2: reachable iff distance < (0.2 + 0.05) / 2 = 0.125 (strict).
    core = make_core(["cat"], [[offset, 0.0]])
    move(core, grip=1.0)
    assert (core.held[0] == 0) == grasped


def test_gripper_is_a_level_command_and_grabs_while_moving_closed():
    core = make_core(["cat"], [[0.6, 0.0]])
    move(core, dx=1.0, grip=1.0, times=2)  # closed, nothing in reach yet
    assert core.held[0] == -1 and core.gripper[0] == 1.0
    move(core, dx=1.0, grip=1.0, times=2)  # arrives on the object with the gripper still closed
    assert core.held[0] == 0
    move(core, grip=0.0)  # a[2] <= 0 is open: release
    assert core.held[0] == -1 and core.gripper[0] == -1.0


def test_only_one_object_held_the_first_in_list_order():
    core = make_core(["cat", "dog"], [[0.05, 0.0], [0.0, 0.05]])
    move(core, grip=1.0)
    assert core.held[0] == 0
    state = move(core, grip=1.0)
    facts = decode_observation(state)
    np.testing.assert_array_equal(facts.held[0], [True, False])


def test_carried_object_follows_the_hand_and_stays_when_released():
    core = make_core(["cat"], [[0.0, 0.0]])
    move(core, grip=1.0)  # the move comes before the grasp: take it first
    move(core, dx=1.0, dy=1.0, grip=1.0, times=3)
    np.testing.assert_allclose(core.object_position[0, 0], core.hand_position[0], atol=1e-6)
    np.testing.assert_allclose(core.object_position[0, 0], [0.45, 0.45], atol=1e-5)
    move(core, dx=-1.0, grip=-1.0, times=2)
    np.testing.assert_allclose(core.object_position[0, 0], [0.45, 0.45], atol=1e-5)


def carry_onto(living, supply, steps=1):
    """Carries `supply` (at the origin) onto `living` (at x=0.3) and stays `steps` steps."""
    core = make_core([supply, living], [[0.0, 0.0], [0.3, 0.0]], sizes=[0.2, 0.2])
    move(core, grip=1.0)
    move(core, dx=1.0, grip=1.0)  # hand and supply at 0.15: distance 0.15 < (0.2 + 0.2) / 2
    move(core, grip=1.0, times=steps - 1)
    return core


@pytest.mark.parametrize(
    "living, supply, grows",
    [
        ("cat", "food", True),
        ("cat", "water", True),
        ("rose", "water", True),
        ("rose", "food", False),
        ("door", "water", False),
        ("water", "food", False),
    ],
)
def test_growth_only_with_a_valid_supply(living, supply, grows):
    core = carry_onto(living, supply)
    expected = 0.2 + 0.04 if grows else 0.2
    np.testing.assert_allclose(core.object_size[0, 1], expected, atol=1e-6)
    np.testing.assert_allclose(core.object_size[0, 0], 0.2, atol=1e-6)  # supplies never grow
    assert core.growth_steps == int(grows)  # the steps at which something grew


def test_growth_is_capped_at_0_34_and_counts_as_grown():
    core = carry_onto("cat", "food", steps=10)
    np.testing.assert_allclose(core.object_size[0, 1], 0.34, atol=1e-6)
    facts = decode_observation(core.observation())
    np.testing.assert_array_equal(facts.grown[0], [False, True])
    assert core.growth_steps == 4  # 0.2 -> 0.24, 0.28, 0.32, 0.34, then no growth
    core.reset(SceneConstraints.free(1))
    assert core.growth_steps == 0


def test_no_growth_without_contact():
    core = make_core(["food", "cat"], [[0.0, 0.0], [0.41, 0.0]], sizes=[0.2, 0.2])
    move(core, grip=1.0)
    move(core, dx=0.3, grip=1.0)  # supply at 0.045: distance 0.365 > 0.2
    np.testing.assert_allclose(core.object_size[0], [0.2, 0.2], atol=1e-7)


def test_observation_layout_and_deltas():
    for num_objects in (1, 3, 10):
        core = PlaygroundCore(PlaygroundConfig(num_objects=num_objects), batch_size=4, seed=1)
        state = core.observation()
        assert state.shape == (4, observation_dim(num_objects)) == (4, 2 * (3 + 39 * num_objects))
        half = 3 + 39 * num_objects
        np.testing.assert_array_equal(state[:, half:], 0.0)  # s_0 deltas are zero
        objects = state[:, 3:half].reshape(4, num_objects, 39)
        np.testing.assert_array_equal(objects[..., :32].sum(-1), 1.0)
        np.testing.assert_array_equal(objects[..., 38], -1.0)
        np.testing.assert_array_equal(state[:, 2], -1.0)
        moved = core.step(np.tile([[1.0, 0.0, -1.0]], (4, 1)))
        np.testing.assert_allclose(moved[:, half], 0.15, atol=1e-6)  # delta of hand x
        np.testing.assert_allclose(moved[:, half + 3 :], moved[:, 3:half] - state[:, 3:half])


def test_reset_places_objects_apart_inside_the_start_square():
    for num_objects in (1, 3, 10):
        core = PlaygroundCore(PlaygroundConfig(num_objects=num_objects), batch_size=256, seed=2)
        position = core.object_position
        assert np.abs(position).max() <= 1.0
        gap = np.linalg.norm(position[:, :, None] - position[:, None], axis=-1)
        gap[:, np.arange(num_objects), np.arange(num_objects)] = np.inf
        assert gap.min() >= 0.3 - 1e-6
        assert ((core.object_size >= 0.2) & (core.object_size <= 0.3)).all()


def test_seeded_runs_are_deterministic():
    def rollout(seed):
        core = PlaygroundCore(PlaygroundConfig(), batch_size=8, seed=seed)
        rng = np.random.default_rng(seed)
        core.reset(SceneConstraints.free(8))
        return np.stack([core.step(rng.uniform(-1, 1, (8, 3))) for _ in range(50)])

    np.testing.assert_array_equal(rollout(3), rollout(3))
    assert not np.array_equal(rollout(3), rollout(4))


@pytest.mark.parametrize(
    "action, message",
    [
        (np.zeros((2, 3)), "shape"),
        (np.zeros((1, 2)), "shape"),
        ([[np.nan, 0, 0]], "finite"),
        ([[0, np.inf, 0]], "finite"),
    ],
)
def test_bad_actions_raise_and_leave_the_state_unchanged(action, message):
    core = make_core(["cat"], [[0.5, 0.5]])
    before = core.observation()
    with pytest.raises(ValueError, match=message):
        core.step(action)
    np.testing.assert_array_equal(core.observation(), before)


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="num_objects"):
        PlaygroundConfig(num_objects=0)
    with pytest.raises(ValueError, match="distractor_sampling"):
        PlaygroundConfig(distractor_sampling="zipf")
    with pytest.raises(ValueError, match="cannot be placed"):
        PlaygroundConfig(num_objects=200)
