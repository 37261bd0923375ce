"""The IMAGINE co-training loop, read top to bottom (REFERENCE_FACTS §5.3, §6.2–6.5, §7).

Per epoch, ``cycles_per_epoch`` (50) cycles, each:

1. targets: uniform among the discovered goals (the placeholder before any discovery: a
   random N(0, 1) embedding);
2. collect ``episodes_per_cycle`` (12 = the reference's 6 workers × 2) episodes in one batched
   environment, exploring (noise-free with probability 0.1: "exploit" cycles);
3. the social partner describes the final states; new training goals are discovered;
4. the final states go to the reward memory, the episodes to the replay;
5. from epoch 1 on, ``updates_per_cycle`` (50) DDPG updates, each on ``batch_size`` (256)
   transitions relabelled over 50 candidate goals by the learned (or oracle) reward, in one
   `tf.function` (`run_updates`); the targets move once per cycle (polyak 0.95, period 50).

Then, every ``reward_update_every`` (2) epochs starting at epoch 0, the reward model is updated
from its memory, the goal-embedding table recomputed and the encoder copied into the actor and
critic; then the noise-free policy is evaluated on every training and test goal once (oracle
on s_T) and the epoch is logged (TensorBoard, ``progress.jsonl``, progress bar) and
checkpointed.

The reference's 6 MPI workers summed their gradients: an effective batch of 6 × 256 = 1,536.
This loop is one process; its default batch is 256 (the per-worker batch), configurable.

Goal conditioning: the replay stores each episode's goal embedding at collection time; relabelled
goals use the current table (as the reference). The policy networks read embeddings.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import shutil
import time
import warnings
from typing import Sequence

import gin
import numpy as np
import tensorflow as tf
from tf_agents.policies import actor_policy
from tf_agents.specs import tensor_spec
from tf_agents.trajectories import policy_step, time_step as ts, trajectory

from imagine_tf.agents.ddpg_agent import ImagineDdpgAgent
from imagine_tf.agents.episode_replay import EpisodeReplay, decode_rng_state, encode_rng_state
from imagine_tf.agents.goal_sampler import DiscoveredGoals
from imagine_tf.agents.her_relabeler import HerRelabeler, LearnedRewardScorer, OracleScorer
from imagine_tf.env.config import PlaygroundConfig
from imagine_tf.env.observation import observation_dim, step_dim
from imagine_tf.env.playground_env import PlaygroundEnv
from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_source import GoalCatalog
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.language.social_partner import SocialPartner
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.networks.actor_network import ActorNetwork
from imagine_tf.networks.critic_network import CriticNetwork
from imagine_tf.networks.precision import has_native_bfloat16
from imagine_tf.networks.reward_network import BFLOAT16_SCAN_ARCHITECTURES, RewardNetwork
from imagine_tf.reward.co_learning import CoLearnedReward, CoLearningConfig
from imagine_tf.reward.reward_memory import RewardMemory
from imagine_tf.training.atomic_files import write_text_atomically
from imagine_tf.training.collection import EpisodeCollector
from imagine_tf.training.failure_modes import GROW_LOG_KEYS, grow_outcome_shares
from imagine_tf.training.replay_checkpoint import ReplayCheckpoint
from imagine_tf.training.run_lock import RunConfigMismatch, RunLock

EMBEDDING_UNITS = 100
# The gin a run was last started with: `train` with no gin flags reuses it.
RUN_GIN_FILE = "config.gin"


@gin.configurable
@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """What a run does (defaults: the reference's, REFERENCE_FACTS §6)."""

    architecture: str = "ma"  # policy: ma | fa | fc
    reward_architecture: str = "ma"
    reward: str = "learned"  # learned | oracle (relabelling rewards)
    num_objects: int = 3
    episodes_per_cycle: int = 12
    cycles_per_epoch: int = 50
    updates_per_cycle: int = 50
    batch_size: int = 256
    num_candidates: int = 50
    exploit_probability: float = 0.1
    reward_update_every: int = 2
    reward_batches_per_epoch: int = 200
    reward_max_epochs: int = 100
    reward_patience: int = 15
    # The reward model's gates read the L2-normalised goal embedding (not in the paper; see
    # `GatedAttention`): in the supervised studies it left the early F1 plateau sooner.
    reward_normalize_goal: bool = False
    # Actor / critic output layers: "small_uniform" (DDPG paper, TF-Agents) or "he_uniform"
    # (the reference; its untrained actor drives the hand into one wall), see `final_dense`.
    final_layer_init: str = "small_uniform"
    # Actor / critic hidden layers and the relabelling scan (MA / FA reward): "float32", or
    # "bfloat16" mixed precision (float32 weights, ≈ 1.75× faster products on AVX512_BF16
    # CPUs), see `DeepSetsTrunk` and `RewardNetwork.scan`.
    compute_dtype: str = "float32"
    # Share of each batch that keeps the goal its episode was drawn for by goal-biased sampling
    # (HER's "final" strategy; not in the reference, which uses 0), see `HerRelabeler`.
    final_goal_ratio: float = 0.0
    replay_capacity: int = 50_000  # episodes
    memory_capacity: int = 50_000  # final states
    seed: int = 0


class ImagineTrainer:
    """One co-training run in ``root_dir``: resumes from its last checkpoint if there is one.

    Args:
      config: the run's configuration.
      root_dir: checkpoints, TensorBoard summaries, ``progress.jsonl``, ``config.json``.
    """

    def __init__(self, config: TrainConfig, root_dir: str | os.PathLike):
        if config.reward not in ("learned", "oracle"):
            raise ValueError(f"reward must be 'learned' or 'oracle', got {config.reward!r}.")
        if config.compute_dtype == "bfloat16" and not has_native_bfloat16():
            warnings.warn(
                "TrainConfig.compute_dtype = 'bfloat16' on a machine without native bfloat16 "
                "(no GPU, no avx512_bf16 / amx_bf16 CPU flag): it is emulated, slower than "
                "float32. Use compute_dtype = 'float32' here.",
                stacklevel=2,
            )
        self.config, self.root_dir = config, pathlib.Path(root_dir)
        tf.keras.utils.set_random_seed(config.seed)
        self.rng = np.random.default_rng(config.seed)
        self.vocabulary = Vocabulary.default()
        self.partner = SocialPartner()
        self.goals = DiscoveredGoals(self.partner.goals)
        num_goals = len(self.partner.goals)
        self.env = PlaygroundEnv(GoalCatalog("train", vocabulary=self.vocabulary),
                                 PlaygroundConfig(num_objects=config.num_objects),
                                 batch_size=config.episodes_per_cycle, seed=config.seed)  # fmt: skip
        state_dim = observation_dim(config.num_objects)
        self.replay = EpisodeReplay(config.replay_capacity, self.env.config.episode_length,
                                    step_dim(config.num_objects), embedding_dim=EMBEDDING_UNITS,
                                    max_goals=num_goals, seed=config.seed)  # fmt: skip
        self.memory = RewardMemory(config.memory_capacity, state_dim, num_goals, seed=config.seed)
        self.reward_network = RewardNetwork(config.reward_architecture, self.vocabulary.words[1:],
                                            self.vocabulary.max_length, config.num_objects,
                                            normalize_goal=config.reward_normalize_goal)  # fmt: skip
        self.reward_network({"state": tf.zeros([1, state_dim]), "goal": tf.zeros([1, 4], tf.int64)})
        self.reward_learner = CoLearnedReward(self.reward_network, CoLearningConfig(
            batches_per_epoch=config.reward_batches_per_epoch, max_epochs=config.reward_max_epochs,
            patience=config.reward_patience))  # fmt: skip
        self.embedding_table = tf.Variable(tf.zeros([num_goals, EMBEDDING_UNITS]), trainable=False)
        self.agent = self._make_agent(state_dim)
        self.collector = EpisodeCollector(self.env, self.agent.collect_policy, self.agent.policy)
        if config.reward == "oracle":
            self.scorer = OracleScorer(
                GoalTable.from_sentences(["Go left"])
            )  # refreshed on discovery
        else:
            # MA-pairs and FC rewards scan in float32 (`RewardNetwork.scan`)
            bfloat16_scan = config.reward_architecture in BFLOAT16_SCAN_ARCHITECTURES
            scan_dtype = config.compute_dtype if bfloat16_scan else "float32"
            self.scorer = LearnedRewardScorer(self.reward_network, compute_dtype=scan_dtype)
        self.relabeler = HerRelabeler(self.scorer, seed=config.seed,
                                      final_goal_ratio=config.final_goal_ratio)  # fmt: skip
        self.epoch = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.checkpoint = tf.train.Checkpoint(
            agent=self.agent, reward_network=self.reward_network,
            reward_optimizer=self.reward_learner.optimizer, embedding_table=self.embedding_table,
            epoch=self.epoch, relabeler_generator=self.relabeler.generator)  # fmt: skip
        self.replay_checkpoint = ReplayCheckpoint(self.root_dir / "replay")
        self._update = tf.function(self._update_step)
        self._evaluators: dict = {}
        self.logs: list[dict] = []  # one record per finished epoch, all sessions

    # -- construction ------------------------------------------------------------------------
    def _make_agent(self, state_dim: int) -> ImagineDdpgAgent:
        observation_spec = {
            "state": tf.TensorSpec([state_dim], tf.float32, "state"),
            "goal": tf.TensorSpec([EMBEDDING_UNITS], tf.float32, "goal"),
        }
        action_spec = tensor_spec.BoundedTensorSpec([3], tf.float32, -1.0, 1.0, "action")
        words, length = self.vocabulary.words[1:], self.vocabulary.max_length
        architecture = self.config.architecture
        agent = ImagineDdpgAgent(
            ts.time_step_spec(observation_spec), action_spec,
            ActorNetwork(observation_spec, action_spec, architecture, words, length,
                         final_layer_init=self.config.final_layer_init,
                         compute_dtype=self.config.compute_dtype),
            CriticNetwork((observation_spec, action_spec), architecture, words, length,
                          final_layer_init=self.config.final_layer_init,
                          compute_dtype=self.config.compute_dtype),
            seed=self.config.seed)  # fmt: skip
        agent.initialize()
        return agent

    # -- updates -----------------------------------------------------------------------------
    def _relabel_step(self, states, next_states, goal_ids, goal_embeddings, num_goals,
                      final_goal_ids):  # fmt: skip
        """Relabels B transitions over K candidates drawn among the discovered goals (and, with
        ``final_goal_ratio`` > 0, the goals their episodes were drawn for: ids [B], −1 none)."""
        candidates = self.relabeler.sample_candidates(num_goals, self.config.num_candidates)
        final_embeddings = tf.gather(self.embedding_table, tf.maximum(final_goal_ids, 0))
        return self.relabeler.relabel(states, next_states, goal_ids, goal_embeddings, candidates,
                                      tf.gather(self.embedding_table, candidates),
                                      final_goal_ids, final_embeddings)  # fmt: skip

    def _train_step(self, states, next_states, actions, relabelled):
        """One DDPG step on relabelled transitions: (loss, share of r = 0)."""
        batch = tf.shape(states)[0]

        def time_step(state, reward):
            observation = {"state": state, "goal": relabelled.goal_embeddings}
            return ts.TimeStep(
                tf.fill([batch], ts.StepType.MID), reward, tf.ones([batch]), observation
            )

        experience = trajectory.Transition(
            time_step(states, tf.zeros([batch])), policy_step.PolicyStep(actions, (), ()),
            time_step(next_states, relabelled.rewards))  # fmt: skip
        loss = self.agent.train(experience).loss
        return loss, tf.reduce_mean(tf.cast(relabelled.rewards == 0.0, tf.float32))

    def _update_step(self, states, next_states, actions, goal_ids, goal_embeddings, num_goals,
                     final_goal_ids):  # fmt: skip
        """Relabelling and the DDPG step in one graph: (loss, share of r = 0)."""
        relabelled = self._relabel_step(states, next_states, goal_ids, goal_embeddings, num_goals,
                                        final_goal_ids)  # fmt: skip
        return self._train_step(states, next_states, actions, relabelled)

    def run_updates(self, count: int) -> tuple[list[float], list[float]]:
        """``count`` updates, each on ``batch_size`` transitions sampled from the replay and
        relabelled (learned or oracle reward); returns the losses and the shares of r = 0.

        (Relabelling the next batch beside the DDPG step of this one, in one graph, was
        measured no faster on 2 cores: 17.4 vs 17.5 updates/s.)
        """
        num_goals = tf.constant(len(self.goals))
        losses, positive_shares = [], []
        for _ in range(count):
            batch = self.replay.sample(self.config.batch_size)
            loss, positives = self._update(batch.states, batch.next_states, batch.actions,
                                           batch.goal_ids, batch.goal_embeddings, num_goals,
                                           batch.sampled_goal_ids)  # fmt: skip
            losses.append(float(loss))
            positive_shares.append(float(positives))
        return losses, positive_shares

    # -- the loop ------------------------------------------------------------------------------
    def train(
        self, num_epochs: int, progress: bool = True, run_gin: str | None = None
    ) -> list[dict]:
        """Runs (or resumes) until ``num_epochs`` epochs are done; returns this session's logs.

        ``run_gin``: the gin text this session was started with, kept as ``config.gin`` once the
        configuration is accepted. Raises `RunDirectoryBusy` if another process is training into
        ``root_dir`` and `RunConfigMismatch` if the directory holds a run with another
        configuration.
        """
        with RunLock(self.root_dir):
            return self._train(num_epochs, progress, run_gin)

    def _train(self, num_epochs: int, progress: bool, run_gin: str | None) -> list[dict]:
        from tqdm import tqdm

        self._check_same_config_as_the_run()
        self.restore()
        write_text_atomically(
            self.root_dir / "config.json", json.dumps(dataclasses.asdict(self.config), indent=1)
        )
        if run_gin is not None:
            write_text_atomically(self.root_dir / RUN_GIN_FILE, run_gin)
        writer = tf.summary.create_file_writer(str(self.root_dir / "tensorboard"))
        logs = []
        bar = tqdm(total=num_epochs, initial=int(self.epoch.numpy()), desc="imagine", unit="epoch",
                   disable=not progress)  # fmt: skip
        while int(self.epoch.numpy()) < num_epochs:
            record = self.train_epoch()
            logs.append(record)
            with writer.as_default(step=record["epoch"]):
                for key, value in record.items():
                    if isinstance(value, (int, float)) and key != "epoch":
                        tf.summary.scalar(key.replace("_", "/", 1), value)
            self.logs.append(record)
            self.save()  # the logs are part of the checkpoint: progress.jsonl never runs ahead of it
            self._write_progress()
            bar.update(1)
            bar.set_postfix(
                train_sr=f"{record['eval_train_success']:.2f}", goals=record["discovered_goals"]
            )
        bar.close()
        return logs

    def train_epoch(self) -> dict:
        """One epoch: cycles, reward update, evaluation. Returns the epoch's record."""
        config, epoch = self.config, int(self.epoch.numpy())
        timings = dict.fromkeys(("collection", "partner", "updates", "reward", "evaluation"), 0.0)
        losses, positive_shares, new_states = [], [], 0
        for _ in range(config.cycles_per_epoch):
            start = time.perf_counter()
            goals, goal_ids, embeddings = self._targets()
            explore = self.rng.random() >= config.exploit_probability
            episodes = self.collector.collect(goals, embeddings, explore=explore)
            timings["collection"] += time.perf_counter() - start
            start = time.perf_counter()
            self._observe(episodes, goal_ids, embeddings)
            new_states += len(goals)
            timings["partner"] += time.perf_counter() - start
            start = time.perf_counter()
            if len(self.goals) and (epoch > 0 or config.reward == "oracle"):
                cycle_losses, cycle_positive_shares = self.run_updates(config.updates_per_cycle)
                losses += cycle_losses
                positive_shares += cycle_positive_shares
            timings["updates"] += time.perf_counter() - start
        start = time.perf_counter()
        reward_report = {}
        if (
            config.reward == "learned"
            and epoch % config.reward_update_every == 0
            and len(self.goals)
        ):
            reward_report = self.reward_learner.update(self.memory, self._goal_tokens(), new_states)
            self._embed_goals()
            self.agent.set_goal_encoder(self.reward_network.encoder)  # only changes here
        timings["reward"] = time.perf_counter() - start
        start = time.perf_counter()
        train_success, grow_outcomes = self.evaluate_with_outcomes(grammar.train_goals())
        test_success = self.evaluate(grammar.test_goals())
        timings["evaluation"] = time.perf_counter() - start
        self.epoch.assign_add(1)
        return {
            "epoch": epoch + 1,
            "episodes": self.replay.episodes_added,
            "discovered_goals": len(self.goals),
            "updates": int(self.agent.train_step_counter.numpy()),
            "loss": float(np.mean(losses)) if losses else None,
            "relabel_positive_share": float(np.mean(positive_shares)) if positive_shares else None,
            "reward_epochs": reward_report.get("epochs"),
            "reward_held_out_f1": reward_report.get("held_out_f1"),
            "eval_train_success": float(np.mean(list(train_success.values()))),
            "eval_test_success": float(np.mean(list(test_success.values()))),
            **{f"eval_train_success_{predicate.lower()}": float(np.mean(
                [v for goal, v in train_success.items() if goal.split()[0] == predicate]))
               for predicate in ("Go", "Grasp", "Grow")},  # fmt: skip
            **{key: grow_outcomes[name] for name, key in GROW_LOG_KEYS.items()},
            **{f"seconds_{name}": round(value, 3) for name, value in timings.items()},
        }

    def _targets(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Sentences, ids (−1: placeholder) and embeddings of this cycle's target goals."""
        count = self.config.episodes_per_cycle
        ids = self.goals.sample(self.rng, count)
        if ids is None:  # nothing discovered: the env draws goals, the policy gets noise
            sentences = [
                self.goals.partner_goals[i]
                for i in self.rng.integers(0, len(self.goals.partner_goals), count)
            ]
            return (
                sentences,
                np.full(count, -1),
                self.rng.standard_normal((count, EMBEDDING_UNITS)).astype(np.float32),
            )
        sentences = [self.goals.sentences[i] for i in ids]
        return sentences, ids, tf.gather(self.embedding_table, ids).numpy()

    def _observe(self, episodes, goal_ids: np.ndarray, embeddings: np.ndarray) -> None:
        """Partner feedback on s_T: discovery, reward memory, replay."""
        descriptions = self.partner.describe_matrix(episodes.final_states)
        if self.goals.discover(descriptions).size:
            self._embed_goals()
        achieved = self.goals.achieved(descriptions)
        self.memory.add(episodes.final_states, achieved)
        self.replay.add(episodes.states, episodes.actions, goal_ids, embeddings, achieved)

    def _goal_tokens(self) -> np.ndarray:
        return self.vocabulary.encode(self.goals.sentences)

    def _embed_goals(self) -> None:
        """The discovered goals' embeddings from the reward model's encoder (and the oracle's table)."""
        if isinstance(self.scorer, OracleScorer):
            self.scorer.goal_table = GoalTable.from_sentences(self.goals.sentences)
        embeddings = self.reward_network.encoder(tf.constant(self._goal_tokens()))
        self.embedding_table[: len(self.goals)].assign(embeddings)

    # -- evaluation --------------------------------------------------------------------------
    def play(self, goals: Sequence[str], seed: int = 12345, num_objects: int | None = None):
        """Noise-free episodes of the policy for goals: (`CollectedEpisodes`, achieved bool [B])."""
        collector = self._evaluator(tuple(goals), seed, num_objects or self.config.num_objects)
        collector.env.seed(seed)  # the same scenes at every call
        embeddings = self.reward_network.encoder(
            tf.constant(self.vocabulary.encode(list(goals)))
        ).numpy()
        episodes = collector.collect(goals, embeddings, explore=False)
        table = GoalTable.from_sentences(sorted(set(goals)))
        return episodes, oracle.achieved(episodes.final_states, table, table.index(list(goals)))

    def evaluate(self, goals, repetitions: int = 1, seed: int = 12345,
                 num_objects: int | None = None) -> dict[str, float]:  # fmt: skip
        """Success rate per goal of the noise-free policy, judged by the oracle on s_T.

        ``num_objects`` other than the training N needs the MA policy (it works at any N).
        """
        return self.evaluate_with_outcomes(goals, repetitions, seed, num_objects)[0]

    def evaluate_with_outcomes(self, goals, repetitions: int = 1, seed: int = 12345,
                               num_objects: int | None = None) -> tuple[dict, dict]:  # fmt: skip
        """`evaluate`, and the `grow_outcome_shares` of the Grow episodes among them."""
        goals = [g for g in goals for _ in range(repetitions)]
        episodes, success = self.play(goals, seed, num_objects)
        grow = np.array([g.split()[0] == "Grow" for g in goals])
        outcomes = grow_outcome_shares(episodes.states[grow], success[grow])
        return success_per_goal(goals, success), outcomes

    def _evaluator(self, goals: tuple, seed: int, num_objects: int) -> EpisodeCollector:
        """One environment and compiled greedy policy per goal list (cached)."""
        key = (goals, seed, num_objects)
        if key not in self._evaluators:
            actor = self.agent._actor_network
            if num_objects != self.config.num_objects:
                actor = actor.with_num_objects(num_objects)  # ValueError for FA / FC
            time_step_spec = ts.time_step_spec(actor.input_tensor_spec)
            env = PlaygroundEnv(
                GoalCatalog("all", vocabulary=self.vocabulary),
                PlaygroundConfig(num_objects=num_objects),
                batch_size=len(goals),
                seed=seed,
            )
            policy = actor_policy.ActorPolicy(
                time_step_spec, self.agent.action_spec, actor, clip=True
            )
            self._evaluators[key] = EpisodeCollector(env, policy, policy)
        return self._evaluators[key]

    # -- checkpoints ---------------------------------------------------------------------------
    def save(self) -> None:
        """Writes the TF state and the numpy state atomically into ``checkpoint/`` (one kept);
        the replay's new episodes go to ``replay/`` first (`ReplayCheckpoint`)."""
        final = self.root_dir / "checkpoint"
        temporary = self.root_dir / "checkpoint.tmp"
        shutil.rmtree(temporary, ignore_errors=True)
        temporary.mkdir(parents=True)
        self.replay_checkpoint.save(self.replay)  # only the episodes added since the last save
        self.checkpoint.write(str(temporary / "tf"))
        np.savez(temporary / "state.npz", **self._numpy_state())
        previous = self.root_dir / "checkpoint.old"
        shutil.rmtree(previous, ignore_errors=True)
        if final.exists():
            os.replace(final, previous)
        os.replace(temporary, final)
        shutil.rmtree(previous, ignore_errors=True)
        self.replay_checkpoint.prune(self.replay.capacity)

    def _numpy_state(self) -> dict:
        state = {
            f"replay_{k}": v for k, v in self.replay.state_dict(include_episodes=False).items()
        }
        state.update({f"goals_{k}": v for k, v in self.goals.state_dict().items()})
        state.update({f"memory_{k}": v for k, v in self.memory.state_dict().items()})
        state["rng_state"] = encode_rng_state(self.rng)
        state["logs"] = np.frombuffer(json.dumps(self.logs).encode(), np.uint8)  # checkpoint_logs
        return state

    def _write_progress(self) -> None:
        """``progress.jsonl``: one JSON record per finished epoch (rewritten atomically)."""
        text = "".join(json.dumps(record) + "\n" for record in self.logs)
        write_text_atomically(self.root_dir / "progress.jsonl", text)

    def _check_same_config_as_the_run(self) -> None:
        """A resumed run keeps its configuration: refuses a config that differs from config.json.

        Fields that config.json does not have (added to `TrainConfig` after the run started) are
        not compared; the file then gains them.
        """
        path = self.root_dir / "config.json"
        if not path.exists():
            return
        stored = json.loads(path.read_text())
        current = dataclasses.asdict(self.config)
        differences = {
            key: (stored[key], value)
            for key, value in current.items()
            if key in stored and stored[key] != value
        }
        if differences:
            listed = ", ".join(f"{k}: run {a!r}, given {b!r}" for k, (a, b) in differences.items())
            how = (
                f"with no gin flags (`imagine-tf train` then reads its {RUN_GIN_FILE}) or "
                if (self.root_dir / RUN_GIN_FILE).exists()
                else ""
            )
            raise RunConfigMismatch(
                f"{self.root_dir} is a run with another configuration ({listed}). Resume it "
                f"{how}with the same gin files and bindings (its config.json), or train into a "
                "new --root-dir."
            )

    def restore(self, with_replay: bool = True) -> bool:
        """Restores the last checkpoint if there is one (an interrupted save falls back to the old).

        ``with_replay=False`` leaves the replay empty (evaluation needs only the networks).
        """
        self.agent.set_goal_encoder(self.reward_network.encoder)  # builds the encoders to restore
        # Optimizer slots exist only once built: build them so that Adam's state is restored now.
        for optimizer, network in ((self.agent._actor_optimizer, self.agent._actor_network),
                                   (self.agent._critic_optimizer, self.agent._critic_network),
                                   (self.reward_learner.optimizer, self.reward_network)):  # fmt: skip
            optimizer.build(network.trainable_variables)
        for name in ("checkpoint", "checkpoint.old"):
            directory = self.root_dir / name
            if (directory / "state.npz").exists():
                self.checkpoint.read(str(directory / "tf")).assert_existing_objects_matched()
                state = dict(np.load(directory / "state.npz", allow_pickle=True))
                self._load_numpy_state(state, with_replay)
                return True
        if with_replay:  # no checkpoint: episode files of a first save that never landed go
            self.replay_checkpoint.restore(self.replay, 0)
        return False

    def _load_numpy_state(self, state: dict, with_replay: bool) -> None:
        def part(prefix):
            return {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}

        replay_state = part("replay_")
        if "observations" not in replay_state and with_replay:  # in replay/ (else: older runs)
            self.replay_checkpoint.restore(self.replay, int(replay_state["episodes_added"]))
        if with_replay:
            self.replay.load_state_dict(replay_state)
        self.goals.load_state_dict(part("goals_"))
        self.memory.load_state_dict(part("memory_"))
        decode_rng_state(self.rng, state["rng_state"])
        self.logs = _decode_logs(state["logs"])
        if len(self.goals):
            self._embed_goals()
        self.agent.set_goal_encoder(self.reward_network.encoder)


@gin.configurable
def train_eval(
    root_dir: str,
    num_epochs: int = 167,
    progress: bool = True,
    demo_goals: Sequence[str] = (
        "Grasp any animal",
        "Go left",
        "Grow any plant",
        "Grasp red furniture",
    ),
    fork_from: str | None = None,
) -> list[dict]:
    """Trains (or resumes) a run with the gin-bound `TrainConfig`.

    ``fork_from``: a run whose last checkpoint a new ``root_dir`` starts from (`fork_run`); a
    ``root_dir`` that is already that fork just resumes, so the same command can be repeated.
    Writes the gin it was given (``config.gin``, before training: `imagine-tf train` with no gin
    flags resumes with it), then the operative gin config, ``learning_curve.png`` and
    ``agent.gif`` (the noise-free policy pursuing ``demo_goals``) into ``root_dir``.
    """
    from imagine_tf.training.run_fork import fork_run, fork_source
    from imagine_tf.training.run_report import plot_learning_curve, render_agent

    root = pathlib.Path(root_dir)
    config = TrainConfig()
    if fork_from is not None and fork_source(root, fork_from) is None:
        fork_run(fork_from, root, config)
    trainer = ImagineTrainer(config, root)
    logs = trainer.train(num_epochs, progress=progress, run_gin=gin.config_str())
    (root / "operative_config.gin").write_text(gin.operative_config_str())
    if trainer.logs:
        plot_learning_curve(trainer.logs, root / "learning_curve.png")
        episodes, achieved = trainer.play(list(demo_goals))
        render_agent(episodes.states, list(demo_goals), achieved, str(root / "agent.gif"))
    return logs


def _decode_logs(array: np.ndarray) -> list[dict]:
    """The per-epoch records a checkpoint's ``state.npz`` holds (UTF-8 JSON bytes)."""
    return json.loads(bytes(array).decode())


def checkpoint_logs(checkpoint_dir: str | os.PathLike) -> list[dict]:
    """The per-epoch records saved with a checkpoint (``<run>/checkpoint``)."""
    with np.load(pathlib.Path(checkpoint_dir) / "state.npz") as state:
        return _decode_logs(state["logs"])


def success_per_goal(goals: Sequence[str], success: np.ndarray) -> dict[str, float]:
    """{goal: mean success over its episodes}; ``goals`` [B] may repeat a goal."""
    per_goal: dict[str, list[bool]] = {}
    for goal, value in zip(goals, success):
        per_goal.setdefault(goal, []).append(bool(value))
    return {goal: float(np.mean(values)) for goal, values in per_goal.items()}


def evaluate_run(root_dir: str, repetitions: int = 30, num_objects: int | None = None,
                 seed: int = 12345) -> dict:  # fmt: skip
    """Restores a run and measures the success rate per goal (train, test, per type) and what
    the policy did in its Grow episodes (`failure_modes`).

    The run may be training meanwhile (`load_agent` restores a consistent copy of its last
    checkpoint). Writes ``eval.json`` (the latest evaluation) and
    ``evaluations/epoch_EEEE.json`` (kept for every evaluated epoch; ``_nN`` at another N).
    """
    from imagine_tf.training.agent_report import EVALUATIONS_DIR
    from imagine_tf.training.model_loading import load_agent

    root = pathlib.Path(root_dir)
    trainer = load_agent(root)
    config = trainer.config
    per_goal, grow_outcomes = {}, {}
    for split, goals in (("train", grammar.train_goals()), ("test", grammar.test_goals())):
        success, grow_outcomes[split] = trainer.evaluate_with_outcomes(
            goals, repetitions, seed, num_objects
        )
        per_goal.update(success)
    test = [g for g in per_goal if grammar.is_test_goal(g)]
    result = {
        "epoch": int(trainer.epoch.numpy()),
        "num_objects": num_objects or config.num_objects,
        "repetitions": repetitions,
        "train_success": float(np.mean([v for g, v in per_goal.items() if g not in test])),
        "test_success": float(np.mean([per_goal[g] for g in test])),
        "per_type": {str(t): float(np.mean([per_goal[g] for g in test if grammar.generalization_type(g) == t]))
                     for t in range(1, 6)},  # fmt: skip
        "train_per_predicate": {
            predicate: float(np.mean([v for g, v in per_goal.items()
                                      if g not in test and g.split()[0] == predicate]))
            for predicate in ("Go", "Grasp", "Grow")},  # fmt: skip
        "grow_outcomes": grow_outcomes,
        "per_goal": per_goal,
    }
    other_n = "" if result["num_objects"] == config.num_objects else f"_n{result['num_objects']}"
    text = json.dumps(result, indent=1)
    (root / EVALUATIONS_DIR).mkdir(exist_ok=True)
    write_text_atomically(
        root / EVALUATIONS_DIR / f"epoch_{result['epoch']:04d}{other_n}.json", text
    )
    write_text_atomically(root / f"eval{other_n}.json", text)
    return result
