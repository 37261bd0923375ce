"""`imagine-tf bench train`: speed of the co-training loop, phase by phase.

Measured on a real `Learner` fed by an in-process `EpisodeActor` (MA policy, MA learned
reward, N = 3), the single-process loop of `imagine-tf train`:

* **updates/s**: the fused update (sample 256 transitions from the replay, relabel them over 50
  candidate goals with the learned reward in one scan, one DDPG step). `imagine-tf bench train
  --threads 1` limits TensorFlow to one thread: the "one core" figure of the reference;
* **collection steps/s**: exploring episodes of 12 batched scenes with the actor, in the epoch,
  and apart at 12, 120 and 600 scenes per batch (how fast collection goes when more episodes
  are collected at once: the epoch's 600 in one batch);
* **one epoch** of the default size (50 cycles × 12 episodes, 50 updates per cycle) as
  `imagine-tf train` runs it (`train_epoch`, then the evaluation and checkpoint triggers), split
  into collection, partner and bookkeeping, updates, reward retraining, evaluation (every
  training and test goal once) and checkpoint — the epoch after a first warm-up epoch (which
  holds the tracing and the first reward update). Before it, the discovered goals are filled up
  to 50 (from the partner's goals) so that every update scores K = 50 candidates, as in steady
  state, and the update function is traced. ``epoch_seconds_with_reward_every_2`` adds half the
  warm-up's reward retraining (the reference retrains every second epoch): the full epoch.

The reference figures (`REFERENCE`) are **quoted, not measured by this command**: the authors'
loop (flowersteam/Imagine at 5d44ee1, torch 2.13 CPU, one thread per MPI rank) timed once on a
2-vCPU Intel Xeon VM outside this repository: 12 updates/s per core (55 ms relabelling + 28 ms
actor / critic), 2,360 collection steps/s per core, ≈ 1,500 core-seconds per epoch, reward
retraining 45–79 s. A ratio against them compares two machines.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import platform
import tempfile
import time

import numpy as np
import tensorflow as tf

from imagine_tf.env.config import PlaygroundConfig
from imagine_tf.agent.acting import EpisodeActor
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig
from imagine_tf.agent.learning import Learner
from imagine_tf.reward.config import RewardModelConfig
from imagine_tf.runs.checkpoint import LearnerCheckpoint
from imagine_tf.training.loop import train_epoch
from imagine_tf.training.triggers import CheckpointTrigger, EvaluationTrigger
from imagine_tf.training.train_eval import in_process_actor
from imagine_tf.provenance import machine_description

REFERENCE = {
    "updates_per_s_one_core": 12,
    "collection_steps_per_s_one_core": 2_360,
    "epoch_core_seconds": 1_500,
    "reward_retraining_seconds": [45, 79],
}
REFERENCE_CONDITIONS = (
    "quoted, not measured by this command: flowersteam/Imagine at 5d44ee1 (torch 2.13 CPU, one "
    "thread per MPI rank) timed once on a 2-vCPU Intel Xeon VM (model not reported)"
)
TARGETS = {
    "updates_per_s_one_core": 40,
    "collection_steps_per_s": 50_000,
    "epoch_seconds": 60,
    "reward_retraining_seconds": 20,
}


def update_gflop(learner: Learner) -> float:
    """GFLOP of one update as TensorFlow's profiler counts its graph (the products of the
    relabelling scan of B states × K candidates, the targets π′, Q′, the critic and actor
    steps with their gradients), at the config's B and K."""
    config, ddpg, scorer = learner.config, learner.ddpg, learner.relabeler.scorer
    batch, candidates = config.batch_size, config.num_candidates

    def update(states, next_states, actions, goals, candidate_goals):
        positive = scorer.scan(states, None, candidate_goals)
        targets = ddpg.td_targets({"state": next_states, "goal": goals}, -tf.ones([batch]))
        return ddpg.update({"state": states, "goal": goals}, actions, targets), positive

    state, embedding = learner.builder.state_dim, learner.embedding_table.shape[-1]
    specs = [
        tf.TensorSpec([batch, state]),
        tf.TensorSpec([batch, state]),
        tf.TensorSpec([batch, 3]),
        tf.TensorSpec([batch, embedding]),
        tf.TensorSpec([candidates, embedding]),
    ]
    graph = tf.function(update).get_concrete_function(*specs).graph
    options = tf.compat.v1.profiler.ProfileOptionBuilder.float_operation()
    options["output"] = "none"
    return tf.compat.v1.profiler.profile(graph=graph, options=options).total_float_ops / 1e9


