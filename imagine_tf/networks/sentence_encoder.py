"""The language model: goal sentence -> 100-d embedding with an LSTM (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

`SentenceEncoder` tokenizes **in the graph** from plain strings (lower-case, split on spaces,
a fixed vocabulary stored in the layer's config), so an exported model takes goal strings. It
also accepts token ids (int [B, L], 0 = padding) as produced by
`imagine_tf.language.vocabulary.Vocabulary`, with the same word order.

As in the reference, words are one-hot vectors fed straight into the LSTM (no embedding
layer: the LSTM's input kernel is the embedding), padding is all-zero vectors appended at the
end, and the embedding is the LSTM output at the last padded position (it runs over the
padding). Keras' LSTM has one bias vector, like the TF1 BasicLSTMCell of [T]: 60,800
parameters for 51 input columns and 100 units (PyTorch's two biases give 61,200).

Unknown words: an error, not an OOV index. A goal with a word outside the vocabulary, or longer
than `max_length` words, fails with `InvalidArgumentError` whose message names the offending
words and lists the vocabulary — in eager mode, in `tf.function` and in a SavedModel alike.
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf

PAD = "<pad>"


class SentenceEncoder(tf.keras.layers.Layer):
    """Goal sentences (strings [B] or token ids [B, L]) -> embeddings [B, units].

    Args:
      words: the vocabulary without padding, in id order (id = position + 1).
      max_length: L, the padded sentence length (4 for the one-object goals).
      units: LSTM width (100 in the paper).
    """

    def __init__(self, words: Sequence[str], max_length: int, units: int = 100, **kwargs):
        super().__init__(**kwargs)
        self.words = [str(w) for w in words]
        if not self.words or len(set(self.words)) != len(self.words):
            raise ValueError(f"words must be non-empty and distinct, got {len(self.words)} words.")
        if PAD in self.words:
            raise ValueError(f"{PAD!r} is implicit (id 0); remove it from words.")
        self.max_length = int(max_length)
        self.units = int(units)
        self.vocabulary_size = len(self.words) + 1  # one-hot width, column 0 never hot
        self._table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant(self.words), tf.range(1, self.vocabulary_size, dtype=tf.int64)
            ),
            default_value=-1,
        )
        self._words_tensor = tf.constant(self.words)
        # Holds the LSTM's weights (and their checkpoint names); `_lstm_over_ids` runs it.
        self.lstm = tf.keras.layers.LSTM(self.units, name="lstm")

    def tokenize(self, sentences: tf.Tensor) -> tf.Tensor:
        """Token ids int64 [B, L] of string sentences [B] (0 = padding)."""
        sentences = tf.convert_to_tensor(sentences, dtype=tf.string)
        split = tf.strings.split(tf.strings.lower(sentences))
        ids = self._table.lookup(split)
        unknown = tf.boolean_mask(split.flat_values, ids.flat_values < 0)
        assert_known = tf.debugging.Assert(
            tf.size(unknown) == 0,
            [
                "Goals contain words outside the vocabulary:",
                unknown,
                "Known words:",
                self._words_tensor,
            ],
            summarize=100,
        )
        lengths = split.row_lengths()
        too_long = tf.boolean_mask(sentences, lengths > self.max_length)
        assert_short = tf.debugging.Assert(
            tf.size(too_long) == 0,
            [f"Goals longer than {self.max_length} words:", too_long],
            summarize=10,
        )
        assert_words = tf.debugging.Assert(
            tf.reduce_all(lengths > 0),
            [
                "Goals must have at least one word; empty goals at positions:",
                tf.where(lengths == 0)[:, 0],
            ],
        )
        with tf.control_dependencies([assert_known, assert_short, assert_words]):
            return tf.identity(ids.to_tensor(0, shape=[None, self.max_length]))

    def one_hot(self, goals: tf.Tensor) -> tf.Tensor:
        """LSTM inputs float32 [B, L, V]: one-hot words, all-zero rows for padding."""
        goals = tf.convert_to_tensor(goals)
        ids = self.tokenize(goals) if goals.dtype == tf.string else tf.cast(goals, tf.int64)
        return tf.one_hot(tf.where(ids > 0, ids, -1), self.vocabulary_size)  # -1 -> zeros

    def call(self, goals: tf.Tensor) -> tf.Tensor:
        """Embeddings [B, units] of goal strings [B] or token ids [B, L]."""
        goals = tf.convert_to_tensor(goals)
        ids = self.tokenize(goals) if goals.dtype == tf.string else tf.cast(goals, tf.int64)
        return self._lstm_over_ids(ids)

    def _lstm_over_ids(self, ids: tf.Tensor) -> tf.Tensor:
        """The last output of ``self.lstm`` over the one-hot words of ids [B, L], computed
        directly from its cell's weights: a one-hot word times the input kernel is the
        kernel's row for that word (a gather instead of a [B L, V] product), padding is an
        all-zero input, and the L steps are a few fused ops each (Keras' gate order i, f, c,
        o; its activations). Same weights, same values as ``self.lstm(self.one_hot(ids))``,
        with a third of the graph's ops: the reward model's training steps are small enough
        for the op count to set their time."""
        if not self.lstm.built:
            self.lstm.build(tf.TensorShape([None, self.max_length, self.vocabulary_size]))
        cell = self.lstm.cell
        words = (ids > 0) & (ids < self.vocabulary_size)  # else an all-zero input, as one_hot's
        safe_ids, word_weights = tf.where(words, ids, 0), tf.cast(words, cell.kernel.dtype)
        h = c = None
        for t in range(ids.shape[1] or self.max_length):
            word_rows = tf.gather(cell.kernel, safe_ids[:, t]) * word_weights[:, t, None]
            z = word_rows + cell.bias  # [B, 4 units]
            if h is not None:
                z += tf.matmul(h, cell.recurrent_kernel)
            i, f, candidate, o = tf.split(z, 4, axis=-1)
            gated = cell.recurrent_activation(i) * cell.activation(candidate)
            c = gated if c is None else cell.recurrent_activation(f) * c + gated
            h = cell.recurrent_activation(o) * cell.activation(c)
        return h

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(words=self.words, max_length=self.max_length, units=self.units)
        return config
