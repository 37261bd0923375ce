"""`imagine-tf eval`: the success rate per goal of a run, of this project's pretrained agent
(``--agent pretrained``, alias ``--pretrained``) or of the authors' (``--agent authors``), in
the default world or the authors' (``--world authors``), optionally as a record (``--out``)."""

from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import sys
import time

from imagine_tf.cli import pretrained_commands
from imagine_tf.cli.common import RUN_READ_ERRORS, UsageError

SHIPPED_AGENTS = ("pretrained", "authors")


def _agent_directory(args: argparse.Namespace) -> str:
    """The run directory evaluated: --root-dir, or a shipped agent's (models/)."""
    agent = "pretrained" if args.pretrained else args.agent
    if args.root_dir and agent:
        raise UsageError("--root-dir and --agent/--pretrained exclude each other: give one.")
    if not (args.root_dir or agent):
        raise UsageError(
            "give --root-dir RUN (an agent run) or --agent pretrained|authors (models/)."
        )
    args.agent = agent
    return args.root_dir or str(pretrained_commands.pretrained_path("agent", agent))


def _write_record(args: argparse.Namespace, result: dict, root_dir: str, seconds: float) -> None:
    """``--out``: the evaluation as a record (command, code version, machine, load)."""
    from imagine_tf.atomic_files import write_record
    from imagine_tf.provenance import REPOSITORY, code_version, machine_description

    shipped = {}
    if args.agent == "authors":  # what it cost, from its card
        card = json.loads((pathlib.Path(root_dir) / "card.json").read_text())
        shipped = {"budget": card["source"]["budget"]}
    write_record(
        args.out,
        {
            "agent": args.agent or root_dir,
            "world": args.world,
            "seed": args.seed,
            "code_version": code_version(REPOSITORY, outputs=("docs/results", "models")),
            "machine": machine_description(),
            "threads": args.threads,
            "wall_seconds": round(seconds, 1),
            **shipped,
            **result,
        },
        command="imagine-tf " + shlex.join(sys.argv[1:]),
    )
    print(f"wrote {args.out}", file=sys.stderr)


def _eval_command(args: argparse.Namespace) -> int:
    from imagine_tf.analysis.run_evaluation import evaluate_run
    from imagine_tf.cli.common import limit_threads

    root_dir = _agent_directory(args)
    limit_threads(args.threads)
    start = time.perf_counter()
    try:  # the shipped models stay as committed: their evaluation is printed (or --out)
        result = evaluate_run(
            root_dir,
            args.repetitions,
            args.num_objects,
            args.seed,
            write=not args.agent,
            world=args.world,
        )
    except RUN_READ_ERRORS as error:
        raise UsageError(str(error)) from None
    print(json.dumps({k: v for k, v in result.items() if k != "per_goal"}, indent=1))
    if args.out:
        _write_record(args, result, root_dir, time.perf_counter() - start)
    if args.agent == "pretrained":
        from imagine_tf.pretrained.location import read_card

        card = read_card()
        print(
            f"models/card.json: train / test SR {card['shipped']['train_success']:.3f} / "
            f"{card['shipped']['test_success']:.3f} with "
            f"{card['measures']['success_rate']['episodes_per_goal']} episodes per goal, "
            f"seed {card['measures']['success_rate']['seed']}",
            file=sys.stderr,
        )
    return 0


def add_eval_parser(commands) -> None:
    """`imagine-tf eval`."""
    from imagine_tf.env.config import WORLDS

    evaluate = commands.add_parser(
        "eval", help="success rate per goal of a trained run -> eval.json"
    )
    evaluate.add_argument("--root-dir", "--root_dir", help="an agent run")
    evaluate.add_argument(
        "--agent",
        choices=SHIPPED_AGENTS,
        help="a shipped agent (models/; prints, writes nothing there): this project's "
        "pretrained one or the authors' released one, converted",
    )
    evaluate.add_argument(
        "--pretrained", action="store_true", help="the same as --agent pretrained"
    )
    evaluate.add_argument(
        "--world",
        choices=WORLDS,
        default="default",
        help="the Playground's rules: this project's (default) or the authors' code's",
    )
    evaluate.add_argument("--repetitions", type=int, default=30)
    evaluate.add_argument("--num-objects", type=int, help="N at evaluation (MA works at any N)")
    evaluate.add_argument("--seed", type=int, default=12345)
    evaluate.add_argument("--out", help="also write the evaluation as a record (JSON)")
    evaluate.add_argument("--threads", type=int, help="TensorFlow threads (default: all cores)")
    evaluate.set_defaults(run=_eval_command)
