"""EpisodeCollector: batched episodes with the agent's policies on the real environment."""

import numpy as np
import pytest
import tensorflow as tf
from tf_agents.specs import tensor_spec
from tf_agents.trajectories import time_step as ts

from imagine_tf.agents.ddpg_agent import ImagineDdpgAgent
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.networks.actor_network import ActorNetwork
from imagine_tf.networks.critic_network import CriticNetwork
from imagine_tf.networks.goal_conditioned_network import example_observation_spec
from imagine_tf.playground import make_env
from imagine_tf.training.collection import EpisodeCollector

VOCABULARY = Vocabulary.default()


def make_agent():
    tf.keras.utils.set_random_seed(0)
    observation_spec = dict(
        example_observation_spec(3), goal=tf.TensorSpec([100], tf.float32, "goal")
    )
    action_spec = tensor_spec.BoundedTensorSpec([3], tf.float32, -1.0, 1.0)
    words, length = VOCABULARY.words[1:], VOCABULARY.max_length
    # He-uniform output layers saturate the untrained actor (|a| ≈ 1), so that the Gaussian
    # noise visibly pushes the stored actions past the bounds.
    actor = ActorNetwork(observation_spec, action_spec, "ma", words, length,
                         final_layer_init="he_uniform")  # fmt: skip
    critic = CriticNetwork((observation_spec, action_spec), "ma", words, length,
                           final_layer_init="he_uniform")  # fmt: skip
    return ImagineDdpgAgent(ts.time_step_spec(observation_spec), action_spec, actor, critic, seed=0)


def test_collects_batched_episodes_greedy_is_deterministic_exploring_is_not():
    env = make_env(batch_size=6, seed=1)
    agent = make_agent()
    collector = EpisodeCollector(env, agent.collect_policy, agent.policy)
    goals = ["Grasp red cat", "Go left", "Grow any plant"] * 2
    embeddings = np.random.default_rng(0).normal(size=(6, 100)).astype(np.float32)
    explored = collector.collect(goals, embeddings, explore=True)
    assert explored.states.shape == (6, 51, 240) and explored.actions.shape == (6, 50, 3)
    assert explored.final_states.shape == (6, 240)
    assert np.abs(explored.actions).max() > 1.0  # noisy actions are stored unclipped
    greedy = collector.collect(goals, embeddings, explore=False)
    actor = agent._actor_network
    expected, _ = actor({"state": greedy.states[:, 7], "goal": embeddings})
    np.testing.assert_allclose(greedy.actions[:, 7], expected.numpy(), atol=1e-5)
    assert np.abs(greedy.actions).max() <= 1.0
    with pytest.raises(ValueError, match="6 scenes; got 2 goals"):
        collector.collect(goals[:2], embeddings)
