"""`playground_trajectories` through the stock `tfds` CLI, on Beam, and by name after import."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import tensorflow_datasets as tfds

from imagine_tf.data.playground_trajectories import Builder

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
TFDS_CLI = pathlib.Path(sys.executable).parent / "tfds"
TEST_INDICES = [9, 19, 29, 39]  # tiny: 40 episodes, goal_id == episode index


def _environment() -> dict:
    """This process's environment without PYTHONPATH: imports resolve as installed."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return environment


def _run(command: list[str], cwd: pathlib.Path) -> str:
    """Runs ``command`` with `_environment()`; asserts it succeeds; returns its stdout."""
    result = subprocess.run(
        command, cwd=cwd, env=_environment(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def _tfds_build(data_dir: pathlib.Path, *options: str) -> pathlib.Path:
    dataset = "datasets/playground_trajectories"
    command = [str(TFDS_CLI), "build", dataset, "--config", "tiny", "--data_dir", str(data_dir)]
    _run([*command, *options], REPOSITORY)
    return data_dir / "playground_trajectories" / "tiny" / "1.0.0"


def _episodes(directory: pathlib.Path, split: str) -> list[dict]:
    episodes = []
    for episode in tfds.builder_from_directory(str(directory)).as_dataset(split=split):
        metadata = {key: value.numpy() for key, value in episode.items() if key != "steps"}
        episodes.append({**metadata, "steps": list(tfds.as_numpy(episode["steps"]))})
    return episodes


def _assert_same_episodes(first: list[dict], second: list[dict]) -> None:
    assert len(first) == len(second)
    for one, other in zip(first, second):
        assert one.keys() == other.keys()
        for key in one:
            if key == "steps":
                for step, other_step in zip(one[key], other[key], strict=True):
                    flat = tfds.core.utils.flatten_nest_dict(step)
                    other_flat = tfds.core.utils.flatten_nest_dict(other_step)
                    assert flat.keys() == other_flat.keys()
                    for name in flat:
                        np.testing.assert_array_equal(flat[name], other_flat[name], err_msg=name)
            else:
                np.testing.assert_array_equal(one[key], other[key], err_msg=key)


@pytest.fixture(scope="module")
def plain_build(tmp_path_factory) -> pathlib.Path:
    return _tfds_build(tmp_path_factory.mktemp("plain"))


def test_tfds_build_cli_prepares_the_tiny_config(plain_build):
    info = json.loads((plain_build / "dataset_info.json").read_text())
    splits = {split["name"]: sum(map(int, split["shardLengths"])) for split in info["splits"]}
    assert splits == {"train": 36, "test": 4}
    test_ids = sorted(int(episode["goal_id"]) for episode in _episodes(plain_build, "test"))
    assert test_ids == TEST_INDICES


@pytest.mark.parametrize(
    "options",
    [
        "runner=DirectRunner",
        pytest.param(  # two Beam worker processes
            "runner=DirectRunner,direct_num_workers=2,direct_running_mode=multi_processing",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_tfds_build_on_beam_writes_the_same_examples(plain_build, tmp_path, options):
    beam_build = _tfds_build(tmp_path, f"--beam_pipeline_options={options}")
    for split in ("train", "test"):
        _assert_same_episodes(_episodes(plain_build, split), _episodes(beam_build, split))


def test_tfds_load_after_importing_the_dataset_module(plain_build, tmp_path):
    """`tfds.load` by name in a fresh process, as for a TFDS community dataset: importing the
    builder's module registers it (the plain build's data directory: loaded, not built again);
    `import imagine_tf` alone imports neither TFDS nor TensorFlow."""
    data_dir = plain_build.parents[2]
    script = f"""
import sys
import imagine_tf
assert "tensorflow_datasets" not in sys.modules, "import imagine_tf imported TFDS"
import tensorflow_datasets as tfds
import imagine_tf.data.playground_trajectories
test = tfds.load("playground_trajectories/tiny", data_dir={str(data_dir)!r}, split="test")
print(sorted(int(episode["goal_id"]) for episode in test))
assert "datasets" not in sys.modules and {str(REPOSITORY)!r} not in sys.path
"""
    stdout = _run([sys.executable, "-c", script], tmp_path)
    assert json.loads(stdout.strip().splitlines()[-1]) == TEST_INDICES


def test_the_builder_is_registered_by_name():
    assert tfds.builder_cls("playground_trajectories") is Builder


def test_the_tfds_new_folder_exposes_the_same_builder():
    """What `tfds build datasets/playground_trajectories` does: import, then look up the class."""
    module = "playground_trajectories.playground_trajectories_dataset_builder"
    with tfds.core.utils.add_sys_path(REPOSITORY / "datasets"):
        try:
            assert tfds.core.community.builder_cls_from_module(module) is Builder
            assert sys.modules[module].Builder is Builder
        finally:
            for name in (module, "playground_trajectories"):
                sys.modules.pop(name, None)


def test_a_build_that_lost_episodes_fails_and_is_removed(tmp_path, monkeypatch):
    """A runner that drops examples (as Beam's DirectRunner did at 50,000 episodes) must not
    leave a build that TFDS would reuse as complete."""
    from imagine_tf.data.playground_trajectories import IncompleteBuild, builder
    from imagine_tf.data.playground_trajectories.split_examples import split_sizes

    assert split_sizes(40) == {"train": 36, "test": 4}
    assert split_sizes(50_000) == {"train": 45_000, "test": 5_000}
    complete = builder.split_examples

    def lossy(*args):
        return (example for example in complete(*args) if example[0] != 3)

    monkeypatch.setattr(builder, "split_examples", lossy)
    tiny = Builder(config="tiny", data_dir=str(tmp_path))
    with pytest.raises(IncompleteBuild, match=r"'train': 35.*expected.*'train': 36.*removed"):
        tiny.download_and_prepare()
    assert not (tmp_path / "playground_trajectories" / "tiny" / "1.0.0").exists()
    monkeypatch.setattr(builder, "split_examples", complete)
    Builder(config="tiny", data_dir=str(tmp_path)).download_and_prepare()  # builds again
    assert (tmp_path / "playground_trajectories" / "tiny" / "1.0.0" / "dataset_info.json").exists()
