"""playground_trajectories: Playground episodes in the RLDS format, for reward learning.

Episodes of the batched Playground (3 objects, 50 steps) towards goals of the grammar, produced by
`imagine_tf.data.episodes` (scripted expert with action noise, smooth random actions, or a
mixture). Every episode is seeded by its index, so a build is reproducible. Split: every 10th
episode (index % 10 == 9) is `test`, the rest `train` (Colas et al. 2020, IMAGINE; flowersteam/Imagine).
"""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import tensorflow_datasets as tfds
from tensorflow_datasets.rlds import rlds_base

from imagine_tf.data.episodes import EpisodeSpec
from imagine_tf.data.playground_trajectories.split_examples import (
    beam_split_examples,
    split_examples,
    split_sizes,
)
from imagine_tf.data.playground_trajectories.stacked_steps import StackedSteps
from imagine_tf.env.observation import observation_dim


@dataclasses.dataclass
class PlaygroundConfig(rlds_base.DatasetConfig):
    """An RLDS config plus what to generate.

    Attributes:
      num_episodes: episodes in the build (train + test).
      behaviour: "mixture", "scripted" or "random".
      relational: also pursue the 160 two-object goals.
      num_objects: N.
      seed: generation seed.
    """

    num_episodes: int = 50_000
    behaviour: str = "mixture"
    relational: bool = True
    num_objects: int = 3
    seed: int = 0

    def spec(self) -> EpisodeSpec:
        return EpisodeSpec(
            behaviour=self.behaviour,
            relational=self.relational,
            num_objects=self.num_objects,
            seed=self.seed,
        )


def _config(name: str, description: str, **kwargs) -> PlaygroundConfig:
    num_objects = kwargs.get("num_objects", 3)
    return PlaygroundConfig(
        name=name,
        description=description,
        overall_description=__doc__,
        homepage="https://arxiv.org/abs/2003.09443",
        observation_info={
            "state": tfds.features.Tensor(
                shape=(observation_dim(num_objects),),
                dtype=np.float32,
                encoding="bytes",  # raw float32 bytes: far faster to write than a float list
                doc="s_t = [o_t, o_t - o_0]",
            )
        },
        action_info=tfds.features.Tensor(shape=(3,), dtype=np.float32, doc="dx, dy, gripper"),
        reward_info=tfds.features.Scalar(dtype=np.float32, doc="always 0: the world has no reward"),
        discount_info=tfds.features.Scalar(dtype=np.float32),
        episode_metadata_info={
            "goal": tfds.features.Text(doc="the target goal of the episode"),
            "goal_id": tfds.features.Scalar(dtype=np.int32, doc="index in the config's goal list"),
            "behaviour": tfds.features.Text(doc="scripted or random"),
            "descriptions": tfds.features.Sequence(
                tfds.features.Text(), doc="the social partner's (training) descriptions of s_T"
            ),
        },
        **kwargs,
    )


class IncompleteBuild(RuntimeError):
    """A build whose splits hold fewer episodes than its config generates."""


class Builder(tfds.core.GeneratorBasedBuilder):
    """The `playground_trajectories` builder (configs `scripted_mixture`, `random`, `tiny`).

    TFDS registers the name when this class is defined: importing
    `imagine_tf.data.playground_trajectories` makes `tfds.load("playground_trajectories/...")`
    work. The name comes from the package (TFDS's rule for a class named `Builder`).
    """

    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release: RLDS episodes, configs mixture/random/tiny."}
    BUILDER_CONFIGS = [
        _config(
            "scripted_mixture",
            "50,000 episodes, half scripted expert with action noise U(0, 0.6), half smooth "
            "random actions; targets cycle through the 255 + 160 goals.",
        ),
        _config(
            "random",
            "50,000 episodes of smooth RBF random actions (the paper's first attempt).",
            behaviour="random",
        ),
        _config("tiny", "40 mixture episodes, for tests.", num_episodes=40),
    ]
    DEFAULT_CONFIG_NAME = "scripted_mixture"
    _use_beam = False  # set per build by `download_and_prepare`

    def _info(self) -> tfds.core.DatasetInfo:
        """`rlds_base.build_info`'s schema, with `StackedSteps` as the steps feature."""
        config = self.builder_config
        steps = {
            "is_first": np.bool_,
            "is_last": np.bool_,
            "is_terminal": np.bool_,
            "observation": config.observation_info,
            "action": config.action_info,
            "reward": config.reward_info,
            "discount": config.discount_info,
        }
        return tfds.core.DatasetInfo(
            builder=self,
            description=config.overall_description,
            features=tfds.features.FeaturesDict(
                {"steps": StackedSteps(steps), **config.episode_metadata_info}
            ),
            homepage=config.homepage,
            citation=config.citation,
        )

    def download_and_prepare(self, **kwargs) -> None:
        """`tfds.core.DatasetBuilder.download_and_prepare`; generates through Beam when asked.

        A `download_config` with a `beam_runner` or `beam_options` (what `tfds build
        --beam_pipeline_options=...` passes) makes every split a Beam transform; otherwise the
        splits are Python generators. Both paths write the same examples.
        """
        download_config = kwargs.get("download_config")
        self._use_beam = download_config is not None and (
            download_config.beam_runner is not None or download_config.beam_options is not None
        )
        super().download_and_prepare(**kwargs)
        self._check_split_sizes()

    def _check_split_sizes(self) -> None:
        """Raises `IncompleteBuild` (and removes the build, which TFDS would otherwise reuse)
        if a split holds fewer episodes than the config generates.

        A runner that drops elements would otherwise go unnoticed: Beam's DirectRunner with
        two worker processes wrote 35,411 of the 45,000 training episodes of a 50,000-episode
        build on a 2-core, 24 GB machine, and reported success
        (docs/results/dataset_beam_bench.json).
        """
        written = {name: split.num_examples for name, split in self.info.splits.items()}
        expected = split_sizes(self.builder_config.num_episodes)
        if written == expected:
            return
        directory = str(self.data_path)
        shutil.rmtree(directory, ignore_errors=True)
        how = "on Beam" if self._use_beam else "without Beam"
        raise IncompleteBuild(
            f"The build of playground_trajectories/{self.builder_config.name} {how} wrote "
            f"{written} episodes per split, expected {expected}; it was removed from "
            f"{directory}. Build again; if it happens again on Beam's DirectRunner (a testing "
            "runner that holds the whole dataset in memory), build without "
            "--beam_pipeline_options or on a distributed runner (Dataflow, Flink, Spark)."
        )

    def _split_generators(self, dl_manager: tfds.download.DownloadManager):
        del dl_manager  # everything is generated
        return {"train": self._generate_examples(False), "test": self._generate_examples(True)}

    def _generate_examples(self, test: bool):
        """(episode index, episode) pairs of a split: a generator, or a Beam transform."""
        config = self.builder_config
        batch_size = min(500, config.num_episodes)  # fixed per config: episodes are reproducible
        examples = beam_split_examples if self._use_beam else split_examples
        return examples(config.spec(), config.num_episodes, batch_size, test)
