"""The reward model's commands: OR pretraining, the TFDS dataset, supervised training, studies,
reports and keras-tuner sweeps.

    imagine-tf dataset build [--config scripted_mixture|random|tiny] [--data-dir D]
    imagine-tf reward pretrain-or | train | study | report | tune ...
"""

from __future__ import annotations

import argparse
import json
import pathlib

from imagine_tf.cli.common import UsageError, add_gin_flags, limit_threads, parse_gin
from imagine_tf.data.supervised import GOAL_SETS
from imagine_tf.training.reward_study import COLUMNS as STUDY_COLUMNS


def _parse_counts(text: str) -> list[int]:
    """ "2-10,15,21" -> [2, 3, ..., 10, 15, 21]."""
    counts = []
    try:
        for part in text.split(","):
            low, _, high = part.partition("-")
            counts += list(range(int(low), int(high or low) + 1))
    except ValueError:
        raise UsageError(f"--num-inputs takes counts like '2-10,15', got {text!r}.") from None
    if not counts or min(counts) < 2:
        raise UsageError(f"OR nets need >= 2 inputs, got {text!r}.")
    return counts


def _pretrain_or_command(args: argparse.Namespace) -> int:
    import time

    from tqdm import tqdm

    from imagine_tf.networks import or_network
    from imagine_tf.reward.or_pretraining import or_accuracy, pretrain_or_network

    counts = _parse_counts(args.num_inputs)
    out_dir = pathlib.Path(args.out_dir) if args.out_dir else or_network.CACHE_DIR
    todo = [n for n in counts if args.force or not or_network.weights_path(n, out_dir).exists()]
    for n in sorted(set(counts) - set(todo)):
        print(f"n = {n}: {or_network.weights_path(n, out_dir)} exists (use --force to redo)")
    for n in tqdm(todo, desc="OR nets", unit="net", disable=not todo):
        start = time.perf_counter()
        weights = pretrain_or_network(
            n,
            num_points=args.points,
            epochs=args.epochs,
            batch_size=args.batch_size,
            seed=args.seed,
        )
        path = or_network.save_or_weights(weights, out_dir)
        tqdm.write(
            f"n = {n}: accuracy {or_accuracy(weights):.4f} on U[0,1]^{n}, "
            f"{time.perf_counter() - start:.1f} s -> {path}"
        )
    return 0


