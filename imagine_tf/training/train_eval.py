"""The IMAGINE co-training recipe: config -> builder -> learner + actor(s) -> epochs -> report.

    imagine-tf train --gin-file configs/agent/quickstart.gin --root-dir runs/quickstart
    imagine-tf train --gin-file configs/agent/quickstart.gin --root-dir runs/q2 --actors 2

A run is a `TrainConfig` (gin), a `RunBuilder` that makes its parts, one `Learner` and its
checkpoint, and actors that play episodes: by default one `EpisodeActor` in this process,
taking turns with the learner as the reference's synchronous loop does (collect a cycle,
observe, update); with ``actors = K`` a replay server and K actor processes feed the learner
through Reverb (`imagine_tf.training.distributed_run`). See `imagine_tf.training.loop` for the
epoch and `Learner` for what an update is.
"""

from __future__ import annotations

import pathlib
import sys
from typing import Sequence

import gin

from imagine_tf.networks.precision import AUTO
from imagine_tf.provenance import record_start
from imagine_tf.runs import layout as run_layout
from imagine_tf.agent.acting import EpisodeActor
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig, check_agent_bindings
from imagine_tf.training.distributed_run import run_remote_learner, run_with_actor_processes
from imagine_tf.agent.learning import Learner
from imagine_tf.runs.checkpoint import LearnerCheckpoint, check_run_config, write_run_config
from imagine_tf.training.loop import EpisodeSource, run_epochs
from imagine_tf.runs.fork import fork_run, fork_source
from imagine_tf.runs.lock import RunLock
from imagine_tf.runs.precision import bind_run_precision, resolve_run_precision
from imagine_tf.analysis.figures import plot_learning_curve, render_agent
from imagine_tf.analysis.run_evaluation import evaluate_learner

DEMO_GOALS = ("Grasp any animal", "Go left", "Grow any plant", "Grasp red furniture")


def make_learner(config: TrainConfig, root_dir) -> tuple[Learner, LearnerCheckpoint]:
    """The learner of a run directory, restored from its last checkpoint if it has one.

    Raises `RunConfigMismatch` if the directory holds a run with another configuration.
    """
    check_run_config(root_dir, config)
    learner = RunBuilder(config).make_learner()
    checkpoint = LearnerCheckpoint(learner, root_dir)
    checkpoint.restore()
    return learner, checkpoint


def in_process_actor(learner: Learner) -> EpisodeSource:
    """An `EpisodeActor` in this process, acting with the learner's own actor network."""
    actor = EpisodeActor(learner.builder, learner.ddpg.actor_network)
    seen = [-1]

    def next_batch():
        train_step = int(learner.ddpg.train_step_counter.numpy())
        if seen[0] != learner.goals_version:  # new goals or embeddings: refresh the cache
            actor.set_goals(learner.goal_view(), train_step)
            seen[0] = learner.goals_version
        actor.policy_step = train_step  # the weights are the learner's own: always current
        actor.timings = dict.fromkeys(actor.timings, 0.0)
        batch = actor.collect()
        return batch, dict(actor.timings)

    return next_batch


def train(
    config: TrainConfig,
    root_dir,
    num_epochs: int,
    progress: bool = True,
    run_gin: str | None = None,
    actors: int = 0,
    port: int | None = None,
    replay_server: str | None = None,
    retry_seconds: float = 60.0,
    remote_evaluation: bool | None = None,
) -> tuple[Learner, list[dict]]:
    """Trains (or resumes) ``config`` in ``root_dir`` until ``num_epochs``: the learner and this
    session's records. ``run_gin``: the gin text to keep as ``config.gin``; ``actors``,
    ``port``, ``replay_server``, ``retry_seconds``, ``remote_evaluation``: as `train_eval`'s."""
    config = resolve_run_precision(config, root_dir)  # "auto": the run's, else this machine's
    with RunLock(root_dir):
        learner, checkpoint = make_learner(config, root_dir)
        write_run_config(root_dir, config, run_gin)
        record_start(root_dir, " ".join(sys.argv))
        if replay_server:
            records = run_remote_learner(
                learner,
                checkpoint,
                replay_server,
                num_epochs,
                progress,
                retry_seconds,
                remote_evaluation=bool(remote_evaluation),
            )
        elif actors:
            records = run_with_actor_processes(
                learner,
                checkpoint,
                num_epochs,
                actors,
                port,
                progress,
                remote_evaluation=remote_evaluation is not False,
            )
        else:
            records = run_epochs(
                learner, checkpoint, in_process_actor(learner), num_epochs, progress
            )
    return learner, records


