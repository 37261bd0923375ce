"""Export of the reward model: signatures, any N, bad inputs, versions, loading from run dirs."""

import json
import re
import warnings

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.export.versions import next_version
from imagine_tf.reward.export import export_reward_model
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.network import RewardNetwork, example_inputs
from imagine_tf.analysis.saved_run import load_reward_network

VOCABULARY = Vocabulary.default()


# A run of a few updates with the oracle's reward (also tests/pretrained/build_test.py's).
TINY_ORACLE_RUN = dict(
    episodes_per_cycle=4,
    cycles_per_epoch=2,
    updates_per_cycle=2,
    batch_size=16,
    num_candidates=5,
    reward="oracle",
    replay_capacity=50,
    memory_capacity=50,
)


def network(seed=0, architecture="ma"):
    tf.keras.utils.set_random_seed(seed)
    net = RewardNetwork(architecture, VOCABULARY.words[1:], VOCABULARY.max_length, 3)
    net(example_inputs(3, VOCABULARY.max_length))
    return net


def test_export_writes_versions_whose_signatures_match_the_network(tmp_path):
    net = network()
    path = export_reward_model(net, tmp_path / "reward", {"note": "test"}, max_num_objects=4)
    assert path.name == "1" and next_version(tmp_path / "reward") == 2
    assert (path / "assets.extra" / "tf_serving_warmup_requests").stat().st_size > 0
    with pytest.raises(ValueError, match="immutable"):
        export_reward_model(net, tmp_path / "reward", version=1)
    model = tf.saved_model.load(str(path))
    assert {"serving_default", "score", "scan", "metadata"} <= set(model.signatures)
    goals = ["Grasp red cat", "Go left"]
    rng = np.random.default_rng(0)
    for num_objects in (3, 4, 2):  # any N for MA (the state width selects it)
        states = rng.uniform(-1, 1, (2, 2 * (3 + 39 * num_objects))).astype(np.float32)
        scored = model.signatures["score"](goals=tf.constant(goals), states=tf.constant(states))
        other = net.with_num_objects(num_objects) if num_objects != 3 else net
        expected = other.head(tf.constant(states), net.encoder(tf.constant(goals)))
        np.testing.assert_allclose(scored["probability"], expected, atol=1e-6)
        assert scored["module_probabilities"].shape == (2, num_objects)
        np.testing.assert_array_equal(scored["reward"], scored["probability"].numpy() > 0.5)
    scanned = model.signatures["scan"](
        states=tf.constant(states), goals=tf.constant(goals + ["Go right"])
    )
    assert scanned["probabilities"].shape == (2, 3)
    metadata = json.loads(model.signatures["metadata"]()["metadata"].numpy())
    assert metadata["num_objects"] == [1, 2, 3, 4] and metadata["threshold"] == 0.5
    assert metadata["note"] == "test" and "grasp" in metadata["vocabulary"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    return export_reward_model(network(), tmp_path_factory.mktemp("models"), max_num_objects=3)


@pytest.mark.parametrize(
    "goals, width, message",
    [
        (["Grasp purple cat"], 240, "outside the vocabulary"),
        ([""], 240, "at least one word"),
        (["Go left", "Go right"], 240, "same batch size"),
        (["Go left"], 241, "2 (3 + 39 N)"),
    ],
)
def test_bad_inputs_fail_with_a_message(exported, goals, width, message):
    model = tf.saved_model.load(str(exported))
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(message)):
        model.signatures["score"](goals=tf.constant(goals), states=tf.zeros([1, width]))


def test_fa_serves_its_training_n_only(tmp_path):
    path = export_reward_model(network(architecture="fa"), tmp_path, max_num_objects=5)
    metadata = json.loads(
        tf.saved_model.load(str(path)).signatures["metadata"]()["metadata"].numpy()
    )
    assert metadata["architecture"] == "fa" and metadata["num_objects"] == [3]


def test_reward_network_loads_from_reward_and_agent_runs(tmp_path):
    net = network(seed=5)
    reward_run = tmp_path / "reward_run"
    reward_run.mkdir()
    net.save_weights(str(reward_run / "best.weights.h5"))  # an older run: no network.json
    loaded, metadata = load_reward_network(reward_run)
    states = tf.random.uniform([4, 240])
    goals = tf.constant(["Go left"] * 4)
    np.testing.assert_allclose(
        loaded({"state": states, "goal": goals}), net({"state": states, "goal": goals})
    )
    assert metadata["source"]["kind"] == "reward_model_run" and len(metadata["test_goals"]) == 64
    agent_run = tmp_path / "agent_run"
    (agent_run / "checkpoint").mkdir(parents=True)
    (agent_run / "config.json").write_text(
        json.dumps({"reward_architecture": "ma", "num_objects": 3})
    )
    tf.train.Checkpoint(reward_network=net).write(str(agent_run / "checkpoint" / "tf"))
    (agent_run / "checkpoint" / "state.npz").write_bytes(b"")
    loaded, metadata = load_reward_network(agent_run)
    np.testing.assert_allclose(
        loaded({"state": states, "goal": goals}), net({"state": states, "goal": goals})
    )
    with pytest.raises(FileNotFoundError, match="no trained reward model"):
        load_reward_network(tmp_path / "nothing")


