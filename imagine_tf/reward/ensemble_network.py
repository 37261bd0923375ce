"""An ensemble of K trained reward networks as one network: the mean of their probabilities.

Not in the paper. Each member keeps its own sentence encoder; the ensemble's "goal embedding"
is the K member embeddings side by side, [B, K·E], so code written for one `RewardNetwork`
(the export's signatures, `score_matrix`) embeds each goal once and hands the rows to the
heads. For K = 1 it is its member, exactly.

* P(achieved) = (1/K) Σ_k p_k, for `head`, `call` and `scan`;
* module probabilities (MA: per object, MA-pairs: per pair) are the members' mean too: which
  object (pair) the ensemble as a whole credits.

Members must share the architecture, N and vocabulary (`RewardEnsemble` checks).
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf

from imagine_tf.reward.network import RewardNetwork


class EnsembleEncoder(tf.keras.layers.Layer):
    """Goals (strings [B] or token ids [B, L]) -> the members' embeddings side by side [B, K·E]."""

    def __init__(self, encoders: Sequence[tf.keras.layers.Layer], **kwargs):
        super().__init__(**kwargs)
        self.encoders = list(encoders)
        self.words, self.max_length = self.encoders[0].words, self.encoders[0].max_length
        self.units = sum(encoder.units for encoder in self.encoders)

    def call(self, goals, **kwargs) -> tf.Tensor:
        return tf.concat([encoder(goals, **kwargs) for encoder in self.encoders], axis=-1)


class RewardEnsemble(tf.keras.Model):
    """K trained `RewardNetwork`s that answer as one (see the module docstring).

    Args:
      members: the trained networks, one architecture, N and vocabulary.
    """

    def __init__(self, members: Sequence[RewardNetwork], **kwargs):
        super().__init__(**kwargs)
        if not members:
            raise ValueError("a RewardEnsemble needs at least one member network.")
        first = members[0]
        for index, member in enumerate(members[1:], start=1):
            mine = (member.architecture, member.num_objects, member.encoder.words)
            if mine != (first.architecture, first.num_objects, first.encoder.words):
                raise ValueError(
                    f"member {index} is a {member.architecture} network for N = "
                    f"{member.num_objects} with {len(member.encoder.words)} words; member 0 is a "
                    f"{first.architecture} for N = {first.num_objects} with "
                    f"{len(first.encoder.words)} words. Ensemble networks of one kind."
                )
        self.members = list(members)
        self.architecture, self.num_objects = first.architecture, first.num_objects
        # All members' hidden units: `score_matrix` sizes its state chunks by the hidden
        # activations one scan holds, and the members' scans run in one graph.
        self.hidden_units = sum(m.hidden_units for m in self.members)
        self.encoder = EnsembleEncoder([m.encoder for m in self.members], name="sentence_encoders")
        self._widths = [m.encoder.units for m in self.members]

    @property
    def num_modules(self) -> int:
        return self.members[0].num_modules

    def _member_embeddings(self, goal_embedding: tf.Tensor) -> list[tf.Tensor]:
        return tf.split(goal_embedding, self._widths, axis=-1)

    def _mean(self, outputs: list[tf.Tensor]) -> tf.Tensor:
        return tf.add_n(outputs) / float(len(outputs))

    def call(self, inputs: dict) -> tf.Tensor:
        state = tf.convert_to_tensor(inputs["state"], tf.float32)
        return self.head(state, self.encoder(inputs["goal"]))

    def head(self, state: tf.Tensor, goal_embedding: tf.Tensor) -> tf.Tensor:
        """P(achieved) [B]: the members' mean, from embeddings [B, K·E]."""
        return self._mean(
            [
                m.head(state, e)
                for m, e in zip(self.members, self._member_embeddings(goal_embedding))
            ]
        )

    def probability_and_modules(self, state: tf.Tensor, goal_embedding: tf.Tensor):
        """(P [B], module probabilities [B, M]), each the members' mean."""
        outputs = [
            m.probability_and_modules(state, e)
            for m, e in zip(self.members, self._member_embeddings(goal_embedding))
        ]
        return self._mean([p for p, _ in outputs]), self._mean([q for _, q in outputs])

    def scan(self, state: tf.Tensor, goal_embeddings: tf.Tensor, **kwargs) -> tf.Tensor:
        """P(achieved) [S, G] of every (state, goal) pair: the members' mean of `scan`."""
        return self._mean(
            [
                m.scan(state, e, **kwargs)
                for m, e in zip(self.members, self._member_embeddings(goal_embeddings))
            ]
        )

    def with_num_objects(self, num_objects: int) -> "RewardEnsemble":
        """The ensemble of the members' `RewardNetwork.with_num_objects`."""
        return RewardEnsemble([m.with_num_objects(num_objects) for m in self.members])
