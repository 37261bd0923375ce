"""One data-parallel DDPG worker process (`distributed/data_parallel.py`), for the
data-parallel test and benchmark: MA actor and critic, `Ddpg.update`s on its share of fixed
transitions.

    python -m imagine_tf.benchmarks.data_parallel_worker --workers H:P,H:P --index I \
        [--reduction sum|mean] [--cycle] [--steps S] [--batch B] [--hidden H] \
        [--weights OUT.npz] [--timing OUT.json] [--pause SECONDS] [--reduce-only]

``--workers`` empty: one process without strategy, on the batches of ``--num-workers`` workers
put together (its gradient times that count for "sum"): the learner the workers must equal.
``--cycle``: the steps as a cycle runs them (`update_cycle.pipelined_steps`, one graph: the
critic step of update i + 1 beside the actor step of update i, two all-reduces in flight).
``--weights``: the actor's, critic's and targets' weights after the steps (and the critic's
initial ones, ``initial/*``). ``--timing``: seconds per update after one warm-up call.
``--pause``: after the first step, writes ``<weights>.stepped`` and sleeps (a peer to kill).
``--reduce-only``: only all-reduces the gradients' shapes, zeros, as many times (the
all-reduce's own cost).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def worker_process(workers: str, index: int, options: list[str]):
    """This module as a process: worker ``index`` of ``workers`` (HOST:PORT,...; "" for one
    learner), with its other ``options``; output and errors on its stdout."""
    import os
    import subprocess
    import sys

    command = [sys.executable, "-m", __name__, "--workers", workers, "--index", str(index)]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    return subprocess.Popen(
        [*command, *options], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def transitions(batch: int, workers: int, rows: slice, tf):
    """(observation, actions, next observation, rewards) of ``batch × workers`` fixed random
    transitions, their ``rows``."""
    from imagine_tf.language.vocabulary import Vocabulary

    rng, count = np.random.default_rng(7), batch * workers
    goal = Vocabulary.default().encode(["Grasp red cat", "Go left"] * (count // 2))

    def observation():
        state = rng.uniform(-1, 1, size=(count, 240)).astype(np.float32)
        return {"state": tf.constant(state[rows]), "goal": tf.constant(goal[rows], tf.int32)}

    first, second = observation(), observation()
    actions = tf.constant(rng.uniform(-1, 1, (count, 3))[rows], tf.float32)
    rewards = tf.constant(-(rng.random(count) < 0.5).astype(np.float32)[rows])
    return first, actions, second, rewards


def make_ddpg(hidden: int, reduce_gradients, tf, seed: int = 0):
    """The MA actor and critic of width ``hidden`` from ``seed``, in a `Ddpg`."""
    from tf_agents.specs import tensor_spec

    from imagine_tf.agent.actor_network import ActorNetwork
    from imagine_tf.agent.critic_network import CriticNetwork
    from imagine_tf.agent.ddpg import Ddpg
    from imagine_tf.language.vocabulary import Vocabulary
    from imagine_tf.networks.goal_conditioned_network import example_observation_spec

    vocabulary = Vocabulary.default()
    words, length = vocabulary.words[1:], vocabulary.max_length
    observation_spec = example_observation_spec(3, length)
    action_spec = tensor_spec.BoundedTensorSpec([3], tf.float32, -1.0, 1.0)
    tf.keras.utils.set_random_seed(seed)  # the same weights in every worker
    sizes = {"hidden_units": hidden, "latent_units": hidden}
    actor = ActorNetwork(observation_spec, action_spec, "ma", words, length, **sizes)
    critic = CriticNetwork((observation_spec, action_spec), "ma", words, length, **sizes)
    for network in (actor, critic):
        network.create_variables()
    return Ddpg(actor, critic, target_update_period=2, reduce_gradients=reduce_gradients)


def _updates(args, ddpg, data, tf):
    """The function that runs the worker's steps (one call: one update, or a whole cycle)."""
    first, actions, second, rewards = data
    if args.reduce_only:
        variables = ddpg.actor_network.trainable_variables + ddpg.critic_network.trainable_variables
        zeros = [tf.zeros_like(v) for v in variables]
        return tf.function(lambda: ddpg.reduce_gradients(zeros)[0], autograph=False), args.steps
    if not args.cycle:
        return (
            tf.function(
                lambda: ddpg.update(first, actions, ddpg.td_targets(second, rewards)),
                autograph=False,
            ),
            args.steps,
        )
    from imagine_tf.agent.update_cycle import pipelined_steps

    stacked = [tf.stack([x] * args.steps) for x in (first["state"], first["goal"], actions)]

    def cycle():
        targets = tf.stack([ddpg.td_targets(second, rewards)] * args.steps)
        return pipelined_steps(ddpg, *stacked, targets)

    return tf.function(cycle, autograph=False), 1


