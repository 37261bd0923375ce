"""Batched episode collection with the actor (REFERENCE_FACTS §6.2, §6.5).

The reference's workers each run their 2 episodes per cycle one after the other, one env per
worker; here the B scenes of one `PlaygroundEnv` run in lock-step and the actor is called once
per step for all of them (one `tf.function` call on [B, D] states and [B, E] goal embeddings).
Exploration is the agent's collect policy (`GaussianEpsilonPolicy`); the actions are stored
unclipped (the environment clips what it executes). ``explore=False`` uses the noise-free
policy (evaluation, "exploit" rollouts).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
import tensorflow as tf
from tf_agents.trajectories import time_step as ts

from imagine_tf.env.playground_env import PlaygroundEnv


@dataclasses.dataclass
class CollectedEpisodes:
    """B episodes: states s_0..s_T float32 [B, T + 1, D] and actions float32 [B, T, A]."""

    states: np.ndarray
    actions: np.ndarray

    @property
    def final_states(self) -> np.ndarray:
        """s_T, float32 [B, D]."""
        return self.states[:, -1]


class EpisodeCollector:
    """Plays episodes of a TF-Agents policy in a batched Playground.

    The policies' observation is ``{"state": [D], "goal": float [E]}`` (the goal embedding):
    the collector swaps the environment's goal tokens for the embeddings it is given.

    Args:
      env: the batched `PlaygroundEnv` (B scenes).
      collect_policy: the exploring policy (e.g. `ImagineDdpgAgent.collect_policy`).
      greedy_policy: the noise-free policy (`ImagineDdpgAgent.policy`).
    """

    def __init__(self, env: PlaygroundEnv, collect_policy, greedy_policy):
        self.env = env
        self._act = {
            True: tf.function(lambda time_step: collect_policy.action(time_step).action),
            False: tf.function(lambda time_step: greedy_policy.action(time_step).action),
        }

    def collect(
        self, goals: Sequence[str], goal_embeddings: np.ndarray, explore: bool = True
    ) -> CollectedEpisodes:
        """One episode per scene: goals [B] (sentences), their embeddings float32 [B, E]."""
        env = self.env
        if len(goals) != env.batch_size or len(goal_embeddings) != env.batch_size:
            raise ValueError(
                f"The environment has {env.batch_size} scenes; got {len(goals)} goals and "
                f"{len(goal_embeddings)} embeddings."
            )
        length = env.config.episode_length
        time_step = env.reset_with_goals(list(goals))
        states = np.empty(
            (env.batch_size, length + 1, time_step.observation["state"].shape[-1]), np.float32
        )
        actions = np.empty((env.batch_size, length, 3), np.float32)
        states[:, 0] = time_step.observation["state"]
        embeddings = tf.constant(goal_embeddings, tf.float32)
        act = self._act[bool(explore)]
        for t in range(length):
            step = ts.TimeStep(
                tf.constant(time_step.step_type), tf.constant(time_step.reward), tf.constant(time_step.discount),
                {"state": tf.constant(states[:, t]), "goal": embeddings},
            )  # fmt: skip
            actions[:, t] = act(step).numpy()
            time_step = env.step(actions[:, t])
            states[:, t + 1] = time_step.observation["state"]
        return CollectedEpisodes(states, actions)
