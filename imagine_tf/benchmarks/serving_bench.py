"""`imagine-tf bench serving`: latency and throughput of the reward model over gRPC.

One run: export an MA reward model (random weights: the speed does not depend on them; N up to
3), start `python -m imagine_tf_serving` on 127.0.0.1 in its own process, then measure with the stock
PredictionService stub, ``score`` signature:

* latency of one (goal, state) pair: p50 / p99 / max over 1,000 calls (after 50 warm-up calls);
* throughput at batch 1024 (pairs/s over 100 calls) and with 16 concurrent clients of batch 1;
* the ratio gRPC / in-process SavedModel call (same process as the client, same inputs) at
  batch 1 and 1024; in-process is ``tf.saved_model.load(path).signatures["score"]`` (what a
  user calls), with the server's own way (a session callable) beside it;
* the gRPC floor: the same requests against a server that answers with an empty response
  (`grpc_echo_server`), i.e. what the transport alone costs here;
* with server-side batching on (a second server): one pair's p50 and 16 concurrent clients;
* a soak: 64 concurrent clients of batch 1 for ``soak_seconds`` (60): requests, errors, and
  the server's resident memory before and after;
* REST (`rest_bench`): one pair and batch 1024 on each HTTP stack, then a soak of 64 clients,
  half REST half gRPC, on the faster one.

Every figure says how it was measured: server-side batching on or off, how many clients.

Targets (issue 5): p50 ≤ 2 ms, p99 ≤ 5 ms for one pair; ≥ 100,000 pairs/s at batch 1024; ratio
≤ 1.2 at batch 1024; soak with 0 errors and stable memory.
"""

from __future__ import annotations

import datetime
import functools
import os
import tempfile
import time

import numpy as np
import tensorflow as tf

from imagine_tf.benchmarks.rest_bench import mixed_soak, rest_measures
from imagine_tf.benchmarks.timing import resident_mb, run_together, timed
from imagine_tf.provenance import machine_description

TARGETS = {
    "p50_ms": 2.0,
    "p99_ms": 5.0,
    "pairs_per_s_batch_1024": 100_000,
    "ratio_batch_1024": 1.2,
    "rest_p50_ms": 3.0,
    "rest_p99_ms": 8.0,
    "batching_16_clients_requests_per_s": 2_000,
}


def _request(goals, states, predict_pb2, model_pb2):
    request = predict_pb2.PredictRequest(
        model_spec=model_pb2.ModelSpec(name="reward", signature_name="score")
    )
    request.inputs["goals"].CopyFrom(tf.make_tensor_proto(goals))
    request.inputs["states"].CopyFrom(tf.make_tensor_proto(states))
    return request


def _concurrent(target: str, clients: int, seconds: float, request) -> dict:
    """``clients`` threads, each with its own channel, calling for ``seconds``."""
    import grpc
    from tensorflow_serving.apis import prediction_service_pb2_grpc

    counts, errors = [0] * clients, []
    stop = time.perf_counter() + seconds

    def loop(k):
        stub = prediction_service_pb2_grpc.PredictionServiceStub(grpc.insecure_channel(target))
        while time.perf_counter() < stop:
            try:
                stub.Predict(request, timeout=30)
                counts[k] += 1
            except grpc.RpcError as error:
                errors.append(error.code().name)

    elapsed = run_together([functools.partial(loop, k) for k in range(clients)])
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "requests": sum(counts),
        "requests_per_s": round(sum(counts) / elapsed, 1),
        "errors": len(errors),
        "error_codes": sorted(set(errors)),
    }


def _with_batching(base, one, quick: bool) -> dict:
    """One pair's latency and 16 concurrent clients against a server with batching on."""
    import grpc
    from tensorflow_serving.apis import prediction_service_pb2_grpc

    from imagine_tf_serving.launcher import launch

    server, target = launch(base, "--workers", "16", "--enable_batching")
    try:
        stub = prediction_service_pb2_grpc.PredictionServiceStub(grpc.insecure_channel(target))
        latency = timed(lambda: stub.Predict(one, timeout=10), 200 if quick else 1000, 50) * 1e3
        concurrent = _concurrent(target, 16, 5 if quick else 15, one)
    finally:
        server.terminate()
        server.wait(timeout=60)
    return {
        "server_flags": "--enable_batching (max 1024 rows, timeout 0)",
        "one_pair_p50_ms": round(float(np.median(latency)), 3),
        "concurrent_16_clients_batch_1": concurrent,
    }


