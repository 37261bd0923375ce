"""The examples of a `playground_trajectories` split: a Python generator or a Beam transform.

Both yield the same (episode index, RLDS episode) pairs. Episodes are generated in batches
aligned on multiples of `batch_size`, and batch k is seeded by (seed, k)
(`imagine_tf.data.episodes`), so an episode does not depend on which worker generates it.
The split of an episode follows its index (`is_test_episode`).
"""

from __future__ import annotations

from typing import Iterator

import tensorflow_datasets as tfds

from imagine_tf.data.episodes import EpisodeSpec, generate_episodes, is_test_episode


def split_sizes(num_episodes: int) -> dict[str, int]:
    """The episodes each split of a build of ``num_episodes`` holds."""
    test = sum(map(is_test_episode, range(num_episodes)))  # the split rule in one place
    return {"train": num_episodes - test, "test": test}


def split_examples(
    spec: EpisodeSpec, num_episodes: int, batch_size: int, test: bool
) -> Iterator[tuple[int, dict]]:
    """Yields the (index, episode) pairs of one split, for episodes [0, num_episodes)."""
    return _range_examples(spec, 0, num_episodes, batch_size, test)


def batch_examples(
    batch_index: int, spec: EpisodeSpec, num_episodes: int, batch_size: int, test: bool
) -> Iterator[tuple[int, dict]]:
    """The (index, episode) pairs of one split within batch `batch_index`: Beam's unit of work."""
    start = batch_index * batch_size
    return _range_examples(spec, start, min(start + batch_size, num_episodes), batch_size, test)


def beam_split_examples(spec: EpisodeSpec, num_episodes: int, batch_size: int, test: bool):
    """A `beam.PTransform` producing `split_examples(...)`, one batch of episodes per element.

    Apache Beam is imported only here, when a build runs on a Beam pipeline.
    """
    beam = tfds.core.lazy_imports.apache_beam
    num_batches = -(-num_episodes // batch_size)
    return beam.Create(range(num_batches)) | beam.FlatMap(
        batch_examples, spec=spec, num_episodes=num_episodes, batch_size=batch_size, test=test
    )


def _range_examples(spec, start, stop, batch_size, test):
    for index, episode in generate_episodes(spec, start, stop, batch_size):
        if is_test_episode(index) == test:
            yield index, episode
