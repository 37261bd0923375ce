"""`imagine-tf bench env`: throughput of the Playground, the social partner and the oracle.

Measured, single process (numpy runs these ops on one core):

* env steps/s with uniform random actions, resets (with goal-conditioned scene generation
  for random training goals) included, at batch 1, 64 and 1024, N = 3 — for the array core
  (`PlaygroundCore`), for the TF-Agents `PlaygroundEnv` on top of it, and for the Gymnasium
  `PlaygroundVectorEnv` (batch = num_envs; its steps compute the oracle's reward, and the
  partner describes the final states; the autoreset step that starts each episode is timed
  but not counted as a step);
* social-partner descriptions per second over final states (as a [B, G] matrix and as lists of
  sentences);
* oracle evaluations per second over [states x 255 goals].

Each figure is the median of `repeats` timed runs after one warm-up run (the core's best run is
recorded too: a shared VM's speed drifts by ±10 % between runs). The record names its machine
(CPU model, instruction set, threads).

The reference figures (`REFERENCE`) are **quoted, not measured by this command**: the authors'
environment (flowersteam/Imagine at 5d44ee1, Python 3.11, one thread) timed once on a 2-vCPU
Intel Xeon VM, outside this repository. A speed-up against them compares two machines.
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import time

import numpy as np

from imagine_tf.env.config import PlaygroundConfig
from imagine_tf.env.physics import PlaygroundCore
from imagine_tf.env.playground_env import PlaygroundEnv
from imagine_tf.gymnasium_env.vector_env import PlaygroundVectorEnv
from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_source import GoalCatalog
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.language.social_partner import SocialPartner
from imagine_tf.policies.scripted_policy import ScriptedPolicy
from imagine_tf.provenance import machine_description

BATCH_SIZES = (1, 64, 1024)
#: The authors' environment, quoted (see the module docstring: `REFERENCE_CONDITIONS`): env
#: steps, the partner per final state, the oracle per (state, goal) pair.
REFERENCE = {
    "env_steps_per_s": 18_000,  # "≈ 16–20k/s per core"
    "partner_seconds_per_state": 0.12e-3,
    "oracle_seconds_per_state_goal_pair": 90e-6,  # flowersteam/Imagine: one (state, goal) pair
}
REFERENCE_CONDITIONS = (
    "quoted, not measured by this command: flowersteam/Imagine at 5d44ee1 timed once on a "
    "2-vCPU Intel Xeon VM (model not reported), Python 3.11.7, one thread per process"
)
TARGETS = {
    "env_steps_per_s_batch_1024": 1_000_000,
    "env_steps_per_s_batch_1": 20_000,
    "env_gymnasium_vector_steps_per_s_batch_1024": 1_000_000,
    "partner_speedup": 100,
    "oracle_speedup": 100,
}


def _rates(run, count: float, repeats: int) -> tuple[float, float]:
    """(median, best) rate of `count` items over `repeats` timed runs after a warm-up."""
    run()  # warm-up
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return count / statistics.median(seconds), count / min(seconds)


def _median_rate(run, count: float, repeats: int) -> float:
    return _rates(run, count, repeats)[0]


def _core_rate(batch_size: int, num_steps: int, repeats: int, seed: int = 0):
    config = PlaygroundConfig(num_objects=3)
    catalog = GoalCatalog("train")
    core = PlaygroundCore(config, batch_size, seed=seed)
    rng = np.random.default_rng(seed)
    actions = rng.uniform(-1, 1, size=(config.episode_length, batch_size, 3)).astype(np.float32)
    episodes = max(1, num_steps // (batch_size * config.episode_length))

    def run():
        for _ in range(episodes):
            core.reset(catalog.sample(core.rng, batch_size).constraints)
            for action in actions:
                core.step(action)

    return _rates(run, episodes * config.episode_length * batch_size, repeats)


def _env_rate(batch_size: int, num_steps: int, repeats: int, seed: int = 0) -> float:
    env = PlaygroundEnv(GoalCatalog("train"), batch_size=batch_size, seed=seed)
    length = env.config.episode_length
    rng = np.random.default_rng(seed)
    actions = rng.uniform(-1, 1, size=(length, batch_size, 3)).astype(np.float32)
    episodes = max(1, num_steps // (batch_size * length))

    def run():
        for _ in range(episodes):
            env.reset()
            for action in actions:
                env.step(action)

    return _median_rate(run, episodes * length * batch_size, repeats)


def _gymnasium_vector_rate(batch_size: int, num_steps: int, repeats: int, seed: int = 0) -> float:
    envs = PlaygroundVectorEnv(num_envs=batch_size)
    envs.reset(seed=seed)
    length = envs.episode_length
    rng = np.random.default_rng(seed)
    actions = rng.uniform(-1, 1, size=(length, batch_size, 3)).astype(np.float32)
    episodes = max(1, num_steps // (batch_size * length))

    def run():
        for _ in range(episodes):
            for action in actions:
                envs.step(action)
            envs.step(actions[0])  # the autoreset: new goals and scenes, no step taken

    return _median_rate(run, episodes * length * batch_size, repeats)


def _final_states(num_states: int, seed: int = 0) -> np.ndarray:
    """Final states of scripted episodes towards random goals: rich in grasps and growth."""
    catalog = GoalCatalog("all")
    env = PlaygroundEnv(catalog, batch_size=num_states, seed=seed)
    expert = ScriptedPolicy(catalog.table, noise_std=0.3, seed=seed)
    time_step = env.reset()
    while not time_step.is_last().all():
        time_step = env.step(expert.action(time_step.observation["state"], env.goal_ids))
    return time_step.observation["state"]


def _partner_and_oracle_rates(repeats: int) -> dict:
    """The social partner's descriptions and the oracle's rewards of 1,024 final states:
    ``{"partner": {...}, "oracle": {...}}``, states per second and speedups."""
    num_states = 1024
    states = _final_states(num_states)
    partner = SocialPartner()
    table = GoalTable.from_sentences(grammar.one_object_goals())
    matrix_rate = _median_rate(lambda: partner.describe_matrix(states), num_states, repeats)
    list_rate = _median_rate(lambda: partner.describe(states), num_states, repeats)
    oracle_rate = _median_rate(lambda: oracle.achieved_matrix(states, table), num_states, repeats)
    mean_descriptions = float(partner.describe_matrix(states).sum(axis=1).mean())
    return {
        "partner": {
            "states": num_states,
            "mean_descriptions_per_state": round(mean_descriptions, 2),
            "states_per_s_matrix": round(matrix_rate),
            "states_per_s_sentences": round(list_rate),
            "speedup_vs_reference": round(list_rate * REFERENCE["partner_seconds_per_state"], 1),
            "speedup_vs_reference_matrix": round(
                matrix_rate * REFERENCE["partner_seconds_per_state"], 1
            ),
        },
        "oracle": {
            "states": num_states,
            "goals": len(table),
            "states_per_s": round(oracle_rate),
            "state_goal_pairs_per_s": round(oracle_rate * len(table)),
            "speedup_vs_reference": round(
                oracle_rate * len(table) * REFERENCE["oracle_seconds_per_state_goal_pair"], 1
            ),
        },
    }


def run_env_benchmark(quick: bool = False) -> dict:
    """Runs every measurement; returns a JSON-ready dict."""
    repeats = 2 if quick else 5
    steps = {1: 2_000 if quick else 20_000, 64: 64_000 if quick else 320_000}
    steps[1024] = 51_200 if quick else 2_048_000
    core = {b: _core_rate(b, steps[b], repeats) for b in BATCH_SIZES}
    tf_env = {b: _env_rate(b, steps[b], repeats) for b in BATCH_SIZES}
    gymnasium_vector = {b: _gymnasium_vector_rate(b, steps[b], repeats) for b in BATCH_SIZES}

    partner_and_oracle = _partner_and_oracle_rates(repeats)

    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            **machine_description(),
            "cpu_count": os.cpu_count(),
            "processor": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "numpy": np.__version__,
        },
        "quick": quick,
        "num_objects": 3,
        "env_core_steps_per_s": {str(b): round(r[0]) for b, r in core.items()},
        "env_core_steps_per_s_best_run": {str(b): round(r[1]) for b, r in core.items()},
        "env_tf_agents_steps_per_s": {str(b): round(r) for b, r in tf_env.items()},
        "env_gymnasium_vector_steps_per_s": {str(b): round(r) for b, r in gymnasium_vector.items()},
        **partner_and_oracle,
        "reference": {**REFERENCE, "conditions": REFERENCE_CONDITIONS},
        "targets": TARGETS,
    }
    results["targets_met"] = {
        "env_steps_per_s_batch_1024": core[1024][0] >= TARGETS["env_steps_per_s_batch_1024"],
        "env_steps_per_s_batch_1": core[1][0] >= TARGETS["env_steps_per_s_batch_1"],
        "env_gymnasium_vector_steps_per_s_batch_1024": gymnasium_vector[1024]
        >= TARGETS["env_gymnasium_vector_steps_per_s_batch_1024"],
        "partner_speedup": results["partner"]["speedup_vs_reference"] >= 100,
        "oracle_speedup": results["oracle"]["speedup_vs_reference"] >= 100,
    }
    return results


def format_table(results: dict) -> str:
    """A human-readable table of `run_env_benchmark` results."""
    lines = [
        f"Playground benchmark ({results['date']}, {results['machine']['cpu_count']} cores, "
        f"N = {results['num_objects']}{', quick' if results['quick'] else ''})",
        "",
        f"{'batch':>6} {'core steps/s':>14} {'TF-Agents env steps/s':>22} "
        f"{'Gymnasium vector env steps/s':>29}",
    ]
    for batch in results["env_core_steps_per_s"]:
        lines.append(
            f"{batch:>6} {results['env_core_steps_per_s'][batch]:>14,} "
            f"{results['env_tf_agents_steps_per_s'][batch]:>22,} "
            f"{results['env_gymnasium_vector_steps_per_s'][batch]:>29,}"
        )
    partner, oracle_ = results["partner"], results["oracle"]
    lines += [
        "",
        f"partner: {partner['states_per_s_sentences']:,} states/s as sentences "
        f"({partner['states_per_s_matrix']:,} as a matrix), "
        f"{partner['mean_descriptions_per_state']} descriptions/state, "
        f"x{partner['speedup_vs_reference']} (matrix x{partner['speedup_vs_reference_matrix']}) "
        "vs the reference",
        f"oracle:  {oracle_['states_per_s']:,} states/s x {oracle_['goals']} goals = "
        f"{oracle_['state_goal_pairs_per_s']:,} pairs/s, x{oracle_['speedup_vs_reference']} "
        "vs the reference",
        "",
        "targets met: " + ", ".join(f"{k}={v}" for k, v in results["targets_met"].items()),
    ]
    return "\n".join(lines)
