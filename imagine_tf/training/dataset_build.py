"""Building the `playground_trajectories` TFDS dataset from a checkout (`imagine-tf dataset build`).

The builder lives in ``datasets/playground_trajectories`` (the `tfds new` layout, also buildable
with ``tfds build datasets/playground_trajectories``). TFDS writes into a temporary directory and
renames it when the build is complete, so an interrupted build leaves nothing half-written;
building again starts over, and an existing complete build is reused.
"""

from __future__ import annotations

import dataclasses
import importlib
import pathlib
import sys

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
DATASET_NAME = "playground_trajectories"
VERSION = "1.0.0"


def builder_module(repository: pathlib.Path = REPOSITORY):
    """Imports datasets/playground_trajectories/…_dataset_builder.py from a checkout."""
    folder = repository / "datasets" / DATASET_NAME
    if not folder.is_dir():
        raise FileNotFoundError(
            f"No dataset builder at {folder}. `imagine-tf dataset build` runs from a checkout of "
            "imagine-tf (the builder is not part of the installed package)."
        )
    if str(repository) not in sys.path:
        sys.path.insert(0, str(repository))
    return importlib.import_module(f"datasets.{DATASET_NAME}.{DATASET_NAME}_dataset_builder")


def dataset_dir(data_dir: str | pathlib.Path, config: str) -> pathlib.Path:
    """Where TFDS puts a prepared config: <data_dir>/playground_trajectories/<config>/1.0.0."""
    return pathlib.Path(data_dir).expanduser() / DATASET_NAME / config / VERSION


def build_dataset(config: str, data_dir: str | pathlib.Path, num_episodes: int | None = None):
    """Prepares a config (or a resized copy named <config>_<n>); returns (builder, directory)."""
    import tensorflow_datasets as tfds

    module = builder_module()
    configs = {c.name: c for c in module.Builder.BUILDER_CONFIGS}
    if config not in configs:
        raise ValueError(f"Unknown dataset config {config!r}; choose one of {sorted(configs)}.")
    chosen = configs[config]
    if num_episodes is not None:
        if num_episodes < 10:
            raise ValueError(
                f"num_episodes must be >= 10 (one test episode in 10), got {num_episodes}."
            )
        chosen = dataclasses.replace(
            chosen, name=f"{config}_{num_episodes}", num_episodes=num_episodes
        )
    builder = module.Builder(config=chosen, data_dir=str(pathlib.Path(data_dir).expanduser()))
    builder.download_and_prepare(
        download_config=tfds.download.DownloadConfig(try_download_gcs=False)
    )
    return builder, dataset_dir(data_dir, chosen.name)
