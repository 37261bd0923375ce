"""The critic Q(s, a, g) of DDPG, with MA / FA / FC bodies (Colas et al. 2020; Karch, Colas et al. 2020; flowersteam/Imagine).

* **MA**: γ = σ(Dense(87)(g)); z_i = ReLU(Dense(N·87)(ReLU(Dense(256)([x_i, a] ⊙ γ)))); Q =
  Dense(1)(ReLU(Dense(256)(Σ_i z_i))). Each object module sees the action. 165,721 parameters
  for N = 3.
* **FA**: γ = σ(Dense(D + 3)(g)); Q = Dense(1)(ReLU(Dense(256)(ReLU(Dense(256)([s, a] ⊙ γ))))).
  153,056 parameters.
* **FC**: Q = Dense(1)(ReLU(Dense(256)(ReLU(Dense(256)([s, g, a]))))). 154,113 parameters.

As in the reference the action is gated by the attention too, and Q has no output activation.
Input: ``(observation, action)``; output: Q [B].
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf

from imagine_tf.networks.gated_attention import final_dense
from imagine_tf.networks.goal_conditioned_network import (
    OBJECT_INPUT_DIM,
    GoalConditionedNetwork,
    num_objects_of,
)


class CriticNetwork(GoalConditionedNetwork):
    """Q(s, a, g): (observation {"state", "goal"}, action [B, A]) -> Q [B].

    Args:
      input_tensor_spec: ``(observation_spec, action_spec)``.
      architecture: "ma", "fa" or "fc".
      words, max_length: the reward model's vocabulary and goal length.
      hidden_units: 256.
      latent_units: MA latent width; default N · (84 + A) for the spec's N.
      embedding_units: the sentence embedding's width (100).
      final_layer_init: "small_uniform" (default) or "he_uniform", see `final_dense`.
      compute_dtype: "float32" (default) or "bfloat16": the hidden layers' precision, see
        `DeepSetsTrunk`; the output layer stays float32.
    """

    def __init__(
        self,
        input_tensor_spec,
        architecture: str = "ma",
        words: Sequence[str] = (),
        max_length: int = 4,
        hidden_units: int = 256,
        latent_units: int | None = None,
        embedding_units: int = 100,
        final_layer_init: str = "small_uniform",
        compute_dtype: str = "float32",
        name: str = "CriticNetwork",
    ):
        observation_spec, action_spec = input_tensor_spec
        super().__init__(
            input_tensor_spec,
            observation_spec,
            architecture,
            words,
            max_length,
            embedding_units,
            name=name,
        )
        action_dim = self.action_dim = action_spec.shape.num_elements()
        object_dim = OBJECT_INPUT_DIM + action_dim  # 87
        self.latent_units = latent_units or num_objects_of(observation_spec["state"]) * object_dim
        feature_dim = (
            object_dim
            if architecture == "ma"
            else int(observation_spec["state"].shape[-1]) + action_dim
        )
        self.trunk = self.make_trunk(feature_dim, hidden_units, compute_dtype)
        self.value_layer = final_dense(1, final_layer_init, name="q_value")

    def call(self, inputs, step_type=None, network_state=(), training=False):
        del step_type, training
        observation, action = inputs
        state = tf.convert_to_tensor(observation["state"], tf.float32)
        action = tf.cast(tf.reshape(action, [tf.shape(state)[0], self.action_dim]), tf.float32)
        goal_embedding = self.goal_embedding(tf.convert_to_tensor(observation["goal"]))
        features = self.module_inputs(state)
        if self.architecture == "ma":
            actions = tf.tile(action[:, None, :], [1, self.num_objects, 1])
            features = tf.concat([features, actions], axis=-1)  # [B, N, 87]
        else:
            features = tf.concat([features, action], axis=-1)  # [B, D + 3]
        q_value = self.value_layer(self.trunk((features, goal_embedding)))
        return tf.squeeze(q_value, -1), network_state
