"""`imagine-tf bench distributed --learners 1 2`: data-parallel DDPG learners, each a process of
one TensorFlow thread (`benchmarks/data_parallel_worker.py`), on 127.0.0.1.

For each K: K learners take ``steps`` `Ddpg.update`s (MA actor and critic of width 256, batches
of 256 fixed transitions each; the relabelling and the replay are not in it) with their
gradients all-reduced (sum) for K ≥ 2, none for K = 1. Recorded: seconds per update, updates/s
of one learner and transitions/s summed over the K learners; for K ≥ 2 also the all-reduce
alone (the same gradients' shapes, zeros, as many all-reduces: two per update) and its share of
an update, with the bytes one update all-reduces.
"""

from __future__ import annotations

import json
import pathlib
import tempfile

from imagine_tf.benchmarks.data_parallel_worker import worker_process
from imagine_tf.distributed.address import free_port
from imagine_tf.provenance import machine_description


def _run_workers(count: int, options: list[str], scratch: pathlib.Path, name: str) -> list[dict]:
    """``count`` worker processes at once (no strategy for one); their timing records."""
    workers = ",".join(f"127.0.0.1:{free_port()}" for _ in range(count)) if count > 1 else ""
    paths = [scratch / f"{name}_{index}.json" for index in range(count)]
    processes = [
        worker_process(
            workers, index, ["--num-workers", str(count), *options, "--timing", str(path)]
        )
        for index, path in enumerate(paths)
    ]
    for process in processes:
        output, _ = process.communicate(timeout=900)
        if process.returncode != 0:
            raise RuntimeError(f"a learner process failed:\n{output[-3000:]}")
    return [json.loads(path.read_text()) for path in paths]


def run_data_parallel_benchmark(
    learners=(1, 2), steps: int = 200, batch: int = 256, hidden: int = 256
) -> dict:
    """The record described in the module docstring."""
    options = ["--steps", str(steps), "--batch", str(batch), "--hidden", str(hidden)]
    rows = {}
    with tempfile.TemporaryDirectory(prefix="imagine_tf_dp_") as scratch:
        scratch = pathlib.Path(scratch)
        for count in learners:
            timings = _run_workers(count, options, scratch, f"k{count}")
            seconds = max(t["seconds_per_call"] for t in timings)  # the slowest sets the pace
            row = {
                "seconds_per_update": seconds,
                "updates_per_s_per_learner": 1.0 / seconds,
                "transitions_per_s": count * batch / seconds,
                "gradient_bytes_per_update": timings[0]["gradient_bytes_per_update"],
            }
            if count > 1:
                reduce = _run_workers(count, [*options, "--reduce-only"], scratch, f"r{count}")
                alone = max(t["seconds_per_call"] for t in reduce)
                row["all_reduce_seconds_per_update"] = alone
                row["all_reduce_share_of_update"] = alone / seconds
            rows[str(count)] = row
    return {
        "what": __doc__.split("\n\n")[1].replace("\n", " "),
        "machine": machine_description(),
        "steps": steps,
        "batch_size": batch,
        "hidden_units": hidden,
        "threads_per_learner": 1,
        "learners": rows,
    }
