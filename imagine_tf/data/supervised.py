"""Supervised reward-learning data from a built `playground_trajectories` dataset.

* **train**: the final state s_T of every training episode, labelled for every goal by the
  oracle (positive iff the goal is true of s_T). Only training goals are ever sampled for
  training.
* **test**: every state s_0..s_T of the held-out episodes (every 10th), labelled for every goal
  (train and test goals): the per-goal F1 is computed there.

Training draws its balanced batches in the graph (`imagine_tf.reward.training`), from the
CSR tables of `grouped_rows`.
"""

from __future__ import annotations

import dataclasses
import functools
import pathlib
from typing import Sequence

import numpy as np

from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_table import GoalTable

GOAL_SETS = ("one_object", "grasp", "all")


def goal_set(name: str) -> tuple[str, ...]:
    """The goals labelled and learned in a study.

    * ``one_object``: the 255 one-object goals (the generalization study, 191 train / 64 test);
    * ``grasp``: the 151 one-object Grasp goals + the 160 two-object goals (the paper's
      two-object study, Table 1: 136 + 158 train, 15 + 2 test);
    * ``all``: the 415 goals.
    """
    one_object, relational = grammar.one_object_goals(), grammar.relational_goals()
    if name == "one_object":
        return one_object
    if name == "grasp":
        return tuple(g for g in one_object if g.startswith("Grasp ")) + relational
    if name == "all":
        return one_object + relational
    raise ValueError(f"goal_set must be one of {GOAL_SETS}, got {name!r}.")


@dataclasses.dataclass
class SupervisedData:
    """States and oracle labels for reward learning.

    Attributes:
      goals: the G goal sentences (labels' columns).
      train_states: float32 [S_train, D]; train_labels: bool [S_train, G].
      test_states: float32 [S_test, D]; test_labels: bool [S_test, G].
      test_episode: int [S_test], which held-out episode each test state comes from.
    """

    goals: tuple[str, ...]
    train_states: np.ndarray
    train_labels: np.ndarray
    test_states: np.ndarray
    test_labels: np.ndarray
    test_episode: np.ndarray

    @functools.cached_property
    def is_test_goal(self) -> np.ndarray:
        """bool [G]: held-out goals."""
        return np.array([grammar.is_test_goal(g) for g in self.goals])

    @functools.cached_property
    def is_relational(self) -> np.ndarray:
        """bool [G]: two-object goals."""
        return np.array([grammar.is_relational(g) for g in self.goals])

    @functools.cached_property
    def generalization_type(self) -> np.ndarray:
        """int [G]: the test type 1–5 of one-object test goals, 0 otherwise."""
        return np.array([grammar.generalization_type(g) or 0 for g in self.goals])


def label_states(states: np.ndarray, goals: Sequence[str], chunk: int = 20_000) -> np.ndarray:
    """Oracle labels bool [S, G] of states [S, D] for goals."""
    table = GoalTable.from_sentences(list(goals))
    return np.concatenate(
        [oracle.achieved_matrix(states[i : i + chunk], table) for i in range(0, len(states), chunk)]
    )


def from_episodes(
    train_episodes: Sequence[np.ndarray], test_episodes: Sequence[np.ndarray], goals: Sequence[str]
) -> SupervisedData:
    """Builds the data from state arrays [T + 1, D] of training and held-out episodes."""
    train_states = np.stack([episode[-1] for episode in train_episodes]).astype(np.float32)
    test_states = np.concatenate(test_episodes).astype(np.float32)
    test_episode = np.repeat(np.arange(len(test_episodes)), [len(e) for e in test_episodes])
    goals = tuple(goals)
    return SupervisedData(
        goals=goals,
        train_states=train_states,
        train_labels=label_states(train_states, goals),
        test_states=test_states,
        test_labels=label_states(test_states, goals),
        test_episode=test_episode,
    )


def generate_supervised_data(
    spec,
    num_episodes: int,
    goals: Sequence[str] | None = None,
    max_test_episodes: int | None = None,
) -> SupervisedData:
    """Supervised data from freshly generated episodes, in memory (no TFDS build).

    Args:
      spec: an `imagine_tf.data.episodes.EpisodeSpec`.
      num_episodes: episodes to generate (every 10th is held out).
      goals: goals to label; default the 255 one-object + 160 two-object goals.
      max_test_episodes: keep at most this many held-out episodes.
    """
    from imagine_tf.data.episodes import generate_episodes, is_test_episode

    train, test = [], []
    for index, episode in generate_episodes(
        spec, 0, num_episodes, batch_size=min(500, num_episodes)
    ):
        (test if is_test_episode(index) else train).append(episode["steps"]["observation"]["state"])
    goals = goals or goal_set("all")
    return from_episodes(train, test[:max_test_episodes], goals)


def load_supervised_data(
    dataset_dir: str | pathlib.Path,
    goals: Sequence[str] | None = None,
    max_train_episodes: int | None = None,
    max_test_episodes: int | None = None,
) -> SupervisedData:
    """Reads a prepared TFDS dataset directory (…/playground_trajectories/<config>/<version>).

    Args:
      dataset_dir: the directory `tfds` wrote (read with `tfds.builder_from_directory`: the
        builder code is not needed).
      goals: goals to label; default the 255 one-object + 160 two-object goals.
      max_train_episodes, max_test_episodes: read at most this many episodes of each split.
    """
    import tensorflow as tf
    import tensorflow_datasets as tfds

    builder = tfds.builder_from_directory(str(dataset_dir))
    goals = goals or goal_set("all")

    state_dim = builder.info.features["steps"]["observation"]["state"].shape[-1]

    def stacked_states(episode):
        # Steps kept as stored (stacked tensors) instead of a nested tf.data.Dataset per
        # episode: about 6x faster. The builder stores the state as raw float32 bytes.
        state = episode["steps"]["observation"]["state"]
        if state.dtype == tf.string:
            state = tf.io.decode_raw(state, tf.float32)
        return tf.reshape(state, [-1, state_dim])

    def episode_states(split: str, limit: int | None) -> list[np.ndarray]:
        dataset = builder.as_dataset(split=split, decoders={"steps": tfds.decode.SkipDecoding()})
        if limit is not None:
            dataset = dataset.take(limit)
        dataset = dataset.map(stacked_states, num_parallel_calls=tf.data.AUTOTUNE)
        return list(dataset.as_numpy_iterator())

    return from_episodes(
        episode_states("train", max_train_episodes),
        episode_states("test", max_test_episodes),
        goals,
    )


@dataclasses.dataclass
class GroupedRows:
    """The row indices where each column of a bool matrix is True, in CSR form."""

    rows: np.ndarray
    start: np.ndarray
    count: np.ndarray


def grouped_rows(matrix: np.ndarray) -> GroupedRows:
    columns, rows = np.nonzero(matrix.T)  # sorted by column
    count = np.bincount(columns, minlength=matrix.shape[1])
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    return GroupedRows(rows=rows, start=start, count=count)
