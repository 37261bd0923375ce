"""A consistent copy of a run's last checkpoint, taken while the run may be training.

`LearnerCheckpoint.save` never changes a landed ``checkpoint/`` in place: it renames it to
``checkpoint.old`` once the next one is complete, renames the new one in, then deletes the old.
So a copy is consistent if the directory it was read from is the same before and after the copy
(same inode: the next checkpoint is a directory created before the old one is removed, so it
never reuses the old one's inode). A copy that a save overtook is discarded and taken again.
This lets `imagine-tf eval` measure a run at its current epoch without stopping it.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import time

from imagine_tf.runs.layout import CHECKPOINT_NAMES, CONFIG_JSON


class SnapshotError(RuntimeError):
    """No consistent copy could be taken (the run saves faster than the copy, or has none)."""


def snapshot_checkpoint(
    root_dir: str | os.PathLike,
    into: str | os.PathLike,
    attempts: int = 5,
    wait_seconds: float = 1.0,
) -> pathlib.Path:
    """Copies ``root_dir``'s checkpoint and ``config.json`` into ``into`` (a new run directory
    with only these); returns ``into``. Raises `FileNotFoundError` if the run has no checkpoint
    and `SnapshotError` if ``attempts`` copies were all overtaken by saves."""
    root, into = pathlib.Path(root_dir), pathlib.Path(into)
    into.mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / CONFIG_JSON, into / CONFIG_JSON)
    for attempt in range(attempts):
        for name in CHECKPOINT_NAMES:
            source = root / name
            try:
                before = source.stat().st_ino
                shutil.copytree(source, into / name)
                if source.stat().st_ino == before:
                    return into
            except FileNotFoundError:  # renamed or removed by a save meanwhile (or absent)
                pass
            shutil.rmtree(into / name, ignore_errors=True)
        if not any((root / name).exists() for name in CHECKPOINT_NAMES):
            raise FileNotFoundError(f"No checkpoint in {root}: train at least one epoch first.")
        time.sleep(wait_seconds)
    raise SnapshotError(
        f"Could not copy {root}/checkpoint in {attempts} attempts: each copy was overtaken by a "
        "save. Try again, or evaluate once the run has stopped."
    )
