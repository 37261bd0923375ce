"""The Playground's object ontology as plain data: types, families, categories, colours.

Everything here is a constant of the world (the authors' Playground, flowersteam/Imagine). The one-hot type order is
**alphabetical** (the choice of the authors' current code [H]); it fixes the layout of the 32-wide
type block of each object in the observation.
"""

from __future__ import annotations

import numpy as np

ANIMALS = ("dog", "cat", "chameleon", "human", "fly", "parrot", "mouse", "lion", "pig", "cow")
PLANTS = (
    "cactus",
    "carnivorous",
    "flower",
    "tree",
    "bush",
    "grass",
    "algae",
    "tea",
    "rose",
    "bonsai",
)
FURNITURE = (
    "door",
    "chair",
    "desk",
    "lamp",
    "table",
    "cupboard",
    "sink",
    "window",
    "sofa",
    "carpet",
)
SUPPLIES = ("food", "water")

#: The 32 object types, in one-hot order (alphabetical).
OBJECT_TYPES: tuple[str, ...] = tuple(sorted(ANIMALS + PLANTS + FURNITURE + SUPPLIES))
NUM_TYPES = len(OBJECT_TYPES)
TYPE_INDEX = {name: i for i, name in enumerate(OBJECT_TYPES)}

#: The 5 categories. ``living_thing`` = animal ∪ plant is one token.
CATEGORIES: tuple[str, ...] = ("animal", "plant", "furniture", "supply", "living_thing")
NUM_CATEGORIES = len(CATEGORIES)
CATEGORY_INDEX = {name: i for i, name in enumerate(CATEGORIES)}
ANIMAL, PLANT, FURNITURE_CATEGORY, SUPPLY, LIVING_THING = range(NUM_CATEGORIES)

_FAMILY_OF = {
    **{t: "animal" for t in ANIMALS},
    **{t: "plant" for t in PLANTS},
    **{t: "furniture" for t in FURNITURE},
    **{t: "supply" for t in SUPPLIES},
}


def _categories_of(type_name: str) -> tuple[str, ...]:
    family = _FAMILY_OF[type_name]
    return (family, "living_thing") if family in ("animal", "plant") else (family,)


#: ``CATEGORY_MEMBERS[c, t]`` is True when type ``t`` belongs to category ``c``. Shape [5, 32].
CATEGORY_MEMBERS = np.zeros((NUM_CATEGORIES, NUM_TYPES), dtype=bool)
for _t, _name in enumerate(OBJECT_TYPES):
    for _c in _categories_of(_name):
        CATEGORY_MEMBERS[CATEGORY_INDEX[_c], _t] = True
CATEGORY_MEMBERS.setflags(write=False)

IS_ANIMAL = CATEGORY_MEMBERS[ANIMAL]
IS_PLANT = CATEGORY_MEMBERS[PLANT]
IS_LIVING = CATEGORY_MEMBERS[LIVING_THING]
FOOD = TYPE_INDEX["food"]
WATER = TYPE_INDEX["water"]

#: ``FEEDS[s, l]``: supply type ``s`` makes living type ``l`` grow on contact. Shape [32, 32].
#: Animals grow with food or water, plants with water only; nothing else grows.
FEEDS = np.zeros((NUM_TYPES, NUM_TYPES), dtype=bool)
FEEDS[FOOD, IS_ANIMAL] = True
FEEDS[WATER, IS_ANIMAL | IS_PLANT] = True
FEEDS.setflags(write=False)


def names_of_type(type_name: str) -> tuple[str, ...]:
    """All names that describe an object of this type: the type itself, then its categories."""
    return (type_name,) + _categories_of(type_name)


# --------------------------------------------------------------------------------------------
# Colours (the authors' Playground, flowersteam/Imagine)
# --------------------------------------------------------------------------------------------

#: Colour names of the language, in index order.
COLOURS: tuple[str, ...] = ("red", "blue", "green")
NUM_COLOURS = len(COLOURS)
COLOUR_INDEX = {name: i for i, name in enumerate(COLOURS)}

