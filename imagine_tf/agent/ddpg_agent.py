"""DDPG as the reference trains it, on `tf_agents.agents.DdpgAgent` (Colas et al. 2020; Karch, Colas et al. 2020; flowersteam/Imagine).

What differs from TF-Agents' defaults, and why:

* critic loss: mean squared TD error (not Huber); the target y = r + γ Q′(s′, π′(s′)) is clipped
  to [−1 / (1 − γ), 0] = [−50, 0] (rewards are in {−1, 0}), and bootstraps at every step (the
  Playground's episodes end by truncation, discount 1);
* actor loss: −mean Q(s, π(s)) + λ mean(π(s)²) with λ = 1.0 (TF-Agents has no action penalty and
  uses the dQ/da surrogate);
* targets: polyak 0.95 applied once per cycle of 50 updates (τ = 0.05, period 50);
* Adam 1e-3 for both; γ = 0.98;
* collect policy: Gaussian noise σ = 0.2 then 30 % uniformly random actions
  (`GaussianEpsilonPolicy`), not OU noise.

`train` runs as one `tf.function` (TF-Agents' ``enable_functions``). `set_goal_encoder` copies
the reward model's sentence encoder into the actor, the critic and their targets (frozen there).
"""

from __future__ import annotations

import tensorflow as tf
from tf_agents.agents.ddpg import ddpg_agent
from tf_agents.networks import network
from tf_agents.policies import actor_policy
from tf_agents.utils import common

from imagine_tf.networks.adam_step import apply_gradients
from imagine_tf.agent.exploration_policy import GaussianEpsilonPolicy


class ImagineDdpgAgent(ddpg_agent.DdpgAgent):
    """DDPG with the reference's losses, target schedule and exploration.

    Args:
      time_step_spec, action_spec: the environment's specs (TF).
      actor_network, critic_network: `ActorNetwork` / `CriticNetwork` (or any TF-Agents pair).
      actor_learning_rate, critic_learning_rate: Adam's (1e-3 each).
      gamma: discount (0.98).
      polyak: target ← polyak · target + (1 − polyak) · main (0.95).
      target_update_period: updates between target updates (50 = once per cycle).
      action_l2: λ of the action penalty (1.0).
      noise_stddev, random_action_probability: exploration (0.2, 0.3).
      clip_targets: clip TD targets to [−1 / (1 − γ), 0].
      seed: seed of the exploration noise.
    """

    def __init__(
        self,
        time_step_spec,
        action_spec,
        actor_network,
        critic_network,
        actor_learning_rate: float = 1e-3,
        critic_learning_rate: float = 1e-3,
        gamma: float = 0.98,
        polyak: float = 0.95,
        target_update_period: int = 50,
        action_l2: float = 1.0,
        noise_stddev: float = 0.2,
        random_action_probability: float = 0.3,
        clip_targets: bool = True,
        seed: int | None = None,
        train_step_counter: tf.Variable | None = None,
        name: str | None = None,
    ):
        super().__init__(
            time_step_spec,
            action_spec,
            actor_network,
            critic_network,
            actor_optimizer=tf.keras.optimizers.Adam(actor_learning_rate),
            critic_optimizer=tf.keras.optimizers.Adam(critic_learning_rate),
            target_update_tau=1.0 - polyak,
            target_update_period=target_update_period,
            td_errors_loss_fn=common.element_wise_squared_loss,
            gamma=gamma,
            # Its own counter, not TF's global step (shared by every agent of the process).
            train_step_counter=train_step_counter
            or tf.Variable(0, dtype=tf.int64, name="train_step"),
            name=name,
        )
        self._action_l2 = float(action_l2)
        self._target_bounds = (-1.0 / (1.0 - gamma), 0.0) if clip_targets else None
        unclipped = actor_policy.ActorPolicy(
            time_step_spec, action_spec, self._actor_network, clip=False
        )
        self._collect_policy = GaussianEpsilonPolicy(
            unclipped, noise_stddev, random_action_probability, seed
        )

    @property
    def actor_network(self) -> network.Network:
        """The actor π (the network the agent trains; read-only)."""
        return self._actor_network

    @property
    def critic_network(self) -> network.Network:
        """The critic Q (the network the agent trains; read-only)."""
        return self._critic_network

    @property
    def target_actor_network(self) -> network.Network:
        """π′, the actor's target copy (moved by polyak averaging; read-only)."""
        return self._target_actor_network

    @property
    def target_critic_network(self) -> network.Network:
        """Q′, the critic's target copy (moved by polyak averaging; read-only)."""
        return self._target_critic_network

    @property
    def actor_optimizer(self) -> tf.keras.optimizers.Optimizer:
        return self._actor_optimizer

    @property
    def critic_optimizer(self) -> tf.keras.optimizers.Optimizer:
        return self._critic_optimizer

    def set_goal_encoder(self, encoder) -> None:
        """Copies a sentence encoder's weights into the actor, critic and both targets."""
        for goal_network in (
            self._actor_network,
            self._critic_network,
            self._target_actor_network,
            self._target_critic_network,
        ):
            goal_network.set_encoder_weights(encoder)

    def _apply_gradients(self, gradients, variables, optimizer):
        """Adam's step by `adam_step.apply_gradients` (Keras's numbers to the bit, fewer ops);
        with gradient clipping or gradient summaries, TF-Agents' own path."""
        if optimizer is None or self._gradient_clipping or self._summarize_grads_and_vars:
            return super()._apply_gradients(gradients, variables, optimizer)
        return apply_gradients(optimizer, gradients, variables)

    def td_targets(self, next_time_steps) -> tf.Tensor:
        """y = r + γ d Q′(s′, π′(s′)), clipped to [−1 / (1 − γ), 0]; [B]."""
        target_actions, _ = self._target_actor_network(next_time_steps.observation, training=False)
        target_q_values, _ = self._target_critic_network(
            (next_time_steps.observation, target_actions), training=False
        )
        targets = next_time_steps.reward + self._gamma * next_time_steps.discount * target_q_values
        if self._target_bounds is not None:
            targets = tf.clip_by_value(targets, *self._target_bounds)
        return tf.stop_gradient(targets)

    def critic_loss(self, time_steps, actions, next_time_steps, weights=None, training=False):
        with tf.name_scope("critic_loss"):
            q_values, _ = self._critic_network((time_steps.observation, actions), training=training)
            loss = self._td_errors_loss_fn(self.td_targets(next_time_steps), q_values)
            if weights is not None:
                loss *= weights
            loss = tf.reduce_mean(loss)
            tf.compat.v2.summary.scalar("Losses/critic_loss", loss, step=self.train_step_counter)
            return loss

    def actor_loss(self, time_steps, weights=None, training=False):
        with tf.name_scope("actor_loss"):
            actions, _ = self._actor_network(time_steps.observation, training=training)
            q_values, _ = self._critic_network((time_steps.observation, actions), training=False)
            if weights is not None:
                q_values *= weights
            loss = -tf.reduce_mean(q_values) + self._action_l2 * tf.reduce_mean(tf.square(actions))
            tf.compat.v2.summary.scalar("Losses/actor_loss", loss, step=self.train_step_counter)
            return loss
