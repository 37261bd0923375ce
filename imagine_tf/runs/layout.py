"""The layout of an agent run directory: the one place that names its files.

    <root>/
      config.json            the run's `TrainConfig` (a resume must match it)
      config.gin             the gin the run was started with (`train` with no gin flags reuses it)
      operative_config.gin   gin's operative config of the last session
      checkpoint/            the last checkpoint: tf/ (networks, optimizers, counters) + state.npz
      checkpoint.old/        the previous one, only while a save is being renamed in
      replay/                the replay's episodes, one file per save (`ReplayCheckpoint`)
      progress.jsonl         one record per finished epoch
      tensorboard/           summaries
      evaluations/           `imagine-tf eval` results per epoch; eval.json: the latest
      logs/                  the replay server's and actors' logs (`imagine-tf train --actors K`)
      replay_server.json     the address of the run's replay server (`imagine-tf replay-server`)
      run.lock               held by the process training the run
      fork.json              where a forked run came from
      starts.jsonl           one line per training start: when, command, code version, machine
      learning_curve.png, agent.gif
"""

from __future__ import annotations

import json
import os
import pathlib

import numpy as np

CONFIG_JSON = "config.json"
RUN_GIN = "config.gin"
OPERATIVE_GIN = "operative_config.gin"
CHECKPOINT = "checkpoint"
CHECKPOINT_OLD = "checkpoint.old"
CHECKPOINT_NEW = "checkpoint.tmp"
# The landed checkpoint, else an interrupted save's previous one.
CHECKPOINT_NAMES = (CHECKPOINT, CHECKPOINT_OLD)
REPLAY = "replay"
PROGRESS = "progress.jsonl"
TENSORBOARD = "tensorboard"
EVALUATIONS = "evaluations"
EVAL_JSON = "eval.json"
LOGS = "logs"
REPLAY_SERVER_JSON = "replay_server.json"
LOCK = "run.lock"
FORK = "fork.json"
LEARNING_CURVE = "learning_curve.png"
AGENT_GIF = "agent.gif"
# Inside a checkpoint directory: the TF object graph's prefix and the numpy state.
CHECKPOINT_TF_PREFIX = "tf"
CHECKPOINT_STATE = "state.npz"


class RunLayout:
    """Paths of one run directory (nothing is created here)."""

    def __init__(self, root_dir: str | os.PathLike):
        self.root = pathlib.Path(root_dir)

    def __truediv__(self, name: str) -> pathlib.Path:
        return self.root / name

    @property
    def config_json(self) -> pathlib.Path:
        return self.root / CONFIG_JSON

    @property
    def run_gin(self) -> pathlib.Path:
        return self.root / RUN_GIN

    @property
    def progress(self) -> pathlib.Path:
        return self.root / PROGRESS

    @property
    def replay(self) -> pathlib.Path:
        return self.root / REPLAY

    @property
    def tensorboard(self) -> pathlib.Path:
        return self.root / TENSORBOARD

    @property
    def logs(self) -> pathlib.Path:
        return self.root / LOGS

    def landed_checkpoint(self) -> pathlib.Path | None:
        """The checkpoint to restore: ``checkpoint/``, else ``checkpoint.old/``; None if none."""
        for name in CHECKPOINT_NAMES:
            if (self.root / name / CHECKPOINT_STATE).exists():
                return self.root / name
        return None


def evaluation_file(root: str | os.PathLike, epoch: int, suffix: str = "") -> pathlib.Path:
    """A run's kept evaluation of ``epoch`` (``suffix``: "_nN" at another object count N)."""
    return pathlib.Path(root) / EVALUATIONS / f"epoch_{epoch:04d}{suffix}.json"


def decode_logs(array: np.ndarray) -> list[dict]:
    """The per-epoch records a checkpoint's ``state.npz`` holds (UTF-8 JSON bytes)."""
    return json.loads(bytes(array).decode())


def checkpoint_logs(checkpoint_dir: str | os.PathLike) -> list[dict]:
    """The per-epoch records saved with a checkpoint (``<run>/checkpoint``)."""
    with np.load(pathlib.Path(checkpoint_dir) / CHECKPOINT_STATE) as state:
        return decode_logs(state["logs"])
