"""The trained policy as a versioned SavedModel: TF-Agents' `PolicySaver` plus an ``act`` signature.

`export_policy` writes ``<model_base_path>/<version>/`` (atomically, like the reward model) with
the PolicySaver signatures — ``action`` (inputs ``0/step_type``, ``0/reward``, ``0/discount``,
``0/observation/state`` float32 [B, D], ``0/observation/goal`` float32 [B, 100]: the goal
*embedding*, as the policy was trained), ``get_initial_state``, ``get_train_step``,
``get_metadata`` — and a convenience signature:

* ``act``: ``goals`` string [B], ``states`` float32 [B, D] -> ``action`` float32 [B, 3], the
  noise-free action in [−1, 1]; the goal goes through the frozen sentence encoder inside the
  model (no step type, reward or discount to make up).

The ``act`` signature is added to the saver's signature map (``PolicySaver._signatures``, a
private attribute of tf-agents 0.19.0, pinned): PolicySaver has no public way to add a
signature next to ``action``. Loading needs ``tensorflow_probability`` imported first (the
policy's TypeSpecs): `serving/` does it.
"""

from __future__ import annotations

import os
import pathlib

import tensorflow as tf
from tf_agents.policies import policy_saver
from tf_agents.trajectories import time_step as ts

from imagine_tf.export.reward_export import claim_version

def export_policy(policy, encoder, model_base_path: str | os.PathLike,
                  version: int | None = None) -> pathlib.Path:  # fmt: skip
    """Writes the policy (a TF-Agents policy whose goal observation is the embedding) with the
    ``act`` signature; ``encoder`` maps goal strings [B] to embeddings [B, E]."""
    final, temporary = claim_version(model_base_path, version)
    state_dim = policy.time_step_spec.observation["state"].shape[-1]

    @tf.function(
        input_signature=[
            tf.TensorSpec([None], tf.string, name="goals"),
            tf.TensorSpec([None, state_dim], tf.float32, name="states"),
        ]
    )
    def act(goals, states):
        batch = tf.shape(states)[0]
        same_batch = tf.debugging.Assert(
            tf.equal(tf.shape(goals)[0], batch),
            ["goals and states must have the same batch size; got", tf.shape(goals)[0], batch],
        )
        with tf.control_dependencies([same_batch]):
            embeddings = encoder(goals)
        time_step = ts.TimeStep(
            step_type=tf.fill([batch], ts.StepType.MID),
            reward=tf.zeros([batch]),
            discount=tf.ones([batch]),
            observation={"state": states, "goal": embeddings},
        )
        return {"action": policy.action(time_step).action}

    saver = policy_saver.PolicySaver(policy, batch_size=None)
    # Tracks act's variables and the encoder (its vocabulary table) in the saved policy ...
    saver.register_concrete_function("act_function", act, assets=encoder)
    # ... and serves it as a signature next to PolicySaver's.
    saver._signatures["act"] = act.get_concrete_function()  # noqa: SLF001 - see the docstring
    saver.save(str(temporary))
    os.replace(temporary, final)
    return final