def _timed_triggers(learner: Learner, root_dir: str):
    """The triggers `imagine-tf train` runs after each epoch (`run_epochs`), the evaluation and
    the checkpoint, as one function that fills an epoch's record and times them
    (``seconds_evaluation``, ``seconds_checkpoint``); the log trigger's file writes are left
    out."""
    evaluation = EvaluationTrigger(learner)
    checkpoint = CheckpointTrigger(LearnerCheckpoint(learner, root_dir))

    def run(record: dict) -> dict:
        evaluation(record)  # fills seconds_evaluation
        start = time.perf_counter()
        checkpoint(record)
        record["seconds_checkpoint"] = round(time.perf_counter() - start, 3)
        return record

    return run


def _updates_per_second(learner, count: int) -> float:
    """Fused updates/s with K = 50 candidates: if fewer goals were discovered in the short
    benchmark run, the partner's other goals are added to the discovered set first (a timing
    condition only: the run's discoveries are not used afterwards)."""
    config = learner.config
    if len(learner.goals) < config.num_candidates:
        descriptions = np.zeros((1, len(learner.goals.partner_goals)), bool)
        descriptions[0, : config.num_candidates] = True
        learner.goals.discover(descriptions)
        learner.embed_goals()
    learner.run_updates(3)  # tracing
    if count == 0:
        return float("nan")
    start = time.perf_counter()
    learner.run_updates(count)
    return count / (time.perf_counter() - start)


def _collection_steps_per_second(learner, batch_size: int, repeats: int = 3) -> float:
    """Exploring env steps/s of the actor on ``batch_size`` scenes at once (the learner's
    goals, through the same PyDriver path as training)."""
    # exploring only: the one policy traced before the timing is the one timed
    config = dataclasses.replace(
        learner.config, episodes_per_cycle=batch_size, exploit_probability=0.0
    )
    actor = EpisodeActor(RunBuilder(config), learner.ddpg.actor_network)
    actor.set_goals(learner.goal_view())
    actor.collect()  # tracing
    start = time.perf_counter()
    for _ in range(repeats):
        actor.collect()
    return repeats * batch_size * actor.env.config.episode_length / (time.perf_counter() - start)


