"""The reward model's commands: OR pretraining, the TFDS dataset, supervised training, studies
and reports; `reward tune` is `imagine-tf tune reward` (`tune_commands`).

    imagine-tf dataset build [--config scripted_mixture|random|tiny] [--data-dir D]
    imagine-tf reward pretrain-or | train | study | report | tune ...
"""

from __future__ import annotations

import argparse
import json
import pathlib

from imagine_tf.atomic_files import write_record
from imagine_tf.cli import tune_commands
from imagine_tf.cli.common import (
    UsageError,
    add_dataset_flags,
    add_gin_flags,
    add_gin_setting_flags,
    command_line,
    gin_binding,
    gin_configured,
    limit_threads,
    prepared_dataset,
)
from imagine_tf.reward.study import COLUMNS as STUDY_COLUMNS

# The model and training settings of `reward train` and `reward study`, bound in gin
# (`RewardTrainConfig`, `RewardStudyConfig`); their flags are errors that say so.
TRAIN_SETTINGS = {
    "--arch": gin_binding("RewardTrainConfig.architecture = 'ma'"),
    "--seed": gin_binding("RewardTrainConfig.seed = 1"),
    "--goal-set": gin_binding("RewardTrainConfig.goal_set = 'one_object'"),
    "--max-epochs": gin_binding("RewardTrainConfig.max_epochs = 100"),
    "--patience": gin_binding("RewardTrainConfig.patience = 15"),
    "--max-seconds": gin_binding("RewardTrainConfig.max_training_seconds = 3600"),
    "--max-train-episodes": gin_binding("RewardTrainConfig.max_train_episodes = 1000"),
    "--max-test-episodes": gin_binding("RewardTrainConfig.max_test_episodes = 1000"),
    "--validation-fraction": gin_binding("RewardTrainConfig.validation_fraction = 0.1"),
    "--normalize-goal": gin_binding("RewardTrainConfig.normalize_goal = True"),
    "--pair-gate": gin_binding("RewardTrainConfig.pair_gate = 'shared'"),
    "--pair-relations": gin_binding("RewardTrainConfig.pair_relations = True"),
}
STUDY_SETTINGS = {
    "--study": "--gin-file configs/studies/reward_generalization.gin (or "
    "configs/studies/reward_two_object.gin)",
    "--arch": gin_binding("RewardStudyConfig.architectures = ('ma', 'fa', 'fc')"),
    "--ensemble-size": gin_binding("RewardStudyConfig.ensemble_size = 3"),
    **{flag: text for flag, text in TRAIN_SETTINGS.items() if flag not in ("--arch", "--seed")},
}


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

    from imagine_tf.reward import or_network
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

    from imagine_tf.data.playground_trajectories import IncompleteBuild
    from imagine_tf.training.dataset_build import build_dataset

    start = time.perf_counter()
    try:
        builder, directory = build_dataset(
            args.config, args.data_dir, args.num_episodes, args.beam_pipeline_options
        )
    except (ValueError, IncompleteBuild) as error:
        raise UsageError(str(error)) from None
    splits = {name: info.num_examples for name, info in builder.info.splits.items()}
    print(f"Built {directory} in {time.perf_counter() - start:.1f} s: {splits}")
    return 0


def _reward_train_command(args: argparse.Namespace) -> int:
    from imagine_tf.reward import recipe as reward_recipe

    config, _ = _reward_configs(args, reward_recipe)
    directory = prepared_dataset(args)
    metrics = reward_recipe.train_reward_model(str(directory), args.root_dir, config)
    summary = metrics["summary"]
    print(
        json.dumps(
            {
                "root_dir": args.root_dir,
                "epochs": metrics["epochs"],
                "training_seconds": round(metrics["training_seconds"], 1),
                "one_object": summary["one_object"],
                "two_object": summary["two_object"],
            },
            indent=1,
        )
    )
    return 0


def _reward_configs(args: argparse.Namespace, module):
    """The gin-bound (`RewardTrainConfig`, `RewardStudyConfig`); a `UsageError` if invalid."""
    from imagine_tf.reward.config import RewardStudyConfig, reward_train_config

    return gin_configured(args, module, lambda: (reward_train_config(), RewardStudyConfig()))


