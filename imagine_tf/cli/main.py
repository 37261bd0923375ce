"""The `imagine-tf` command line.

    imagine-tf goals [--split train|test|all] [--type 1..5] [--relational] [--json]
    imagine-tf goals --imagined [--known FILE] [--json]
    imagine-tf experiment architectures [--parallel P] [--report] [--list] [--seeds S]
    imagine-tf play --goal "Grasp red cat" [--policy scripted|random] [--num-objects N]
                    [--seed S] [--noise STD] [--out episode.gif] [--json]
    imagine-tf demo [--out-dir outputs/demo] [--seed S]
    imagine-tf bench env|dataset|train|serving|distributed [--json] [--out FILE] [--quick] [--threads T]
                     [--compute-dtype bfloat16]
    imagine-tf train --gin-file configs/quickstart.gin --root-dir runs/quickstart [--threads T]
    imagine-tf train --root-dir runs/quickstart --num-epochs 20   # resumes with the run's config.gin
    imagine-tf train --gin-file configs/ma.gin --gin-binding 'TrainConfig.batch_size = 1536' \
        --fork-from runs/ma_s0 --root-dir runs/ma_s0_b1536
    imagine-tf train --gin-file configs/quickstart.gin --root-dir runs/q2 --actors 2 [--port P]
    imagine-tf replay-server --root-dir R [--port 8000]
    imagine-tf learner --root-dir R --replay-server HOST:8000 --gin-file configs/quickstart.gin
    imagine-tf actor --replay-server HOST:8000 [--actor-id I] [--threads 1]
    imagine-tf eval --root-dir runs/quickstart [--repetitions 30] [--num-objects N]
    imagine-tf tune reward --gin-file configs/tune_reward_ma.gin --dataset-dir D --root-dir R
    imagine-tf tune agent --gin-file configs/smoke.gin --epochs-per-trial 1 --root-dir R
    imagine-tf report runs/ma_s0 runs/fa_s0 ... [--out docs/results/agent_sr.json] [--include OLD.json]
                      [--plot curves.png]
    imagine-tf export reward --root-dir R --model-base-path models/reward [--version V]
    imagine-tf export policy --root-dir R --model-base-path models/policy [--version V]
    imagine-tf serve --model-base-path models/reward [--model-name reward] [--port 8500]
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
    distributed_commands,
    experiment_commands,
    goal_commands,
    reward_commands,
    serving_commands,
    tune_commands,
)
from imagine_tf.cli.common import RUN_READ_ERRORS, UsageError, add_gin_flags, limit_threads, parse_gin
from imagine_tf.training.run_fork import ForkError
from imagine_tf.training.run_lock import RunConfigMismatch, RunDirectoryBusy

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# AutoGraph recompiles TF-Agents' `common.safe_has_state` (`state is not ()`) in every traced
# policy; Python 3.8+ warns about the literal each time. Not ours to fix; not the user's news.
warnings.filterwarnings("ignore", message='"is not" with a literal', category=SyntaxWarning)

DEMO_GOALS = (
    "Go top left",
    "Grasp red cat",
    "Grasp any blue thing",
    "Grow green plant",
    "Grow any animal",
    "Grasp any right_of dog thing",
)


def _play_command(args: argparse.Namespace) -> int:
    from imagine_tf.language import grammar  # checks first: no TensorFlow import for a typo

    try:
        goal = grammar.check_goal(args.goal)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.num_objects is not None and args.num_objects < 1:
        raise UsageError(f"--num-objects must be >= 1, got {args.num_objects}.")
    if args.out and os.path.splitext(args.out)[1].lower() not in (".gif", ".png"):
        raise UsageError(f"--out must end in .gif or .png, got {args.out!r}.")
    from imagine_tf.env.rendering import render_states, write_episode
    from imagine_tf.playground import play

    parse_gin(args)
    try:
        result = play(
            [goal],
            policy=args.policy,
            num_objects=args.num_objects,
            seed=args.seed,
            noise_std=args.noise,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.out:
        frames = render_states(result.states[:, 0], goals=[goal] * len(result.states))
        write_episode(frames, args.out)
    if args.save_state:
        _save_array(args.save_state, result.states[-1].astype("float32"))  # s_T, [1, D]
    output = {
        "goal": goal,
        "achieved": bool(result.achieved[0]),
        "descriptions": result.descriptions[0],
    }
    if args.json:
        print(json.dumps(output))
    else:
        print(f"Goal: {goal}")
        print(f"Achieved: {'yes' if output['achieved'] else 'no'}")
        print("The partner says:")
        for sentence in output["descriptions"] or ["(nothing)"]:
            print(f"  - {sentence}")
        if args.out:
            print(f"Episode written to {args.out}")
    return 0


def _demo_command(args: argparse.Namespace) -> int:
    from imagine_tf.env.rendering import render_states, write_episode
    from imagine_tf.playground import play

    from imagine_tf.language import grammar

    parse_gin(args)
    os.makedirs(args.out_dir, exist_ok=True)
    # One batch of one-object goals, one of two-object goals (whose partner also describes
    # spatial relations).
    one_object = [g for g in DEMO_GOALS if not grammar.is_relational(g)]
    two_object = [g for g in DEMO_GOALS if grammar.is_relational(g)]
    for goals in (one_object, two_object):
        result = play(goals, policy="scripted", seed=args.seed)
        for index, goal in enumerate(result.goals):
            path = os.path.join(args.out_dir, goal.lower().replace(" ", "_") + ".gif")
            frames = render_states(result.states[:, index], goals=[goal] * len(result.states))
            write_episode(frames, path)
            verdict = "achieved" if result.achieved[index] else "NOT achieved"
            print(f"{goal!r}: {verdict}; episode in {path}")
            print("  the partner says: " + "; ".join(result.descriptions[index]))
    return 0


def _train_command(args: argparse.Namespace) -> int:
    from imagine_tf.training import run_layout, train_eval

    if args.num_epochs is not None and args.num_epochs < 1:
        raise UsageError(f"--num-epochs must be >= 1, got {args.num_epochs}.")
    if args.actors is not None and args.actors < 1:
        raise UsageError(f"--actors must be >= 1, got {args.actors} (leave it out: one process).")
    limit_threads(args.threads)
    run_gin = pathlib.Path(args.root_dir) / run_layout.RUN_GIN
    if not (args.gin_file or args.gin_binding or args.fork_from) and run_gin.exists():
        args.gin_file = [str(run_gin)]  # a resume with no gin flags keeps the run's own gin
        print(
            f"imagine-tf train: resuming {args.root_dir} with its {run_gin.name}", file=sys.stderr
        )
    if args.num_epochs:  # a binding, so that the run's config.gin keeps it
        args.gin_binding = [*(args.gin_binding or []), f"train_eval.num_epochs = {args.num_epochs}"]
    parse_gin(args, train_eval)
    logs = train_eval.train_eval(args.root_dir, fork_from=args.fork_from, actors=args.actors or 0,
                                 port=args.port)  # fmt: skip
    print(
        json.dumps(
            logs[-1] if logs else {"root_dir": args.root_dir, "note": "already trained"}, indent=1
        )
    )
    return 0


def _save_array(path: str, array) -> None:
    """np.save, atomically (temporary file renamed)."""
    import numpy as np

    temporary = f"{path}.partial.npy"
    np.save(temporary, array)
    os.replace(temporary, path)


def _report_command(args: argparse.Namespace) -> int:
    from imagine_tf.training.agent_report import write_agent_report
    from imagine_tf.training.earlier_report import read_earlier_report

    command = " ".join(["imagine-tf report", *args.root_dirs, "--out", args.out])
    command += f" --include {args.include}" if args.include else ""
    try:
        earlier = read_earlier_report(args.include) if args.include else None
        record = write_agent_report(args.root_dirs, args.out, command, earlier)
    except (FileNotFoundError, ValueError) as error:
        raise UsageError(str(error)) from None
    if args.plot:
        from imagine_tf.training.agent_report import run_logs
        from imagine_tf.training.run_report import plot_runs, run_labels

        labels = run_labels(args.root_dirs)
        plot_runs({label: run_logs(root) for label, root in zip(labels, args.root_dirs)}, args.plot)
        print(f"wrote {args.plot}")
    for row in record["runs"]:
        print(f"{row['run']}: {row['architecture']} / {row['reward']} reward, seed {row['seed']}, "
              f"{row['episodes']} episodes, {row['wall_seconds']:.0f} s; at epoch "
              f"{row.get('evaluated_at_epoch')} ({row.get('evaluated_at_episodes')} episodes): train SR "
              f"{row.get('train_success', float('nan')):.2f}, test SR {row.get('test_success', float('nan')):.2f}")  # fmt: skip
    print(f"wrote {args.out}")
    return 0


def _eval_command(args: argparse.Namespace) -> int:
    from imagine_tf.training.run_evaluation import evaluate_run

    try:
        result = evaluate_run(args.root_dir, args.repetitions, args.num_objects, args.seed)
    except RUN_READ_ERRORS as error:
        raise UsageError(str(error)) from None
    print(json.dumps({k: v for k, v in result.items() if k != "per_goal"}, indent=1))
    return 0


def _bench_command(args: argparse.Namespace) -> int:
    from imagine_tf.benchmarks.env_bench import format_table, run_env_benchmark, write_json

    limit_threads(args.threads)
    if args.target == "train":
        from imagine_tf.benchmarks.train_bench import run_train_benchmark

        results = run_train_benchmark(
            quick=args.quick, compute_dtype=args.compute_dtype, reward_patience=args.reward_patience
        )
        if args.out:
            write_json(results, args.out)
        print(
            json.dumps({k: v for k, v in results.items() if k not in ("warm_up_epoch",)}, indent=1)
        )
        return 0
    if args.target == "serving":
        from imagine_tf.benchmarks.serving_bench import run_serving_benchmark

        results = run_serving_benchmark(soak_seconds=args.soak_seconds, quick=args.quick)
        if args.out:
            write_json(results, args.out)
        print(json.dumps(results, indent=1))
        return 0
    if args.target == "distributed":
        from imagine_tf.benchmarks.distributed_bench import run_distributed_benchmark

        results = run_distributed_benchmark(quick=args.quick)
        if args.out:
            write_json(results, args.out)
        print(json.dumps(results, indent=1))
        return 0
    if args.target == "dataset":
        from imagine_tf.benchmarks import dataset_bench

        if args.beam_workers is not None:
            try:
                results = dataset_bench.run_beam_build_benchmark(
                    args.num_episodes, args.beam_workers, args.data_dir
                )
            except ValueError as error:
                raise UsageError(str(error)) from None
        else:
            results = dataset_bench.run_dataset_benchmark(args.num_episodes, args.data_dir)
        if args.out:
            write_json(results, args.out)
        print(json.dumps(results, indent=1))
        return 0
    results = run_env_benchmark(quick=args.quick)
    if args.out:
        write_json(results, args.out)
    print(json.dumps(results, indent=1) if args.json else format_table(results))
    return 0


EXAMPLES = """examples:
  imagine-tf train --gin-file configs/quickstart.gin --root-dir runs/quickstart
  imagine-tf eval --root-dir runs/quickstart --repetitions 30
  imagine-tf play --goal "Grasp red cat" --out episode.gif
  imagine-tf goals --split test --type 5
  imagine-tf experiment architectures --parallel 2 && imagine-tf experiment architectures --report
  imagine-tf tune agent --gin-file configs/smoke.gin --epochs-per-trial 1 --root-dir runs/tune
  imagine-tf export reward --root-dir runs/quickstart --model-base-path models/reward
  imagine-tf serve --model-base-path models/reward --rest-port 8501

