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

from typing import NamedTuple, Sequence

import numpy as np
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

    def over_prefix_tree(self, tree: "PrefixTree") -> tf.Tensor:
        """Embeddings [G, units] of the goals of ``tree`` (`prefix_tree`), the same values as
        ``self(ids)``: the LSTM state after t words depends only on the sentence's first t
        words, so each distinct prefix is computed once and its state handed on to the prefixes
        that extend it. For the goal grammar, 80 goals have 2 distinct first words and about
        10 distinct two-word prefixes: the steps' rows fall from 4 G to about 2.2 G, the
        recurrent products' from 3 G to about 1.2 G (the reward's training steps)."""
        return self._lstm_steps(tree.words, tree.parents, tree.goal_rows)

    def _lstm_over_ids(self, ids: tf.Tensor) -> tf.Tensor:
        """The last output of ``self.lstm`` over the one-hot words of ids [B, L] (every row its
        own prefix: `_lstm_steps` without a tree)."""
        steps = ids.shape[1] or self.max_length
        return self._lstm_steps([ids[:, t] for t in range(steps)], [None] * steps, None)

    def _lstm_steps(self, words, parents, goal_rows) -> tf.Tensor:
        """The LSTM, computed directly from its cell's weights: a one-hot word times the input
        kernel is the kernel's row for that word (a gather instead of a [B L, V] product),
        padding is an all-zero input, and each step is a few fused ops (Keras' gate order i,
        f, c, o; its activations). Step t reads ``words[t]`` (ids [P_t]) and the state of row
        ``parents[t]`` [P_t] of step t − 1 (None: the same row); the output is the last step's
        rows ``goal_rows`` (None: all). Same weights, same values as
        ``self.lstm(self.one_hot(ids))``, with a third of the graph's ops: the reward model's
        training steps are small enough for the op count to set their time."""
        if not self.lstm.built:
            self.lstm.build(tf.TensorShape([None, self.max_length, self.vocabulary_size]))
        cell = self.lstm.cell
        h = c = None
        for ids, parent in zip(words, parents):
            known = (ids > 0) & (ids < self.vocabulary_size)  # else an all-zero input
            word_rows = tf.gather(cell.kernel, tf.where(known, ids, 0))
            z = word_rows * tf.cast(known, cell.kernel.dtype)[:, None] + cell.bias  # [P, 4 units]
            if h is not None:
                recurrent = tf.matmul(h, cell.recurrent_kernel)  # once per parent prefix
                if parent is not None:
                    recurrent, c = tf.gather(recurrent, parent), tf.gather(c, parent)
                z += recurrent
            i, f, candidate, o = tf.split(z, 4, axis=-1)
            gated = cell.recurrent_activation(i) * cell.activation(candidate)
            c = gated if c is None else cell.recurrent_activation(f) * c + gated
            h = cell.recurrent_activation(o) * cell.activation(c)
        return h if goal_rows is None else tf.gather(h, goal_rows)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(words=self.words, max_length=self.max_length, units=self.units)
        return config


class PrefixTree(NamedTuple):
    """Goals [G, L] as a tree of their distinct prefixes (`prefix_tree`): step t has P_t
    prefixes of t + 1 words, prefix p ending with word ``words[t][p]`` after prefix
    ``parents[t][p]`` of step t − 1; goal g is prefix ``goal_rows[g]`` of the last step.
    Tensors, int64 (a named tuple: `tf.function` takes it as an argument)."""

    words: tuple
    parents: tuple
    goal_rows: tf.Tensor


def prefix_tree(ids: np.ndarray) -> PrefixTree:
    """The `PrefixTree` of token ids int [G, L] (padding, 0, is a word like the others: the
    LSTM runs over it)."""
    ids = np.asarray(ids, np.int64)
    if ids.ndim != 2:
        raise ValueError(f"ids must be token ids [G, L], got shape {ids.shape}.")
    words, parents = [], []
    rows = np.zeros(len(ids), np.int64)  # each goal's prefix at the previous step
    for t in range(ids.shape[1]):
        distinct, rows = np.unique(np.stack([rows, ids[:, t]], 1), axis=0, return_inverse=True)
        rows = rows.reshape(-1)
        parents.append(tf.constant(distinct[:, 0]))
        words.append(tf.constant(distinct[:, 1]))
    return PrefixTree(tuple(words), tuple(parents), tf.constant(rows))
