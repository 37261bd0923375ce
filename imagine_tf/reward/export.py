"""The reward model as a versioned SavedModel for TensorFlow Serving clients.

`export_reward_model` writes ``<model_base_path>/<version>/`` (integer versions, the TF Serving
layout; written under a temporary name and renamed, so a server polling the base path never
sees half a model). Signatures (the contract, also in ``serving/README.md``):

* ``score`` (= ``serving_default``): ``goals`` string [B], ``states`` float32 [B, 2 (3 + 39 N)]
  -> ``probability`` float32 [B], ``reward`` bool [B] (probability > threshold),
  ``module_probabilities`` float32 [B, M] (per object for MA, per pair for MA-pairs, M = 1
  for FA / FC: which object made the goal true; for an ensemble, `RewardEnsemble`, both are
  the members' mean).
* ``scan``: ``states`` [B, D] × candidate ``goals`` [K] -> ``probabilities`` [B, K],
  ``rewards`` bool [B, K] (the relabeller's shape).
* ``metadata``: no input -> ``metadata`` string [] (JSON: architecture, N values accepted,
  threshold, vocabulary, max goal length, train and test goals, package version).

Goals are plain strings, tokenized in the graph (the vocabulary is part of the model). MA and
MA-pairs accept every N they have an OR network for (the state width selects N); FA and FC
their training N. Bad inputs fail with `InvalidArgumentError` naming the problem: batch sizes
that disagree, a state width that fits no accepted N, NaN / inf states, empty goals, unknown
words, goals over the maximum length.

``assets.extra/tf_serving_warmup_requests`` holds warm-up requests (`warmup_requests`), and
``assets.extra/imagine_tf_metadata.json`` the metadata for people.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Sequence

import numpy as np
import tensorflow as tf

from imagine_tf.export.saving import without_keras_layer_traces
from imagine_tf.export.versions import claim_version
from imagine_tf.constants import BODY_DIM, OBJECT_DIM
from imagine_tf.reward.network import RewardNetwork

MAX_SERVED_OBJECTS = 10


def state_width(num_objects: int) -> int:
    """D = 2 (3 + 39 N) (`env.observation.observation_dim`, which export may not import)."""
    return 2 * (BODY_DIM + OBJECT_DIM * num_objects)


class RewardServingModule(tf.Module):
    """The signatures of a reward network (see the module docstring).

    Args:
      network: the trained `RewardNetwork` (or `RewardEnsemble`).
      metadata: JSON-serialisable facts about the model (merged into the ``metadata`` output).
      threshold: the decision threshold of ``reward`` (0.5).
      max_num_objects: MA and MA-pairs accept every N up to this (each N is one more branch
        to trace: the export takes longer).
    """

    def __init__(
        self,
        network: RewardNetwork,
        metadata: dict,
        threshold: float = 0.5,
        max_num_objects: int = MAX_SERVED_OBJECTS,
    ):
        super().__init__(name="reward_model")
        networks = {network.num_objects: network}
        if network.architecture in ("ma", "ma_pairs"):
            for num_objects in range(1, max_num_objects + 1):
                if num_objects not in networks:
                    try:
                        networks[num_objects] = network.with_num_objects(num_objects)
                    except (ValueError, FileNotFoundError):
                        continue  # no OR network (or too few objects for pairs) for this N
        self.num_objects = sorted(networks)
        self.networks = [networks[n] for n in self.num_objects]  # one per accepted N
        self.threshold = float(threshold)
        self.encoder = network.encoder
        self.metadata_json = json.dumps(
            {
                **metadata,
                "architecture": network.architecture,
                "num_objects": self.num_objects,
                "state_widths": [state_width(n) for n in self.num_objects],
                "threshold": self.threshold,
                "vocabulary": network.encoder.words,
                "max_goal_words": network.encoder.max_length,
            },
            sort_keys=True,
        )

    # -- checks ----------------------------------------------------------------------------------
    def _checked_branch(self, states: tf.Tensor) -> tf.Tensor:
        """The index of N in ``self.num_objects`` for states [B, D]; asserts D fits one, finite."""
        widths = tf.constant([state_width(n) for n in self.num_objects], tf.int32)
        width = tf.shape(states)[1]
        matches = tf.where(tf.equal(widths, width))[:, 0]
        finite_rows = tf.reduce_all(tf.math.is_finite(states), axis=1)
        checks = [
            tf.debugging.Assert(
                tf.equal(tf.size(matches), 1),
                [
                    f"states must have 2 (3 + 39 N) values per row for N in {list(map(int, self.num_objects))} "
                    f"(widths {[state_width(n) for n in self.num_objects]}); got",
                    width,
                ],
            ),
            tf.debugging.Assert(
                tf.reduce_all(finite_rows),
                ["states contain NaN or inf values, in rows:", tf.where(~finite_rows)[:, 0]],
            ),
        ]
        with tf.control_dependencies(checks):
            return tf.cast(tf.reduce_min(matches), tf.int32)

    def _goal_embeddings(self, goals: tf.Tensor) -> tf.Tensor:
        """Embeddings [B, E] of goal strings [B] (the encoder asserts the words and lengths)."""
        # The LSTM runs once per distinct goal (a batch often repeats a few goals).
        distinct, index = tf.unique(goals)
        return tf.gather(self.encoder(distinct), index)

    def _per_n(self, branch: tf.Tensor, states: tf.Tensor, compute) -> dict:
        """``compute(network, states [B, D_N])`` for the N of ``branch``."""

        def branch_fn(network):
            width = state_width(network.num_objects)
            return lambda: compute(network, tf.reshape(states, [-1, width]))

        return tf.switch_case(branch, [branch_fn(network) for network in self.networks])

    # -- signatures ------------------------------------------------------------------------------
    @tf.function(
        input_signature=[
            tf.TensorSpec([None], tf.string, name="goals"),
            tf.TensorSpec([None, None], tf.float32, name="states"),
        ]
    )
    def score(self, goals, states):
        """goals [B], states [B, D] -> probability [B], reward [B], module_probabilities [B, M]."""
        same_batch = tf.debugging.Assert(
            tf.equal(tf.shape(goals)[0], tf.shape(states)[0]),
            [
                "goals and states must have the same batch size (one goal per state); got",
                tf.shape(goals)[0],
                "goals and",
                tf.shape(states)[0],
                "states",
            ],
        )
        with tf.control_dependencies([same_batch]):
            goals = tf.identity(goals)
        embeddings = self._goal_embeddings(goals)
        branch = self._checked_branch(states)

        probability, modules = self._per_n(
            branch,
            states,
            lambda network, states: network.probability_and_modules(states, embeddings),
        )
        return {
            "probability": probability,
            "reward": probability > self.threshold,
            "module_probabilities": modules,
        }

    @tf.function(
        input_signature=[
            tf.TensorSpec([None, None], tf.float32, name="states"),
            tf.TensorSpec([None], tf.string, name="goals"),
        ]
    )
    def scan(self, states, goals):
        """states [B, D] × goals [K] -> probabilities [B, K], rewards [B, K]."""
        embeddings = self._goal_embeddings(goals)
        branch = self._checked_branch(states)
        probabilities = self._per_n(
            branch, states, lambda network, states: network.scan(states, embeddings)
        )
        return {"probabilities": probabilities, "rewards": probabilities > self.threshold}

    @tf.function(input_signature=[])
    def metadata(self):
        """The model's facts as a JSON string []."""
        return {"metadata": tf.constant(self.metadata_json)}


