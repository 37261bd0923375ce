"""Adam (Kingma & Ba 2015) as one fused op per variable, with its state in the open.

Keras's `Adam.apply_gradients` builds about ten graph ops per variable (the step's scalars
recomputed for each, the distribution machinery, the moment updates one by one). In the DDPG
update and the reward model's steps, whose networks have 10–20 small variables, those ops cost
as much as the products. `Adam.apply` computes the step's scalars once and updates each
variable with TensorFlow's fused kernel (`tf.raw_ops.ResourceApplyAdam`):

    t ← t + 1,  α = lr √(1 − β₂ᵗ) / (1 − β₁ᵗ)
    m ← m + (g − m)(1 − β₁),  v ← v + (g² − v)(1 − β₂),  θ ← θ − α m / (√v + ε)

the formula of Keras's Adam (``tf.keras.optimizers.Adam``, no AMSGrad, ε = 1e-7), equal to it
within float rounding (`tests/networks/adam_test.py`). The moments are this module's
variables (``m``, ``v``, one per trained variable, made by `build`); a `tf.train.Checkpoint`
of the module saves and restores them with the step count ``iterations``.
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf


class Adam(tf.Module):
    """Adam over a fixed list of float32 variables.

    Args:
      learning_rate: lr (1e-3).
      beta_1, beta_2, epsilon: β₁, β₂, ε (0.9, 0.999, 1e-7: Keras's defaults).
    """

    def __init__(
        self,
        learning_rate: float = 1e-3,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        name: str = "adam",
    ):
        super().__init__(name=name)
        if learning_rate <= 0:
            raise ValueError(f"learning_rate must be > 0, got {learning_rate}.")
        self.learning_rate, self.beta_1, self.beta_2 = learning_rate, beta_1, beta_2
        self.epsilon = epsilon
        self.iterations = tf.Variable(0, dtype=tf.int64, trainable=False, name="iterations")
        self.m: list[tf.Variable] = []
        self.v: list[tf.Variable] = []
        self._variables: list[tf.Variable] = []

    def build(self, variables: Sequence[tf.Variable]) -> None:
        """Makes the moments m, v (zeros) of ``variables``, the list every `apply` takes."""
        if self._variables:
            raise ValueError("This Adam is built already: one optimizer per variable list.")
        for variable in variables:
            if variable.dtype != tf.float32:
                raise TypeError(
                    f"Adam trains float32 variables, got {variable.name}: {variable.dtype}."
                )
            name = variable.name.split(":")[0].replace("/", "_")
            self.m.append(tf.Variable(tf.zeros_like(variable), trainable=False, name=f"m_{name}"))
            self.v.append(tf.Variable(tf.zeros_like(variable), trainable=False, name=f"v_{name}"))
        self._variables = list(variables)

    def apply(self, gradients: Sequence[tf.Tensor], variables: Sequence[tf.Variable]) -> tf.Tensor:
        """One step of `build`'s ``variables`` (in its order) along dense ``gradients``;
        returns the new step count t."""
        if len(variables) != len(self._variables) or any(
            a is not b for a, b in zip(variables, self._variables)
        ):
            raise ValueError(
                f"Adam.apply takes the {len(self._variables)} variables it was built for, in "
                f"their order; got {len(variables)} others."
            )
        step = tf.cast(self.iterations + 1, tf.float32)
        beta_1_power = tf.pow(tf.constant(self.beta_1, tf.float32), step)
        beta_2_power = tf.pow(tf.constant(self.beta_2, tf.float32), step)
        updates = [
            tf.raw_ops.ResourceApplyAdam(
                var=variable.handle,
                m=m.handle,
                v=v.handle,
                beta1_power=beta_1_power,
                beta2_power=beta_2_power,
                lr=tf.constant(self.learning_rate, tf.float32),
                beta1=tf.constant(self.beta_1, tf.float32),
                beta2=tf.constant(self.beta_2, tf.float32),
                epsilon=tf.constant(self.epsilon, tf.float32),
                grad=tf.convert_to_tensor(gradient),
            )
            for gradient, variable, m, v in zip(gradients, variables, self.m, self.v, strict=True)
        ]
        with tf.control_dependencies(updates):
            return self.iterations.assign_add(1)
