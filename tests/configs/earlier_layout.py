"""A run's ``config.json`` as earlier versions wrote it: the reward model's settings flat."""

from imagine_tf.old_names import MOVED_TRAIN_CONFIG_FIELDS, REWARD_MODEL_FIELD


def earlier_layout(values: dict) -> dict:
    """``values`` (a `TrainConfig.to_json` dict) with its ``reward_model`` as the flat
    ``reward_<field>`` keys of earlier runs (the settings added with the nesting left out)."""
    model = values[REWARD_MODEL_FIELD]
    kept = {key: value for key, value in values.items() if key != REWARD_MODEL_FIELD}
    return {**kept, **{old: model[new] for old, new in MOVED_TRAIN_CONFIG_FIELDS.items()}}