def _reward_study_command(args: argparse.Namespace) -> int:
    from imagine_tf.reward import study as reward_study

    config, study = _reward_configs(args, reward_study)  # checked before the dataset
    directory = prepared_dataset(args)
    limit_threads(args.threads)
    command = command_line("reward study", args, ("root_dir", "seeds"), ("threads", "dataset_dir"))
    report = reward_study.run_reward_study(
        directory, args.root_dir, seeds=args.seeds, config=config, study=study, command=command
    )
    print(reward_study.format_study(report))
    return 0


def _reward_report_command(args: argparse.Namespace) -> int:
    from imagine_tf.runs.earlier_report import read_earlier_report
    from imagine_tf.reward.study import (
        collect_study,
        format_study,
        merge_reports,
        plot_study,
    )

    if args.root_dir is None and args.include is None:
        raise UsageError("give --root-dir (a study directory), --include (a report), or both.")
    try:
        report = collect_study(args.root_dir) if args.root_dir else {"runs": []}
        if args.include:
            report = merge_reports(report, read_earlier_report(args.include))
    except (FileNotFoundError, ValueError) as error:
        raise UsageError(str(error)) from None
    if args.out:
        command = "imagine-tf reward report"
        command += f" --root-dir {args.root_dir}" if args.root_dir else ""
        command += f" --out {args.out}"
        command += f" --include {args.include}" if args.include else ""
        write_record(args.out, report, command + (f" --plot {args.plot}" if args.plot else ""))
    if args.plot:
        plot_study(report, args.plot, args.columns)
    print(format_study(report, args.columns))
    return 0


def _add_pretrain_or_parser(reward_commands) -> None:
    """`imagine-tf reward pretrain-or`."""
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


def _add_train_parser(reward_commands) -> None:
    """`imagine-tf reward train`."""
    train = reward_commands.add_parser(
        "train", help="supervised training on the TFDS dataset (settings: RewardTrainConfig)"
    )
    train.add_argument(
        "--root-dir", "--root_dir", required=True, help="run directory (resumes if it exists)"
    )
    add_dataset_flags(train)
    add_gin_flags(train)
    add_gin_setting_flags(train, TRAIN_SETTINGS)
    train.set_defaults(run=_reward_train_command)


def _add_study_parser(reward_commands) -> None:
    """`imagine-tf reward study`."""
    study = reward_commands.add_parser(
        "study",
        help="multi-seed F1 study (resumable; settings: RewardTrainConfig, " "RewardStudyConfig)",
    )
    study.add_argument("--root-dir", "--root_dir", required=True, help="one sub-directory per run")
    study.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    study.add_argument("--threads", type=int, help="TensorFlow threads (default: all cores)")
    add_dataset_flags(study)
    add_gin_flags(study)
    add_gin_setting_flags(study, STUDY_SETTINGS)
    study.set_defaults(run=_reward_study_command)


def _add_report_parser(reward_commands) -> None:
    """`imagine-tf reward report`."""
    report = reward_commands.add_parser("report", help="F1 table, JSON and bar chart of a study")
    report.add_argument(
        "--root-dir",
        "--root_dir",
        help="a study directory (metrics.json below it); without it, --include's runs alone "
        "are aggregated again",
    )
    report.add_argument("--out", help="write the report as JSON")
    report.add_argument(
        "--include",
        help="an earlier report JSON whose runs are kept "
        "(run directories need not exist any more)",
    )
    report.add_argument("--plot", help="write a bar chart PNG")
    report.add_argument(
        "--columns",
        nargs="+",
        choices=[name for name, _ in STUDY_COLUMNS],
        help="F1 columns of the table and chart (default: all that have values)",
    )
    report.set_defaults(run=_reward_report_command)


def _add_dataset_parser(commands) -> None:
    """`imagine-tf dataset build`."""
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


def add_commands(commands) -> None:
    """Adds `reward ...` and `dataset build` to the `imagine-tf` subcommands."""
    reward = commands.add_parser("reward", help="the learned reward model")
    reward_commands = reward.add_subparsers(dest="reward_command", required=True)
    _add_pretrain_or_parser(reward_commands)
    _add_train_parser(reward_commands)
    _add_study_parser(reward_commands)
    _add_report_parser(reward_commands)
    tune_commands.add_reward_parser(reward_commands, "tune")  # = `imagine-tf tune reward`
    _add_dataset_parser(commands)
