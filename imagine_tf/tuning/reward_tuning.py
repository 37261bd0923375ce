"""Hyperparameter search for the reward model with keras-tuner (`imagine-tf reward tune`).

`RewardHyperModel.build` makes a `RewardNetwork` from the trial's hyperparameters and
`RewardHyperModel.fit` trains it with the supervised recipe for a short budget, returning the
best **validation** F1 (mean over training goals on held-out training episodes): keras-tuner
records that float as the trial's objective. The test states are never used for selection.

Search space: learning rate (log-uniform 1e-4…3e-3), hidden width {50, 100, 200}, batch size
{256, 512}, positive ratio (0.1…0.5), the normalised goal gate on or off (`normalize_goal`; not
for FC, which has no gate), and for MA-pairs the pair gate ("per_slot", "shared" or "residual")
and the relation features (`pair_relations`). Tuners: random search or Hyperband (whose
"epochs" are reward epochs of `batches_per_epoch` batches). The search is resumable: trials
already in `<root_dir>/<project>` are kept.
"""

from __future__ import annotations

import json
import pathlib

import keras_tuner

from imagine_tf.data.supervised import SupervisedData
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.networks.reward_network import PAIR_GATES, RewardNetwork
from imagine_tf.reward.supervised_training import SupervisedTrainer, TrainingConfig

OBJECTIVE = "validation_f1"
TUNERS = ("random", "hyperband")


class RewardHyperModel(keras_tuner.HyperModel):
    """A reward network and its short supervised training, for one architecture.

    Args:
      data: the supervised data.
      architecture: "ma", "fa", "fc" or "ma_pairs".
      batches_per_epoch: batches per reward epoch.
      max_epochs: epoch budget of a trial (Hyperband passes its own `epochs`).
      seed: seed of every trial's training.
    """

    def __init__(self, data: SupervisedData, architecture: str, batches_per_epoch: int = 200,
                 max_epochs: int = 10, seed: int = 0):  # fmt: skip
        super().__init__(name=f"reward_{architecture}")
        self.data, self.architecture = data, architecture
        self.batches_per_epoch, self.max_epochs, self.seed = batches_per_epoch, max_epochs, seed
        self.vocabulary = Vocabulary.from_goals(list(data.goals))

    def build(self, hp: keras_tuner.HyperParameters) -> RewardNetwork:
        hp.Float("learning_rate", 1e-4, 3e-3, sampling="log")
        hp.Choice("batch_size", [256, 512])
        hp.Float("positive_ratio", 0.1, 0.5)
        gated = self.architecture != "fc"  # FC has no attention gate to normalise
        return RewardNetwork(
            self.architecture,
            self.vocabulary.words[1:],
            self.vocabulary.max_length,
            hidden_units=hp.Choice("hidden_units", [50, 100, 200]),
            normalize_goal=hp.Boolean("normalize_goal") if gated else False,
            pair_gate=(hp.Choice("pair_gate", list(PAIR_GATES))
                       if self.architecture == "ma_pairs" else "per_slot"),
            pair_relations=(hp.Boolean("pair_relations")
                            if self.architecture == "ma_pairs" else False),
        )  # fmt: skip

    def fit(
        self, hp, model, *args, epochs: int | None = None, trial_dir: str = ".", **kwargs
    ) -> float:
        config = TrainingConfig(
            architecture=self.architecture,
            learning_rate=hp.get("learning_rate"),
            batch_size=hp.get("batch_size"),
            positive_ratio=hp.get("positive_ratio"),
            hidden_units=hp.get("hidden_units"),
            normalize_goal=hp.values.get("normalize_goal", False),
            pair_gate=hp.values.get("pair_gate", "per_slot"),
            pair_relations=hp.values.get("pair_relations", False),
            batches_per_epoch=self.batches_per_epoch,
            max_epochs=epochs or self.max_epochs,
            patience=epochs or self.max_epochs,
            seed=self.seed,
        )
        trainer = SupervisedTrainer(
            self.data, config, trial_dir, vocabulary=self.vocabulary, network=model
        )
        return trainer.train(progress=False, evaluate_test=False)["best_validation_f1"]


class _TrialDirTuner:
    """Gives each trial its own directory for checkpoints and summaries."""

    def run_trial(self, trial, *args, **kwargs):
        kwargs["trial_dir"] = str(
            pathlib.Path(self.project_dir) / f"trial_{trial.trial_id}" / "run"
        )
        return super().run_trial(trial, *args, **kwargs)


class _RandomSearch(_TrialDirTuner, keras_tuner.RandomSearch):
    pass


class _Hyperband(_TrialDirTuner, keras_tuner.Hyperband):
    pass


def tune_reward_model(
    data: SupervisedData,
    root_dir: str,
    architecture: str = "ma",
    tuner: str = "random",
    max_trials: int = 10,
    max_epochs: int = 10,
    batches_per_epoch: int = 200,
    seed: int = 0,
) -> list[dict]:
    """Runs the search; returns the trials sorted by validation F1 and writes tuning_results.json."""
    if tuner not in TUNERS:
        raise ValueError(f"tuner must be one of {TUNERS}, got {tuner!r}.")
    hypermodel = RewardHyperModel(data, architecture, batches_per_epoch, max_epochs, seed)
    objective = keras_tuner.Objective(OBJECTIVE, direction="max")
    common = dict(objective=objective, directory=root_dir, project_name=f"reward_{architecture}",
                  seed=seed, overwrite=False)  # fmt: skip
    if tuner == "random":
        search = _RandomSearch(hypermodel, max_trials=max_trials, **common)
    else:
        search = _Hyperband(hypermodel, max_epochs=max_epochs, factor=3, **common)
    search.search()
    trials = sorted(
        search.oracle.trials.values(),
        key=lambda t: -1 if t.score is None else t.score,
        reverse=True,
    )
    results = [
        {
            "trial": t.trial_id,
            OBJECTIVE: t.score,
            "status": str(t.status),
            **t.hyperparameters.values,
        }
        for t in trials
    ]
    path = pathlib.Path(root_dir) / f"tuning_results_{architecture}.json"
    path.write_text(json.dumps(results, indent=1))
    return results


def format_results(results: list[dict]) -> str:
    """A table of trials, best first."""
    columns = ["trial", OBJECTIVE, "learning_rate", "hidden_units", "batch_size", "positive_ratio",
               "normalize_goal", "pair_gate", "pair_relations"]  # fmt: skip
    lines = ["  ".join(f"{c:>14}" for c in columns)]
    for row in results:
        cells = []
        for column in columns:
            value = row.get(column)
            cells.append(f"{value:>14.4g}" if isinstance(value, float) else f"{str(value):>14}")
        lines.append("  ".join(cells))
    return "\n".join(lines)