def _dataset_build_command(args: argparse.Namespace) -> int:
    import time

    from imagine_tf.training.dataset_build import build_dataset

    start = time.perf_counter()
    try:
        builder, directory = build_dataset(
            args.config, args.data_dir, args.num_episodes, args.beam_pipeline_options
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    splits = {name: info.num_examples for name, info in builder.info.splits.items()}
    print(f"Built {directory} in {time.perf_counter() - start:.1f} s: {splits}")
    return 0


def _reward_train_command(args: argparse.Namespace) -> int:
    from imagine_tf.training import reward_recipe

    directory = _prepared_dataset(args)
    parse_gin(args, reward_recipe)
    overrides = {
        key: value
        for key, value in {
            "architecture": args.arch,
            "goal_set": args.goal_set,
            "seed": args.seed,
            "max_training_seconds": args.max_seconds,
            "max_epochs": args.max_epochs,
            "max_train_episodes": args.max_train_episodes,
            "max_test_episodes": args.max_test_episodes,
        }.items()
        if value is not None
    }
    metrics = reward_recipe.train_reward_model(str(directory), args.root_dir, **overrides)
    summary = metrics["summary"]
    print(json.dumps({"root_dir": args.root_dir, "epochs": metrics["epochs"],
                      "training_seconds": round(metrics["training_seconds"], 1),
                      "one_object": summary["one_object"], "two_object": summary["two_object"]}, indent=1))  # fmt: skip
    return 0


def _reward_study_command(args: argparse.Namespace) -> int:
    from imagine_tf.training.reward_study import format_study, run_reward_study

    if args.ensemble_size < 1:  # before the dataset is prepared
        raise UsageError(f"--ensemble-size must be >= 1, got {args.ensemble_size}.")
    directory = _prepared_dataset(args)
    limit_threads(args.threads)
    report = run_reward_study(
        directory,
        args.root_dir,
        study=args.study,
        seeds=args.seeds,
        architectures=args.arch,
        max_epochs=args.max_epochs,
        patience=args.patience,
        max_training_seconds=args.max_seconds,
        max_test_episodes=args.max_test_episodes,
        validation_fraction=args.validation_fraction,
        command=_study_command(args),
        goal_set=args.goal_set,
        normalize_goal=args.normalize_goal,
        pair_gate=args.pair_gate,
        pair_relations=args.pair_relations,
        ensemble_size=args.ensemble_size,
    )
    print(format_study(report))
    return 0


def _study_command(args: argparse.Namespace) -> str:
    """The `reward study` command line of these arguments (one seed per run is recorded)."""
    parts = ["imagine-tf reward study", f"--study {args.study}", f"--root-dir {args.root_dir}",
             f"--max-epochs {args.max_epochs}", f"--patience {args.patience}",
             f"--validation-fraction {args.validation_fraction}"]  # fmt: skip
    for flag, value in (("--arch", " ".join(args.arch or [])), ("--seeds", " ".join(map(str, args.seeds))),
                        ("--max-seconds", args.max_seconds), ("--max-test-episodes", args.max_test_episodes),
                        ("--threads", args.threads), ("--dataset-dir", args.dataset_dir),
                        ("--goal-set", args.goal_set)):  # fmt: skip
        if value:
            parts.append(f"{flag} {value}")
    if args.normalize_goal:
        parts.append("--normalize-goal")
    if args.pair_gate != "per_slot":
        parts.append(f"--pair-gate {args.pair_gate}")
    if args.pair_relations:
        parts.append("--pair-relations")
    if args.ensemble_size > 1:
        parts.append(f"--ensemble-size {args.ensemble_size}")
    return " ".join(parts)


def _reward_report_command(args: argparse.Namespace) -> int:
    from imagine_tf.training.earlier_report import read_earlier_report
    from imagine_tf.training.reward_study import (
        collect_study,
        format_study,
        merge_reports,
        plot_study,
        write_report,
    )

    try:
        report = collect_study(args.root_dir)
        if args.include:
            report = merge_reports(report, read_earlier_report(args.include))
    except (FileNotFoundError, ValueError) as error:
        raise UsageError(str(error)) from None
    if args.out:
        command = f"imagine-tf reward report --root-dir {args.root_dir} --out {args.out}"
        command += f" --include {args.include}" if args.include else ""
        write_report(report, args.out, command + (f" --plot {args.plot}" if args.plot else ""))
    if args.plot:
        plot_study(report, args.plot, args.columns)
    print(format_study(report, args.columns))
    return 0


def _prepared_dataset(args: argparse.Namespace):
    from imagine_tf.training.dataset_build import dataset_dir

    directory = pathlib.Path(args.dataset_dir or dataset_dir(args.data_dir, args.config))
    if not (directory / "dataset_info.json").exists():
        raise UsageError(
            f"No prepared dataset at {directory}. Build one with `imagine-tf dataset build "
            f"--config {args.config}` (or pass --dataset-dir)."
        )
    return directory


def _reward_tune_command(args: argparse.Namespace) -> int:
    from imagine_tf.data.supervised import goal_set, load_supervised_data
    from imagine_tf.tuning.reward_tuning import format_results, tune_reward_model

    directory = _prepared_dataset(args)
    data = load_supervised_data(directory, goal_set(args.goal_set), args.max_train_episodes, 1)
    results = tune_reward_model(
        data,
        args.root_dir,
        architecture=args.arch,
        tuner=args.tuner,
        max_trials=args.max_trials,
        max_epochs=args.max_epochs,
        batches_per_epoch=args.batches_per_epoch,
        seed=args.seed,
    )
    print(format_results(results))
    print(f"Saved to {args.root_dir}/tuning_results_{args.arch}.json")
    return 0


def add_commands(commands) -> None:
    """Adds `reward ...` and `dataset build` to the `imagine-tf` subcommands."""
    reward = commands.add_parser("reward", help="the learned reward model")
    reward_commands = reward.add_subparsers(dest="reward_command", required=True)
    pretrain = reward_commands.add_parser(
        "pretrain-or", help="pretrain the frozen OR networks (cached; skips existing ones)"
    )
    pretrain.add_argument("--num-inputs", default="2-10,15,21,28,36,45", help="e.g. 2-10,15")
    pretrain.add_argument("--out-dir", help="default: ~/.cache/imagine_tf/or_weights")
    pretrain.add_argument("--points", type=int, default=500_000)
    pretrain.add_argument("--epochs", type=int, default=15)
    pretrain.add_argument("--batch-size", type=int, default=1024)
    pretrain.add_argument("--seed", type=int, default=0)
    pretrain.add_argument("--force", action="store_true", help="retrain existing nets")
    pretrain.set_defaults(run=_pretrain_or_command)

    train = reward_commands.add_parser("train", help="supervised training on the TFDS dataset")
    train.add_argument("--arch", choices=("ma", "fa", "fc", "ma_pairs"))
    train.add_argument(
        "--root-dir", "--root_dir", required=True, help="run directory (resumes if it exists)"
    )
    train.add_argument("--config", default="scripted_mixture", help="dataset config")
    train.add_argument("--data-dir", default="~/tensorflow_datasets")
    train.add_argument(
        "--dataset-dir", help="a prepared dataset directory (overrides the two above)"
    )
    train.add_argument("--seed", type=int)
    train.add_argument("--max-epochs", type=int)
    train.add_argument("--max-seconds", type=float, help="training time budget")
    train.add_argument("--goal-set", choices=GOAL_SETS, help="one_object (default), grasp, all")
    train.add_argument("--max-train-episodes", type=int)
    train.add_argument("--max-test-episodes", type=int)
    add_gin_flags(train)
    train.set_defaults(run=_reward_train_command)

    study = reward_commands.add_parser("study", help="multi-seed F1 study (resumable)")
    study.add_argument(
        "--study", choices=("generalization", "two_object"), default="generalization"
    )
    study.add_argument("--root-dir", "--root_dir", required=True, help="one sub-directory per run")
    study.add_argument("--arch", nargs="+", choices=("ma", "fa", "fc", "ma_pairs"),
                       help="default: ma fa fc (generalization) or ma_pairs (two_object)")  # fmt: skip
    study.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    study.add_argument("--max-epochs", type=int, default=100, help="epochs of 200 batches per run")
    study.add_argument("--patience", type=int, default=15,
                       help="epochs without a better validation F1 before a run stops")  # fmt: skip
    study.add_argument("--max-seconds", type=float, help="training time budget per run")
    study.add_argument("--max-test-episodes", type=int, help="held-out episodes scored for F1")
    study.add_argument("--validation-fraction", type=float, default=0.1,
                       help="training episodes held out for early stopping")  # fmt: skip
    study.add_argument("--threads", type=int, help="TensorFlow threads (default: all cores)")
    study.add_argument(
        "--normalize-goal",
        action="store_true",
        help="gates read the L2-normalised goal embedding (not in the paper)",
    )
    # RewardNetwork's PAIR_GATES, spelled out: the CLI does not import TensorFlow to parse flags.
    study.add_argument("--pair-gate", choices=("per_slot", "shared", "residual"), default="per_slot",
                       help="MA-pairs: one gate per input value, MA's gate for both objects, or "
                            "MA's gate plus a second-slot term (residual)")  # fmt: skip
    study.add_argument("--pair-relations", action="store_true",
                       help="MA-pairs: the pair input also holds the relation features of the "
                            "objects' initial positions (not in the paper)")  # fmt: skip
    study.add_argument("--ensemble-size", type=int, default=1,
                       help="K > 1: each seed s is the mean probability of the runs of seeds "
                            "s*K ... s*K+K-1 (not in the paper)")  # fmt: skip
    study.add_argument("--goal-set", choices=GOAL_SETS,
                       help="override the study's goal set (generalization: one_object, two_object: all)")  # fmt: skip
    study.add_argument("--config", default="scripted_mixture", help="dataset config")
    study.add_argument("--data-dir", default="~/tensorflow_datasets")
    study.add_argument(
        "--dataset-dir", help="a prepared dataset directory (overrides the two above)"
    )
    study.set_defaults(run=_reward_study_command)

    report = reward_commands.add_parser("report", help="F1 table, JSON and bar chart of a study")
    report.add_argument(
        "--root-dir", "--root_dir", required=True, help="a study directory (metrics.json below it)"
    )
    report.add_argument("--out", help="write the report as JSON")
    report.add_argument("--include", help="an earlier report JSON whose runs are kept "
                                          "(run directories need not exist any more)")  # fmt: skip
    report.add_argument("--plot", help="write a bar chart PNG")
    report.add_argument("--columns", nargs="+", choices=[name for name, _ in STUDY_COLUMNS],
                        help="F1 columns of the table and chart (default: all that have values)")  # fmt: skip
    report.set_defaults(run=_reward_report_command)

    tune = reward_commands.add_parser("tune", help="keras-tuner search, objective validation F1")
    tune.add_argument("--arch", choices=("ma", "fa", "fc", "ma_pairs"), default="ma")
    tune.add_argument("--tuner", choices=("random", "hyperband"), default="random")
    tune.add_argument(
        "--root-dir", "--root_dir", required=True, help="search directory (resumes if it exists)"
    )
    tune.add_argument("--config", default="scripted_mixture", help="dataset config")
    tune.add_argument("--data-dir", default="~/tensorflow_datasets")
    tune.add_argument(
        "--dataset-dir", help="a prepared dataset directory (overrides the two above)"
    )
    tune.add_argument("--max-trials", type=int, default=10)
    tune.add_argument("--max-epochs", type=int, default=10, help="reward epochs per trial")
    tune.add_argument("--batches-per-epoch", type=int, default=200)
    tune.add_argument("--max-train-episodes", type=int)
    tune.add_argument("--seed", type=int, default=0)
    tune.add_argument("--goal-set", choices=GOAL_SETS, default="one_object")
    tune.set_defaults(run=_reward_tune_command)

    dataset = commands.add_parser("dataset", help="the TFDS trajectory dataset")
    dataset_commands = dataset.add_subparsers(dest="dataset_command", required=True)
    build = dataset_commands.add_parser("build", help="build playground_trajectories")
    build.add_argument(
        "--config", default="scripted_mixture", help="scripted_mixture, random, tiny"
    )
    build.add_argument("--data-dir", default="~/tensorflow_datasets")
    build.add_argument("--num-episodes", type=int, help="a resized copy, named <config>_<n>")
    build.add_argument(
        "--beam-pipeline-options",
        help="generate on Apache Beam, e.g. runner=DirectRunner,direct_num_workers=2 "
        "(as tfds build --beam_pipeline_options)",
    )
    build.set_defaults(run=_dataset_build_command)