#: ``COLOUR_BOXES[colour, shade, channel] = (low, high)``; shape [3, 2, 3, 2].
#: Light red's blue channel is drawn as G + U(-0.05, 0.05); its box bound is [0.35, 0.65].
COLOUR_BOXES = np.array(
    [
        [  # red
            [[0.9, 1.0], [0.4, 0.6], [0.35, 0.65]],  # light
            [[0.5, 0.7], [0.0, 0.1], [0.0, 0.1]],  # dark
        ],
        [  # blue
            [[0.3, 0.5], [0.7, 0.8], [0.9, 1.0]],
            [[0.0, 0.2], [0.0, 0.2], [0.8, 0.9]],
        ],
        [  # green
            [[0.4, 0.6], [0.8, 1.0], [0.4, 0.5]],
            [[0.0, 0.1], [0.4, 0.6], [0.0, 0.1]],
        ],
    ],
    dtype=np.float64,
)
COLOUR_BOXES.setflags(write=False)
RED = COLOUR_INDEX["red"]
LIGHT_RED_MAX_B_MINUS_G = 0.05
_DECODE_TOLERANCE = 1e-6


def sample_rgb(
    colour: np.ndarray, rng: np.random.Generator, shade: np.ndarray | None = None
) -> np.ndarray:
    """Draws RGB values for colour indices.

    Args:
      colour: int array of colour indices, any shape S.
      rng: the random generator.
      shade: int array of shape S, 0 light and 1 dark; uniform when None.

    Returns:
      float32 array of shape S + [3], channel-wise uniform inside the (colour, shade) box.
    """
    colour = np.asarray(colour)
    if shade is None:
        shade = rng.integers(0, 2, size=colour.shape)
    box = colour * 2 + shade  # index of the (colour, shade) box
    uniform = rng.random(colour.shape + (4,), dtype=np.float32)
    rgb = _SAMPLE_LOW[box] + uniform[..., :3] * _SAMPLE_WIDTH[box]
    # Light red (box 0): B = G + U(-0.05, 0.05).
    jitter = rgb[..., 1] + (uniform[..., 3] - np.float32(0.5)) * np.float32(0.1)
    rgb[..., 2] = np.where(box == 0, jitter, rgb[..., 2])
    return rgb


def decode_colour(rgb: np.ndarray) -> np.ndarray:
    """Recovers colour indices from RGB values: the colour of the box holding the value.

    The boxes do not overlap, so "the first box in (red, blue, green) x (light, dark) order"
    is "the only box". For speed, the one candidate box is found from the channel pattern (the
    dominant channel gives the colour, since inside every box it is the largest; one channel
    splits light from dark) and only that box is checked.

    Args:
      rgb: float array of shape S + [3].

    Returns:
      int64 array of shape S: the colour index, or -1 when no box contains the value.
    """
    rgb = np.asarray(rgb)
    shape = rgb.shape[:-1]
    flat = rgb.reshape(-1, 3)
    red, green, blue = (np.ascontiguousarray(flat[:, c]) for c in range(3))
    is_red = (red >= green) & (red >= blue)
    is_green = ~is_red & (green >= blue)
    colour = np.where(is_red, RED, np.where(is_green, _GREEN, _BLUE))
    dark = np.where(is_red, red, green) < _SHADE_SPLIT.take(colour)
    box = colour * 2 + dark  # index into the 6 (colour, shade) boxes
    inside = (red >= _BOX_LOW[:, 0].take(box)) & (red <= _BOX_HIGH[:, 0].take(box))
    inside &= (green >= _BOX_LOW[:, 1].take(box)) & (green <= _BOX_HIGH[:, 1].take(box))
    inside &= (blue >= _BOX_LOW[:, 2].take(box)) & (blue <= _BOX_HIGH[:, 2].take(box))
    # Light red (box 0) also needs B - G <= 0.05.
    inside &= (box != 0) | (blue - green <= LIGHT_RED_MAX_B_MINUS_G + _DECODE_TOLERANCE)
    return np.where(inside, colour, -1).reshape(shape)


_GREEN, _BLUE = COLOUR_INDEX["green"], COLOUR_INDEX["blue"]
# Sampling tables per box index colour * 2 + shade: low corner and width, float32 [6, 3].
_SAMPLE_LOW = COLOUR_BOXES[..., 0].reshape(6, 3).astype(np.float32)
_SAMPLE_WIDTH = (COLOUR_BOXES[..., 1] - COLOUR_BOXES[..., 0]).reshape(6, 3).astype(np.float32)
# Light/dark split per colour, light >= threshold > dark on one channel: red on R (light >= 0.9,
# dark <= 0.7), blue on G (light >= 0.7, dark <= 0.2), green on G (light >= 0.8, dark <= 0.6).
_SHADE_SPLIT = np.array([0.8, 0.45, 0.7], dtype=np.float32)
_BOX_LOW = (COLOUR_BOXES[..., 0] - _DECODE_TOLERANCE).reshape(6, 3).astype(np.float32)
_BOX_HIGH = (COLOUR_BOXES[..., 1] + _DECODE_TOLERANCE).reshape(6, 3).astype(np.float32)
