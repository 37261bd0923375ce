"""What runs after each epoch of the loop: evaluation, checkpoint, log (in this order).

As TF-Agents' triggers (``tf_agents/train/triggers.py``) are called after each run of its
learner, each trigger here is called with the record of each finished epoch
(`Learner.end_epoch`), and may fill it: ``trigger(record)``.

* `EvaluationTrigger`: the noise-free policy on every training and test goal, in this process
  (`evaluate_epoch`); fills the record's `EVALUATION_KEYS` and ``seconds_evaluation``.
* `RemoteEvaluationTrigger` (``imagine-tf train --actors K``): sends the epoch's policy to the
  evaluator process (`imagine_tf.training.evaluator_process`) and fills the records of the
  epochs whose results came back; the learner goes on learning meanwhile.
* `CheckpointTrigger`: `LearnerCheckpoint.save` (the records are part of the checkpoint).
* `EpochLog`: TensorBoard, ``progress.jsonl`` (rewritten whole: never ahead of the
  checkpoint) and the progress bar.
"""

from __future__ import annotations

import json
import time

import numpy as np
import tensorflow as tf
from tqdm import tqdm

from imagine_tf.runs.checkpoint import LearnerCheckpoint
from imagine_tf.agent.evaluation import EVALUATION_KEYS, evaluate_epoch
from imagine_tf.agent.learning import Learner
from imagine_tf.atomic_files import write_text_atomically
from imagine_tf.distributed.episode_queue import EpisodeReader
from imagine_tf.distributed.replay_server import (
    EVALUATION_REQUESTS_TABLE,
    EVALUATION_RESULTS_TABLE,
)
from imagine_tf.distributed.variable_container import VariableContainer
from imagine_tf.language import grammar
from imagine_tf.runs.layout import RunLayout

#: The values of an evaluation result item, in this order.
RESULT_KEYS = (*EVALUATION_KEYS, "seconds_evaluation")


class EvaluationTrigger:
    """Evaluates the learner's policy in this process at the end of every epoch.

    Both evaluation triggers answer `take_filled` (the earlier epochs' records filled since the
    last call: none here, each record is filled in its own call) and `finish` (nothing to wait
    for here)."""

    def __init__(self, learner: Learner):
        self.learner = learner

    def __call__(self, record: dict) -> None:
        record.update(evaluate_epoch(self.learner.evaluator))

    def take_filled(self) -> list[dict]:
        return []

    def finish(self) -> None:
        pass

    def close(self) -> None:
        pass


def evaluation_request(learner: Learner, tokens: np.ndarray) -> dict[str, np.ndarray]:
    """What the evaluator needs: the policy (`PolicySnapshot`), the evaluated goals' token ids
    ``tokens`` [G, L] and their embeddings by the reward model's encoder [G, E], the epoch, and
    an id (the evaluator evaluates each request once; a request repeated for an epoch has a
    new id)."""
    return {
        **learner.snapshot().to_arrays(),
        "evaluated_goal_tokens": tokens,
        "evaluated_goal_embeddings": learner.encode_goals(tokens).numpy(),
        "evaluated_epoch": np.asarray(int(learner.epoch.numpy()), np.int64),
        "request_id": np.asarray(time.time_ns(), np.int64),
    }


class RemoteEvaluationTrigger:
    """Evaluation by the evaluator process of a run with actor processes.

    Each call pushes the epoch's policy (a newer request replaces one not yet taken: the learner
    never waits) and fills the records of the epochs whose results have arrived; they are saved
    with the next checkpoint. `finish` waits (at most ``timeout_s``) for the last epoch's
    result. A resumed run whose last record has no evaluation asks for it again (the restored
    policy is that epoch's); a result lost with a killed learner for an earlier epoch stays
    None (`imagine-tf eval` evaluates a run's last checkpoint at any time).
    """

    def __init__(self, learner: Learner, address: str, retry_seconds: float = 60.0):
        self.learner = learner
        self.requests = VariableContainer(
            address, EVALUATION_REQUESTS_TABLE, deadline_s=retry_seconds
        )
        self.results = EpisodeReader(address, EVALUATION_RESULTS_TABLE, deadline_s=retry_seconds)
        self.filled: list[dict] = []  # records filled since the last `take_filled`
        # every training and test goal: the same token ids in every request
        goals = sorted(grammar.train_goals() + grammar.test_goals())
        self.tokens = learner.builder.goal_tokens(goals)
        if learner.logs and learner.logs[-1]["eval_train_success"] is None:
            # a resumed run whose last evaluation was lost: the restored policy is that epoch's
            self.requests.push(evaluation_request(learner, self.tokens))

    def __call__(self, record: dict) -> None:
        self.requests.push(evaluation_request(self.learner, self.tokens))
        self.collect()

    def take_filled(self) -> list[dict]:
        filled, self.filled = self.filled, []
        return filled

    def collect(self, timeout_s: float = 0.0) -> int:
        """Fills the records of the results that have arrived (waiting up to ``timeout_s``
        for one if none has); how many."""
        waiting = self.results.size()
        if waiting:
            items = self.results.take(waiting, 0)
        else:
            items = self.results.take(1, timeout_s) if timeout_s else []
        for item in items:
            epoch = int(item["epoch"])
            if 1 <= epoch <= len(self.learner.logs):
                record = self.learner.logs[epoch - 1]
                record.update(zip(RESULT_KEYS, (float(v) for v in item["values"])))
                self.filled.append(record)
        return len(items)

    def finish(self, timeout_s: float = 120.0) -> None:
        """Waits for the result of the last epoch (an evaluator that died meanwhile leaves it
        None: `imagine-tf eval` evaluates the run afterwards)."""
        deadline = time.monotonic() + timeout_s
        last = self.learner.logs[-1] if self.learner.logs else None
        while last is not None and last["eval_train_success"] is None:
            if time.monotonic() > deadline:
                break
            self.collect(timeout_s=min(1.0, max(0.01, deadline - time.monotonic())))

    def close(self) -> None:
        self.requests.close()


class CheckpointTrigger:
    """Saves the learner's checkpoint after every epoch."""

    def __init__(self, checkpoint: LearnerCheckpoint):
        self.checkpoint = checkpoint

    def __call__(self, record: dict) -> None:
        self.checkpoint.save()


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

    def __call__(self, record: dict) -> None:
        self.scalars(record)
        self.rewrite()
        self.bar.update(1)
        success = record["eval_train_success"]
        self.bar.set_postfix(
            train_sr="-" if success is None else f"{success:.2f}",
            goals=record["discovered_goals"],
        )

    def scalars(self, record: dict, keys=None) -> None:
        """TensorBoard scalars of ``record`` (only ``keys``, if given) at its epoch."""
        with self.writer.as_default(step=record["epoch"]):
            for key, value in record.items():
                if keys is not None and key not in keys:
                    continue
                if isinstance(value, (int, float)) and key != "epoch":
                    tf.summary.scalar(key.replace("_", "/", 1), value)

    def rewrite(self) -> None:
        """``progress.jsonl`` from the learner's records (all epochs, all sessions)."""
        text = "".join(json_line(r) for r in self.learner.logs)
        write_text_atomically(self.layout.progress, text)

    def close(self) -> None:
        self.bar.close()
        self.writer.close()


def json_line(record: dict) -> str:
    return json.dumps(record) + "\n"
