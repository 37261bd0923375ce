"""What the card measures, the same way for the shipped models and for every seed's run.

* **Success rate** (SR): the noise-free policy on every training and test goal, judged by the
  oracle (`evaluate_run`: ``repetitions`` episodes per goal, seed 12345, the run's N). The
  experiment's runs were read so (`imagine-tf eval --repetitions 30`, their eval.json).
* **Reward F1**: the learned reward (probability > 0.5) against the oracle on a `GoalProbe`
  per split: the final states of 4 scripted-expert episodes per goal (seed 2020, the run's N),
  every (state, goal) pair labelled, F1 per goal averaged over the goals with a positive
  state. The test-goal probe is the one each run recorded every epoch
  (``reward_test_goal_f1`` of progress.jsonl), so the two can be compared.
* **The check**: the training goals' SR over ``CHECK_REPETITIONS`` episodes per goal (seed
  12345), short enough for a test to measure again; measured again, a figure must lie in the
  seeds' band (`spread`) and within ``TOLERANCE`` of the card's.
"""

from __future__ import annotations

import pathlib

import numpy as np
import tensorflow as tf

from imagine_tf.agent.learning import Learner
from imagine_tf.language import grammar
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.export.versions import versions
from imagine_tf.reward.goal_probe import PROBE_SEED, GoalProbe
from imagine_tf.reward.supervised_training import score_matrix

EVALUATION_SEED = 12345  # `imagine-tf eval`'s default, as the experiments ran it
CHECK_REPETITIONS = 5
#: How far a figure measured again may lie from the card's: float rounding on another CPU
#: may flip an episode or a borderline probability, nothing more.
TOLERANCE = 0.02
PROBE_EPISODES = 4
THRESHOLD = 0.5
SPLITS = ("train", "test")


def goal_probes(
    num_objects: int, episodes_per_goal: int = PROBE_EPISODES, seed: int = PROBE_SEED
) -> dict[str, GoalProbe]:
    """{"train": probe of the 191 training goals, "test": of the 64 test goals}."""
    return {
        "train": GoalProbe(grammar.train_goals(), num_objects, episodes_per_goal, seed),
        "test": GoalProbe(grammar.test_goals(), num_objects, episodes_per_goal, seed),
    }


def reward_f1(network, probes: dict[str, GoalProbe]) -> dict[str, float]:
    """{"train_goal_f1", "test_goal_f1"} of a reward network (a `RewardNetwork`) on the probes."""
    vocabulary = Vocabulary.default()
    result = {}
    for split, probe in probes.items():
        probabilities = score_matrix(network, probe.states, vocabulary.encode(list(probe.goals)))
        result[f"{split}_goal_f1"] = probe.f1(probe.goals, probabilities > THRESHOLD)
    return result


def latest_version(model_base_path: str | pathlib.Path) -> pathlib.Path:
    """The newest integer version directory of a model base path (FileNotFoundError if none)."""
    found = versions(model_base_path)
    if not found:
        raise FileNotFoundError(
            f"{model_base_path} holds no model version (no directory named 1, 2, ...)."
        )
    return pathlib.Path(model_base_path) / str(found[-1])


def load_served(model_base_path: str | pathlib.Path):
    """The newest version of an exported reward model, loaded (its ``signatures``)."""
    return tf.saved_model.load(str(latest_version(model_base_path)))


def served_reward_f1(served, probes: dict[str, GoalProbe]) -> dict[str, float]:
    """`reward_f1` through an exported SavedModel's ``scan`` signature (what `serve` runs);
    ``served``: `load_served`'s model."""
    scan = served.signatures["scan"]
    result = {}
    for split, probe in probes.items():
        rewards = scan(states=tf.constant(probe.states), goals=tf.constant(list(probe.goals)))
        result[f"{split}_goal_f1"] = probe.f1(probe.goals, rewards["rewards"].numpy())
    return result


def check_success(
    learner: Learner, repetitions: int = CHECK_REPETITIONS, seed: int = EVALUATION_SEED
) -> float:
    """The check: the training goals' SR over ``repetitions`` episodes per goal."""
    success = learner.evaluator.evaluate(grammar.train_goals(), repetitions, seed)
    return float(np.mean(list(success.values())))


def spread(values: list[float]) -> dict:
    """n, mean, std (ddof 1), min, max of the seeds' values, and the band mean ± 3 std in
    which a figure measured again must lie (`band`; None for one value: no spread)."""
    values = np.asarray(values, float)
    mean = float(values.mean())
    std = float(values.std(ddof=1)) if len(values) > 1 else None
    return {
        "n": len(values),
        "mean": mean,
        "std": std,
        "min": float(values.min()),
        "max": float(values.max()),
        "band": None if std is None else [mean - 3 * std, mean + 3 * std],
    }


def description(repetitions: int) -> dict:
    """How the card's figures are measured (the settings above), for the card."""
    return {
        "success_rate": {
            "episodes_per_goal": repetitions,
            "seed": EVALUATION_SEED,
            "policy": "noise-free; the oracle judges the final state",
        },
        "reward_f1": {
            "probe_episodes_per_goal": PROBE_EPISODES,
            "probe_seed": PROBE_SEED,
            "threshold": THRESHOLD,
            "states": "final states of scripted-expert episodes, one scene per episode",
        },
        "check": {
            "episodes_per_goal": CHECK_REPETITIONS,
            "seed": EVALUATION_SEED,
            "tolerance": TOLERANCE,
        },
        "band": "mean ± 3 std (ddof 1) of the seeds",
    }
