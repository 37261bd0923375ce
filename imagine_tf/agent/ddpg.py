"""DDPG as the reference trains it: the networks, their targets and optimizers, one update (Lillicrap et al. 2016; Colas et al. 2020; Karch, Colas et al. 2020; flowersteam/Imagine).

The update (`Ddpg.update`) reads top to bottom, as CleanRL's ``ddpg_continuous_action.py``:
critic loss, critic step, actor loss with its action penalty, actor step, Polyak. What differs
from TF-Agents' `DdpgAgent` defaults, and why:

* critic loss: mean squared TD error (not Huber) against targets y that the caller computes
  with `td_targets`: y = r + γ Q′(s′, π′(s′)) clipped to [−1 / (1 − γ), 0] = [−50, 0] (rewards
  are in {−1, 0}), bootstrapping at every step (the Playground's episodes end by truncation);
  the target networks do not change between two Polyak moves, so a cycle's targets can be
  computed in one pass before its steps (`agent/update_cycle.py`);
* actor loss: −mean Q(s, π(s)) + λ mean(π(s)²), λ = 1.0 (TF-Agents has no action penalty and
  uses the dQ/da surrogate); the actor's loss reads the critic after its step, as TF-Agents';
* targets: θ′ ← polyak · θ′ + (1 − polyak) · θ with polyak 0.95 after every
  ``target_update_period`` = 50 updates (once per cycle of 50); the frozen sentence encoder's
  weights (not trainable) are copied;
* Adam 1e-3 for both (`networks/adam.py`: Keras's formula, one fused op per variable); γ = 0.98.

The collect policy (`GaussianEpsilonPolicy`, the reference's exploration: a = π(s, g) +
N(0, σ²), σ = 0.2 times the action half-range; then, per scene and step, with probability
ε = 0.3 a uniform draw from the action bounds; not clipped, as in the reference: the environment
clips what it executes and the replay stores the action as drawn) wraps the actor's policy (the
builder makes it); `set_goal_encoder` copies the reward model's sentence
encoder into the actor, the critic and their targets (frozen there).
"""

from __future__ import annotations

import tensorflow as tf
from tf_agents.networks import network
from tf_agents.policies import tf_policy
from tf_agents.trajectories import policy_step

from imagine_tf.networks.adam import Adam


