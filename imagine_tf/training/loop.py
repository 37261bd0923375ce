"""The learner's epoch loop, the same with an in-process actor or actor processes.

Per epoch: ``cycles_per_epoch`` times, take one `EpisodeBatch` (from the in-process actor, or
from the replay server's queue), `Learner.observe` it and `Learner.train_cycle`, then publish
the policy (actor processes refresh from it); then `Learner.end_epoch`, a checkpoint, and the
epoch's record in TensorBoard, ``progress.jsonl`` and the progress bar. The number of updates
per episode is the config's whatever feeds the loop: the learner makes ``updates_per_cycle``
updates per batch it takes, and actors wait while the queue is full.
"""

from __future__ import annotations

import json
from typing import Callable

import tensorflow as tf
from tqdm import tqdm

from imagine_tf.atomic_files import write_text_atomically
from imagine_tf.agent.episode_batch import EpisodeBatch
from imagine_tf.agent.learning import Learner
from imagine_tf.agent.checkpoint import LearnerCheckpoint
from imagine_tf.runs.layout import RunLayout

# The source of episode batches: returns the next batch and the seconds spent per phase.
EpisodeSource = Callable[[], tuple[EpisodeBatch, dict[str, float]]]


class EpochLog:
    """Where each epoch's record goes: TensorBoard, ``progress.jsonl``, the progress bar."""

    def __init__(self, layout: RunLayout, learner: Learner, num_epochs: int, progress: bool):
        self.layout, self.learner = layout, learner
        self.writer = tf.summary.create_file_writer(str(layout.tensorboard))
        self.bar = tqdm(
            total=num_epochs,
            initial=int(learner.epoch.numpy()),
            desc="imagine",
            unit="epoch",
            disable=not progress,
        )

    def write(self, record: dict) -> None:
        with self.writer.as_default(step=record["epoch"]):
            for key, value in record.items():
                if isinstance(value, (int, float)) and key != "epoch":
                    tf.summary.scalar(key.replace("_", "/", 1), value)
        text = "".join(json_line(r) for r in self.learner.logs)
        write_text_atomically(self.layout.progress, text)  # rewritten: never ahead of the ckpt
        self.bar.update(1)
        self.bar.set_postfix(
            train_sr=f"{record['eval_train_success']:.2f}", goals=record["discovered_goals"]
        )

    def close(self) -> None:
        self.bar.close()
        self.writer.close()


def json_line(record: dict) -> str:
    return json.dumps(record) + "\n"


def run_epochs(
    learner: Learner,
    checkpoint: LearnerCheckpoint,
    next_batch: EpisodeSource,
    num_epochs: int,
    progress: bool = True,
    publish: Callable[[Learner], None] | None = None,
) -> list[dict]:
    """Trains until ``num_epochs`` epochs are done; returns this session's records.

    Args:
      learner: the restored learner.
      checkpoint: its `LearnerCheckpoint` (saved after every epoch).
      next_batch: the source of episode batches.
      num_epochs: the epoch to stop at.
      progress: show a progress bar.
      publish: called after every cycle (e.g. push the policy to the actors).
    """
    log = EpochLog(checkpoint.layout, learner, num_epochs, progress)
    records = []
    try:
        while int(learner.epoch.numpy()) < num_epochs:
            record = train_epoch(learner, next_batch, publish)
            checkpoint.save()  # the logs are part of the checkpoint
            log.write(record)
            records.append(record)
    finally:
        log.close()
    return records


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
