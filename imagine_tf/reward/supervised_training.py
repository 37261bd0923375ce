"""Supervised training of a reward network, and its F1 evaluation (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

Recipe: batches of 512 balanced examples (`imagine_tf.data.supervised.training_batches`),
binary cross-entropy computed from the network's logits (`RewardNetwork.logits`; through the
rescaled OR output the gradient vanishes once all modules say "no"), Adam (lr 1e-3 for MA and MA-pairs, 1e-4 for
FA and FC), "epochs" of 200 batches. After every epoch the mean per-goal F1 is measured on a
**validation** set — the final states of 10 % of the *training* episodes, training goals only —
and the best weights are kept; training stops after `patience` epochs without improvement or at
`max_epochs`. The test states are touched once, at the end. (The reference evaluated on its test
trajectories; using separate validation states keeps the test F1 honest.)

F1 of a goal over a set of states: 2 TP / (2 TP + FP + FN), with "positive" = probability > 0.5.
A goal without any positive state there has no F1 (NaN); means are taken over the goals that
have one, and how many were left out is reported.

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

from imagine_tf.networks.adam_step import apply_gradients
from imagine_tf.atomic_files import replacing, write_text_atomically
from imagine_tf.data.supervised import SupervisedData, training_batches
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.network import RewardNetwork
from imagine_tf.reward import kept_probabilities
from imagine_tf.reward.layout import (
    BEST_WEIGHTS,
    CHECKPOINTS,
    COMMAND,
    METRICS_JSON,
    NETWORK_JSON,
    TENSORBOARD,
)
from imagine_tf.reward.model_config import RewardModelConfig

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


def make_train_step(network: RewardNetwork, optimizer: tf.keras.optimizers.Optimizer) -> Callable:
    """A compiled Adam step ``step(states [B, D], goal_tokens [G, L], goal_rows [B], labels [B])``.

    The LSTM runs once over the G goal sentences and the batch gathers
    its rows of their embeddings (G ≤ a few hundred goals instead of B = 512 examples); the loss
    is the binary cross-entropy of the logits (`RewardNetwork.head_logits`). Returns the loss.
    """

    @tf.function(reduce_retracing=True, autograph=False)
    def step(states, goal_tokens, goal_rows, labels):
        with tf.GradientTape() as tape:
            embeddings = network.encoder(goal_tokens)  # [G, E]
            logits = network.head_logits(states, tf.gather(embeddings, goal_rows))
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels, logits))
        variables = network.trainable_variables
        apply_gradients(optimizer, tape.gradient(loss, variables), variables)
        return loss

    return step


def f1_per_goal(predicted: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """F1 of each column, float [G] (NaN where a goal has no positive label)."""
    predicted, labels = predicted.astype(bool), labels.astype(bool)
    true_positive = np.sum(predicted & labels, axis=0)
    false_positive = np.sum(predicted & ~labels, axis=0)
    false_negative = np.sum(~predicted & labels, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = 2 * true_positive / (2 * true_positive + false_positive + false_negative)
    return np.where(labels.any(axis=0), f1, np.nan)


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
        # The LSTM runs once per step over the training goals' sentences (G_train rows, e.g.
        # 191) and the batch gathers its embeddings, instead of once per example (512 rows).
        train_columns = np.flatnonzero(~data.is_test_goal)
        self._train_goal_tokens = tf.constant(self.goal_tokens[train_columns])
        self._train_goal_row = np.full(len(data.goals), -1, dtype=np.int64)
        self._train_goal_row[train_columns] = np.arange(len(train_columns))
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
        self.optimizer = tf.keras.optimizers.Adam(config.resolved_learning_rate)
        self._step = make_train_step(self.network, self.optimizer)
        self._split_validation()
        self.epoch = tf.Variable(0, dtype=tf.int64, name="epoch")
        self.best_f1 = tf.Variable(-1.0, dtype=tf.float64, name="best_f1")
        self.since_best = tf.Variable(0, dtype=tf.int64, name="epochs_since_best")
        # Training time summed over every session of a resumed run; and when the best came.
        self.training_seconds = tf.Variable(0.0, dtype=tf.float64, name="training_seconds")
        self.best_epoch = tf.Variable(0, dtype=tf.int64, name="best_epoch")
        self.seconds_to_best = tf.Variable(0.0, dtype=tf.float64, name="seconds_to_best")
        self.checkpoint = tf.train.Checkpoint(
            network=self.network,
            optimizer=self.optimizer,
            epoch=self.epoch,
            best_f1=self.best_f1,
            since_best=self.since_best,
            training_seconds=self.training_seconds,
            best_epoch=self.best_epoch,
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

    def _train_step(self, states, goal_rows, labels):
        """One Adam step on states [B, D], rows of `_train_goal_tokens` [B], labels [B]."""
        return self._step(states, self._train_goal_tokens, goal_rows, labels)

    def validation_f1(self) -> float:
        """Mean F1 over training goals on the validation states."""
        train_goals = ~self.data.is_test_goal
        scores = score_matrix(self.network, self.validation_states, self.goal_tokens[train_goals])
        f1 = f1_per_goal(scores > 0.5, self.validation_labels[:, train_goals])
        return float(np.nanmean(f1)) if np.isfinite(f1).any() else 0.0

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
        batches = training_batches(
            self.train_data,
            config.batch_size,
            config.positive_ratio,
            seed=config.seed + int(self.epoch.numpy()),  # a resumed run draws new batches
        )
        bar = tqdm(
            total=config.max_epochs,
            initial=int(self.epoch.numpy()),
            desc=f"reward {config.architecture}",
            unit="epoch",
            disable=not progress,
        )
        budget = config.max_training_seconds or math.inf
        while self.epoch < config.max_epochs and self.since_best < config.patience:
            losses, validation = self._train_epoch(batches, best_path, writer)
            bar.update(1)
            bar.set_postfix(loss=f"{np.mean(losses):.3f}", val_f1=f"{validation:.3f}")
            if self.training_seconds > budget:
                break
        bar.close()
        if best_path.exists():
            self.network.load_weights(str(best_path))
        if not evaluate_test:
            return {
                "epochs": int(self.epoch.numpy()),
                "best_validation_f1": float(self.best_f1.numpy()),
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
            self.network(self._example_batch())
            self.checkpoint.restore(self.manager.latest_checkpoint)
        write_text_atomically(network_file, json.dumps(network_config))  # for export

    def _train_epoch(self, batches, best_path: pathlib.Path, writer) -> tuple[list, float]:
        """One epoch: its steps, validation, best weights, summaries and checkpoint."""
        epoch_start, losses = time.perf_counter(), []
        for _ in range(self.config.batches_per_epoch):
            states, goal_ids, labels = next(batches)
            losses.append(float(self._train_step(states, self._train_goal_row[goal_ids], labels)))
        validation = self.validation_f1()
        self.epoch.assign_add(1)
        self.training_seconds.assign_add(time.perf_counter() - epoch_start)
        if validation > self.best_f1:
            self.best_f1.assign(validation)
            self.since_best.assign(0)
            self.best_epoch.assign(self.epoch)
            self.seconds_to_best.assign(self.training_seconds)
            self._save_weights(best_path)
        else:
            self.since_best.assign_add(1)
        with writer.as_default(step=int(self.epoch.numpy())):
            tf.summary.scalar("loss", float(np.mean(losses)))
            tf.summary.scalar("validation_f1", validation)
        self.manager.save()
        return losses, validation

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
            "epochs": int(self.epoch.numpy()),
            "best_validation_f1": float(self.best_f1.numpy()),
            "training_seconds": float(self.training_seconds.numpy()),
            "best_epoch": int(self.best_epoch.numpy()),
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
    f1 = f1_per_goal(scores > 0.5, data.test_labels)
    return {
        "test_states": len(data.test_states),
        "summary": summarize_f1(data, f1),
        "f1_per_goal": {
            goal: (None if math.isnan(value) else float(value))
            for goal, value in zip(data.goals, f1)
        },
    }
