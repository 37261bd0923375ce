"""What the actor and the critic share: a frozen sentence encoder and the Deep Sets views.

Both are `tf_agents.networks.Network`s whose observation is ``{"state": float32 [D], "goal":
int [L] token ids}`` (the `PlaygroundEnv` observation). The goal goes through a **frozen** copy
of the reward model's `SentenceEncoder` (no gradient from the policy into the language model,
Colas et al. 2020, IMAGINE; flowersteam/Imagine); `set_encoder_weights` copies the reward model's weights in after each
reward-model update. A network built with a float goal spec [E] takes embeddings computed
beforehand (the replay can store embeddings, as the reference does) and skips the encoder.

N comes from the state size D = 2 (3 + 39 N). MA networks work at any N: `with_num_objects`
returns a network for another N sharing the same layer weights (the latent width stays the
training N's, as the paper's N × 84).
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf
from tf_agents.networks import network
from tf_agents.specs import tensor_spec

from imagine_tf.constants import BODY_DIM, OBJECT_DIM, POLICY_ARCHITECTURES
from imagine_tf.networks.deep_sets import DeepSetsTrunk, object_inputs
from imagine_tf.networks.sentence_encoder import SentenceEncoder

ARCHITECTURES = POLICY_ARCHITECTURES
OBJECT_INPUT_DIM = 2 * BODY_DIM + 2 * OBJECT_DIM  # 84


def num_objects_of(state_spec: tf.TensorSpec) -> int:
    """N from a state spec of shape [2 (3 + 39 N)]."""
    size = int(state_spec.shape[-1])
    num_objects, remainder = divmod(size // 2 - BODY_DIM, OBJECT_DIM)
    if size % 2 or remainder or num_objects < 1:
        raise ValueError(f"A Playground state has 2 (3 + 39 N) values, got {size}.")
    return num_objects


class GoalConditionedNetwork(network.Network):
    """Base of `ActorNetwork` and `CriticNetwork`: goal embedding and per-object inputs.

    Args:
      observation_spec: ``{"state": TensorSpec([D]), "goal": TensorSpec([L])}``.
      architecture: "ma", "fa" or "fc".
      words, max_length: the reward model's vocabulary (without padding) and goal length.
      embedding_units: width of the sentence embedding (100).
    """

    def __init__(
        self,
        input_tensor_spec,
        observation_spec,
        architecture: str,
        words: Sequence[str],
        max_length: int,
        embedding_units: int = 100,
        name: str | None = None,
    ):
        super().__init__(input_tensor_spec=input_tensor_spec, state_spec=(), name=name)
        if architecture not in ARCHITECTURES:
            raise ValueError(f"architecture must be one of {ARCHITECTURES}, got {architecture!r}.")
        self.architecture = architecture
        self.num_objects = num_objects_of(observation_spec["state"])
        self.encoder = SentenceEncoder(words, max_length, embedding_units, name="sentence_encoder")
        self.encoder.trainable = False

    def make_trunk(self, feature_dim: int, hidden_units: int, compute_dtype: str) -> DeepSetsTrunk:
        """The Deep Sets trunk of this network's architecture and ``latent_units``."""
        return DeepSetsTrunk(
            self.architecture,
            feature_dim,
            hidden_units,
            self.latent_units,
            compute_dtype,
            name="trunk",
        )

    def goal_embedding(self, goal: tf.Tensor) -> tf.Tensor:
        """[B, E] from token ids [B, L] (frozen encoder, no gradient) or embeddings [B, E]."""
        if goal.dtype.is_floating:
            return tf.stop_gradient(goal)
        return tf.stop_gradient(self.encoder(goal))

    def set_encoder_weights(self, encoder: SentenceEncoder) -> None:
        """Copies a (reward model's) sentence encoder's weights into the frozen encoder."""
        if not self.encoder.built:
            self.encoder(tf.zeros([1, self.encoder.max_length], tf.int64))
        self.encoder.set_weights(encoder.get_weights())

    def module_inputs(self, state: tf.Tensor) -> tf.Tensor:
        """Per-object inputs [B, N, 84] (MA) or the flat state [B, D] (FA, FC)."""
        if self.architecture == "ma":
            return object_inputs(state, self.num_objects)
        return state

    def with_num_objects(self, num_objects: int) -> "GoalConditionedNetwork":
        """This network for scenes of N objects, sharing its layers' weights (MA only)."""
        if self.architecture != "ma":
            raise ValueError(
                f"{self.architecture.upper()} reads the flat state, whose size 2 (3 + 39 N) fixes "
                f"N = {self.num_objects}; only MA works for any N."
            )
        spec = self._saved_kwargs["input_tensor_spec"]
        state_spec = tf.TensorSpec([2 * (BODY_DIM + OBJECT_DIM * num_objects)], tf.float32, "state")
        if isinstance(spec, tuple):  # critic: (observation, action)
            new_spec = ({**spec[0], "state": state_spec}, spec[1])
        else:
            new_spec = {**spec, "state": state_spec}
        other = self.copy(input_tensor_spec=new_spec, latent_units=self.latent_units)
        other.create_variables()
        if not self.built:
            self.create_variables()
        if self.encoder.built and not other.encoder.built:
            other.encoder(tf.zeros([1, self.encoder.max_length], tf.int64))
        other.set_weights(self.get_weights())
        return other


def observation_spec_of(input_tensor_spec):
    """The observation part of an actor's (observation) or a critic's (observation, action) spec."""
    return input_tensor_spec[0] if isinstance(input_tensor_spec, tuple) else input_tensor_spec


def example_observation_spec(num_objects: int = 3, max_length: int = 4) -> dict:
    """The `PlaygroundEnv` observation spec for N objects, as TensorSpecs."""
    return {
        "state": tensor_spec.TensorSpec(
            [2 * (BODY_DIM + OBJECT_DIM * num_objects)], tf.float32, "state"
        ),
        "goal": tensor_spec.TensorSpec([max_length], tf.int32, "goal"),
    }
