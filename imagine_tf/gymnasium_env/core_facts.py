"""The `SceneFacts` of a core's scenes read from its arrays, as `decode_observation` reads them
from its observation, without decoding (the decoding costs about a core step at B = 1,024).

`initial_facts` reads the scenes right after a reset (decoding the colours once: RGB values do
not change within an episode); `current_facts` reads them at any later step, reusing what the
initial facts fixed. Every field equals `decode_observation(core.observation())`'s, float32
rounding included (tests/gymnasium_env/core_facts_test.py).
"""

from __future__ import annotations

import numpy as np

from imagine_tf.env import ontology
from imagine_tf.env.config import GROWN_THRESHOLD
from imagine_tf.env.observation import SceneFacts
from imagine_tf.env.physics import PlaygroundCore


def initial_facts(core: PlaygroundCore) -> SceneFacts:
    """The facts of s_0 (call right after the core's reset); shapes as in `SceneFacts`."""
    position = core.object_position.copy()
    no = np.zeros(core.object_type.shape, dtype=bool)
    return SceneFacts(
        hand_position=core.hand_position.copy(),
        object_type=core.object_type,
        object_colour=ontology.decode_colour(core.rgb),
        held=no,
        grown=no,
        initial_position=position,
        object_position=position,
        object_size=core.object_size.copy(),
        present=~no,  # the core pads no slot: every object is there
    )


def current_facts(core: PlaygroundCore, initial: SceneFacts) -> SceneFacts:
    """The facts of s_t, given the episode's `initial_facts`."""
    position = core.object_position.copy()
    size = core.object_size.copy()
    objects = np.arange(core.config.num_objects)
    return SceneFacts(
        hand_position=core.hand_position.copy(),
        object_type=initial.object_type,
        object_colour=initial.object_colour,
        held=core.held[:, None] == objects,
        # as the observation gives them: Δ = o_t − o_0, then o_0 = o_t − Δ (float32)
        grown=(size - initial.object_size) > GROWN_THRESHOLD,
        initial_position=position - (position - initial.object_position),
        object_position=position,
        object_size=size,
        present=initial.present,
    )