def main(argv=None) -> None:
    args = parse(argv)
    import tensorflow as tf

    from imagine_tf.distributed.data_parallel import (
        GradientAllReduce,
        check_same_config,
        worker_strategy,
    )

    tf.config.threading.set_intra_op_parallelism_threads(1)  # one core per worker
    tf.config.threading.set_inter_op_parallelism_threads(1)
    workers = [w for w in args.workers.split(",") if w]
    strategy = worker_strategy(workers, args.index, args.timeout) if workers else None
    if strategy:  # the settings that make the workers' steps one step, seed included
        private = ("index", "weights", "timing", "pause")
        check_same_config(strategy, {k: v for k, v in vars(args).items() if k not in private})
        reduce = GradientAllReduce(strategy, args.reduction)
    else:  # one learner on the workers' batches put together
        scale = args.num_workers if args.reduction == "sum" else 1
        reduce = None if scale == 1 else (lambda grads: [scale * g for g in grads])
    ddpg = make_ddpg(args.hidden, reduce, tf, args.seed)
    rows = slice(args.index * args.batch, (args.index + 1) * args.batch) if workers else slice(None)
    data = transitions(args.batch, args.num_workers, rows, tf)
    critic = ddpg.critic_network.trainable_variables
    initial = {f"initial/{i}": v.numpy() for i, v in enumerate(critic)}
    run, calls = _updates(args, ddpg, data, tf)
    started = time.perf_counter()
    for call in range(calls):
        run()
        if call == 0:
            if args.pause:  # the peers are connected: a test may kill one now
                open(args.weights + ".stepped", "w").close()
                time.sleep(args.pause)
            started = time.perf_counter()  # after the warm-up call (its tracing)
    seconds = (time.perf_counter() - started) / max(calls - 1, 1)
    if args.timing:
        trained = ddpg.actor_network.trainable_variables + critic
        record = {"seconds_per_call": seconds, "calls": calls - 1}
        record["gradient_bytes_per_update"] = sum(4 * int(v.shape.num_elements()) for v in trained)
        with open(args.timing, "w") as out:
            json.dump(record, out)
    if args.weights:
        np.savez(args.weights, **_weights(ddpg), **initial)


def _weights(ddpg) -> dict:
    networks = {
        "actor": ddpg.actor_network,
        "critic": ddpg.critic_network,
        "target_actor": ddpg.target_actor_network,
        "target_critic": ddpg.target_critic_network,
    }
    return {
        f"{name}/{i}": variable.numpy()
        for name, network in networks.items()
        for i, variable in enumerate(network.trainable_variables)
    }


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", default="", help="HOST:PORT,... (empty: one learner)")
    parser.add_argument("--index", type=int, default=0)
    parser.add_argument("--num-workers", type=int, default=2, help="the batches put together")
    parser.add_argument("--reduction", choices=("sum", "mean"), default="sum")
    parser.add_argument("--cycle", action="store_true")
    parser.add_argument("--reduce-only", action="store_true")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--timeout", type=float, default=5.0, help="collectives' timeout (s)")
    parser.add_argument("--weights", help="OUT.npz")
    parser.add_argument("--timing", help="OUT.json")
    parser.add_argument("--pause", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0, help="the networks' initial weights")
    return parser.parse_args(argv)


if __name__ == "__main__":
    main()
