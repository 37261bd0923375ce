"""Supervised training of a reward network, and its F1 evaluation (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

The procedure is co-training's (`reward/training.py`, `RewardTrainer`): reward-epochs of 200
balanced batches of 512 drawn in the graph (per batch, the training goals, each with a positive
state with probability ρ, else a negative one), binary cross-entropy of the network's logits,
Adam (lr 1e-3 for MA and MA-pairs, 1e-4 for FA and FC); after every reward-epoch the mean
per-goal F1 (`reward/f1.py`) on a **validation** set — the final states of 10 % of the
*training* episodes, training goals only — and the best weights kept; training stops after
`patience` epochs without improvement or at `max_epochs`. The test states are touched once, at
the end. (The reference evaluated on its test trajectories; using separate validation states
keeps the test F1 honest.) A goal without any positive state in a set has no F1 (NaN); means
are taken over the goals that have one, and how many were left out is reported.

The run directory holds TensorBoard summaries, a checkpoint per epoch (training resumes from the
latest one), `network.json` (the network's config), `best.weights.h5` and, at the end,
`metrics.json` (and, for an ensemble's member, its test probabilities:
`reward/kept_probabilities.py`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib
import time
from typing import Callable

import numpy as np
import tensorflow as tf

from imagine_tf.atomic_files import replacing, write_text_atomically
from imagine_tf.data.supervised import SupervisedData
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.compiled_epoch import sampling_tables
from imagine_tf.reward.f1 import f1_per_goal
from imagine_tf.reward.network import RewardNetwork
from imagine_tf.reward import kept_probabilities
from imagine_tf.reward.training import EarlyStopping, RewardTrainer
from imagine_tf.reward.layout import (
    BEST_WEIGHTS,
    CHECKPOINTS,
    COMMAND,
    METRICS_JSON,
    NETWORK_JSON,
    TENSORBOARD,
)
from imagine_tf.reward.config import RewardModelConfig

#: RewardNetwork config keys added after runs were made, with the value those runs had.
CONFIG_ADDED_LATER = {"normalize_goal": False, "pair_gate": "per_slot", "pair_relations": False}


def check_same_network(stored: dict, wanted: dict, root_dir: str | os.PathLike) -> None:
    """Raises ValueError naming what differs between a run's ``network.json`` and the network
    a resuming command builds (e.g. another goal set gives another vocabulary)."""
    differences = []
    stored = {**CONFIG_ADDED_LATER, **stored}  # a network.json written before the key existed
    for key in sorted(set(stored) | set(wanted)):
        old, new = stored.get(key), wanted.get(key)
        if old == new or key == "name":  # Keras numbers the names of models built later
            continue
        if key == "words" and isinstance(old, list) and isinstance(new, list):
            added, missing = sorted(set(new) - set(old)), sorted(set(old) - set(new))
            differences.append(
                f"words: {len(old)} in the run, {len(new)} now "
                f"(new: {added[:8]}, gone: {missing[:8]})"
            )
        else:
            differences.append(f"{key}: {old!r} in the run, {new!r} now")
    if differences:
        command = pathlib.Path(root_dir) / COMMAND
        how = f"the command in {command}" if command.exists() else "the command that started it"
        raise ValueError(
            f"{root_dir} holds a run of another reward network than this command builds ("
            + "; ".join(differences)
            + f"). Resume it with {how} (same goal set, architecture and sizes), "
            "or train into a new --root-dir. Nothing was changed."
        )


def score_matrix(
    network: RewardNetwork, states: np.ndarray, goal_tokens: np.ndarray, max_floats: int = 1 << 24
) -> np.ndarray:
    """Probabilities float32 [S, G] of every (state, goal) pair (`RewardNetwork.scan`) of
    Playground states [S, D] (MA uses the scan specialised to them).

    Goal embeddings are computed once; states go in chunks so that the hidden activations,
    S_chunk · G · modules · H floats, stay under ``max_floats`` (64 MB by default).
    """
    embeddings = network.encoder(tf.constant(goal_tokens))  # [G, E]
    scan = _compiled_scan(network)
    per_state = len(goal_tokens) * max(network.num_modules * 2, 1) * network.hidden_units
    chunk = max(1, max_floats // per_state)
    result = np.empty((len(states), len(goal_tokens)), dtype=np.float32)
    for start in range(0, len(states), chunk):
        result[start : start + chunk] = scan(
            tf.constant(states[start : start + chunk]), embeddings
        ).numpy()
    return result


def _compiled_scan(network: RewardNetwork) -> Callable:
    compiled = getattr(network, "_compiled_scan", None)
    if compiled is None:

        def scan(states, embeddings):
            return network.scan(states, embeddings, playground_states=network.architecture == "ma")

        compiled = tf.function(scan, reduce_retracing=True, autograph=False)
        network._compiled_scan = compiled  # noqa: SLF001 - a cache on the instance
    return compiled


def summarize_f1(data: SupervisedData, f1: np.ndarray) -> dict:
    """Mean F1 over train / test goals, per generalization type, one- vs two-object goals."""
    test, relational, kind = data.is_test_goal, data.is_relational, data.generalization_type

    def mean(mask):
        values = f1[mask]
        defined = values[~np.isnan(values)]
        return {
            "f1": None if defined.size == 0 else float(defined.mean()),
            "goals": int(mask.sum()),
            "goals_without_positives": int(np.isnan(values).sum()),
        }

    summary = {
        "one_object": {"train": mean(~relational & ~test), "test": mean(~relational & test)},
        "two_object": {"train": mean(relational & ~test), "test": mean(relational & test)},
        "per_type": {str(t): mean(~relational & (kind == t)) for t in range(1, 6)},
    }
    # Type 2 ("flower", a word never heard in training) is expected to fail: the test mean
    # without it shows whether the rest of the test set generalizes.
    summary["one_object"]["test_without_type_2"] = mean(~relational & test & (kind != 2))
    # The paper's Table 1 (the two-object study) reports Grasp goals only; its 11 one-object
    # test goals are the Grasp test goals without the Type 2 "flower" ones.
    grasp = np.array([g.startswith("Grasp") for g in data.goals]) & ~relational
    summary["grasp_one_object"] = {
        "train": mean(grasp & ~test),
        "test": mean(grasp & test & (kind != 2)),
        "test_type_2": mean(grasp & test & (kind == 2)),
    }
    return summary


class SupervisedTrainer:
    """Trains one reward network on `SupervisedData`, resumably, into `root_dir`.

    Args:
      data: the supervised data (its goals are the label columns).
      config: hyperparameters.
      root_dir: where checkpoints, summaries, weights and metrics go.
      num_objects: N of the data's states.
      vocabulary: the tokenizer; default one that covers the data's goals.
      network: a network to train (e.g. built by keras-tuner); default one made from `config`.
    """

    def __init__(
        self,
        data: SupervisedData,
        config: RewardModelConfig,
        root_dir: str | os.PathLike,
        num_objects: int = 3,
        vocabulary: Vocabulary | None = None,
        network: RewardNetwork | None = None,
    ):
        self.data, self.config = data, config
        self.root_dir = pathlib.Path(root_dir)
        self.vocabulary = vocabulary or Vocabulary.from_goals(list(data.goals))
        self.goal_tokens = self.vocabulary.encode(list(data.goals))
        tf.keras.utils.set_random_seed(config.seed)
        self.network = network or RewardNetwork(
            config.architecture,
            self.vocabulary.words[1:],
            self.vocabulary.max_length,
            num_objects,
            hidden_units=config.hidden_units,
            normalize_goal=config.normalize_goal,
            pair_gate=config.pair_gate,
            pair_relations=config.pair_relations,
        )
        self._split_validation()
        self.network(self._example_batch())  # built before its optimizer
        self.trainer = RewardTrainer(self.network, config, seed=config.seed)
        self.stopping = EarlyStopping()
        # Training time summed over every session of a resumed run; and when the best came.
        self.training_seconds = tf.Variable(0.0, dtype=tf.float64, name="training_seconds")
        self.seconds_to_best = tf.Variable(0.0, dtype=tf.float64, name="seconds_to_best")
        self.checkpoint = tf.train.Checkpoint(
            network=self.network,
            optimizer=self.trainer.optimizer,
            sampler=self.trainer.compiled.generator,  # a resumed run draws the batches it would have
            epoch=self.stopping.epoch,
            best_f1=self.stopping.best_f1,
            since_best=self.stopping.since_best,
            training_seconds=self.training_seconds,
            best_epoch=self.stopping.best_epoch,
            seconds_to_best=self.seconds_to_best,
        )
        self.manager = tf.train.CheckpointManager(
            self.checkpoint, str(self.root_dir / CHECKPOINTS), max_to_keep=2
        )

    def _split_validation(self) -> None:
        """Moves the final states of a fraction of training episodes to a validation set."""
        rng = np.random.default_rng(self.config.seed)
        count = len(self.data.train_states)
        validation = rng.random(count) < self.config.validation_fraction
        self.validation_states = self.data.train_states[validation]
        self.validation_labels = self.data.train_labels[validation]
        self.train_data = dataclasses.replace(
            self.data,
            train_states=self.data.train_states[~validation],
            train_labels=self.data.train_labels[~validation],
        )

    def _training_tables(self):
        """The training states as `SamplingTables`: every training goal, positive where the
        oracle says so, negative elsewhere; test goals never drawn."""
        labels, train_goals = self.train_data.train_labels, ~self.data.is_test_goal
        return sampling_tables(
            self.train_data.train_states, labels & train_goals, ~labels & train_goals
        )

    def _validation_labels(self) -> np.ndarray:
        """The validation labels of the training goals (test goals' columns all False: a goal
        without a positive state has no F1)."""
        return self.validation_labels & ~self.data.is_test_goal

    def validation_f1(self) -> float:
        """Mean F1 over training goals on the validation states."""
        return self.trainer.held_out_f1(
            self.goal_tokens, self.validation_states, self._validation_labels()
        )

    def train(
        self,
        progress: bool = True,
        evaluate_test: bool = True,
        keep_test_probabilities: bool = False,
    ) -> dict:
        """Runs (or resumes) training; evaluates on the test states and writes metrics.json
        (``evaluate_test=False``, hyperparameter search: no test, the validation result only).
        ``keep_test_probabilities`` (an ensemble's member) saves them for the ensemble."""
        from tqdm import tqdm

        self._restore_or_start()
        best_path = self.root_dir / BEST_WEIGHTS
        writer = tf.summary.create_file_writer(str(self.root_dir / TENSORBOARD))
        config = self.config
        bar = tqdm(
            total=config.max_epochs,
            initial=int(self.stopping.epoch.numpy()),
            desc=f"reward {config.architecture}",
            unit="epoch",
            disable=not progress,
        )
        budget = config.max_training_seconds or math.inf
        started = [time.perf_counter()]

        def after_epoch(validation: float, improved: bool) -> bool:
            """The reward-epoch's best weights, summary, checkpoint and progress."""
            self.training_seconds.assign_add(time.perf_counter() - started[0])
            if improved:
                self.seconds_to_best.assign(self.training_seconds)
                self._save_weights(best_path)
            with writer.as_default(step=int(self.stopping.epoch.numpy())):
                tf.summary.scalar("validation_f1", validation)
            self.manager.save()
            bar.update(1)
            bar.set_postfix(val_f1=f"{validation:.3f}")
            started[0] = time.perf_counter()
            return float(self.training_seconds.numpy()) <= budget

        self.trainer.train(
            self._training_tables(),
            self.goal_tokens,
            self.validation_states,
            self._validation_labels(),
            self.stopping,
            after_epoch,
        )
        bar.close()
        if best_path.exists():
            self.network.load_weights(str(best_path))
        if not evaluate_test:
            return {
                "epochs": int(self.stopping.epoch.numpy()),
                "best_validation_f1": float(self.stopping.best_f1.numpy()),
            }
        return self._write_metrics(keep_test_probabilities)

    def _restore_or_start(self) -> None:
        """Restores the latest checkpoint (refusing another network); writes network.json."""
        self.root_dir.mkdir(parents=True, exist_ok=True)
        network_file = self.root_dir / NETWORK_JSON
        network_config = json.loads(json.dumps(self.network.get_config()))
        if self.manager.latest_checkpoint:
            if network_file.exists():  # refuse a different network before touching anything
                check_same_network(
                    json.loads(network_file.read_text()), network_config, self.root_dir
                )
            self.checkpoint.restore(self.manager.latest_checkpoint)
        write_text_atomically(network_file, json.dumps(network_config))  # for export

    def _example_batch(self) -> dict:
        return {
            "state": tf.constant(self.data.train_states[:1]),
            "goal": tf.constant(self.goal_tokens[:1]),
        }

    def _save_weights(self, path: pathlib.Path) -> None:
        with replacing(path) as temporary:  # tmp.best.weights.h5: Keras keeps the suffix
            self.network.save_weights(str(temporary))

    def _write_metrics(self, keep_test_probabilities: bool = False) -> dict:
        evaluation_start = time.perf_counter()
        scores = score_matrix(self.network, self.data.test_states, self.goal_tokens)
        kept = {}
        if keep_test_probabilities:  # before metrics.json, which marks the run finished
            kept["test_probabilities"] = kept_probabilities.keep_test_probabilities(
                self.root_dir, scores, self.data.test_states
            )
        metrics = {
            "config": dataclasses.asdict(self.config),
            "learning_rate": self.config.resolved_learning_rate,
            "epochs": int(self.stopping.epoch.numpy()),
            "best_validation_f1": float(self.stopping.best_f1.numpy()),
            "training_seconds": float(self.training_seconds.numpy()),
            "best_epoch": int(self.stopping.best_epoch.numpy()),
            "seconds_to_best": float(self.seconds_to_best.numpy()),
            "test_scoring_seconds": time.perf_counter() - evaluation_start,
            "train_episodes": len(self.data.train_states),
            **kept,
            **held_out_metrics(self.data, scores),
        }
        write_text_atomically(self.root_dir / METRICS_JSON, json.dumps(metrics, indent=1))
        return metrics


def held_out_metrics(data: SupervisedData, scores: np.ndarray) -> dict:
    """The test part of a ``metrics.json``: F1 per goal and its summary (`summarize_f1`) of
    probabilities [S, G] on the test states (positive = probability > 0.5)."""
    f1 = f1_per_goal(scores > 0.5, data.test_labels).numpy()
    return {
        "test_states": len(data.test_states),
        "summary": summarize_f1(data, f1),
        "f1_per_goal": {
            goal: (None if math.isnan(value) else float(value))
            for goal, value in zip(data.goals, f1)
        },
    }
