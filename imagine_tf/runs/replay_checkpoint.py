"""Incremental checkpoints of an episode replay (`imagine_tf.agent.replay.EpisodeReplay`): each save writes only the new episodes.

A full replay (50,000 episodes of N = 3) is about 1.3 GB; rewriting it at every epoch would
cost more than the epoch's training. Instead ``replay/`` holds one file per save,
``episodes_{first:012d}.npz``, with the episodes numbered [first, first + count) (episode e
lives in slot e mod capacity). The run's main checkpoint records how many episodes the replay
had (``episodes_added``); restoring replays the files in order into the ring buffer, keeping
the last ``capacity`` episodes.

Crash safety: a file is written under a temporary name and renamed (atomic); a file is
deleted only once every episode in it has been overwritten *and* a newer main checkpoint no
longer needs it, and files beyond the main checkpoint (a save interrupted before the main
checkpoint was written) are ignored and removed at restore.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np

from imagine_tf.atomic_files import replacing


class ReplayCheckpoint:
    """The ``replay/`` directory of a run.

    Args:
      directory: where the episode files go (created on the first save).
    """

    def __init__(self, directory: str | os.PathLike):
        self.directory = pathlib.Path(directory)
        self.saved_until = 0  # the files hold episodes [.., saved_until); set by `restore`

    def _files(self) -> list[tuple[int, pathlib.Path]]:
        """(first episode, path) of every episode file, in order."""
        if not self.directory.exists():
            return []
        return sorted((int(p.stem.split("_")[1]), p) for p in self.directory.glob("episodes_*.npz"))

    def save(self, replay) -> None:
        """Writes the episodes added since the last save (call before the main checkpoint)."""
        stop = replay.episodes_added
        if stop <= self.saved_until:
            return
        first = max(self.saved_until, stop - replay.capacity)  # older ones were overwritten
        slots = np.arange(first, stop) % replay.capacity
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"episodes_{first:012d}.npz"
        with replacing(path) as temporary:
            np.savez(
                temporary, **{name: getattr(replay, name)[slots] for name in replay.episode_fields}
            )
        self.saved_until = stop

    def prune(self, capacity: int) -> None:
        """Deletes the files whose episodes have all been overwritten (call after the main
        checkpoint is written): those that end at or before ``saved_until − capacity`` (a file
        ends where the next begins)."""
        files = self._files()
        ends = [first for first, _ in files[1:]] + [self.saved_until]
        for (_, path), end in zip(files, ends):
            if end <= self.saved_until - capacity:
                path.unlink()

    def restore(self, replay, episodes_added: int) -> None:
        """Fills ``replay`` with the last ``capacity`` of its first ``episodes_added`` episodes.

        Files beyond ``episodes_added`` (a save whose main checkpoint never landed; all files,
        for a run without a checkpoint: ``episodes_added = 0``) are deleted. Raises a ValueError
        naming the gap if the files do not cover the episodes.
        """
        window_start = max(0, episodes_added - replay.capacity)
        covered = window_start
        for first, path in self._files():
            if first >= episodes_added:  # written by a save whose main checkpoint never landed
                path.unlink()
                continue
            with np.load(path) as arrays:
                numbers = first + np.arange(len(arrays["goal_ids"]))  # the episodes in the file
                keep = (numbers >= window_start) & (numbers < episodes_added)
                if not keep.any():
                    continue
                if numbers[keep][0] > covered:
                    break
                for name in replay.episode_fields:
                    replay.put(name, numbers[keep] % replay.capacity, arrays[name][keep])
                covered = max(covered, int(numbers[keep][-1]) + 1)
        if covered < episodes_added:
            raise ValueError(
                f"The replay files in {self.directory} hold episodes up to {covered}, the checkpoint "
                f"needs {episodes_added}: files are missing. Delete the run directory to start over."
            )
        replay.set_counters(episodes_added)
        self.saved_until = episodes_added
