"""Dicts of arrays <-> the flat lists of arrays of Reverb items."""

import json

import numpy as np
import pytest

from imagine_tf.distributed.codec import array_text, decode, encode, text_array


def test_round_trip_keeps_dtypes_shapes_and_values():
    nest = {
        "observations": np.random.rand(2, 3, 4).astype(np.float32),
        "goal_ids": np.array([3, -1], dtype=np.int64),
        "achieved": np.array([[True, False]]),
        "text": text_array("Grasp red cat"),
        "step": np.array(7, dtype=np.int32),
        "scale": np.float64(0.5),
        "empty": np.zeros((0, 3), np.float32),
    }
    decoded = decode(encode(nest))
    assert set(decoded) == set(nest)
    for key, value in nest.items():
        assert decoded[key].dtype == np.asarray(value).dtype, key
        assert decoded[key].shape == np.asarray(value).shape, key
        np.testing.assert_array_equal(decoded[key], value)
    assert decoded["step"].shape == ()
    assert array_text(decoded["text"]) == "Grasp red cat"


def test_the_first_array_holds_the_sorted_keys():
    flat = encode({"b": np.zeros(1), "a": np.ones(2)})
    assert flat[0].dtype == np.uint8
    assert json.loads(array_text(flat[0])) == ["a", "b"]
    np.testing.assert_array_equal(flat[1], np.ones(2))
    assert decode(encode({})) == {}


def test_text_round_trip_in_utf8():
    array = text_array('{"goal": "Grow any plant", "é": 1}')
    assert array.dtype == np.uint8 and array.ndim == 1
    assert array_text(array) == '{"goal": "Grow any plant", "é": 1}'
    assert array_text(text_array("")) == ""


def test_strings_and_objects_are_refused_with_the_key():
    with pytest.raises(TypeError, match="'name'.*text_array"):
        encode({"name": np.array("cat")})
    with pytest.raises(TypeError, match="strings"):
        encode({1: np.zeros(1)})
    with pytest.raises(TypeError):
        encode([np.zeros(1)])


def test_decode_refuses_what_encode_did_not_make():
    with pytest.raises(ValueError):
        decode([])
    with pytest.raises(ValueError):
        decode([np.zeros(3, np.float32)])
    with pytest.raises(ValueError, match="values for the keys"):
        decode([text_array('["a", "b"]'), np.zeros(1)])
    with pytest.raises(ValueError):
        array_text(np.zeros(2, np.float32))
