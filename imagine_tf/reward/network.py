"""Reward networks: P(goal achieved | state, goal) with the MA, FA, FC and MA-pairs heads.

Colas et al. 2020, IMAGINE; flowersteam/Imagine (s = 240-d state for N = 3, g = the 100-d LSTM embedding, σ = sigmoid):

* **MA** (modular attention): α = σ(Dense(84)(g)); p_i = σ(Dense(1)(ReLU(Dense(100)(x_i ⊙ α))))
  with the weights shared across objects; R = OR(p_1..p_N). Works for any N: the object
  modules are shared, and `with_num_objects` swaps the OR net for the one of the new N.
* **FA** (flat attention): α = σ(Dense(2D)(g)); R = σ(Dense(1)(ReLU(Dense(100)(s ⊙ α)))).
* **FC** (flat concatenation): R = σ(Dense(1)(ReLU(Dense(100)([s, g])))).
  FA and FC read the whole flat state, whose size 2 (3 + 39 N) fixes N.
* **MA-pairs** (two-object goals): one module per unordered pair of objects, C(N, 2)
  modules sharing weights, OR on top. Module input: x_ij = [body, Δbody, obj_i, Δobj_i, obj_j,
  Δobj_j] (162 values), gated by α = σ(Dense(162)(g)). A pair has no natural order, so each
  module scores both orders and keeps the larger: p_ij = max(f(x_ij), f(x_ji)). This keeps
  the paper's C(N, 2) modules *and* makes the network invariant to permutations of objects.
  ``pair_gate`` chooses the gate (the paper does not say):
  ``"per_slot"`` (default) learns one gate per input value, α = σ(Dense(162)(g));
  ``"shared"`` learns MA's gate, α = σ(Dense(84)(g)) over [body, Δbody, obj, Δobj], and applies
  its object part to both objects, so a word means the same features in either slot. In the
  two-object study it raises the one-object test F1 and lowers the two-object train F1
  (docs/reward.md). ``"residual"``: the shared gate for the body and the first object, and
  α_2 = σ(W_o ĝ + b_o + W_r ĝ + b_r) for the second, with W_r, b_r starting at zero. It has
  the per-slot gate's 162 outputs and the same functions (any α_2), but starts shared and
  trains the shared part W_o from both slots, W_r from the second slot only.
  ``pair_relations`` (default off) appends the pair's relation features r_ij = [ReLU(p⁰_i −
  p⁰_j), ReLU(p⁰_j − p⁰_i)] of the objects' initial positions (4 values, gated like the
  rest; `deep_sets.pair_relations`). A sigmoid gate cannot flip the sign of an input, so
  without them "right_of" and "left_of" ask the same goal-independent hidden layer for
  opposite functions of the positions.

Parameter counts for N = 3 (tested): MA head 17,085; FA 48,441; FC 34,201; OR 353 (frozen);
the Keras LSTM has 60,800 (one bias vector, as TF1's BasicLSTMCell).

``normalize_goal`` (MA, MA-pairs, FA; default off = the paper): the attention gates read the
L2-normalised goal embedding (`GatedAttention`), which shortens the plateau of supervised
training (docs/reward.md).

Inputs: ``{"state": float32 [B, 2 (3 + 39 N)], "goal": string [B] or int token ids [B, L]}``.
Output: float32 [B], a probability; the binary reward is R > 0.5.
"""

from __future__ import annotations

import math
from typing import Sequence

import tensorflow as tf

from imagine_tf.constants import PAIR_GATES, REWARD_ARCHITECTURES
from imagine_tf.networks.deep_sets import (
    BODY_DIM,
    OBJECT_DIM,
    RELATION_DIM,
    object_inputs,
    object_pairs,
    present_objects,
    pair_relations,
    split_state,
)
from imagine_tf.networks.gated_attention import GatedAttention, he_uniform_dense
from imagine_tf.reward.or_network import OrNetwork
from imagine_tf.reward.scan import RewardScanMixin
from imagine_tf.networks.sentence_encoder import SentenceEncoder

ARCHITECTURES = REWARD_ARCHITECTURES
OBJECT_INPUT_DIM = 2 * BODY_DIM + 2 * OBJECT_DIM  # 84
PAIR_INPUT_DIM = 2 * BODY_DIM + 4 * OBJECT_DIM  # 162


