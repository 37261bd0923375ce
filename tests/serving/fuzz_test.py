"""Property-based fuzzing of both surfaces of a real server (hypothesis, bounded, 127.0.0.1):
whatever the request, the answer is OK or a client error (INVALID_ARGUMENT / NOT_FOUND, HTTP
4xx), never a server error, and a valid request still succeeds afterwards."""

import json

import grpc
import pytest
import requests
import tensorflow as tf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tensorflow.core.framework import tensor_pb2, tensor_shape_pb2, types_pb2
from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc

from tests.serving.models import random_states

pytestmark = pytest.mark.integration  # a server on 127.0.0.1

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
VALID_STATES = random_states(1)


@pytest.fixture(scope="module")
def served(reward_server):
    """(PredictionService stub, REST URL) of the shared server (tests/conftest.py)."""
    channel = grpc.insecure_channel(reward_server.target)
    yield prediction_service_pb2_grpc.PredictionServiceStub(channel), reward_server.rest_url
    channel.close()


def _valid_request():
    request = predict_pb2.PredictRequest()
    request.model_spec.name, request.model_spec.signature_name = "reward", "score"
    request.inputs["goals"].CopyFrom(tf.make_tensor_proto(["Go left"]))
    request.inputs["states"].CopyFrom(tf.make_tensor_proto(VALID_STATES))
    return request


DTYPES = [
    types_pb2.DT_FLOAT,
    types_pb2.DT_DOUBLE,
    types_pb2.DT_INT32,
    types_pb2.DT_INT64,
    types_pb2.DT_STRING,
    types_pb2.DT_BOOL,
    types_pb2.DT_HALF,
    types_pb2.DT_INVALID,
]


@st.composite
def tensor_protos(draw):
    dtype = draw(st.sampled_from(DTYPES))
    dims = draw(st.lists(st.integers(0, 70), max_size=3))
    proto = tensor_pb2.TensorProto(
        dtype=dtype,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims],
            unknown_rank=draw(st.booleans()) and draw(st.booleans()),
        ),
    )
    kind = draw(st.sampled_from(["content", "floats", "strings", "ints", "empty"]))
    if kind == "content":
        proto.tensor_content = draw(st.binary(max_size=2048))
    elif kind == "floats":
        proto.float_val.extend(draw(st.lists(st.floats(width=32), max_size=50)))
    elif kind == "strings":
        proto.string_val.extend(draw(st.lists(st.binary(max_size=40), max_size=8)))
    elif kind == "ints":
        proto.int_val.extend(draw(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=50)))
    return proto


@st.composite
def predict_requests(draw):
    request = predict_pb2.PredictRequest()
    request.model_spec.name = draw(st.sampled_from(["reward", "reward", "policy", ""]))
    request.model_spec.signature_name = draw(
        st.sampled_from(["score", "scan", "metadata", "serving_default", "", "nope"])
    )
    if draw(st.booleans()):
        request.model_spec.version.value = draw(st.integers(0, 3))
    for name in draw(st.lists(st.sampled_from(["goals", "states", "extra"]), unique=True)):
        request.inputs[name].CopyFrom(draw(tensor_protos()))
    request.output_filter.extend(draw(st.lists(st.sampled_from(["probability", "x"]), max_size=2)))
    return request


CLIENT_ERRORS = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND}


@SETTINGS
@given(request=predict_requests())
def test_grpc_answers_any_request_with_ok_or_a_client_error(served, request):
    stub, _ = served
    try:
        stub.Predict(request, timeout=30)
    except grpc.RpcError as error:
        assert error.code() in CLIENT_ERRORS, (error.code(), error.details())
    assert (
        stub.Predict(_valid_request(), timeout=30).outputs["probability"].dtype
        == types_pb2.DT_FLOAT
    )


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=30,
)
PATHS = [
    "/v1/models/reward:predict",
    "/v1/models/reward/versions/1:predict",
    "/v1/models/reward/labels/x:predict",
    "/v1/models/reward",
    "/v1/models/reward/metadata",
    "/v1/models/policy:predict",
    "/v1/models/reward/versions/abc",
    "/",
    "/v1/models/",
]


@st.composite
def rest_bodies(draw):
    kind = draw(st.sampled_from(["json", "predict", "bytes", "deep"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "deep":  # arrays or objects nested up to 200,000 levels, closed or not
        depth, opening = draw(st.integers(1, 200_000)), draw(st.sampled_from([b"[", b'{"a":']))
        closing = b"]" if opening == b"[" else b"}"
        inner = b"1" * draw(st.booleans())
        closed = closing * draw(st.sampled_from([depth, 0]))
        return b'{"instances": ' + opening * depth + inner + closed + b"}"
    if kind == "json":
        return json.dumps(draw(JSON)).encode()
    key = draw(st.sampled_from(["instances", "inputs"]))
    body = {
        key: draw(JSON),
        "signature_name": draw(st.sampled_from(["score", "scan", "metadata", 3])),
    }
    return json.dumps(body).encode()


@SETTINGS
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE"]),
    path=st.sampled_from(PATHS)
    | st.text(alphabet="/v1modelsrwad:tpic0", max_size=30).map(lambda p: "/" + p),
    body=rest_bodies(),
    content_type=st.sampled_from(
        ["application/json", "text/plain", "application/x-www-form-urlencoded", ""]
    ),
)
def test_rest_answers_any_request_with_ok_or_a_client_error(
    served, method, path, body, content_type
):
    _, url = served
    answer = requests.request(
        method,
        url + path,
        data=body,
        timeout=30,
        headers={"Content-Type": content_type} if content_type else {},
    )
    assert answer.status_code < 500, (answer.status_code, answer.text[:300])
    assert isinstance(answer.json(), dict)
    valid = {
        "signature_name": "score",
        "inputs": {"goals": ["Go left"], "states": VALID_STATES.tolist()},
    }
    assert (
        requests.post(f"{url}/v1/models/reward:predict", json=valid, timeout=30).status_code == 200
    )
