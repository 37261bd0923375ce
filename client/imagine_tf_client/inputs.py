"""Checks of the signatures' inputs before they are sent: what was given against what each
signature takes (the serving README's contract), as `InvalidInput` errors that say how to fix
them. The server checks again (widths, NaN, vocabulary); these catch what is clearly wrong."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from imagine_tf_client.errors import InvalidInput


def states_array(states, what: str = "states") -> np.ndarray:
    """``states`` as float32 [B, D] with B >= 1."""
    try:
        array = np.asarray(states, dtype=np.float32)
    except (TypeError, ValueError) as error:
        raise InvalidInput(f"{what} must be numbers, float32 [B, D]: {error}") from None
    if array.ndim != 2:
        hint = ": for one state, pass [state] (or state[None])" if array.ndim == 1 else ""
        raise InvalidInput(
            f"{what} must be a 2-D array [B, D] (one row per state), got shape "
            f"{list(array.shape)}{hint}"
        )
    if array.shape[0] == 0:
        raise InvalidInput(f"{what} has no rows: give at least one state")
    return array


def goal_array(goals: str | Sequence[str], count: int | None = None) -> np.ndarray:
    """Goal sentences as a string array [K]. One sentence (a str) is repeated ``count`` times
    when ``count`` is given, else it is a list of one."""
    if isinstance(goals, (str, bytes)):
        goals = [goals] * (1 if count is None else count)
    if isinstance(goals, np.ndarray) and goals.ndim != 1:
        raise InvalidInput(f"goals must be 1-D [K], got shape {list(goals.shape)}")
    try:
        items = list(goals)
    except TypeError:
        raise InvalidInput(
            f"goals must be a list of sentences (str), got {type(goals).__name__}"
        ) from None
    for position, goal in enumerate(items):
        if not isinstance(goal, (str, bytes)):
            raise InvalidInput(
                f"goals[{position}] must be a sentence (str), got {type(goal).__name__} "
                f"{goal!r}"
            )
    if not items:
        raise InvalidInput("goals is empty: give at least one sentence")
    if count is not None and len(items) != count:
        raise InvalidInput(
            f"one goal per state: {count} states but {len(items)} goals; give one sentence "
            "to use it for every state, or use scan() for every state with every goal"
        )
    return np.array(items, dtype=object)


def token_array(goal, count: int) -> np.ndarray:
    """Goal token ids as int32 [B, L] (``PlaygroundEnv``'s ``goal`` observation)."""
    array = np.asarray(goal)
    if array.dtype.kind not in "iu" or array.ndim != 2:
        raise InvalidInput(
            "observation['goal'] must be sentences [B] (str) or token ids int32 [B, L], got "
            f"{array.dtype} of shape {list(array.shape)}"
        )
    if array.shape[0] != count:
        raise InvalidInput(
            f"one goal per state: {count} states but {array.shape[0]} rows of goal tokens"
        )
    if array.size and (array.min() < 0 or array.max() > np.iinfo(np.int32).max):
        raise InvalidInput("goal token ids must be int32 values >= 0 (0 is padding)")
    return array.astype(np.int32)


def model_path(model: str, version: int | None, label: str | None) -> str:
    """``/v1/models/NAME[/versions/N|/labels/L]``; InvalidInput for a bad name or both."""
    if not isinstance(model, str) or not model or "/" in model or ":" in model:
        raise InvalidInput(f"model must be a served model's name (e.g. 'reward'), got {model!r}")
    if version is not None and label is not None:
        raise InvalidInput(f"give a version or a label, not both (version={version}, {label=})")
    if version is not None:
        if isinstance(version, bool) or not isinstance(version, (int, np.integer)) or version < 0:
            raise InvalidInput(f"version must be a version number (int >= 0), got {version!r}")
        return f"/v1/models/{model}/versions/{int(version)}"
    if label is not None:
        if not isinstance(label, str) or not label or "/" in label or ":" in label:
            raise InvalidInput(f"label must be a version label (e.g. 'stable'), got {label!r}")
        return f"/v1/models/{model}/labels/{label}"
    return f"/v1/models/{model}"


def check_timeout(timeout) -> float:
    """``timeout`` as seconds > 0."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise InvalidInput(f"timeout must be a number of seconds > 0, got {timeout!r}")
    return float(timeout)
