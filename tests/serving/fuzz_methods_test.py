"""Every served surface fuzzed (127.0.0.1, bounded): each gRPC method the server registers,
called with well-formed requests of any content and with bytes that are no valid proto, and
each REST route, with unknown models, versions and labels, wrong dtypes and shapes, oversized
and non-UTF-8 strings. Each answer is OK or the status a stock TF Serving client expects, the
server keeps answering a valid request, and its memory stays bounded.

The default run replays a fixed set of examples (hypothesis, derandomized); `make test-all`
adds a larger random run (`slow`)."""

import grpc
import pytest
import requests
import tensorflow as tf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tensorflow_serving.apis import (
    classification_pb2,
    get_model_metadata_pb2,
    get_model_status_pb2,
    inference_pb2,
    input_pb2,
    model_pb2,
    predict_pb2,
    regression_pb2,
)

from imagine_tf.benchmarks.timing import resident_mb
from tests.serving.fuzz_test import tensor_protos
from tests.serving.models import MAX_MESSAGE_MB, random_states

pytestmark = pytest.mark.integration
FIXED = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
RANDOM = settings(FIXED, max_examples=400, derandomize=False)
#: What a stock client may get for a request it should not have sent (TF Serving's statuses).
CLIENT_ERRORS = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.RESOURCE_EXHAUSTED,  # larger than --max_message_mb
}
PREDICTION = "/tensorflow.serving.PredictionService/"
METHODS = {  # method path -> (request class, response class)
    PREDICTION + "Predict": (predict_pb2.PredictRequest, predict_pb2.PredictResponse),
    PREDICTION
    + "Classify": (
        classification_pb2.ClassificationRequest,
        classification_pb2.ClassificationResponse,
    ),
    PREDICTION + "Regress": (regression_pb2.RegressionRequest, regression_pb2.RegressionResponse),
    PREDICTION
    + "MultiInference": (
        inference_pb2.MultiInferenceRequest,
        inference_pb2.MultiInferenceResponse,
    ),
    PREDICTION
    + "GetModelMetadata": (
        get_model_metadata_pb2.GetModelMetadataRequest,
        get_model_metadata_pb2.GetModelMetadataResponse,
    ),
    "/tensorflow.serving.ModelService/GetModelStatus": (
        get_model_status_pb2.GetModelStatusRequest,
        get_model_status_pb2.GetModelStatusResponse,
    ),
}


@pytest.fixture(scope="module")
def server(reward_server):
    """(process, {method path: raw call}) of the shared server (tests/conftest.py):
    raw bytes in and out, so malformed protos reach it as sent. Its resident memory may not
    grow by more than 300 MB over the module."""
    process = reward_server.process
    channel = grpc.insecure_channel(reward_server.target)
    calls = {
        path: channel.unary_unary(path, request_serializer=None, response_deserializer=None)
        for path in METHODS
    }
    rss_at_start = resident_mb(process.pid)
    yield process, calls
    channel.close()
    assert resident_mb(process.pid) < rss_at_start + 300, "the server's memory grew"


def _still_serving(calls) -> None:
    request = predict_pb2.PredictRequest()
    request.model_spec.name, request.model_spec.signature_name = "reward", "score"
    request.inputs["goals"].CopyFrom(tf.make_tensor_proto(["Go left"]))
    request.inputs["states"].CopyFrom(tf.make_tensor_proto(random_states(1)))
    answer = predict_pb2.PredictResponse.FromString(
        calls[PREDICTION + "Predict"](request.SerializeToString(), timeout=30)
    )
    assert tf.make_ndarray(answer.outputs["probability"]).shape == (1,)


@st.composite
def model_specs(draw):
    spec = model_pb2.ModelSpec(
        name=draw(st.sampled_from(["reward", "reward", "policy", "", "réward\x00"])),
        signature_name=draw(st.sampled_from(["score", "scan", "metadata", "", "nope"])),
    )
    version = draw(st.sampled_from(["none", "number", "label"]))
    if version == "number":
        spec.version.value = draw(st.integers(-2, 3))
    elif version == "label":
        spec.version_label = draw(st.sampled_from(["stable", "canary", "", "ü" * 40]))
    return spec


@st.composite
def examples(draw):
    example_list = input_pb2.ExampleList()
    for _ in range(draw(st.integers(0, 3))):
        feature = example_list.examples.add().features.feature
        feature["goals"].bytes_list.value.extend(draw(st.lists(st.binary(max_size=30), max_size=3)))
        feature["states"].float_list.value.extend(draw(st.lists(st.floats(width=32), max_size=20)))
    return input_pb2.Input(example_list=example_list)


#: A payload above --max_message_mb (drawn by reference: hypothesis need not print 1 MB).
OVERSIZED = b"\n" + b"\xff" * (MAX_MESSAGE_MB * 2**20 + 10)


