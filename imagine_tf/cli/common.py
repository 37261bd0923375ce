"""What the `imagine-tf` commands share: the usage error, gin flags, thread limits, the
prepared dataset's flags, a command process's objects out of the garbage collector's way."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import os
import pathlib
import shlex
import sys
from typing import Sequence

from imagine_tf.runs.snapshot import SnapshotError

# What reading a run directory raises for a user's mistake or a run that has no checkpoint yet.
RUN_READ_ERRORS = (FileNotFoundError, ValueError, SnapshotError)


# Where a gin error sends the user: the configurables that hold the settings.
GIN_HINT = (
    ". Settings are bound as TrainConfig.<field> (agent runs: imagine_tf/agent/config.py), "
    "RewardTrainConfig.<field> and RewardStudyConfig.<field> (the reward model: "
    "imagine_tf/reward/config.py), make_env.<argument> (the Playground)."
)


class UsageError(Exception):
    """A mistake in the command line; printed without a traceback."""


# Whether `frozen_imports` froze this process's TensorFlow import (its later uses freeze too).
_frozen = False


@contextlib.contextmanager
def frozen_imports():
    """For a command's TensorFlow imports: no cyclic garbage collection while they run, then
    every object alive is moved out of the collector's reach for the rest of the process
    (`gc.freeze`). Importing TensorFlow makes millions of long-lived objects and next to no
    garbage; collecting during the import, and traversing those objects again in the full
    collections that tf.function tracing triggers, costs some 3 s of CPU per process (a fifth
    of a short `imagine-tf train`). Where TensorFlow was imported before (``main()`` from a
    notebook or a test), nothing changes: the objects alive there are the user's."""
    global _frozen
    if "tensorflow" in sys.modules and not _frozen:
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        _frozen = True
        if enabled:
            gc.enable()


def freeze_at_exit() -> None:
    """For a command's own process: Python's last garbage collections at exit are skipped
    (`gc.freeze` as the first exit handler). They would traverse and free the objects one by
    one for memory that the system takes back at once: about 0.5 CPU-s after a small
    ``imagine-tf train`` here, more after longer runs."""
    atexit.register(gc.freeze)  # exit handlers run last registered first


def parse_gin(args: argparse.Namespace, module=None) -> None:
    """Applies --gin-file / --gin-binding (`config_files.parse_config_files`: includes resolve
    against ``configs/``).

    `module` is imported first so that its configurables are registered (default: playground).
    """
    if not (args.gin_file or args.gin_binding):
        return
    from imagine_tf.agent.config import check_agent_bindings
    from imagine_tf.runs.config_files import parse_config_files

    if module is None:
        import imagine_tf.playground  # noqa: F401 - registers the configurables

    try:
        parse_config_files(args.gin_file, args.gin_binding)
        check_agent_bindings()
    except (IOError, ValueError) as error:
        raise UsageError(f"bad gin configuration: {error}{GIN_HINT}") from None


def check_gin_files_exist(args: argparse.Namespace) -> None:
    """A `UsageError` naming the --gin-file paths that are no file (as `parse_gin` resolves
    them: here, under the repository root or under ``configs/``)."""
    from imagine_tf.runs.config_files import resolve_config_file

    missing = [
        name for name in args.gin_file or () if not os.path.isfile(resolve_config_file(name))
    ]
    if missing:
        raise UsageError(
            f"bad gin configuration: no gin file {', '.join(missing)} (looked in {os.getcwd()}, "
            "in the repository and in its configs/); give a path to a .gin file."
        )


def gin_configured(args: argparse.Namespace, module, make):
    """`parse_gin`, then ``make()`` (the gin-bound configurations); a `UsageError` if gin
    binds values they refuse."""
    parse_gin(args, module)
    try:
        return make()
    except (TypeError, ValueError) as error:
        raise UsageError(f"bad gin configuration: {error}{GIN_HINT}") from None


def command_line(
    name: str, args: argparse.Namespace, leading: Sequence[str] = (), trailing: Sequence[str] = ()
) -> str:
    """The ``imagine-tf NAME`` command line of ``args``, for a record: the ``leading`` flags,
    the gin files and bindings, then the ``trailing`` flags (argparse destinations; those
    without a value are left out, lists are space-separated)."""
    parts = [f"imagine-tf {name}", *_flags(args, leading)]
    parts += [f"--gin-file {shlex.quote(gin_file)}" for gin_file in args.gin_file]
    parts += [f"--gin-binding {_binding_quoted(binding)}" for binding in args.gin_binding]
    return " ".join(parts + _flags(args, trailing))


