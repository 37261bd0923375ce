"""Hyperparameter search for the reward model (`imagine-tf tune reward`), with keras-tuner.

`RewardTuner.run_trial` replaces fields of the base `RewardTrainConfig` by the trial's values
and trains the supervised recipe for the same budget in every trial: ``epochs_per_trial``
epochs of ``batches_per_epoch`` batches (the same number of gradient steps), early stopping
off, once per seed. The objective is the best **validation** F1 over those epochs (mean F1 over
the training goals on the final states of held-out training episodes; the weights the recipe
keeps), averaged over the seeds; the test split is never read. The first trial is the base
configuration itself (`oracles`), so the report ranks the default among the trials.

    <root_dir>/reward_<architecture>/      the keras-tuner project (`search_project`)
      trial_<id>/seed_<s>/                 a supervised run: checkpoints, summaries, weights
"""

from __future__ import annotations

import dataclasses
import gc
import pathlib
import statistics
from typing import Sequence

import keras_tuner
import tensorflow as tf

from imagine_tf.data.supervised import SupervisedData
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.supervised_training import SupervisedTrainer
from imagine_tf.reward.config import RewardTrainConfig
from imagine_tf.reward.recipe import supervised_config
from imagine_tf.tuning.config import REWARD_IGNORED, REWARD_TUNABLE
from imagine_tf.tuning.oracles import make_oracle
from imagine_tf.tuning.search_project import run_search
from imagine_tf.tuning.search_space import (
    SearchSpaceError,
    declared_hyperparameters,
    space_defaults,
)

OBJECTIVE = "validation_f1"
SPACE_NAME = "RewardSearchSpace.hyperparameters"


def trial_config(base: RewardTrainConfig, values: dict, epochs: int) -> RewardTrainConfig:
    """``base`` with a trial's values and the trial budget: ``epochs`` epochs, no early stop."""
    return dataclasses.replace(
        base, **values, max_epochs=epochs, patience=epochs, max_training_seconds=None
    )


class RewardTuner(keras_tuner.Tuner):
    """Supervised reward runs of one budget; the objective is the validation F1.

    Args:
      oracle: the search's oracle (`make_oracle`).
      data: the supervised data (its test states are not used).
      base: the base configuration (the default trial).
      epochs_per_trial: the epochs every trial trains.
      seeds: each trial trains once per seed; its score is the mean.
      progress: show each run's progress bar.
      **kwargs: `keras_tuner.Tuner`'s (``directory``, ``project_name``).
    """

    def __init__(
        self,
        oracle: keras_tuner.Oracle,
        data: SupervisedData,
        base: RewardTrainConfig,
        epochs_per_trial: int,
        seeds: Sequence[int],
        progress: bool = False,
        **kwargs,
    ):
        self.data, self.base, self.epochs_per_trial = data, base, epochs_per_trial
        self.seeds, self.progress = tuple(seeds), progress
        self.vocabulary = Vocabulary.from_goals(list(data.goals))
        super().__init__(oracle=oracle, **kwargs)

    def run_trial(self, trial, *args, **kwargs) -> dict:
        config = trial_config(self.base, trial.hyperparameters.values, self.epochs_per_trial)
        scores, seconds = [], 0.0
        for seed in self.seeds:
            gc.collect()
            tf.keras.backend.clear_session()
            run_dir = pathlib.Path(self.get_trial_dir(trial.trial_id)) / f"seed_{seed}"
            trainer = SupervisedTrainer(
                self.data, supervised_config(config, seed=seed), run_dir, vocabulary=self.vocabulary
            )
            scores.append(
                trainer.train(progress=self.progress, evaluate_test=False)["best_validation_f1"]
            )
            seconds += float(trainer.training_seconds.numpy())
        metrics = {
            OBJECTIVE: statistics.fmean(scores),
            "training_seconds": seconds,
            **{f"{OBJECTIVE}_seed_{s}": v for s, v in zip(self.seeds, scores)},
        }
        if len(scores) > 1:
            metrics[f"{OBJECTIVE}_seed_std"] = statistics.stdev(scores)
        return metrics


def reward_hyperparameters(
    space: dict, base: RewardTrainConfig, grid: bool = False
) -> keras_tuner.HyperParameters:
    """The declared space, defaults = ``base`` (a learning rate None resolved per architecture).

    Raises:
      SearchSpaceError: see `declared_hyperparameters`; also a field the architecture ignores.
    """
    ignored = sorted(set(space) & set(REWARD_IGNORED[base.architecture]))
    if ignored:
        raise SearchSpaceError(
            f"{SPACE_NAME} names {', '.join(ignored)}, which the {base.architecture!r} "
            "architecture ignores: remove them (every trial would train the same network)."
        )
    resolved = supervised_config(base).resolved_learning_rate
    return declared_hyperparameters(
        space, base, REWARD_TUNABLE, SPACE_NAME, defaults={"learning_rate": resolved}, grid=grid
    )


def _search_record(
    base: RewardTrainConfig, space: dict, tuner: str, epochs: int, seeds: tuple
) -> dict:
    """The search's description (what, tuner, space, budget, base config, objective)."""
    budget = {
        "epochs_per_trial": epochs,
        "batches_per_epoch": base.batches_per_epoch,
        "gradient_steps_per_run": epochs * base.batches_per_epoch,
        "seeds": list(seeds),
    }
    return {
        "what": "reward model",
        "tuner": tuner,
        "search_space": space,
        "budget": budget,
        "base_config": dataclasses.asdict(base),
        "objective": OBJECTIVE,
    }


def tune_reward_model(
    data: SupervisedData,
    root_dir: str,
    base: RewardTrainConfig,
    space: dict,
    epochs_per_trial: int | None = None,
    tuner: str = "random",
    max_trials: int = 10,
    seeds: Sequence[int] | None = None,
    command: str = "",
    progress: bool = False,
) -> dict:
    """Runs (or resumes) the search; returns its report, also written to the project directory.

    Args:
      data: the supervised data.
      root_dir: the project goes to ``<root_dir>/reward_<architecture>``.
      base: the base configuration (the first trial).
      space: {field: values or range} (`search_space`).
      epochs_per_trial: the trial budget in epochs; default ``base.max_epochs``.
      tuner: "random" or "grid".
      max_trials: trials in all, the default's included (a rerun may raise it).
      seeds: each trial's seeds; default ``(base.seed,)``.
      command: the command line, recorded in the report.
      progress: show each run's progress bar.

    Raises:
      SearchSpaceError: a bad space; `SearchMismatch`: the project holds another search;
      ValueError: a bad tuner, budget or seeds.
    """
    epochs = base.max_epochs if epochs_per_trial is None else epochs_per_trial
    seeds = (base.seed,) if seeds is None else tuple(seeds)
    if epochs < 1 or not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(
            f"A search needs >= 1 epoch per trial and distinct seeds, got "
            f"{epochs} epochs and seeds {seeds}."
        )
    hyperparameters = reward_hyperparameters(space, base, grid=tuner == "grid")
    oracle = make_oracle(tuner, hyperparameters, OBJECTIVE, max_trials, seeds[0])
    project = f"reward_{base.architecture}"
    search = _search_record(base, space, tuner, epochs, seeds)
    return run_search(
        root_dir,
        project,
        search,
        lambda: RewardTuner(
            oracle, data, base, epochs, seeds, progress, directory=root_dir, project_name=project
        ),
        space_defaults(hyperparameters),
        command,
        max_trials,
        "the best validation F1 of a run within the budget (mean F1 over the training goals on "
        "held-out training episodes), mean over seeds",
    )
