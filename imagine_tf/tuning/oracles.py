"""The keras-tuner oracles of a search: random or grid, the default configuration first.

Both oracles run the base configuration (every hyperparameter at its default) as their first
trial, so that a search report can say whether the best trial beats it: `GridSearchOracle`
starts from the defaults by design, and `DefaultFirstRandomSearchOracle` adds that to random
search. The search space is declared before the search (`search_space`); trials cannot add
hyperparameters to it.
"""

from __future__ import annotations

import keras_tuner
from keras_tuner.engine import trial as trial_module

from imagine_tf.tuning.search_space import space_defaults

TUNERS = ("random", "grid")


class DefaultFirstRandomSearchOracle(keras_tuner.oracles.RandomSearchOracle):
    """Random search whose first trial is the space's defaults (the base configuration).

    On a resumed search the defaults are not run again: the oracle's record of tried values
    (saved in its project directory) holds them.
    """

    def populate_space(self, trial_id: str) -> dict:
        defaults = space_defaults(self.hyperparameters)
        if not self._duplicate(defaults):
            return {"status": trial_module.TrialStatus.RUNNING, "values": defaults}
        return super().populate_space(trial_id)


def make_oracle(
    tuner: str,
    hyperparameters: keras_tuner.HyperParameters,
    objective: str,
    max_trials: int,
    seed: int = 0,
) -> keras_tuner.Oracle:
    """The oracle of ``tuner`` ("random" or "grid") maximising the metric ``objective``.

    A grid search stops at ``max_trials`` or when the grid is exhausted.

    Raises:
      ValueError: an unknown ``tuner`` or ``max_trials`` < 1.
    """
    if tuner not in TUNERS:
        hint = (
            " Hyperband trains trials for different numbers of epochs, so its ranking mixes "
            "budgets; the searches here compare every trial at the same budget."
            if tuner == "hyperband"
            else ""
        )
        raise ValueError(f"The tuner must be one of {TUNERS}, got {tuner!r}.{hint}")
    if max_trials < 1:
        raise ValueError(f"max_trials must be >= 1, got {max_trials}.")
    if tuner == "random":
        kind = DefaultFirstRandomSearchOracle
    else:
        kind = keras_tuner.oracles.GridSearchOracle
    return kind(
        objective=keras_tuner.Objective(objective, direction="max"),
        max_trials=max_trials,
        hyperparameters=hyperparameters,
        allow_new_entries=False,
        tune_new_entries=False,
        seed=seed + 1,  # keras-tuner draws a random seed for 0
    )
