"""An actor process: plays episodes for a learner it reaches through a replay server.

    imagine-tf actor --replay-server HOST:PORT [--actor-id I] [--gin-file ...]

The actor takes the run's configuration from the server (the learner put it there), so an
actor on another machine needs no files; given gin files, it checks they make the learner's
configuration and refuses to start otherwise. Then, cycle after cycle: pull the learner's
latest `PolicySnapshot` (actor weights, discovered goals and their embeddings), play one
`EpisodeBatch` with the `EpisodeActor`, write it into the episode queue — which waits while the
queue is full, so actors never run further ahead of the learner than the queue holds. Actors may
join and leave at any time. The actor stops when the learner says it has finished, on SIGTERM /
SIGINT, or with `ReplayServerUnavailable` when the server stops answering.
"""

from __future__ import annotations

import dataclasses
import json
import time

import numpy as np

from imagine_tf.distributed.episode_queue import EpisodeWriter
from imagine_tf.distributed.stop_signal import StopSignal
from imagine_tf.distributed.variable_container import VariableContainer
from imagine_tf.networks.precision import AUTO
from imagine_tf.agent.acting import EpisodeActor
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig, config_differences
from imagine_tf.agent.episode_batch import PolicySnapshot
from imagine_tf.runs.lock import RunConfigMismatch

POLL_SECONDS = 0.5


class ActorStats:
    """What an actor did: batches written, episodes, seconds spent playing."""

    def __init__(self):
        self.batches, self.episodes, self.playing_seconds = 0, 0, 0.0


def _wait_for(fetch, stop: StopSignal, what: str, log) -> object | None:
    """Polls ``fetch()`` until it returns something or ``stop`` is set (the server answering
    all along: a dead server raises `ReplayServerUnavailable` from ``fetch``)."""
    said = False
    while not stop.is_set():
        value = fetch()
        if value is not None:
            return value
        if not said:
            log(f"waiting for {what}")
            said = True
        stop.wait(POLL_SECONDS)
    return None


def learner_config(
    container: VariableContainer, given: TrainConfig | None, stop: StopSignal, log=print
) -> TrainConfig | None:
    """The learner's `TrainConfig` from the server; refuses one other than ``given``.

    Raises:
      RunConfigMismatch: ``given`` differs from the learner's configuration (what differs).
    """
    text = _wait_for(
        lambda: container.pull_run_config(timeout_s=POLL_SECONDS),
        stop,
        f"a learner to publish its configuration at {container.address}",
        log,
    )
    if text is None:
        return None
    config = TrainConfig.from_json(text)
    if given is not None:
        if given.compute_dtype == AUTO:  # "auto" takes the run's recorded precision
            given = dataclasses.replace(given, compute_dtype=config.compute_dtype)
        differences = config_differences(json.loads(text), given)
        if differences:
            listed = ", ".join(
                f"{key}: learner {a!r}, actor {b!r}" for key, (a, b) in differences.items()
            )
            raise RunConfigMismatch(
                f"this actor's configuration differs from the learner's at "
                f"{container.address} ({listed}). Start the actor with the learner's gin files, "
                "or with none: it then takes the learner's configuration."
            )
    return config


def built_actor_network(builder: RunBuilder):
    """The run's `ActorNetwork`, built (its weights then come from the learner's snapshots)."""
    network = builder.make_actor_network()
    network.encoder(np.zeros([1, builder.vocabulary.max_length], np.int64))
    return network


def run_actor(
    address: str,
    actor_id: int = 0,
    config: TrainConfig | None = None,
    stop: StopSignal | None = None,
    max_batches: int | None = None,
    retry_seconds: float = 60.0,
    log=print,
) -> ActorStats:
    """Plays for the learner at ``address`` until it finishes, ``stop`` is set or
    ``max_batches`` batches are written; a server that does not answer is retried for
    ``retry_seconds``.

    Raises:
      ReplayServerUnavailable: the server does not answer (wrong address, stopped, killed).
      RunConfigMismatch: ``config`` is not the learner's.
    """
    stop = stop or StopSignal()
    stats = ActorStats()
    container = VariableContainer(address, deadline_s=retry_seconds)
    writer = EpisodeWriter(address, deadline_s=retry_seconds)
    try:
        config = learner_config(container, config, stop, log)
        if config is None:
            return stats
        builder = RunBuilder(config)
        network = built_actor_network(builder)
        actor = EpisodeActor(builder, network, actor_id)
        log(f"playing for the learner at {address}")
        seen = (None, None)
        while not stop.is_set() and (max_batches is None or stats.batches < max_batches):
            arrays = _wait_for(
                lambda: container.pull(timeout_s=POLL_SECONDS), stop, "the learner's policy", log
            )
            if arrays is None:
                break
            snapshot = PolicySnapshot.from_arrays(arrays)
            if snapshot.finished:
                log("the learner has finished")
                break
            if seen != (snapshot.train_step, snapshot.goals_version):
                actor.set_weights(snapshot.weights)
                actor.set_goals(snapshot.goals, snapshot.train_step)
                seen = (snapshot.train_step, snapshot.goals_version)
            start = time.perf_counter()
            batch = actor.collect()
            stats.playing_seconds += time.perf_counter() - start
            if not writer.write(batch.to_arrays(), should_stop=stop.is_set):
                break  # stopped while the queue was full
            stats.batches += 1
            stats.episodes += len(batch)
    finally:
        writer.close()
        container.close()
    return stats
