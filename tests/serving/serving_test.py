"""The gRPC server on loopback with a real exported reward model and the stock TF Serving stubs.

One server process for the tests that only send requests (tests/conftest.py), others
start their own; requests are bounded.
"""

import json
import signal
import threading

import grpc
import numpy as np
import pytest
import tensorflow as tf
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tensorflow_serving.apis import (
    get_model_metadata_pb2,
    model_pb2,
    predict_pb2,
    prediction_service_pb2_grpc,
)

from imagine_tf_client import ClientError, GrpcRewardClient, ModelNotFound
from imagine_tf_serving.launcher import launch
from tests.serving.models import export, random_states
from tests.waiting import wait_until

pytestmark = pytest.mark.integration
GOALS = ["Grasp red cat", "Go left", "Grow any plant"]
REQUESTS_PER_CLIENT = 50  # 16 clients at once


def start_server(base_path, *extra):
    process, target = launch(base_path, "--poll_seconds", "0.3", *extra)
    return process, target.rsplit(":", 1)[1]


@pytest.fixture
def model_dir(reward_server):
    return reward_server.model_dir


@pytest.fixture
def server(reward_server):
    """The shared server of tests/conftest.py (gRPC target)."""
    return reward_server.target


def test_round_trip_equals_the_saved_model_in_process(server, model_dir):
    loaded = tf.saved_model.load(str(model_dir / "1"))
    states = random_states(3)
    with GrpcRewardClient(server) as client:
        served = client.score_details(states, GOALS)
        scanned = client.scan(states, GOALS + ["Go right"])
        assert client.metadata()["num_objects"] == [1, 2, 3]
        assert client.status() == {1: "AVAILABLE"}
    local = loaded.signatures["score"](goals=tf.constant(GOALS), states=tf.constant(states))
    np.testing.assert_array_equal(served["probability"], local["probability"].numpy())
    np.testing.assert_array_equal(served["reward"], local["reward"].numpy())
    assert served["module_probabilities"].shape == (3, 3)
    assert scanned.shape == (3, 4)
    np.testing.assert_allclose(scanned[:, :3].diagonal(), served["probability"], atol=1e-6)


def predict(server, signature="score", name="reward", version=None, **inputs):
    stub = prediction_service_pb2_grpc.PredictionServiceStub(grpc.insecure_channel(server))
    request = predict_pb2.PredictRequest(
        model_spec=model_pb2.ModelSpec(name=name, signature_name=signature)
    )
    if version is not None:
        request.model_spec.version.value = version
    for key, value in inputs.items():
        request.inputs[key].CopyFrom(tf.make_tensor_proto(value))
    return stub.Predict(request, timeout=10)


STATES = random_states(2)
BAD_REQUESTS = {
    "wrong dtype": (
        dict(goals=["Go left", "Go right"], states=STATES.astype(np.float64)),
        "dtype float64, expected float32",
    ),
    "wrong rank": (
        dict(goals=["Go left", "Go right"], states=STATES[None]),
        "has shape [1, 2, 240]",
    ),
    "missing input": (dict(goals=["Go left"]), "missing ['states']"),
    "extra input": (
        dict(goals=["Go left", "Go right"], states=STATES, actions=STATES),
        "unexpected ['actions']",
    ),
    "batch sizes disagree": (dict(goals=["Go left"], states=STATES), "same batch size"),
    "NaN state": (
        dict(
            goals=["Go left", "Go right"],
            states=np.where(np.arange(240) == 5, np.nan, STATES).astype(np.float32),
        ),
        "NaN or inf",
    ),
    "inf state": (
        dict(
            goals=["Go left", "Go right"],
            states=np.where(np.arange(240) == 5, np.inf, STATES).astype(np.float32),
        ),
        "NaN or inf",
    ),
    "state width": (
        dict(goals=["Go left", "Go right"], states=STATES[:, :200]),
        "2 (3 + 39 N) values per row",
    ),
    "empty goal": (dict(goals=["", "Go left"], states=STATES), "at least one word"),
    "unknown word": (
        dict(goals=["Grasp purple cat", "Go left"], states=STATES),
        "outside the vocabulary",
    ),
    "goal too long": (
        dict(goals=["Grasp any red cat any red", "Go left"], states=STATES),
        "longer than",
    ),
    "oversized batch": (
        dict(goals=["Go left"] * 65, states=random_states(65)),
        "maximum batch size 64",
    ),
    "not UTF-8": (
        dict(goals=[b"Go left", b"Grasp \xff\xfered cat"], states=STATES),
        "input 'goals' at [1]: bytes that are not UTF-8 text at byte 6",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_REQUESTS))
