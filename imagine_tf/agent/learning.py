"""`Learner`: what learns from the actors' episodes (Colas et al. 2020, IMAGINE; Karch, Colas et
al. 2020).

Per cycle, `observe` one `EpisodeBatch`: new training goals are discovered from the partner's
descriptions (G_d, ids in order of arrival), the final states go to the reward memory with their
positives (the descriptions) and negatives (the goals discovered *before* the batch and not
described: a goal first discovered in a batch is no negative for that batch's other episodes),
the episodes to the goal-biased replay. With imagination (from epoch ``imagination_start``),
goals are re-invented after each discovery (`GoalImagination`); the imagined goals that the
learned reward says a final state achieves (over at most 50 of them) join the replay's goal
lists; imagined goals are never labels in the reward memory. Then `train_cycle`: from epoch 1 on
(from epoch 0 with the oracle reward), ``updates_per_cycle`` DDPG updates, each on
``batch_size`` transitions relabelled over ``num_candidates`` goals by the learned (or oracle)
reward — the cycle's relabelling and DDPG steps in one `tf.function`, a while loop over its
pre-drawn batches. `end_epoch`: every ``reward_update_every`` epochs the reward model is
retrained from its memory and its encoder copied into the actor and critic; the epoch's record
returned. The evaluation of the greedy policy on every training and test goal is a trigger of
the loop (`imagine_tf.training.triggers`): in this process, or with actor processes in an
evaluator process, so that the learner goes on learning.

The replay stores each episode's goal embedding at collection time; relabelled goals use the
current table (as the reference). The learner keeps its own replay (exact goal-biased sampling,
numpy): with actor processes the replay server is a queue feeding it (docs/distributed.md).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import tensorflow as tf

from imagine_tf.agent.relabelling import OracleScorer
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.episode_batch import EpisodeBatch, GoalView, PolicySnapshot
from imagine_tf.agent.evaluation import EVALUATION_KEYS
from imagine_tf.agent.learner_parts import LearnerParts
from imagine_tf.reward.goal_probe import imagination_record


class Learner:
    """Goal discovery, reward memory and co-training, replay, relabelling, DDPG updates and
    the per-epoch evaluation of one run, orchestrated over the parts it is handed.

    Args:
      config: the run's `TrainConfig` (what the epoch's steps read: updates per cycle, batch
        size, the reward schedule, imagination's start).
      parts: its `LearnerParts` (`RunBuilder.make_learner` builds them from the config).
      builder: the `RunBuilder` that made them (goal tokens; read by actors and the loop).
    """

    def __init__(self, config, parts: LearnerParts, builder: RunBuilder):
        self.builder, self.config = builder, config
        for field in dataclasses.fields(parts):
            setattr(self, field.name, getattr(parts, field.name))
        self.goals_version = 0  # changes whenever the goals or their embeddings change
        self._new_states = 0  # final states observed this epoch (the reward update's held-out)
        self._losses: list[float] = []
        self._positive_shares: list[float] = []
        self._actor_ids: set[int] = set()  # who played this epoch's batches
        self._policy_lags: list[int] = []  # updates between a batch's policy and its storing
        self.timings = {"updates": 0.0}  # this epoch's
        self.logs: list[dict] = []  # one record per finished epoch, all sessions

    # -- goals -------------------------------------------------------------------------------
    def encode_goals(self, tokens) -> tf.Tensor:
        """Goal embeddings [G, E] from token ids [G, L]: the reward model's encoder."""
        return self.reward_network.encoder(tf.constant(tokens))

    def embed_goals(self) -> None:
        """The known goals' embeddings (and the oracle scorer's goal table)."""
        if not len(self.goals):
            return
        if isinstance(self.relabeler.scorer, OracleScorer):
            table = GoalTable.from_sentences(self.goals.sentences, lenient=True)
            self.relabeler.scorer.goal_table = table
        embeddings = self.encode_goals(self.builder.goal_tokens(self.goals.sentences))
        self.embedding_table[: len(self.goals)].assign(embeddings)
        self.imagined_mask.assign(self.goals.imagined)
        self.goals_version += 1

    def goal_view(self) -> GoalView:
        count = len(self.goals)
        return GoalView(
            list(self.goals.sentences),
            self.embedding_table[:count].numpy(),
            self.goals.imagined[:count].copy(),
            self.imagining,
        )

    @property
    def imagining(self) -> bool:
        """Whether goal imagination is on in this epoch."""
        return (
            self.imagination.method != "none"
            and int(self.epoch.numpy()) >= self.config.imagination_start
        )

    def _imagine(self) -> bool:
        """Re-invents goals if goals were discovered since the last time; whether any is new."""
        discovered = self.goals.discovered_sentences()
        if len(discovered) == len(self.imagination.heuristic.known):
            return False
        return bool(self.goals.imagine(self.imagination.update(discovered)).size)

    def _imagined_reached(self, final_states: np.ndarray) -> np.ndarray:
        """bool [B, known goals]: the imagined goals that the reward says s_T achieves, over
        at most ``imagined_replay_checks`` of them drawn at random (False elsewhere)."""
        reached = np.zeros((len(final_states), len(self.goals)), bool)
        ids = self.goals.imagined_ids
        if not (self.imagining and ids.size):
            return reached
        chosen = self.rng.choice(
            ids, min(self.config.imagined_replay_checks, ids.size), replace=False
        )
        scan = self.relabeler.scorer.scan(
            tf.constant(final_states), tf.constant(chosen), tf.gather(self.embedding_table, chosen)
        )
        reached[:, chosen] = scan.numpy()
        return reached

    def snapshot(self, finished: bool = False) -> PolicySnapshot:
        """What actors need: the actor's weights, the goals, the counters."""
        return PolicySnapshot(
            self.ddpg.actor_network.get_weights(),
            self.goal_view(),
            int(self.ddpg.train_step_counter.numpy()),
            int(self.epoch.numpy()),
            self.goals_version,
            finished,
        )

    # -- one cycle -----------------------------------------------------------------------------
    def observe(self, batch: EpisodeBatch) -> None:
        """Partner feedback on s_T: discovery, imagination, reward memory, replay."""
        descriptions = batch.descriptions & self.spoken
        known_before = ~self.goals.imagined[: len(self.goals)]  # discovered before the batch
        changed = bool(self.goals.discover(descriptions).size)
        if self.imagining:
            changed = self._imagine() or changed
        if changed:
            self.embed_goals()
        achieved = self.goals.achieved(descriptions)  # [B, G], imagined ids False
        negatives = np.zeros_like(achieved)
        negatives[:, : known_before.size] = known_before & ~achieved[:, : known_before.size]
        self.memory.add(batch.final_states, achieved, negatives)
        self.replay.add(
            batch.observations,
            batch.actions,
            batch.goal_ids,
            batch.goal_embeddings,
            achieved | self._imagined_reached(batch.final_states),
        )
        self._new_states += len(batch)
        self._actor_ids.add(batch.actor_id)
        self._policy_lags.append(int(self.ddpg.train_step_counter.numpy()) - batch.policy_step)

    @property
    def updating(self) -> bool:
        """Whether this epoch's cycles update the policy (not in epoch 0 with a learned reward)."""
        return bool(self.goals.num_discovered) and (
            int(self.epoch.numpy()) > 0 or self.config.reward == "oracle"
        )

    def train_cycle(self) -> None:
        """The cycle's DDPG updates (none while `updating` is False)."""
        if self.updating:
            start = time.perf_counter()
            losses, positive_shares = self.run_updates(self.config.updates_per_cycle)
            self._losses += losses
            self._positive_shares += positive_shares
            self.timings["updates"] += time.perf_counter() - start

    def run_updates(self, count: int) -> tuple[list[float], list[float]]:
        """``count`` updates (`UpdateCycle`), each on a goal-biased sample of the replay (drawn
        one after the other, as many single updates would: the replay does not change between
        them); their losses and shares of r = 0."""
        if count <= 0:
            return [], []
        cycle = self.replay.sample_cycle(count, self.config.batch_size)
        results = self.update_cycle.run(cycle, len(self.goals), self.imagining)
        return results[:, 0].tolist(), results[:, 1].tolist()

    # -- the end of an epoch -------------------------------------------------------------------
    def update_reward(self) -> dict:
        """Retrains the reward model if due this epoch; copies its encoder into the policy."""
        config, epoch = self.config, int(self.epoch.numpy())
        if config.reward != "learned" or epoch % config.reward_update_every or not len(self.goals):
            return {}
        # all known ids (the memory's columns); imagined ones have no label, so are not drawn
        report = self.reward_learner.update(
            self.memory, self.builder.goal_tokens(self.goals.sentences), self._new_states
        )
        self.embed_goals()
        self.ddpg.set_goal_encoder(self.reward_network.encoder)  # only changes here
        return report

    def _imagination_record(self) -> dict:
        """The imagined set's size, precision and test coverage (with imagination on)."""
        if self.imagination.method == "none":
            return {}
        return imagination_record(
            self.imagination.imagined, len(self.goals), self.goals.num_discovered
        )

    def _probe_record(self) -> dict:
        """The learned reward's F1 on the probe's states: over all test goals, and over the
        imagined ones (None before any is imagined)."""
        if self.probe is None:
            return {}
        scorer = self.relabeler.scorer  # the learned reward's (a probe needs reward = "learned")
        goals = list(self.probe.goals)  # every test goal, scored once
        embeddings = self.encode_goals(self.builder.goal_tokens(goals))
        ids = tf.zeros([len(goals)], tf.int64)  # the learned reward reads no ids
        predicted = scorer.scan(tf.constant(self.probe.states), ids, embeddings).numpy()
        imagined = set(self.imagination.imagined)
        return {
            "reward_test_goal_f1": self.probe.f1(goals, predicted),
            "reward_imagined_test_goal_f1": self.probe.f1(
                [g for g in goals if g in imagined], predicted
            ),
        }

    def end_epoch(self, timings: dict[str, float]) -> dict:
        """Reward update, the epoch's record (appended to ``logs``); epoch + 1.

        ``timings``: seconds spent per phase outside the learner (collection, partner, ...).
        The record's `EVALUATION_KEYS` are None: the evaluation trigger of the loop fills them
        (`imagine_tf.training.triggers`), in this process or in an evaluator process.
        """
        timings = {**timings, **self.timings}
        start = time.perf_counter()
        reward_report = self.update_reward()
        timings["reward"] = time.perf_counter() - start
        probe = self._probe_record()
        self.epoch.assign_add(1)
        losses, shares = self._losses, self._positive_shares
        record = {
            "epoch": int(self.epoch.numpy()),
            "episodes": self.replay.episodes_added,
            "discovered_goals": self.goals.num_discovered,
            **self._imagination_record(),
            "updates": int(self.ddpg.train_step_counter.numpy()),
            "loss": float(np.mean(losses)) if losses else None,
            "relabel_positive_share": float(np.mean(shares)) if shares else None,
            "actors": len(self._actor_ids),
            "policy_lag_updates": float(np.mean(self._policy_lags)) if self._policy_lags else None,
            "reward_epochs": reward_report.get("epochs"),
            "reward_held_out_f1": reward_report.get("held_out_f1"),
            **probe,
            **dict.fromkeys(EVALUATION_KEYS),
            **{f"seconds_{name}": round(value, 3) for name, value in timings.items()},
        }
        self.logs.append(record)
        self._new_states, self._losses, self._positive_shares = 0, [], []
        self._actor_ids, self._policy_lags = set(), []
        self.timings = {"updates": 0.0}
        return record
