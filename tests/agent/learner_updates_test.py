"""`Learner.run_updates`: a cycle's U updates run in one graph (a while loop) exactly as U
single updates would, with one trace whatever U."""

import numpy as np

from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig
from imagine_tf.agent.learning import Learner
from tests.training.imagination_loop_test import _batch

CONFIG = TrainConfig(
    architecture="fc",
    reward="oracle",
    episodes_per_cycle=4,
    batch_size=16,
    hidden_units=16,
    replay_capacity=20,
    memory_capacity=20,
)
GOALS = ["Go left", "Go right", "Go top", "Grasp any animal"]


def _learner_with_a_batch() -> Learner:
    learner = Learner(RunBuilder(CONFIG))
    learner.observe(_batch(learner.builder, GOALS))
    return learner


def test_updates_in_one_graph_equal_single_updates_and_trace_once():
    together = _learner_with_a_batch()
    losses, shares = together.run_updates(4)
    one_by_one = _learner_with_a_batch()
    single = [one_by_one.run_updates(1) for _ in range(4)]
    assert len(losses) == len(shares) == 4
    assert losses == [loss for (loss,), _ in single] and shares == [s for _, (s,) in single]
    for network in ("actor_network", "critic_network"):
        for a, b in zip(
            getattr(together.agent, network).get_weights(),
            getattr(one_by_one.agent, network).get_weights(),
        ):
            np.testing.assert_array_equal(a, b)
    assert int(one_by_one.agent.train_step_counter.numpy()) == 4
    assert one_by_one._updates.experimental_get_tracing_count() == 1
    assert one_by_one.run_updates(0) == ([], [])
