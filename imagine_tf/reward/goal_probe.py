"""`TestGoalProbe`: how well the learned reward recognises the test goals, epoch by epoch.

IMAGINE's explanation of why imagination helps (Colas et al. 2020, §4.3) is that the reward
model, trained only on the partner's training-goal descriptions, already generalizes to test
goals; imagined test goals are then pursued and relabelled with a reward that is mostly right.
The probe measures that mechanism on a fixed set of labelled states, the same for every run,
arm and epoch:

* states: the final states of ``episodes_per_goal`` episodes of the scripted expert per test
  goal (64 goals), in scenes made for that goal (seed ``seed``, N = the run's objects);
* labels: the oracle's verdict for every (state, test goal) pair, bool [S, 64];
* F1: per goal over the probe states, averaged over the goals given that have a positive
  state (the reward co-training's held-out F1, on other states and goals).

`GoalProbe` is the same over any goal set (the pretrained models' card probes the training
goals too).

The probe is analysis only: nothing it measures feeds back into training.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.reward.f1 import f1_per_goal

PROBE_SEED = 2020


class GoalProbe:
    """Labelled final states for a set of goals (`TestGoalProbe`: the 64 test goals).

    Args:
      goals: the probed goals (one-object goals).
      num_objects: N of the probe's scenes (the run's).
      episodes_per_goal: expert episodes per goal.
      seed: the scenes' and the expert's seed (one fixed probe for every run).
    """

    def __init__(
        self,
        goals: Sequence[str],
        num_objects: int,
        episodes_per_goal: int = 4,
        seed: int = PROBE_SEED,
    ):
        self.goals = tuple(goals)
        self.states = _expert_final_states(list(self.goals) * episodes_per_goal, num_objects, seed)
        self.labels = oracle.achieved_matrix(self.states, GoalTable.from_sentences(self.goals))
        self._column = {goal: i for i, goal in enumerate(self.goals)}

    def f1(self, goals: Sequence[str], predicted: np.ndarray) -> float | None:
        """Mean per-goal F1 of ``predicted``, bool [S, G] (the reward's verdicts on `states`
        × `goals`, computed once per epoch), over the probed goals among ``goals`` that have a
        positive probe state; None if there is none."""
        columns = [self._column[g] for g in goals if g in self._column]
        columns = [c for c in columns if self.labels[:, c].any()]
        if not columns:
            return None
        return float(np.mean(f1_per_goal(predicted[:, columns], self.labels[:, columns]).numpy()))


class TestGoalProbe(GoalProbe):
    """The probe of the 64 test goals (``episodes_per_goal`` expert episodes each)."""

    __test__ = False  # not a pytest class

    def __init__(self, num_objects: int, episodes_per_goal: int = 4, seed: int = PROBE_SEED):
        super().__init__(grammar.test_goals(), num_objects, episodes_per_goal, seed)


def _expert_final_states(goals: list[str], num_objects: int, seed: int) -> np.ndarray:
    """s_T, float32 [len(goals), D], of one scripted-expert episode per goal (noise-free)."""
    from imagine_tf.env.config import PlaygroundConfig
    from imagine_tf.env.playground_env import PlaygroundEnv
    from imagine_tf.language.goal_source import GoalCatalog
    from imagine_tf.policies.scripted_policy import ScriptedPolicy

    catalog = GoalCatalog(split="train")  # as `imagine_tf.play` builds it: the same scenes
    env = PlaygroundEnv(
        catalog,
        config=PlaygroundConfig(num_objects=num_objects),
        batch_size=len(goals),
        seed=seed,
    )
    expert = ScriptedPolicy(catalog.table, seed=seed)
    time_step = env.reset_with_goals(goals)
    while not time_step.is_last().all():
        time_step = env.step(expert.action(time_step.observation["state"], env.goal_ids))
    return np.asarray(time_step.observation["state"], np.float32)


def imagination_record(imagined: Sequence[str], known: int, discovered: int) -> dict:
    """The imagined set against the test goals: size, precision (share of imagined goals that
    are test goals) and coverage (share of the test goals imagined)."""
    test = set(grammar.test_goals())
    found = len(set(imagined) & test)
    return {
        "imagined_goals": len(imagined),
        "imagined_test_goals": found,
        "imagined_known_goals": int(known - discovered),
        "imagined_precision": found / len(imagined) if imagined else None,
        "imagined_test_coverage": found / len(test),
    }
