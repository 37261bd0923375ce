"""The earlier name of the part of `imagine_tf.reward.config` that holds `RewardModelConfig`,
kept for one release: import from `imagine_tf.reward.config`."""

from imagine_tf.reward.config import (  # noqa: F401
    CO_TRAINING_ONLY,
    DEFAULT_LEARNING_RATE,
    SUPERVISED_ONLY,
    RewardModelConfig,
)
