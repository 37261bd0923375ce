"""World constants and the configuration of a Playground (the authors' Playground, flowersteam/Imagine)."""

from __future__ import annotations

import dataclasses
import enum

#: Movement per unit of action and per step: pos <- clip(pos + 0.15 * a[:2]).
ACTION_SCALE = 0.15
#: The hand's size; an object is reachable when ||obj - hand|| < (size + HAND_SIZE) / 2.
HAND_SIZE = 0.05
#: Agent (and carried object) positions are clipped to [-ARENA_LIMIT, ARENA_LIMIT] per axis.
ARENA_LIMIT = 1.2
#: Size increment per step while a living thing touches a valid supply, and the cap.
GROWTH_PER_STEP = 0.04
MAX_SIZE = 0.34
#: Initial sizes are U(MIN_INITIAL_SIZE, MAX_INITIAL_SIZE).
MIN_INITIAL_SIZE = 0.2
MAX_INITIAL_SIZE = 0.3
#: An object "has grown" when final size > initial size + GROWN_THRESHOLD ([H]).
GROWN_THRESHOLD = 0.001
#: Episode length T and the discount 1 - 1/T.
EPISODE_LENGTH = 50


class DistractorSampling(enum.Enum):
    """How a distractor's (or an unconstrained object's) type is drawn (a choice of ours).

    UNIFORM_TYPES: uniform over the 32 types, no exact duplicate of (type, colour, shade,
      size class) in a scene: the paper's "uniformly sampled" and the TF1 code [T]. Default.
    CATEGORY_FIRST: a category uniform over the 5, then a type inside it, duplicates allowed:
      the current code [H]/[E] (food and water get 10 % each, furniture 2 % each).
    """

    UNIFORM_TYPES = "uniform_types"
    CATEGORY_FIRST = "category_first"


#: Named worlds: "default" (the choices of docs/environment.md) and "authors" (the rules of the
#: authors' code, step by step: `world_config`).
WORLDS = ("default", "authors")
#: `PlaygroundConfig.update_order`: "documented" (all scenes: move, grasp, carry, then growth on
#: the new positions) or "authors" (their per-object loop: growth first, on the previous
#: positions of the living thing and of the supplies later in the list).
UPDATE_ORDERS = ("documented", "authors")
#: `PlaygroundConfig.release_rule`: "on_open" (an open gripper drops its object) or "in_reach"
#: (the authors': only while the hand is within the object's reach, else it keeps following).
RELEASE_RULES = ("on_open", "in_reach")
#: `PlaygroundConfig.living_thing_supply`: the supply of "Grow ... living_thing" scenes, "any"
#: (as for the drawn type: water for a plant, food or water for an animal) or "water" (theirs).
LIVING_THING_SUPPLIES = ("any", "water")

# What a world fixes (the "default" world fixes nothing: its values are the field defaults).
_WORLD_SETTINGS = {
    "default": {},
    "authors": {
        "distractor_sampling": DistractorSampling.CATEGORY_FIRST,
        "update_order": "authors",
        "release_rule": "in_reach",
        "living_thing_supply": "water",
        "object_init_range": 1.0,
        "min_object_distance": 0.3,
    },
}


