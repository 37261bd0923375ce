"""Grow outcomes on hand-made episodes: each class from what the hand held."""

import numpy as np
import pytest

from imagine_tf.env import ontology
from imagine_tf.env.config import PlaygroundConfig
from imagine_tf.env.physics import PlaygroundCore
from imagine_tf.env.scene_generation import SceneLayout
from imagine_tf.env.grow_outcomes import GROW_OUTCOMES, grow_outcome_shares, grow_outcomes


def episodes(under_hand, grip, steps=3):
    """Scenes [cat, water, door], one per name in ``under_hand``: that object sits at the
    hand's start, the other two far away. Returns states [B, T + 1, D]."""
    far = {"cat": [0.9, 0.9], "water": [-0.9, 0.9], "door": [0.9, -0.9]}
    types = ["cat", "water", "door"]
    positions = [[[0.0, 0.0] if t == name else far[t] for t in types] for name in under_hand]
    batch = len(under_hand)
    core = PlaygroundCore(PlaygroundConfig(num_objects=3), batch_size=batch, seed=0)
    colours = np.zeros((batch, 3), dtype=np.int64)
    core.set_layout(
        SceneLayout(
            object_type=np.array([[ontology.TYPE_INDEX[t] for t in types]] * batch),
            colour=colours,
            rgb=ontology.sample_rgb(colours, np.random.default_rng(0)),
            size=np.full((batch, 3), 0.2, dtype=np.float32),
            position=np.array(positions, dtype=np.float32),
        )
    )
    action = np.zeros((batch, 3), dtype=np.float32)
    action[:, 2] = grip
    states = [core.observation()] + [core.step(action) for _ in range(steps)]
    return np.stack(states, axis=1)


def test_each_episode_is_classed_by_what_the_hand_held():
    states = episodes(["water", "cat", "door", "door", "water"], grip=[1, 1, 1, -1, 1])
    achieved = np.array([False, False, False, False, True])
    classes = [GROW_OUTCOMES[i] for i in grow_outcomes(states, achieved)]
    assert classes == [
        "held a supply",
        "held a living thing",
        "held furniture",
        "held nothing",
        "achieved",
    ]
    shares = grow_outcome_shares(states, achieved)
    assert shares["episodes"] == 5 and shares["held furniture"] == pytest.approx(0.2)
    assert sum(shares[name] for name in GROW_OUTCOMES) == pytest.approx(1.0)


def test_a_released_object_still_counts_and_bad_shapes_are_refused():
    states = episodes(["water"], grip=[1], steps=2)
    opened = episodes(["water"], grip=[-1], steps=2)[:, 1:]  # the same scene, gripper open
    states = np.concatenate([states, opened], axis=1)  # held, then released
    assert GROW_OUTCOMES[grow_outcomes(states, np.array([False]))[0]] == "held a supply"
    assert grow_outcome_shares(states[:0], np.zeros(0, bool)) == {"episodes": 0}
    with pytest.raises(ValueError, match=r"\[B, T \+ 1, D\]"):
        grow_outcomes(states[0], np.array([False]))
