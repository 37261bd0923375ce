"""The trained policy as a versioned SavedModel: TF-Agents' `PolicySaver` plus an ``act`` signature.

`export_policy` writes ``<model_base_path>/<version>/`` (atomically, like the reward model). The
policy reads the environment's own observation: it is an `ActorPolicy` (clipped to the action
spec) over a `GoalTokenActorNetwork`, whose goal-embedding cache holds every goal of the
grammar (train and test goals; with the relational words, the two-object goals too). A goal
outside the cache goes through the actor's frozen sentence encoder inside the model. Signatures:

* PolicySaver's ``action``: inputs ``0/step_type`` int32 [B], ``0/reward`` float32 [B],
  ``0/discount`` float32 [B], ``0/observation/state`` float32 [B, D] (D = 2 (3 + 39 N)),
  ``0/observation/goal`` int32 [B, L] (token ids of `imagine_tf.language.vocabulary.Vocabulary`,
  0 = padding) -> ``action`` float32 [B, 3] in [−1, 1]: exactly `PlaygroundEnv`'s time steps.
* ``get_initial_state``, ``get_train_step`` (the agent's train step if given, else −1) and
  ``get_metadata``: int64 scalars ``num_objects`` (N), ``max_goal_words`` (L),
  ``vocabulary_size`` (V, with padding) and ``cached_goals`` (goals in the cache).
* ``act``: ``goals`` string [B], ``states`` float32 [B, D] -> ``action`` float32 [B, 3], the
  same noise-free action; the goal sentences are tokenized inside the model (unknown words
  fail with `InvalidArgumentError`), no step type, reward or discount to make up.

Driving a batched `PlaygroundEnv` with TF-Agents' stock classes::

    policy = py_tf_eager_policy.SavedModelPyTFEagerPolicy(
        path, env.time_step_spec(), env.action_spec(), batch_time_steps=False)
    py_driver.PyDriver(env, policy, observers, max_steps=...).run(env.reset())

(``batch_time_steps=False``: the environment's time steps already have their batch dimension.)

The ``act`` signature is added to the saver's signature map (``PolicySaver._signatures``, a
private attribute of tf-agents 0.19.0, pinned): PolicySaver has no public way to add a
signature next to ``action``. Loading with ``tf.saved_model.load`` needs
``tensorflow_probability`` imported first (the policy's TypeSpecs; `tf_agents` imports it):
`serving/` does it.
"""

from __future__ import annotations

import os
import pathlib

import tensorflow as tf
from tf_agents.policies import actor_policy, policy_saver
from tf_agents.specs import tensor_spec
from tf_agents.trajectories import time_step as ts

from imagine_tf.export.versions import claim_version
from imagine_tf.export.saving import without_keras_layer_traces
from imagine_tf.language import grammar
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.agent.actor_network import ActorNetwork
from imagine_tf.networks.goal_conditioned_network import num_objects_of
from imagine_tf.agent.goal_token_actor import GoalTokenActorNetwork


def grammar_goals(vocabulary: Vocabulary) -> list[str]:
    """The grammar's train and test goals, with the two-object ones if ``vocabulary`` has their
    words and length."""
    goals = list(grammar.train_goals()) + list(grammar.test_goals())
    relational = list(grammar.train_goals(relational=True))
    relational += list(grammar.test_goals(relational=True))
    if all(
        len(g.split()) <= vocabulary.max_length and all(w in vocabulary for w in g.split())
        for g in relational
    ):
        goals += relational
    return goals


