"""The server's command-line options (argparse only: cheap to import for `imagine-tf --help`)."""

from __future__ import annotations

import argparse


def _add_model_and_server(parser: argparse.ArgumentParser, model_required: bool) -> None:
    """The model, the addresses (gRPC, REST), message sizes and threads."""
    parser.add_argument("--model_base_path", "--model-base-path", required=model_required)
    parser.add_argument("--model_name", "--model-name", default="reward")
    parser.add_argument("--host", default="127.0.0.1", help="127.0.0.1 (default) or 0.0.0.0")
    parser.add_argument("--port", type=int, default=8500)
    parser.add_argument(
        "--rest_api_port",
        "--rest-port",
        type=int,
        nargs="?",
        const=8501,
        default=None,
        help="also serve TF Serving's REST API on this port (alone: 8501; 0: a free port)",
    )
    parser.add_argument(
        "--rest_framework",
        "--rest-framework",
        choices=("aiohttp", "tornado"),
        default="aiohttp",
        help="the REST API's HTTP server",
    )
    parser.add_argument("--max_batch_size", "--max-batch-size", type=int, default=65_536)
    parser.add_argument("--max_message_mb", "--max-message-mb", type=int, default=64)
    parser.add_argument(
        "--workers",
        type=int,
        default=8,
        help="threads running unbatched model calls and REST requests",
    )
    parser.add_argument(
        "--tensorflow_intra_op_parallelism",
        type=int,
        default=0,
        help="threads inside one op (0: one per core), as TF Serving's flag",
    )
    parser.add_argument(
        "--tensorflow_inter_op_parallelism",
        type=int,
        default=0,
        help="ops run at once (0: one per core), as TF Serving's flag",
    )


def _add_batching(parser: argparse.ArgumentParser) -> None:
    """Server-side batching, a group of its own in --help."""
    batching = parser.add_argument_group("server-side batching (TF Serving's batching parameters)")
    batching.add_argument(
        "--enable_batching",
        "--enable-batching",
        action="store_true",
        help="merge concurrent requests to the batched signatures",
    )
    batching.add_argument(
        "--batching_signatures",
        "--batching-signatures",
        default="serving_default,score",
        help="comma-separated signatures whose inputs and outputs all have "
        "the batch first (not 'scan')",
    )
    batching.add_argument(
        "--batch_max_size",
        "--batch-max-size",
        type=int,
        default=1024,
        help="rows per merged run (TF Serving's max_batch_size)",
    )
    batching.add_argument(
        "--batch_timeout_micros",
        "--batch-timeout-micros",
        type=int,
        default=0,
        help="wait for more requests after the first (0: never wait)",
    )
    batching.add_argument(
        "--max_enqueued_batches",
        "--max-enqueued-batches",
        type=int,
        default=64,
        help="queue bound in batches; beyond it requests get UNAVAILABLE",
    )


def _add_versions_and_tls(parser: argparse.ArgumentParser) -> None:
    """Served versions and their labels, polling, shutdown grace and TLS."""
    parser.add_argument(
        "--num_versions",
        "--num-versions",
        type=int,
        default=1,
        help="serve the N newest versions at once (TF Serving's latest { num_versions })",
    )
    parser.add_argument(
        "--version_labels",
        "--version-labels",
        default="",
        help="labels of served versions, e.g. stable=3,canary=4 (requests may name a label)",
    )
    parser.add_argument("--poll_seconds", "--poll-seconds", type=float, default=1.0)
    parser.add_argument("--grace_seconds", "--grace-seconds", type=float, default=10.0)
    parser.add_argument("--tls_cert", "--tls-cert", help="PEM certificate chain (with --tls_key)")
    parser.add_argument("--tls_key", "--tls-key", help="PEM private key")


def add_arguments(parser: argparse.ArgumentParser, model_required: bool = True) -> None:
    """The server's options (shared with `imagine-tf serve`). ``model_required=False``: the
    caller finds the model another way when --model-base-path is not given (its check)."""
    _add_model_and_server(parser, model_required)
    _add_batching(parser)
    _add_versions_and_tls(parser)
