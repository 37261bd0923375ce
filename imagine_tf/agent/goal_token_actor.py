"""The actor on the environment's own observation: goal token ids in, actions out.

Training builds the actor with a float goal spec [E]: the replay stores each goal's embedding,
computed once per reward-model update (the reference keeps one embedding per goal in a table
and feeds it to the policy). The environment, a driver, or a served policy have the goal's
token ids instead (`PlaygroundEnv`'s ``{"state": float32 [D], "goal": int32 [L]}``).
`GoalTokenActorNetwork` bridges the two without copying the actor:

* a **per-goal embedding cache** (the reference's embedding-per-goal table) maps a token
  sequence to its embedding: C slots of (int64 key, float32 [E] embedding), filled by
  `set_goal_embeddings` (e.g. after each reward-model update, or once at export);
* a goal that is not cached goes through the actor's own **frozen** sentence encoder
  (`ActorNetwork.goal_embedding`: no gradient into the language model). The encoder runs only
  when some row of the batch misses, and only on those rows: a fully cached batch costs no LSTM.

The wrapped actor is shared, not copied: its variables are this network's variables, so when a
trainer updates the actor, this network acts with the new weights.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tf_agents.networks import network
from tf_agents.specs import tensor_spec

from imagine_tf.agent.actor_network import ActorNetwork

# Empty slots: above every key of a token sequence (< V^L), so they sort last and never match.
EMPTY_KEY = np.iinfo(np.int64).max


class GoalTokenActorNetwork(network.Network):
    """π(s, g) on ``{"state": float32 [B, D], "goal": int [B, L] token ids}`` -> actions [B, A].

    ``call(observation, step_type, network_state, training)`` returns ``(actions [B, A],
    network_state)`` like the wrapped actor (whose actions are scaled to its action spec). A goal
    is a cache hit when its key Σ_i tokens[i] V^i equals one of the non-trainable ``keys``
    (int64 [C], −1 = empty slot); it then takes that slot's row of ``embeddings`` (float32
    [C, E]). The cache does not follow the encoder by itself: after the encoder's weights change
    (`ActorNetwork.set_encoder_weights`), refill it with `set_goal_embeddings`.

    Args:
      actor_network: the `ActorNetwork` to act with, built with a float goal-embedding spec
        ``{"state": [D], "goal": float32 [E]}`` (as training builds it). Shared, not copied.
      observation_spec: the environment's observation spec ``{"state": float32 [D], "goal":
        int [L]}`` (L = the actor's encoder's ``max_length``; a bounded goal spec's maximum must
        be below the encoder's vocabulary size V).
      cache_capacity: C, the number of goals the cache holds.
      name: the network's name.

    Raises:
      ValueError: specs that do not fit the actor, a capacity below 1, or V^L beyond int64 (a
        token sequence could not be one int64 key).
    """

    def __init__(
        self,
        actor_network: ActorNetwork,
        observation_spec,
        cache_capacity: int = 512,
        name: str = "GoalTokenActorNetwork",
    ):
        super().__init__(input_tensor_spec=observation_spec, state_spec=(), name=name)
        observation_spec = self.input_tensor_spec  # as TensorSpecs
        actor_spec = actor_network.input_tensor_spec
        encoder = actor_network.encoder
        self._check_specs(actor_spec, observation_spec, encoder)
        if int(cache_capacity) < 1:
            raise ValueError(f"cache_capacity must be at least 1, got {cache_capacity!r}.")
        self.vocabulary_size = encoder.vocabulary_size
        self.max_length = encoder.max_length
        if self.vocabulary_size**self.max_length > 2**63:
            raise ValueError(
                f"A goal of {self.max_length} tokens over a vocabulary of {self.vocabulary_size} "
                f"ids has {self.vocabulary_size}^{self.max_length} possible sequences, more than "
                "an int64 key can tell apart (2^63): use a smaller vocabulary or shorter goals."
            )
        self.cache_capacity = int(cache_capacity)
        self.embedding_units = int(actor_spec["goal"].shape[-1])
        self._actor_network = actor_network
        self._powers = tf.constant(
            [self.vocabulary_size**i for i in range(self.max_length)], tf.int64
        )
        self.keys = tf.Variable(
            tf.fill([self.cache_capacity], tf.constant(EMPTY_KEY, tf.int64)),
            trainable=False,
            name="goal_keys",
        )
        self.embeddings = tf.Variable(
            tf.zeros([self.cache_capacity, self.embedding_units]),
            trainable=False,
            name="goal_embeddings",
        )
        # Built now, eagerly: variables cannot be created later inside a tf.cond branch.
        actor_network.create_variables()
        if not encoder.built:
            encoder(tf.zeros([1, self.max_length], tf.int64))
        self.create_variables()

    @staticmethod
    def _check_specs(actor_spec, observation_spec, encoder) -> None:
        if not (isinstance(actor_spec, dict) and actor_spec["goal"].dtype.is_floating):
            raise ValueError(
                "actor_network must read goal embeddings (a float goal spec [E], as training "
                f"builds it); its input spec is {actor_spec}. Build the ActorNetwork with "
                '{"state": TensorSpec([D]), "goal": TensorSpec([E], tf.float32)}.'
            )
        if int(actor_spec["goal"].shape[-1]) != encoder.units:
            raise ValueError(
                f"The actor reads goal embeddings of {actor_spec['goal'].shape[-1]} values, its "
                f"encoder makes {encoder.units}: build both with the same embedding_units."
            )
        if set(observation_spec) != {"state", "goal"}:
            raise ValueError(
                f'observation_spec must have the keys "state" and "goal", got {observation_spec}.'
            )
        state, goal = observation_spec["state"], observation_spec["goal"]
        if state.shape != actor_spec["state"].shape:
            raise ValueError(
                f"The observation's state has shape {state.shape}, the actor's "
                f"{actor_spec['state'].shape}: the actor was built for another number of objects "
                "(see `with_num_objects`)."
            )
        if not goal.dtype.is_integer or goal.shape != [encoder.max_length]:
            raise ValueError(
                f"The observation's goal must be integer token ids [{encoder.max_length}] (the "
                f"actor's encoder's max_length), got {goal.dtype.name} {goal.shape}."
            )
        if isinstance(goal, tensor_spec.BoundedTensorSpec) and np.any(
            goal.maximum >= encoder.vocabulary_size
        ):
            raise ValueError(
                f"The observation's goal ids go up to {goal.maximum}, the actor's encoder knows "
                f"{encoder.vocabulary_size} ids (0 = padding): the environment and the actor use "
                "different vocabularies."
            )

    @property
    def actor_network(self) -> ActorNetwork:
        """The wrapped (shared) actor."""
        return self._actor_network

    def goal_keys(self, tokens: tf.Tensor) -> tf.Tensor:
        """int64 [B] keys Σ_i tokens[:, i] V^i of token ids [B, L] (distinct per sequence)."""
        return tf.reduce_sum(tf.cast(tokens, tf.int64) * self._powers, axis=-1)

    def set_goal_embeddings(self, tokens, embeddings) -> None:
        """Fills the cache with G goals; the other C − G slots are emptied.

        Args:
          tokens: int [G, L], the goals' token ids (distinct rows, ids in [0, V)).
          embeddings: float32 [G, E], their embeddings.

        Raises:
          ValueError: G > C, shapes that disagree, ids out of range or repeated goals.
        """
        tokens = tf.convert_to_tensor(tokens)
        embeddings = tf.convert_to_tensor(embeddings, tf.float32)
        if not tokens.dtype.is_integer:
            raise ValueError(f"tokens must be integer token ids, got {tokens.dtype.name}.")
        count = tokens.shape[0]
        if tokens.shape.rank != 2 or tokens.shape[1] != self.max_length:
            raise ValueError(f"tokens must be [G, {self.max_length}], got {tokens.shape}.")
        if embeddings.shape != [count, self.embedding_units]:
            raise ValueError(
                f"embeddings must be [G, E] = [{count}, {self.embedding_units}] for {count} goals, "
                f"got {embeddings.shape}."
            )
        if count is None or count > self.cache_capacity:
            raise ValueError(
                f"{count} goals do not fit the cache of {self.cache_capacity}: build the network "
                f"with cache_capacity >= {count}."
            )
        keys = self.goal_keys(tokens)
        if tf.executing_eagerly():
            self._check_goals(tokens.numpy(), keys.numpy())
        free = self.cache_capacity - count
        order = tf.argsort(keys)  # sorted keys: a lookup is a binary search (`goal_embedding`)
        self.keys.assign(
            tf.concat(
                [tf.gather(keys, order), tf.fill([free], tf.constant(EMPTY_KEY, tf.int64))], 0
            )
        )
        self.embeddings.assign(
            tf.concat([tf.gather(embeddings, order), tf.zeros([free, self.embedding_units])], 0)
        )

    def _check_goals(self, tokens: np.ndarray, keys: np.ndarray) -> None:
        if tokens.size and (tokens.min() < 0 or tokens.max() >= self.vocabulary_size):
            raise ValueError(
                f"Token ids must be in [0, {self.vocabulary_size}), got ids from {tokens.min()} "
                f"to {tokens.max()}."
            )
        _, first, counts = np.unique(keys, return_index=True, return_counts=True)
        if np.any(counts > 1):
            row = int(first[np.argmax(counts > 1)])
            raise ValueError(
                f"Each goal must appear once; the goal of row {row} ({tokens[row].tolist()}) "
                f"appears {counts[np.argmax(counts > 1)]} times."
            )

    def clear_goal_embeddings(self) -> None:
        """Empties the cache: every goal then goes through the encoder."""
        self.keys.assign(tf.fill([self.cache_capacity], tf.constant(EMPTY_KEY, tf.int64)))
        self.embeddings.assign(tf.zeros([self.cache_capacity, self.embedding_units]))

    def goal_embedding(self, tokens: tf.Tensor) -> tf.Tensor:
        """float32 [B, E] of token ids [B, L]: cached if the goal is, else the frozen encoder's."""
        tokens = tf.cast(tokens, tf.int64)
        keys = self.goal_keys(tokens)  # [B]
        slots = tf.minimum(tf.searchsorted(self.keys, keys), self.cache_capacity - 1)  # [B]
        hit = tf.equal(tf.gather(self.keys, slots), keys)  # [B]
        cached = tf.gather(self.embeddings, slots)

        def with_encoder():
            missing = tf.where(tf.logical_not(hit))  # [M, 1]
            encoded = self._actor_network.goal_embedding(tf.gather_nd(tokens, missing))  # [M, E]
            return tf.tensor_scatter_nd_update(cached, missing, encoded)

        embedding = tf.cond(tf.reduce_all(hit), lambda: cached, with_encoder)
        return tf.stop_gradient(embedding)

    def call(self, observation, step_type=None, network_state=(), training=False):
        """Actions [B, A] and the (empty) network state, as the wrapped actor returns them."""
        state = tf.convert_to_tensor(observation["state"], tf.float32)
        goal = self.goal_embedding(tf.convert_to_tensor(observation["goal"]))
        return self._actor_network(
            {"state": state, "goal": goal},
            step_type=step_type,
            network_state=network_state,
            training=training,
        )
