"""The `imagine-tf` command line.

    imagine-tf goals [--split train|test|all] [--type 1..5] [--relational] [--json]
    imagine-tf goals --imagined [--known FILE] [--json]
    imagine-tf experiment architectures [--parallel P] [--report] [--list] [--seeds S]
    imagine-tf play --goal "Grasp red cat" [--policy scripted|random|pretrained|authors] [--num-objects N]
                    [--seed S] [--noise STD] [--out episode.gif] [--json]
    imagine-tf demo [--out-dir outputs/demo] [--seed S]
    imagine-tf bench env|dataset|train|serving|distributed [--json] [--out FILE] [--quick] [--threads T]
                     [--compute-dtype bfloat16]
    imagine-tf train --gin-file configs/agent/quickstart.gin --root-dir runs/quickstart [--threads T]
    imagine-tf train --root-dir runs/quickstart --num-epochs 20   # resumes with the run's config.gin
    imagine-tf train --gin-file configs/agent/ma.gin --gin-binding 'TrainConfig.batch_size = 1536' \
        --fork-from runs/ma_s0 --root-dir runs/ma_s0_b1536
    imagine-tf train --gin-file configs/agent/quickstart.gin --root-dir runs/q2 --actors 2 [--port P]
    imagine-tf replay-server --root-dir R [--port 8000]
    imagine-tf learner --root-dir R --replay-server HOST:8000 --gin-file configs/agent/quickstart.gin
    imagine-tf actor --replay-server HOST:8000 [--actor-id I] [--threads 1]
    imagine-tf eval --root-dir runs/quickstart [--repetitions 30] [--num-objects N]
    imagine-tf eval --pretrained                 # the repository's pretrained agent (models/)
    imagine-tf eval --agent authors [--world authors] [--out record.json]   # the authors' agent
    imagine-tf tune reward --gin-file configs/tuning/reward_ma.gin --dataset-dir D --root-dir R
    imagine-tf tune agent --gin-file configs/agent/smoke.gin --epochs-per-trial 1 --root-dir R
    imagine-tf report runs/ma_s0 runs/fa_s0 ... [--out docs/results/agent_sr.json] [--include OLD.json]
                      [--plot curves.png]
    imagine-tf export reward --root-dir R --model-base-path models/reward [--version V]
    imagine-tf export policy --root-dir R --model-base-path models/policy [--version V]
    imagine-tf serve --model-base-path models/reward [--model-name reward] [--port 8500]
    imagine-tf serve --pretrained                # the pretrained reward model (models/)
    imagine-tf serve --model authors             # the authors' reward model, converted
    imagine-tf pretrained build --run RUN --seed-runs 'RUNS/cgh_s*' --out models
    imagine-tf pretrained convert-authors --from Imagine/pretrained_weights [--out models/authors_epoch160]
    imagine-tf score --goal "Grasp red cat" --state-file s.npy [--server 127.0.0.1:8500]

Errors in what the user typed (an unknown goal, a bad option) print one clear message and exit
with status 2; there is never a traceback for them.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import warnings
from typing import Sequence

from imagine_tf.cli import (
    bench_commands,
    distributed_commands,
    eval_commands,
    experiment_commands,
    goal_commands,
    pretrained_commands,
    serving_commands,
    supervised_commands,
    tune_commands,
    world_commands,
)
from imagine_tf.cli.common import (
    UsageError,
    add_gin_flags,
    check_gin_files_exist,
    freeze_at_exit,
    frozen_imports,
    limit_threads,
    parse_gin,
)
from imagine_tf.cli.import_context import import_within
from imagine_tf.runs.fork import ForkError
from imagine_tf.runs.lock import RunConfigMismatch, RunDirectoryBusy

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# AutoGraph recompiles TF-Agents' `common.safe_has_state` (`state is not ()`) in every traced
# policy; Python 3.8+ warns about the literal each time. Not ours to fix; not the user's news.
warnings.filterwarnings("ignore", message='"is not" with a literal', category=SyntaxWarning)


def _check_train_args(args: argparse.Namespace) -> None:
    """The flags of `imagine-tf train` that are wrong whatever the run (before TensorFlow is
    imported: a usage error costs no import)."""
    if args.num_epochs is not None and args.num_epochs < 1:
        raise UsageError(f"--num-epochs must be >= 1, got {args.num_epochs}.")
    if args.actors is not None and args.actors < 1:
        raise UsageError(f"--actors must be >= 1, got {args.actors} (leave it out: one process).")
    if args.eval_repetitions is not None and args.eval_repetitions < 1:
        raise UsageError(f"--eval-repetitions must be >= 1, got {args.eval_repetitions}.")
    if args.evaluate_in_learner and not args.actors:
        raise UsageError(
            "--evaluate-in-learner goes with --actors K (one process evaluates anyway)."
        )
    check_gin_files_exist(args)


def _train_command(args: argparse.Namespace) -> int:
    _check_train_args(args)
    with frozen_imports():
        from imagine_tf.training import train_eval
        from imagine_tf.runs import layout as run_layout

    limit_threads(args.threads, learner=True)
    run_gin = pathlib.Path(args.root_dir) / run_layout.RUN_GIN
    if not (args.gin_file or args.gin_binding or args.fork_from) and run_gin.exists():
        args.gin_file = [str(run_gin)]  # a resume with no gin flags keeps the run's own gin
        print(
            f"imagine-tf train: resuming {args.root_dir} with its {run_gin.name}", file=sys.stderr
        )
    if args.num_epochs:  # a binding, so that the run's config.gin keeps it
        args.gin_binding = [*(args.gin_binding or []), f"train_eval.num_epochs = {args.num_epochs}"]
    parse_gin(args, train_eval)
    from imagine_tf.runs.checkpoint import NotResumable

    try:
        logs = train_eval.train_eval(
            args.root_dir,
            fork_from=args.fork_from,
            actors=args.actors or 0,
            port=args.port,
            remote_evaluation=False if args.evaluate_in_learner else None,
            eval_repetitions=args.eval_repetitions,
        )
    except NotResumable as error:
        raise UsageError(str(error)) from None
    print(
        json.dumps(
            logs[-1] if logs else {"root_dir": args.root_dir, "note": "already trained"}, indent=1
        )
    )
    return 0


def _report_command(args: argparse.Namespace) -> int:
    from imagine_tf.analysis.success_report import write_agent_report
    from imagine_tf.runs.earlier_report import read_earlier_report

    command = " ".join(["imagine-tf report", *args.root_dirs, "--out", args.out])
    command += f" --include {args.include}" if args.include else ""
    try:
        earlier = read_earlier_report(args.include) if args.include else None
        record = write_agent_report(args.root_dirs, args.out, command, earlier)
    except (FileNotFoundError, ValueError) as error:
        raise UsageError(str(error)) from None
    if args.plot:
        from imagine_tf.analysis.success_report import run_logs
        from imagine_tf.analysis.figures import plot_runs, run_labels

        labels = run_labels(args.root_dirs)
        plot_runs({label: run_logs(root) for label, root in zip(labels, args.root_dirs)}, args.plot)
        print(f"wrote {args.plot}")
    for row in record["runs"]:
        print(
            f"{row['run']}: {row['architecture']} / {row['reward']} reward, seed {row['seed']}, "
            f"{row['episodes']} episodes, {row['wall_seconds']:.0f} s; at epoch "
            f"{row.get('evaluated_at_epoch')} ({row.get('evaluated_at_episodes')} episodes): train SR "
            f"{row.get('train_success', float('nan')):.2f}, test SR {row.get('test_success', float('nan')):.2f}"
        )
    print(f"wrote {args.out}")
    return 0


EXAMPLES = """examples:
  imagine-tf train --gin-file configs/agent/quickstart.gin --root-dir runs/quickstart
  imagine-tf eval --root-dir runs/quickstart --repetitions 30
  imagine-tf play --goal "Grasp red cat" --out episode.gif
  imagine-tf goals --split test --type 5
  imagine-tf experiment architectures --parallel 2 && imagine-tf experiment architectures --report
  imagine-tf tune agent --gin-file configs/agent/smoke.gin --epochs-per-trial 1 --root-dir runs/tune
  imagine-tf export reward --root-dir runs/quickstart --model-base-path models/reward
  imagine-tf serve --model-base-path models/reward --rest-port 8501

