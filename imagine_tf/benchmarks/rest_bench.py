"""The REST part of `imagine-tf bench serving`: TF Serving's REST API on each HTTP stack, and a
soak mixing REST and gRPC clients.

For each framework (aiohttp, tornado) a server with ``--rest_api_port 0 --rest_framework F``
(batching off): one (goal, state) pair, row format, p50 / p99 / max over 1,000 sequential
calls of one `requests.Session` (after 50 warm-up calls), and batch 1024 (columnar, pairs/s
over 50 calls). The soak: ``clients`` concurrent clients, half REST (one session each), half
gRPC (one channel each), for ``seconds``; requests, errors, the server's RSS before and after.
"""

from __future__ import annotations

import json
import threading
import time

import numpy as np

from imagine_tf.benchmarks.timing import resident_mb, run_together, timed


def _one_pair_body(states: np.ndarray) -> bytes:
    return json.dumps(
        {
            "signature_name": "score",
            "instances": [{"goals": "Grasp red cat", "states": states[0].tolist()}],
        }
    ).encode()


def _batch_body(states: np.ndarray) -> bytes:
    return json.dumps(
        {
            "signature_name": "score",
            "inputs": {"goals": ["Grasp red cat"] * len(states), "states": states.tolist()},
        }
    ).encode()


def rest_measures(
    base: str, framework: str, states_one: np.ndarray, states_big: np.ndarray, quick: bool
) -> dict:
    """One framework's latency and batch throughput (server-side batching off, 1 client)."""
    import requests

    from imagine_tf_serving.launcher import launch

    server, _ = launch(
        base, "--workers", "16", "--rest_api_port", "0", "--rest_framework", framework
    )
    url = f"{server.rest_url}/v1/models/reward:predict"
    try:
        session = requests.Session()
        one, big = _one_pair_body(states_one), _batch_body(states_big)

        def post(body):
            answer = session.post(url, data=body, timeout=30)
            if answer.status_code != 200:
                raise RuntimeError(f"REST answered {answer.status_code}: {answer.text[:200]}")

        latency = timed(lambda: post(one), 200 if quick else 1000, 50) * 1e3
        big_times = timed(lambda: post(big), 10 if quick else 50, 3)
    finally:
        server.terminate()
        server.wait(timeout=60)
    p50, p99 = np.percentile(latency, [50, 99])
    return {
        "framework": framework,
        "server_flags": "batching off",
        "clients": 1,
        "one_pair_row_format": {
            "calls": len(latency),
            "p50_ms": round(p50, 3),
            "p99_ms": round(p99, 3),
            "max_ms": round(float(latency.max()), 3),
        },
        "batch_1024_columnar": {
            "calls": len(big_times),
            "median_ms": round(float(np.median(big_times)) * 1e3, 2),
            "pairs_per_s": round(1024 / float(np.median(big_times))),
        },
    }


def _soak_loops(rest, grpc_call, stop: float, counts: dict, errors: list, lock) -> tuple:
    """The soak's two client loops (REST and gRPC), each calling until ``stop``
    (`time.perf_counter`) and counting, under ``lock``, its successes in ``counts`` and its
    errors in ``errors``. ``rest``: (url, body); ``grpc_call``: (target, request)."""
    import grpc
    import requests
    from tensorflow_serving.apis import prediction_service_pb2_grpc

    (url, body), (target, grpc_request) = rest, grpc_call

    def rest_loop():
        session = requests.Session()
        while time.perf_counter() < stop:
            try:
                ok = session.post(url, data=body, timeout=30).status_code == 200
            except requests.RequestException:
                ok = False
            with lock:
                counts["rest"] += ok
                if not ok:
                    errors.append("rest")

    def grpc_loop():
        stub = prediction_service_pb2_grpc.PredictionServiceStub(grpc.insecure_channel(target))
        while time.perf_counter() < stop:
            try:
                stub.Predict(grpc_request, timeout=30)
                with lock:
                    counts["grpc"] += 1
            except grpc.RpcError as error:
                with lock:
                    errors.append(error.code().name)

    return rest_loop, grpc_loop


def mixed_soak(
    base: str, framework: str, grpc_request, states_one: np.ndarray, clients: int, seconds: float
) -> dict:
    """``clients`` concurrent clients, half REST and half gRPC, for ``seconds``."""
    # The clients' libraries (used by `_soak_loops`) before the server starts: a missing one
    # fails with no server to stop.
    import grpc  # noqa: F401
    import requests  # noqa: F401
    from tensorflow_serving.apis import prediction_service_pb2_grpc  # noqa: F401

    from imagine_tf_serving.launcher import launch

    server, target = launch(
        base, "--workers", "16", "--rest_api_port", "0", "--rest_framework", framework
    )
    url, body = f"{server.rest_url}/v1/models/reward:predict", _one_pair_body(states_one)
    counts, errors = {"rest": 0, "grpc": 0}, []
    lock, stop = threading.Lock(), time.perf_counter() + seconds
    rest_loop, grpc_loop = _soak_loops(
        (url, body), (target, grpc_request), stop, counts, errors, lock
    )

    try:
        rss_before = resident_mb(server.pid)
        elapsed = run_together([rest_loop if k % 2 else grpc_loop for k in range(clients)])
        rss_after = resident_mb(server.pid)
    finally:
        server.terminate()
        exit_status = server.wait(timeout=60)
    return {
        "framework": framework,
        "clients": clients,
        "rest_clients": clients // 2,
        "grpc_clients": clients - clients // 2,
        "server_flags": "batching off",
        "seconds": round(elapsed, 1),
        "rest_requests": counts["rest"],
        "grpc_requests": counts["grpc"],
        "errors": len(errors),
        "error_kinds": sorted(set(errors)),
        "server_rss_mb_before": round(rss_before, 1),
        "server_rss_mb_after": round(rss_after, 1),
        "server_exit_status": exit_status,
    }
