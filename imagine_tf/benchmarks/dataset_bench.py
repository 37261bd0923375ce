"""`imagine-tf bench dataset`: time to build `playground_trajectories` and to load it.

Builds the `scripted_mixture` config resized to `num_episodes` (50,000 by default, the paper's
size) into a fresh directory, then reads it back as supervised data (final states of training
episodes, every state of held-out episodes, oracle labels for the 415 goals).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import pathlib
import shutil
import sys
import tempfile
import time


def run_dataset_benchmark(num_episodes: int = 50_000, data_dir: str | None = None) -> dict:
    from imagine_tf.data.supervised import load_supervised_data
    from imagine_tf.training.dataset_build import build_dataset

    scratch = data_dir is None
    root = pathlib.Path(data_dir or tempfile.mkdtemp(prefix="imagine_tf_bench_"))
    try:
        start = time.perf_counter()
        with contextlib.redirect_stdout(sys.stderr):  # TFDS prints its progress to stdout
            _, directory = build_dataset("scripted_mixture", root, num_episodes)
        build_seconds = time.perf_counter() - start
        size = sum(f.stat().st_size for f in directory.iterdir())
        start = time.perf_counter()
        data = load_supervised_data(directory)
        load_seconds = time.perf_counter() - start
    finally:
        if scratch:
            shutil.rmtree(root, ignore_errors=True)
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "episodes": num_episodes,
        "build_seconds": round(build_seconds, 1),
        "build_episodes_per_s": round(num_episodes / build_seconds),
        "bytes_on_disk": size,
        "load_seconds": round(load_seconds, 1),
        "load_episodes_per_s": round(num_episodes / load_seconds),
        "examples": {
            "train_states": int(len(data.train_states)),
            "test_states": int(len(data.test_states)),
            "goals": len(data.goals),
            "labelled_pairs_per_s": round(
                (len(data.train_states) + len(data.test_states)) * len(data.goals) / load_seconds
            ),
        },
        "target_build_seconds": 300,
    }
