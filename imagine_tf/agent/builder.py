"""`RunBuilder`: makes a run's parts from its `TrainConfig` and the environment's specs.

The Acme split (config / builder / networks / learning / acting): the learner and the actors
ask the builder for what they need, so a learner and an actor in different processes, built
from the same config, have networks of the same shapes, in the same variable order.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import tensorflow as tf
from tf_agents.policies import actor_policy
from tf_agents.specs import tensor_spec

from imagine_tf.agent.replay import EpisodeReplay
from imagine_tf.agent.ddpg import Ddpg, GaussianEpsilonPolicy
from imagine_tf.agent.relabelling import HerRelabeler, LearnedRewardScorer, OracleScorer
from imagine_tf.env.config import PlaygroundConfig, world_config
from imagine_tf.env.observation import observation_dim, step_dim
from imagine_tf.env.playground_env import PlaygroundEnv
from imagine_tf.language.goal_source import GoalCatalog
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.language.social_partner import SocialPartner
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.agent.actor_network import ActorNetwork
from imagine_tf.agent.critic_network import CriticNetwork
from imagine_tf.agent.goal_token_actor import GoalTokenActorNetwork
from imagine_tf.networks.precision import AUTO, has_native_bfloat16, resolve_compute_dtype
from imagine_tf.reward.network import RewardNetwork
from imagine_tf.reward.scan import BFLOAT16_SCAN_ARCHITECTURES
from imagine_tf.reward.co_learning import CoLearnedReward
from imagine_tf.reward.memory import RewardMemory
from imagine_tf.agent.config import TrainConfig

EMBEDDING_UNITS = 100


class RunBuilder:
    """Networks, agent, reward model, replay, relabeller, environments and policies of a run.

    Args:
      config: the run's configuration.
    """

    def __init__(self, config: TrainConfig):
        if config.compute_dtype == AUTO:  # a run resolves it first (`run_precision`)
            config = dataclasses.replace(config, compute_dtype=resolve_compute_dtype(AUTO))
        if config.compute_dtype == "bfloat16" and not has_native_bfloat16():
            warnings.warn(
                "TrainConfig.compute_dtype = 'bfloat16' on a machine without native bfloat16 "
                "(no GPU, no avx512_bf16 / amx_bf16 CPU flag): it is emulated, slower than "
                "float32. Use compute_dtype = 'float32' here.",
                stacklevel=2,
            )
        self.config = config
        self.vocabulary = Vocabulary.default()
        self.partner = SocialPartner()
        self.state_dim = observation_dim(config.num_objects)
        self.action_spec = tensor_spec.BoundedTensorSpec([3], tf.float32, -1.0, 1.0, "action")
        #: What the actor and critic read in training: the state and the goal's *embedding*.
        self.embedding_observation_spec = {
            "state": tf.TensorSpec([self.state_dim], tf.float32, "state"),
            "goal": tf.TensorSpec([EMBEDDING_UNITS], tf.float32, "goal"),
        }

    @property
    def num_partner_goals(self) -> int:
        """The columns of the partner's description matrices (the most goals to discover)."""
        return len(self.partner.goals)

    @property
    def max_goals(self) -> int:
        """The most goals a run can know (id-indexed tables): the partner's, plus room for
        ``max_imagined_goals`` imagined ones (with or without imagination, so that a run can
        be forked with imagination turned on)."""
        return self.num_partner_goals + self.config.max_imagined_goals

    # -- environments and policies (actors, evaluation) -----------------------------------------
    def make_env(
        self,
        batch_size: int,
        seed: int,
        split: str = "train",
        num_objects: int | None = None,
        world: str = "default",
    ) -> PlaygroundEnv:
        """A batched Playground of ``batch_size`` scenes in ``world`` (`WORLDS`); goals
        sampled from ``split``."""
        return PlaygroundEnv(
            GoalCatalog(split, vocabulary=self.vocabulary),
            world_config(world, num_objects=num_objects or self.config.num_objects),
            batch_size=batch_size,
            seed=seed,
        )

    def make_policies(self, actor_network: ActorNetwork, env: PlaygroundEnv, seed: int):
        """(exploring, greedy) TF policies on the environment's own observation (goal tokens).

        Both act with ``actor_network``'s weights (shared, not copied) through a
        `GoalTokenActorNetwork`, whose per-goal embedding cache the caller fills. Exploring:
        Gaussian noise then ε-random actions, unclipped (the environment clips); greedy: clipped.
        """
        token_network = GoalTokenActorNetwork(
            actor_network, tensor_spec.from_spec(env.observation_spec())
        )
        time_step_spec = tensor_spec.from_spec(env.time_step_spec())
        unclipped = actor_policy.ActorPolicy(
            time_step_spec, self.action_spec, token_network, clip=False
        )
        exploring = GaussianEpsilonPolicy(
            unclipped, self.config.noise_stddev, self.config.random_action_probability, seed
        )
        greedy = actor_policy.ActorPolicy(
            time_step_spec, self.action_spec, token_network, clip=True
        )
        return token_network, exploring, greedy

    # -- networks and agent --------------------------------------------------------------------
    def make_actor_network(self, num_objects: int | None = None) -> ActorNetwork:
        """π(s, g) on goal embeddings, built (its frozen encoder is built by the first
        `set_encoder_weights`, after the agent copies the actor into its target)."""
        spec = self.embedding_observation_spec
        if num_objects is not None:
            spec = {**spec, "state": tf.TensorSpec([observation_dim(num_objects)], tf.float32)}
        network = ActorNetwork(spec, self.action_spec, **self._network_settings())
        network.create_variables()
        return network

    def _network_settings(self) -> dict:
        """What the actor and the critic share: architecture, vocabulary, widths, precision."""
        config = self.config
        return dict(
            architecture=config.architecture,
            words=self.vocabulary.words[1:],
            max_length=self.vocabulary.max_length,
            hidden_units=config.hidden_units,
            final_layer_init=config.final_layer_init,
            compute_dtype=config.compute_dtype,
        )

    def make_ddpg(self, actor_network: ActorNetwork | None = None) -> Ddpg:
        """DDPG's actor, critic, their targets and optimizers (`Ddpg`)."""
        config, spec = self.config, self.embedding_observation_spec
        critic = CriticNetwork((spec, self.action_spec), **self._network_settings())
        critic.create_variables()
        return Ddpg(
            actor_network or self.make_actor_network(),
            critic,
            actor_learning_rate=config.actor_learning_rate,
            critic_learning_rate=config.critic_learning_rate,
            gamma=config.gamma,
            polyak=config.polyak,
            target_update_period=config.target_update_period,
            action_l2=config.action_l2,
            clip_targets=config.clip_targets,
        )

    def make_reward_network(self) -> RewardNetwork:
        """The reward network of ``config.reward_model``, built."""
        model = self.config.reward_model
        network = RewardNetwork(
            model.architecture,
            self.vocabulary.words[1:],
            self.vocabulary.max_length,
            self.config.num_objects,
            hidden_units=model.hidden_units,
            normalize_goal=model.normalize_goal,
            aggregation=model.aggregation,
            pair_gate=model.pair_gate,
            pair_relations=model.pair_relations,
        )
        network({"state": tf.zeros([1, self.state_dim]), "goal": tf.zeros([1, 4], tf.int64)})
        return network

    def make_reward_learner(self, reward_network: RewardNetwork) -> CoLearnedReward:
        return CoLearnedReward(reward_network, self.config.reward_model, seed=self.config.seed)

    # -- the learner's memories ------------------------------------------------------------------
    def make_replay(self) -> EpisodeReplay:
        config = self.config
        return EpisodeReplay(
            config.replay_capacity,
            PlaygroundConfig().episode_length,
            step_dim(config.num_objects),
            embedding_dim=EMBEDDING_UNITS,
            max_goals=self.max_goals,
            seed=config.seed,
        )

    def make_memory(self) -> RewardMemory:
        config = self.config
        return RewardMemory(config.memory_capacity, self.state_dim, self.max_goals)

    def make_relabeler(self, reward_network: RewardNetwork) -> HerRelabeler:
        """Hindsight relabelling scored by the learned reward (or the oracle, ``reward="oracle"``:
        its goal table is refreshed on discovery, `HerRelabeler.scorer.goal_table`)."""
        config = self.config
        if config.reward == "oracle":
            scorer = OracleScorer(GoalTable.from_sentences(["Go left"], lenient=True))
        else:  # MA-pairs and FC rewards scan in float32 (`RewardNetwork.scan`)
            bfloat16_scan = config.reward_model.architecture in BFLOAT16_SCAN_ARCHITECTURES
            scorer = LearnedRewardScorer(
                reward_network, compute_dtype=config.compute_dtype if bfloat16_scan else "float32"
            )
        return HerRelabeler(
            scorer,
            seed=config.seed,
            final_goal_ratio=config.final_goal_ratio,
            imagined_share=config.imagined_candidate_share,
        )

    def goal_tokens(self, sentences) -> np.ndarray:
        """int32 [G, L] token ids of goal sentences."""
        return self.vocabulary.encode(list(sentences))

    # -- the learner ----------------------------------------------------------------------------
    def make_learner(self):
        """The run's `Learner`, handed the parts `build_parts` makes from the config."""
        from imagine_tf.agent.learner_parts import build_parts
        from imagine_tf.agent.learning import Learner

        return Learner(self.config, build_parts(self), self)
