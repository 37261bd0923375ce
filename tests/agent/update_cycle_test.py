"""`UpdateCycle`: a cycle's batched relabelling and targets, then its pipelined steps, equal the
same updates made one at a time (relabel, target, step), within float rounding."""

import dataclasses

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig
from imagine_tf.agent.learning import Learner
from tests.agent.learning_test import _batch

CONFIG = TrainConfig(
    architecture="ma",
    episodes_per_cycle=4,
    batch_size=16,
    num_candidates=3,
    hidden_units=16,
    replay_capacity=20,
    memory_capacity=20,
    final_goal_ratio=0.5,
    target_update_period=3,
)
GOALS = ["Go left", "Go right", "Go top", "Grasp any animal"]
#: Float rounding: products of other shapes (M = 5 · B · N rows for the targets) sum in
#: another order; after 5 Adam steps of lr 1e-3 the weights differ by less than this.
TOLERANCE = dict(rtol=1e-4, atol=1e-5)


def _learner(reward: str, architecture: str = "ma") -> Learner:
    config = dataclasses.replace(CONFIG, reward=reward, architecture=architecture)
    learner = RunBuilder(config).make_learner()
    learner.observe(_batch(learner.builder, GOALS))
    return learner


def _single_updates(learner: Learner, cycle: dict) -> list[tuple[float, float]]:
    """The cycle's updates one at a time, eagerly: candidates, relabelling, targets, step."""
    relabeler, table, ddpg = learner.relabeler, learner.embedding_table, learner.ddpg
    num_goals, results = len(learner.goals), []
    for i in range(len(cycle["goal_ids"])):
        batch = {name: tf.constant(values[i]) for name, values in cycle.items()}
        first = batch["first_observations"]
        states = tf.concat([batch["observations"], batch["observations"] - first], -1)
        next_states = tf.concat(
            [batch["next_observations"], batch["next_observations"] - first], -1
        )
        candidates = relabeler.sample_candidates(
            tf.constant(num_goals), CONFIG.num_candidates, learner.imagined_mask[:num_goals], False
        )
        final_ids = batch["sampled_goal_ids"]
        relabelled = relabeler.relabel(
            states,
            next_states,
            batch["goal_ids"],
            batch["goal_embeddings"],
            candidates,
            tf.gather(table, candidates),
            final_ids,
            tf.gather(table, tf.maximum(final_ids, 0)),
        )
        targets = ddpg.td_targets(
            {"state": next_states, "goal": relabelled.goal_embeddings}, relabelled.rewards
        )
        observation = {"state": states, "goal": relabelled.goal_embeddings}
        loss = ddpg.update(observation, batch["actions"], targets)
        results.append((float(loss), float(np.mean(relabelled.rewards.numpy() == 0.0))))
    return results


@pytest.mark.parametrize(
    "reward, architecture", [("learned", "ma"), ("oracle", "ma"), ("oracle", "fc")]
)
def test_a_batched_cycle_equals_its_updates_one_at_a_time(reward, architecture):
    """5 updates with a Polyak move after the 3rd (the cycle is split there), the learned MA
    reward's scans and the oracle's, MA and FC policies: same losses, shares of r = 0, weights
    and targets."""
    batched, single = _learner(reward, architecture), _learner(reward, architecture)
    cycle = batched.replay.sample_cycle(5, CONFIG.batch_size)
    results = batched.update_cycle.run(cycle, len(batched.goals), False)
    expected = np.array(_single_updates(single, cycle))
    np.testing.assert_allclose(results[:, 1], expected[:, 1])  # the same relabelling
    np.testing.assert_allclose(results[:, 0], expected[:, 0], **TOLERANCE)
    assert int(batched.ddpg.train_step_counter.numpy()) == 5
    for name in (
        "actor_network",
        "critic_network",
        "target_actor_network",
        "target_critic_network",
    ):
        for a, b in zip(
            getattr(batched.ddpg, name).get_weights(), getattr(single.ddpg, name).get_weights()
        ):
            np.testing.assert_allclose(a, b, **TOLERANCE)
    for a, b in zip(batched.ddpg.critic_optimizer.m, single.ddpg.critic_optimizer.m):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **TOLERANCE)


def test_a_cycle_is_traced_once_and_samples_as_single_batches_would():
    learner = _learner("oracle")
    state = learner.replay.rng.bit_generator.state
    cycle = learner.replay.sample_cycle(3, CONFIG.batch_size)
    learner.replay.rng.bit_generator.state = state
    for i in range(3):
        batch = learner.replay.sample(CONFIG.batch_size)
        np.testing.assert_array_equal(
            np.concatenate(
                [
                    cycle["observations"][i],
                    cycle["observations"][i] - cycle["first_observations"][i],
                ],
                1,
            ),
            batch.states,
        )
        np.testing.assert_array_equal(cycle["sampled_goal_ids"][i], batch.sampled_goal_ids)
    learner.run_updates(4)
    learner.run_updates(7)
    assert learner.update_cycle.tracing_count == 1
    assert learner.run_updates(0) == ([], [])
