"""Goal-conditioned scene generation (``reset_with_goal``, the authors' Playground, flowersteam/Imagine), batched.

The environment package is language-free: a goal reaches it as `SceneConstraints`, the attribute
constraints that the language side parsed out of the sentence. Object 0 is the goal's object (the
one to grasp or grow, or the one to grasp in a relational goal); object 1 is the supply of a grow
goal or the reference object of a relational goal; the rest are distractors.

Choices (see docs/environment.md):
  * Distractor types follow `DistractorSampling` (default: uniform over the 32 types with no exact
    duplicate (type, colour, shade, size class), as in the paper and [T]).
  * An object whose goal fixes neither type nor category gets its type the same way, except the
    object of a grow goal, whose category is uniform over {animal, plant}.
  * The supply of a grow goal is water for a plant, food or water (50/50) for an animal; its
    colour is random ([H]). With ``living_thing_supply="water"`` (the authors' world), a goal
    naming the category living_thing always gets water, as in their ``reset_with_goal``.
  * Relational goals: the pair's initial positions satisfy the relation strictly (e.g. right_of:
    x_0 > x_1); when a draw violates it, the two objects swap positions, which keeps all
    distances.
"""

from __future__ import annotations

import dataclasses
import enum
import functools

import numpy as np

from imagine_tf.env import ontology
from imagine_tf.env.config import (
    MAX_INITIAL_SIZE,
    MIN_INITIAL_SIZE,
    DistractorSampling,
    PlaygroundConfig,
)

_MAX_PLACEMENT_ROUNDS = 10_000


class GoalKind(enum.IntEnum):
    """What a goal asks of the scene."""

    FREE = 0  # "Go ..." goals and unknown goals: no constraint.
    GRASP = 1  # object 0 carries the goal's attributes.
    GROW = 2  # object 0 is a living thing with the attributes, object 1 a valid supply.
    RELATIONAL = 3  # object 0 is grasped; object 1 is the reference, placed per the relation.


class Relation(enum.IntEnum):
    """Spatial relation of a two-object goal, on initial positions (strict comparisons)."""

    RIGHT_OF = 0  # x_object > x_reference
    LEFT_OF = 1  # x_object < x_reference
    ABOVE = 2  # y_object > y_reference
    BELOW = 3  # y_object < y_reference


RELATION_WORDS = ("right_of", "left_of", "above", "below")


# Plain ints for the hot paths (enum attribute access costs microseconds).
_FREE, _GRASP, _GROW, _RELATIONAL = (int(k) for k in GoalKind)
_RIGHT_OF, _LEFT_OF, _ABOVE, _BELOW = (int(r) for r in Relation)


def relation_holds(position: np.ndarray, reference: np.ndarray, relation: np.ndarray) -> np.ndarray:
    """Evaluates relations elementwise on ``position [..., 2]`` vs ``reference [..., 2]``.

    Args:
      position, reference: float arrays [..., 2] (broadcastable).
      relation: int array [...] of `Relation` values.

    Returns:
      bool array [...]: right_of x > x_ref, left_of x < x_ref, above y > y_ref, below y < y_ref.
    """
    difference = position - reference  # [..., 2]
    along = np.where(relation >= _ABOVE, difference[..., 1], difference[..., 0])
    return np.where((relation == _RIGHT_OF) | (relation == _ABOVE), along > 0, along < 0)


@dataclasses.dataclass(frozen=True)
class SceneConstraints:
    """Per-scene constraints from the goals, all int arrays of shape [B]; -1 means free.

    Attributes:
      kind: a `GoalKind` per scene.
      colour, object_type, category: attributes of object 0.
      reference_colour, reference_type, reference_category: attributes of object 1 (relational).
      relation: a `Relation` per scene (relational goals), else -1.
    """

    kind: np.ndarray
    colour: np.ndarray
    object_type: np.ndarray
    category: np.ndarray
    reference_colour: np.ndarray
    reference_type: np.ndarray
    reference_category: np.ndarray
    relation: np.ndarray

    @property
    def batch_size(self) -> int:
        return self.kind.shape[0]

    @classmethod
    def free(cls, batch_size: int) -> "SceneConstraints":
        """No constraint at all: N random objects."""
        minus = np.full(batch_size, -1, dtype=np.int64)
        fields = {f.name: minus.copy() for f in dataclasses.fields(cls)}
        fields["kind"] = np.zeros(batch_size, dtype=np.int64)
        return cls(**fields)


@dataclasses.dataclass
class SceneLayout:
    """Initial attributes of B scenes of N objects.

    Attributes:
      object_type: int64 [B, N].
      colour: int64 [B, N] colour index.
      rgb: float32 [B, N, 3].
      size: float32 [B, N].
      position: float32 [B, N, 2].
    """

    object_type: np.ndarray
    colour: np.ndarray
    rgb: np.ndarray
    size: np.ndarray
    position: np.ndarray


# Type distributions, by code: each object's type is drawn from one row of a CDF table.
#   0          the free (distractor) distribution of the sampling mode
#   1 + t      exactly type t
#   33 + c     uniform inside category c
#   38         an animal or a plant (category 50/50, then uniform; = uniform over living types)
_EXACT, _IN_CATEGORY, _ANIMAL_OR_PLANT = 1, 1 + ontology.NUM_TYPES, 1 + ontology.NUM_TYPES + 5


