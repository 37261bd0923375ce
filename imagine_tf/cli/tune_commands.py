"""`imagine-tf tune reward | agent`: keras-tuner searches whose trials share one budget.

    imagine-tf tune reward --gin-file configs/reward/ma.gin --dataset-dir D --root-dir R
    imagine-tf tune agent --gin-file configs/agent/quickstart.gin --epochs-per-trial 4 --root-dir R
    imagine-tf reward tune ...          # the same command as `tune reward`

The base configuration and the search space come from gin (`RewardTrainConfig` or
`TrainConfig`; `RewardSearchSpace` or `AgentSearchSpace`); flags give the budget, the number of
trials and where things go. Rerunning a command resumes its search.
"""

from __future__ import annotations

import argparse

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

# Flags of the first `reward tune` that are now gin settings of the base configuration.
REWARD_SETTINGS = {
    "--arch": "--gin-file configs/reward/ma.gin (or reward_fa, reward_fc, reward_ma_pairs)",
    "--batches-per-epoch": gin_binding("RewardTrainConfig.batches_per_epoch = 200"),
    "--max-train-episodes": gin_binding("RewardTrainConfig.max_train_episodes = 20000"),
    "--goal-set": gin_binding("RewardTrainConfig.goal_set = 'one_object'"),
}

REWARD_EXAMPLES = """examples:
  imagine-tf tune reward --gin-file configs/reward/ma.gin --dataset-dir D --root-dir runs/tune_ma
  imagine-tf tune reward --gin-file configs/tuning/reward_ma.gin --tuner grid --seeds 0 1 2 \\
      --dataset-dir D --root-dir runs/tune_ma_grid --out docs/results/reward_tune_ma.json
  imagine-tf tune reward --gin-file configs/reward/fc.gin --dataset-dir D --root-dir R \\
      --gin-binding "RewardSearchSpace.hyperparameters = {'learning_rate': (1e-4, 1e-3)}"

Every trial trains --epochs-per-trial epochs of RewardTrainConfig.batches_per_epoch batches
(early stopping off); the first trial is the base configuration. Objective: validation F1."""

AGENT_EXAMPLES = """examples:
  imagine-tf tune agent --gin-file configs/agent/smoke.gin --epochs-per-trial 1 --max-trials 2 \\
      --root-dir R
  imagine-tf tune agent --gin-file configs/tuning/agent_quickstart.gin --epochs-per-trial 6 \\
      --max-trials 6 --threads 1 --root-dir runs/tune_agent --out docs/results/agent_tune.json
  imagine-tf train --root-dir runs/tune_agent/agent/trial_3/run --num-epochs 16   # go on with one

Every trial trains --epochs-per-trial epochs; the first trial is the base configuration.
Objective: the train success rate at the end (never a test-goal rate)."""


