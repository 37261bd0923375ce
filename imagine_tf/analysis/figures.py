"""What a person looks at after a run: the learning curve and the agent pursuing goals.

* `plot_learning_curve`: success rate of the noise-free policy on the train and test goals (and
  the train goals by predicate: Go, Grasp, Grow) per epoch (x axis in episodes × 10³, as the
  papers), discovered goals, the reward model's held-out F1 and what the hand held in the
  train Grow episodes — from ``progress.jsonl`` records. PNG, written atomically.
* `plot_runs`: several runs' curves on shared axes (`imagine-tf report --plot`).
* `render_agent`: a GIF of the trained policy pursuing a few goals, one after the other, with
  the goal written on each frame and the oracle's verdict on the last one.
"""

from __future__ import annotations

import os
import pathlib
from typing import Sequence

import numpy as np

from imagine_tf.env.rendering import render_states, write_episode
from imagine_tf.atomic_files import save_figure_atomically
from imagine_tf.env.grow_outcomes import GROW_LOG_KEYS, GROW_OUTCOMES


def plot_learning_curve(logs: Sequence[dict], path: str | os.PathLike) -> None:
    """Train / test success rate, discovered goals and reward F1 against episodes (PNG), and
    the Grow outcome shares of the in-training evaluation when the logs have them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    episodes = np.array([r["episodes"] for r in logs]) / 1000
    grow_keys = list(GROW_LOG_KEYS.values())
    # with an evaluator process, an epoch whose evaluation was lost has None: left out
    grow = [(e, r) for e, r in zip(episodes, logs) if all(r.get(k) is not None for k in grow_keys)]
    figure, axes = plt.subplots(1, 3 if grow else 2, figsize=(13.5 if grow else 9, 3.4))
    success, goals = axes[:2]
    success.plot(episodes, _values(logs, "eval_train_success"), label="train goals")
    success.plot(episodes, _values(logs, "eval_test_success"), label="test goals")
    for predicate, colour in (("go", "tab:purple"), ("grasp", "tab:brown"), ("grow", "tab:olive")):
        key = f"eval_train_success_{predicate}"
        if all(key in r for r in logs):
            success.plot(
                episodes,
                _values(logs, key),
                linewidth=0.8,
                color=colour,
                label=f"train: {predicate.capitalize()} goals",
            )
    f1 = [
        (e, r["reward_held_out_f1"])
        for e, r in zip(episodes, logs)
        if r.get("reward_held_out_f1") is not None
    ]
    if f1:
        success.plot(*zip(*f1), linestyle="--", label="reward F1 (held out)")
    success.set(xlabel="episodes (×10³)", ylabel="success rate", ylim=(0, 1.02))
    success.legend(fontsize=8)
    goals.plot(episodes, [r["discovered_goals"] for r in logs], color="tab:green")
    goals.set(xlabel="episodes (×10³)", ylabel="discovered goals")
    if grow:  # what the hand held in the train Grow episodes (`failure_modes`)
        x, records = zip(*grow)
        axes[2].stackplot(x, *[[r[k] for r in records] for k in grow_keys], labels=GROW_OUTCOMES)
        axes[2].set(xlabel="episodes (×10³)", ylabel="share of train Grow episodes", ylim=(0, 1))
        axes[2].legend(fontsize=7, loc="upper left")
    figure.tight_layout()
    save_figure_atomically(figure, path, dpi=110)


def _values(logs: Sequence[dict], key: str) -> np.ndarray:
    """float [epochs]: ``key`` of each record, NaN where it is None (a gap in the line)."""
    return np.array([np.nan if r[key] is None else r[key] for r in logs], float)


CURVES = (
    ("eval_train_success", "train goals: success rate"),
    ("eval_test_success", "test goals: success rate"),
    ("eval_train_success_grow", "train Grow goals: success rate"),
)


def run_labels(root_dirs: Sequence[str | os.PathLike]) -> list[str]:
    """A legend label per run directory: its name, or ``parent/name`` where names repeat (an
    evaluation copy, or two experiments' ``fa_s0``), so that no run hides another."""
    paths = [pathlib.Path(root) for root in root_dirs]
    names = [path.name for path in paths]
    return [
        name if names.count(name) == 1 else f"{path.parent.name}/{name}"
        for path, name in zip(paths, names)
    ]


def plot_runs(logs_by_run: dict[str, Sequence[dict]], path: str | os.PathLike) -> None:
    """Several runs' in-training curves side by side (PNG): train SR, test SR and Grow SR
    against episodes, one line per run (a fork's line starts at its source's epochs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(CURVES), figsize=(4.5 * len(CURVES), 3.4), sharey=True)
    for axis, (key, title) in zip(axes, CURVES):
        for name, logs in logs_by_run.items():
            points = [(r["episodes"] / 1000, r[key]) for r in logs if r.get(key) is not None]
            if points:
                axis.plot(*zip(*points), linewidth=1.0, label=name)
        axis.set(title=title, xlabel="episodes (×10³)", ylim=(0, 1.02))
    axes[0].set_ylabel("success rate (1 episode per goal)")
    axes[0].legend(fontsize=7)
    figure.tight_layout()
    save_figure_atomically(figure, path, dpi=110)


def render_agent(
    states: np.ndarray, goals: Sequence[str], achieved: Sequence[bool], path: str
) -> str:
    """A GIF of episodes played one after the other: states [B, T + 1, D], one goal each."""
    frames = []
    for episode, goal, success in zip(states, goals, achieved):
        captions = [goal] * (len(episode) - 1) + [
            f"{goal}: {'achieved' if success else 'not achieved'}"
        ]
        frames.append(render_states(episode, goals=captions))
    return write_episode(np.concatenate(frames), path)