def _type_cdfs(sampling: DistractorSampling) -> np.ndarray:
    """float [39, 32]: cumulative type probabilities per code (last column pushed to 2)."""
    members = ontology.CATEGORY_MEMBERS / ontology.CATEGORY_MEMBERS.sum(axis=1, keepdims=True)
    if sampling is DistractorSampling.UNIFORM_TYPES:
        free = np.full(ontology.NUM_TYPES, 1 / ontology.NUM_TYPES)
    else:  # a category uniform over the 5, then a type inside it
        free = members.mean(axis=0)
    living = (members[ontology.ANIMAL] + members[ontology.PLANT]) / 2
    weights = np.concatenate([free[None], np.eye(ontology.NUM_TYPES), members, living[None]])
    cdf = np.cumsum(weights, axis=1)
    cdf[:, -1] = 2.0  # u in [0, 1) never passes the last entry, whatever the rounding
    cdf.setflags(write=False)
    return cdf


_TYPE_CDFS = {mode: _type_cdfs(mode) for mode in DistractorSampling}


def _type_code(object_type: np.ndarray, category: np.ndarray) -> np.ndarray:
    """Distribution code of objects named by a type and/or category (-1 = not named)."""
    return np.where(
        object_type >= 0, _EXACT + object_type, np.where(category >= 0, _IN_CATEGORY + category, 0)
    )


# Columns of the per-object uniform draws.
_U_TYPE, _U_COLOUR, _U_SHADE, _U_BIG, _U_SIZE, _U_SUPPLY = range(6)


def generate_scenes(
    constraints: SceneConstraints,
    config: PlaygroundConfig,
    rng: np.random.Generator,
) -> SceneLayout:
    """Draws B scenes that satisfy the goals' constraints.

    Args:
      constraints: one `SceneConstraints` row per scene.
      config: the world's configuration (N, distractor sampling, placement area).
      rng: the random generator (all randomness comes from it).

    Returns:
      The `SceneLayout` of the B scenes.

    Raises:
      ValueError: a goal needs two objects (grow, relational) and N = 1.
    """
    batch, num_objects = constraints.batch_size, config.num_objects
    kind = constraints.kind
    grow = kind == _GROW
    relational = kind == _RELATIONAL
    needs_pair = grow | relational
    any_pair = bool(np.count_nonzero(needs_pair))
    if num_objects < 2 and any_pair:
        raise ValueError(
            "Grow and relational goals need a second object (a supply or a reference), but "
            "num_objects=1. Use num_objects >= 2, or only Go/Grasp goals."
        )
    sampling = config.distractor_sampling
    uniform = rng.random((batch, num_objects, 6))

    # 1. Types: object 0 carries the goal's attributes, object 1 the reference's or supply.
    living_water = config.living_thing_supply == "water"
    object_type = _draw_types(
        constraints, sampling, uniform, grow, relational, any_pair, living_water
    )
    # 2. Colours: the goal's (and the reference's) where named, else uniform.
    colour = _draw_colours(constraints, uniform, relational, any_pair)
    shade = (uniform[..., _U_SHADE] < 0.5).astype(np.int64)
    big = (uniform[..., _U_BIG] < 0.5).astype(np.int64)

    # 3. No exact duplicate among distractors (uniform sampling mode, as in [T]).
    if sampling is DistractorSampling.UNIFORM_TYPES and num_objects >= 2:
        first_distractor = np.where(needs_pair, 2, (kind != _FREE).astype(np.int64))
        _resample_duplicates(object_type, colour, shade, big, first_distractor, rng)

    # 4. Continuous attributes.
    rgb = ontology.sample_rgb(colour, rng, shade=shade)
    size = MIN_INITIAL_SIZE + (big + uniform[..., _U_SIZE]) * (
        (MAX_INITIAL_SIZE - MIN_INITIAL_SIZE) / 2
    )
    position = _place_objects(constraints, config, rng)
    return SceneLayout(
        object_type=object_type,
        colour=colour,
        rgb=rgb,
        size=size.astype(np.float32),
        position=position,
    )


