"""What the `imagine-tf` commands share: the usage error, gin flags, thread limits."""

from __future__ import annotations

import argparse

from imagine_tf.training.checkpoint_snapshot import SnapshotError

# What reading a run directory raises for a user's mistake or a run that has no checkpoint yet.
RUN_READ_ERRORS = (FileNotFoundError, ValueError, SnapshotError)


class UsageError(Exception):
    """A mistake in the command line; printed without a traceback."""



def parse_gin(args: argparse.Namespace, module=None) -> None:
    """Applies --gin-file / --gin-binding (configs/*.gin bind `make_env`, `train_reward_model`).

    `module` is imported first so that its configurables are registered (default: playground).
    """
    if not (args.gin_file or args.gin_binding):
        return
    import gin

    if module is None:
        import imagine_tf.playground  # noqa: F401 - registers the configurables

    try:
        gin.parse_config_files_and_bindings(args.gin_file, args.gin_binding)
    except (IOError, ValueError) as error:
        raise UsageError(f"bad gin configuration: {error}") from None


def limit_threads(threads: int | None) -> None:
    """Limits TensorFlow to ``threads`` threads (before it starts); None keeps all cores."""
    if threads:
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)


def add_gin_flags(parser: argparse.ArgumentParser) -> None:
    """--gin-file / --gin-binding, also in TF-Agents' spelling (--gin_file, --gin_bindings)."""
    parser.add_argument(
        "--gin-file", "--gin_file", action="append", default=[], help="e.g. configs/playground.gin"
    )
    parser.add_argument(
        "--gin-binding", "--gin_binding", "--gin_bindings", "--gin-bindings", action="append",
        default=[], help='e.g. "make_env.num_objects = 5"',
    )  # fmt: skip
