"""The learner's epoch loop, the same with an in-process actor or actor processes.

Per epoch: ``cycles_per_epoch`` times, take one `EpisodeBatch` (from the in-process actor, or
from the replay server's queue), `Learner.observe` it and `Learner.train_cycle`, then publish
the policy (actor processes refresh from it); then `Learner.end_epoch` and the triggers
(`imagine_tf.training.triggers`): the evaluation, a checkpoint, and the epoch's record in
TensorBoard, ``progress.jsonl`` and the progress bar. The number of updates
per episode is the config's whatever feeds the loop: the learner makes ``updates_per_cycle``
updates per batch it takes, and actors wait while the queue is full.
"""

from __future__ import annotations

from typing import Callable

from imagine_tf.runs.checkpoint import LearnerCheckpoint
from imagine_tf.agent.episode_batch import EpisodeBatch
from imagine_tf.agent.learning import Learner
from imagine_tf.training.triggers import (
    RESULT_KEYS,
    CheckpointTrigger,
    EpochLog,
    EvaluationTrigger,
    RemoteEvaluationTrigger,
)

# The source of episode batches: returns the next batch and the seconds spent per phase.
EpisodeSource = Callable[[], tuple[EpisodeBatch, dict[str, float]]]


def run_epochs(
    learner: Learner,
    checkpoint: LearnerCheckpoint,
    next_batch: EpisodeSource,
    num_epochs: int,
    progress: bool = True,
    publish: Callable[[Learner], None] | None = None,
    evaluation: EvaluationTrigger | RemoteEvaluationTrigger | None = None,
) -> list[dict]:
    """Trains until ``num_epochs`` epochs are done; returns this session's records.

    Args:
      learner: the restored learner.
      checkpoint: its `LearnerCheckpoint` (saved after every epoch).
      next_batch: the source of episode batches.
      num_epochs: the epoch to stop at.
      progress: show a progress bar.
      publish: called after every cycle (e.g. push the policy to the actors).
      evaluation: the evaluation trigger; default: `EvaluationTrigger` (this process).
    """
    log = EpochLog(checkpoint.layout, learner, num_epochs, progress)
    evaluation = evaluation or EvaluationTrigger(learner)
    triggers = (evaluation, CheckpointTrigger(checkpoint), log)
    records = []
    try:
        while int(learner.epoch.numpy()) < num_epochs:
            record = train_epoch(learner, next_batch, publish)
            for trigger in triggers:
                trigger(record)
            _log_filled(evaluation, log)
            records.append(record)
        evaluation.finish()
        if _log_filled(evaluation, log):  # the last results: saved and logged again
            checkpoint.save()
            log.rewrite()
    finally:
        log.close()
    return records


def _log_filled(evaluation: EvaluationTrigger | RemoteEvaluationTrigger, log: EpochLog) -> int:
    """TensorBoard scalars of the evaluation results that arrived for earlier epochs; how
    many."""
    filled = evaluation.take_filled()
    for record in filled:
        log.scalars(record, RESULT_KEYS)
    return len(filled)


def train_epoch(
    learner: Learner, next_batch: EpisodeSource, publish: Callable[[Learner], None] | None = None
) -> dict:
    """One epoch: ``cycles_per_epoch`` × (a batch, observe, updates, publish), then
    `Learner.end_epoch`; returns the epoch's record."""
    timings: dict[str, float] = {}
    for _ in range(learner.config.cycles_per_epoch):
        batch, spent = next_batch()
        for name, seconds in spent.items():
            timings[name] = timings.get(name, 0.0) + seconds
        learner.observe(batch)
        learner.train_cycle()
        if publish is not None:
            publish(learner)
    return learner.end_epoch(timings)
