"""`PaddedObjects`: a Playground of n objects seen as one of N ≥ n objects.

The n real objects keep their slots 0..n − 1; slots n..N − 1 are all zeros in both halves of
s_t = [o_t, o_t − o_0]: no type one-hot, so the social partner and the oracle see no object
there (`SceneFacts.present`) and MA networks leave the slot out of their sums and ORs
(`networks.deep_sets.present_objects`). Training with scenes of varying n through one network
of width N is then a matter of padding (`TrainConfig.min_objects`); everything downstream —
policies, replay, reward memory — has the shapes of N.
"""

from __future__ import annotations

import numpy as np
from tf_agents.environments import wrappers
from tf_agents.specs import array_spec
from tf_agents.trajectories import time_step as ts

from imagine_tf.env.observation import step_dim


def padding_columns(num_objects: int, padded_objects: int) -> np.ndarray:
    """int64 [2 (3 + 39 n)]: where each value of an n-object state goes in an N-object one."""
    if not 1 <= num_objects <= padded_objects:
        raise ValueError(f"Cannot pad {num_objects} objects to {padded_objects}: need 1 <= n <= N.")
    half = np.arange(step_dim(num_objects))  # body, then the n objects, in order
    return np.concatenate([half, step_dim(padded_objects) + half])


class PaddedObjects(wrappers.PyEnvironmentBaseWrapper):
    """Wraps a `PlaygroundEnv` of n objects; observes it as N objects (zeros beyond n).

    Args:
      env: the `PlaygroundEnv` (n = its ``config.num_objects``).
      padded_objects: N.
    """

    def __init__(self, env, padded_objects: int):
        super().__init__(env)
        self.num_objects, self.padded_objects = env.config.num_objects, int(padded_objects)
        self._columns = padding_columns(self.num_objects, self.padded_objects)
        spec = env.observation_spec()
        self._observation_spec = {
            **spec,
            "state": array_spec.ArraySpec(
                (2 * step_dim(self.padded_objects),), np.float32, name=spec["state"].name
            ),
        }

    def observation_spec(self):
        return self._observation_spec

    def time_step_spec(self):
        return ts.time_step_spec(self._observation_spec, self._env.reward_spec())

    def _pad(self, time_step: ts.TimeStep) -> ts.TimeStep:
        state = time_step.observation["state"]
        padded = np.zeros(state.shape[:-1] + (2 * step_dim(self.padded_objects),), np.float32)
        padded[..., self._columns] = state
        return time_step._replace(observation={**time_step.observation, "state": padded})

    def _reset(self):
        return self._pad(self._env.reset())

    def _step(self, action):
        return self._pad(self._env.step(action))

    def reset_with_goals(self, goals) -> ts.TimeStep:
        self._env.set_goals(goals)
        return self.reset()
