"""Hyperparameter search for the agent (`imagine-tf tune agent`), with keras-tuner.

`AgentTuner.run_trial` is a short co-training run: the base `TrainConfig` (from gin) with the
trial's values, trained for ``epochs_per_trial`` epochs by `train_eval.train`, as
`imagine-tf train` trains, in an ordinary run directory: a trial interrupted mid-way resumes
from its checkpoint, and ``imagine-tf train --root-dir <trial>/run`` (its ``config.gin`` holds
the trial's values) or ``imagine-tf eval`` work on it. The objective is the train success rate
of the noise-free policy at the end of the budget: the last epoch's in-training evaluation
(one episode per training goal), or with ``eval_repetitions`` R > 0 an `evaluate_learner` of R
episodes per goal. Test goals are never used for selection. The first trial is the base
configuration itself (`oracles`).

    <root_dir>/agent/             the keras-tuner project (`search_project`)
      trial_<id>/run/             the trial's run directory (`run_layout`)
"""

from __future__ import annotations

import dataclasses
import gc
import json
import pathlib

import gin
import keras_tuner
import tensorflow as tf

from imagine_tf.runs import layout as run_layout
from imagine_tf.runs.config_keys import current_key, declared_defaults, flat_config, replaced
from imagine_tf.agent.config import TrainConfig, binding_name
from imagine_tf.analysis.run_evaluation import evaluate_learner
from imagine_tf.analysis.figures import plot_learning_curve
from imagine_tf.training.train_eval import train
from imagine_tf.tuning.config import AGENT_TUNABLE
from imagine_tf.tuning.oracles import make_oracle
from imagine_tf.tuning.search_project import run_search
from imagine_tf.tuning.search_space import declared_hyperparameters, space_defaults

PROJECT = "agent"
SPACE_NAME = "AgentSearchSpace.hyperparameters"
# The objectives: train success rates, over all training goals or one predicate's.
OBJECTIVES = ("train_success", "train_success_go", "train_success_grasp", "train_success_grow")


def objective_value(objective: str, record: dict, evaluation: dict | None = None) -> float:
    """``objective`` from an epoch record of ``progress.jsonl``, or from an `evaluate_learner`
    result if given."""
    predicate = objective.removeprefix("train_success").lstrip("_")
    if evaluation is None:
        return float(record[f"eval_{objective}"])
    if not predicate:
        return float(evaluation["train_success"])
    return float(evaluation["train_per_predicate"][predicate.capitalize()])


def trial_gin(base_gin: str, trial_id: str, values: dict, epochs: int) -> str:
    """The ``config.gin`` of a trial's run: the base gin, then the trial's bindings (``values``
    by flat key, `config_keys`)."""
    lines = [f"{binding_name(key)} = {value!r}" for key, value in sorted(values.items())]
    return (
        f"{base_gin.rstrip()}\n\n# Trial {trial_id} of an `imagine-tf tune agent` search\n"
        + "\n".join(lines)
        + f"\ntrain_eval.num_epochs = {epochs}\n"
    )


class AgentTuner(keras_tuner.Tuner):
    """Co-training runs of one length; the objective is a train success rate.

    Args:
      oracle: the search's oracle (`make_oracle`).
      base: the base configuration (the default trial).
      base_gin: the gin text ``base`` was read from (the start of each trial's config.gin).
      epochs_per_trial: the epochs every trial trains.
      objective: one of ``OBJECTIVES``.
      eval_repetitions: 0: the last epoch's in-training evaluation; R: `evaluate_learner` with R
        episodes per goal.
      progress: show each run's progress bar.
      **kwargs: `keras_tuner.Tuner`'s (``directory``, ``project_name``).
    """

    def __init__(
        self,
        oracle: keras_tuner.Oracle,
        base: TrainConfig,
        base_gin: str,
        epochs_per_trial: int,
        objective: str = "train_success",
        eval_repetitions: int = 0,
        progress: bool = False,
        **kwargs,
    ):
        self.base, self.base_gin, self.epochs_per_trial = base, base_gin, epochs_per_trial
        self.objective, self.eval_repetitions, self.progress = objective, eval_repetitions, progress
        super().__init__(oracle=oracle, **kwargs)

    def run_directory(self, trial_id: str) -> pathlib.Path:
        return pathlib.Path(self.get_trial_dir(trial_id)) / "run"

    def run_trial(self, trial, *args, **kwargs) -> dict:
        # a search started before the reward model's settings were nested names them flat
        values = {current_key(key): value for key, value in trial.hyperparameters.values.items()}
        config = replaced(self.base, values)
        root = self.run_directory(trial.trial_id)
        gc.collect()
        tf.keras.backend.clear_session()
        run_gin = trial_gin(self.base_gin, trial.trial_id, values, self.epochs_per_trial)
        learner, _ = train(config, root, self.epochs_per_trial, self.progress, run_gin)
        logs = learner.logs
        (root / run_layout.OPERATIVE_GIN).write_text(gin.operative_config_str())
        plot_learning_curve(logs, root / run_layout.LEARNING_CURVE)
        evaluation = None
        if self.eval_repetitions:  # the trial's learner, as `imagine-tf eval` would restore it
            evaluation = evaluate_learner(learner, root, self.eval_repetitions)
        wall = sum(v for r in logs for k, v in r.items() if k.startswith("seconds_"))
        return {
            self.objective: objective_value(self.objective, logs[-1], evaluation),
            "epochs": float(logs[-1]["epoch"]),
            "wall_seconds": wall,
        }


