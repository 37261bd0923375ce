"""A run's configuration as flat keys: a nested config's fields under dotted keys.

A `TrainConfig` nests the reward model's settings (``TrainConfig.reward_model``, a
`RewardModelConfig`); comparing a run's stored ``config.json`` with the config of a resuming,
forking or tuning command is made on flat keys, ``"reward_model.max_epochs"``, so that a
change inside the nested config names the setting. A ``config.json`` of the earlier flat layout
(``"reward_max_epochs"``, `old_names.MOVED_TRAIN_CONFIG_FIELDS`) gives the same keys.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from imagine_tf.old_names import MOVED_TRAIN_CONFIG_FIELDS, REWARD_MODEL_FIELD, nested_train_config


def flat_config(values: Mapping[str, Any]) -> dict[str, Any]:
    """{key: value} of a stored config (``config.json``'s dict, either layout): the fields of a
    nested dict under ``"<field>.<its field>"``."""
    flat = {}
    for key, value in nested_train_config(dict(values)).items():
        if isinstance(value, Mapping):
            flat.update({f"{key}.{k}": v for k, v in flat_config(value).items()})
        else:
            flat[key] = value
    return flat


def current_key(key: str) -> str:
    """The flat key of a setting now: ``"reward_model.max_epochs"`` for the earlier
    ``"reward_max_epochs"``; any other key as it is."""
    moved = MOVED_TRAIN_CONFIG_FIELDS.get(key)
    return f"{REWARD_MODEL_FIELD}.{moved}" if moved else key


def declared_defaults(cls) -> dict[str, Any]:
    """The flat defaults that the dataclass ``cls`` declares (not gin's bindings): a field
    whose default is made by a dataclass (``default_factory``) gives that class's defaults."""
    defaults = {}
    for field in dataclasses.fields(cls):
        if dataclasses.is_dataclass(field.default_factory):
            nested = declared_defaults(field.default_factory)
            defaults.update({f"{field.name}.{k}": v for k, v in nested.items()})
        else:
            defaults[field.name] = field.default
    return defaults


def field_value(config, key: str) -> Any:
    """The value of flat ``key`` in the dataclass ``config`` ("reward_model.patience")."""
    for name in key.split("."):
        config = getattr(config, name)
    return config


def replaced(config, values: Mapping[str, Any]):
    """``config`` (a frozen dataclass) with the values of flat keys replaced
    (`dataclasses.replace`, so its checks run); a nested config is replaced in turn."""
    direct, nested = {}, {}
    for key, value in values.items():
        name, _, rest = key.partition(".")
        if rest:
            nested.setdefault(name, {})[rest] = value
        else:
            direct[key] = value
    for name, inner in nested.items():
        direct[name] = replaced(direct.get(name, getattr(config, name)), inner)
    return dataclasses.replace(config, **direct)
