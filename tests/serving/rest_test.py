"""TensorFlow Serving's REST API beside gRPC: status, metadata, predict in the row and columnar
formats, TF Serving's error statuses, `curl`; on a real server, for both HTTP stacks."""

import base64
import json
import shutil
import signal
import subprocess

import grpc
import numpy as np
import pytest
import requests
import tensorflow as tf
from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc

from tests.serving.models import MAX_MESSAGE_MB, random_states, wait_available

pytestmark = pytest.mark.integration  # servers on 127.0.0.1

STATES = random_states(3)


@pytest.fixture(scope="module", params=["aiohttp", "tornado"])
def served(request, reward_server, tmp_path_factory):
    """(gRPC target, REST URL) of a server on each HTTP stack: the shared server
    (tests/conftest.py) is aiohttp's, tornado's is started here with the same flags."""
    if request.param == "aiohttp":
        yield reward_server.target, reward_server.rest_url
        return
    from imagine_tf_serving.launcher import launch

    process, target = launch(
        reward_server.model_dir,
        "--poll_seconds", "0.3",
        "--max_batch_size", "64",
        "--max_message_mb", str(MAX_MESSAGE_MB),
        "--rest_api_port", "0",
        "--version_labels", "stable=1",
        "--rest_framework", "tornado",
    )  # fmt: skip
    try:
        wait_available(process.rest_url)
        yield target, process.rest_url
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


def _grpc_score(target, goals, states):
    request = predict_pb2.PredictRequest()
    request.model_spec.name, request.model_spec.signature_name = "reward", "score"
    request.inputs["goals"].CopyFrom(tf.make_tensor_proto(goals))
    request.inputs["states"].CopyFrom(tf.make_tensor_proto(states))
    with grpc.insecure_channel(target) as channel:
        response = prediction_service_pb2_grpc.PredictionServiceStub(channel).Predict(request, 10)
    return {k: tf.make_ndarray(v) for k, v in response.outputs.items()}


def test_status_and_metadata(served):
    _, url = served
    status = requests.get(f"{url}/v1/models/reward/versions/1", timeout=10).json()
    assert status["model_version_status"] == [
        {"version": "1", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}
    ]
    metadata = requests.get(f"{url}/v1/models/reward/metadata", timeout=10).json()
    assert metadata["model_spec"] == {"name": "reward", "signature_name": "", "version": "1"}
    signatures = metadata["metadata"]["signature_def"]["signature_def"]
    assert {"score", "scan", "metadata", "serving_default"} <= set(signatures)
    assert set(signatures["score"]["inputs"]) == {"goals", "states"}


def test_row_and_columnar_predictions_equal_grpc(served):
    target, url = served
    goals = ["Grasp red cat", "Go left", "Grow any plant"]
    expected = _grpc_score(target, goals, STATES)
    rows = requests.post(
        f"{url}/v1/models/reward:predict",
        timeout=10,
        json={
            "signature_name": "score",
            "instances": [{"goals": g, "states": s.tolist()} for g, s in zip(goals, STATES)],
        },
    ).json()
    predictions = rows["predictions"]
    np.testing.assert_allclose(
        [p["probability"] for p in predictions], expected["probability"], rtol=1e-6
    )
    assert [p["reward"] for p in predictions] == expected["reward"].tolist()
    columns = requests.post(
        f"{url}/v1/models/reward/labels/latest:predict",
        timeout=10,
        json={"signature_name": "scan", "inputs": {"states": STATES.tolist(), "goals": goals}},
    )
    assert columns.status_code == 404  # no label "latest": TF Serving's NOT_FOUND
    columns = requests.post(
        f"{url}/v1/models/reward/versions/1:predict",
        timeout=10,
        json={"signature_name": "scan", "inputs": {"states": STATES.tolist(), "goals": goals}},
    ).json()
    scanned = np.array(columns["outputs"]["probabilities"])
    np.testing.assert_allclose(np.diag(scanned), expected["probability"], rtol=1e-6)
    b64 = [{"b64": base64.b64encode(g.encode()).decode()} for g in goals]
    again = requests.post(
        f"{url}/v1/models/reward:predict",
        timeout=10,
        json={"signature_name": "score", "inputs": {"goals": b64, "states": STATES.tolist()}},
    ).json()
    np.testing.assert_allclose(again["outputs"]["probability"], expected["probability"], rtol=1e-6)


