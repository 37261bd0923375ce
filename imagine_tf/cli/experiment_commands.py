"""`imagine-tf experiment NAME [--parallel P] [--report]`: a grid of runs and its statistics."""

from __future__ import annotations

import argparse
import pathlib
import signal

from imagine_tf.cli.common import UsageError


def _experiment_command(args: argparse.Namespace) -> int:
    from imagine_tf.experiments.cells import grid
    from imagine_tf.experiments.report import write_report
    from imagine_tf.experiments.runner import GridRunner

    if args.parallel < 1:
        raise UsageError(f"--parallel must be >= 1, got {args.parallel}.")
    repository, path, spec = _load_spec(args)
    root = pathlib.Path(args.root_dir or repository / "runs" / "experiments" / spec.name).resolve()
    cells = grid(spec, root, repository)
    out_dir = pathlib.Path(args.out_dir or repository / "docs" / "results" / "experiments")
    if args.restate:
        return _restate(spec, out_dir, repository)
    if args.list:
        for cell in cells:
            print(f"{cell.name:<24s} {cell.state():<22s} {cell.directory}")
        return 0
    if not args.report:
        runner = GridRunner(cells, args.parallel)

        def stop(signum, frame):  # the runner stops its children from the main thread
            raise KeyboardInterrupt

        previous = signal.signal(signal.SIGTERM, stop)
        try:
            failed = runner.run()
        finally:
            signal.signal(signal.SIGTERM, previous)
        if failed:
            print(f"failed cells: {', '.join(failed)} (their logs are in {root})")
            return 1
    record = write_report(spec, cells, out_dir, repository, path)
    finished = sum(len(c["seeds"]) for c in record["configurations"].values())
    print(f"{finished} of {len(cells)} cells reported")
    _print_claims(record, out_dir / spec.name)
    return 0


def _load_spec(args: argparse.Namespace) -> tuple:
    """(repository, the experiment's file, its spec with --seeds applied); UsageError for an
    unknown or bad experiment or a bad --seeds."""
    from imagine_tf.experiments.spec import experiment_path, load_experiment, repository_root

    try:
        repository = repository_root()
        path = experiment_path(args.name, repository)
        spec = load_experiment(path)
    except (FileNotFoundError, ValueError) as error:
        raise UsageError(str(error)) from None
    if args.seeds is not None:
        if args.seeds < 1:
            raise UsageError(f"--seeds must be >= 1, got {args.seeds}.")
        import dataclasses

        spec = dataclasses.replace(spec, seeds=args.seeds)
    return repository, path, spec


def _restate(spec, out_dir: pathlib.Path, repository: pathlib.Path) -> int:
    """--restate: recomputes the statistics of the experiment's record in ``out_dir``."""
    from imagine_tf.experiments.report import restate

    record_path = out_dir / f"{spec.name}.json"
    if not record_path.exists():
        raise UsageError(
            f"--restate rewrites {record_path}, which does not exist: report the grid "
            f"first (imagine-tf experiment {spec.name} --report)."
        )
    try:
        record = restate(spec, record_path, repository)
    except ValueError as error:
        raise UsageError(f"{record_path}: {error}") from None
    _print_claims(record, out_dir / spec.name)
    return 0


def _print_claims(record: dict, stem: pathlib.Path) -> None:
    print(f"wrote {stem}.json, .md, .png")
    for test in record["comparisons"] + record.get("comparisons_by_num_objects", []):
        if test["p"] is not None:
            at = f" at N = {test['num_objects']}" if "num_objects" in test else ""
            ci = test.get("difference_ci") or [float("nan")] * 2
            print(
                f"  {test['claim']}{at}: {test['verdict']} (difference {test['difference']:+.3f} "
                f"[{ci[0]:+.3f}, {ci[1]:+.3f}], p = {test['p']:.2g}, Holm p = {test['p_holm']:.2g})"
            )


def add_commands(commands) -> None:
    experiment = commands.add_parser(
        "experiment", help="run a grid of configurations x seeds (resumable) and report it"
    )
    experiment.add_argument("name", help="an experiment of configs/experiments/ or a .gin file")
    experiment.add_argument(
        "--parallel", type=int, default=1, help="cells at once, one thread each (default 1)"
    )
    experiment.add_argument(
        "--report", action="store_true", help="only aggregate the finished cells (no training)"
    )
    experiment.add_argument(
        "--restate",
        action="store_true",
        help="recompute the statistics of OUT_DIR/NAME.json from the per-seed values it holds",
    )
    experiment.add_argument(
        "--list",
        action="store_true",
        help="list the cells and where each stands (epochs, evaluations)",
    )
    experiment.add_argument("--seeds", type=int, help="override the experiment's seed count")
    experiment.add_argument("--root-dir", help="default: runs/experiments/NAME")
    experiment.add_argument("--out-dir", help="default: docs/results/experiments")
    experiment.set_defaults(run=_experiment_command)
