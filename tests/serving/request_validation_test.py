"""Request checks against a signature's input specs, without a server."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf_serving.request_validation import RequestError, convert_inputs
from imagine_tf_client.tensors import to_tensor_proto

SPECS = {
    "goals": tf.TensorSpec([None], tf.string, "goals"),
    "states": tf.TensorSpec([None, None], tf.float32, "states"),
    "temperature": tf.TensorSpec([], tf.float32, "temperature"),
}


def _inputs(**overrides):
    inputs = {
        "goals": ["Go left", "Go right"],
        "states": np.zeros((2, 240), np.float32),
        "temperature": np.float32(1.0),
        **overrides,
    }
    return {name: to_tensor_proto(value) for name, value in inputs.items()}


def test_valid_inputs_come_back_as_arrays():
    arrays = convert_inputs(_inputs(), SPECS, 64)
    assert arrays["goals"].tolist() == [b"Go left", b"Go right"]
    assert arrays["states"].shape == (2, 240) and arrays["temperature"].shape == ()


@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(temperature=np.float32(np.nan)), "'temperature' contains NaN or inf$"),
        (
            dict(
                states=np.where(np.arange(240) == 3, np.inf, 0)
                .astype(np.float32)[None]
                .repeat(2, 0)
            ),
            r"'states' contains NaN or inf \(rows \[0, 1\]\)",
        ),
        (dict(states=np.zeros((2, 240), np.float64)), "dtype float64, expected float32"),
        (
            dict(goals=["Go left"] * 65, states=np.zeros((65, 240), np.float32)),
            "maximum batch size 64",
        ),
        (dict(states=np.zeros((2, 2, 240), np.float32)), r"shape \[2, 2, 240\]"),
        (
            dict(goals=[b"Go left", b"Go \xc3("]),
            r"'goals' at \[1\]: bytes that are not UTF-8 text at byte 3",
        ),
    ],
    ids=["scalar NaN", "rows with inf", "dtype", "oversized", "rank", "not UTF-8"],
)
def test_bad_inputs_say_what_is_wrong(overrides, message):
    with pytest.raises(RequestError, match=message):
        convert_inputs(_inputs(**overrides), SPECS, 64)


def test_content_that_does_not_fit_the_declared_shape():
    inputs = _inputs()
    inputs["states"].tensor_content = inputs["states"].tensor_content[:-4]
    with pytest.raises(RequestError, match="'states' cannot be decoded"):
        convert_inputs(inputs, SPECS, 64)


def test_unknown_rank_and_missing_inputs():
    inputs = _inputs()
    inputs["states"].tensor_shape.unknown_rank = True
    with pytest.raises(RequestError, match="shape unknown"):
        convert_inputs(inputs, SPECS, 64)
    del inputs["states"]
    with pytest.raises(RequestError, match=r"missing \['states'\]"):
        convert_inputs(inputs, SPECS, 64)


def test_an_unexpected_failure_is_internal_with_a_message_and_logged_once(caplog):
    import asyncio

    import grpc
    from tensorflow_serving.apis import predict_pb2

    from imagine_tf_serving.prediction_service import PredictionServicer

    class Failing:  # a predictor whose model breaks in a way no check foresaw
        def version_for(self, model_spec):
            return None

        async def predict_async(self, request, loaded, executor):
            raise ZeroDivisionError("division by zero in a handler")

    class Context:  # records what the servicer answers, as grpc's context would carry it
        status = details = None

        def code(self):
            return self.status

        async def abort(self, code, details):
            self.status, self.details = code, details
            raise RuntimeError("aborted")

    servicer = PredictionServicer(Failing(), executor=None)
    for _ in range(3):
        context = Context()
        with pytest.raises(RuntimeError, match="aborted"):
            asyncio.run(servicer.Predict(predict_pb2.PredictRequest(), context))
        assert context.code() == grpc.StatusCode.INTERNAL
        assert "ZeroDivisionError" in context.details and "keeps serving" in context.details
    logged = [r for r in caplog.records if "unexpected error" in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None
