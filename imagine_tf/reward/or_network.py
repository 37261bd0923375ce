"""NN^OR: a frozen, pretrained soft OR over n probabilities (Colas et al. 2020, IMAGINE; flowersteam/Imagine).

n → 16 tanh → 16 tanh → 1 sigmoid, then y ← 0.98·y + 0.01 (keeps the log-loss finite).

Deviation: the n inputs are **sorted** (largest first) before the net, and the net is
pretrained on sorted inputs. The reference's net is only approximately symmetric, so a
reward model built on it changes (by up to a few 0.01 here) when objects are listed in another
order; with sorting the OR, and so MA and MA-pairs, are exactly invariant to object
permutations, as Deep Sets promise. The function learned (max > 0.5) is the same. Its
weights are pretrained on synthetic data (`imagine_tf.reward.or_pretraining`, command
``imagine-tf reward pretrain-or``) and never trained with the reward model: they are
non-trainable weights of this layer. ``aggregation="max"`` replaces the net by max_i p_i (the
variant the TF1 RL code used); with a single input both return that input.

One net per n (there is no N-agnostic form: the first layer's width is n). Weight files
``or_<n>.npz`` are looked up in ``$IMAGINE_TF_OR_WEIGHTS`` (if set), then in the user cache
``~/.cache/imagine_tf/or_weights``, then in the weights shipped with the package (n = 2…10 and
the pair counts C(N, 2) for N ≤ 10: 15, 21, 28, 36, 45).
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import tensorflow as tf

from imagine_tf.atomic_files import replacing
from imagine_tf.constants import REWARD_AGGREGATIONS

#: "or": the net on the inputs sorted (this project's); "or_unsorted": the net on the inputs in
#: object order (the reference's, for its converted weights); "max": max_i p_i.
AGGREGATIONS = REWARD_AGGREGATIONS
HIDDEN = 16
PACKAGED_DIR = pathlib.Path(__file__).with_name("or_weights")
CACHE_DIR = pathlib.Path(os.path.expanduser("~")) / ".cache" / "imagine_tf" / "or_weights"
WEIGHT_NAMES = ("kernel_0", "bias_0", "kernel_1", "bias_1", "kernel_2", "bias_2")


def weight_dirs() -> list[pathlib.Path]:
    """Where OR weights are looked up, in order."""
    dirs = (
        [pathlib.Path(os.environ["IMAGINE_TF_OR_WEIGHTS"])]
        if "IMAGINE_TF_OR_WEIGHTS" in os.environ
        else []
    )
    return dirs + [CACHE_DIR, PACKAGED_DIR]


def weights_path(num_inputs: int, directory: pathlib.Path) -> pathlib.Path:
    return pathlib.Path(directory) / f"or_{num_inputs}.npz"


def load_or_weights(num_inputs: int) -> dict[str, np.ndarray]:
    """The pretrained weights for n inputs (kernel_0 [n, 16] ... bias_2 [1]).

    Raises:
      FileNotFoundError: no file for n, with the command that makes one.
    """
    for directory in weight_dirs():
        path = weights_path(num_inputs, directory)
        if path.exists():
            with np.load(path) as data:
                weights = {name: data[name] for name in WEIGHT_NAMES}
            if weights["kernel_0"].shape != (num_inputs, HIDDEN):
                raise ValueError(f"{path} holds weights for {weights['kernel_0'].shape[0]} inputs.")
            return weights
    raise FileNotFoundError(
        f"No pretrained OR network for {num_inputs} inputs in {[str(d) for d in weight_dirs()]}. "
        f"Make one with `imagine-tf reward pretrain-or --num-inputs {num_inputs}` "
        "(or use aggregation='max')."
    )


def save_or_weights(weights: dict[str, np.ndarray], directory: pathlib.Path) -> pathlib.Path:
    """Writes weights atomically to ``<directory>/or_<n>.npz``; returns the path."""
    num_inputs = weights["kernel_0"].shape[0]
    path = weights_path(num_inputs, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as temporary:  # tmp.or_<n>.npz: np.savez keeps the name
        np.savez(
            temporary, **{name: np.asarray(weights[name], np.float32) for name in WEIGHT_NAMES}
        )
    return path


def or_logits(probabilities: tf.Tensor, weights: list, sort: bool = True) -> tf.Tensor:
    """The OR net before its output sigmoid: probabilities [B, n] -> logits [B].

    The inputs are sorted (largest first) before the net, so the output does not depend on
    their order: exactly symmetric, as a Deep Sets aggregator must be. ``sort=False``: in the
    order given (the reference's net, for its converted weights).
    """
    kernel_0, bias_0, kernel_1, bias_1, kernel_2, bias_2 = weights
    ordered = tf.sort(probabilities, axis=-1, direction="DESCENDING") if sort else probabilities
    hidden = tf.tanh(tf.matmul(ordered, kernel_0) + bias_0)
    hidden = tf.tanh(tf.matmul(hidden, kernel_1) + bias_1)
    return (tf.matmul(hidden, kernel_2) + bias_2)[..., 0]


def or_forward(probabilities: tf.Tensor, weights: list, sort: bool = True) -> tf.Tensor:
    """The OR net's function: probabilities [B, n] -> [B] in (0.01, 0.99)."""
    return 0.98 * tf.sigmoid(or_logits(probabilities, weights, sort)) + 0.01


def probability_logits(probabilities: tf.Tensor) -> tf.Tensor:
    """log(p / (1 - p)), with p kept inside [1e-7, 1 - 1e-7]."""
    p = tf.clip_by_value(probabilities, 1e-7, 1 - 1e-7)
    return tf.math.log(p) - tf.math.log1p(-p)


class OrNetwork(tf.keras.layers.Layer):
    """Soft OR of n probabilities: [B, n] -> [B], frozen.

    Args:
      num_inputs: n.
      aggregation: "or" (the pretrained net on the sorted inputs), "or_unsorted" (the net on
        the inputs in the order given, as the reference's: for its converted weights, which
        replace the packaged ones) or "max".
    """

    def __init__(self, num_inputs: int, aggregation: str = "or", **kwargs):
        super().__init__(**kwargs)
        if aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {aggregation!r}.")
        if num_inputs < 1:
            raise ValueError(f"num_inputs must be >= 1, got {num_inputs!r}.")
        self.num_inputs = int(num_inputs)
        self.aggregation = aggregation
        self.trainable = False

    @property
    def uses_net(self) -> bool:
        return self.aggregation != "max" and self.num_inputs > 1

    def build(self, input_shape):
        if self.uses_net:
            pretrained = load_or_weights(self.num_inputs)
            self._weights = [
                self.add_weight(
                    name=name,
                    shape=pretrained[name].shape,
                    initializer=tf.keras.initializers.Constant(pretrained[name]),
                    trainable=False,
                )
                for name in WEIGHT_NAMES
            ]
        super().build(input_shape)

    def assign_net(self, weights: dict[str, np.ndarray]) -> None:
        """Replaces the net's weights ({name of `WEIGHT_NAMES`: array}, e.g. converted ones)."""
        if not self.uses_net:
            raise ValueError(f"OrNetwork({self.num_inputs}, {self.aggregation!r}) has no net.")
        if not self.built:
            self.build(tf.TensorShape([None, self.num_inputs]))
        for name, variable in zip(WEIGHT_NAMES, self._weights, strict=True):
            variable.assign(np.asarray(weights[name], np.float32))

    def call(self, probabilities: tf.Tensor) -> tf.Tensor:
        """The soft OR, [B, n] -> [B]."""
        self._check(probabilities)
        if self.num_inputs == 1:
            return probabilities[..., 0]
        if self.aggregation == "max":
            return tf.reduce_max(probabilities, axis=-1)
        return or_forward(probabilities, self._weights, self.aggregation == "or")

    def logits(self, probabilities: tf.Tensor) -> tf.Tensor:
        """What the loss should see, [B, n] -> [B]: the OR net's pre-sigmoid output.

        Training a reward model through the rescaled output 0.98·σ(z) + 0.01 stalls: once every
        module says "no", σ(z) sits near 0 and the gradient of the log-loss vanishes with it
        (measured: an MA model stuck at R = 0.01). The log-loss computed from z has the gradient
        σ(z) − y, which does not vanish. For "max" and n = 1, the logit of the probability.
        """
        if not self.built:
            self.build(probabilities.shape)
        self._check(probabilities)
        if self.uses_net:
            return or_logits(probabilities, self._weights, self.aggregation == "or")
        return probability_logits(tf.reduce_max(probabilities, axis=-1))

    def _check(self, probabilities: tf.Tensor) -> None:
        if probabilities.shape[-1] != self.num_inputs:
            raise ValueError(
                f"OrNetwork({self.num_inputs}) got {probabilities.shape[-1]} inputs; build one per n."
            )

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(num_inputs=self.num_inputs, aggregation=self.aggregation)
        return config
