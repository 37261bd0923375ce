"""`EpisodeActor`: plays cycles of B episodes with the current policy and asks the partner.

One cycle (the reference's per-cycle rollouts, Colas et al. 2020): draw B target goals
uniformly among the discovered goals — or, when imagination is on, with probability 0.5 per
cycle among the imagined goals — (before any discovery: goals drawn by the environment,
pursued with an N(0, 1) "Random Goal" embedding); with probability 0.1 play noise-free
("exploit"), else explore; play one episode per scene of a batched `PlaygroundEnv` with a
TF-Agents `PyDriver` (one policy call per step for all B scenes); the social partner describes
the final states. The result is an `EpisodeBatch` for the learner.

The policy reads the environment's own observation (state + goal token ids) through a
`GoalTokenActorNetwork`: its per-goal cache holds the learner's goal embeddings, so the replay
stores exactly the embedding each episode was played with.
"""

from __future__ import annotations

import time

import numpy as np
from tf_agents.drivers import py_driver
from tf_agents.policies import py_tf_eager_policy

from imagine_tf.env.object_padding import PaddedObjects
from imagine_tf.agent.builder import EMBEDDING_UNITS, RunBuilder
from imagine_tf.agent.episode_batch import EpisodeBatch, GoalView


class EpisodeRecorder:
    """Transition observer: o_0..o_T, a_0..a_{T−1} and s_T of the B scenes, into fixed arrays."""

    def __init__(self, batch_size: int, episode_length: int, observed_dim: int):
        self.observations = np.empty((batch_size, episode_length + 1, observed_dim), np.float32)
        self.actions = np.empty((batch_size, episode_length, 3), np.float32)
        self.final_states = np.empty((batch_size, 2 * observed_dim), np.float32)
        self.observed_dim, self.episode_length, self.step = observed_dim, episode_length, 0

    def start(self) -> None:
        self.step = 0

    def __call__(self, transition) -> None:
        time_step, action_step, next_time_step = transition
        t = self.step
        self.observations[:, t] = time_step.observation["state"][:, : self.observed_dim]
        self.actions[:, t] = action_step.action
        state = next_time_step.observation["state"]
        self.observations[:, t + 1] = state[:, : self.observed_dim]
        if t + 1 == self.episode_length:
            self.final_states[:] = state  # s_T exactly as the environment computed it
        self.step += 1


class EpisodeActor:
    """Collects episode batches with the current actor weights and goal embeddings.

    Args:
      builder: the run's `RunBuilder`.
      actor_network: the `ActorNetwork` to act with (the learner's own, in one process; a
        copy whose weights `set_weights` refreshes, in an actor process).
      actor_id: which actor (seeds its scenes, noise and goal draws apart from the others').
    """

    def __init__(self, builder: RunBuilder, actor_network, actor_id: int = 0):
        config = builder.config
        self.builder, self.actor_id, self.actor_network = builder, actor_id, actor_network
        seed = config.seed + 7919 * actor_id  # actor 0 plays the single-process run's scenes
        # One environment, or one per scene size n (padded to N) with `min_objects`.
        if config.min_objects is None:
            self._envs = {config.num_objects: builder.make_env(config.episodes_per_cycle, seed)}
        else:
            self._envs = {
                n: PaddedObjects(
                    builder.make_env(config.episodes_per_cycle, seed + 101 * n, num_objects=n),
                    config.num_objects,
                )
                for n in range(config.min_objects, config.num_objects + 1)
            }
        self.env = self._envs[config.num_objects]
        self.token_network, exploring, greedy = builder.make_policies(actor_network, self.env, seed)
        self.rng = np.random.default_rng(seed)
        length = self.env.config.episode_length
        self._recorder = EpisodeRecorder(config.episodes_per_cycle, length, builder.state_dim // 2)
        policies = {
            explore: py_tf_eager_policy.PyTFEagerPolicy(
                policy, use_tf_function=True, batch_time_steps=False
            )
            for explore, policy in ((True, exploring), (False, greedy))
        }
        self._drivers = {
            (n, explore): py_driver.PyDriver(
                env,
                policy,
                observers=[],
                transition_observers=[self._recorder],
                max_steps=config.episodes_per_cycle * length,
            )
            for n, env in self._envs.items()
            for explore, policy in policies.items()
        }
        self.goals = GoalView([], np.zeros((0, EMBEDDING_UNITS), np.float32))
        self.policy_step = 0
        self.timings = dict.fromkeys(("collection", "partner"), 0.0)

    def set_goals(self, goals: GoalView, policy_step: int = 0) -> None:
        """The learner's discovered goals and embeddings (the policy's embedding cache)."""
        self.goals, self.policy_step = goals, int(policy_step)
        if len(goals):
            self.token_network.set_goal_embeddings(
                self.builder.goal_tokens(goals.sentences), goals.embeddings
            )

    def set_weights(self, weights: list[np.ndarray]) -> None:
        """Loads the learner's actor weights (`ActorNetwork.get_weights` order)."""
        self.actor_network.set_weights(weights)

    def _targets(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Sentences, known-goal ids (−1: placeholder) and embeddings of the cycle's goals."""
        count = self.env.batch_size
        if not len(self.goals):  # nothing discovered: the env's goals, pursued with noise
            partner_goals = self.builder.partner.goals
            sentences = [partner_goals[i] for i in self.rng.integers(0, len(partner_goals), count)]
            embeddings = self.rng.standard_normal((count, EMBEDDING_UNITS)).astype(np.float32)
            unique, first = np.unique(sentences, return_index=True)
            self.token_network.set_goal_embeddings(
                self.builder.goal_tokens(unique), embeddings[first]
            )
            embeddings = embeddings[first][np.searchsorted(unique, sentences)]
            return sentences, np.full(count, -1, np.int64), embeddings
        imagined = self.goals.imagined
        pool = np.flatnonzero(~imagined)
        if self.goals.imagining and imagined.any():  # one draw per cycle, as the reference
            probability = self.builder.config.imagined_target_probability
            if self.rng.random() < probability:
                pool = np.flatnonzero(imagined)
        ids = pool[self.rng.integers(0, pool.size, count)]
        return [self.goals.sentences[i] for i in ids], ids, self.goals.embeddings[ids]

    def collect(self) -> EpisodeBatch:
        """One cycle: B episodes and the partner's descriptions of their final states."""
        start = time.perf_counter()
        config = self.builder.config
        if config.min_objects is not None:  # this cycle's scene size
            self.env = self._envs[
                int(self.rng.integers(config.min_objects, config.num_objects + 1))
            ]
        sentences, goal_ids, embeddings = self._targets()
        explore = self.rng.random() >= config.exploit_probability
        self._recorder.start()
        goals = self.env.goal_source.encode(sentences, imagined=True)  # imagined: their words
        self._drivers[self.env.config.num_objects, explore].run(self.env.reset_with_goals(goals))
        batch = EpisodeBatch(
            observations=self._recorder.observations.copy(),
            actions=self._recorder.actions.copy(),
            goal_ids=goal_ids,
            goal_embeddings=np.asarray(embeddings, np.float32),
            descriptions=np.zeros((0, 0), bool),
            final_states=self._recorder.final_states.copy(),
            policy_step=self.policy_step,
            actor_id=self.actor_id,
        )
        self.timings["collection"] += time.perf_counter() - start
        start = time.perf_counter()
        batch.descriptions = self.builder.partner.describe_matrix(batch.final_states)
        self.timings["partner"] += time.perf_counter() - start
        return batch
