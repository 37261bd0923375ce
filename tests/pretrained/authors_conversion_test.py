"""Reading and converting the authors' release (flowersteam/Imagine ``pretrained_weights/``, MIT
licence; a copy in tests/fixtures/authors/): the legacy PyTorch reader against a file torch
wrote (docs/results/scripts/record_legacy_torch_fixture.py), the vocabulary and LSTM mapping,
the OR net in object order, and `imagine-tf pretrained convert-authors` end to end against the
committed models/authors_epoch160."""

import json
import pathlib
import pickle
import shutil

import numpy as np
import pytest

from imagine_tf.pretrained import authors
from imagine_tf.pretrained.torch_pickle import MAGIC_NUMBER, load_legacy

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "authors"
RELEASE = FIXTURES / "pretrained_weights"
COMMITTED = ROOT / "models" / "authors_epoch160"


def test_legacy_reader_returns_what_torch_saved():
    values, nested, seven = load_legacy(FIXTURES / "legacy_torch.pkl")
    with np.load(FIXTURES / "legacy_torch.npz") as expected:
        assert list(values) == [name for name in expected.files if name != "extra"]
        for name, array in values.items():
            assert array.dtype == expected[name].dtype, name
            np.testing.assert_array_equal(array, expected[name], err_msg=name)
        np.testing.assert_array_equal(nested["nested"][1], expected["extra"])
    np.testing.assert_array_equal(nested["nested"][0], values["int64"])
    assert seven == 7


def test_legacy_reader_refuses_code_and_other_files(tmp_path):
    hostile = tmp_path / "hostile.pkl"
    with open(hostile, "wb") as file:
        for header in (MAGIC_NUMBER, 1001, {"little_endian": True}):
            pickle.dump(header, file, protocol=2)
        pickle.dump(shutil.rmtree, file, protocol=2)  # a global: would run on load
    with pytest.raises(pickle.UnpicklingError, match="shutil.rmtree is not something"):
        load_legacy(hostile)
    other = tmp_path / "other.pkl"
    other.write_bytes(pickle.dumps([1, 2]))
    with pytest.raises(ValueError, match="not a legacy PyTorch file"):
        load_legacy(other)


def test_their_files_read_and_their_vocabulary_spells_chameleon():
    release = authors.read_authors(RELEASE)
    words = authors.authors_words(release["params"])
    assert len(words) == 50 and "chameleon" in words and "cameleon" not in words
    assert words == sorted(words)  # their one-hot encoder's order: id = position + 1
    kernel, recurrent, bias = authors.lstm_weights(release["reward"], words, words)
    # one column per word plus padding, torch's (i, f, g, o) rows as Keras' (i, f, c, o)
    assert kernel.shape == (51, 400) and recurrent.shape == (100, 400) and bias.shape == (400,)
    np.testing.assert_array_equal(kernel, release["reward"]["lstm.weight_ih_l0"].T)
    layers = {f"{name}.{part}" for name in authors.ACTOR_LAYERS for part in ("weight", "bias")}
    assert set(release["actor"]) == layers  # every tensor of their actor has its place
    with pytest.raises(authors.AuthorsFilesError, match="vocabulary"):
        authors.lstm_weights(release["reward"], words, words[:-1] + ["cameleon"])
    with pytest.raises(authors.AuthorsFilesError, match="pretrained_weights"):
        authors.read_authors(FIXTURES)


def test_or_unsorted_keeps_object_order_and_other_n_fall_back_to_sorted():
    import tensorflow as tf

    from imagine_tf.reward.network import RewardNetwork, example_inputs
    from imagine_tf.reward.or_network import OrNetwork, or_forward

    unsorted, symmetric = OrNetwork(3, "or_unsorted"), OrNetwork(3, "or")
    probabilities = tf.constant([[0.9, 0.2, 0.1], [0.1, 0.2, 0.9]])
    symmetric_out = symmetric(probabilities).numpy()
    assert symmetric_out[0] == pytest.approx(symmetric_out[1], abs=1e-7)
    weights = symmetric._weights
    np.testing.assert_allclose(
        unsorted(probabilities).numpy(), or_forward(probabilities, weights, sort=False).numpy()
    )
    assert abs(unsorted(probabilities).numpy()[0] - unsorted(probabilities).numpy()[1]) > 1e-4
    network = RewardNetwork("ma", ["cat", "grasp"], 4, num_objects=3, aggregation="or_unsorted")
    network(example_inputs(3, 4))
    assert network.with_num_objects(5).aggregation == "or"


def test_convert_authors_writes_the_committed_directory(tmp_path):
    from imagine_tf.analysis.saved_run import load_agent
    from imagine_tf.cli.main import main

    source = tmp_path / "Imagine" / "pretrained_weights"
    shutil.copytree(RELEASE, source)
    shutil.copy(FIXTURES / "LICENSE", source.parent / "LICENSE")
    out = tmp_path / "authors_epoch160"
    assert main(["pretrained", "convert-authors", "--from", str(source), "--out", str(out)]) == 0
    ours, committed = load_agent(out), load_agent(COMMITTED)
    for mine, shipped in (
        (ours.ddpg.actor_network, committed.ddpg.actor_network),
        (ours.reward_network, committed.reward_network),
    ):
        for a, b in zip(mine.get_weights(), shipped.get_weights(), strict=True):
            np.testing.assert_array_equal(a, b)
    card = json.loads((out / "card.json").read_text())
    shipped_card = json.loads((COMMITTED / "card.json").read_text())
    assert card["source"]["files"] == shipped_card["source"]["files"]
    assert (out / "LICENSE").read_text().startswith("MIT License")
    assert (out / "reward" / "1" / "saved_model.pb").is_file()
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine")
    busy = ["pretrained", "convert-authors", "--from", str(source), "--out", str(tmp_path / "busy")]
    assert main(busy) == 2  # refused: not a converted directory
    assert (tmp_path / "busy" / "keep.txt").read_text() == "mine"
