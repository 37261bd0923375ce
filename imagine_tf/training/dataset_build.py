"""Building the `playground_trajectories` TFDS dataset (`imagine-tf dataset build`).

The builder is `imagine_tf.data.playground_trajectories.Builder` (also buildable with
``tfds build datasets/playground_trajectories``). TFDS writes into a temporary directory and
renames it when the build is complete, so an interrupted build leaves nothing half-written;
building again starts over, and an existing complete build is reused.
"""

from __future__ import annotations

import dataclasses
import pathlib

DATASET_NAME = "playground_trajectories"
VERSION = "1.0.0"


def dataset_dir(data_dir: str | pathlib.Path, config: str) -> pathlib.Path:
    """Where TFDS puts a prepared config: <data_dir>/playground_trajectories/<config>/1.0.0."""
    return pathlib.Path(data_dir).expanduser() / DATASET_NAME / config / VERSION


def build_dataset(
    config: str,
    data_dir: str | pathlib.Path,
    num_episodes: int | None = None,
    beam_pipeline_options: str | None = None,
):
    """Prepares a config (or a resized copy named <config>_<n>); returns (builder, directory).

    `beam_pipeline_options` ("runner=DirectRunner,direct_num_workers=2", the syntax of `tfds
    build --beam_pipeline_options`) generates the examples on an Apache Beam pipeline.
    """
    import tensorflow_datasets as tfds

    from imagine_tf.data.playground_trajectories import Builder

    configs = {c.name: c for c in Builder.BUILDER_CONFIGS}
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
    download_config = tfds.download.DownloadConfig(try_download_gcs=False)
    if beam_pipeline_options:
        beam = tfds.core.lazy_imports.apache_beam
        flags = [f"--{option}" for option in beam_pipeline_options.split(",")]
        download_config.beam_options = beam.options.pipeline_options.PipelineOptions(flags=flags)
    builder = Builder(config=chosen, data_dir=str(pathlib.Path(data_dir).expanduser()))
    builder.download_and_prepare(download_config=download_config)
    return builder, dataset_dir(data_dir, chosen.name)