def _checked_config(root: pathlib.Path, fork_from: str | None) -> TrainConfig:
    """The gin-bound `TrainConfig`, its agent bindings checked and an "auto" compute dtype
    resolved (and bound, so that the run's config.gin and operative config name it)."""
    check_agent_bindings()
    config = TrainConfig()
    if config.compute_dtype == AUTO:  # the run's config.gin and operative config name the dtype
        bind_run_precision(resolve_run_precision(config, root, fork_from))
        config = TrainConfig()
    return config


@gin.configurable
def train_eval(
    root_dir: str,
    num_epochs: int = 167,
    progress: bool = True,
    demo_goals: Sequence[str] = DEMO_GOALS,
    fork_from: str | None = None,
    actors: int = 0,
    port: int | None = None,
    replay_server: str | None = None,
    retry_seconds: float = 60.0,
    remote_evaluation: bool | None = None,
    eval_repetitions: int | None = None,
) -> list[dict]:
    """Trains (or resumes) a run with the gin-bound `TrainConfig`; returns this session's records.

    Args:
      root_dir: the run directory (`run_layout`).
      num_epochs: the epoch to train until.
      progress: show a progress bar.
      demo_goals: goals of ``agent.gif``, the noise-free policy at the end (none: no
        ``agent.gif``, e.g. ``train_eval.demo_goals = []`` for the cells of a large grid).
      fork_from: a run whose last checkpoint a new ``root_dir`` starts from (`fork_run`); a
        ``root_dir`` that is already that fork just resumes.
      actors: 0: one process; K ≥ 1: a replay server and K actor processes on this machine.
      port: the replay server's port with ``actors`` (default: a free one).
      replay_server: ``HOST:PORT`` of a replay server started apart (``imagine-tf
        replay-server``): the learner of actors started anywhere.
      retry_seconds: how long a replay server that does not answer is retried.
      remote_evaluation: whether an ``imagine-tf evaluator`` evaluates each epoch instead of
        this process; None: yes with ``actors`` (they start one), no with ``replay_server``
        (an evaluator of that server must be started apart).
      eval_repetitions: R: once trained, the run is evaluated as `imagine-tf eval
        --repetitions R` evaluates it (`evaluate_learner`: eval.json), with this learner.

    ``TrainConfig.compute_dtype = "auto"`` is resolved (`run_precision`) before anything is
    written: the run records and keeps the resolved precision.

    Raises `RunDirectoryBusy` if another process trains into ``root_dir``,
    `RunConfigMismatch` if it holds a run with another configuration, and ValueError for a
    gin binding of an agent parameter that `TrainConfig` sets (`check_agent_bindings`).
    """
    root = pathlib.Path(root_dir)
    config = _checked_config(root, fork_from)
    if fork_from is not None and fork_source(root, fork_from) is None:
        fork_run(fork_from, root, config)
    learner, records = train(
        config,
        root,
        num_epochs,
        progress,
        gin.config_str(),
        actors,
        port,
        replay_server,
        retry_seconds,
        remote_evaluation,
    )
    _finish(learner, root, demo_goals, eval_repetitions)
    return records


def _finish(learner, root: pathlib.Path, demo_goals, eval_repetitions: int | None) -> None:
    """What a trained run leaves beside its checkpoint: the operative gin config, the learning
    curve, ``agent.gif`` (with ``demo_goals``) and, with ``eval_repetitions``, its evaluation."""
    (root / run_layout.OPERATIVE_GIN).write_text(gin.operative_config_str())
    if learner.logs:
        plot_learning_curve(learner.logs, root / run_layout.LEARNING_CURVE)
        if demo_goals:
            episodes, achieved = learner.evaluator.play(list(demo_goals))
            gif = str(root / run_layout.AGENT_GIF)
            render_agent(episodes.states, list(demo_goals), achieved, gif)
    if eval_repetitions:
        evaluate_learner(learner, root, eval_repetitions)