def _flags(args: argparse.Namespace, names: Sequence[str]) -> list[str]:
    parts = []
    for name in names:
        value = getattr(args, name, None)
        if value is None or value == []:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        parts.append(f"--{name.replace('_', '-')} " + " ".join(shlex.quote(str(v)) for v in values))
    return parts


def _binding_quoted(binding: str) -> str:
    """A gin binding as one shell argument: in double quotes where that is safe (gin strings
    are single-quoted), else `shlex.quote`'s single quotes."""
    return f'"{binding}"' if not set(binding) & set('"$`\\') else shlex.quote(binding)


def limit_threads(threads: int | None, learner: bool = False) -> None:
    """Limits TensorFlow to ``threads`` threads (before it starts); None keeps all cores.

    ``learner=True`` (a training process): ops side by side on ``threads`` (or all cores)
    inter-op threads, each op on one thread. A learner's products are small (M = 768 rows):
    two at once on two cores (the critic step of one update beside the actor step of the
    previous, `agent/update_cycle.py`) beat one split over two; measured in
    `docs/results/epoch_bench.json` (``threading``).

    Called in a process whose TensorFlow already runs (``main()`` from a notebook or a test),
    the limit cannot change any more: that is said on stderr and the command goes on."""
    if threads or learner:
        import tensorflow as tf

        inter_op = threads or os.cpu_count() or 1
        try:
            tf.config.threading.set_intra_op_parallelism_threads(1 if learner else threads)
            tf.config.threading.set_inter_op_parallelism_threads(inter_op)
        except RuntimeError:  # "cannot be modified after initialization"
            print(
                f"imagine-tf: TensorFlow already runs in this process; --threads {threads} "
                "is not applied",
                file=sys.stderr,
            )


def add_gin_flags(parser: argparse.ArgumentParser) -> None:
    """--gin-file / --gin-binding, also in TF-Agents' spelling (--gin_file, --gin_bindings)."""
    parser.add_argument(
        "--gin-file",
        "--gin_file",
        action="append",
        default=[],
        help="e.g. configs/world/playground.gin",
    )
    parser.add_argument(
        "--gin-binding",
        "--gin_binding",
        "--gin_bindings",
        "--gin-bindings",
        action="append",
        default=[],
        help='e.g. "make_env.num_objects = 5"',
    )


class _GinSettingFlag(argparse.Action):
    """A flag whose setting is bound in gin: using it is an error saying what to use."""

    def __init__(self, option_strings, dest, instead: str, **kwargs):
        super().__init__(option_strings, dest, nargs="*", help=argparse.SUPPRESS, **kwargs)
        self.instead = instead

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} is a gin setting: use {self.instead}")


def gin_binding(binding: str) -> str:
    """The command-line spelling of a binding: ``--gin-binding "NAME = VALUE"``."""
    return f'--gin-binding "{binding}"'


def add_gin_setting_flags(parser: argparse.ArgumentParser, settings: dict[str, str]) -> None:
    """Makes each flag of ``settings`` ({flag: what to use instead, e.g. a `gin_binding`}) an
    error that says what to use, and lists them at the end of the command's help."""
    for flag, instead in settings.items():
        parser.add_argument(
            flag, action=_GinSettingFlag, dest=f"gin_setting_{flag}", instead=instead
        )
    lines = [f"  {flag:<22} {instead}" for flag, instead in settings.items()]
    parser.epilog = "Model and training settings are gin bindings:\n" + "\n".join(lines)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def add_dataset_flags(parser: argparse.ArgumentParser) -> None:
    """--config / --data-dir / --dataset-dir: where a prepared `playground_trajectories` is."""
    parser.add_argument("--config", default="scripted_mixture", help="dataset config")
    parser.add_argument("--data-dir", default="~/tensorflow_datasets")
    parser.add_argument(
        "--dataset-dir", help="a prepared dataset directory (overrides the two above)"
    )


def prepared_dataset(args: argparse.Namespace) -> pathlib.Path:
    """The dataset directory of `add_dataset_flags`; a `UsageError` if it is not built."""
    from imagine_tf.training.dataset_build import dataset_dir

    directory = pathlib.Path(args.dataset_dir or dataset_dir(args.data_dir, args.config))
    if not (directory / "dataset_info.json").exists():
        raise UsageError(
            f"No prepared dataset at {directory}. Build one with `imagine-tf dataset build "
            f"--config {args.config}` (or pass --dataset-dir)."
        )
    return directory