class Ddpg(tf.Module):
    """The actor π, the critic Q, their targets π′, Q′ and their two Adam optimizers.

    Args:
      actor_network, critic_network: `ActorNetwork` / `CriticNetwork` (built).
      actor_learning_rate, critic_learning_rate: Adam's (1e-3 each).
      gamma: discount γ (0.98).
      polyak: θ′ ← polyak · θ′ + (1 − polyak) · θ (0.95).
      target_update_period: updates between two Polyak moves (50 = once per cycle).
      action_l2: λ of the action penalty (1.0).
      clip_targets: clip TD targets to [−1 / (1 − γ), 0].
      reduce_gradients: applied to each step's gradients before Adam (None: as they are;
        `data_parallel.GradientAllReduce`: summed over data-parallel workers).
    """

    def __init__(
        self,
        actor_network: network.Network,
        critic_network: network.Network,
        actor_learning_rate: float = 1e-3,
        critic_learning_rate: float = 1e-3,
        gamma: float = 0.98,
        polyak: float = 0.95,
        target_update_period: int = 50,
        action_l2: float = 1.0,
        clip_targets: bool = True,
        reduce_gradients=None,
        name: str = "ddpg",
    ):
        super().__init__(name=name)
        if not 0.0 <= polyak <= 1.0:
            raise ValueError(f"polyak must be in [0, 1], got {polyak}.")
        if target_update_period < 1:
            raise ValueError(f"target_update_period must be >= 1, got {target_update_period}.")
        self.actor_network, self.critic_network = actor_network, critic_network
        self.target_actor_network = _target_copy(actor_network, "TargetActorNetwork")
        self.target_critic_network = _target_copy(critic_network, "TargetCriticNetwork")
        self.actor_optimizer = Adam(actor_learning_rate, name="actor_adam")
        self.critic_optimizer = Adam(critic_learning_rate, name="critic_adam")
        self.actor_optimizer.build(actor_network.trainable_variables)
        self.critic_optimizer.build(critic_network.trainable_variables)
        self.train_step_counter = tf.Variable(0, dtype=tf.int64, name="train_step")
        self.gamma, self.polyak, self.action_l2 = float(gamma), float(polyak), float(action_l2)
        self.target_update_period = int(target_update_period)
        self.target_bounds = (-1.0 / (1.0 - gamma), 0.0) if clip_targets else None
        self.reduce_gradients = reduce_gradients or (lambda gradients: gradients)

    def td_targets(self, next_observation: dict, rewards: tf.Tensor) -> tf.Tensor:
        """y = r + γ Q′(s′, π′(s′)), clipped to [−1 / (1 − γ), 0]: float32 [B] from
        ``next_observation`` {"state" [B, D], "goal" [B, E]} and rewards [B] (any B: a whole
        cycle's transitions at once)."""
        target_actions, _ = self.target_actor_network(next_observation, training=False)
        target_q, _ = self.target_critic_network((next_observation, target_actions))
        targets = rewards + self.gamma * target_q
        if self.target_bounds is not None:
            targets = tf.clip_by_value(targets, *self.target_bounds)
        return tf.stop_gradient(targets)

    def update(self, observation: dict, actions: tf.Tensor, targets: tf.Tensor) -> tf.Tensor:
        """One DDPG update on B transitions: observation {"state" [B, D], "goal" [B, E]},
        actions a [B, A], TD targets y [B] (`td_targets`). Returns the loss L_Q + L_π (float32
        []). Its three parts, in this order:

            L_Q = mean (y − Q(s, a))²               `critic_step`
            L_π = −mean Q(s, π(s)) + λ mean π(s)²    `actor_step` (through the updated critic)
            θ′ ← polyak θ′ + (1 − polyak) θ          `count_update`, after every
                                                     `target_update_period` updates

        A cycle runs the same parts with the critic step of update i + 1 beside the actor step
        of update i (`agent/update_cycle.py`): the one reads the critic the other writes next,
        so they run at once on two cores, with the same numbers.
        """
        critic_loss = self.critic_step(observation, actions, targets)
        actor_loss = self.actor_step(observation)
        self.count_update()
        return critic_loss + actor_loss

    def critic_step(self, observation: dict, actions: tf.Tensor, targets: tf.Tensor) -> tf.Tensor:
        """Adam's step on L_Q = mean (y − Q(s, a))²; returns L_Q."""
        critic_variables = self.critic_network.trainable_variables
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(critic_variables)
            q_values, _ = self.critic_network((observation, actions), training=True)
            critic_loss = tf.reduce_mean(tf.square(targets - q_values))
        gradients = self.reduce_gradients(tape.gradient(critic_loss, critic_variables))
        self.critic_optimizer.apply(gradients, critic_variables)
        return critic_loss

    def actor_step(self, observation: dict) -> tf.Tensor:
        """Adam's step on L_π = −mean Q(s, π(s)) + λ mean π(s)² (the critic as it is now);
        returns L_π."""
        actor_variables = self.actor_network.trainable_variables
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(actor_variables)
            policy_actions, _ = self.actor_network(observation, training=True)
            policy_q, _ = self.critic_network((observation, policy_actions), training=False)
            penalty = self.action_l2 * tf.reduce_mean(tf.square(policy_actions))
            actor_loss = -tf.reduce_mean(policy_q) + penalty
        gradients = self.reduce_gradients(tape.gradient(actor_loss, actor_variables))
        self.actor_optimizer.apply(gradients, actor_variables)
        return actor_loss

    def count_update(self) -> None:
        """Counts an update; Polyak's move after every `target_update_period` of them."""
        step = self.train_step_counter.assign_add(1)
        with tf.control_dependencies([step]):
            tf.cond(step % self.target_update_period == 0, self.update_targets, tf.no_op)

    def update_targets(self) -> tf.Operation:
        """θ′ ← polyak θ′ + (1 − polyak) θ for the trainable weights of π′ and Q′; the others
        (the frozen encoder) copied."""
        tau = 1.0 - self.polyak
        moves = []
        for main, target in (
            (self.actor_network, self.target_actor_network),
            (self.critic_network, self.target_critic_network),
        ):
            trained = {id(v) for v in main.trainable_variables}  # not the frozen encoder
            for source, variable in zip(main.variables, target.variables, strict=True):
                if id(source) in trained and tau != 1.0:
                    moves.append(variable.assign((1 - tau) * variable + tau * source))
                else:
                    moves.append(variable.assign(source))
        return tf.group(*moves)

    def set_goal_encoder(self, encoder) -> None:
        """Copies a sentence encoder's weights into the actor, critic and both targets."""
        for goal_network in (
            self.actor_network,
            self.critic_network,
            self.target_actor_network,
            self.target_critic_network,
        ):
            goal_network.set_encoder_weights(encoder)


