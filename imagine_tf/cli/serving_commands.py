"""`imagine-tf export reward|policy`, `imagine-tf serve`, `imagine-tf score`: models for TF
Serving clients, the server, and a client of it (gRPC or REST)."""

from __future__ import annotations

import argparse
import json
import os

from imagine_tf.cli.common import RUN_READ_ERRORS, UsageError, frozen_imports


def _serve_command(args: argparse.Namespace) -> int:
    model = "pretrained" if args.pretrained else args.model
    if model and args.model_base_path:
        raise UsageError("--model-base-path and --model/--pretrained exclude each other: give one.")
    if model:
        from imagine_tf.cli.pretrained_commands import pretrained_path

        args.model_base_path = str(pretrained_path("reward", model))
    if not args.model_base_path:
        raise UsageError(
            "give --model-base-path DIR (an exported reward model) or --model pretrained|authors "
            "(models/)."
        )
    if not os.path.isdir(args.model_base_path):
        raise UsageError(
            f"--model-base-path {args.model_base_path!r} is not a directory: export a model first "
            "(imagine-tf export reward --root-dir RUN --model-base-path DIR)."
        )
    with frozen_imports():
        from imagine_tf_serving.server import serve

    return serve(args)


def _score_inputs(args: argparse.Namespace) -> tuple:
    """(goals [B], states float32 [B, D]) of `imagine-tf score`: --state-file's states and one
    goal per state; UsageError for an unreadable file, a bad shape or a goal count."""
    import numpy as np

    try:
        states = np.load(args.state_file)
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read --state-file {args.state_file!r}: {error}") from None
    states = np.atleast_2d(states).astype(np.float32)
    if states.ndim != 2:
        raise UsageError(
            f"--state-file holds an array of shape {states.shape}; expected [D] or [B, D]."
        )
    goals = args.goal * len(states) if len(args.goal) == 1 else args.goal
    if len(goals) != len(states):
        raise UsageError(
            f"{len(args.goal)} goals for {len(states)} states: give one goal, or one per state."
        )
    return goals, states


def _print_scores(args: argparse.Namespace, goals: list[str], result: dict) -> None:
    """Prints each goal's probability, reward and per-object probabilities (--json: as JSON)."""
    rows = [
        {
            "goal": goal,
            "probability": float(p),
            "reward": bool(r),
            "module_probabilities": [round(float(m), 4) for m in modules],
        }
        for goal, p, r, modules in zip(
            goals, result["probability"], result["reward"], result["module_probabilities"]
        )
    ]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for row in rows:
            print(
                f"{row['goal']}: P = {row['probability']:.3f} -> reward {row['reward']} "
                f"(per object {row['module_probabilities']})"
            )


def _score_command(args: argparse.Namespace) -> int:
    """Scores with the client package `imagine_tf_client` (numpy, requests, grpcio: no
    TensorFlow, a fraction of a second to start), over REST (--rest) or gRPC (--server)."""
    goals, states = _score_inputs(args)
    try:
        from imagine_tf_client import ClientError, GrpcRewardClient, RewardClient
    except ImportError:
        raise UsageError(
            "imagine-tf score needs the client package imagine_tf_client: `make install` "
            "installs it; elsewhere `pip install ./client` from the repository."
        ) from None
    where = args.rest or args.server
    make = RewardClient if args.rest else GrpcRewardClient
    try:
        with make(where, args.model_name, args.version, args.version_label, args.timeout) as client:
            result = client.score_details(states, goals)
    except ClientError as error:
        raise UsageError(f"the server at {where} answered: {error}") from None
    except OSError as error:  # a connection refused before any answer
        raise UsageError(f"cannot reach {where}: {error}") from None
    _print_scores(args, goals, result)
    return 0


def _export_reward_command(args: argparse.Namespace) -> int:
    from imagine_tf.reward.export import export_reward_model
    from imagine_tf.analysis.saved_run import load_reward_network

    try:
        network, metadata = load_reward_network(args.root_dir)
        path = export_reward_model(
            network,
            args.model_base_path,
            metadata,
            args.version,
            max_num_objects=args.max_num_objects,
        )
    except RUN_READ_ERRORS as error:
        raise UsageError(str(error)) from None
    print(f"exported {network.architecture} reward model to {path}")
    return 0


def _export_policy_command(args: argparse.Namespace) -> int:
    from imagine_tf.agent.export import export_policy
    from imagine_tf.analysis.saved_run import load_agent

    try:
        learner = load_agent(args.root_dir)
        path = export_policy(
            learner.ddpg.actor_network,
            args.model_base_path,
            args.version,
            train_step=learner.ddpg.train_step_counter,
        )
    except RUN_READ_ERRORS as error:
        raise UsageError(str(error)) from None
    print(f"exported the {learner.config.architecture} policy to {path}")
    return 0


def _export_parser(export_commands, name: str, help_text: str, root_help: str):
    """An `export` subcommand with the arguments every export takes."""
    parser = export_commands.add_parser(name, help=help_text)
    parser.add_argument("--root-dir", "--root_dir", required=True, help=root_help)
    parser.add_argument("--model-base-path", required=True, help="writes <path>/<version>/")
    parser.add_argument("--version", type=int, help="default: the next integer")
    return parser


def add_commands(commands) -> None:
    export = commands.add_parser("export", help="versioned SavedModels for TF Serving clients")
    export_commands = export.add_subparsers(dest="export_command", required=True)
    export_reward = _export_parser(
        export_commands,
        "reward",
        "the reward model: score / scan / metadata signatures",
        "a reward-model or agent run",
    )
    export_reward.add_argument(
        "--max-num-objects", type=int, default=10, help="MA / MA-pairs: accept every N up to this"
    )
    export_reward.set_defaults(run=_export_reward_command)
    export_policy = _export_parser(
        export_commands,
        "policy",
        "the noise-free policy: PolicySaver signatures + act(goals, states)",
        "an agent run (imagine-tf train)",
    )
    export_policy.set_defaults(run=_export_policy_command)

    serve_parser = commands.add_parser(
        "serve", help="gRPC server speaking TF Serving's PredictionService API"
    )
    from imagine_tf_serving.options import add_arguments as add_server_arguments  # argparse only

    add_server_arguments(serve_parser, model_required=False)  # or --pretrained (checked)
    serve_parser.add_argument(
        "--pretrained",
        action="store_true",
        help="the same as --model pretrained",
    )
    serve_parser.add_argument(
        "--model",
        choices=("pretrained", "authors"),
        help="serve a shipped reward model: the repository's pretrained one (models/) or the "
        "authors' (models/authors_epoch160/reward)",
    )
    serve_parser.set_defaults(run=_serve_command)

    score = commands.add_parser("score", help="score goal-state pairs on a running server")
    score.add_argument(
        "--goal", action="append", required=True, help="repeat: one per state, or one for all"
    )
    score.add_argument(
        "--state-file", required=True, help=".npy of [D] or [B, D] (see play --save-state)"
    )
    score.add_argument("--server", default="127.0.0.1:8500", help="gRPC host:port")
    score.add_argument(
        "--rest", metavar="URL", help="use the REST API instead, e.g. http://127.0.0.1:8501"
    )
    score.add_argument("--model-name", default="reward")
    score_version = score.add_mutually_exclusive_group()
    score_version.add_argument("--version", type=int, help="default: the newest served")
    score_version.add_argument("--version-label", help="a label of the server's --version_labels")
    score.add_argument("--timeout", type=float, default=10.0)
    score.add_argument("--json", action="store_true")
    score.set_defaults(run=_score_command)