def _echo_floor(one, big, quick: bool) -> dict:
    """Median ms of the same requests against `grpc_echo_server` (transport only)."""
    import sys

    import grpc
    from tensorflow_serving.apis import prediction_service_pb2_grpc

    from imagine_tf_serving.launcher import launch_command

    process, target = launch_command(
        [sys.executable, "-m", "imagine_tf.benchmarks.grpc_echo_server"]
    )
    try:
        stub = prediction_service_pb2_grpc.PredictionServiceStub(grpc.insecure_channel(target))
        one_times = timed(lambda: stub.Predict(one, timeout=10), 200 if quick else 1000, 50)
        big_times = timed(lambda: stub.Predict(big, timeout=30), 20 if quick else 100, 5)
    finally:
        process.kill()
        process.wait()
    return {
        "batch_1_ms": round(float(np.median(one_times)) * 1e3, 3),
        "batch_1024_ms": round(float(np.median(big_times)) * 1e3, 2),
    }


def _measure_server(target: str, path, server_pid: int, quick: bool, soak_seconds: float) -> dict:
    """Against the running server: one pair's latency, batch 1024, the in-process calls of the
    same requests, 16 concurrent clients and the soak (with the server's memory around it).
    Returns the requests (``one``, ``big``, ``big_states``) with the measures."""
    import grpc
    from tensorflow_serving.apis import model_pb2, predict_pb2, prediction_service_pb2_grpc

    from imagine_tf_serving.signature_runner import LoadedSession

    stub = prediction_service_pb2_grpc.PredictionServiceStub(grpc.insecure_channel(target))
    rng = np.random.default_rng(0)
    one = _request(
        ["Grasp red cat"],
        rng.uniform(-1, 1, (1, 240)).astype(np.float32),
        predict_pb2,
        model_pb2,
    )
    big_states = rng.uniform(-1, 1, (1024, 240)).astype(np.float32)
    big = _request(["Grasp red cat"] * 1024, big_states, predict_pb2, model_pb2)
    calls = 200 if quick else 1000
    latency = timed(lambda: stub.Predict(one, timeout=10), calls, 50) * 1e3
    big_times = timed(lambda: stub.Predict(big, timeout=30), 20 if quick else 100, 5)
    model = tf.saved_model.load(str(path)).signatures["score"]
    local_one = dict(
        goals=tf.constant(["Grasp red cat"]),
        states=tf.constant(tf.make_ndarray(one.inputs["states"])),
    )
    local_big = dict(goals=tf.constant(["Grasp red cat"] * 1024), states=tf.constant(big_states))
    local_one_times = timed(lambda: model(**local_one), calls, 50)
    local_big_times = timed(lambda: model(**local_big), 20 if quick else 100, 5)
    runner = LoadedSession(path).signatures["score"]
    session_one = {k: v.numpy() for k, v in local_one.items()}
    session_big = {k: v.numpy() for k, v in local_big.items()}
    session_one_times = timed(lambda: runner.run(session_one), calls, 50)
    session_big_times = timed(lambda: runner.run(session_big), 20 if quick else 100, 5)
    concurrent = _concurrent(target, 16, 5 if quick else 15, one)
    rss_before = resident_mb(server_pid)
    soak = _concurrent(target, 64, soak_seconds, one)
    rss_after = resident_mb(server_pid)
    return dict(
        one=one,
        big=big,
        big_states=big_states,
        calls=calls,
        latency=latency,
        big_times=big_times,
        local_one_times=local_one_times,
        local_big_times=local_big_times,
        session_one_times=session_one_times,
        session_big_times=session_big_times,
        concurrent=concurrent,
        rss_before=rss_before,
        soak=soak,
        rss_after=rss_after,
    )


def _in_process_ratios(measured: dict) -> dict:
    """gRPC over in-process call time at batch 1 and 1024, with the in-process times."""
    latency, big_times = measured["latency"], measured["big_times"]
    local_one_times, local_big_times = measured["local_one_times"], measured["local_big_times"]
    session_one_times = measured["session_one_times"]
    session_big_times = measured["session_big_times"]
    return {
        "batch_1": round(float(np.median(latency / 1e3) / np.median(local_one_times)), 2),
        "batch_1024": round(float(np.median(big_times) / np.median(local_big_times)), 3),
        "in_process_ms": {
            "batch_1": round(float(np.median(local_one_times)) * 1e3, 3),
            "batch_1024": round(float(np.median(local_big_times)) * 1e3, 2),
        },
        "in_process_session_ms": {
            "batch_1": round(float(np.median(session_one_times)) * 1e3, 3),
            "batch_1024": round(float(np.median(session_big_times)) * 1e3, 2),
        },
    }


