"""The authors' released agent, converted (`imagine_tf.pretrained.authors`), computes what their
own PyTorch networks compute: goal embeddings, actions and reward probabilities recorded once
from flowersteam/Imagine (MIT licence) by docs/results/scripts/record_authors_fixtures.py into
tests/fixtures/authors/networks.npz (no PyTorch here).

Reads the committed conversion, models/authors_epoch160 (written by `imagine-tf pretrained
convert-authors --from Imagine/pretrained_weights`), or the directory named by
IMAGINE_AUTHORS_MODEL."""

import json
import os
import pathlib

import numpy as np
import pytest
import tensorflow as tf

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests/fixtures/authors/networks.npz"
MODEL = pathlib.Path(os.environ.get("IMAGINE_AUTHORS_MODEL", ROOT / "models/authors_epoch160"))
#: float32 through different kernels (measured max |Δ|: 3.7e-7, 6.0e-7, 5.4e-7, 1.8e-7)
EMBEDDING_TOLERANCE = 1e-6
ACTION_TOLERANCE = 1e-5
PROBABILITY_TOLERANCE = 1e-5

MISSING = (
    f"no converted authors' agent at {MODEL} (config.json + checkpoint/): convert their release "
    "(git clone https://github.com/flowersteam/Imagine; imagine-tf pretrained convert-authors "
    "--from Imagine/pretrained_weights), or set IMAGINE_AUTHORS_MODEL"
)


@pytest.fixture(scope="module")
def recorded() -> dict:
    with np.load(FIXTURE) as arrays:
        return {name: arrays[name] for name in arrays.files}


@pytest.fixture(scope="module")
def learner():
    from imagine_tf.analysis.saved_run import load_agent

    assert (MODEL / "config.json").is_file() and (MODEL / "checkpoint").is_dir(), MISSING
    return load_agent(MODEL)


def reward_inputs(recorded: dict) -> dict:
    goals = recorded["sentences"][recorded["reward_goal_index"]]
    return {"state": recorded["reward_states"], "goal": tf.constant(goals)}


def test_the_fixture_is_of_the_same_release_and_has_no_critic(recorded):
    metadata = json.loads(str(recorded["metadata"]))
    assert metadata["critic"]["recorded"] is False
    assert metadata["critic"]["normalizer_identity"] is True
    assert len(recorded["sentences"]) == 255 and "Grasp any chameleon" in recorded["sentences"]
    card = MODEL / "card.json"
    if card.is_file():  # the converted directory names its source files' sha256
        files = json.loads(card.read_text())["source"]["files"]
        assert {f"pretrained_weights/{name}": sha for name, sha in files.items()} == (
            metadata["files"]
        )


def test_the_fixture_discriminates(recorded):
    """Its values differ between inputs by far more than the tolerances, and the authors'
    reward model agrees with the oracle on the recorded scenes."""
    embeddings, actions = recorded["embeddings"], recorded["actor_actions"]
    assert np.abs(embeddings[1:] - embeddings[:-1]).max(axis=1).min() > 100 * EMBEDDING_TOLERANCE
    assert np.abs(actions[1:] - actions[:-1]).max() > 100 * ACTION_TOLERANCE
    probabilities, oracle = recorded["reward_probabilities"], recorded["reward_oracle"]
    assert 0.2 < oracle.mean() < 0.8
    assert np.mean((probabilities > 0.5) == oracle) > 0.95


def test_the_sentence_embeddings_are_the_authors(learner, recorded):
    encoder = learner.reward_network.encoder
    embeddings = encoder(tf.constant(recorded["sentences"])).numpy()
    np.testing.assert_allclose(embeddings, recorded["embeddings"], rtol=0, atol=EMBEDDING_TOLERANCE)


def test_the_actions_are_the_authors(learner, recorded):
    observation = {"state": recorded["actor_states"], "goal": recorded["actor_goal_embeddings"]}
    actions, _ = learner.ddpg.actor_network(observation)
    np.testing.assert_allclose(
        actions.numpy(), recorded["actor_actions"], rtol=0, atol=ACTION_TOLERANCE
    )


def test_the_reward_probabilities_are_the_authors(learner, recorded):
    network, inputs = learner.reward_network, reward_inputs(recorded)
    np.testing.assert_allclose(
        network.module_probabilities(inputs).numpy(),
        recorded["reward_module_probabilities"],
        rtol=0,
        atol=PROBABILITY_TOLERANCE,
    )
    np.testing.assert_allclose(
        network(inputs).numpy(),
        recorded["reward_probabilities"],
        rtol=0,
        atol=PROBABILITY_TOLERANCE,
    )
