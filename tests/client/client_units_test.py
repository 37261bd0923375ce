"""imagine-tf-client's parts without a server: TensorProto conversion against TensorFlow's own,
the input checks and the error mapping (the calls through real servers are in
tf_free_client_test.py)."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf_client import (
    GrpcPolicyClient,
    GrpcRewardClient,
    InvalidInput,
    ModelNotFound,
    PolicyClient,
    RewardClient,
    ServerError,
    ServerUnavailable,
)
from imagine_tf_client._protos.tensorflow.core.framework import tensor_pb2
from imagine_tf_client.errors import grpc_error, http_error
from imagine_tf_client.tensors import fill_tensor_proto, shape_of, to_array, to_tensor_proto

ARRAYS = [
    np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
    np.array([[1.5, -2.25]], np.float64),
    np.array([1, -2, 3], np.int32),
    np.array([2**40, -1], np.int64),
    np.array([0, 255], np.uint8),
    np.array([True, False, True]),
    np.array([0.5, -1.0], np.float16),
    np.array(3.25, np.float32),  # a scalar
    np.zeros((0, 240), np.float32),
    np.array([b"Grasp red cat", "Go left".encode(), b"\xff\x00"], dtype=object),
]


def as_ours(proto, shape=None) -> tensor_pb2.TensorProto:
    """TensorFlow's TensorProto as this client's (declaring ``shape`` instead, if given)."""
    ours = tensor_pb2.TensorProto.FromString(proto.SerializeToString())
    if shape is not None:
        del ours.tensor_shape.dim[:]
        ours.tensor_shape.dim.add().size = shape[0]
    return ours


@pytest.mark.parametrize("array", ARRAYS, ids=lambda a: f"{a.dtype}{list(a.shape)}")
def test_tensor_protos_read_as_tensorflow_reads_them(array):
    ours = to_tensor_proto(array)
    theirs = tf.make_ndarray(tf.make_tensor_proto(array))  # what TF writes (typed fields too)
    decoded = tf.make_ndarray(type(tf.make_tensor_proto(0)).FromString(ours.SerializeToString()))
    for result in (decoded, to_array(as_ours(tf.make_tensor_proto(array))), to_array(ours)):
        assert result.shape == array.shape and result.dtype == theirs.dtype
        np.testing.assert_array_equal(result, theirs)


@pytest.mark.parametrize("array", ARRAYS, ids=lambda a: f"{a.dtype}{list(a.shape)}")
def test_the_server_converts_tensorflows_own_messages(array):
    """The server fills and reads TensorFlow's generated TensorProto (its request and response
    maps), not this package's: the same converter works on either class."""
    theirs = type(tf.make_tensor_proto(0))
    filled = fill_tensor_proto(theirs(), array)
    assert type(filled) is theirs and shape_of(filled) == array.shape
    np.testing.assert_array_equal(tf.make_ndarray(filled), array)
    for proto in (filled, tf.make_tensor_proto(array)):  # ours and TensorFlow's encoding
        result = to_array(proto)
        assert result.shape == array.shape
        np.testing.assert_array_equal(result, array)
    unknown = theirs()
    unknown.tensor_shape.unknown_rank = True
    assert shape_of(unknown) is None
    with pytest.raises(ValueError, match="unknown rank"):
        to_array(unknown)


def test_fewer_values_than_the_shape_repeat_the_last_as_in_tensorflow():
    for proto in (
        tf.make_tensor_proto(2.5, shape=[2, 3]),  # one float_val broadcast
        tf.make_tensor_proto([True], shape=[4]),
        tf.make_tensor_proto([1, 2], shape=[4], dtype=tf.int64),
        tf.make_tensor_proto("ab", shape=[3]),
    ):
        np.testing.assert_array_equal(to_array(as_ours(proto)), tf.make_ndarray(proto))
    with pytest.raises(ValueError, match=r"5 values in tensor_content for the shape \[4\]"):
        to_array(as_ours(tf.make_tensor_proto(np.arange(5)), shape=[4]))
    typed = tensor_pb2.TensorProto(dtype=3, int_val=[1, 2, 3, 4, 5])  # DT_INT32
    typed.tensor_shape.dim.add().size = 4
    with pytest.raises(ValueError, match=r"5 values do not fill the shape \[4\]"):
        to_array(typed)


def test_unsupported_dtypes_are_named():
    with pytest.raises(TypeError, match="complex128"):
        to_tensor_proto(np.array([1j]))
    proto = tensor_pb2.TensorProto(dtype=20)  # DT_RESOURCE
    with pytest.raises(ValueError, match="DT_RESOURCE"):
        to_array(proto)


