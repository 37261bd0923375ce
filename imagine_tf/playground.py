"""Convenience entry points that assemble the world and its language: `make_env`, `play`.

env = imagine_tf.make_env(batch_size=8, num_objects=3, seed=0)
result = imagine_tf.play(["Grasp red cat"] * 8, policy="scripted", seed=0)
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import gin
import numpy as np

from imagine_tf.env.config import world_config
from imagine_tf.env.playground_env import PlaygroundEnv
from imagine_tf.language import grammar, oracle
from imagine_tf.language.goal_source import GoalCatalog
from imagine_tf.language.social_partner import SocialPartner
from imagine_tf.policies.scripted_policy import ScriptedPolicy

POLICIES = ("scripted", "random")


@gin.configurable
def make_env(
    batch_size: int = 1,
    num_objects: int = 3,
    seed: int | None = None,
    split: str = "train",
    relational: bool = False,
    reward: str = "none",
    distractor_sampling: str | None = None,
    object_init_range: float = 1.0,
    episode_length: int = 50,
    world: str = "default",
) -> PlaygroundEnv:
    """A batched `PlaygroundEnv` with the grammar's goals (see `GoalCatalog`, `PlaygroundConfig`).

    Gin-configurable (configs/world/playground.gin); arguments given by a caller win over bindings.
    ``reward="goal"`` puts the oracle reward (0 achieved, -1 not) of s_t in each time step.
    ``world``: "default" or "authors" (the rules of the authors' code, `world_config`);
    ``distractor_sampling=None`` is the world's ("uniform_types" in the default world). A value
    that contradicts the world (e.g. "uniform_types" with "authors") raises a ValueError.
    """
    config = world_config(
        world,
        num_objects=num_objects,
        episode_length=episode_length,
        distractor_sampling=distractor_sampling,
        object_init_range=object_init_range,
    )
    catalog = GoalCatalog(split=split, relational=relational)
    return PlaygroundEnv(catalog, config=config, batch_size=batch_size, seed=seed, reward=reward)


@dataclasses.dataclass
class EpisodeResult:
    """What happened in a batch of episodes.

    Attributes:
      goals: the B goal sentences.
      achieved: bool [B], the oracle's verdict on the final states.
      descriptions: per scene, the partner's sentences about the final state.
      states: float32 [T + 1, B, D], the observations s_0..s_T.
      actions: float32 [T, B, 3], the actions taken.
    """

    goals: list[str]
    achieved: np.ndarray
    descriptions: list[list[str]]
    states: np.ndarray
    actions: np.ndarray


def play(
    goals: Sequence[str],
    policy: str = "scripted",
    num_objects: int | None = None,
    seed: int | None = 0,
    noise_std: float = 0.0,
    include_test_descriptions: bool = True,
) -> EpisodeResult:
    """Plays one episode per goal (all in one batch) and judges the final states.

    Args:
      goals: goal sentences (case-insensitive; unknown goals raise a ValueError naming the
        nearest valid goals).
      policy: "scripted" (the expert) or "random" (uniform actions).
      num_objects: N (None: the `make_env` default or its gin binding, 3 unless bound).
      seed: seeds the scenes, the policy noise and the random policy.
      noise_std: Gaussian action noise of the scripted policy.
      include_test_descriptions: the partner also says test goals (for display).
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}.")
    goals = [grammar.check_goal(g) for g in goals]
    relational = any(grammar.is_relational(g) for g in goals)
    world = {} if num_objects is None else {"num_objects": num_objects}
    env = make_env(batch_size=len(goals), seed=seed, relational=relational, **world)
    catalog: GoalCatalog = env.goal_source
    expert = ScriptedPolicy(catalog.table, noise_std=noise_std, seed=seed)
    rng = np.random.default_rng(seed)
    time_step = env.reset_with_goals(goals)
    states, actions = [time_step.observation["state"]], []
    while not time_step.is_last().all():
        state = time_step.observation["state"]
        if policy == "scripted":
            action = expert.action(state, env.goal_ids)
        else:
            action = rng.uniform(-1, 1, size=(len(goals), 3)).astype(np.float32)
        time_step = env.step(action)
        states.append(time_step.observation["state"])
        actions.append(action)
    final = states[-1]
    partner = SocialPartner(relational=relational, include_test=include_test_descriptions)
    return EpisodeResult(
        goals=goals,
        achieved=oracle.achieved(final, catalog.table, env.goal_ids),
        descriptions=partner.describe(final),
        states=np.stack(states),
        actions=np.stack(actions),
    )
