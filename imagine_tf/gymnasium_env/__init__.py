"""The Playground as Gymnasium environments, on the batched numpy core (no TensorFlow).

Registered ids (importing this module, or `import imagine_tf`, registers them):

* ``imagine_tf/Playground-v0``: `PlaygroundGymEnv`, one scene with a language goal;
  ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` gives
  `PlaygroundVectorEnv`, N scenes stepped as one batch (no subprocesses).
* ``imagine_tf/PlaygroundGoal-v0``: `PlaygroundGoalEnv`, the goal-conditioned form
  (``observation`` / ``achieved_goal`` / ``desired_goal`` and a batched ``compute_reward``);
  its vector entry point is `PlaygroundGoalVectorEnv`.

Both take ``goals=[...]`` (the goals sampled, instead of the split's).

Both take ``world="authors"`` for the rules of the authors' code (``imagine_tf.env.config.
world_config``). This module imports Gymnasium's registry only; the environments load when
first made. ``gymnasium.make("imagine_tf.gymnasium_env:imagine_tf/Playground-v0")`` needs no
import of ours (Gymnasium's "module:id" form imports this module).
"""

from __future__ import annotations

ENV_ID = "imagine_tf/Playground-v0"
GOAL_ENV_ID = "imagine_tf/PlaygroundGoal-v0"

_ENTRY_POINTS = {
    ENV_ID: {
        "entry_point": "imagine_tf.gymnasium_env.env:PlaygroundGymEnv",
        "vector_entry_point": "imagine_tf.gymnasium_env.vector_env:PlaygroundVectorEnv",
    },
    GOAL_ENV_ID: {
        "entry_point": "imagine_tf.gymnasium_env.goal_env:PlaygroundGoalEnv",
        "vector_entry_point": "imagine_tf.gymnasium_env.goal_vector_env:PlaygroundGoalVectorEnv",
    },
}


def register_environments() -> None:
    """Registers `ENV_ID` and `GOAL_ENV_ID` with Gymnasium (ids already there are kept)."""
    from gymnasium.envs.registration import register, registry

    for env_id, entry_points in _ENTRY_POINTS.items():
        if env_id not in registry:
            register(id=env_id, **entry_points)


register_environments()
