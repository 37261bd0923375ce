"""`LearnerParts`: what a `Learner` is made of, built from the run's config by `build_parts`
(`RunBuilder.make_learner`), as Acme's builders hand a learner its networks, replay and
optimisers. The learner orchestrates them; each part saves and restores its own state
(``state_dict`` / ``load_state_dict``, or its TF variables), and `runs.checkpoint` composes
them.

Construction order is the random streams' order: the global seed first, then the parts in the
order of the fields below (a reordering would change the networks' initial weights).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import tensorflow as tf

from imagine_tf.agent.builder import EMBEDDING_UNITS, RunBuilder
from imagine_tf.agent.evaluation import PolicyEvaluator
from imagine_tf.agent.goals import KnownGoals
from imagine_tf.agent.update_cycle import UpdateCycle
from imagine_tf.language.imagination import GoalImagination
from imagine_tf.reward.goal_probe import TestGoalProbe


@dataclasses.dataclass
class LearnerParts:
    """The parts of a `Learner`.

    Attributes:
      goals: the known goals (discovered, then imagined), one id space.
      imagination: the goal imagination method (CGH, oracle, random or none).
      rng: which imagined goals a final state is checked on.
      spoken: bool [partner goals], the descriptions the partner gives (`goal_predicates`).
      replay, memory: the goal-biased episode replay and the reward model's memory.
      reward_network, reward_learner: the learned reward and its co-training.
      embedding_table: float32 [max goals, E], the known goals' embeddings.
      imagined_mask: bool [max goals], which ids are imagined.
      ddpg: the DDPG agent (actor, critic, targets, optimisers).
      relabeler: hindsight relabelling, scored by the learned (or oracle) reward.
      update_cycle: a cycle's relabelling and DDPG steps in one `tf.function`.
      epoch: int64, the epochs finished.
      evaluator: the greedy policy on goal lists.
      probe: the learned reward on the test goals (analysis only), or None.
    """

    goals: KnownGoals
    imagination: GoalImagination
    rng: np.random.Generator
    spoken: np.ndarray
    replay: object
    memory: object
    reward_network: tf.keras.Model
    reward_learner: object
    embedding_table: tf.Variable
    imagined_mask: tf.Variable
    ddpg: object
    relabeler: object
    update_cycle: UpdateCycle
    epoch: tf.Variable
    evaluator: PolicyEvaluator
    probe: TestGoalProbe | None


def build_parts(builder: RunBuilder) -> LearnerParts:
    """The parts of the run's learner, from its config (and nothing else)."""
    config = builder.config
    tf.keras.utils.set_random_seed(config.seed)
    goals = KnownGoals(builder.partner.goals, builder.max_goals)
    imagination = GoalImagination(config.imagination, seed=config.seed)
    rng = np.random.default_rng(config.seed + 1)
    spoken = np.array([g.split()[0] in config.goal_predicates for g in builder.partner.goals])
    replay, memory = builder.make_replay(), builder.make_memory()
    reward_network = builder.make_reward_network()
    reward_learner = builder.make_reward_learner(reward_network)
    embedding_table = tf.Variable(tf.zeros([builder.max_goals, EMBEDDING_UNITS]), trainable=False)
    imagined_mask = tf.Variable(tf.zeros([builder.max_goals], tf.bool), trainable=False)
    ddpg = builder.make_ddpg()
    ddpg.set_goal_encoder(reward_network.encoder)
    relabeler = builder.make_relabeler(reward_network)
    update_cycle = UpdateCycle(
        ddpg,
        relabeler,
        embedding_table,
        imagined_mask,
        config.batch_size,
        config.num_candidates,
        replay.observations.shape[-1],
        ddpg.actor_network.action_spec.shape.num_elements(),
    )
    epoch = tf.Variable(0, dtype=tf.int64, trainable=False)

    def encode_goals(tokens) -> tf.Tensor:  # the reward model's encoder, as it is at each call
        return reward_network.encoder(tf.constant(tokens))

    evaluator = PolicyEvaluator(builder, ddpg.actor_network, encode_goals)
    probe = TestGoalProbe(config.num_objects) if config.reward == "learned" else None
    return LearnerParts(
        goals, imagination, rng, spoken, replay, memory, reward_network, reward_learner,
        embedding_table, imagined_mask, ddpg, relabeler, update_cycle, epoch, evaluator, probe,
    )  # fmt: skip