def export_reward_model(
    network: RewardNetwork,
    model_base_path: str | os.PathLike,
    metadata: dict | None = None,
    version: int | None = None,
    warmup_goals: Sequence[str] = ("Grasp any animal", "Go left"),
    max_num_objects: int = MAX_SERVED_OBJECTS,
) -> pathlib.Path:
    """Writes ``<model_base_path>/<version>/`` atomically and returns its path.

    Raises a ValueError if the version exists (versions are immutable: export a new one).
    """
    from imagine_tf.export.warmup import write_warmup_requests

    final, temporary = claim_version(model_base_path, version)
    module = RewardServingModule(network, metadata or {}, max_num_objects=max_num_objects)
    signatures = {
        "serving_default": module.score,
        "score": module.score,
        "scan": module.scan,
        "metadata": module.metadata,
    }
    with without_keras_layer_traces():
        tf.saved_model.save(module, str(temporary), signatures=signatures)
    extra = temporary / "assets.extra"
    extra.mkdir()
    (extra / "imagine_tf_metadata.json").write_text(
        json.dumps(json.loads(module.metadata_json), indent=1)
    )
    states = np.zeros((len(warmup_goals), state_width(network.num_objects)), np.float32)
    write_warmup_requests(extra / "tf_serving_warmup_requests", list(warmup_goals), states)
    os.replace(temporary, final)
    return final
