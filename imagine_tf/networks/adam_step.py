"""Adam's step (Kingma & Ba 2015) on a `tf.keras.optimizers.Adam`'s own variables, in fewer graph
ops than `apply_gradients` builds.

Keras's `apply_gradients` routes each variable through the distribution machinery and its
`update_step`, which recomputes the step's scalars (learning rate, t, β₁ᵗ, β₂ᵗ, α) for every
variable. `apply_adam` computes them once and takes, for each variable, `update_step`'s dense
or sparse branch op for op, so the numbers are the same to the bit
(tests/networks/adam_step_test.py), and the slots and the checkpoint are the optimizer's:

    t = iterations + 1,  α = lr √(1 − β₂ᵗ) / (1 − β₁ᵗ)
    m ← m + (g − m)(1 − β₁),  v ← v + (g² − v)(1 − β₂),  θ ← θ − α m / (√v + ε)

Only a plain Adam on float32 variables qualifies (`takes_exactly`); `apply_gradients` leaves
anything else to Keras.
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf


def takes_exactly(optimizer, gradients: Sequence, variables: Sequence[tf.Variable]) -> bool:
    """Whether `apply_adam` takes ``optimizer``'s step on these exactly: a plain Adam (constant
    learning rate; no AMSGrad, weight decay, clipping or moving average) whose slots are built,
    float32 variables without constraints, a gradient for each."""
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
        and variable.constraint is None
        and isinstance(gradient, (tf.Tensor, tf.IndexedSlices))
        and optimizer._var_key(variable) in built
        for gradient, variable in zip(gradients, variables, strict=True)
    )


def apply_gradients(optimizer, gradients: Sequence, variables: Sequence[tf.Variable]):
    """``optimizer``'s step: by `apply_adam` where it `takes_exactly`, else by Keras. An Adam's
    slots are built first, as Keras's `apply_gradients` builds them (once, out of the graph)."""
    gradients, variables = list(gradients), list(variables)
    if isinstance(optimizer, tf.keras.optimizers.Adam):
        with tf.init_scope():
            optimizer.build(variables)
    if takes_exactly(optimizer, gradients, variables):
        return apply_adam(optimizer, gradients, variables)
    return optimizer.apply_gradients(zip(gradients, variables))


def apply_adam(optimizer, gradients: Sequence, variables: Sequence[tf.Variable]):
    """One Adam step of ``variables`` along ``gradients`` (dense, or `tf.IndexedSlices` summed
    over repeated rows as Keras sums them) with ``optimizer``'s slots, which `optimizer.build`
    made, where `takes_exactly`; counts it in ``optimizer.iterations``."""
    dtype = tf.float32
    learning_rate = tf.cast(optimizer.learning_rate, dtype)
    step = tf.cast(optimizer.iterations + 1, dtype)
    beta_1_power = tf.pow(tf.cast(optimizer.beta_1, dtype), step)
    beta_2_power = tf.pow(tf.cast(optimizer.beta_2, dtype), step)
    alpha = learning_rate * tf.sqrt(1 - beta_2_power) / (1 - beta_1_power)
    gradients = optimizer._deduplicate_sparse_grad(gradients)
    for gradient, variable in zip(gradients, variables, strict=True):
        index = optimizer._index_dict[optimizer._var_key(variable)]  # Keras's own slot lookup
        m, v = optimizer._momentums[index], optimizer._velocities[index]
        if isinstance(gradient, tf.IndexedSlices):  # Keras's sparse branch
            m.assign_add(-m * (1 - optimizer.beta_1))
            m.scatter_add(
                tf.IndexedSlices(gradient.values * (1 - optimizer.beta_1), gradient.indices)
            )
            v.assign_add(-v * (1 - optimizer.beta_2))
            v.scatter_add(
                tf.IndexedSlices(
                    tf.square(gradient.values) * (1 - optimizer.beta_2), gradient.indices
                )
            )
        else:
            m.assign_add((gradient - m) * (1 - optimizer.beta_1))
            v.assign_add((tf.square(gradient) - v) * (1 - optimizer.beta_2))
        variable.assign_sub((m * alpha) / (tf.sqrt(v) + optimizer.epsilon))
    return optimizer.iterations.assign_add(1)
