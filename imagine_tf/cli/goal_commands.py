"""`imagine-tf goals`: the grammar's goals, or the goals imagination invents from known ones."""

from __future__ import annotations

import argparse
import json
import pathlib

from imagine_tf.cli.common import UsageError


def _goals_command(args: argparse.Namespace) -> int:
    from imagine_tf.language import grammar

    if args.imagined:
        return _imagined_command(args)
    if args.known:
        raise UsageError("--known lists the goals imagination starts from; add --imagined.")
    if args.type is not None and args.split == "train":
        raise UsageError("--type selects test goals; use it with --split test or --split all.")
    if args.split == "train":
        goals = grammar.train_goals(args.relational)
    elif args.split == "test":
        goals = grammar.test_goals(args.relational)
    else:
        goals = tuple(
            sorted(grammar.train_goals(args.relational) + grammar.test_goals(args.relational))
        )
    if args.type is not None:
        goals = tuple(g for g in goals if grammar.generalization_type(g) == args.type)
    rows = [_row(g) for g in goals]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for row in rows:
            print(f"{row['goal']:<40s} {_label(row)}")
        print(f"# {len(rows)} goals")
    return 0


def _row(goal: str) -> dict:
    from imagine_tf.language import grammar

    achievable = goal in set(grammar.one_object_goals() + grammar.relational_goals())
    split = "test" if grammar.is_test_goal(goal) else "train"
    return {
        "goal": goal,
        "split": split if achievable else "not achievable",
        "type": grammar.generalization_type(goal) if achievable else None,
    }


def _label(row: dict) -> str:
    from imagine_tf.language import grammar

    kind = grammar.GENERALIZATION_TYPES.get(row["type"])
    return f"test, type {row['type']}: {kind}" if kind else row["split"]


def _known_goals(path: str | None) -> list[str]:
    from imagine_tf.language import grammar

    if path is None:
        return list(grammar.train_goals())
    file = pathlib.Path(path)
    if not file.is_file():
        raise UsageError(f"--known {path}: no such file (one goal a line).")
    goals = [" ".join(line.split()) for line in file.read_text().splitlines()]
    goals = [g for g in goals if g and not g.startswith("#")]
    if not goals:
        raise UsageError(f"--known {path} holds no goal: write one goal a line.")
    from imagine_tf.language.vocabulary import Vocabulary

    try:
        Vocabulary.default().encode(goals)
    except ValueError as error:
        raise UsageError(f"--known {path}: {error}") from None
    return goals


def _imagined_command(args: argparse.Namespace) -> int:
    from imagine_tf.language.imagination import GoalImagination, coverage

    if args.split != "all" or args.type is not None or args.relational:
        raise UsageError(
            "--imagined lists invented goals; --split, --type and --relational "
            "do not apply (use --known FILE to choose the known goals)."
        )
    known = _known_goals(args.known)
    imagination = GoalImagination("cgh")
    invented = imagination.update(known)
    figures = coverage(invented)
    rows = [_row(g) for g in invented]
    if args.json:
        summary = {k: v for k, v in figures.items() if k not in ("not_achievable",)}
        print(
            json.dumps(
                {
                    "known_goals": len(known),
                    **summary,
                    "classes": imagination.heuristic.classes(),
                    "goals": rows,
                },
                indent=1,
            )
        )
        return 0
    for row in rows:
        print(f"{row['goal']:<40s} {_label(row)}")
    print(
        f"# {figures['imagined']} goals invented from {len(known)} known goals (CGH); "
        f"{figures['test_goals_found']} of the {figures['test_goals']} test goals "
        f"({figures['test_coverage']:.1%}), {figures['share_of_imagined_in_test']:.1%} of the "
        f"invented goals are test goals, {len(figures['not_achievable'])} not achievable"
    )
    if figures["test_goals_missed"]:
        print(f"# test goals not found: {', '.join(figures['test_goals_missed'])}")
    return 0


def add_commands(commands) -> None:
    goals = commands.add_parser("goals", help="list the goal grammar's goals, or imagined goals")
    goals.add_argument("--split", choices=("train", "test", "all"), default="all")
    goals.add_argument("--type", type=int, choices=range(1, 6), help="generalization type (test)")
    goals.add_argument("--relational", action="store_true", help="the 160 two-object goals")
    goals.add_argument(
        "--imagined",
        action="store_true",
        help="the goals CGH invents from the training goals (or --known)",
    )
    goals.add_argument(
        "--known",
        metavar="FILE",
        help="with --imagined: the known goals, one a line (default: training)",
    )
    goals.add_argument("--json", action="store_true")
    goals.set_defaults(run=_goals_command)
