"""Adam's step (Kingma & Ba 2015) on a `tf.keras.optimizers.Adam`'s own variables, in fewer graph
ops than `apply_gradients` builds.

Keras's `apply_gradients` routes each variable through the distribution machinery and its
`update_step`, which recomputes the step's scalars (learning rate, t, β₁ᵗ, β₂ᵗ, α) for every
variable. `apply_adam` computes them once and takes, for each variable, the dense branch of
`update_step` op for op, so the numbers are the same to the bit
(tests/agent/adam_step_test.py), the slots and the checkpoint are the optimizer's, and a DDPG
update traces and runs faster:

    t = iterations + 1,  α = lr √(1 − β₂ᵗ) / (1 − β₁ᵗ)
    m ← m + (g − m)(1 − β₁),  v ← v + (g² − v)(1 − β₂),  θ ← θ − α m / (√v + ε)

Only a plain Adam on dense float32 steps qualifies (`takes_exactly`); for anything else the
caller uses `apply_gradients`.
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf


def takes_exactly(optimizer, gradients: Sequence, variables: Sequence[tf.Variable]) -> bool:
    """Whether `apply_adam` takes ``optimizer``'s step on these exactly: a plain Adam (constant
    learning rate; no AMSGrad, weight decay, clipping or moving average) whose slots are built,
    dense float32."""
    plain = (
        type(optimizer) is tf.keras.optimizers.Adam
        and not isinstance(
            optimizer._learning_rate, tf.keras.optimizers.schedules.LearningRateSchedule
        )
        and not optimizer.amsgrad
        and optimizer.weight_decay is None
        and optimizer.clipnorm is None
        and optimizer.clipvalue is None
        and optimizer.global_clipnorm is None
        and not optimizer.use_ema
        and not optimizer.jit_compile
    )
    built = getattr(optimizer, "_index_dict", {})  # slots made (Keras builds them otherwise)
    return plain and all(
        variable.dtype == tf.float32
        and isinstance(gradient, tf.Tensor)
        and optimizer._var_key(variable) in built
        for gradient, variable in zip(gradients, variables, strict=True)
    )


def apply_adam(optimizer, gradients: Sequence[tf.Tensor], variables: Sequence[tf.Variable]):
    """One Adam step of ``variables`` along ``gradients`` with ``optimizer``'s slots (which
    `optimizer.build` made), where `takes_exactly`; counts it in ``optimizer.iterations``."""
    dtype = tf.float32
    learning_rate = tf.cast(optimizer.learning_rate, dtype)
    step = tf.cast(optimizer.iterations + 1, dtype)
    beta_1_power = tf.pow(tf.cast(optimizer.beta_1, dtype), step)
    beta_2_power = tf.pow(tf.cast(optimizer.beta_2, dtype), step)
    alpha = learning_rate * tf.sqrt(1 - beta_2_power) / (1 - beta_1_power)
    for gradient, variable in zip(gradients, variables, strict=True):
        index = optimizer._index_dict[optimizer._var_key(variable)]  # Keras's own slot lookup
        m, v = optimizer._momentums[index], optimizer._velocities[index]
        m.assign_add((gradient - m) * (1 - optimizer.beta_1))
        v.assign_add((tf.square(gradient) - v) * (1 - optimizer.beta_2))
        variable.assign_sub((m * alpha) / (tf.sqrt(v) + optimizer.epsilon))
    return optimizer.iterations.assign_add(1)
