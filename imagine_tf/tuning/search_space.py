"""A search space declared as plain data (gin), turned into keras-tuner hyperparameters.

    {"learning_rate": {"min": 1e-4, "max": 3e-3, "sampling": "log"},   # hp.Float
     "num_candidates": {"min": 10, "max": 50, "step": 10},              # hp.Int
     "hidden_units": (50, 100, 200),                                    # hp.Choice
     "normalize_goal": (False, True)}                                   # hp.Boolean

Each name is a field of the tuned configuration (a frozen dataclass), or a field of a config it
nests under a flat key (``"reward_model.learning_rate"``, `config_keys`). Its default is the base
configuration's value, so the default configuration is a point of the space: the first trial
of every search (`oracles`).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import keras_tuner
from keras_tuner.engine import hyperparameters as hyperparameters_module

from imagine_tf.runs.config_keys import field_value, replaced

RANGE_KEYS = frozenset({"min", "max", "sampling", "step"})
SAMPLINGS = ("linear", "log")


class SearchSpaceError(ValueError):
    """A search space that cannot be searched; the message says how to fix it."""


def declared_hyperparameters(
    space: Mapping[str, Any],
    base,
    tunable: Sequence[str],
    owner: str,
    defaults: Mapping[str, Any] | None = None,
    grid: bool = False,
) -> keras_tuner.HyperParameters:
    """The keras-tuner hyperparameters of ``space``, each defaulting to ``base``'s value.

    Args:
      space: {field: (value, ...) or {"min", "max"[, "sampling"][, "step"]}}.
      base: the base configuration (a frozen dataclass whose fields are tuned).
      tunable: the fields a search may change (the rest fix the budget or the task).
      owner: the gin name of the space, for messages (e.g. "RewardSearchSpace.hyperparameters").
      defaults: values that replace ``base``'s (e.g. a learning rate None resolved).
      grid: a grid search: every entry must be finite (values, or a range with a step).

    Raises:
      SearchSpaceError: an unknown or untunable field, a malformed entry, a value the
        configuration refuses, or a space that does not hold the base value.
    """
    if not isinstance(space, Mapping) or not space:
        raise SearchSpaceError(
            f"{owner} must be a non-empty dict of {{field: values or range}}, got {space!r}."
        )
    hyperparameters = keras_tuner.HyperParameters()
    for name, spec in space.items():
        if name not in tunable:
            raise SearchSpaceError(
                f"{owner} names {name!r}, which a search cannot change: the tunable fields are "
                f"{', '.join(tunable)} (the others fix the budget or the task)."
            )
        default = (defaults or {}).get(name, field_value(base, name))
        if isinstance(spec, Mapping):
            _add_range(hyperparameters, name, dict(spec), default, owner, grid)
        elif isinstance(spec, (tuple, list)):
            _add_choice(hyperparameters, name, list(spec), default, owner)
        else:
            raise SearchSpaceError(
                f"{owner}[{name!r}] = {spec!r}: give a tuple of values, e.g. (1e-4, 1e-3), or a "
                "range, e.g. {'min': 1e-4, 'max': 1e-2, 'sampling': 'log'}."
            )
    for hp in hyperparameters.space:
        for value in _end_values(hp):
            _check_value(base, hp.name, value, owner)
    return hyperparameters


def space_defaults(hyperparameters: keras_tuner.HyperParameters) -> dict[str, Any]:
    """{name: default} of every hyperparameter: the values of the default configuration."""
    return {hp.name: hp.default for hp in hyperparameters.space}


def _add_choice(hyperparameters, name: str, values: list, default, owner: str) -> None:
    if len(values) < 2 or len(set(map(repr, values))) != len(values):
        raise SearchSpaceError(
            f"{owner}[{name!r}] = {tuple(values)!r}: give at least two values, each once (the "
            "base configuration sets a field that is not searched)."
        )
    if any(isinstance(v, float) for v in values):  # (0, 0.5): one type, as keras-tuner needs
        values = [float(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in values]
    if default not in values:
        raise SearchSpaceError(
            f"{owner}[{name!r}] = {tuple(values)!r} does not hold the base value {default!r}: "
            "add it, so that the default configuration is one of the trials."
        )
    if all(isinstance(v, bool) for v in values):  # keras-tuner's Choice would make them ints
        hyperparameters.Boolean(name, default=default)
        return
    try:
        hyperparameters.Choice(name, values, default=values[values.index(default)])
    except (TypeError, ValueError) as error:
        raise SearchSpaceError(f"{owner}[{name!r}] = {tuple(values)!r}: {error}") from None


def _add_range(hyperparameters, name: str, spec: dict, default, owner: str, grid: bool) -> None:
    unknown = set(spec) - RANGE_KEYS
    low, high = spec.get("min"), spec.get("max")
    sampling, step = spec.get("sampling", "linear"), spec.get("step")
    numbers = [v for v in (low, high, step) if v is not None]
    if (
        unknown
        or low is None
        or high is None
        or sampling not in SAMPLINGS
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers)
        or not low < high
        or (sampling == "log" and low <= 0)
    ):
        raise SearchSpaceError(
            f"{owner}[{name!r}] = {spec!r}: a range is {{'min': a, 'max': b}} with a < b, and "
            f"optionally 'sampling' in {SAMPLINGS} (log needs a > 0) and 'step'."
        )
    if grid and step is None:
        raise SearchSpaceError(
            f"{owner}[{name!r}] = {spec!r}: a grid search needs a finite set of values: give a "
            "'step' or a tuple of values."
        )
    if not isinstance(default, (int, float)) or not low <= default <= high:
        raise SearchSpaceError(
            f"{owner}[{name!r}] = {spec!r} does not hold the base value {default!r}: widen the "
            "range, so that the default configuration is one of the trials."
        )
    integers = all(isinstance(v, int) for v in (*numbers, default))
    kind = hyperparameters.Int if integers else hyperparameters.Float
    kind(name, low, high, step=step, sampling=sampling, default=default)


def _end_values(hp) -> list:
    """The values of a choice, the ends of a range: what the configuration must accept."""
    if isinstance(hp, (hyperparameters_module.Choice, hyperparameters_module.Boolean)):
        return list(hp.values)
    return [hp.min_value, hp.max_value]


def _check_value(base, name: str, value, owner: str) -> None:
    """Raises SearchSpaceError if the configuration refuses ``value`` for ``name``."""
    try:
        replaced(base, {name: value})
    except (TypeError, ValueError) as error:
        raise SearchSpaceError(f"{owner}[{name!r}] holds {value!r}, refused: {error}") from None
