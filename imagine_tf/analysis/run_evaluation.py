"""`evaluate_run`: the success rate of a run's policy, per goal, split, type and predicate."""

from __future__ import annotations

import json
import os

import numpy as np

from imagine_tf.language import grammar
from imagine_tf.language.imagination import coverage, imaginable_test_goals
from imagine_tf.runs import layout as run_layout
from imagine_tf.atomic_files import write_text_atomically
from imagine_tf.agent.evaluation import PREDICATES
from imagine_tf.analysis.saved_run import load_agent
from imagine_tf.runs.layout import RunLayout


REACHED = 0.5  # a test goal counts as reached at this success rate or more


def _imagination_summary(learner, test_success: dict[str, float]) -> dict:
    """The imagined set at evaluation, and the test goals (never named by the partner) the
    policy reaches, split by whether they were imagined."""
    imagined = set(learner.imagination.imagined)
    found = coverage(sorted(imagined))
    reached = {goal: value for goal, value in test_success.items() if value >= REACHED}
    return {
        "imagination": {
            "method": learner.imagination.method,
            "imagined_goals": found["imagined"],
            "imagined_test_goals": found["test_goals_found"],
            "test_goals_reached": reached,
            "test_goals_reached_imagined": sorted(g for g in reached if g in imagined),
            "test_goals_reached_not_imagined": sorted(g for g in reached if g not in imagined),
        }
    }


def _test_summaries(per_goal: dict[str, float], test: list[str]) -> dict:
    """The test SR per generalization type, their mean over the 5 types (44 of the 64 test
    goals are type 5: the pooled SR is mostly type 5's) and the SR over the test goals CGH
    can imagine from the training goals (`imaginable_test_goals`)."""
    per_type = {
        str(t): float(np.mean([per_goal[g] for g in test if grammar.generalization_type(g) == t]))
        for t in range(1, 6)
    }
    imaginable = [per_goal[g] for g in imaginable_test_goals() if g in per_goal]
    return {
        "per_type": per_type,
        "test_success_type_mean": float(np.mean(list(per_type.values()))),
        "test_success_imaginable": float(np.mean(imaginable)) if imaginable else None,
    }


def evaluate_run(
    root_dir: str,
    repetitions: int = 30,
    num_objects: int | None = None,
    seed: int = 12345,
    write: bool = True,
    world: str = "default",
) -> dict:
    """Restores a run and measures the success rate per goal (train, test, per type) and what
    the policy did in its Grow episodes (`failure_modes`), in the Playground ``world``
    (`imagine_tf.env.config.WORLDS`: this project's rules or the authors' code's).

    The run may be training meanwhile (`load_agent` restores a consistent copy of its last
    checkpoint). Writes ``eval.json`` (the latest evaluation) and
    ``evaluations/epoch_EEEE.json`` (kept for every evaluated epoch; ``_nN`` at another N),
    unless ``write`` is False (a directory that must not change: the pretrained models).
    """
    layout = RunLayout(root_dir)
    learner = load_agent(layout.root)
    learner.evaluator.world = world
    result = evaluate_learner(learner, layout.root, repetitions, num_objects, seed, write)
    return {"world": world, **result}


def evaluate_learner(
    learner,
    root_dir: str | os.PathLike,
    repetitions: int = 30,
    num_objects: int | None = None,
    seed: int = 12345,
    write: bool = True,
) -> dict:
    """`evaluate_run` of a learner already in memory (a run's at its last checkpoint: the one
    that has just trained it), its files written into ``root_dir``."""
    layout = RunLayout(root_dir)
    config = learner.config
    per_goal, grow_outcomes = {}, {}
    for split, goals in (("train", grammar.train_goals()), ("test", grammar.test_goals())):
        success, grow_outcomes[split] = learner.evaluator.evaluate_with_outcomes(
            goals, repetitions, seed, num_objects
        )
        per_goal.update(success)
    test = [g for g in per_goal if grammar.is_test_goal(g)]
    train = [g for g in per_goal if g not in test]
    result = {
        "epoch": int(learner.epoch.numpy()),
        "num_objects": num_objects or config.num_objects,
        "repetitions": repetitions,
        "train_success": float(np.mean([per_goal[g] for g in train])),
        "test_success": float(np.mean([per_goal[g] for g in test])),
        **_test_summaries(per_goal, test),
        "train_per_predicate": {
            predicate: float(np.mean([per_goal[g] for g in train if g.split()[0] == predicate]))
            for predicate in PREDICATES
        },
        "test_per_predicate": {  # the predicates that have test goals (Grasp, Grow)
            predicate: float(np.mean(values))
            for predicate in PREDICATES
            if (values := [per_goal[g] for g in test if g.split()[0] == predicate])
        },
        "grow_outcomes": grow_outcomes,
        "per_goal": per_goal,
        **_imagination_summary(learner, {g: per_goal[g] for g in test}),
    }
    if not write:
        return result
    other_n = "" if result["num_objects"] == config.num_objects else f"_n{result['num_objects']}"
    text = json.dumps(result, indent=1)
    kept = run_layout.evaluation_file(layout.root, result["epoch"], other_n)
    kept.parent.mkdir(exist_ok=True)
    write_text_atomically(kept, text)
    write_text_atomically(layout / f"eval{other_n}.json", text)
    return result
