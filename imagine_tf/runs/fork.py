"""Forking a run: a new run directory that continues another run's last checkpoint with some
settings changed ("what if, from epoch 55 on, the batch were 1,536?").

`fork_run` copies the source's checkpoint (networks, optimizers, discovered goals, reward
memory, counters, RNG states), its replay files, ``progress.jsonl`` and TensorBoard events into
the new directory, writes the new ``config.json`` and a ``fork.json`` that records where the
run came from and what changed. Training the new directory then resumes from the copy, so both
branches share their history up to the fork epoch and the source is left untouched.

* The source must not be training (its `RunLock` is taken shared while copying: other forks
  may copy it at the same time), so the copy is one consistent checkpoint.
* Replay files never change once written (`ReplayCheckpoint`: new files, renamed into place),
  so they are hard-linked when both directories are on one file system (no extra disk for a
  1.3 GB replay), else copied. The rest is copied.
* The copy is made in a temporary sibling and renamed into place: an interrupted fork leaves
  no half-made run.
* Settings that fix the shapes of the saved state (`STATE_SHAPE_FIELDS`) cannot change.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import pathlib
import shutil

from imagine_tf.atomic_files import write_text_atomically
from imagine_tf.runs import layout as run_layout
from imagine_tf.runs.config_keys import declared_defaults, flat_config
from imagine_tf.runs.layout import checkpoint_logs
from imagine_tf.runs.lock import RunLock

# TrainConfig settings (flat keys, `config_keys`) the checkpoint's variables and arrays are
# shaped by.
STATE_SHAPE_FIELDS = (
    "architecture",
    "reward_model.architecture",
    "reward_model.hidden_units",
    "reward_model.pair_gate",
    "reward_model.pair_relations",
    "num_objects",
    "reward_model.normalize_goal",
    "replay_capacity",
    "memory_capacity",
    "max_imagined_goals",
)
_COPIED = (run_layout.CHECKPOINT, run_layout.REPLAY, run_layout.PROGRESS, run_layout.TENSORBOARD)


class ForkError(ValueError):
    """A fork that cannot be made (no checkpoint, a changed state shape, a used target)."""


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system, or links not allowed
        shutil.copy2(source, target)


def fork_source(
    root_dir: str | os.PathLike, expected: str | os.PathLike | None = None
) -> str | None:
    """The source a run directory was forked from; None for a directory with no run.

    Raises:
      ForkError: ``root_dir`` holds a run that is not a fork (forking would overwrite it), or a
        fork of another source than ``expected`` (a repeated command that names another run).
    """
    root = pathlib.Path(root_dir)
    if not (root / run_layout.CONFIG_JSON).exists():
        return None
    if not (root / run_layout.FORK).exists():
        raise ForkError(
            f"{root} already holds a run that is not a fork. Fork into a new --root-dir, or "
            "resume this run without --fork-from."
        )
    source = json.loads((root / run_layout.FORK).read_text())["source"]
    if expected is not None and pathlib.Path(expected).resolve() != pathlib.Path(source):
        raise ForkError(
            f"{root} is a fork of {source}, not of {expected}. Resume it with --fork-from "
            f"{source} (or without --fork-from), or fork {expected} into a new --root-dir."
        )
    return source


def _check_fork_directories(source: pathlib.Path, target: pathlib.Path) -> None:
    """Raises ForkError unless ``source`` holds a checkpointed run and ``target`` is another,
    absent or empty, directory."""
    if source == target:
        raise ForkError(
            f"--fork-from {source} is the --root-dir itself; fork into a new directory."
        )
    if (
        not (source / run_layout.CONFIG_JSON).exists()
        or not (source / run_layout.CHECKPOINT).is_dir()
    ):
        raise ForkError(
            f"{source} has no run checkpoint (config.json and checkpoint/): fork from a run "
            "that `imagine-tf train` has trained for at least one epoch."
        )
    if target.exists() and any(target.iterdir()):
        raise ForkError(
            f"{target} is not empty. A fork goes into a new directory; to continue an existing "
            "fork, run `imagine-tf train` on it without --fork-from."
        )


def _changed_settings(source: pathlib.Path, config) -> tuple[dict, dict]:
    """The fork's config as ``config.json`` has it, and its changes from the source's as
    {flat key: [source, fork]} (`config_keys.flat_config`: an earlier flat ``config.json``
    compares by the same keys); raises ForkError if a `STATE_SHAPE_FIELDS` setting changed."""
    stored = flat_config(json.loads((source / run_layout.CONFIG_JSON).read_text()))
    new = json.loads(json.dumps(dataclasses.asdict(config)))  # as config.json has it
    # A field the source's config.json lacks was added to TrainConfig later: the source ran with
    # its default (defaults keep the earlier behaviour).
    defaults = json.loads(json.dumps(declared_defaults(type(config))))
    changed = {
        k: [stored.get(k, defaults[k]), v]
        for k, v in flat_config(new).items()
        if stored.get(k, defaults[k]) != v
    }
    changed_shapes = [k for k in STATE_SHAPE_FIELDS if k in changed]
    if changed_shapes:
        listed = ", ".join(
            f"{k}: source {changed[k][0]!r}, fork {changed[k][1]!r}" for k in changed_shapes
        )
        raise ForkError(
            f"A fork cannot change what the checkpoint's shapes depend on ({listed}). Keep "
            f"these as in {source / 'config.json'}, or start a new run."
        )
    return new, changed


def _copy_into_staging(source: pathlib.Path, target: pathlib.Path) -> tuple[pathlib.Path, list]:
    """Copies (replay files: links) the source's checkpoint, replay, progress and TensorBoard
    files into a fresh staging sibling of ``target``, under the source's `RunLock`; returns the
    staging directory and the checkpoint's logs."""
    staging = target.parent / f".{target.name}.fork-partial"
    shutil.rmtree(staging, ignore_errors=True)
    with RunLock(source, shared=True):
        logs = checkpoint_logs(source / run_layout.CHECKPOINT)
        staging.mkdir(parents=True)
        for name in _COPIED:
            path = source / name
            if path.is_dir():  # replay files never change once written: links will do
                copy = _link_or_copy if name == run_layout.REPLAY else shutil.copy2
                shutil.copytree(path, staging / name, copy_function=copy)
            elif path.exists():
                shutil.copy2(path, staging / name)
    return staging, logs