@st.composite
def requests_of_any_method(draw):
    path = draw(st.sampled_from(sorted(METHODS)))
    request_class = METHODS[path][0]
    kind = draw(st.sampled_from(["proto", "proto", "garbage", "oversized"]))
    if kind == "garbage":  # bytes that may not parse as the request at all
        return path, draw(st.binary(max_size=400))
    request = request_class()
    if kind == "oversized":
        return path, OVERSIZED
    if hasattr(request, "model_spec"):
        request.model_spec.CopyFrom(draw(model_specs()))
    if isinstance(request, predict_pb2.PredictRequest):
        for name in draw(st.lists(st.sampled_from(["goals", "states", "x"]), unique=True)):
            request.inputs[name].CopyFrom(draw(tensor_protos()))
    elif isinstance(
        request, (classification_pb2.ClassificationRequest, regression_pb2.RegressionRequest)
    ):
        request.input.CopyFrom(draw(examples()))
    elif isinstance(request, inference_pb2.MultiInferenceRequest):
        for _ in range(draw(st.integers(0, 2))):
            task = request.tasks.add(
                method_name=draw(
                    st.sampled_from(
                        ["tensorflow/serving/classify", "tensorflow/serving/regress", ""]
                    )
                )
            )
            task.model_spec.CopyFrom(draw(model_specs()))
        request.input.CopyFrom(draw(examples()))
    elif isinstance(request, get_model_metadata_pb2.GetModelMetadataRequest):
        request.metadata_field.extend(
            draw(st.lists(st.sampled_from(["signature_def", "other", ""]), max_size=2))
        )
    return path, request.SerializeToString()


def _call(server, path: str, payload: bytes) -> None:
    _, calls = server
    try:
        answer = calls[path](payload, timeout=30)
        METHODS[path][1].FromString(answer)  # an OK answer parses as the method's response
    except grpc.RpcError as error:
        shown = payload[:60] + (b"..." if len(payload) > 60 else b"")
        assert error.code() in CLIENT_ERRORS, (path, shown, error.code(), error.details())
        assert error.details() and len(error.details()) < 4000  # a message, not a dump
    _still_serving(calls)


@FIXED
@given(request=requests_of_any_method())
def test_every_grpc_method_answers_ok_or_a_client_error(server, request):
    _call(server, *request)


@pytest.mark.slow
@RANDOM
@given(request=requests_of_any_method())
def test_every_grpc_method_answers_ok_or_a_client_error_at_random(server, request):
    _call(server, *request)


ROUTES = [
    ("GET", "/v1/models/{m}"),
    ("GET", "/v1/models/{m}/versions/{v}"),
    ("GET", "/v1/models/{m}/labels/{l}"),
    ("GET", "/v1/models/{m}/metadata"),
    ("GET", "/v1/models/{m}/versions/{v}/metadata"),
    ("POST", "/v1/models/{m}:predict"),
    ("POST", "/v1/models/{m}/versions/{v}:predict"),
    ("POST", "/v1/models/{m}/labels/{l}:predict"),
    ("POST", "/v1/models/{m}:classify"),
    ("POST", "/v1/models/{m}:regress"),
]


@st.composite
def rest_requests(draw):
    method, route = draw(st.sampled_from(ROUTES))
    if draw(st.integers(0, 4)) == 0:  # the wrong method for the route
        method = "GET" if method == "POST" else "POST"
    path = route.format(
        m=draw(st.sampled_from(["reward", "reward", "policy", "%C3%BC" * 30])),
        v=draw(st.sampled_from(["1", "2", "0", "x"])),
        l=draw(st.sampled_from(["stable", "canary"])),
    )
    finite = st.floats(allow_nan=False, allow_infinity=False, width=32)
    states = st.lists(st.lists(finite, max_size=250), max_size=3)
    body = draw(
        st.sampled_from(["none", "bytes", "instances", "inputs"]).flatmap(
            lambda kind: {
                "none": st.just(b""),
                "bytes": st.binary(max_size=300),  # non-UTF-8 and not JSON
                "instances": st.fixed_dictionaries(
                    {
                        "signature_name": st.sampled_from(["score", "scan", "x"]),
                        "instances": st.lists(
                            st.fixed_dictionaries(
                                {"goals": st.text(max_size=60), "states": states}
                            ),
                            max_size=3,
                        ),
                    }
                ),
                "inputs": st.fixed_dictionaries(
                    {
                        "signature_name": st.sampled_from(["score", "scan"]),
                        "inputs": st.fixed_dictionaries(
                            {
                                "goals": st.lists(st.text(max_size=200), max_size=3)
                                | st.integers(),
                                "states": states | st.text(max_size=5),
                            }
                        ),
                    }
                ),
            }[kind]
        )
    )
    return method, path, body


def _rest(server, method: str, path: str, body) -> None:
    process, calls = server
    options = {"json": body} if isinstance(body, dict) else {"data": body}
    answer = requests.request(method, process.rest_url + path, timeout=30, **options)
    assert answer.status_code in (200, 400, 404, 405, 413), (answer.status_code, answer.text[:300])
    assert "error" in answer.json() or answer.status_code == 200
    _still_serving(calls)


@FIXED
@given(request=rest_requests())
def test_every_rest_route_answers_ok_or_a_client_error(server, request):
    _rest(server, *request)


@pytest.mark.slow
@RANDOM
@given(request=rest_requests())
def test_every_rest_route_answers_ok_or_a_client_error_at_random(server, request):
    _rest(server, *request)


def test_classify_and_regress_name_the_predict_signatures(server):
    process, calls = server
    request = classification_pb2.ClassificationRequest()
    request.model_spec.name = "reward"
    with pytest.raises(grpc.RpcError) as error:
        calls[PREDICTION + "Classify"](request.SerializeToString(), timeout=30)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "only predict signatures" in error.value.details() and "score" in error.value.details()
    request.model_spec.name = "policy"
    with pytest.raises(grpc.RpcError) as error:
        calls[PREDICTION + "Regress"](request.SerializeToString(), timeout=30)
    assert error.value.code() == grpc.StatusCode.NOT_FOUND
    answer = requests.post(process.rest_url + "/v1/models/reward:classify", json={}, timeout=30)
    assert answer.status_code == 400 and "only predict signatures" in answer.json()["error"]
