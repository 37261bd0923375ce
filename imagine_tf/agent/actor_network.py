"""The deterministic actor π(s, g) of DDPG, with MA / FA / FC bodies (Colas et al. 2020; Karch, Colas et al. 2020; flowersteam/Imagine).

* **MA**: β = σ(Dense(84)(g)); z_i = ReLU(Dense(N·84)(ReLU(Dense(256)(x_i ⊙ β)))); a =
  tanh(Dense(3)(ReLU(Dense(256)(Σ_i z_i)))). 160,547 parameters for N = 3.
* **FA**: β = σ(Dense(D)(g)); a = tanh(Dense(3)(ReLU(Dense(256)(ReLU(Dense(256)(s ⊙ β)))))).
  152,499 parameters.
* **FC**: a = tanh(Dense(3)(ReLU(Dense(256)(ReLU(Dense(256)([s, g])))))). 153,859 parameters.

Counts exclude the frozen sentence encoder. Input: the observation dict; output: actions in the
action spec's bounds (tanh scaled to the spec; [-1, 1] for the Playground).
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf
from tf_agents.utils import common

from imagine_tf.networks.gated_attention import final_dense
from imagine_tf.networks.goal_conditioned_network import (
    OBJECT_INPUT_DIM,
    GoalConditionedNetwork,
    num_objects_of,
)


class ActorNetwork(GoalConditionedNetwork):
    """π(s, g): observation {"state", "goal"} -> action [B, A].

    Args:
      input_tensor_spec: the observation spec ``{"state": [D], "goal": [L]}``.
      output_tensor_spec: the bounded action spec.
      architecture: "ma", "fa" or "fc".
      words, max_length: the reward model's vocabulary and goal length.
      hidden_units: 256.
      latent_units: MA latent width; default N · 84 for the spec's N.
      embedding_units: the sentence embedding's width (100).
      final_layer_init: "small_uniform" (DDPG paper, TF-Agents; default) or "he_uniform" (the
        reference), see `final_dense`.
      compute_dtype: "float32" (default) or "bfloat16": the hidden layers' precision, see
        `DeepSetsTrunk`; the output layer stays float32.
    """

    def __init__(
        self,
        input_tensor_spec,
        output_tensor_spec,
        architecture: str = "ma",
        words: Sequence[str] = (),
        max_length: int = 4,
        hidden_units: int = 256,
        latent_units: int | None = None,
        embedding_units: int = 100,
        final_layer_init: str = "small_uniform",
        compute_dtype: str = "float32",
        name: str = "ActorNetwork",
    ):
        super().__init__(
            input_tensor_spec,
            input_tensor_spec,
            architecture,
            words,
            max_length,
            embedding_units,
            name=name,
        )
        self._output_tensor_spec = output_tensor_spec
        self.latent_units = (
            latent_units or num_objects_of(input_tensor_spec["state"]) * OBJECT_INPUT_DIM
        )
        feature_dim = (
            OBJECT_INPUT_DIM if architecture == "ma" else int(input_tensor_spec["state"].shape[-1])
        )
        self.trunk = self.make_trunk(feature_dim, hidden_units, compute_dtype)
        self.action_layer = final_dense(
            output_tensor_spec.shape.num_elements(), final_layer_init, "tanh", name="action"
        )

    @property
    def action_spec(self):
        """The bounded action spec the actions are scaled to (the constructor's)."""
        return self._output_tensor_spec

    def call(self, observation, step_type=None, network_state=(), training=False):
        del step_type, training  # the actor is feed-forward
        state = tf.convert_to_tensor(observation["state"], tf.float32)
        goal_embedding = self.goal_embedding(tf.convert_to_tensor(observation["goal"]))
        features = self.trunk((self.module_inputs(state), goal_embedding))
        actions = self.action_layer(features)
        actions = tf.reshape(actions, [-1] + self._output_tensor_spec.shape.as_list())
        return common.scale_to_spec(actions, self._output_tensor_spec), network_state