def _machine(matmul_speedup: float) -> dict:
    """The machine's description, with the bfloat16 matmul speedup "auto" would see."""
    return {
        **machine_description(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "tensorflow": tf.__version__,
        "bfloat16_matmul_speedup": round(matmul_speedup, 2),  # compute_dtype "auto"'s probe
    }


def _recorded_config(config: TrainConfig, episodes: int) -> dict:
    """The configuration the record shows: an epoch's size and the update's settings."""
    return {
        "cycles_per_epoch": config.cycles_per_epoch,
        "episodes_per_epoch": episodes,
        "updates_per_epoch": config.cycles_per_epoch * config.updates_per_cycle,
        "batch_size": config.batch_size,
        "num_candidates": config.num_candidates,
        "compute_dtype": config.compute_dtype,
        "reward_patience": config.reward_model.patience,
    }


def _update_rates(config: TrainConfig, epoch: dict, updates_per_s: float, gflop: float) -> dict:
    """The updates' speed in the timed epoch: updates/s, per core (per inter-op thread: one
    op on each core), GFLOP/s; and the updates alone (``updates_per_s``)."""
    in_epoch = (
        config.cycles_per_epoch * config.updates_per_cycle / max(epoch["seconds_updates"], 1e-9)
    )
    cores = tf.config.threading.get_inter_op_parallelism_threads() or os.cpu_count()
    return {
        "updates_per_s_in_epoch": in_epoch,
        "updates_per_s": updates_per_s,
        "update_gflop": round(gflop, 3),
        "update_gflop_per_s_in_epoch": round(gflop * in_epoch, 1),
        "updates_per_s_per_core_in_epoch": in_epoch / cores,
    }


def run_train_benchmark(
    quick: bool = False, compute_dtype: str = "float32", reward_patience: int = 15
) -> dict:
    """Measures the loop; ``quick`` shrinks the epoch (for tests); ``compute_dtype`` is
    `TrainConfig.compute_dtype` (the actor, critic and relabelling precision);
    ``reward_patience`` is `RewardModelConfig.patience` (15: the reference's early stopping)."""
    from imagine_tf.networks.precision import bfloat16_matmul_speedup

    matmul_speedup = bfloat16_matmul_speedup()  # before any training: what "auto" would see
    cycles = 5 if quick else 50
    config = TrainConfig(
        cycles_per_epoch=cycles,
        reward_model=RewardModelConfig(max_epochs=2 if quick else 100, patience=reward_patience),
        compute_dtype=compute_dtype,
    )
    learner = RunBuilder(config).make_learner()
    source = in_process_actor(learner)
    with tempfile.TemporaryDirectory() as root_dir:
        triggers = _timed_triggers(learner, root_dir)
        warm_up = triggers(train_epoch(learner, source))  # tracing, first reward update
        _updates_per_second(learner, 0)  # traces the update (epoch 0 has none) outside the timing
        epoch = triggers(train_epoch(learner, source))
    episodes = config.episodes_per_cycle * cycles
    collection_steps = episodes * PlaygroundConfig().episode_length
    updates_per_s = _updates_per_second(learner, 20 if quick else 200)
    gflop = update_gflop(learner)
    batched_collection = {
        batch: _collection_steps_per_second(learner, batch, 1 if quick else 3)
        for batch in (config.episodes_per_cycle, 120, 600)
    }
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": _machine(matmul_speedup),
        "config": _recorded_config(config, episodes),
        "warm_up_epoch": warm_up,
        "epoch": epoch,
        "epoch_seconds": sum(v for k, v in epoch.items() if k.startswith("seconds_")),
        # The reward model is retrained every 2 epochs (in epoch 0, not in the measured epoch 1):
        "reward_retraining_seconds": warm_up["seconds_reward"],
        "reward_retraining_epochs": warm_up["reward_epochs"],
        "epoch_seconds_with_reward_every_2": sum(
            v for k, v in epoch.items() if k.startswith("seconds_")
        )
        + warm_up["seconds_reward"] / 2,
        "collection_steps_per_s": collection_steps / max(epoch["seconds_collection"], 1e-9),
        "collection_steps_per_s_by_batch": batched_collection,
        **_update_rates(config, epoch, updates_per_s, gflop),
        "updates_per_s_candidates": min(config.num_candidates, len(learner.goals)),
        "threads": tf.config.threading.get_inter_op_parallelism_threads() or os.cpu_count(),
        "threading": {  # 0: TensorFlow's default, all cores
            "intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
            "inter_op": tf.config.threading.get_inter_op_parallelism_threads(),
        },
        "reference": {**REFERENCE, "conditions": REFERENCE_CONDITIONS},
        "targets": TARGETS,
    }


#: The figures of a run that `run_train_benchmarks` summarises over repeats.
REPEATED_FIGURES = (
    "epoch_seconds",
    "reward_retraining_seconds",
    "updates_per_s_in_epoch",
    "updates_per_s",
    "collection_steps_per_s",
)


def run_train_benchmarks(
    quick: bool = False,
    compute_dtypes: tuple[str, ...] = ("float32",),
    reward_patience: int = 15,
    repeats: int = 1,
) -> dict:
    """`run_train_benchmark` ``repeats`` times per precision, in this one process and in turn
    (float32, bfloat16, float32, ...), into one record: the first float32 run's fields at the
    top level (the record's earlier layout), every run under ``runs[dtype]`` and the median,
    min and max of `REPEATED_FIGURES` under ``summary[dtype]``."""
    import statistics

    runs: dict[str, list[dict]] = {dtype: [] for dtype in compute_dtypes}
    for _ in range(repeats):
        for dtype in compute_dtypes:
            runs[dtype].append(run_train_benchmark(quick, dtype, reward_patience))
    summary = {
        dtype: {
            figure: {
                "median": statistics.median(r[figure] for r in results),
                "min": min(r[figure] for r in results),
                "max": max(r[figure] for r in results),
            }
            for figure in REPEATED_FIGURES
        }
        for dtype, results in runs.items()
    }
    first = runs[compute_dtypes[0]][0]
    return {**first, "repeats": repeats, "summary": summary, "runs": runs}