def test_malformed_requests_are_invalid_argument_and_the_server_keeps_serving(server, case):
    inputs, message = BAD_REQUESTS[case]
    with pytest.raises(grpc.RpcError) as caught:
        predict(server, **inputs)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in caught.value.details(), caught.value.details()
    assert (
        predict(server, goals=["Go left"], states=STATES[:1]).outputs["reward"].dtype
        == tf.bool.as_datatype_enum
    )


@pytest.mark.parametrize(
    "where",
    [dict(name="policy"), dict(version=7), dict(signature="explain")],
    ids=["model", "version", "signature"],
)
def test_unknown_model_version_or_signature_is_not_found(server, where):
    with pytest.raises(grpc.RpcError) as caught:
        predict(server, goals=["Go left"], states=STATES[:1], **where)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert list(where.values())[0].__str__() in caught.value.details()


def test_health_metadata_and_concurrent_clients(server):
    channel = grpc.insecure_channel(server)
    health = health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service=""), timeout=5
    )
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    request = get_model_metadata_pb2.GetModelMetadataRequest(
        model_spec=model_pb2.ModelSpec(name="reward"), metadata_field=["signature_def"]
    )
    response = prediction_service_pb2_grpc.PredictionServiceStub(channel).GetModelMetadata(
        request, timeout=10
    )
    signatures = get_model_metadata_pb2.SignatureDefMap()
    response.metadata["signature_def"].Unpack(signatures)
    assert {"score", "scan", "metadata", "serving_default"} <= set(signatures.signature_def)
    assert set(signatures.signature_def["score"].inputs) == {"goals", "states"}
    errors, done = [], []

    def client_thread(seed):
        with GrpcRewardClient(server) as client:
            for i in range(REQUESTS_PER_CLIENT):
                try:
                    out = client.score_details(random_states(1, seed=seed * 1000 + i), ["Go left"])
                    done.append(out["probability"].shape == (1,))
                except ClientError as error:
                    errors.append(error.status)

    threads = [threading.Thread(target=client_thread, args=(k,)) for k in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == [] and len(done) == 16 * REQUESTS_PER_CLIENT and all(done)


def test_batching_server_answers_concurrent_clients_like_the_model(model_dir):
    """16 clients at once, some with bad goals: merged runs give each client its own rows,
    a bad request its own INVALID_ARGUMENT; numbers as the model in process."""
    loaded = tf.saved_model.load(str(model_dir / "1")).signatures["score"]
    process, port = start_server(model_dir, "--enable_batching", "--batch_timeout_micros", "2000")
    results, errors = {}, {}

    def client_thread(k):
        goals = ["Grasp purple cat"] if k % 5 == 4 else [GOALS[k % 3]] * (1 + k % 3)
        states = random_states(len(goals), seed=k)
        with GrpcRewardClient(f"127.0.0.1:{port}") as client:
            for i in range(20):
                try:
                    results[k, i] = (
                        goals,
                        states,
                        client.score_details(states, goals)["probability"],
                    )
                except ClientError as error:
                    errors[k, i] = (error.status, error.message)

    try:
        threads = [threading.Thread(target=client_thread, args=(k,)) for k in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    assert len(results) == 13 * 20 and len(errors) == 3 * 20  # k = 4, 9, 14 send "purple"
    assert {code for code, _ in errors.values()} == {"INVALID_ARGUMENT"}
    assert all("outside the vocabulary" in details for _, details in errors.values())
    for goals, states, probability in results.values():
        local = loaded(goals=tf.constant(goals), states=tf.constant(states))["probability"]
        np.testing.assert_allclose(probability, local.numpy(), atol=1e-5)  # other batch shapes


def test_versions_by_number_and_label_come_and_go_without_restart_and_sigterm_drains(tmp_path):
    """Two versions at once, by number and by label; a third exported meanwhile is served
    without a restart and retires the oldest (and its label); SIGTERM with a client busy
    drains (`_sigterm_drains`)."""
    base = tmp_path / "reward"
    export(base, seed=0)
    export(base, seed=1)
    process, port = start_server(
        base, "--num_versions", "2", "--version_labels", "stable=1,canary=2"
    )
    target, states = f"127.0.0.1:{port}", random_states(2)

    def score(**version):
        with GrpcRewardClient(target, **version) as client:
            return client.score_details(states, GOALS[:2])["module_probabilities"]

    try:
        with GrpcRewardClient(target) as client:
            assert client.status() == {1: "AVAILABLE", 2: "AVAILABLE"}
        np.testing.assert_array_equal(score(version=1), score(label="stable"))
        np.testing.assert_array_equal(score(version=2), score(label="canary"))
        before = score()
        np.testing.assert_array_equal(before, score(version=2))  # no version: the newest
        assert not np.allclose(score(version=1), before)
        export(base, seed=2)  # version 3, other weights: the two newest are 2 and 3
        with GrpcRewardClient(target) as client:
            wait_until(
                lambda: client.status().get(1) == "END",
                timeout=60,
                interval=0.2,
                what="version 3 to retire version 1",
            )
            assert client.status() == {1: "END", 2: "AVAILABLE", 3: "AVAILABLE"}
        after = score()
        assert not np.allclose(before, after)  # version 3's weights answer
        np.testing.assert_array_equal(score(version=3), after)
        with pytest.raises(ModelNotFound) as retired:
            score(label="stable")
        assert retired.value.status == "NOT_FOUND"
        assert "version 1 (label 'stable')" in retired.value.message
        with pytest.raises(ModelNotFound) as unknown:
            score(label="beta")
        assert unknown.value.status == "NOT_FOUND"
        assert "no version label 'beta'" in unknown.value.message
        _sigterm_drains(process, target)
    finally:
        if process.poll() is None:
            process.kill()


def _sigterm_drains(process, target: str) -> None:
    """SIGTERM with a client busy: the server drains and exits with 0; requests either
    complete correctly or are refused once the drain began."""
    shapes, refused = [], []
    with GrpcRewardClient(target) as client:

        def busy():
            for _ in range(200):
                try:
                    shapes.append(client.scan(random_states(64), GOALS * 10).shape)
                except ClientError as error:
                    refused.append(error.status)
                    return

        worker = threading.Thread(target=busy)
        worker.start()
        wait_until(lambda: shapes or refused, timeout=120, interval=0.01, what="a scan")
        process.send_signal(signal.SIGTERM)
        worker.join(timeout=60)
    assert process.wait(timeout=30) == 0
    assert shapes and all(shape == (64, 30) for shape in shapes)
    # (a request racing the shutdown is refused as UNAVAILABLE or CANCELLED, never failed)
    assert set(refused) <= {"UNAVAILABLE", "CANCELLED"}


def test_cli_score_reads_a_state_saved_by_play(server, tmp_path, capsys):
    from imagine_tf.cli.main import main

    def cli(*argv):
        code = main(list(argv))
        return (code, *capsys.readouterr())

    state_file = tmp_path / "s.npy"
    code, _, err = cli("play", "--goal", "Go left", "--save-state", str(state_file))
    assert code == 0, err[-1000:]
    assert np.load(state_file).shape == (1, 240)
    score = ("score", "--state-file", str(state_file), "--server", server)
    code, out, err = cli(*score, "--goal", "Go left", "--json")
    assert code == 0, err[-1000:]
    (row,) = json.loads(out)
    assert (
        row["goal"] == "Go left"
        and 0 <= row["probability"] <= 1
        and len(row["module_probabilities"]) == 3
    )
    code, _, err = cli(*score, "--goal", "Go purple")
    assert code == 2 and "INVALID_ARGUMENT" in err and "purple" in err


def test_cli_score_over_rest_needs_no_tensorflow(reward_server, tmp_path):
    """`imagine-tf score --rest` in a fresh process: the shared server's answer, and no
    TensorFlow (nor gRPC) imported on the way."""
    import subprocess
    import sys

    np.save(tmp_path / "s.npy", random_states(2))
    script = (
        "import sys; from imagine_tf.cli.main import main; "
        f"code = main(['score', '--rest', {reward_server.rest_url!r}, '--goal', 'Go left', "
        f"'--state-file', {str(tmp_path / 's.npy')!r}, '--json']); "
        "print(code, 'tensorflow' in sys.modules, 'grpc' in sys.modules, file=sys.stderr)"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert result.stderr.split()[-3:] == ["0", "False", "False"], result.stderr[-2000:]
    rows = json.loads(result.stdout)
    assert [row["goal"] for row in rows] == ["Go left"] * 2
    assert all(0 <= row["probability"] <= 1 for row in rows)