def fork_run(source_dir: str | os.PathLike, target_dir: str | os.PathLike, config) -> dict:
    """Makes ``target_dir`` a copy of the run in ``source_dir`` that will train with ``config``.

    Args:
      source_dir: a run directory with a checkpoint (`imagine-tf train` wrote it).
      target_dir: the new run directory: absent or empty.
      config: the fork's `TrainConfig`; its `STATE_SHAPE_FIELDS` must equal the source's.

    Returns:
      The ``fork.json`` record: source, epoch, the changed fields as {field: [source, fork]}.

    Raises:
      ForkError: no checkpoint in the source, a changed state-shape field, or a target that
        already holds files. `RunDirectoryBusy` if the source is training.
    """
    source, target = pathlib.Path(source_dir).resolve(), pathlib.Path(target_dir).resolve()
    _check_fork_directories(source, target)
    new, changed = _changed_settings(source, config)
    staging, logs = _copy_into_staging(source, target)
    record = {
        "source": str(source),
        "epoch": logs[-1]["epoch"] if logs else 0,
        "changed": changed,
        "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    write_text_atomically(staging / run_layout.CONFIG_JSON, json.dumps(new, indent=1))
    write_text_atomically(staging / run_layout.FORK, json.dumps(record, indent=1))
    if target.exists():
        target.rmdir()
    os.replace(staging, target)
    return record
