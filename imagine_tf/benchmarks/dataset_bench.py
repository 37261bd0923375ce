"""`imagine-tf bench dataset`: time to build `playground_trajectories` and to load it.

Builds the `scripted_mixture` config resized to `num_episodes` (50,000 by default, the paper's
size) into a fresh directory, then reads it back as supervised data (final states of training
episodes, every state of held-out episodes, oracle labels for the 415 goals).

With `--beam-workers N` it instead times the same build twice, through Python generators and
through Apache Beam's DirectRunner with N worker processes, and checks that both wrote the same
episodes (the same records per split; the runners cut shards at different places). A build
that lost episodes (`IncompleteBuild`) is recorded as failed.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import os
import pathlib
import resource
import shutil
import sys
import tempfile
import time

from imagine_tf.provenance import machine_description


def run_dataset_benchmark(num_episodes: int = 50_000, data_dir: str | None = None) -> dict:
    from imagine_tf.data.supervised import load_supervised_data

    with _build_root(data_dir) as root:
        build, directory = _timed_build(root, num_episodes, None)
        start = time.perf_counter()
        data = load_supervised_data(directory)
        load_seconds = time.perf_counter() - start
    return {
        **_header(num_episodes),
        **build,
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


BEAM_PIPELINE_OPTIONS = (
    "runner=DirectRunner,direct_num_workers={workers},direct_running_mode=multi_processing"
)


def run_beam_build_benchmark(
    num_episodes: int = 50_000, beam_workers: int = 2, data_dir: str | None = None
) -> dict:
    """Times the build through Python generators, then through Beam's DirectRunner.

    Builds into `<data_dir>/plain` and `<data_dir>/beam` (a scratch directory by default),
    which must not exist: TFDS would reuse an earlier build.
    """
    if beam_workers < 1:
        raise ValueError(f"beam_workers must be >= 1, got {beam_workers}.")
    earlier = ("plain", "beam")
    if data_dir is not None and any((pathlib.Path(data_dir) / d).exists() for d in earlier):
        raise ValueError(
            f"{data_dir} already holds plain/ or beam/ builds, which TFDS would reuse; "
            "pass an empty --data-dir or none."
        )
    from imagine_tf.data.playground_trajectories.split_examples import split_sizes

    options = BEAM_PIPELINE_OPTIONS.format(workers=beam_workers)
    load_average = os.getloadavg()[0]  # > 0.5 on 2 cores: something else was running
    with _build_root(data_dir) as root:
        plain, plain_dir = _timed_build(root / "plain", num_episodes, None)
        plain["max_rss_bytes"] = _max_rss(resource.RUSAGE_SELF)
        beam, beam_dir = _timed_build(root / "beam", num_episodes, options)
        same = None if "failed" in beam else _record_digests(plain_dir) == _record_digests(beam_dir)
    return {
        **_header(num_episodes),
        "load_average_1min_at_start": round(load_average, 2),
        "config": "scripted_mixture",
        "expected_split_episodes": split_sizes(num_episodes),
        "plain": plain,
        "beam": {
            "pipeline_options": options,
            **beam,
            "max_rss_bytes": {
                "driver": _max_rss(resource.RUSAGE_SELF),
                "largest_worker": _max_rss(resource.RUSAGE_CHILDREN),
            },
        },
        "beam_speedup": (
            None if same is None else round(plain["build_seconds"] / beam["build_seconds"], 2)
        ),
        "same_episodes": same,
    }


def _max_rss(who: int) -> int:
    """Peak resident memory in bytes so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(who).ru_maxrss * 1024


def _timed_build(data_dir: pathlib.Path, num_episodes: int, beam_pipeline_options: str | None):
    """(record, directory) of one build; a build that lost episodes is recorded as failed."""
    from imagine_tf.data.playground_trajectories import IncompleteBuild
    from imagine_tf.training.dataset_build import build_dataset

    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(sys.stderr):  # TFDS prints its progress to stdout
            builder, directory = build_dataset(
                "scripted_mixture", data_dir, num_episodes, beam_pipeline_options
            )
    except IncompleteBuild as error:
        return {"build_seconds": round(time.perf_counter() - start, 1), "failed": str(error)}, None
    seconds = time.perf_counter() - start
    record = {
        "build_seconds": round(seconds, 1),
        "build_episodes_per_s": round(num_episodes / seconds),
        "split_episodes": {name: split.num_examples for name, split in builder.info.splits.items()},
        "bytes_on_disk": sum(f.stat().st_size for f in directory.iterdir()),
    }
    return record, directory


@contextlib.contextmanager
def _build_root(data_dir: str | None):
    """``data_dir``, or a scratch directory removed afterwards."""
    if data_dir is not None:
        yield pathlib.Path(data_dir)
        return
    root = pathlib.Path(tempfile.mkdtemp(prefix="imagine_tf_bench_"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _header(num_episodes: int) -> dict:
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "machine": machine_description(),
        "episodes": num_episodes,
    }


def _record_digests(directory: pathlib.Path) -> dict[str, list[str]]:
    """The sorted sha256 digests of each split's records, whatever the shards."""
    import tensorflow as tf

    digests: dict[str, list[str]] = {}
    for path in sorted(f for f in directory.iterdir() if ".tfrecord" in f.name):
        split = path.name.split("-")[1].split(".")[0]  # <name>-<split>.tfrecord-<i>-of-<n>
        for record in tf.data.TFRecordDataset(str(path)).as_numpy_iterator():
            digests.setdefault(split, []).append(hashlib.sha256(record).hexdigest())
    return {split: sorted(values) for split, values in digests.items()}