def _tiny_trained_agent(root, **overrides):
    """One epoch of a tiny oracle-reward run in ``root``, restored as `load_agent` does."""
    import tensorflow_probability  # noqa: F401 - registers the policy's TypeSpecs for loading

    from imagine_tf.agent.config import TrainConfig
    from imagine_tf.analysis.saved_run import load_agent
    from imagine_tf.training.train_eval import train

    train(TrainConfig(**{**TINY_ORACLE_RUN, **overrides}), root, 1, progress=False)
    return load_agent(root)


def test_policy_export_acts_like_the_trained_policy(tmp_path):
    from imagine_tf.agent.export import export_policy

    trainer = _tiny_trained_agent(tmp_path / "run")
    path = export_policy(trainer.ddpg.actor_network, tmp_path / "policy")
    loaded = tf.saved_model.load(str(path))
    assert {"action", "act", "get_initial_state", "get_train_step"} <= set(loaded.signatures)
    goals = ["Grasp red cat", "Go left"]
    states = tf.random.uniform([2, 240], -1, 1)
    served = loaded.signatures["act"](goals=tf.constant(goals), states=states)["action"].numpy()
    embeddings = trainer.reward_network.encoder(tf.constant(goals))
    expected, _ = trainer.ddpg.actor_network({"state": states, "goal": embeddings})
    np.testing.assert_allclose(served, expected.numpy(), atol=1e-5)
    assert served.shape == (2, 3) and np.all(np.abs(served) <= 1)
    # Served over gRPC and REST, an exported policy acts as here: tests/client/tf_free_client_test.py


def test_a_bfloat16_run_reloads_in_bfloat16_and_exports_a_policy_that_acts_like_it(tmp_path):
    from imagine_tf.agent.export import export_policy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no native bfloat16 on the CI machine: emulated, slower
        trainer = _tiny_trained_agent(tmp_path / "run", compute_dtype="bfloat16")
    actor = trainer.ddpg.actor_network
    assert actor.trunk.layers_before_sum[0].dtype_policy.name == "mixed_bfloat16"
    path = export_policy(actor, tmp_path / "policy")
    loaded = tf.saved_model.load(str(path))
    goals, states = ["Grasp red cat", "Go left"], tf.random.uniform([2, 240], -1, 1)
    served = loaded.signatures["act"](goals=tf.constant(goals), states=states)["action"].numpy()
    embeddings = trainer.reward_network.encoder(tf.constant(goals))
    expected, _ = actor({"state": states, "goal": embeddings})
    assert served.dtype == np.float32
    # bfloat16 products: the graph's fused kernels and the eager ops round differently (~1e-4)
    np.testing.assert_allclose(served, expected.numpy(), atol=2e-3)


def test_an_ensemble_directory_loads_and_exports_as_the_members_mean(tmp_path):
    members = [network(seed=s) for s in (6, 7)]
    for index, net in enumerate(members):
        run = tmp_path / "study" / f"ma_s{index}"
        run.mkdir(parents=True)
        (run / "network.json").write_text(json.dumps(net.get_config()))
        net.save_weights(str(run / "best.weights.h5"))
    ensemble_dir = tmp_path / "study" / "ma_x2_s0"
    ensemble_dir.mkdir()
    (ensemble_dir / "metrics.json").write_text(
        json.dumps({"members": [{"run": "../ma_s0"}, {"run": "../ma_s1"}]})
    )
    loaded, metadata = load_reward_network(ensemble_dir)
    assert metadata["source"]["kind"] == "reward_ensemble"
    assert [m.rsplit("/", 1)[1] for m in metadata["source"]["members"]] == ["ma_s0", "ma_s1"]
    states = tf.random.stateless_uniform([3, 240], seed=(5, 6), minval=-1, maxval=1)
    goals = tf.constant(["Grasp red cat", "Go left", "Grow any plant"])
    expected = np.mean([m({"state": states, "goal": goals}).numpy() for m in members], axis=0)
    np.testing.assert_allclose(loaded({"state": states, "goal": goals}), expected, atol=1e-6)
    path = export_reward_model(loaded, tmp_path / "served", max_num_objects=3)
    scored = tf.saved_model.load(str(path)).signatures["score"](goals=goals, states=states)
    np.testing.assert_allclose(scored["probability"], expected, atol=1e-6)
    assert scored["module_probabilities"].shape == (3, 3)