def _serving_record(measured: dict, others: dict) -> dict:
    """The benchmark's record from `_measure_server`'s measures and ``others``: the server's
    exit status, the gRPC floor, batching, REST, its fastest framework and the mixed soak."""
    latency, big_times = measured["latency"], measured["big_times"]
    concurrent, soak = measured["concurrent"], measured["soak"]
    p50, p99 = np.percentile(latency, [50, 99])
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            **machine_description(),
            "cpus": os.cpu_count(),
            "tensorflow": tf.__version__,
        },
        "setup": "server and client on the same 2-core machine, loopback; MA reward, N = 3, signature score",
        "one_pair": {
            "server_flags": "batching off",
            "clients": 1,
            "calls": measured["calls"],
            "p50_ms": round(p50, 3),
            "p99_ms": round(p99, 3),
            "max_ms": round(float(latency.max()), 3),
        },
        "batch_1024": {
            "server_flags": "batching off",
            "clients": 1,
            "calls": len(big_times),
            "median_ms": round(float(np.median(big_times)) * 1e3, 2),
            "pairs_per_s": round(1024 / float(np.median(big_times))),
        },
        "concurrent_16_clients_batch_1": {
            "server_flags": "batching off",
            **concurrent,
            "pairs_per_s": concurrent["requests_per_s"],
        },
        "ratio_grpc_to_in_process": _in_process_ratios(measured),
        "grpc_floor_empty_response_ms": others["floor"],
        "with_server_side_batching": others["batched"],
        "soak": {
            **soak,
            "server_rss_mb_before": round(measured["rss_before"], 1),
            "server_rss_mb_after": round(measured["rss_after"], 1),
        },
        "server_exit_status_after_sigterm": others["exit_status"],
        "rest": others["rest"],
        "rest_fastest_framework_at_batch_1024": others["fastest"],
        "soak_mixed_rest_and_grpc": others["mixed"],
        "targets": TARGETS,
    }


def run_serving_benchmark(soak_seconds: float = 60.0, quick: bool = False) -> dict:
    # The client's libraries first: a missing one fails before the export (used by helpers).
    import grpc  # noqa: F401
    from tensorflow_serving.apis import model_pb2, predict_pb2  # noqa: F401
    from tensorflow_serving.apis import prediction_service_pb2_grpc  # noqa: F401

    from imagine_tf.reward.export import export_reward_model
    from imagine_tf.language.vocabulary import Vocabulary
    from imagine_tf.reward.network import RewardNetwork, example_inputs
    from imagine_tf_serving.launcher import launch
    from imagine_tf_serving.rest_server import FRAMEWORKS
    from imagine_tf_serving.signature_runner import LoadedSession  # noqa: F401

    vocabulary = Vocabulary.default()
    network = RewardNetwork("ma", vocabulary.words[1:], vocabulary.max_length, 3)
    network(example_inputs(3, vocabulary.max_length))
    with tempfile.TemporaryDirectory() as base:
        path = export_reward_model(network, base, {"benchmark": True}, max_num_objects=3)
        server, target = launch(base, "--workers", "16")
        try:
            measured = _measure_server(target, path, server.pid, quick, soak_seconds)
        finally:
            server.terminate()
            exit_status = server.wait(timeout=60)
        one, big, big_states = measured["one"], measured["big"], measured["big_states"]
        floor = _echo_floor(one, big, quick)
        batched = _with_batching(base, one, quick)
        one_state = tf.make_ndarray(one.inputs["states"])
        rest = {
            framework: rest_measures(base, framework, one_state, big_states, quick)
            for framework in FRAMEWORKS
        }
        fastest = max(FRAMEWORKS, key=lambda f: rest[f]["batch_1024_columnar"]["pairs_per_s"])
        mixed = mixed_soak(base, fastest, one, one_state, 64, soak_seconds)
    others = dict(
        exit_status=exit_status,
        floor=floor,
        batched=batched,
        rest=rest,
        fastest=fastest,
        mixed=mixed,
    )
    return _serving_record(measured, others)
