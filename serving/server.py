"""The server process: gRPC PredictionService + ModelService + health + reflection (grpc.aio).

    python -m imagine_tf_serving --model_base_path models/reward --model_name reward [--port 8500]
        [--host 127.0.0.1] [--max_batch_size 65536] [--max_message_mb 64] [--workers 8]
        [--poll_seconds 1] [--tls_cert cert.pem --tls_key key.pem]
        [--enable_batching [--batch_max_size 1024] [--batch_timeout_micros 0] ...]
        [--num_versions 1] [--version_labels stable=3,canary=4]

(also `imagine-tf serve` with the same options). Binds 127.0.0.1 unless told otherwise. The
health service (``grpc.health.v1``) says SERVING once a version is AVAILABLE, for the empty
service name and for ``tensorflow.serving.PredictionService``. SIGTERM (or SIGINT) drains: the
health turns NOT_SERVING, new requests are refused, in-flight ones finish (up to
``--grace_seconds``), then the process exits with status 0.

The gRPC server is a ``grpc.aio`` server on an event loop of its own thread; model calls run
in the signatures' batch threads or in a pool of ``--workers`` threads.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import threading
from concurrent import futures

import grpc
import tensorflow as tf
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from tensorflow_serving.apis import (  # noqa: F401 - the services' descriptors, for reflection
    model_service_pb2_grpc,
    prediction_service_pb2_grpc,
)

from .batching import BatchingOptions
from .grpc_handlers import SERVICES, add_servicer
from .model_registry import LoadedVersion, ModelRegistry
from .options import add_arguments
from .prediction_service import ModelStatusServicer, PredictionServicer, Predictor
from .rest_api import RestApi
from .rest_server import RestServer
from .signature_runner import session_config

LOG = logging.getLogger("serving")
SERVICE_NAMES = tuple(SERVICES)
WARMUP_FILE = "assets.extra/tf_serving_warmup_requests"


class ServingProcess:
    """One model served over gRPC.

    Args:
      model_base_path: directory of integer version subdirectories.
      model_name: the name clients put in ``model_spec.name``.
      host, port: where to listen (port 0 picks a free port: see ``self.port``).
      max_batch_size: largest first dimension of an input.
      max_message_bytes: gRPC message size limit, both ways.
      workers: threads running unbatched model calls (and the REST API's requests).
      poll_seconds: how often a new version is looked for.
      intra_op_threads, inter_op_threads: the sessions' thread pools (0: one thread per core).
      batching: `BatchingOptions` (None: no server-side batching) for ``batching_signatures``.
      num_versions, version_labels: how many of the newest versions are served, and label ->
        version.
      tls: (certificate chain PEM bytes, private key PEM bytes) or None.
      rest_port: also serve TF Serving's REST API there (None: not; 0: a free port, see
        ``self.rest.port``), with ``rest_framework`` ("aiohttp" or "tornado").
    """

    def __init__(
        self,
        model_base_path: str,
        model_name: str,
        host: str = "127.0.0.1",
        port: int = 8500,
        max_batch_size: int = 65_536,
        max_message_bytes: int = 64 << 20,
        workers: int = 8,
        poll_seconds: float = 1.0,
        tls: tuple[bytes, bytes] | None = None,
        intra_op_threads: int = 0,
        inter_op_threads: int = 0,
        batching: BatchingOptions | None = None,
        batching_signatures: tuple[str, ...] = ("serving_default", "score"),
        num_versions: int = 1,
        version_labels: dict[str, int] | None = None,
        rest_port: int | None = None,
        rest_framework: str = "aiohttp",
    ):
        self.registry = ModelRegistry(
            model_base_path,
            self._warm_up,
            poll_seconds,
            session_config(intra_op_threads, inter_op_threads),
            batching,
            batching_signatures,
            num_versions,
            version_labels,
            self._available,
        )
        self.predictor = Predictor(model_name, self.registry, max_batch_size)
        self.executor = futures.ThreadPoolExecutor(workers, thread_name_prefix="model")
        self._loop = asyncio.new_event_loop()
        self._loop_thread = threading.Thread(
            target=self._loop.run_forever, name="grpc-aio", daemon=True
        )
        self._loop_thread.start()
        self.health = health.aio.HealthServicer()
        self.port = self._in_loop(self._make_server(model_name, host, port, max_message_bytes, tls))
        if self.port == 0:
            raise OSError(f"cannot listen on {host}:{port} (in use?)")
        self.rest = None
        if rest_port is not None:  # TF Serving's REST API, the same predictor and checks
            self.rest = RestServer(
                RestApi(self.predictor, self.registry),
                host,
                rest_port,
                rest_framework,
                max_message_bytes,
                workers,
            )
        self.stopped = threading.Event()

    def _in_loop(self, coroutine, timeout: float | None = 60):
        """Runs ``coroutine`` on the server's event loop; its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    async def _make_server(self, model_name, host, port, max_message_bytes, tls) -> int:
        """Creates the aio server on the loop (it belongs to the loop that made it); the port."""
        options = [
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", max_message_bytes),
        ]
        self.server = grpc.aio.server(options=options)
        add_servicer(  # unparseable requests: INVALID_ARGUMENT (`grpc_handlers`)
            self.server,
            "tensorflow.serving.PredictionService",
            PredictionServicer(self.predictor, self.executor),
        )
        add_servicer(
            self.server,
            "tensorflow.serving.ModelService",
            ModelStatusServicer(model_name, self.registry),
        )
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        await self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING)
        reflection.enable_server_reflection(
            (
                *SERVICE_NAMES,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            self.server,
        )
        address = f"{host}:{port}"
        if tls:
            credentials = grpc.ssl_server_credentials([(tls[1], tls[0])])
            return self.server.add_secure_port(address, credentials)
        return self.server.add_insecure_port(address)

    async def _set_health(self, status) -> None:
        for name in ("", SERVICE_NAMES[0]):
            await self.health.set(name, status)

    def _warm_up(self, loaded: LoadedVersion) -> None:
        """Replays the version's warm-up requests (TF Serving's SavedModel warm-up)."""
        path = loaded.path / WARMUP_FILE
        if not path.exists():
            return
        from tensorflow_serving.apis import prediction_log_pb2

        count = 0
        for record in tf.data.TFRecordDataset(str(path)):
            log = prediction_log_pb2.PredictionLog.FromString(record.numpy())
            if log.WhichOneof("log_type") == "predict_log":
                self.predictor.predict(log.predict_log.request, loaded)
                count += 1
        LOG.info("version %s warmed up with %d requests", loaded.version, count)

    def start(self) -> "ServingProcess":
        """Starts listening, then loads the latest version (health SERVING once AVAILABLE)."""
        self._in_loop(self.server.start())
        if self.rest is not None:
            self.rest.start()
        self.registry.start()
        return self

    def _available(self) -> None:
        """A version became AVAILABLE: the health says SERVING (unless draining)."""
        if not self.stopped.is_set():
            self._in_loop(self._set_health(health_pb2.HealthCheckResponse.SERVING))

    def stop(self, grace_seconds: float = 10.0) -> None:
        """Drains: NOT_SERVING, refuse new requests, let in-flight ones finish."""
        self.stopped.set()  # first: a version loading now does not turn the health back on
        self._in_loop(self.health.enter_graceful_shutdown())
        self._in_loop(self.server.stop(grace_seconds), timeout=None)
        if self.rest is not None:
            self.rest.stop()
        self.registry.stop()
        self.executor.shutdown(wait=True)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._loop_thread.join(timeout=10)


def parse_version_labels(text: str) -> dict[str, int]:
    """ "stable=3,canary=4" -> {"stable": 3, "canary": 4}; SystemExit naming a bad entry."""
    labels = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        name, _, version = entry.partition("=")
        if not name or not version.isdigit():
            raise SystemExit(
                f"--version_labels: {entry!r} is not NAME=VERSION (e.g. stable=3,canary=4)"
            )
        labels[name] = int(version)
    return labels


def _tls_and_batching(args: argparse.Namespace) -> tuple:
    """(TLS (certificate, key) bytes or None, `BatchingOptions` or None) of the options;
    SystemExit for a bad version count, half a TLS pair or bad batching parameters."""
    if args.num_versions < 1:
        raise SystemExit(f"--num_versions must be at least 1, got {args.num_versions}")
    if bool(args.tls_cert) != bool(args.tls_key):
        raise SystemExit("--tls_cert and --tls_key go together: give both or neither.")
    tls = None
    if args.tls_cert:
        with open(args.tls_cert, "rb") as cert, open(args.tls_key, "rb") as key:
            tls = (cert.read(), key.read())
    batching = None
    if args.enable_batching:
        try:
            batching = BatchingOptions(
                args.batch_max_size, args.batch_timeout_micros, args.max_enqueued_batches
            )
        except ValueError as error:
            raise SystemExit(str(error)) from None
    return tls, batching


def serve(args: argparse.Namespace) -> int:
    """Runs until SIGTERM / SIGINT; returns the exit status."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    tls, batching = _tls_and_batching(args)
    process = ServingProcess(
        args.model_base_path,
        args.model_name,
        args.host,
        args.port,
        args.max_batch_size,
        args.max_message_mb << 20,
        args.workers,
        args.poll_seconds,
        tls,
        args.tensorflow_intra_op_parallelism,
        args.tensorflow_inter_op_parallelism,
        batching,
        tuple(n for n in args.batching_signatures.split(",") if n),
        args.num_versions,
        parse_version_labels(args.version_labels),
        args.rest_api_port,
        args.rest_framework,
    ).start()
    done = threading.Event()

    def drain(signum, frame):
        LOG.info("signal %s: draining", signum)
        done.set()

    signal.signal(signal.SIGTERM, drain)
    signal.signal(signal.SIGINT, drain)
    served = process.registry.served()
    LOG.info(
        "listening on %s:%s (model %r, version %s)",
        args.host,
        process.port,
        args.model_name,
        served.version if served else "none yet",
    )
    rest = f", REST on {args.host}:{process.rest.port}" if process.rest else ""
    print(f"serving {args.model_name!r} on {args.host}:{process.port}{rest}", flush=True)
    while not done.wait(0.5):  # wakes up for the signal handlers
        pass
    process.stop(args.grace_seconds)
    LOG.info("stopped")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m imagine_tf_serving", description=__doc__.splitlines()[0]
    )
    add_arguments(parser)
    return serve(parser.parse_args(argv))
