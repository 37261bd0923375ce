"""The commands of a run spread over processes or machines.

    imagine-tf replay-server --root-dir R [--port 8000]
    imagine-tf learner --root-dir R --replay-server HOST:8000 [--gin-file ...] [--num-epochs N]
    imagine-tf actor --replay-server HOST:8000 [--actor-id I] [--gin-file ...] [--threads 1]
    imagine-tf evaluator --replay-server HOST:8000 [--threads 1]

(``imagine-tf train --actors K`` starts a server, K actors and an evaluator on this machine; a
learner started with ``imagine-tf learner`` evaluates in its own process, or with
``--evaluator`` leaves it to an ``imagine-tf evaluator`` of the same server.) A stopped server, a wrong
address or a busy port end the command with one message naming the address and status 1 (2 for
what the user typed), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

from imagine_tf.cli.common import (
    UsageError,
    add_gin_flags,
    frozen_imports,
    limit_threads,
    parse_gin,
)

DEFAULT_PORT = 8000


def _train_config(args: argparse.Namespace, root_dir: str | None):
    """The gin-bound `TrainConfig`: the gin flags, else the run's config.gin; None if neither
    (then without importing the agent's modules)."""
    from imagine_tf.runs.layout import RunLayout

    files = list(args.gin_file)
    if not (files or args.gin_binding) and root_dir and RunLayout(root_dir).run_gin.exists():
        files = [str(RunLayout(root_dir).run_gin)]
    if not (files or args.gin_binding):
        return None
    from imagine_tf.training import train_eval

    parse_gin(argparse.Namespace(gin_file=files, gin_binding=args.gin_binding), train_eval)
    return train_eval.TrainConfig()


def _server_config(args: argparse.Namespace):
    """The `TrainConfig` that sizes the server's queue: the gin flags', else the run's (its
    config.json, else its config.gin), else the defaults. Only gin needs the agent's modules
    (TF-Agents, ...): without gin, the server starts without importing them."""
    from imagine_tf.agent.config import TrainConfig
    from imagine_tf.runs.layout import RunLayout

    recorded = RunLayout(args.root_dir).config_json
    if not (args.gin_file or args.gin_binding) and recorded.exists():
        return TrainConfig.from_json(recorded.read_text())
    return _train_config(args, args.root_dir) or TrainConfig()


def _replay_server_command(args: argparse.Namespace) -> int:
    with frozen_imports():
        from imagine_tf.distributed.replay_server import serve_forever
        from imagine_tf.runs.layout import REPLAY_SERVER_JSON

    config = _server_config(args)
    root = pathlib.Path(args.root_dir)
    root.mkdir(parents=True, exist_ok=True)

    def ready(server) -> None:
        record = {"port": server.port, "queue_capacity": server.queue_capacity}
        (root / REPLAY_SERVER_JSON).write_text(json.dumps(record))
        print(
            f"imagine-tf replay-server: serving on port {server.port} (all interfaces); "
            f"queue of {server.queue_capacity} batches. Stop with Ctrl-C.",
            flush=True,
        )

    serve_forever(args.port, config.queue_cycles, on_ready=ready)
    return 0


def _learner_command(args: argparse.Namespace) -> int:
    with frozen_imports():
        from imagine_tf.training import train_eval

    checked_address(args.replay_server)  # before TensorFlow starts
    limit_threads(args.threads, learner=True)
    if _train_config(args, args.root_dir) is None:
        raise UsageError(
            f"no configuration: give --gin-file (or resume a run: {args.root_dir} "
            "has no config.gin)"
        )
    kwargs = {"num_epochs": args.num_epochs} if args.num_epochs else {}
    records = train_eval.train_eval(
        args.root_dir,
        replay_server=args.replay_server,
        retry_seconds=args.retry_seconds,
        remote_evaluation=args.evaluator,
        **kwargs,
    )
    print(json.dumps(records[-1] if records else {"note": "already trained"}, indent=1))
    return 0


def _actor_command(args: argparse.Namespace) -> int:
    with frozen_imports():
        from imagine_tf.distributed.stop_signal import StopOnSignals, StopSignal
        from imagine_tf.training.actor_process import run_actor

    checked_address(args.replay_server)
    if args.actor_id < 0:
        raise UsageError(f"--actor-id must be >= 0, got {args.actor_id}.")
    limit_threads(args.threads)
    config = _train_config(args, None)
    stop = StopSignal()

    def log(message: str) -> None:
        print(f"imagine-tf actor {args.actor_id}: {message}", flush=True)

    with StopOnSignals(stop):
        stats = run_actor(
            args.replay_server,
            args.actor_id,
            config,
            stop,
            retry_seconds=args.retry_seconds,
            log=log,
        )
    log(f"stopped after {stats.batches} batches ({stats.episodes} episodes)")
    return 0


def _evaluator_command(args: argparse.Namespace) -> int:
    with frozen_imports():
        from imagine_tf.distributed.stop_signal import StopOnSignals, StopSignal
        from imagine_tf.training.evaluator_process import run_evaluator

    checked_address(args.replay_server)
    limit_threads(args.threads)
    stop = StopSignal()

    def log(message: str) -> None:
        print(f"imagine-tf evaluator: {message}", flush=True)

    with StopOnSignals(stop):
        evaluated = run_evaluator(
            args.replay_server, stop, retry_seconds=args.retry_seconds, log=log
        )
    log(f"stopped after {evaluated} evaluations")
    return 0


def add_commands(commands) -> None:
    """Adds replay-server, learner, actor and evaluator to the `imagine-tf` subcommands."""
    server = commands.add_parser("replay-server", help="the Reverb replay server of a run")
    server.add_argument(
        "--root-dir",
        "--root_dir",
        required=True,
        help="the run (its config.json or config.gin sets the queue's size)",
    )
    server.add_argument("--port", type=int, default=DEFAULT_PORT)
    add_gin_flags(server)
    server.set_defaults(run=reported_errors(_replay_server_command))

    learner = commands.add_parser("learner", help="the learner of actors on other processes")
    learner.add_argument("--root-dir", "--root_dir", required=True)
    learner.add_argument("--replay-server", required=True, metavar="HOST:PORT")
    learner.add_argument("--num-epochs", "--num_epochs", type=int)
    learner.add_argument("--threads", type=int)
    _add_retry_seconds(learner)
    learner.add_argument(
        "--evaluator",
        action="store_true",
        help="an `imagine-tf evaluator` of the server evaluates each epoch (default: the learner)",
    )
    add_gin_flags(learner)
    learner.set_defaults(run=reported_errors(_learner_command))

    actor = commands.add_parser("actor", help="plays episodes for a learner (joins any time)")
    actor.add_argument("--replay-server", required=True, metavar="HOST:PORT")
    actor.add_argument("--actor-id", type=int, default=0)
    actor.add_argument("--threads", type=int, default=1, help="TensorFlow threads (1)")
    _add_retry_seconds(actor)
    add_gin_flags(actor)
    actor.set_defaults(run=reported_errors(_actor_command))

    evaluator = commands.add_parser(
        "evaluator", help="evaluates a learner's policy at the end of each epoch"
    )
    evaluator.add_argument("--replay-server", required=True, metavar="HOST:PORT")
    evaluator.add_argument("--threads", type=int, default=1, help="TensorFlow threads (1)")
    _add_retry_seconds(evaluator)
    evaluator.set_defaults(run=reported_errors(_evaluator_command))


def _add_retry_seconds(parser) -> None:
    parser.add_argument(
        "--retry-seconds",
        type=float,
        default=60.0,
        help="how long to retry a replay server that does not answer (60)",
    )


def reported_errors(command):
    """Wraps a command: the distributed errors become one line on stderr and an exit status."""

    def run(args: argparse.Namespace) -> int:
        from imagine_tf.distributed.errors import PortInUse, ReplayServerUnavailable
        from imagine_tf.distributed.stop_signal import TrainingStopped

        try:
            return command(args)
        except (UsageError, PortInUse) as error:
            print(f"imagine-tf {args.command}: error: {error}", file=sys.stderr)
            return 2
        except ReplayServerUnavailable as error:
            print(f"imagine-tf {args.command}: error: {error}", file=sys.stderr)
            return 1
        except TrainingStopped:
            print(
                f"imagine-tf {args.command}: stopped; the last checkpoint stands (run the "
                "same command to resume).",
                file=sys.stderr,
            )
            return 130

    return run


def checked_address(text: str) -> str:
    """``HOST:PORT`` as given, or a `UsageError` saying what is expected."""
    from imagine_tf.distributed.address import parse_address

    try:
        parse_address(text)
    except ValueError as error:
        raise UsageError(f"--replay-server: {error}") from None
    return text
