"""One data-parallel DDPG worker for tests/agent/data_parallel_test.py (run as a script).

    python -m tests.agent.data_parallel_worker WORKERS INDEX REDUCTION[_cycle] STEPS OUT.npz [PAUSE]

REDUCTION_cycle runs the STEPS as one cycle does (`UpdateCycle._steps` in one graph: the critic
step of update i + 1 beside the actor step of update i, two all-reduces at once).
WORKERS: HOST:PORT,... (empty: one process, no strategy, on the batches of every worker put
together, its gradient times the workers' count for REDUCTION "sum"). The worker takes STEPS `Ddpg.update`s of the MA networks (hidden 32) on its share
of fixed transitions (2 workers × 16), then writes the weights of the actor, the critic and
their targets (and the critic's initial weights, ``initial/*``) to OUT.npz; with PAUSE, it
writes OUT.stepped after its first step and sleeps PAUSE seconds (a peer to kill).
"""

import sys
import time

import numpy as np

BATCH, WORKERS = 16, 2


def transitions(rows: slice):
    """(observation, actions, next observation, rewards) of fixed transitions ``rows``."""
    import tensorflow as tf

    from tests.agent.ddpg_test import VOCABULARY

    rng = np.random.default_rng(7)
    count = BATCH * WORKERS
    goal = VOCABULARY.encode(["Grasp red cat", "Go left"] * (count // 2)).astype(np.int32)

    def observation():
        state = rng.uniform(-1, 1, size=(count, 240)).astype(np.float32)
        return {"state": tf.constant(state[rows]), "goal": tf.constant(goal[rows])}

    first, second = observation(), observation()
    actions = tf.constant(rng.uniform(-1, 1, (count, 3))[rows], tf.float32)
    rewards = tf.constant(-(rng.random(count) < 0.5).astype(np.float32)[rows])
    return first, actions, second, rewards


def main(workers: str, index: int, reduction: str, steps: int, out: str, pause: float = 0.0):
    from imagine_tf.agent.data_parallel import GradientAllReduce, worker_strategy

    as_cycle = reduction.endswith("_cycle")  # the steps as a cycle runs them
    reduction = reduction.removesuffix("_cycle")

    strategy = worker_strategy(workers.split(","), index, timeout_seconds=5) if workers else None
    import tensorflow as tf

    from imagine_tf.agent.actor_network import ActorNetwork
    from imagine_tf.agent.critic_network import CriticNetwork
    from imagine_tf.agent.ddpg import Ddpg
    from tests.agent.ddpg_test import ACTION_SPEC, LENGTH, OBSERVATION_SPEC, WORDS

    tf.keras.utils.set_random_seed(0)  # the same weights in every worker
    sizes = {"hidden_units": 32, "latent_units": 32}
    actor = ActorNetwork(OBSERVATION_SPEC, ACTION_SPEC, "ma", WORDS, LENGTH, **sizes)
    critic = CriticNetwork((OBSERVATION_SPEC, ACTION_SPEC), "ma", WORDS, LENGTH, **sizes)
    for network in (actor, critic):
        network.create_variables()
    if strategy:
        reduce = GradientAllReduce(strategy, reduction)
    else:  # one learner on the batches put together: the mean, or the sum of WORKERS means
        reduce = None if reduction == "mean" else (lambda grads: [WORKERS * g for g in grads])
    ddpg = Ddpg(actor, critic, target_update_period=2, reduce_gradients=reduce)
    rows = slice(index * BATCH, (index + 1) * BATCH) if strategy else slice(None)
    first, actions, second, rewards = transitions(rows)

    @tf.function(autograph=False)
    def update():
        return ddpg.update(first, actions, ddpg.td_targets(second, rewards))

    if as_cycle:  # `UpdateCycle._steps`: critic step i + 1 beside actor step i
        from types import SimpleNamespace

        from imagine_tf.agent.update_cycle import UpdateCycle

        count = steps
        stacked = [tf.stack([x] * count) for x in (first["state"], first["goal"], actions)]

        @tf.function(autograph=False)
        def cycle():
            targets = tf.stack([ddpg.td_targets(second, rewards)] * count)
            return UpdateCycle._steps(SimpleNamespace(ddpg=ddpg), *stacked, targets)

        update, steps = cycle, 1

    initial = {f"initial/{i}": v.numpy() for i, v in enumerate(critic.trainable_variables)}
    for step in range(steps):
        update()
        if step == 0 and pause:  # the peers are connected: a test may kill one now
            open(out + ".stepped", "w").close()
            time.sleep(pause)
    networks = {
        "actor": ddpg.actor_network,
        "critic": ddpg.critic_network,
        "target_actor": ddpg.target_actor_network,
        "target_critic": ddpg.target_critic_network,
    }
    weights = {
        f"{name}/{i}": variable.numpy()
        for name, network in networks.items()
        for i, variable in enumerate(network.trainable_variables)
    }
    np.savez(out, **weights, **initial)


if __name__ == "__main__":
    main(
        sys.argv[1],
        int(sys.argv[2]),
        sys.argv[3],
        int(sys.argv[4]),
        sys.argv[5],
        *map(float, sys.argv[6:]),
    )