def environment_policy(
    actor_network: ActorNetwork, vocabulary: Vocabulary | None = None
) -> actor_policy.ActorPolicy:
    """The greedy policy on the environment's observation, every grammar goal cached.

    Args:
      actor_network: the trained actor, built with a float goal-embedding spec [E] (shared).
      vocabulary: the environment's tokenizer; default `Vocabulary.default()`. It must be the
        actor's encoder's (same words, same L).

    Returns:
      ``ActorPolicy(time_step_spec({"state": [D], "goal": int32 [L]}), action_spec,
      GoalTokenActorNetwork(actor_network, ...), clip=True)``.

    Raises:
      ValueError: the vocabulary is not the actor's encoder's, or the actor reads token ids.
    """
    vocabulary = vocabulary or Vocabulary.default()
    encoder = actor_network.encoder
    if list(vocabulary.words[1:]) != list(encoder.words) or (
        vocabulary.max_length != encoder.max_length
    ):
        raise ValueError(
            f"The vocabulary ({len(vocabulary)} ids, max_length {vocabulary.max_length}) is not "
            f"the actor's encoder's ({encoder.vocabulary_size} ids, max_length "
            f"{encoder.max_length}): pass the vocabulary the actor was trained with."
        )
    state_spec = actor_network.input_tensor_spec["state"]
    observation_spec = {
        "state": tf.TensorSpec(state_spec.shape, tf.float32, "state"),
        "goal": tensor_spec.BoundedTensorSpec(
            [vocabulary.max_length], tf.int32, 0, len(vocabulary) - 1, "goal"
        ),
    }
    goals = grammar_goals(vocabulary)
    network = GoalTokenActorNetwork(actor_network, observation_spec, cache_capacity=len(goals))
    tokens = tf.constant(vocabulary.encode(goals))
    network.set_goal_embeddings(tokens, actor_network.goal_embedding(tokens))
    return actor_policy.ActorPolicy(
        ts.time_step_spec(observation_spec),
        actor_network.action_spec,
        network,
        clip=True,
    )


def _act_function(
    policy: actor_policy.ActorPolicy, encoder, state_dim: int
) -> tf.types.experimental.GenericFunction:
    """The ``act`` signature: goals string [B] and states float32 [B, D] -> {"action": [B, A]}
    (the greedy action of ``policy``; B must agree)."""

    @tf.function(
        input_signature=[
            tf.TensorSpec([None], tf.string, name="goals"),
            tf.TensorSpec([None, state_dim], tf.float32, name="states"),
        ]
    )
    def act(goals, states):
        batch = tf.shape(states)[0]
        same_batch = tf.debugging.Assert(
            tf.equal(tf.shape(goals)[0], batch),
            ["goals and states must have the same batch size; got", tf.shape(goals)[0], batch],
        )
        with tf.control_dependencies([same_batch]):
            tokens = tf.cast(encoder.tokenize(goals), tf.int32)
        time_step = ts.TimeStep(
            step_type=tf.fill([batch], ts.StepType.MID),
            reward=tf.zeros([batch]),
            discount=tf.ones([batch]),
            observation={"state": states, "goal": tokens},
        )
        return {"action": policy.action(time_step).action}

    return act


def _metadata_variables(actor_network: ActorNetwork, vocabulary: Vocabulary) -> dict:
    """The int64 scalars saved with the policy: objects, goal words, vocabulary, cached goals."""
    return {
        name: tf.Variable(value, dtype=tf.int64, trainable=False, name=name)
        for name, value in (
            ("num_objects", num_objects_of(actor_network.input_tensor_spec["state"])),
            ("max_goal_words", vocabulary.max_length),
            ("vocabulary_size", len(vocabulary)),
            ("cached_goals", len(grammar_goals(vocabulary))),
        )
    }


def export_policy(
    actor_network: ActorNetwork,
    model_base_path: str | os.PathLike,
    version: int | None = None,
    vocabulary: Vocabulary | None = None,
    train_step: tf.Variable | None = None,
) -> pathlib.Path:
    """Writes the greedy policy of ``actor_network`` with the signatures of the module docstring.

    Args:
      actor_network: the trained actor (float goal-embedding spec, as training builds it).
      model_base_path: writes ``<model_base_path>/<version>/``.
      version: default: the next integer.
      vocabulary: the environment's tokenizer; default `Vocabulary.default()`.
      train_step: the agent's train step counter (an int64 variable), for ``get_train_step``.

    Returns:
      The version's directory.

    Raises:
      ValueError: the version exists, or see `environment_policy`.
    """
    vocabulary = vocabulary or Vocabulary.default()
    policy = environment_policy(actor_network, vocabulary)
    final, temporary = claim_version(model_base_path, version)
    encoder = actor_network.encoder
    state_dim = int(actor_network.input_tensor_spec["state"].shape[-1])

    act = _act_function(policy, encoder, state_dim)
    metadata = _metadata_variables(actor_network, vocabulary)
    saver = policy_saver.PolicySaver(
        policy, batch_size=None, train_step=train_step, metadata=metadata
    )
    # Tracks act's variables and the encoder (its vocabulary table) in the saved policy ...
    saver.register_concrete_function("act_function", act, assets=encoder)
    # ... and serves it as a signature next to PolicySaver's.
    saver._signatures["act"] = act.get_concrete_function()  # noqa: SLF001 - see the docstring
    with without_keras_layer_traces():
        saver.save(str(temporary))
    os.replace(temporary, final)
    return final