'imagine-tf COMMAND --help' lists a command's options."""

TRAIN_EXAMPLES = """examples:
  imagine-tf train --gin-file configs/agent/quickstart.gin --root-dir runs/quickstart
  imagine-tf train --root-dir runs/quickstart --num-epochs 20      # resume, then 4 more epochs
  imagine-tf train --gin-file configs/agent/ma.gin --gin-binding "TrainConfig.seed = 1" \\
      --root-dir runs/ma_s1 --threads 1                           # two runs side by side
  imagine-tf train --gin-file configs/agent/quickstart.gin --root-dir runs/q2 --actors 2
  imagine-tf train --fork-from runs/ma_s0 --gin-file configs/agent/ma_final_goal.gin --root-dir runs/fork"""


def _add_train_parser(commands) -> None:
    """`imagine-tf train`."""
    train_parser = commands.add_parser(
        "train",
        help="IMAGINE co-training: DDPG + learned reward (resumes)",
        epilog=TRAIN_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    train_parser.add_argument(
        "--root-dir",
        "--root_dir",
        required=True,
        help="run directory (resumes if it exists; with no gin flags, with the run's config.gin)",
    )
    train_parser.add_argument(
        "--num-epochs", "--num_epochs", type=int, help="default: the gin binding (167)"
    )
    train_parser.add_argument(
        "--threads",
        type=int,
        help="TensorFlow threads, one op on each (default: all cores); 1: runs side by side",
    )
    train_parser.add_argument(
        "--fork-from",
        metavar="RUN",
        help="start a new --root-dir from RUN's last checkpoint, with the given gin settings "
        "(fork.json records what changed); repeating the command resumes the fork",
    )
    train_parser.add_argument(
        "--actors",
        type=int,
        metavar="K",
        help="K actor processes feeding the learner through a replay server on this machine "
        "(default: one process, actor and learner taking turns)",
    )
    train_parser.add_argument(
        "--port", type=int, help="the replay server's port with --actors (default: a free one)"
    )
    train_parser.add_argument(
        "--evaluate-in-learner",
        action="store_true",
        help="with --actors: the learner evaluates each epoch instead of an evaluator process "
        "(where no core is spare, the evaluator does not speed the learner up)",
    )
    train_parser.add_argument(
        "--eval-repetitions",
        type=int,
        metavar="R",
        help="once the last epoch is trained, evaluate the run in this process, as "
        "`imagine-tf eval --repetitions R` does (eval.json; saves a process start)",
    )
    add_gin_flags(train_parser)
    train_parser.set_defaults(run=distributed_commands.reported_errors(_train_command))


def _add_report_parser(commands) -> None:
    """`imagine-tf report`."""
    report = commands.add_parser("report", help="success-rate table of runs -> JSON")
    report.add_argument(
        "root_dirs", nargs="+", help="run directories (a row per `imagine-tf eval` of each)"
    )
    report.add_argument("--out", default="docs/results/agent_sr.json")
    report.add_argument(
        "--include",
        help="an earlier agent_sr.json whose rows are kept " "(runs whose directories are gone)",
    )
    report.add_argument("--plot", help="write the runs' learning curves side by side (PNG)")
    report.set_defaults(run=_report_command)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="imagine-tf",
        description="IMAGINE and Deep Sets agents in the Playground: train, evaluate, serve, "
        "reproduce the papers' experiments.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from imagine_tf import __version__

    parser.add_argument("--version", action="version", version=f"imagine-tf {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    goal_commands.add_commands(commands)
    experiment_commands.add_commands(commands)
    serving_commands.add_commands(commands)
    pretrained_commands.add_commands(commands)

    world_commands.add_commands(commands)
    supervised_commands.add_commands(commands)
    tune_commands.add_commands(commands)

    _add_train_parser(commands)
    distributed_commands.add_commands(commands)
    eval_commands.add_eval_parser(commands)
    _add_report_parser(commands)
    bench_commands.add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command of ``argv`` (default: the command line); returns its exit status.

    Run as a command (no ``argv``), the process imports TensorFlow, whichever command imports
    it, within `frozen_imports`, and skips Python's last garbage collections at exit
    (`freeze_at_exit`).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # as typed: records name it
    if argv is None:
        import_within("tensorflow", frozen_imports)
    try:
        return args.run(args)
    except (UsageError, RunDirectoryBusy, RunConfigMismatch, ForkError) as error:
        print(f"imagine-tf {args.command}: error: {error}", file=sys.stderr)
        return 2
    finally:
        if argv is None:
            freeze_at_exit()


if __name__ == "__main__":
    sys.exit(main())