'imagine-tf COMMAND --help' lists a command's options."""

TRAIN_EXAMPLES = """examples:
  imagine-tf train --gin-file configs/quickstart.gin --root-dir runs/quickstart
  imagine-tf train --root-dir runs/quickstart --num-epochs 20      # resume, then 4 more epochs
  imagine-tf train --gin-file configs/ma.gin --gin-binding "TrainConfig.seed = 1" \\
      --root-dir runs/ma_s1 --threads 1                           # two runs side by side
  imagine-tf train --gin-file configs/quickstart.gin --root-dir runs/q2 --actors 2
  imagine-tf train --fork-from runs/ma_s0 --gin-file configs/ma_final_goal.gin --root-dir runs/fork"""


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

    play = commands.add_parser("play", help="play one goal and hear the social partner")
    play.add_argument("--goal", required=True, help='e.g. "Grasp red cat"')
    play.add_argument("--policy", choices=("scripted", "random"), default="scripted")
    play.add_argument("--num-objects", type=int, help="N (default 3, or the gin binding)")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--noise", type=float, default=0.0, help="scripted action noise std")
    play.add_argument("--out", help="write the episode as .gif (or last frame as .png)")
    play.add_argument("--json", action="store_true")
    play.add_argument("--save-state", help="write the final state s_T as .npy [1, D] (for `score`)")
    add_gin_flags(play)
    play.set_defaults(run=_play_command)

    demo = commands.add_parser("demo", help="play a few goals with the scripted expert")
    demo.add_argument("--out-dir", default=os.path.join("outputs", "demo"))
    demo.add_argument("--seed", type=int, default=0)
    add_gin_flags(demo)
    demo.set_defaults(run=_demo_command)

    reward_commands.add_commands(commands)
    tune_commands.add_commands(commands)

    train_parser = commands.add_parser(
        "train", help="IMAGINE co-training: DDPG + learned reward (resumes)",
        epilog=TRAIN_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
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
        "--threads", type=int, help="TensorFlow threads (default: all cores); 1: runs side by side"
    )
    train_parser.add_argument(
        "--fork-from",
        metavar="RUN",
        help="start a new --root-dir from RUN's last checkpoint, with the given gin settings "
        "(fork.json records what changed); repeating the command resumes the fork",
    )
    train_parser.add_argument(
        "--actors", type=int, metavar="K",
        help="K actor processes feeding the learner through a replay server on this machine "
        "(default: one process, actor and learner taking turns)",
    )  # fmt: skip
    train_parser.add_argument(
        "--port", type=int, help="the replay server's port with --actors (default: a free one)"
    )
    add_gin_flags(train_parser)
    train_parser.set_defaults(run=distributed_commands.reported_errors(_train_command))
    distributed_commands.add_commands(commands)

    evaluate = commands.add_parser(
        "eval", help="success rate per goal of a trained run -> eval.json"
    )
    evaluate.add_argument("--root-dir", "--root_dir", required=True)
    evaluate.add_argument("--repetitions", type=int, default=30)
    evaluate.add_argument("--num-objects", type=int, help="N at evaluation (MA works at any N)")
    evaluate.add_argument("--seed", type=int, default=12345)
    evaluate.set_defaults(run=_eval_command)

    report = commands.add_parser("report", help="success-rate table of runs -> JSON")
    report.add_argument(
        "root_dirs", nargs="+", help="run directories (a row per `imagine-tf eval` of each)"
    )
    report.add_argument("--out", default="docs/results/agent_sr.json")
    report.add_argument("--include", help="an earlier agent_sr.json whose rows are kept "
                                          "(runs whose directories are gone)")  # fmt: skip
    report.add_argument("--plot", help="write the runs' learning curves side by side (PNG)")
    report.set_defaults(run=_report_command)

    bench = commands.add_parser("bench", help="benchmarks")
    bench.add_argument("target", choices=("env", "dataset", "train", "serving", "distributed"))
    bench.add_argument("--soak-seconds", type=float, default=60.0, help="serving: soak length")
    bench.add_argument("--threads", type=int, help="TensorFlow threads (train: 1 = one core)")
    bench.add_argument("--num-episodes", type=int, default=50_000, help="dataset: episodes")
    bench.add_argument("--data-dir", help="dataset: build here (default: a scratch directory)")
    bench.add_argument(
        "--beam-workers",
        type=int,
        help="dataset: time the build without Beam and on Beam's DirectRunner with this many "
        "worker processes (instead of build + load)",
    )
    bench.add_argument("--json", action="store_true")
    bench.add_argument("--out", help="also write the JSON results to this file")
    bench.add_argument("--quick", action="store_true", help="short runs (smoke test)")
    # precision.COMPUTE_DTYPES, spelled out: the CLI does not import TensorFlow to parse flags.
    bench.add_argument("--compute-dtype", choices=("float32", "bfloat16"), default="float32",
                       help="train: the actor / critic / relabelling precision "
                            "(TrainConfig.compute_dtype)")  # fmt: skip
    bench.add_argument("--reward-patience", type=int, default=15,
                       help="train: reward-epochs without a better held-out F1 before the reward "
                            "retraining stops (TrainConfig.reward_patience; 15: the reference)")  # fmt: skip
    bench.set_defaults(run=_bench_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (UsageError, RunDirectoryBusy, RunConfigMismatch, ForkError) as error:
        print(f"imagine-tf {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
