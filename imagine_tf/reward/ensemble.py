"""Ensembles of reward-model runs: the mean of K members' probabilities (not in the paper).

Why: in the two-object study (MA-pairs, the paper's Table 1) the transfer to the held-out
one-object goals depends on the seed even after convergence, and seeds fail on different
goals (in the study's runs seed 2 on the "fly" goals, seed 3 on the "animal" goals).
Averaging the probabilities of K independently seeded members votes such failures down, at
K times the training cost.

* A member is an ordinary run of `imagine-tf reward study` (own initialisation, validation
  split, early stopping), directory ``<arch>_s<m>``.
* Ensemble seed s with K members uses the member seeds F + s·K … F + s·K + K − 1, so the
  ensembles of one study are disjoint (`member_seeds`; F is
  `RewardStudyConfig.first_member_seed`, 0 by default).
* Its directory ``<arch>_x<K>_s<s>`` holds ``metrics.json`` in a run's schema, with
  ``members`` (their directories relative to it) and ``config.ensemble_size`` added; it is
  exported like a run (`load_reward_network` builds a `RewardEnsemble`). Its training seconds are the members' sum.
  The members' validation splits differ, so it has no validation F1 of its own.
* Probability = mean over members of each member's probability (not the mean logit, and not a
  majority vote; on the study's seeds 0–3 the three gave the same F1 within 0.02).
* Members trained by a study of ensembles keep their test probabilities
  (`reward/kept_probabilities.py`); when every member has them, for the same test
  states, the ensemble averages them instead of running its K networks over the test states
  again (``scored_from`` in its metrics).
"""

from __future__ import annotations

import json
import os
import pathlib
import time
from typing import Sequence

import numpy as np

from imagine_tf.data.supervised import SupervisedData
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.atomic_files import write_text_atomically
from imagine_tf.reward.layout import COMMAND, METRICS_JSON, NETWORK_JSON


def member_seeds(seed: int, size: int, first: int = 0) -> list[int]:
    """The seeds of ensemble ``seed``'s ``size`` (K) members: first + seed·K, …, + K − 1."""
    if size < 1 or seed < 0 or first < 0:
        raise ValueError(
            "an ensemble needs size >= 1, seed >= 0 and first >= 0; got size "
            f"{size}, seed {seed}, first {first}."
        )
    return list(range(first + seed * size, first + (seed + 1) * size))


def ensemble_directory(architecture: str, seed: int, size: int) -> str:
    """``<arch>_x<K>_s<seed>``: the name of an ensemble's directory in a study."""
    return f"{architecture}_x{size}_s{seed}"


def _member_metrics(directory: pathlib.Path) -> dict:
    path = directory / METRICS_JSON
    if not path.exists():
        raise FileNotFoundError(
            f"{directory} is not a finished reward run (no metrics.json): train it first with "
            "`imagine-tf reward study` (or `reward train`)."
        )
    return json.loads(path.read_text())


def _kept_mean(data: SupervisedData, members: list, member_metrics: list) -> np.ndarray | None:
    """The mean of the members' kept test probabilities [S, G]; None unless every member kept
    them for ``data``'s test states and goals."""
    from imagine_tf.reward.kept_probabilities import kept_test_probabilities, states_fingerprint

    fingerprint, arrays = states_fingerprint(data.test_states), []
    for directory, metrics in zip(members, member_metrics):
        array = kept_test_probabilities(directory, metrics, fingerprint, data.test_labels.shape)
        if array is None:
            return None
        arrays.append(array)
    return np.mean(arrays, axis=0, dtype=np.float32)


def _checked_vocabulary(data: SupervisedData, members: list[pathlib.Path]) -> Vocabulary:
    """The data's vocabulary, once the members are checked to share one network (up to the
    seed) trained on the data's goals; a ValueError naming the member otherwise."""
    from imagine_tf.reward.supervised_training import check_same_network

    first_network = json.loads((members[0] / NETWORK_JSON).read_text())
    for directory in members[1:]:
        check_same_network(
            first_network, json.loads((directory / NETWORK_JSON).read_text()), directory
        )
    vocabulary = Vocabulary.from_goals(list(data.goals))
    wanted = (list(vocabulary.words[1:]), vocabulary.max_length)
    if (first_network.get("words"), first_network.get("max_length")) != wanted:
        raise ValueError(
            f"{members[0]} was trained on another goal set than the data's ({len(data.goals)} "
            "goals): evaluate an ensemble on the goal set of its members' study."
        )
    return vocabulary


def _member_rows(
    members: list[pathlib.Path], member_metrics: list[dict], root: pathlib.Path
) -> list[dict]:
    """Each member's run (relative to the ensemble's directory), seed and training result."""
    return [
        {
            "run": os.path.relpath(d, root),
            "seed": m["config"]["seed"],
            "best_validation_f1": m["best_validation_f1"],
            "best_epoch": m.get("best_epoch"),
            "training_seconds": m["training_seconds"],
        }
        for d, m in zip(members, member_metrics)
    ]


def evaluate_ensemble(
    data: SupervisedData,
    member_dirs: Sequence[str | os.PathLike],
    root_dir: str | os.PathLike,
    seed: int,
    command: str | None = None,
) -> dict:
    """Scores the test states with the members' mean probability; writes ``metrics.json``.

    Members must be finished runs of one network configuration on ``data``'s goals (the same
    ``network.json`` up to the seed); anything else is a ValueError naming the member.
    """
    from imagine_tf.reward.ensemble_network import RewardEnsemble
    from imagine_tf.reward.supervised_training import held_out_metrics, score_matrix
    from imagine_tf.reward.loading import load_reward_run  # TensorFlow

    members, root = [pathlib.Path(d) for d in member_dirs], pathlib.Path(root_dir)
    if not members:
        raise ValueError("an ensemble needs at least one member run directory.")
    member_metrics = [_member_metrics(d) for d in members]
    vocabulary = _checked_vocabulary(data, members)
    start = time.perf_counter()
    scores = _kept_mean(data, members, member_metrics)
    scored_from = "the members' saved test probabilities"
    if scores is None:
        ensemble = RewardEnsemble([load_reward_run(d) for d in members])
        scores = score_matrix(ensemble, data.test_states, vocabulary.encode(list(data.goals)))
        scored_from = "the members' networks"
    config = dict(member_metrics[0]["config"])
    config.update(seed=seed, ensemble_size=len(members))
    seconds = [m["training_seconds"] for m in member_metrics]
    metrics = {
        "config": config,
        "members": _member_rows(members, member_metrics, root),
        "epochs": None,
        "best_validation_f1": None,
        "training_seconds": float(sum(seconds)),
        "test_scoring_seconds": time.perf_counter() - start,
        "scored_from": scored_from,
        **held_out_metrics(data, scores),
    }
    root.mkdir(parents=True, exist_ok=True)
    if command:
        write_text_atomically(root / COMMAND, command + "\n")
    write_text_atomically(root / METRICS_JSON, json.dumps(metrics, indent=1))
    return metrics