ERRORS = [
    ("post", "/v1/models/policy:predict", {"instances": [1]}, 404, "unknown model 'policy'"),
    ("post", "/v1/models/reward/versions/7:predict", {"instances": [1]}, 404, "version 7"),
    (
        "post",
        "/v1/models/reward:predict",
        {"signature_name": "explain", "instances": [1]},
        404,
        "no signature 'explain'",
    ),
    ("get", "/v1/models/reward/labels/canary", None, 404, "canary"),
    ("get", "/v2/anything", None, 404, "no such resource"),
    ("get", "/v1/models/reward:predict", None, 405, "takes POST"),
    ("post", "/v1/models/reward:predict", b"{not json", 400, "not JSON"),
    # nested 100,000 levels deep: past the JSON parser's recursion limit
    ("post", "/v1/models/reward:predict", b"[" * 100_000 + b"]" * 100_000, 400, "nests deeper"),
    (  # parsed, then too deep for a tensor
        "post",
        "/v1/models/reward:predict",
        b'{"instances": ' + b"[" * 900 + b"1" + b"]" * 900 + b"}",
        400,
        "nests deeper",
    ),
    ("post", "/v1/models/reward:predict", {"instances": [], "inputs": {}}, 400, "exactly one of"),
    (
        "post",
        "/v1/models/reward:predict",
        {"signature_name": "score", "inputs": {"goals": ["Go left"], "states": [["x"] * 240]}},
        400,
        "float32 values",
    ),
    (
        "post",
        "/v1/models/reward:predict",
        {
            "signature_name": "score",
            "inputs": {
                "goals": [{"b64": base64.b64encode(b"Go \xff").decode()}],
                "states": STATES[:1].tolist(),
            },
        },
        400,
        "not UTF-8 text at byte 3",
    ),
    (
        "post",
        "/v1/models/reward:predict",
        {
            "signature_name": "score",
            "inputs": {"goals": ["Grasp purple cat"], "states": STATES[:1].tolist()},
        },
        400,
        "outside the vocabulary",
    ),
    (
        "post",
        "/v1/models/reward:predict",
        {
            "signature_name": "score",
            "inputs": {"goals": ["Go left"] * 65, "states": random_states(65).tolist()},
        },
        400,
        "maximum batch size 64",
    ),
]


@pytest.mark.parametrize(
    "method, path, body, status, message", ERRORS, ids=[f"{e[3]}-{i}" for i, e in enumerate(ERRORS)]
)
def test_errors_have_tf_serving_statuses_and_the_server_keeps_serving(
    served, method, path, body, status, message
):
    _, url = served
    data = (
        body
        if isinstance(body, bytes)
        else (json.dumps(body).encode() if body is not None else None)
    )
    answer = requests.request(method, url + path, data=data, timeout=10)
    assert answer.status_code == status, answer.text
    assert message in answer.json()["error"]
    ok = requests.post(
        f"{url}/v1/models/reward:predict",
        timeout=10,
        json={
            "signature_name": "score",
            "inputs": {"goals": ["Go left"], "states": STATES[:1].tolist()},
        },
    )
    assert ok.status_code == 200


def test_an_oversized_body_is_refused_and_the_server_keeps_serving(served, request):
    _, url = served
    framework = request.node.callspec.params["served"]
    try:  # aiohttp answers 413; tornado answers 400 and closes before reading the body
        answer = requests.post(f"{url}/v1/models/reward:predict", data=b" " * (2 << 20), timeout=30)
        assert answer.status_code == (413 if framework == "aiohttp" else 400)
    except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
        assert framework == "tornado"  # the client may see the closed connection first
    assert requests.get(f"{url}/v1/models/reward", timeout=10).status_code == 200


@pytest.mark.skipif(shutil.which("curl") is None, reason="no curl on this machine")
def test_curl_works_as_in_the_readme(served):
    _, url = served
    body = json.dumps(
        {
            "signature_name": "score",
            "instances": [{"goals": "Go left", "states": STATES[0].tolist()}],
        }
    )
    output = subprocess.run(
        ["curl", "-s", "-X", "POST", f"{url}/v1/models/reward:predict", "-d", body],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    prediction = json.loads(output.stdout)["predictions"][0]
    assert set(prediction) == {"probability", "reward", "module_probabilities"}


def test_the_rest_client_and_cli_score_like_grpc(served, tmp_path):
    import numpy as np

    from imagine_tf.cli.main import main
    from imagine_tf_client import InvalidInput, RewardClient

    target, url = served
    goals = ["Grasp red cat", "Go left", "Grow any plant"]
    expected = _grpc_score(target, goals, STATES)
    with RewardClient(url, version=1) as client:
        assert client.status() == {1: "AVAILABLE"}
        np.testing.assert_allclose(client.score(STATES, goals), expected["probability"], rtol=1e-6)
        assert client.scan(STATES, goals).shape == (3, 3)
        assert client.metadata()["architecture"] == "ma"
        with pytest.raises(InvalidInput, match="outside the vocabulary"):
            client.score(STATES[:1], ["Grasp purple cat"])
    np.save(tmp_path / "s.npy", STATES[0])
    assert (
        main(
            [
                "score",
                "--goal",
                "Go left",
                "--state-file",
                str(tmp_path / "s.npy"),
                "--rest",
                url,
                "--json",
            ]
        )
        == 0
    )
