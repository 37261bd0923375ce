"""Evaluation of the noise-free policy: success rate per goal, judged by the oracle on s_T.

Colas et al. 2020 evaluate every training and test goal with the deterministic policy; the
success of an episode is the oracle's verdict on its final state. Episodes of a goal list are
played in one batched environment (one scene per listed goal), through the same token-reading
greedy policy that actors use, its embedding cache filled with the reward model's encoder.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np
from tf_agents.drivers import py_driver
from tf_agents.policies import py_tf_eager_policy

from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.agent.acting import EpisodeRecorder
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.episode_batch import EpisodeBatch
from imagine_tf.env.grow_outcomes import GROW_LOG_KEYS, grow_outcome_shares

PREDICATES = ("Go", "Grasp", "Grow")
#: The keys of an epoch's record that its evaluation fills (`evaluate_epoch`), in their order.
EVALUATION_KEYS = (
    "eval_train_success",
    "eval_test_success",
    *(f"eval_train_success_{predicate.lower()}" for predicate in PREDICATES),
    *GROW_LOG_KEYS.values(),
)


def success_per_goal(goals: Sequence[str], success: np.ndarray) -> dict[str, float]:
    """{goal: mean success over its episodes}; ``goals`` [B] may repeat a goal."""
    per_goal: dict[str, list[bool]] = {}
    for goal, value in zip(goals, success):
        per_goal.setdefault(goal, []).append(bool(value))
    return {goal: float(np.mean(values)) for goal, values in per_goal.items()}


class PolicyEvaluator:
    """Plays goal lists with the greedy policy of an actor network.

    Args:
      builder: the run's `RunBuilder`.
      actor_network: the trained `ActorNetwork` (its weights are read at every call).
      goal_encoder: the reward model's sentence encoder (tokens [G, L] -> embeddings [G, E]).

    Attributes:
      world: the Playground's rules the episodes are played by (`env.config.WORLDS`).
    """

    def __init__(self, builder: RunBuilder, actor_network, goal_encoder):
        self.builder, self.actor_network, self.goal_encoder = builder, actor_network, goal_encoder
        self.world = "default"
        self._players: dict = {}

    def _player(self, goals: tuple, seed: int, num_objects: int):
        """(env, token network, driver, recorder) per goal list, seed and N (cached)."""
        key = (goals, seed, num_objects, self.world)
        if key not in self._players:
            actor = self.actor_network
            if num_objects != self.builder.config.num_objects:
                actor = actor.with_num_objects(num_objects)  # ValueError for FA / FC
            env = self.builder.make_env(
                len(goals), seed, split="all", num_objects=num_objects, world=self.world
            )
            token_network, _, greedy = self.builder.make_policies(actor, env, seed)
            recorder = EpisodeRecorder(
                len(goals), env.config.episode_length, env.observation_spec()["state"].shape[0] // 2
            )
            driver = py_driver.PyDriver(
                env,
                py_tf_eager_policy.PyTFEagerPolicy(
                    greedy, use_tf_function=True, batch_time_steps=False
                ),
                observers=[],
                transition_observers=[recorder],
                max_steps=len(goals) * env.config.episode_length,
            )
            self._players[key] = (env, actor, token_network, driver, recorder)
        return self._players[key]

    def play(self, goals: Sequence[str], seed: int = 12345, num_objects: int | None = None):
        """Noise-free episodes for goals: (`EpisodeBatch` without descriptions, achieved [B])."""
        num_objects = num_objects or self.builder.config.num_objects
        env, actor, token_network, driver, recorder = self._player(tuple(goals), seed, num_objects)
        if actor is not self.actor_network:  # another N: a weight-sharing copy, refreshed
            actor.set_weights(self.actor_network.get_weights())
        unique = sorted(set(goals))
        tokens = self.builder.goal_tokens(unique)
        token_network.set_goal_embeddings(tokens, self.goal_encoder(tokens).numpy())
        env.seed(seed)  # the same scenes at every call
        recorder.start()
        driver.run(env.reset_with_goals(list(goals)))
        episodes = EpisodeBatch(
            recorder.observations.copy(),
            recorder.actions.copy(),
            goal_ids=np.zeros(len(goals), np.int64),
            goal_embeddings=np.zeros((len(goals), 0), np.float32),
            descriptions=np.zeros((len(goals), 0), bool),
            final_states=recorder.final_states.copy(),
        )
        table = GoalTable.from_sentences(unique)
        return episodes, oracle.achieved(episodes.final_states, table, table.index(list(goals)))

    def evaluate_with_outcomes(
        self, goals, repetitions: int = 1, seed: int = 12345, num_objects: int | None = None
    ) -> tuple[dict, dict]:
        """Success rate per goal, and the `grow_outcome_shares` of the Grow episodes.

        ``num_objects`` other than the training N needs the MA policy (it works at any N).
        """
        goals = [g for g in goals for _ in range(repetitions)]
        episodes, success = self.play(goals, seed, num_objects)
        grow = np.array([g.split()[0] == "Grow" for g in goals])
        outcomes = grow_outcome_shares(episodes.states[grow], success[grow])
        return success_per_goal(goals, success), outcomes

    def evaluate(
        self, goals, repetitions: int = 1, seed: int = 12345, num_objects: int | None = None
    ) -> dict[str, float]:
        """Success rate per goal of the noise-free policy."""
        return self.evaluate_with_outcomes(goals, repetitions, seed, num_objects)[0]


def evaluate_epoch(evaluator: PolicyEvaluator) -> dict:
    """The end-of-epoch evaluation (every training and test goal once): the `EVALUATION_KEYS`
    of the epoch's record, and ``seconds_evaluation``."""
    start = time.perf_counter()
    train_success, grow_outcomes = evaluator.evaluate_with_outcomes(grammar.train_goals())
    test_success = evaluator.evaluate(grammar.test_goals())
    per_predicate = {
        f"eval_train_success_{predicate.lower()}": float(
            np.mean([v for goal, v in train_success.items() if goal.split()[0] == predicate])
        )
        for predicate in PREDICATES
    }
    return {
        "eval_train_success": float(np.mean(list(train_success.values()))),
        "eval_test_success": float(np.mean(list(test_success.values()))),
        **per_predicate,
        **{key: grow_outcomes[name] for name, key in GROW_LOG_KEYS.items()},
        "seconds_evaluation": round(time.perf_counter() - start, 3),
    }
