"""Reward networks from the directories of reward-model runs (`imagine-tf reward train |
study`); `imagine_tf.analysis.saved_run` reads agent runs as well."""

from __future__ import annotations

import json
import pathlib

from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.layout import BEST_WEIGHTS, METRICS_JSON, NETWORK_JSON
from imagine_tf.reward.network import RewardNetwork, example_inputs


def built_network(config: dict) -> RewardNetwork:
    """A `RewardNetwork` of ``config`` (its `get_config`), built on example inputs."""
    network = RewardNetwork.from_config(config)
    network(example_inputs(network.num_objects, network.encoder.max_length))
    return network


def load_reward_run(root: pathlib.Path) -> RewardNetwork:
    """The network of a reward-model run: ``best.weights.h5`` and ``network.json`` (runs from
    before it existed: the default vocabulary, with or without the relational words, whichever
    the weights fit)."""
    weights = str(root / BEST_WEIGHTS)
    if (root / NETWORK_JSON).exists():
        network = built_network(json.loads((root / NETWORK_JSON).read_text()))
        network.load_weights(weights)
        return network
    metrics = (
        json.loads((root / METRICS_JSON).read_text()) if (root / METRICS_JSON).exists() else {}
    )
    settings = metrics.get("config", {})
    errors = []
    for relational in (False, True):
        vocabulary = Vocabulary.default(relational=relational)
        network = built_network(
            {
                "architecture": settings.get("architecture", "ma"),
                "words": vocabulary.words[1:],
                "max_length": vocabulary.max_length,
                "num_objects": 3,
                "hidden_units": settings.get("hidden_units", 100),
            }
        )
        try:
            network.load_weights(weights)
            return network
        except ValueError as error:  # shapes do not fit this vocabulary
            errors.append(str(error).splitlines()[0])
    raise ValueError(f"{weights} fits neither default vocabulary ({'; '.join(errors)}).")


def ensemble_members(root: pathlib.Path) -> list[pathlib.Path]:
    """The member run directories listed in an ensemble's ``metrics.json`` ([] if none)."""
    metrics = root / METRICS_JSON
    members = json.loads(metrics.read_text()).get("members", []) if metrics.exists() else []
    return [root / member["run"] for member in members]
