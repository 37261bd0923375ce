"""The goal grammar: the 255 achievable one-object goals, the 160 two-object goals, the split.

the authors' Playground, flowersteam/Imagine Sentences start with a capitalised verb ("Go", "Grasp",
"Grow"); names are the 32 types and the 5 categories; colours are red, blue, green.

* One-object goals (255): 9 Go + 151 Grasp + 95 Grow. A goal is a **test** goal when it contains
  one of the reference's substrings (191 train / 64 test), and each test goal has a generalization
  type 1–5. "Grow red tree" matches both Type 1 ("red tree") and Type 5; as in the paper's
  table it is Type 5.
* Two-object (relational) goals (160): "Grasp any <rel> <X> thing", rel in {right_of, left_of,
  above, below}, X a colour, type or category. Meaning: the grasped object was **initially**
  strictly to the right of (left of, above, below) some *other* object matching X, comparing
  initial centre coordinates with no margin (right_of: x_held > x_ref). The paper's two test
  goals are held out: "Grasp any left_of blue thing", "Grasp any right_of dog thing".
"""

from __future__ import annotations

import difflib
import functools

from imagine_tf.env import ontology
from imagine_tf.env.scene_generation import RELATION_WORDS

GO, GRASP, GROW = "Go", "Grasp", "Grow"

#: Go goals and their zones on the final hand position: (x_low, x_high, y_low, y_high),
#: all strict inequalities, None for an open side (the authors' Playground, flowersteam/Imagine).
GO_ZONES: dict[str, tuple[float | None, float | None, float | None, float | None]] = {
    "Go left": (None, -0.05, None, None),
    "Go right": (0.05, None, None, None),
    "Go bottom": (None, None, None, -0.05),
    "Go top": (None, None, 0.05, None),
    "Go bottom left": (None, -0.25, None, -0.25),
    "Go bottom right": (0.25, None, None, -0.25),
    "Go top left": (None, -0.25, 0.25, None),
    "Go top right": (0.25, None, 0.25, None),
    "Go center": (-0.25, 0.25, -0.25, 0.25),
}

#: Names usable with Grasp (37) and with Grow (20 living types + 3 categories).
GRASP_NAMES: tuple[str, ...] = ontology.OBJECT_TYPES + ontology.CATEGORIES
GROW_NAMES: tuple[str, ...] = tuple(
    t for t in ontology.OBJECT_TYPES if ontology.IS_LIVING[ontology.TYPE_INDEX[t]]
) + ("animal", "plant", "living_thing")


def _object_goals(verb: str, names: tuple[str, ...]) -> list[str]:
    goals = [f"{verb} {colour} {name}" for colour in ontology.COLOURS for name in names]
    goals += [f"{verb} any {colour} thing" for colour in ontology.COLOURS]
    goals += [f"{verb} any {name}" for name in names]
    return goals


def one_object_goals() -> tuple[str, ...]:
    """The 255 achievable one-object goals, Go then Grasp then Grow."""
    return (
        tuple(GO_ZONES)
        + tuple(_object_goals(GRASP, GRASP_NAMES))
        + tuple(_object_goals(GROW, GROW_NAMES))
    )


def relational_goals() -> tuple[str, ...]:
    """The 160 two-object goals "Grasp any <rel> <X> thing"."""
    references = ontology.COLOURS + ontology.OBJECT_TYPES + ontology.CATEGORIES
    return tuple(
        f"Grasp any {relation} {reference} thing"
        for relation in RELATION_WORDS
        for reference in references
    )


# ------------------------------------------------------------------------------------------------
# Train / test split (the authors' Playground, flowersteam/Imagine)
# ------------------------------------------------------------------------------------------------
_ANY_COLOUR = ("red", "blue", "green", "any")
_PLANT_NAMES = ontology.PLANTS + ("plant", "living_thing")
_TYPE_1 = ("red tree", "green dog", "blue door")
_TYPE_2 = ("flower",)
_TYPE_3 = tuple(f"Grasp {c} animal" for c in _ANY_COLOUR)
_TYPE_4 = tuple(f"Grasp {c} fly" for c in _ANY_COLOUR)
_TYPE_5 = tuple(f"Grow {c} {name}" for c in _ANY_COLOUR for name in _PLANT_NAMES)
RELATIONAL_TEST_GOALS = ("Grasp any left_of blue thing", "Grasp any right_of dog thing")

GENERALIZATION_TYPES = {
    1: "attribute-object",
    2: "attribute extrapolation (new word 'flower')",
    3: "predicate-category",
    4: "easy predicate-object",
    5: "hard predicate-object",
}


def _contains(sentence: str, patterns: tuple[str, ...]) -> bool:
    return any(p in sentence for p in patterns)


def is_relational(sentence: str) -> bool:
    """True for a two-object goal (it names a spatial relation)."""
    return any(word in RELATION_WORDS for word in sentence.split())


def generalization_type(sentence: str) -> int | None:
    """The generalization type (1–5) of a one-object test goal, None otherwise.

    Relational goals have their own split (`RELATIONAL_TEST_GOALS`) and no type.
    """
    if is_relational(sentence):
        return None
    if _contains(sentence, _TYPE_2):
        return 2
    if _contains(sentence, _TYPE_3):
        return 3
    if _contains(sentence, _TYPE_4):
        return 4
    if _contains(sentence, _TYPE_5):
        return 5
    if _contains(sentence, _TYPE_1):
        return 1
    return None


def is_test_goal(sentence: str) -> bool:
    """True for the held-out goals (one-object rule of the reference, or the two relational test goals)."""
    return sentence in RELATIONAL_TEST_GOALS or generalization_type(sentence) is not None


def train_goals(relational: bool = False) -> tuple[str, ...]:
    """Training goals, sorted alphabetically (the index is the reference's "oracle id")."""
    goals = relational_goals() if relational else one_object_goals()
    return tuple(sorted(g for g in goals if not is_test_goal(g)))


def test_goals(relational: bool = False) -> tuple[str, ...]:
    """Held-out goals, sorted alphabetically."""
    goals = relational_goals() if relational else one_object_goals()
    return tuple(sorted(g for g in goals if is_test_goal(g)))


def nearest_goals(sentence: str, count: int = 3) -> list[str]:
    """The achievable goals closest in spelling to `sentence` (for error messages)."""
    candidates = one_object_goals() + relational_goals()
    lowered = {g.lower(): g for g in candidates}
    close = difflib.get_close_matches(sentence.lower(), list(lowered), n=count, cutoff=0.0)
    return [lowered[c] for c in close]


@functools.lru_cache(maxsize=1)
def _canonical_spellings() -> dict[str, str]:
    """lower-case goal -> its spelling, for every achievable goal (one-object and relational)."""
    return {goal.lower(): goal for goal in one_object_goals() + relational_goals()}


def check_goal(sentence: str) -> str:
    """Returns the canonical spelling of an achievable goal, or raises a helpful ValueError.

    Matching ignores case and repeated spaces ("grasp  Red cat" -> "Grasp red cat").
    """
    if not isinstance(sentence, str):
        raise TypeError(f"A goal is a string, got {type(sentence).__name__}: {sentence!r}.")
    goal = _canonical_spellings().get(" ".join(sentence.split()).lower())
    if goal is not None:
        return goal
    raise ValueError(
        f"Unknown goal {sentence!r}. The nearest achievable goals are "
        f"{nearest_goals(sentence)}; `imagine-tf goals --split all` lists all 255 "
        "(`--relational` for the 160 two-object goals)."
    )
