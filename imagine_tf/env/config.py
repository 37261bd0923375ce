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


@dataclasses.dataclass(frozen=True)
class PlaygroundConfig:
    """The knobs of a Playground world.

    Attributes:
      num_objects: N, objects per scene (>= 1; grow and relational goals need >= 2).
      episode_length: T, steps per episode (the time limit is a truncation).
      distractor_sampling: a `DistractorSampling` or its string value.
      object_init_range: objects start uniform in [-r, r]^2: 1.0 ([H], default) or 1.2 ([T]).
      min_object_distance: minimal centre distance between objects at reset (0.3).
    """

    num_objects: int = 3
    episode_length: int = EPISODE_LENGTH
    distractor_sampling: DistractorSampling | str = DistractorSampling.UNIFORM_TYPES
    object_init_range: float = 1.0
    min_object_distance: float = 0.3

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
