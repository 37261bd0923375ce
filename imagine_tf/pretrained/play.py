"""The pretrained agent (or any restored learner) playing goals: `imagine_tf.play`'s result
for a trained policy, with the partner's descriptions of the final states."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from imagine_tf.agent.learning import Learner
from imagine_tf.analysis.saved_run import load_agent
from imagine_tf.language import grammar
from imagine_tf.language.social_partner import SocialPartner
from imagine_tf.playground import EpisodeResult
from imagine_tf.pretrained.location import agent_dir


def load_pretrained_agent() -> Learner:
    """The repository's pretrained agent (`models/`), restored for acting and evaluation."""
    return load_agent(agent_dir())


def play_agent(
    learner: Learner,
    goals: Sequence[str],
    seed: int = 0,
    num_objects: int | None = None,
) -> EpisodeResult:
    """One noise-free episode of the learner's policy per goal, in one batch.

    Args:
      learner: a restored learner (`load_agent`, `load_pretrained_agent`).
      goals: one-object goal sentences (training or test goals; case-insensitive).
      seed: the scenes' seed.
      num_objects: N (default: the run's; the MA policy acts at any N).

    Raises:
      ValueError: an unknown goal (naming the nearest ones) or a two-object goal, which the
        agent was never trained on.
    """
    goals = [grammar.check_goal(goal) for goal in goals]
    relational = [goal for goal in goals if grammar.is_relational(goal)]
    if relational:
        raise ValueError(
            f"{relational[0]!r} is a two-object goal; the trained agent knows the one-object "
            "goals only (imagine-tf goals lists them): play it with the scripted expert."
        )
    episodes, achieved = learner.evaluator.play(goals, seed, num_objects)
    partner = SocialPartner(include_test=True)
    return EpisodeResult(
        goals=goals,
        achieved=np.asarray(achieved, bool),
        descriptions=partner.describe(episodes.final_states),
        states=np.swapaxes(episodes.states, 0, 1),  # [T + 1, B, D], as `imagine_tf.play`
        actions=np.swapaxes(episodes.actions, 0, 1),
    )
