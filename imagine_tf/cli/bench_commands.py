"""`imagine-tf bench env|dataset|train|serving|distributed`: the benchmarks, printed and
written as JSON records (docs/results/)."""

from __future__ import annotations

import argparse
import json
import os
import shlex

from imagine_tf.cli.common import UsageError, limit_threads
from imagine_tf.constants import COMPUTE_DTYPES


def _run_benchmark(args: argparse.Namespace) -> dict:
    """The results of ``args.target``'s benchmark (each module imported only when chosen)."""
    if args.target == "train":
        from imagine_tf.benchmarks.train_bench import run_train_benchmarks

        if args.repeats < 1:
            raise UsageError(f"--repeats must be >= 1, got {args.repeats}.")
        return run_train_benchmarks(
            quick=args.quick,
            compute_dtypes=tuple(dict.fromkeys(args.compute_dtype or ["float32"])),
            reward_patience=args.reward_patience,
            repeats=args.repeats,
        )
    if args.target == "serving":
        from imagine_tf.benchmarks.serving_bench import run_serving_benchmark

        return run_serving_benchmark(soak_seconds=args.soak_seconds, quick=args.quick)
    if args.target == "distributed" and args.learners:
        from imagine_tf.benchmarks.data_parallel_bench import run_data_parallel_benchmark

        if min(args.learners) < 1:
            raise UsageError(f"--learners must be >= 1 each, got {args.learners}.")
        steps = 20 if args.quick else 200
        return run_data_parallel_benchmark(tuple(args.learners), steps=steps)
    if args.target == "distributed":
        from imagine_tf.benchmarks.distributed_bench import run_distributed_benchmark

        return run_distributed_benchmark(quick=args.quick)
    if args.target == "dataset":
        from imagine_tf.benchmarks import dataset_bench

        if args.beam_workers is None:
            return dataset_bench.run_dataset_benchmark(args.num_episodes, args.data_dir)
        try:
            return dataset_bench.run_beam_build_benchmark(
                args.num_episodes, args.beam_workers, args.data_dir
            )
        except ValueError as error:
            raise UsageError(str(error)) from None
    from imagine_tf.benchmarks.env_bench import run_env_benchmark

    return run_env_benchmark(quick=args.quick)


def _bench_command(args: argparse.Namespace) -> int:
    from imagine_tf.atomic_files import write_record
    from imagine_tf.benchmarks.env_bench import format_table

    learner = args.target == "train" and not args.split_ops
    limit_threads(args.threads, learner=learner)
    load_at_start = os.getloadavg()
    results = _run_benchmark(args)
    # the command that wrote the record, as typed (a record is one command run, written whole)
    results["command"] = "imagine-tf " + shlex.join(args.argv)
    # what else ran: the load averages (1, 5, 15 min) around the benchmark, and the caller's words
    results["load_average"] = {
        "at_start": [round(x, 2) for x in load_at_start],
        "at_end": [round(x, 2) for x in os.getloadavg()],
    }
    if args.conditions:
        results["conditions"] = args.conditions
    if args.out:
        write_record(args.out, results)
    if args.target == "env" and not args.json:
        print(format_table(results))
    else:  # the train record's warm-up epoch is in the file, not on the screen
        print(json.dumps({k: v for k, v in results.items() if k != "warm_up_epoch"}, indent=1))
    return 0


def add_commands(commands) -> None:
    """Registers ``bench`` on the ``imagine-tf`` subparsers."""
    bench = commands.add_parser("bench", help="benchmarks")
    bench.add_argument("target", choices=("env", "dataset", "train", "serving", "distributed"))
    bench.add_argument("--soak-seconds", type=float, default=60.0, help="serving: soak length")
    bench.add_argument("--threads", type=int, help="TensorFlow threads (train: 1 = one core)")
    bench.add_argument(
        "--split-ops",
        action="store_true",
        help="train: each op over all threads (TensorFlow's default), not a learner's "
        "one thread per op, ops side by side (what `imagine-tf train` runs)",
    )
    bench.add_argument("--num-episodes", type=int, default=50_000, help="dataset: episodes")
    bench.add_argument("--data-dir", help="dataset: build here (default: a scratch directory)")
    bench.add_argument(
        "--beam-workers",
        type=int,
        help="dataset: time the build without Beam and on Beam's DirectRunner with this many "
        "worker processes (instead of build + load)",
    )
    bench.add_argument(
        "--conditions",
        help="what else ran on the machine, written into the record (it also holds the load "
        "averages at the start and the end)",
    )
    bench.add_argument(
        "--learners",
        type=int,
        nargs="+",
        help="distributed: time data-parallel learners instead (K processes of one thread, "
        "gradients all-reduced), for each K given",
    )
    bench.add_argument("--json", action="store_true")
    bench.add_argument("--out", help="also write the JSON results to this file")
    bench.add_argument("--quick", action="store_true", help="short runs (smoke test)")
    bench.add_argument(
        "--compute-dtype",
        choices=COMPUTE_DTYPES,
        nargs="+",
        help="train: the actor / critic / relabelling precision(s) (TrainConfig.compute_dtype; "
        "default float32); several are measured in turn, into one record",
    )
    bench.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="train: measure each precision this many times in this run (the record keeps "
        "every run and their median, min and max)",
    )
    bench.add_argument(
        "--reward-patience",
        type=int,
        default=15,
        help="train: reward-epochs without a better held-out F1 before the reward "
        "retraining stops (RewardModelConfig.patience; 15: the reference)",
    )
    bench.set_defaults(run=_bench_command)
