"""The reference's exploration: Gaussian noise, then uniformly random actions (Colas et al. 2020; Karch, Colas et al. 2020; flowersteam/Imagine).

a = π(s, g) + N(0, σ²) with σ = 0.2 (times the half-range of the action spec); then, per scene
and per step, with probability ε = 0.3 the action is replaced by a uniform draw from the action
bounds. As in the reference the noisy action is **not clipped** here: the environment clips what
it executes, and the replay stores the action as drawn.
"""

from __future__ import annotations

import tensorflow as tf
from tf_agents.policies import tf_policy
from tf_agents.trajectories import policy_step


class GaussianEpsilonPolicy(tf_policy.TFPolicy):
    """Wraps a deterministic policy with Gaussian noise and ε-uniform random actions.

    Args:
      wrapped_policy: the deterministic `TFPolicy` (e.g. DDPG's actor policy, unclipped).
      noise_stddev: σ, relative to the action half-range (0.2).
      random_action_probability: ε (0.3).
      seed: seed of the noise.
    """

    def __init__(
        self,
        wrapped_policy: tf_policy.TFPolicy,
        noise_stddev: float = 0.2,
        random_action_probability: float = 0.3,
        seed: int | None = None,
        name: str | None = None,
    ):
        super().__init__(
            wrapped_policy.time_step_spec,
            wrapped_policy.action_spec,
            wrapped_policy.policy_state_spec,
            wrapped_policy.info_spec,
            clip=False,
            name=name,
        )
        self._wrapped_policy = wrapped_policy
        self._noise_stddev = float(noise_stddev)
        self._random_action_probability = float(random_action_probability)
        self._generator = (
            tf.random.Generator.from_seed(seed)
            if seed is not None
            else tf.random.Generator.from_non_deterministic_state()
        )

    def _variables(self):
        return self._wrapped_policy.variables()

    def _action(self, time_step, policy_state, seed):
        del seed  # the policy's own generator makes the draws (checkpointable)
        step = self._wrapped_policy.action(time_step, policy_state)
        spec = self.action_spec
        low, high = tf.constant(spec.minimum, tf.float32), tf.constant(spec.maximum, tf.float32)
        actions = tf.cast(step.action, tf.float32)
        shape = tf.shape(actions)
        noisy = actions + self._generator.normal(shape) * self._noise_stddev * (high - low) / 2
        uniform = low + (high - low) * self._generator.uniform(shape)
        replace = self._generator.uniform(shape[:1]) < self._random_action_probability  # per scene
        actions = tf.where(replace[:, None], uniform, noisy)
        return policy_step.PolicyStep(tf.cast(actions, spec.dtype), step.state, step.info)

    def _distribution(self, time_step, policy_state):
        raise NotImplementedError("GaussianEpsilonPolicy is an exploration policy: use action().")