def _target_copy(source: network.Network, name: str) -> network.Network:
    """A target network: ``source``'s copy (`Network.copy`) holding its weights."""
    target = source.copy(name=name)
    target.create_variables(source.input_tensor_spec)
    if source.encoder.built and not target.encoder.built:
        target.encoder(tf.zeros([1, source.encoder.max_length], tf.int64))
    for variable, value in zip(target.variables, source.variables, strict=True):
        variable.assign(value)
    return target


class GaussianEpsilonPolicy(tf_policy.TFPolicy):
    """Wraps a deterministic policy with Gaussian noise and ε-uniform random actions.

    Args:
      wrapped_policy: the deterministic `TFPolicy` (e.g. DDPG's actor policy, unclipped).
      noise_stddev: σ, relative to the action half-range (0.2).
      random_action_probability: ε (0.3).
      seed: seed of the noise.
    """

    def __init__(
        self,
        wrapped_policy: tf_policy.TFPolicy,
        noise_stddev: float = 0.2,
        random_action_probability: float = 0.3,
        seed: int | None = None,
        name: str | None = None,
    ):
        super().__init__(
            wrapped_policy.time_step_spec,
            wrapped_policy.action_spec,
            wrapped_policy.policy_state_spec,
            wrapped_policy.info_spec,
            clip=False,
            name=name,
        )
        self._wrapped_policy = wrapped_policy
        self._noise_stddev = float(noise_stddev)
        self._random_action_probability = float(random_action_probability)
        self._generator = (
            tf.random.Generator.from_seed(seed)
            if seed is not None
            else tf.random.Generator.from_non_deterministic_state()
        )

    def _variables(self):
        return self._wrapped_policy.variables()

    def _action(self, time_step, policy_state, seed):
        del seed  # the policy's own generator makes the draws (checkpointable)
        step = self._wrapped_policy.action(time_step, policy_state)
        spec = self.action_spec
        low, high = tf.constant(spec.minimum, tf.float32), tf.constant(spec.maximum, tf.float32)
        actions = tf.cast(step.action, tf.float32)
        shape = tf.shape(actions)
        noisy = actions + self._generator.normal(shape) * self._noise_stddev * (high - low) / 2
        uniform = low + (high - low) * self._generator.uniform(shape)
        replace = self._generator.uniform(shape[:1]) < self._random_action_probability  # per scene
        actions = tf.where(replace[:, None], uniform, noisy)
        return policy_step.PolicyStep(tf.cast(actions, spec.dtype), step.state, step.info)

    def _distribution(self, time_step, policy_state):
        raise NotImplementedError("GaussianEpsilonPolicy is an exploration policy: use action().")
