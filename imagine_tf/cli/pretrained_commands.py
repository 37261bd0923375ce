"""`imagine-tf pretrained build | readme | convert-authors`: the repository's pretrained models
(``models/``) from a finished experiment's runs, and their card; the authors' released agent
converted (``models/authors_epoch160``); and what ``--pretrained`` and ``authors`` resolve to."""

from __future__ import annotations

import argparse
import glob
import pathlib
import shlex

from imagine_tf.cli.common import UsageError, limit_threads

BUILD_EXAMPLE = """example (the repository's models/):
  imagine-tf pretrained build --run runs/experiments/imagination/cgh_s0 \\
      --seed-runs 'runs/experiments/imagination/cgh_s*' --out models"""


def _seed_runs(patterns: list[str]) -> list[pathlib.Path]:
    """The run directories the --seed-runs patterns (globs or paths) match, sorted."""
    runs = {
        pathlib.Path(match).resolve()
        for pattern in patterns
        for match in glob.glob(pattern)
        if pathlib.Path(match).is_dir()
    }
    if not runs:
        raise UsageError(
            f"--seed-runs {' '.join(patterns)} matched no directory: give the runs of every seed "
            "of the shipped run's configuration, e.g. 'runs/experiments/imagination/cgh_s*' "
            "(quoted, so that the shell leaves the pattern alone)."
        )
    return sorted(runs)


def pretrained_path(kind: str, agent: str = "pretrained") -> pathlib.Path:
    """The run directory (``kind="agent"``) or reward model base path (``"reward"``) of a
    shipped agent: ``"pretrained"`` (this project's, `models/card.json`) or ``"authors"``
    (theirs, converted); `UsageError` if the clone does not hold it."""
    from imagine_tf.pretrained.location import PretrainedModelsMissing, agent_dir, reward_dir
    from imagine_tf.pretrained.location import authors_dir

    try:
        if agent == "authors":
            return authors_dir() / ("reward" if kind == "reward" else "")
        return agent_dir() if kind == "agent" else reward_dir()
    except PretrainedModelsMissing as error:
        raise UsageError(str(error)) from None


def _convert_authors_command(args: argparse.Namespace) -> int:
    from imagine_tf.pretrained.authors import AuthorsFilesError, convert_authors

    limit_threads(args.threads)
    try:
        _, card = convert_authors(args.source, args.out)
    except (AuthorsFilesError, FileNotFoundError, FileExistsError) as error:
        raise UsageError(str(error)) from None
    print(f"wrote {args.out}: their actor and reward model ({len(card['vocabulary'])} words), "
          f"reward/1 (SavedModel), LICENSE, card.json ({len(card['measured'])} records), "
          "README.md")  # fmt: skip
    return 0


def _build_command(args: argparse.Namespace) -> int:
    from imagine_tf.provenance import code_version
    from imagine_tf.pretrained.build import BuildError, BuildRequest, build_models
    from imagine_tf.pretrained.location import MODELS, REPOSITORY
    from imagine_tf.pretrained.provenance import ProvenanceError

    run = pathlib.Path(args.run_dir).resolve()
    if not run.is_dir():
        raise UsageError(f"--run {args.run_dir} is not a directory: give a finished agent run.")
    record = pathlib.Path(
        args.experiment_record
        or REPOSITORY / "docs" / "results" / "experiments" / f"{run.parent.name}.json"
    ).resolve()
    limit_threads(args.threads)
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")  # each seed's network traces its own scan: no news
    request = BuildRequest(
        run=run,
        seed_runs=_seed_runs(args.seed_runs),
        out=pathlib.Path(args.out),
        experiment_record=record,
        command="imagine-tf " + shlex.join(args.argv),
        code_version=code_version(REPOSITORY, outputs=("docs/results", MODELS)),
    )
    try:
        card = build_models(request, args.max_num_objects)
    except (BuildError, ProvenanceError, FileNotFoundError) as error:
        raise UsageError(str(error)) from None
    from imagine_tf.pretrained.card import figure_text, shipped_figure

    for metric, figures in card["seeds"]["spread"].items():
        print(
            f"{metric}: shipped {figure_text(shipped_figure(card['shipped'], metric))}; "
            f"{figures['n']} seeds {figure_text(figures['mean'])} ± {figure_text(figures['std'])}"
        )
    print(f"wrote {args.out}/card.json, README.md and {card['agent']['directory']}/ "
          f"({card['total_bytes'] / 1e6:.1f} MB)")  # fmt: skip
    return 0


def _readme_command(args: argparse.Namespace) -> int:
    from imagine_tf.atomic_files import write_text_atomically
    from imagine_tf.pretrained.card import render_readme
    from imagine_tf.pretrained.location import CARD, README, read_card

    directory = pathlib.Path(args.out)
    if not (directory / CARD).is_file():
        raise UsageError(f"No {CARD} in {directory}: make it with `imagine-tf pretrained build`.")
    write_text_atomically(directory / README, render_readme(read_card(directory)))
    print(f"wrote {directory / README}")
    return 0


def add_commands(commands) -> None:
    pretrained = commands.add_parser(
        "pretrained", help="the repository's pretrained models (models/) and their card"
    )
    subcommands = pretrained.add_subparsers(dest="pretrained_command", required=True)
    build = subcommands.add_parser(
        "build",
        help="models/ from a finished run and its configuration's seeds: copy, strip, export, "
        "measure, write card.json and README.md",
        epilog=BUILD_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    build.add_argument(
        "--run", dest="run_dir", required=True, help="the shipped run (finished and evaluated)"
    )
    build.add_argument(
        "--seed-runs",
        nargs="+",
        required=True,
        help="the runs of every seed of its configuration: quoted globs or directories",
    )
    build.add_argument("--out", default="models", help="the models directory")
    build.add_argument(
        "--experiment-record",
        help="the experiment's report JSON (default: "
        "docs/results/experiments/<the run's parent folder>.json)",
    )
    build.add_argument("--max-num-objects", type=int, default=10, help="the served reward's N")
    build.add_argument("--threads", type=int, help="TensorFlow threads (default: all cores)")
    build.set_defaults(run=_build_command)
    readme = subcommands.add_parser("readme", help="write models/README.md again from card.json")
    readme.add_argument("--out", default="models", help="the models directory")
    readme.set_defaults(run=_readme_command)
    convert = subcommands.add_parser(
        "convert-authors",
        help="the authors' released agent (flowersteam/Imagine pretrained_weights/) as this "
        "project's networks, with their licence and a card",
    )
    convert.add_argument(
        "--from",
        dest="source",
        required=True,
        help="their pretrained_weights/ directory (in a clone: its LICENSE is read beside it)",
    )
    convert.add_argument("--out", default="models/authors_epoch160", help="the directory written")
    convert.add_argument("--threads", type=int, help="TensorFlow threads (default: all cores)")
    convert.set_defaults(run=_convert_authors_command)