REWARD = RewardClient("http://127.0.0.1:1")  # nothing is sent by the checks below
STATES = np.zeros((2, 240), np.float32)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: REWARD.score(np.zeros(240), "Go left"), ["[B, D]", "[240]", "[state]"]),
        (lambda: REWARD.score(np.zeros((2, 3, 4)), "Go left"), ["[2, 3, 4]"]),
        (lambda: REWARD.score(np.zeros((0, 240)), "Go left"), ["no rows"]),
        (lambda: REWARD.score([["a", "b"]], "Go left"), ["numbers", "float32"]),
        (lambda: REWARD.score(STATES, ["Go left"]), ["2 states but 1 goals", "scan()"]),
        (lambda: REWARD.score(STATES, ["Go left", None]), ["goals[1]", "NoneType"]),
        (lambda: REWARD.scan(STATES, []), ["goals is empty"]),
        (lambda: REWARD.scan(STATES, np.array([["Go left"]])), ["1-D", "[1, 1]"]),
        (lambda: REWARD.scan(STATES, 7), ["list of sentences", "int"]),
        (lambda: RewardClient(version=1, label="stable"), ["not both", "stable"]),
        (lambda: RewardClient(version="1"), ["version number", "'1'"]),
        (lambda: RewardClient(model="a/b"), ["model", "'a/b'"]),
        (lambda: RewardClient("127.0.0.1:8501"), ["http://host:port", "'127.0.0.1:8501'"]),
        (lambda: GrpcRewardClient("http://127.0.0.1:8500"), ["host:port"]),
        (lambda: GrpcRewardClient(label=""), ["version label"]),
        (lambda: RewardClient(timeout=0), ["seconds > 0", "0"]),
        (lambda: GrpcPolicyClient(timeout="5"), ["seconds > 0", "'5'"]),
    ],
)
def test_wrong_inputs_are_refused_before_sending(call, words):
    with pytest.raises(InvalidInput) as raised:
        call()
    for word in words:
        assert word in str(raised.value), (word, str(raised.value))
    assert raised.value.status is None  # the client's own check


POLICY = PolicyClient("http://127.0.0.1:1")


@pytest.mark.parametrize(
    "observation, words",
    [
        ({"state": STATES}, ["'state'", "'goal'", "keys ['state']"]),
        (STATES, ["dict", "ndarray"]),
        ({"state": STATES, "goal": np.zeros((2, 4))}, ["token ids int32 [B, L]", "float64"]),
        ({"state": STATES, "goal": np.zeros((3, 4), np.int32)}, ["2 states but 3 rows"]),
        ({"state": STATES, "goal": -np.ones((2, 4), np.int64)}, [">= 0"]),
        ({"state": STATES, "goal": ["Go left"]}, ["2 states but 1 goals"]),
    ],
)
def test_wrong_observations_are_refused_before_sending(observation, words):
    with pytest.raises(InvalidInput) as raised:
        POLICY.act(observation)
    for word in words:
        assert word in str(raised.value), (word, str(raised.value))


def test_status_codes_become_errors_that_say_what_to_do():
    url = "http://h:1/v1/models/reward:predict"
    cases = [
        (http_error(400, "bad", url), InvalidInput, "fix the input"),
        (http_error(404, "no model", url), ModelNotFound, "model name, version"),
        (http_error(413, "too big", url), InvalidInput, "split the batch"),
        (http_error(503, "not yet", url), ServerUnavailable, "wait and retry"),
        (http_error(500, "boom", url), ServerError, "server's log"),
        (grpc_error("INVALID_ARGUMENT", "bad", "h:1", 10), InvalidInput, "fix the input"),
        (grpc_error("NOT_FOUND", "nope", "h:1", 10), ModelNotFound, "signature"),
        (grpc_error("RESOURCE_EXHAUSTED", "big", "h:1", 10), InvalidInput, "split"),
        (grpc_error("UNAVAILABLE", "no version", "h:1", 10), ServerUnavailable, "retry"),
        (grpc_error("UNAVAILABLE", "failed to connect", "h:1", 10), ServerUnavailable, "running"),
        (grpc_error("DEADLINE_EXCEEDED", "", "h:1", 2.5), ServerUnavailable, "within 2.5 s"),
        (grpc_error("UNIMPLEMENTED", "", "h:1", 10), ServerError, "TensorFlow Serving"),
        (grpc_error("INTERNAL", "boom", "h:1", 10), ServerError, "boom"),
    ]
    for error, kind, words in cases:
        assert type(error) is kind and words in str(error), (str(error), kind)
        assert error.status is not None and error.message in str(error)


def test_versions_and_labels_choose_the_route():
    assert RewardClient(version=np.int64(3)).transport.url.endswith("/v1/models/reward/versions/3")
    assert PolicyClient(label="stable").transport.url.endswith("/v1/models/policy/labels/stable")
    assert GrpcRewardClient(version=np.int64(3)).transport._spec("score").version.value == 3
    assert GrpcPolicyClient(label="canary").transport._spec().version_label == "canary"


def test_an_unreachable_server_is_named_at_once():
    for make in (
        lambda: RewardClient("http://127.0.0.1:1"),
        lambda: GrpcPolicyClient("127.0.0.1:1"),
    ):
        with make() as unreachable, pytest.raises(ServerUnavailable, match="127.0.0.1:1"):
            unreachable.status()