def agent_hyperparameters(
    space: dict, base: TrainConfig, grid: bool = False
) -> keras_tuner.HyperParameters:
    """The declared space, each hyperparameter defaulting to ``base``'s value; a space's
    earlier name of a setting is its flat key now (``"reward_learning_rate"``:
    ``"reward_model.learning_rate"``)."""
    return declared_hyperparameters(current_keys(space), base, AGENT_TUNABLE, SPACE_NAME, grid=grid)


def current_keys(space):
    """A space (any other value as it is: `declared_hyperparameters` refuses it) with its keys
    as they are now (`config_keys.current_key`)."""
    if not isinstance(space, dict):
        return space
    return {current_key(key): values for key, values in space.items()}


def comparable_search(record: dict) -> dict:
    """A search's record (``search.json``) as a rerun's is compared with it: the base config as
    flat keys (`flat_config`), with the defaults of the settings added since; the space's keys
    as they are now."""
    base = {**declared_defaults(TrainConfig), **flat_config(record.get("base_config", {}))}
    return {
        **record,
        "base_config": json.loads(json.dumps(base)),
        "search_space": current_keys(record.get("search_space", {})),
    }


def _check_search_arguments(objective: str, epochs_per_trial: int, eval_repetitions: int):
    """Raises ValueError for an objective not in ``OBJECTIVES`` or a bad budget."""
    if objective not in OBJECTIVES:
        raise ValueError(
            f"The objective must be one of {OBJECTIVES} (training goals: a "
            f"search never selects on test goals), got {objective!r}."
        )
    if epochs_per_trial < 1 or eval_repetitions < 0:
        raise ValueError(
            f"A search needs >= 1 epoch per trial and >= 0 evaluation repetitions, "
            f"got {epochs_per_trial} and {eval_repetitions}."
        )


def _search_record(
    base: TrainConfig,
    space: dict,
    tuner: str,
    objective: str,
    epochs_per_trial: int,
    eval_repetitions: int,
) -> dict:
    """The search's description (what, tuner, space, budget, base config, objective)."""
    episodes_per_epoch = base.cycles_per_epoch * base.episodes_per_cycle
    budget = {
        "epochs_per_trial": epochs_per_trial,
        "episodes_per_trial": epochs_per_trial * episodes_per_epoch,
        "updates_per_epoch": base.cycles_per_epoch * base.updates_per_cycle,
        "eval_repetitions": eval_repetitions,
    }
    return {
        "what": "agent",
        "tuner": tuner,
        "search_space": current_keys(space),
        "budget": budget,
        "base_config": dataclasses.asdict(base),
        "objective": objective,
    }


def tune_agent(
    root_dir: str,
    base: TrainConfig,
    base_gin: str,
    space: dict,
    epochs_per_trial: int,
    tuner: str = "random",
    max_trials: int = 6,
    objective: str = "train_success",
    eval_repetitions: int = 0,
    command: str = "",
    progress: bool = False,
) -> dict:
    """Runs (or resumes) the search; returns its report, also written to the project directory.

    Args:
      root_dir: the project goes to ``<root_dir>/agent``.
      base: the base configuration (the first trial); ``base_gin``: its gin text.
      space: {`TrainConfig` field: values or range} (`search_space`).
      epochs_per_trial: the epochs every trial trains.
      tuner, max_trials: "random" or "grid"; trials in all, the default's included.
      objective: one of ``OBJECTIVES``; ``eval_repetitions``: see `AgentTuner`.
      command: the command line, recorded in the report.
      progress: show each run's progress bar.

    Raises:
      SearchSpaceError: a bad space; `SearchMismatch`: the project holds another search;
      ValueError: a bad tuner, objective or budget.
    """
    _check_search_arguments(objective, epochs_per_trial, eval_repetitions)
    hyperparameters = agent_hyperparameters(space, base, grid=tuner == "grid")
    oracle = make_oracle(tuner, hyperparameters, objective, max_trials, base.seed)
    search = _search_record(base, space, tuner, objective, epochs_per_trial, eval_repetitions)
    how = (
        f"`imagine-tf eval` with {eval_repetitions} episodes per goal"
        if eval_repetitions
        else "the last epoch's in-training evaluation (one episode per goal)"
    )
    return run_search(
        root_dir,
        PROJECT,
        search,
        lambda: AgentTuner(
            oracle,
            base,
            base_gin,
            epochs_per_trial,
            objective,
            eval_repetitions,
            progress,
            directory=root_dir,
            project_name=PROJECT,
        ),
        space_defaults(hyperparameters),
        command,
        max_trials,
        f"the success rate of the noise-free policy on the training goals after "
        f"{epochs_per_trial} epochs, from {how}",
        comparable=comparable_search,
    )
