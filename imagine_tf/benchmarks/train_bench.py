"""`imagine-tf bench train`: speed of the co-training loop, phase by phase.

Measured on a real `ImagineTrainer` (MA policy, MA learned reward, N = 3):

* **updates/s**: the fused update (sample 256 transitions from the replay, relabel them over 50
  candidate goals with the learned reward in one scan, one DDPG step). `imagine-tf bench train
  --threads 1` limits TensorFlow to one thread: the "one core" figure of the reference;
* **collection steps/s**: exploring episodes of 12 batched scenes with the actor;
* **one epoch** of the default size (50 cycles × 12 episodes, 50 updates per cycle) split into
  collection, partner and bookkeeping, updates, reward retraining and evaluation — the epoch
  after a first warm-up epoch (which holds the tracing and the first reward update).

The reference (REFERENCE_SPEED.md, this machine): 12 updates/s per core (55 ms relabelling +
28 ms actor / critic), 2,360 collection steps/s per core, ≈ 1,500 core-seconds per epoch,
reward retraining 45–79 s.
"""

from __future__ import annotations

import datetime
import os
import platform
import tempfile
import time

import tensorflow as tf

REFERENCE = {"updates_per_s_one_core": 12, "collection_steps_per_s_one_core": 2_360,
             "epoch_core_seconds": 1_500, "reward_retraining_seconds": [45, 79]}  # fmt: skip
TARGETS = {"updates_per_s_one_core": 40, "collection_steps_per_s": 50_000, "epoch_seconds": 60,
           "reward_retraining_seconds": 20}  # fmt: skip


def _updates_per_second(trainer, count: int) -> float:
    config = trainer.config
    num_goals = tf.constant(len(trainer.goals))

    def one():
        batch = trainer.replay.sample(config.batch_size)
        return trainer._update(batch.states, batch.next_states, batch.actions, batch.goal_ids,
                               batch.goal_embeddings, num_goals)[0]  # fmt: skip

    for _ in range(3):
        one().numpy()
    start = time.perf_counter()
    for _ in range(count):
        loss = one()
    loss.numpy()
    return count / (time.perf_counter() - start)


def run_train_benchmark(quick: bool = False) -> dict:
    """Measures the loop; ``quick`` shrinks the epoch (for tests)."""
    from imagine_tf.training.train_eval import ImagineTrainer, TrainConfig

    cycles = 5 if quick else 50
    config = TrainConfig(cycles_per_epoch=cycles, reward_max_epochs=2 if quick else 100)
    with tempfile.TemporaryDirectory() as root:
        trainer = ImagineTrainer(config, root)
        warm_up = trainer.train_epoch()  # tracing, first discoveries, first reward update
        epoch = trainer.train_epoch()
        episodes = config.episodes_per_cycle * cycles
        collection_steps = episodes * trainer.env.config.episode_length
        updates_per_s = _updates_per_second(trainer, 20 if quick else 200)
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "tensorflow": tf.__version__,
        },
        "config": {"cycles_per_epoch": cycles, "episodes_per_epoch": episodes,
                   "updates_per_epoch": cycles * config.updates_per_cycle, "batch_size": config.batch_size,
                   "num_candidates": config.num_candidates},  # fmt: skip
        "warm_up_epoch": warm_up,
        "epoch": epoch,
        "epoch_seconds": sum(v for k, v in epoch.items() if k.startswith("seconds_")),
        "collection_steps_per_s": collection_steps / max(epoch["seconds_collection"], 1e-9),
        "updates_per_s_in_epoch": cycles
        * config.updates_per_cycle
        / max(epoch["seconds_updates"], 1e-9),
        "updates_per_s": updates_per_s,
        "threads": tf.config.threading.get_intra_op_parallelism_threads() or os.cpu_count(),
        "reference": REFERENCE,
        "targets": TARGETS,
    }
