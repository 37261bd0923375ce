"""The fast TensorProto codec agrees with `tf.make_tensor_proto` / `tf.make_ndarray`."""

import numpy as np
import pytest
import tensorflow as tf

from serving.tensor_protos import to_array, to_tensor_proto

VALUES = [
    np.array(["Grasp red cat", "Go left é"], dtype=object),
    np.array([[b"x", b"y"]]),
    np.array([True, False, True]),
    np.arange(6, dtype=np.int64).reshape(2, 3),
    np.float32(3.0),
    np.zeros((0, 4), np.float32),
    np.random.default_rng(0).normal(size=(5, 240)).astype(np.float32),
]


def _encoded(array):
    if array.dtype.kind in "OSU":
        return np.vectorize(lambda x: x.encode() if isinstance(x, str) else x, otypes=[object])(
            array
        )
    return array


@pytest.mark.parametrize("value", VALUES, ids=lambda v: f"{np.asarray(v).dtype}{np.shape(v)}")
def test_round_trip_and_stock_decoder_agree(value):
    proto = to_tensor_proto(value)
    stock, ours = tf.make_ndarray(proto), to_array(proto)
    want = _encoded(np.asarray(value))
    assert stock.shape == ours.shape == want.shape
    assert stock.dtype == want.dtype or want.dtype.kind in "OSU"
    np.testing.assert_array_equal(stock, want)
    np.testing.assert_array_equal(ours, want)


def test_decodes_the_other_encodings_stock_clients_send():
    typed = tf.make_tensor_proto(np.array([1.0, 2.0], np.float32))
    typed.ClearField("tensor_content")
    typed.float_val.extend([1.0, 2.0])
    np.testing.assert_array_equal(to_array(typed), [1.0, 2.0])
    broadcast = tf.make_tensor_proto(7.0, shape=[2, 2])
    np.testing.assert_array_equal(to_array(broadcast), np.full((2, 2), 7.0))
    np.testing.assert_array_equal(to_array(tf.make_tensor_proto("ab", shape=[3])), [b"ab"] * 3)


def test_content_that_does_not_fit_the_shape_is_an_error():
    proto = to_tensor_proto(np.zeros((2, 3), np.float32))
    proto.tensor_content = proto.tensor_content[:-4]
    with pytest.raises(ValueError, match="reshape"):
        to_array(proto)