class RewardNetwork(RewardScanMixin, tf.keras.Model):
    """Language-conditioned goal-achievement classifier.

    Args:
      architecture: "ma", "fa", "fc" or "ma_pairs".
      words: the vocabulary (without padding), in token-id order.
      max_length: padded goal length L.
      num_objects: N.
      hidden_units: width of the hidden layer (100).
      embedding_units: LSTM width (100).
      aggregation: "or" (pretrained OR net), "or_unsorted" (the reference's, `OrNetwork`) or
        "max", for MA and MA-pairs.
      normalize_goal: the gates read the L2-normalised goal embedding (`GatedAttention`).
      pair_gate: MA-pairs' gate, "per_slot" (162 values), "shared" (84 values, the same for
        both objects of a pair) or "residual" (shared plus a second-slot term that starts at
        zero); MA, FA and FC accept only "per_slot".
      pair_relations: MA-pairs' input also holds the pair's relation features (4 values).
    """

    def __init__(
        self,
        architecture: str,
        words: Sequence[str],
        max_length: int,
        num_objects: int = 3,
        hidden_units: int = 100,
        embedding_units: int = 100,
        aggregation: str = "or",
        normalize_goal: bool = False,
        pair_gate: str = "per_slot",
        pair_relations: bool = False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if architecture not in ARCHITECTURES:
            raise ValueError(f"architecture must be one of {ARCHITECTURES}, got {architecture!r}.")
        if architecture == "ma_pairs" and num_objects < 2:
            raise ValueError(f"ma_pairs needs num_objects >= 2, got {num_objects}.")
        if pair_gate not in PAIR_GATES or (pair_gate != "per_slot" and architecture != "ma_pairs"):
            raise ValueError(
                f"pair_gate must be one of {PAIR_GATES} for ma_pairs and 'per_slot' for the "
                f"others; got {pair_gate!r} for {architecture!r}."
            )
        if pair_relations and architecture != "ma_pairs":
            raise ValueError(
                f"pair_relations is an input of MA-pairs' pair modules; {architecture!r} has "
                "no pairs. Use architecture='ma_pairs' or pair_relations=False."
            )
        self.pair_gate = pair_gate
        self.pair_relations = bool(pair_relations)
        self.architecture = architecture
        self.num_objects = int(num_objects)
        self.hidden_units = int(hidden_units)
        self.aggregation = aggregation
        self.normalize_goal = bool(normalize_goal)
        self.encoder = SentenceEncoder(words, max_length, embedding_units, name="sentence_encoder")
        state_dim = 2 * (BODY_DIM + OBJECT_DIM * self.num_objects)
        if architecture == "ma":
            self.attention = GatedAttention(OBJECT_INPUT_DIM, self.normalize_goal, name="attention")
        elif architecture == "ma_pairs":
            gate_dim = PAIR_INPUT_DIM if pair_gate == "per_slot" else OBJECT_INPUT_DIM
            gate_dim += RELATION_DIM if self.pair_relations else 0
            self.attention = GatedAttention(gate_dim, self.normalize_goal, name="attention")
            if pair_gate == "residual":
                self.second_slot_gate = tf.keras.layers.Dense(
                    OBJECT_DIM * 2, kernel_initializer="zeros", name="second_slot_gate"
                )
        elif architecture == "fa":
            self.attention = GatedAttention(state_dim, self.normalize_goal, name="attention")
        else:
            self.attention = None
        self.hidden = he_uniform_dense(self.hidden_units, "relu", name="hidden")
        self.readout = he_uniform_dense(1, name="readout")  # a logit; σ is applied after
        if architecture in ("ma", "ma_pairs"):
            self.or_network = OrNetwork(self.num_modules, aggregation, name="or_network")

    @property
    def num_modules(self) -> int:
        """How many Deep Sets modules the OR combines: N (MA), C(N, 2) (MA-pairs), 1 (flat)."""
        if self.architecture == "ma":
            return self.num_objects
        if self.architecture == "ma_pairs":
            return math.comb(self.num_objects, 2)
        return 1

    def _module_logit(self, inputs: tf.Tensor, goal_embedding: tf.Tensor) -> tf.Tensor:
        gated = self.attention((inputs, goal_embedding)) if self.attention else inputs
        return self.readout(self.hidden(gated))[..., 0]

    def _module(self, inputs: tf.Tensor, goal_embedding: tf.Tensor) -> tf.Tensor:
        return tf.sigmoid(self._module_logit(inputs, goal_embedding))

    def module_probabilities(self, inputs: dict) -> tf.Tensor:
        """Per-module probabilities before the OR: [B, N] (MA) or [B, C(N, 2)] (MA-pairs)."""
        state = tf.convert_to_tensor(inputs["state"], tf.float32)
        return self._module_probabilities(state, self.encoder(inputs["goal"]))

    def _module_probabilities(self, state: tf.Tensor, goal_embedding: tf.Tensor) -> tf.Tensor:
        if self.architecture == "ma":  # padded slots (no object) have probability 0
            inputs = object_inputs(state, self.num_objects)
            return self._module(inputs, goal_embedding) * present_objects(inputs)
        if self.architecture == "ma_pairs":
            attention = self._pair_attention(goal_embedding)
            return self._pair_probabilities(state, attention, per_goal=False)
        raise ValueError(f"{self.architecture!r} has no modules.")

    def _pair_attention(self, goal_embedding: tf.Tensor) -> tf.Tensor:
        """α [B, 162 (+4)] of goal embeddings [B, E]; the shared gate repeats its object part."""
        if self.pair_gate == "per_slot":
            return self.attention.attention_vector(goal_embedding)
        gate_input = self.attention.gate_input(goal_embedding)
        logits = self.attention.gate(gate_input)  # [B, 84 (+4)]
        body = logits[..., : 2 * BODY_DIM]
        obj, relation = logits[..., 2 * BODY_DIM : OBJECT_INPUT_DIM], logits[..., OBJECT_INPUT_DIM:]
        second = obj + self.second_slot_gate(gate_input) if self.pair_gate == "residual" else obj
        return tf.sigmoid(tf.concat([body, obj, second, relation], axis=-1))

    @property
    def pair_input_dim(self) -> int:
        """Width of a pair module's input: 162, or 166 with the relation features."""
        return PAIR_INPUT_DIM + (RELATION_DIM if self.pair_relations else 0)

    def _pair_probabilities(
        self, state: tf.Tensor, attention: tf.Tensor, per_goal: bool
    ) -> tf.Tensor:
        """max over both orders of σ(module(x_ij)): [B, P], or [S, G, P] if ``per_goal``.

        The first layer of a pair module is linear in its blocks: for x_ij = [body, obj_i,
        obj_j], (x_ij ⊙ α) W = (body ⊙ α_b) W_b + (obj_i ⊙ α_1) W_1 + (obj_j ⊙ α_2) W_2. Each
        object is projected once by W_1 and once by W_2, and the 2 C(N, 2) ordered pairs only
        add projections: 2 N · 78 · H multiply-adds per (state, goal) instead of
        2 C(N, 2) · 162 · H. The relation features (``pair_relations``) add (r_ij ⊙ α_r) W_r
        per ordered pair; r_ji is r_ij with its halves swapped. ``attention`` α is [B, 162 (+4)]
        (one goal per state) or, with ``per_goal``, [G, 162 (+4)] (every state with every goal,
        as `scan`).
        """
        if not self.hidden.built:
            self.hidden.build((None, self.pair_input_dim))
        body, objects = split_state(state, self.num_objects)  # [S, 6], [S, N, 78]
        blocks = (
            slice(0, 2 * BODY_DIM),
            slice(2 * BODY_DIM, OBJECT_INPUT_DIM),
            slice(OBJECT_INPUT_DIM, PAIR_INPUT_DIM),
            slice(PAIR_INPUT_DIM, None),
        )
        kernel = self.hidden.kernel  # [162 (+4), H]
        if per_goal:  # one gated kernel per goal, [G, 162 (+4), H]
            gated = attention[:, :, None] * kernel[None]

            def project(features, block, pattern):  # features [S, (N|P), f] -> [S, G, (N|P), H]
                return tf.einsum(pattern, features, gated[:, block])

            body_part = tf.einsum("sf,gfh->sgh", body, gated[:, blocks[0]])
            pattern = "snf,gfh->sgnh"
        else:

            def project(features, block, pattern):  # features [B, (N|P), f] -> [B, (N|P), H]
                return tf.einsum(pattern, features * attention[:, None, block], kernel[block])

            body_part = tf.matmul(body * attention[:, blocks[0]], kernel[blocks[0]])
            pattern = "bnf,fh->bnh"
        first, second = (project(objects, block, pattern) for block in blocks[1:3])
        i, j = (list(index) for index in zip(*object_pairs(self.num_objects)))
        body_part = body_part[..., None, :] + self.hidden.bias
        orders = [
            body_part + tf.gather(first, i, axis=-2) + tf.gather(second, j, axis=-2),
            body_part + tf.gather(first, j, axis=-2) + tf.gather(second, i, axis=-2),
        ]
        if self.pair_relations:
            relations = pair_relations(objects, i, j)  # r_ij [S, P, 4]; r_ji swaps the halves
            swapped = tf.concat([relations[..., 2:], relations[..., :2]], axis=-1)
            orders[0] += project(relations, blocks[3], pattern)
            orders[1] += project(swapped, blocks[3], pattern)
        probabilities = [tf.sigmoid(self.readout(tf.nn.relu(order))[..., 0]) for order in orders]
        return tf.maximum(*probabilities)

    def call(self, inputs: dict) -> tf.Tensor:
        state = tf.convert_to_tensor(inputs["state"], tf.float32)
        return self.head(state, self.encoder(inputs["goal"]))

    def head(self, state: tf.Tensor, goal_embedding: tf.Tensor) -> tf.Tensor:
        """P(achieved) [B] from states [B, D] and goal embeddings [B, embedding_units]."""
        if self.architecture in ("ma", "ma_pairs"):
            return self.or_network(self._module_probabilities(state, goal_embedding))
        return tf.sigmoid(self.head_logits(state, goal_embedding))

    def probability_and_modules(self, state: tf.Tensor, goal_embedding: tf.Tensor):
        """(P(achieved) [B], module probabilities [B, M]): the modules once, then the OR (MA,
        MA-pairs; M = N or C(N, 2)); FA and FC have one module, their probability (M = 1)."""
        if self.architecture in ("ma", "ma_pairs"):
            modules = self._module_probabilities(state, goal_embedding)
            return self.or_network(modules), modules
        probability = self.head(state, goal_embedding)
        return probability, probability[:, None]

    def head_logits(self, state: tf.Tensor, goal_embedding: tf.Tensor) -> tf.Tensor:
        """Logits [B] for the loss (see `OrNetwork.logits`); σ(logit) is `head` for FA / FC."""
        if self.architecture in ("ma", "ma_pairs"):
            return self.or_network.logits(self._module_probabilities(state, goal_embedding))
        if self.architecture == "fc":
            return self._module_logit(tf.concat([state, goal_embedding], axis=-1), goal_embedding)
        return self._module_logit(state, goal_embedding)  # fa

    def logits(self, inputs: dict) -> tf.Tensor:
        """Training logits [B] of ``{"state", "goal"}`` inputs."""
        state = tf.convert_to_tensor(inputs["state"], tf.float32)
        return self.head_logits(state, self.encoder(inputs["goal"]))

    def get_config(self) -> dict:
        return {
            "architecture": self.architecture,
            "words": self.encoder.words,
            "max_length": self.encoder.max_length,
            "num_objects": self.num_objects,
            "hidden_units": self.hidden_units,
            "embedding_units": self.encoder.units,
            "aggregation": self.aggregation,
            "normalize_goal": self.normalize_goal,
            "pair_gate": self.pair_gate,
            "pair_relations": self.pair_relations,
            "name": self.name,
        }

    @classmethod
    def from_config(cls, config: dict) -> "RewardNetwork":
        return cls(**config)

    def with_num_objects(self, num_objects: int) -> "RewardNetwork":
        """The same trained network for scenes of another N (MA and MA-pairs only).

        The shared modules keep their weights; only the OR net changes (to the one for the
        new number of modules: the packaged one, on sorted inputs, also for a network with the
        reference's "or_unsorted" net, which the authors trained for 3 objects only).

        Raises:
          ValueError: FA and FC, whose flat input size fixes N.
        """
        if self.architecture in ("fa", "fc"):
            raise ValueError(
                f"{self.architecture.upper()} reads the flat state, whose size 2 (3 + 39 N) fixes "
                f"N = {self.num_objects}; only MA and MA-pairs work for any N."
            )
        config = {**self.get_config(), "num_objects": num_objects}
        if self.aggregation == "or_unsorted":  # the reference's net exists for its own N only
            config["aggregation"] = "or"
        other = RewardNetwork.from_config(config)
        other(example_inputs(num_objects, self.encoder.max_length))
        layers = [
            (self.encoder, other.encoder),
            (self.attention, other.attention),
            (self.hidden, other.hidden),
            (self.readout, other.readout),
        ]
        if self.pair_gate == "residual":
            layers.append((self.second_slot_gate, other.second_slot_gate))
        for mine, theirs in layers:
            theirs.set_weights(mine.get_weights())
        return other


def example_inputs(num_objects: int, max_length: int, batch_size: int = 1) -> dict:
    """Zero inputs that build a network (state zeros, goal all padding)."""
    state_dim = 2 * (BODY_DIM + OBJECT_DIM * num_objects)
    return {
        "state": tf.zeros([batch_size, state_dim]),
        "goal": tf.zeros([batch_size, max_length], tf.int64),
    }
