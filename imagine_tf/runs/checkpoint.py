"""A learner's checkpoint: networks, optimizers, goals, reward memory, replay and logs.

``checkpoint/`` holds ``tf`` (the TF object graph: DDPG's networks and optimizers, the reward network and its optimizer,
epoch, the relabeller's generator; the goal embeddings are recomputed from the encoder) and ``state.npz`` (known goals, discovered
and imagined, the goal imagination's state, reward memory, the replay's counters and RNG, the
epoch records). The replay's episodes go to
``replay/`` first, only the new ones (`ReplayCheckpoint`). A save never changes a landed
checkpoint in place: it writes ``checkpoint.tmp``, renames the landed one to
``checkpoint.old``, renames the new one in, then deletes the old (`snapshot_checkpoint` relies
on it). With actor processes, episodes still in the replay server's queue when the learner
stops are not in the checkpoint: a resumed learner takes what the actors play next, and its
episode counter counts only the episodes it stored (docs/distributed.md).

A **networks-only** checkpoint (`write_networks_checkpoint`, the form of the repository's
pretrained models) keeps what acting, evaluating and exporting read: the actor, the critic,
the reward network (its OR network included), the epoch and train step, the known and imagined
goals and the epoch records. It has no optimizer state, target networks, reward memory or
replay, so it cannot be trained further; `restore_networks` reads either kind.

The checkpoint composes the parts of an `imagine_tf.agent.learning.Learner` (each part's
``state_dict`` / ``load_state_dict``, or its TF variables) through their public attributes;
it imports nothing of `imagine_tf.agent`.
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import tensorflow as tf

from imagine_tf.atomic_files import write_text_atomically
from imagine_tf.runs import layout as run_layout
from imagine_tf.runs.layout import RunLayout, decode_logs
from imagine_tf.runs.lock import RunConfigMismatch
from imagine_tf.runs.replay_checkpoint import ReplayCheckpoint
from imagine_tf.runs.rng_state import decode_rng_state, encode_rng_state


class LearnerCheckpoint:
    """Saves and restores a `Learner` in its run directory.

    Args:
      learner: the `imagine_tf.agent.learning.Learner`.
      root_dir: the run directory.
    """

    def __init__(self, learner, root_dir: str | os.PathLike):
        self.learner, self.layout = learner, RunLayout(root_dir)
        self.checkpoint = tf.train.Checkpoint(
            agent=_ddpg_checkpoint(learner.ddpg, training=True),
            reward_network=learner.reward_network,
            reward_optimizer=learner.reward_learner.optimizer,  # built (`RewardTrainer`)
            epoch=learner.epoch,
            relabeler_generator=learner.relabeler.generator,
        )
        self.replay_checkpoint = ReplayCheckpoint(self.layout.replay)

    def save(self) -> None:
        """Writes the TF and numpy state atomically into ``checkpoint/`` (one kept)."""
        root = self.layout.root
        final, temporary = root / run_layout.CHECKPOINT, root / run_layout.CHECKPOINT_NEW
        previous = root / run_layout.CHECKPOINT_OLD
        shutil.rmtree(temporary, ignore_errors=True)
        temporary.mkdir(parents=True)
        self.replay_checkpoint.save(self.learner.replay)  # only the episodes added since
        self.checkpoint.write(str(temporary / run_layout.CHECKPOINT_TF_PREFIX))
        np.savez(temporary / run_layout.CHECKPOINT_STATE, **self._numpy_state())
        shutil.rmtree(previous, ignore_errors=True)
        if final.exists():
            os.replace(final, previous)
        os.replace(temporary, final)
        shutil.rmtree(previous, ignore_errors=True)
        self.replay_checkpoint.prune(self.learner.replay.capacity)

    def _numpy_state(self) -> dict:
        learner = self.learner
        state = {
            f"replay_{k}": v for k, v in learner.replay.state_dict(include_episodes=False).items()
        }
        state.update({f"goals_{k}": v for k, v in learner.goals.state_dict().items()})
        state.update({f"memory_{k}": v for k, v in learner.memory.state_dict().items()})
        state["logs"] = np.frombuffer(json.dumps(learner.logs).encode(), np.uint8)
        state["imagination"] = np.frombuffer(
            json.dumps(learner.imagination.state_dict()).encode(), np.uint8
        )
        state["learner_rng"] = encode_rng_state(learner.rng)
        state[OPTIMIZER_FORMAT_KEY] = np.array(OPTIMIZER_FORMAT)
        return state

    def restore(self) -> bool:
        """Restores the last checkpoint, replay included, to go on training; False if none.

        Raises `NotResumable` for a networks-only checkpoint (it has no optimizer state).
        """
        learner = self.learner
        directory = self.layout.landed_checkpoint()
        if directory is None:  # episode files of a first save that never landed go
            self.replay_checkpoint.restore(learner.replay, 0)
            return False
        state = _numpy_state(directory)
        if NETWORKS_ONLY in state:
            raise NotResumable(
                f"{self.layout.root} holds a networks-only checkpoint (no optimizer state, "
                "reward memory or replay): it can be evaluated, played, exported and served, "
                "not trained further. Train a new run into another --root-dir."
            )
        if str(state.get(OPTIMIZER_FORMAT_KEY, "keras")) != OPTIMIZER_FORMAT:
            raise NotResumable(
                f"{self.layout.root} was saved by an earlier imagine-tf, whose optimizers were "
                f"Keras's Adam; this version keeps Adam's state in its own form ({OPTIMIZER_FORMAT}, "
                "networks/adam.py) and cannot go on training it. Its networks still evaluate, "
                "play, export and serve (imagine-tf eval / export); to train, start a new run "
                "or fork this one's networks into another --root-dir with the earlier version."
            )
        prefix = str(directory / run_layout.CHECKPOINT_TF_PREFIX)
        self.checkpoint.read(prefix).assert_existing_objects_matched()
        replay_state = _part(state, "replay_")
        if "observations" not in replay_state:  # in replay/ (else: an older run's npz)
            self.replay_checkpoint.restore(learner.replay, int(replay_state["episodes_added"]))
        learner.replay.load_state_dict(replay_state)
        learner.memory.load_state_dict(_part(state, "memory_"))
        if "learner_rng" in state:  # (checkpoints from before imagination have none)
            decode_rng_state(learner.rng, state["learner_rng"])
        self._restore_goals(state)
        return True

    def restore_networks(self) -> bool:
        """Restores what acting, evaluation and export read (either kind of checkpoint): the
        networks, the epoch and train step, the goals, imagination and epoch records. The
        replay and the reward memory stay empty, the optimizers as built. False if no
        checkpoint."""
        directory = self.layout.landed_checkpoint()
        if directory is None:
            return False
        status = networks_checkpoint(self.learner).read(
            str(directory / run_layout.CHECKPOINT_TF_PREFIX)
        )
        status.expect_partial().assert_existing_objects_matched()
        self._restore_goals(_numpy_state(directory))
        return True

    def _restore_goals(self, state: dict) -> None:
        """Known goals, imagination and epoch records; the goal embeddings recomputed."""
        learner = self.learner
        learner.goals.load_state_dict(_part(state, "goals_"))
        learner.logs = decode_logs(state["logs"])
        if "imagination" in state:  # (checkpoints from before imagination have none)
            learner.imagination.load_state_dict(json.loads(state["imagination"].tobytes()))
        learner.embed_goals()
        learner.ddpg.set_goal_encoder(learner.reward_network.encoder)


class NotResumable(ValueError):
    """A networks-only checkpoint was asked to go on training."""


# The key of a networks-only checkpoint's state.npz that says what it is.
NETWORKS_ONLY = "networks_only"
# The key of a full checkpoint's state.npz naming the form of its optimizers' state, and the
# form this version writes (checkpoints without the key hold Keras's Adam).
OPTIMIZER_FORMAT_KEY = "optimizer_format"
OPTIMIZER_FORMAT = "imagine_tf.networks.adam/1"


def _numpy_state(directory) -> dict:
    with np.load(directory / run_layout.CHECKPOINT_STATE, allow_pickle=True) as data:
        return dict(data)


def _part(state: dict, prefix: str) -> dict:
    return {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}


def networks_checkpoint(learner) -> tf.train.Checkpoint:
    """The learner's networks under the names its full checkpoint gives them (so it reads
    either kind): actor, critic, train step, reward network, epoch."""
    return tf.train.Checkpoint(
        agent=_ddpg_checkpoint(learner.ddpg, training=False),
        reward_network=learner.reward_network,
        epoch=learner.epoch,
    )


def _ddpg_checkpoint(ddpg, training: bool) -> tf.train.Checkpoint:
    """DDPG's part, under the names earlier checkpoints (TF-Agents' `DdpgAgent`) gave the
    networks: actor, critic and train step; with ``training``, the targets and the two Adams."""
    parts = {
        "_actor_network": ddpg.actor_network,
        "_critic_network": ddpg.critic_network,
        "_train_step_counter": ddpg.train_step_counter,
    }
    if training:
        parts.update(
            _target_actor_network=ddpg.target_actor_network,
            _target_critic_network=ddpg.target_critic_network,
            actor_adam=ddpg.actor_optimizer,
            critic_adam=ddpg.critic_optimizer,
        )
    return tf.train.Checkpoint(**parts)


def write_networks_checkpoint(learner, root_dir: str | os.PathLike) -> None:
    """Writes ``<root_dir>/checkpoint/`` with the learner's networks only (see the module
    docstring); the goals are stored as text, so that reading needs no pickle."""
    final = RunLayout(root_dir) / run_layout.CHECKPOINT
    temporary = RunLayout(root_dir) / run_layout.CHECKPOINT_NEW
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    networks_checkpoint(learner).write(str(temporary / run_layout.CHECKPOINT_TF_PREFIX))
    goals = learner.goals.state_dict()
    state = {
        NETWORKS_ONLY: np.array(True),
        "goals_sentences": np.array([str(s) for s in goals["sentences"]], dtype=str),
        "goals_imagined": goals["imagined"],
        "logs": np.frombuffer(json.dumps(learner.logs).encode(), np.uint8),
        "imagination": np.frombuffer(
            json.dumps(learner.imagination.state_dict()).encode(), np.uint8
        ),
    }
    np.savez(temporary / run_layout.CHECKPOINT_STATE, **state)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(temporary, final)


def check_run_config(root_dir: str | os.PathLike, config) -> None:
    """A resumed run keeps its configuration (a `TrainConfig`): raises `RunConfigMismatch`
    listing what differs from its ``config.json`` (fields it lacks, added later, are not
    compared: `TrainConfig.differences`)."""
    layout = RunLayout(root_dir)
    if not layout.config_json.exists():
        return
    differences = config.differences(json.loads(layout.config_json.read_text()))
    if differences:
        listed = ", ".join(f"{k}: run {a!r}, given {b!r}" for k, (a, b) in differences.items())
        how = (
            f"with no gin flags (`imagine-tf train` then reads its {run_layout.RUN_GIN}) or "
            if layout.run_gin.exists()
            else ""
        )
        raise RunConfigMismatch(
            f"{layout.root} is a run with another configuration ({listed}). Resume it "
            f"{how}with the same gin files and bindings (its config.json), or train into a "
            "new --root-dir."
        )


def write_run_config(root_dir: str | os.PathLike, config, run_gin: str | None) -> None:
    """``config.json`` (of a `TrainConfig`) and (if given) the gin text the run was started with."""
    layout = RunLayout(root_dir)
    write_text_atomically(layout.config_json, config.to_json())
    if run_gin is not None:
        write_text_atomically(layout.run_gin, run_gin)
