"""TFDS's own builder test on the tiny config (36 train / 4 test episodes)."""

import pathlib

import tensorflow_datasets as tfds

from imagine_tf.data.playground_trajectories import Builder


class PlaygroundTrajectoriesTest(tfds.testing.DatasetBuilderTestCase):
    DATASET_CLASS = Builder
    EXAMPLE_DIR = pathlib.Path(__file__).parent / "dummy_data"  # next to this file, not the class
    BUILDER_CONFIG_NAMES_TO_TEST = ["tiny"]
    SPLITS = {"train": 36, "test": 4}
    SKIP_CHECKSUMS = True


if __name__ == "__main__":
    tfds.testing.test_main()


def test_stacked_steps_encode_like_the_step_by_step_path():
    import numpy as np

    from imagine_tf.data.episodes import EpisodeSpec, generate_episodes

    builder = Builder(config="tiny", data_dir="/tmp/unused")
    steps_feature = builder.info.features["steps"]
    _, episode = next(generate_episodes(EpisodeSpec(seed=3), 0, 1, batch_size=4))
    fast = steps_feature.encode_example(episode["steps"])
    slow = tfds.features.Dataset.encode_example(steps_feature, episode["steps"])
    flat_fast, flat_slow = tfds.core.utils.flatten_nest_dict(
        fast
    ), tfds.core.utils.flatten_nest_dict(slow)
    assert flat_fast.keys() == flat_slow.keys()
    for key in flat_fast:
        if isinstance(flat_slow[key][0], bytes):  # bytes-encoded tensors: one bytes per step
            assert list(flat_fast[key]) == list(flat_slow[key]), key
        else:  # the step-by-step path leaves a list of per-step arrays
            expected = np.asarray(flat_slow[key])
            np.testing.assert_array_equal(flat_fast[key], expected)
            assert flat_fast[key].dtype == expected.dtype, key


def test_built_metadata_names_the_standard_rlds_feature(tmp_path):
    import json

    builder = Builder(config="tiny", data_dir=str(tmp_path))
    builder.download_and_prepare()
    features = json.loads((pathlib.Path(builder.data_dir) / "features.json").read_text())
    steps = features["featuresDict"]["features"]["steps"]["pythonClassName"]
    assert steps == "tensorflow_datasets.core.features.dataset_feature.Dataset"
    reread = tfds.builder_from_directory(builder.data_dir)
    episode = next(iter(reread.as_dataset(split="test").take(1)))
    states = [step["observation"]["state"].numpy() for step in episode["steps"]]
    assert len(states) == 51 and states[0].shape == (240,)


def test_supervised_loader_reads_a_build(tmp_path):
    import numpy as np

    from imagine_tf.data.supervised import load_supervised_data

    builder = Builder(config="tiny", data_dir=str(tmp_path))
    builder.download_and_prepare()
    data = load_supervised_data(builder.data_dir)
    assert data.train_states.shape == (36, 240) and data.test_states.shape == (4 * 51, 240)
    reread = tfds.builder_from_directory(builder.data_dir)
    episode = next(iter(reread.as_dataset(split="test").take(1)))
    states = np.stack([step["observation"]["state"].numpy() for step in episode["steps"]])
    np.testing.assert_array_equal(data.test_states[:51], states)
