"""Trajectory generation for datasets: batched, seeded episodes as RLDS-style dicts.

An episode follows the RLDS convention: T + 1 = 51 steps; step t holds the observation s_t, the
action a_t taken from it (zeros at the last step), reward and discount (0 and 1: the world has no
reward), and the flags is_first / is_last / is_terminal (never terminal: a time limit truncates).
Episode metadata: the target goal, its id in the goal list, the behaviour that produced it, and
the social partner's descriptions of the final state (training goals only, what the agent hears).

Behaviours (Colas et al. 2020, IMAGINE; flowersteam/Imagine):
  * "random": smooth random actions, a Gaussian-RBF generator with 10 bases per action
    dimension, σ = 3 steps, one basis every 6 steps, weights U(−1, 1), clipped to [−1, 1];
  * "scripted": the scripted expert towards the target goal with Gaussian action noise whose
    standard deviation is drawn per episode from U(0, max_noise);
  * "mixture": each episode is scripted or random with probability `scripted_fraction`, so that
    every goal has positives (as the paper's RL-collected data) and negatives.

Target goals cycle through the goal list (episode i pursues goal i mod G), so every goal is
pursued equally often. Generation runs `batch_size` episodes at once on the batched core and is
deterministic in (seed, episode index range): batch k is seeded with (seed, k).
"""

from __future__ import annotations

import dataclasses
from typing import Iterator

import numpy as np

from imagine_tf.env.config import PlaygroundConfig
from imagine_tf.env.physics import PlaygroundCore
from imagine_tf.language import grammar
from imagine_tf.language.goal_table import GoalTable
from imagine_tf.language.social_partner import SocialPartner
from imagine_tf.policies.scripted_policy import ScriptedPolicy

BEHAVIOURS = ("random", "scripted", "mixture")
RBF_BASES, RBF_SIGMA, RBF_SPACING = 10, 3.0, 6


@dataclasses.dataclass(frozen=True)
class EpisodeSpec:
    """What to generate.

    Attributes:
      behaviour: "random", "scripted" or "mixture".
      relational: target goals also include the 160 two-object goals.
      num_objects: N.
      scripted_fraction: share of scripted episodes in a mixture.
      max_noise: scripted episodes use Gaussian noise of std U(0, max_noise).
      seed: the generation seed.
    """

    behaviour: str = "mixture"
    relational: bool = True
    num_objects: int = 3
    scripted_fraction: float = 0.5
    max_noise: float = 0.6
    seed: int = 0

    def __post_init__(self):
        if self.behaviour not in BEHAVIOURS:
            raise ValueError(f"behaviour must be one of {BEHAVIOURS}, got {self.behaviour!r}.")

    def goals(self) -> tuple[str, ...]:
        """The goal list that targets cycle through (its index is `goal_id`)."""
        goals = grammar.one_object_goals()
        return goals + grammar.relational_goals() if self.relational else goals


def rbf_actions(rng: np.random.Generator, batch_size: int, num_steps: int) -> np.ndarray:
    """Smooth random actions, float32 [num_steps, B, 3] in [-1, 1]."""
    time = np.arange(num_steps)[:, None]
    centres = np.arange(RBF_BASES)[None, :] * RBF_SPACING
    basis = np.exp(-((time - centres) ** 2) / (2 * RBF_SIGMA**2))  # [T, K]
    weights = rng.uniform(-1, 1, size=(RBF_BASES, batch_size, 3))
    return np.clip(np.einsum("tk,kbd->tbd", basis, weights), -1, 1).astype(np.float32)


def generate_episodes(
    spec: EpisodeSpec, start: int, stop: int, batch_size: int = 500
) -> Iterator[tuple[int, dict]]:
    """Yields (episode index, RLDS episode dict) for episodes [start, stop).

    Batches are aligned on multiples of `batch_size`, so an episode does not depend on the
    range it is generated in.
    """
    goals = spec.goals()
    table = GoalTable.from_sentences(goals)
    partner = SocialPartner(relational=spec.relational)
    expert = ScriptedPolicy(table)
    config = PlaygroundConfig(num_objects=spec.num_objects)
    first_batch, last_batch = start // batch_size, (stop - 1) // batch_size
    for batch_index in range(first_batch, last_batch + 1):
        indices = np.arange(batch_index * batch_size, (batch_index + 1) * batch_size)
        episodes = _generate_batch(spec, indices, table, partner, expert, config)
        for index, episode in zip(indices, episodes):
            if start <= index < stop:
                yield int(index), episode


def _generate_batch(spec, indices, table, partner, expert, config) -> list[dict]:
    rng = np.random.default_rng([spec.seed, int(indices[0])])
    batch = len(indices)
    goal_ids = indices % len(table)
    core = PlaygroundCore(config, batch, seed=int(rng.integers(2**63)))
    if spec.behaviour == "mixture":
        scripted = rng.random(batch) < spec.scripted_fraction
    else:
        scripted = np.full(batch, spec.behaviour == "scripted")
    noise = rng.uniform(0, spec.max_noise, size=(batch, 1)) * scripted[:, None]
    random_actions = rbf_actions(rng, batch, config.episode_length)
    states = [core.reset(table.constraints(goal_ids))]
    actions = []
    for t in range(config.episode_length):
        expert_action = expert.action(states[-1], goal_ids)
        expert_action = expert_action + noise * rng.standard_normal(expert_action.shape)
        action = np.where(scripted[:, None], expert_action, random_actions[t]).astype(np.float32)
        actions.append(action)
        states.append(core.step(action))
    states = np.stack(states, axis=1)  # [B, T + 1, D]
    actions = np.stack(actions + [np.zeros_like(actions[0])], axis=1)  # [B, T + 1, 3]
    descriptions = partner.describe(states[:, -1])
    num_steps = states.shape[1]
    first = np.arange(num_steps) == 0
    last = np.arange(num_steps) == num_steps - 1
    return [
        {
            "steps": {
                "observation": {"state": states[b]},
                "action": actions[b],
                "reward": np.zeros(num_steps, np.float32),
                "discount": np.ones(num_steps, np.float32),
                "is_first": first,
                "is_last": last,
                "is_terminal": np.zeros(num_steps, bool),
            },
            "goal": table.sentences[goal_ids[b]],
            "goal_id": np.int32(goal_ids[b]),
            "behaviour": "scripted" if scripted[b] else "random",
            "descriptions": descriptions[b],
        }
        for b in range(batch)
    ]


def is_test_episode(index: int) -> bool:
    """The held-out episodes: every 10th (index % 10 == 9), as in the reference."""
    return index % 10 == 9