@dataclasses.dataclass(frozen=True)
class PlaygroundConfig:
    """The knobs of a Playground world.

    Attributes:
      num_objects: N, objects per scene (>= 1; grow and relational goals need >= 2).
      episode_length: T, steps per episode (the time limit is a truncation).
      distractor_sampling: a `DistractorSampling` or its string value.
      object_init_range: objects start uniform in [-r, r]^2: 1.0 ([H], default) or 1.2 ([T]).
      min_object_distance: minimal centre distance between objects at reset (0.3).
      update_order: one of `UPDATE_ORDERS` ("documented" by default).
      release_rule: one of `RELEASE_RULES` ("on_open" by default).
      living_thing_supply: one of `LIVING_THING_SUPPLIES` ("any" by default).
    """

    num_objects: int = 3
    episode_length: int = EPISODE_LENGTH
    distractor_sampling: DistractorSampling | str = DistractorSampling.UNIFORM_TYPES
    object_init_range: float = 1.0
    min_object_distance: float = 0.3
    update_order: str = "documented"
    release_rule: str = "on_open"
    living_thing_supply: str = "any"

    def __post_init__(self):
        if not isinstance(self.num_objects, int) or self.num_objects < 1:
            raise ValueError(
                f"num_objects must be an int >= 1, got {self.num_objects!r}. "
                "Use e.g. num_objects=3 (the paper's setting) or up to 10."
            )
        if not isinstance(self.episode_length, int) or self.episode_length < 1:
            raise ValueError(f"episode_length must be an int >= 1, got {self.episode_length!r}.")
        try:
            sampling = DistractorSampling(self.distractor_sampling)
        except ValueError:
            valid = [m.value for m in DistractorSampling]
            raise ValueError(
                f"distractor_sampling={self.distractor_sampling!r} is not one of {valid}."
            ) from None
        object.__setattr__(self, "distractor_sampling", sampling)
        _check_choice("update_order", self.update_order, UPDATE_ORDERS)
        _check_choice("release_rule", self.release_rule, RELEASE_RULES)
        _check_choice("living_thing_supply", self.living_thing_supply, LIVING_THING_SUPPLIES)
        if not 0.0 < self.object_init_range <= ARENA_LIMIT:
            raise ValueError(
                f"object_init_range must be in (0, {ARENA_LIMIT}], got {self.object_init_range!r}."
            )
        side = 2 * self.object_init_range
        # Rough packing bound: N discs of diameter d must fit in the square.
        if (
            self.num_objects * self.min_object_distance**2
            > 0.6 * (side + self.min_object_distance) ** 2
        ):
            raise ValueError(
                f"{self.num_objects} objects cannot be placed {self.min_object_distance} apart in "
                f"[-{self.object_init_range}, {self.object_init_range}]^2; lower num_objects "
                "or min_object_distance."
            )


def _check_choice(name: str, value, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not one of {list(allowed)}.")


def _normal(name: str, value):
    """A distractor sampling as its enum (unknown strings as given), other values as given."""
    if name == "distractor_sampling":
        try:
            return DistractorSampling(value)
        except ValueError:
            return value
    return value


def check_world(world: str) -> str:
    """Returns ``world`` if it is one of `WORLDS`, else raises a ValueError naming them."""
    if world not in WORLDS:
        raise ValueError(f"world={world!r} is not one of {list(WORLDS)}.")
    return world


def world_config(world: str = "default", **overrides) -> PlaygroundConfig:
    """The `PlaygroundConfig` of a named world, with ``overrides`` of its other fields.

    "default" is `PlaygroundConfig()` (every field may be overridden). "authors" is the world of
    the authors' code: category-first distractors, their update order and release rule, water
    for "Grow ... living_thing", their placement (docs/environment.md). An override that is None
    is ignored (the world's value); one that contradicts what the world fixes raises.

    Raises:
      ValueError: an unknown world, an unknown field, a contradicting or a bad value.
    """
    fixed = _WORLD_SETTINGS[check_world(world)]
    fields = {f.name for f in dataclasses.fields(PlaygroundConfig)}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise ValueError(f"Unknown PlaygroundConfig fields {unknown}; allowed: {sorted(fields)}.")
    settings = {k: v for k, v in overrides.items() if v is not None}
    for name, value in fixed.items():
        given = settings.get(name, value)
        if _normal(name, given) != value:
            shown = value.value if isinstance(value, DistractorSampling) else value
            raise ValueError(
                f"world={world!r} sets {name}={shown!r}, but {name}={given!r} was given. "
                f"Drop {name}, or use world='default' to choose it freely."
            )
        settings[name] = value
    return PlaygroundConfig(**settings)
