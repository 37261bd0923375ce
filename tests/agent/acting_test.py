"""EpisodeActor: batched episodes through TF-Agents' PyDriver, on the environment's tokens."""

import dataclasses

import numpy as np

from imagine_tf.agent.acting import EpisodeActor
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig
from imagine_tf.agent.episode_batch import EpisodeBatch, GoalView, PolicySnapshot

# He-uniform output layers saturate the untrained actor (|a| ≈ 1), so that the Gaussian noise
# visibly pushes the stored actions past the bounds.
CONFIG = TrainConfig(episodes_per_cycle=6, final_layer_init="he_uniform")


def make_actor(config=CONFIG):
    builder = RunBuilder(config)
    learner_actor = builder.make_ddpg().actor_network  # encoder built by the target's copy
    learner_actor.set_encoder_weights(builder.make_reward_network().encoder)
    return builder, EpisodeActor(builder, learner_actor)


def test_before_any_discovery_the_actor_pursues_the_placeholder_with_noise_embeddings():
    builder, actor = make_actor()
    batch = actor.collect()
    assert batch.observations.shape == (6, 51, 120) and batch.actions.shape == (6, 50, 3)
    assert batch.final_states.shape == (6, 240) and batch.states.shape == (6, 51, 240)
    np.testing.assert_array_equal(batch.goal_ids, -1)
    assert batch.goal_embeddings.shape == (6, 100) and np.std(batch.goal_embeddings) > 0.5
    assert batch.descriptions.shape == (6, builder.num_partner_goals)
    assert batch.descriptions.any(axis=1).all()  # the hand is always in some zone: "Go ..."
    np.testing.assert_array_equal(
        batch.descriptions, builder.partner.describe_matrix(batch.final_states)
    )


def test_greedy_actions_are_the_actor_on_the_stored_embedding_exploring_ones_are_unclipped():
    builder, actor = make_actor(dataclasses.replace(CONFIG, exploit_probability=1.0))
    goals = ["Grasp red cat", "Go left", "Grow any plant"]
    embeddings = np.random.default_rng(0).normal(size=(3, 100)).astype(np.float32)
    actor.set_goals(GoalView(goals, embeddings), policy_step=7)
    greedy = actor.collect()
    assert set(greedy.goal_ids) <= {0, 1, 2} and greedy.policy_step == 7
    np.testing.assert_array_equal(greedy.goal_embeddings, embeddings[greedy.goal_ids])
    expected, _ = actor.actor_network(
        {"state": greedy.states[:, 7], "goal": greedy.goal_embeddings}
    )
    np.testing.assert_allclose(greedy.actions[:, 7], expected.numpy(), atol=1e-5)
    assert np.abs(greedy.actions).max() <= 1.0
    _, explorer = make_actor(dataclasses.replace(CONFIG, exploit_probability=0.0))
    explorer.actor_network.action_layer.bias.assign([20.0] * 3)  # π = 1: noise crosses 1
    explorer.set_goals(GoalView(goals, embeddings))
    assert np.abs(explorer.collect().actions).max() > 1.0  # noisy actions stored unclipped


def test_batches_and_snapshots_survive_the_flat_arrays_of_the_replay_server():
    builder, actor = make_actor()
    batch = actor.collect()
    again = EpisodeBatch.from_arrays(batch.to_arrays())
    for field in dataclasses.fields(EpisodeBatch):
        np.testing.assert_array_equal(getattr(again, field.name), getattr(batch, field.name))
    goals = GoalView(
        ["Go left", "Grasp red cat", "Grow red door"],
        np.ones((3, 100), np.float32),
        np.array([False, False, True]),
        imagining=True,
    )
    snapshot = PolicySnapshot(actor.actor_network.get_weights(), goals, 5, 2)
    back = PolicySnapshot.from_arrays(snapshot.to_arrays())
    assert back.goals.sentences == goals.sentences and (back.train_step, back.epoch) == (5, 2)
    assert back.goals.imagined.tolist() == [False, False, True] and back.goals.imagining
    for a, b in zip(back.weights, snapshot.weights):
        np.testing.assert_array_equal(a, b)


def test_with_min_objects_each_cycle_plays_scenes_of_a_drawn_size_padded_to_n():
    config = dataclasses.replace(CONFIG, num_objects=5, min_objects=2)
    builder, actor = make_actor(config)
    actor.set_goals(GoalView(["Go left", "Grasp red cat"], np.ones((2, 100), np.float32)))
    sizes = set()
    for _ in range(12):
        batch = actor.collect()
        assert batch.observations.shape == (6, 51, 3 + 39 * 5)
        present = batch.observations[:, 0, 3:].reshape(6, 5, 39)[..., :32].max(axis=-1) > 0.5
        assert (present.sum(axis=1) == present.sum(axis=1)[0]).all()  # one size per cycle
        assert (present[:, : present.sum(axis=1)[0]]).all()  # the real objects come first
        sizes.add(int(present.sum(axis=1)[0]))
        np.testing.assert_array_equal(
            batch.descriptions, builder.partner.describe_matrix(batch.final_states)
        )
    assert sizes <= {2, 3, 4, 5} and len(sizes) >= 3
    import pytest

    with pytest.raises(ValueError, match="MA policy and reward"):
        dataclasses.replace(CONFIG, architecture="fc", min_objects=2)
