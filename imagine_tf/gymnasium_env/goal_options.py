"""The goals a Gymnasium ``reset(options=...)`` sets, checked with errors that say how to fix them.

``options={"goal": "Grasp red cat"}`` sets one goal for every scene, ``options={"goals": [...]}``
one goal per scene; no option (or ``options=None``) lets the environment sample training goals.
Goals are matched ignoring case and repeated spaces.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from imagine_tf.language import grammar

OPTION_KEYS = ("goal", "goals")


def goals_from_options(
    options: Mapping[str, Any] | None, num_scenes: int, relational: bool
) -> list[str] | None:
    """The canonical goal sentences an options dict sets, one per scene, or None (sample).

    Raises:
      ValueError: an unknown option, an unknown goal, a two-object goal in an environment made
        without ``relational=True``, or not one goal per scene.
      TypeError: a goal that is not a string.
    """
    if not options:
        return None
    unknown = sorted(set(options) - set(OPTION_KEYS))
    if unknown or len(options) != 1:
        raise ValueError(
            f"reset(options=...) got the keys {sorted(options)}; expected exactly one of "
            f"{list(OPTION_KEYS)}: options={{'goal': 'Grasp red cat'}} sets every scene's goal, "
            "options={'goals': [...]} one goal per scene."
        )
    if "goal" in options:
        goals = [options["goal"]] * num_scenes
    else:
        goals = options["goals"]
        if isinstance(goals, str) or not isinstance(goals, Sequence):
            raise ValueError(
                f"options['goals'] must be a list of {num_scenes} sentences, got {goals!r}; "
                "use options={'goal': sentence} for one goal in every scene."
            )
        if len(goals) != num_scenes:
            raise ValueError(
                f"options['goals'] has {len(goals)} sentences; expected one per scene "
                f"({num_scenes})."
            )
    return [check_goal(goal, relational) for goal in goals]


def check_goal(goal: Any, relational: bool) -> str:
    """The canonical spelling of a goal this environment knows, or a ValueError saying why not."""
    if not isinstance(goal, str):
        raise TypeError(
            f"A goal is a sentence (str) such as 'Grasp red cat', got {type(goal).__name__}: "
            f"{goal!r}."
        )
    try:
        canonical = grammar.check_goal(goal)
    except ValueError:
        count = "415 goals (255 one-object, 160 two-object)" if relational else "255 goals"
        raise ValueError(
            f"Unknown goal {goal!r} in reset options. Expected one of this environment's "
            f"{count}; the nearest are {grammar.nearest_goals(goal)}. The environment's "
            "`goal_sentences` lists them all (so does `imagine-tf goals --split all`)."
        ) from None
    if grammar.is_relational(canonical) and not relational:
        raise ValueError(
            f"Goal {canonical!r} is a two-object goal; this environment knows the 255 "
            "one-object goals only. Make it with relational=True, e.g. "
            "gymnasium.make('imagine_tf/Playground-v0', relational=True)."
        )
    return canonical


def restricted_goals(goals: Sequence[str] | None, relational: bool) -> list[str] | None:
    """The canonical sentences of an environment's ``goals=[...]`` (the goals it samples), or
    None; a ValueError for an empty list or a bare string, as for an unknown goal."""
    if goals is None:
        return None
    if isinstance(goals, str) or not isinstance(goals, Sequence) or not goals:
        raise ValueError(
            f"goals= must be a non-empty list of goal sentences (those the environment samples), "
            f"got {goals!r}; e.g. goals=['Grasp red cat', 'Go left']."
        )
    return list(dict.fromkeys(check_goal(goal, relational) for goal in goals))