def _tune_reward_command(args: argparse.Namespace) -> int:
    from imagine_tf.data.supervised import goal_set, load_supervised_data
    from imagine_tf.reward import config as reward_config
    from imagine_tf.tuning import config as tuning_config
    from imagine_tf.tuning.oracles import make_oracle
    from imagine_tf.tuning.supervised_tuning import OBJECTIVE, reward_hyperparameters
    from imagine_tf.tuning.supervised_tuning import tune_reward_model

    base, search_space = gin_configured(
        args,
        tuning_config,
        lambda: (reward_config.reward_train_config(), tuning_config.RewardSearchSpace()),
    )
    try:
        space = search_space.of(base.architecture)
        make_oracle(
            args.tuner,
            reward_hyperparameters(space, base, args.tuner == "grid"),
            OBJECTIVE,
            args.max_trials,
        )  # checked before the data loads
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from None
    directory = prepared_dataset(args)
    limit_threads(args.threads)
    data = load_supervised_data(directory, goal_set(base.goal_set), base.max_train_episodes, 1)
    try:
        report = tune_reward_model(
            data,
            args.root_dir,
            base,
            space,
            args.epochs_per_trial,
            args.tuner,
            args.max_trials,
            args.seeds,
            _search_command(args, "tune reward"),
            progress=True,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    return _print_report(report, args, f"reward_{base.architecture}")


def _tune_agent_command(args: argparse.Namespace) -> int:
    import gin

    from imagine_tf.training import train_eval
    from imagine_tf.agent.config import TrainConfig
    from imagine_tf.tuning import config as tuning_config
    from imagine_tf.tuning.agent_tuning import PROJECT, tune_agent

    base, space = gin_configured(
        args, train_eval, lambda: (TrainConfig(), tuning_config.AgentSearchSpace().space())
    )
    limit_threads(args.threads)
    try:
        report = tune_agent(
            args.root_dir,
            base,
            gin.config_str(),
            space,
            args.epochs_per_trial,
            args.tuner,
            args.max_trials,
            args.objective,
            args.eval_repetitions,
            _search_command(args, "tune agent"),
            progress=True,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    return _print_report(report, args, PROJECT)


def _print_report(report: dict, args: argparse.Namespace, project: str) -> int:
    from imagine_tf.tuning.search_project import REPORT_JSON
    from imagine_tf.atomic_files import write_record
    from imagine_tf.tuning.search_report import format_report

    print(format_report(report))
    print(f"Report: {args.root_dir}/{project}/{REPORT_JSON}")
    if args.out:
        write_record(args.out, report)
        print(f"wrote {args.out}")
    return 0


def _search_command(args: argparse.Namespace, name: str) -> str:
    """The command line of ``args``, for the report."""
    return command_line(name, args, trailing=SEARCH_FLAGS)


# The flags a search's recorded command line repeats (`_search_command`).
SEARCH_FLAGS = (
    "dataset_dir",
    "tuner",
    "max_trials",
    "epochs_per_trial",
    "objective",
    "eval_repetitions",
    "threads",
    "root_dir",
    "out",
    "seeds",
)


def _add_search_flags(parser: argparse.ArgumentParser, max_trials: int) -> None:
    parser.add_argument(
        "--root-dir",
        "--root_dir",
        required=True,
        help="the search directory (a rerun resumes its search)",
    )
    parser.add_argument(
        "--tuner",
        default="random",
        help="random (the first trial is the default) or grid (default "
        "first, then every combination of the space's values)",
    )
    parser.add_argument(
        "--max-trials",
        type=int,
        default=max_trials,
        help=f"trials in all, the default's included (default {max_trials}); "
        "a rerun with more extends the search",
    )
    parser.add_argument("--threads", type=int, help="TensorFlow threads (default: all cores)")
    parser.add_argument("--out", help="also write the report here (e.g. docs/results/...json)")
    add_gin_flags(parser)


def add_reward_parser(subcommands, name: str) -> argparse.ArgumentParser:
    """Adds the reward search as ``name`` to ``subcommands`` (`tune reward`, `reward tune`)."""
    reward = subcommands.add_parser(
        name,
        help="search the reward model's settings (objective: validation F1)",
        description="keras-tuner search over RewardTrainConfig fields, every trial at one budget",
    )
    _add_search_flags(reward, max_trials=10)
    reward.add_argument(
        "--epochs-per-trial",
        "--max-epochs",
        type=int,
        help="epochs every trial trains (default: RewardTrainConfig.max_epochs)",
    )
    reward.add_argument(
        "--seeds",
        "--seed",
        nargs="+",
        type=int,
        help="train each trial once per seed; score = mean (default: " "RewardTrainConfig.seed)",
    )
    add_dataset_flags(reward)
    add_gin_setting_flags(reward, REWARD_SETTINGS)
    reward.epilog = f"{REWARD_EXAMPLES}\n\n{reward.epilog}"
    reward.set_defaults(run=_tune_reward_command)
    return reward


def add_commands(commands) -> None:
    """Adds `tune reward` and `tune agent` to the `imagine-tf` subcommands."""
    tune = commands.add_parser(
        "tune",
        help="keras-tuner searches: reward model or agent settings at one budget",
        epilog=f"{REWARD_EXAMPLES}\n\n{AGENT_EXAMPLES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    searches = tune.add_subparsers(dest="tune_command", required=True)
    add_reward_parser(searches, "reward")
    agent = searches.add_parser(
        "agent",
        help="search the agent's settings (objective: train success rate)",
        description="keras-tuner search over TrainConfig fields: short co-training runs",
        epilog=AGENT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_search_flags(agent, max_trials=6)
    agent.add_argument(
        "--epochs-per-trial", type=int, required=True, help="epochs every trial trains"
    )
    agent.add_argument(
        "--objective",
        default="train_success",
        help="train_success (default), or one predicate's: train_success_go, "
        "train_success_grasp, train_success_grow",
    )
    agent.add_argument(
        "--eval-repetitions",
        type=int,
        default=0,
        help="0: the last epoch's in-training evaluation (default); R: `imagine-tf eval` "
        "with R episodes per goal at the end of each trial",
    )
    agent.set_defaults(run=_tune_agent_command)