def _draw_types(
    constraints: SceneConstraints,
    sampling: DistractorSampling,
    uniform: np.ndarray,
    grow: np.ndarray,
    relational: np.ndarray,
    any_pair: bool,
    living_water: bool = False,
) -> np.ndarray:
    """Object types int64 [B, N] from ``uniform`` [B, N, 6]: object 0 carries the goal's
    attributes (an unnamed object to grow is an animal or a plant), object 1 of a relational
    goal the reference's, everything else is free. ``grow``, ``relational``: bool [B] of the
    goals' kinds; ``any_pair``: any of them; ``living_water``: a goal naming living_thing gets
    water as its supply."""
    codes = np.zeros(uniform.shape[:2], dtype=np.int64)  # [B, N]
    codes[:, 0] = np.where(
        grow & (constraints.object_type < 0) & (constraints.category < 0),
        _ANIMAL_OR_PLANT,
        _type_code(constraints.object_type, constraints.category),
    )
    if any_pair:
        reference = _type_code(constraints.reference_type, constraints.reference_category)
        codes[:, 1] = np.where(relational, reference, 0)
    cdf = _TYPE_CDFS[sampling][codes]  # [B, N, 32]
    object_type = np.add.reduce(cdf <= uniform[..., _U_TYPE, None], axis=2, dtype=np.int64)
    if any_pair:
        # Object 1 of a grow goal: water for a plant, food or water (50/50) for an animal.
        water = ontology.IS_PLANT[object_type[:, 0]] | (uniform[:, 1, _U_SUPPLY] < 0.5)
        if living_water:  # the same draws either way: the rule changes no other object
            water |= constraints.category == ontology.LIVING_THING
        supply = np.where(water, ontology.WATER, ontology.FOOD)
        object_type[:, 1] = np.where(grow, supply, object_type[:, 1])
    return object_type


def _draw_colours(
    constraints: SceneConstraints, uniform: np.ndarray, relational: np.ndarray, any_pair: bool
) -> np.ndarray:
    """Colour ids int64 [B, N] from ``uniform`` [B, N, 6]: the goal's (and the reference's,
    ``relational`` bool [B]) where named, else uniform."""
    colour = (uniform[..., _U_COLOUR] * ontology.NUM_COLOURS).astype(np.int64)
    colour[:, 0] = np.where(constraints.colour >= 0, constraints.colour, colour[:, 0])
    if any_pair:
        named = relational & (constraints.reference_colour >= 0)
        colour[:, 1] = np.where(named, constraints.reference_colour, colour[:, 1])
    return colour


@functools.lru_cache(maxsize=None)
def _earlier(num_objects: int) -> np.ndarray:
    """bool [N, N], True where j < i (read-only, cached)."""
    earlier = np.tril(np.ones((num_objects, num_objects), dtype=bool), -1)
    earlier.setflags(write=False)
    return earlier


def _resample_duplicates(object_type, colour, shade, big, first_distractor, rng):
    """Redraws distractors equal in (type, colour, shade, size class) to an earlier object."""
    batch, num_objects = object_type.shape
    is_distractor = np.arange(num_objects)[None, :] >= first_distractor[:, None]
    earlier = _earlier(num_objects)
    for _ in range(_MAX_PLACEMENT_ROUNDS):
        key = object_type * 12 + colour * 4 + shade * 2 + big  # [B, N]
        ordered = np.sort(key, axis=1)
        if not np.count_nonzero(ordered[:, 1:] == ordered[:, :-1]):
            return  # no two objects alike at all (the common case)
        same = key[:, :, None] == key[:, None, :]
        duplicate = (same & earlier).any(axis=2) & is_distractor
        if not np.count_nonzero(duplicate):
            return
        count = int(duplicate.sum())
        object_type[duplicate] = rng.integers(0, ontology.NUM_TYPES, count)
        colour[duplicate] = rng.integers(0, ontology.NUM_COLOURS, count)
        shade[duplicate] = rng.integers(0, 2, count)
        big[duplicate] = rng.integers(0, 2, count)
    raise RuntimeError("Could not draw distinct distractors; this should not happen.")


def _place_objects(
    constraints: SceneConstraints,
    config: PlaygroundConfig,
    rng: np.random.Generator,
) -> np.ndarray:
    """Positions [B, N, 2] (float32), uniform in the init square, pairwise >= min distance.

    All objects are drawn at once; an object closer than the minimal distance to an earlier one
    is drawn again, until none is. A relational pair that violates its relation swaps
    positions (all distances are kept); rows that still fail (exact ties) are drawn again.
    """
    batch, num_objects = constraints.batch_size, config.num_objects
    limit = config.object_init_range
    min_distance2 = float(np.float32(config.min_object_distance)) ** 2
    earlier = _earlier(num_objects)  # [i, j]: j < i
    relational = constraints.kind == _RELATIONAL
    any_relational = bool(np.count_nonzero(relational))
    position = rng.uniform(-limit, limit, size=(batch, num_objects, 2)).astype(np.float32)
    for _ in range(_MAX_PLACEMENT_ROUNDS):
        if num_objects > 1:
            gap = position[:, :, None, :] - position[:, None, :, :]
            close = ((gap * gap).sum(axis=-1) < min_distance2) & earlier
            redraw = close.any(axis=2)
        else:
            redraw = np.zeros((batch, 1), dtype=bool)
        if any_relational:
            pair = position[:, :2]
            swap = relational & ~relation_holds(pair[:, 0], pair[:, 1], constraints.relation)
            position[swap, :2] = position[swap, 1::-1]
            tie = relational & ~relation_holds(position[:, 0], position[:, 1], constraints.relation)
            redraw[:, :2] |= tie[:, None]
        if not np.count_nonzero(redraw):
            return position
        position[redraw] = rng.uniform(-limit, limit, size=(int(redraw.sum()), 2))
    raise RuntimeError(
        f"Could not place {num_objects} objects {config.min_object_distance} apart; lower N."
    )
