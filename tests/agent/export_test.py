"""The exported policy drives `PlaygroundEnv` with TF-Agents' stock SavedModel policy and driver."""

import numpy as np
import pytest
import tensorflow as tf
from tf_agents.drivers import py_driver
from tf_agents.policies import py_tf_eager_policy
from tf_agents.specs import tensor_spec
from tf_agents.trajectories import time_step as ts

from imagine_tf.env.config import PlaygroundConfig
from imagine_tf.env.playground_env import PlaygroundEnv
from imagine_tf.agent.export import environment_policy, export_policy, grammar_goals
from imagine_tf.language.goal_source import GoalCatalog
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.agent.actor_network import ActorNetwork
from imagine_tf.networks.goal_conditioned_network import example_observation_spec

VOCABULARY = Vocabulary.default()
ACTION_SPEC = tensor_spec.BoundedTensorSpec([3], tf.float32, -1.0, 1.0, "action")


def make_actor(num_objects=3):
    """A small MA actor as training builds it: it reads goal embeddings [100]."""
    tf.keras.utils.set_random_seed(0)
    spec = dict(
        example_observation_spec(num_objects, VOCABULARY.max_length),
        goal=tf.TensorSpec([100], tf.float32, "goal"),
    )
    return ActorNetwork(
        spec,
        ACTION_SPEC,
        "ma",
        VOCABULARY.words[1:],
        VOCABULARY.max_length,
        final_layer_init="he_uniform",
    )


def test_a_new_user_drives_the_environment_with_the_saved_policy(tmp_path):
    actor = make_actor()
    path = export_policy(actor, tmp_path / "policy", train_step=tf.Variable(7, dtype=tf.int64))
    assert path == tmp_path / "policy" / "1"
    catalog = GoalCatalog("train", vocabulary=VOCABULARY)
    env = PlaygroundEnv(catalog, PlaygroundConfig(num_objects=3), batch_size=3, seed=0)
    # The environment is batched: its time steps already have their batch dimension.
    policy = py_tf_eager_policy.SavedModelPyTFEagerPolicy(
        str(path), env.time_step_spec(), env.action_spec(), batch_time_steps=False
    )
    trajectories = []
    driver = py_driver.PyDriver(env, policy, observers=[trajectories.append], max_steps=150)
    final_time_step, _ = driver.run(env.reset())
    assert len(trajectories) == 50 and final_time_step.is_last().all()  # one episode, 3 scenes
    assert trajectories[0].is_first().all()
    observations = {
        key: np.stack([t.observation[key] for t in trajectories]) for key in ("state", "goal")
    }  # [T, B, ...]
    actions = np.stack([np.asarray(t.action) for t in trajectories])
    assert actions.shape == (50, 3, 3) and actions.dtype == np.float32
    assert np.all(np.abs(actions) <= 1.0) and np.abs(actions).max() > 0.1
    # The in-process policy on the same observations (all 150 at once) ...
    flat = {key: tf.constant(value.reshape(150, -1)) for key, value in observations.items()}
    local = environment_policy(actor, VOCABULARY).action(ts.restart(flat, batch_size=150))
    np.testing.assert_allclose(actions.reshape(150, 3), local.action, atol=1e-5)
    # ... which is the actor on its encoder's embeddings of the goals.
    embedded = {"state": flat["state"], "goal": actor.goal_embedding(flat["goal"])}
    np.testing.assert_allclose(local.action, actor(embedded)[0], atol=1e-5)
    assert policy.get_train_step() == 7
    metadata = {key: int(value) for key, value in policy.get_metadata().items()}
    assert metadata == {
        "num_objects": 3,
        "max_goal_words": 4,
        "vocabulary_size": 51,
        "cached_goals": 255,
    }
    # The `action` signature takes the environment's observation (its SignatureDef input keys
    # are the spec names; Python calls take them sanitized: "arg_0_observation_goal") ...
    signature = policy.signatures["action"]
    keys = {spec.name: key for key, spec in signature.structured_input_signature[1].items()}
    specs = {spec.name: spec for spec in signature.structured_input_signature[1].values()}
    assert specs["0/observation/goal"] == tf.TensorSpec([None, 4], tf.int32, "0/observation/goal")
    assert specs["0/observation/state"].shape.as_list() == [None, 240]
    # ... also for a goal outside the cache (the encoder inside the model), and ``act`` takes
    # goal sentences.
    sentences = env.goals[:2] + ["Go red cat"]
    assert "Go red cat" not in grammar_goals(VOCABULARY)
    tokens = tf.constant(VOCABULARY.encode(sentences))
    states = flat["state"][-3:]
    feed = {
        "0/step_type": tf.fill([3], 1),
        "0/reward": tf.zeros([3]),
        "0/discount": tf.ones([3]),
        "0/observation/goal": tokens,
        "0/observation/state": states,
    }
    served = signature(**{keys[name]: value for name, value in feed.items()})["action"]
    expected = actor({"state": states, "goal": actor.goal_embedding(tokens)})[0]
    np.testing.assert_allclose(served, expected, atol=1e-5)
    acted = policy.signatures["act"](goals=tf.constant(sentences), states=states)["action"]
    np.testing.assert_allclose(acted, expected, atol=1e-5)


def test_a_vocabulary_other_than_the_actors_is_refused_before_writing(tmp_path):
    with pytest.raises(ValueError, match="not the actor's encoder's"):
        export_policy(make_actor(), tmp_path / "policy", vocabulary=Vocabulary.default(True))
    assert not (tmp_path / "policy").exists()
