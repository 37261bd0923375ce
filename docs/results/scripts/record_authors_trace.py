"""Records episodes of the authors' own Playground, step by step, as a test fixture
(``tests/fixtures/authors/playground_trace.npz``), so that a default test can replay them in this
project's ``world="authors"`` and compare every observation (``tests/env/authors_world_test.py``).

Source: flowersteam/Imagine, MIT licence (Colas et al., NeurIPS 2020), a clone given by
``--authors-src``; their ``src/playground_env/playgroundnavv1.py`` (``PlayGroundNavigationV1``,
``reset_with_goal``, ``step``) and ``objects.py`` are imported at run time (nothing of theirs is
copied here). Their modules import ``pygame`` (rendering) and ``matplotlib`` (a colour plot) at
import time; both are replaced by stub modules that raise on any use, so an episode that needed
them would fail. Run once, outside the project's venv (their code needs gym 0.16's ``Box``):

    python3 -m venv /work/authorsenv && /work/authorsenv/bin/pip install "numpy<2" gym==0.16.0
    /work/authorsenv/bin/python docs/results/scripts/record_authors_trace.py \\
        --authors-src /work/authors_src --out tests/fixtures/authors/playground_trace.npz

Recorded, for E episodes of T steps in scenes of N = 3 objects (their default):

* ``goal``, ``plan`` [E] (str), ``seed`` [E]: ``np.random.seed(seed)``, then
  ``reset_with_goal(goal)``; ``plan`` names how the actions were made (below);
* the initial scene as their objects hold it: ``object_type``, ``colour`` [E, N] (str),
  ``rgb`` [E, N, 3], ``size`` [E, N], ``position`` [E, N, 2] (float64);
* ``actions`` [E, T, 3] (float64 holding float32 values: both worlds get the same numbers);
* ``observations`` [E, T + 1, 240]: what ``reset_with_goal`` and each ``step`` returned
  (float32: their float64 rounded); ``sizes``, ``grasped`` [E, T + 1, N]: each object's
  ``size`` and ``grasped``, and ``held`` [E, T + 1]: the env's ``object_grasped`` flag;
* ``supply_goal`` [G] (str), ``supply_water`` and ``supply_scenes`` [G]: how often the supply
  (object 1) of ``reset_with_goal(goal)`` was water, over fresh scenes;
* ``metadata``: JSON (source files and sha256, versions, seeds, T, how plans act).

Plans (the scripts read their env's state and aim the hand with actions in [-1, 1]):
``random`` (uniform actions), ``carry_supply`` (take the supply, carry it onto the living
thing, stay, then open the gripper while moving fast diagonally, then random), ``carry_living``
(the same, carrying the living thing onto the supply), ``two_supplies`` (carry an animal between
two supplies), ``grasp`` (take object 0, carry it, release it slowly, take it again, open while
moving fast), ``go`` (walk to a corner with a random gripper, then random).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import platform
import sys
import types

import numpy as np

STEPS = 50
SCRIPT_FILES = ("playgroundnavv1.py", "objects.py", "env_params.py", "color_generation.py")
SUPPLY_GOALS = (
    "Grow any living_thing",
    "Grow red living_thing",
    "Grow any animal",
    "Grow any plant",
    "Grow any red thing",
    "Grow green dog",
)
SUPPLY_SCENES = 300


def _stub(name: str) -> types.ModuleType:
    module = types.ModuleType(name)

    def __getattr__(attribute):  # noqa: N807 (module-level __getattr__)
        raise RuntimeError(f"{name}.{attribute} used: the recorder stubs {name} out.")

    module.__getattr__ = __getattr__
    return module


def load_authors_env(authors_src: pathlib.Path):
    """Their ``PlayGroundNavigationV1`` (rendering off), pygame and matplotlib stubbed."""
    for name in ("pygame", "matplotlib", "matplotlib.pyplot"):
        sys.modules.setdefault(name, _stub(name))
    sys.modules["matplotlib"].pyplot = sys.modules["matplotlib.pyplot"]
    sys.path.insert(0, str(authors_src))
    from src.playground_env.playgroundnavv1 import PlayGroundNavigationV1

    return PlayGroundNavigationV1(display=False, render_mode=False)


# ----------------------------------------------------------------------------------------------
# Scripted plans: generators of actions that read the env's state.
def _toward(env, target, grip: float) -> np.ndarray:
    move = np.clip((np.asarray(target) - np.asarray(env.agent_pos)) / env.agent_step_size, -1, 1)
    return np.array([move[0], move[1], grip])


def _near(env, target, tolerance=1e-3) -> bool:
    return np.linalg.norm(np.asarray(target) - np.asarray(env.agent_pos)) < tolerance


def _fetch(env, index, rng):
    """Walks to object ``index`` (gripper open, one in four steps closed while far) and closes."""
    while not _near(env, env.objects[index].position):
        far = np.linalg.norm(env.objects[index].position - np.asarray(env.agent_pos)) > 0.5
        yield _toward(env, env.objects[index].position, 1.0 if far and rng.random() < 0.25 else -1)
    yield np.array([0.0, 0.0, 1.0])


def _carry(env, target, stay, rng):
    """Carries the held object to ``target`` (a point or an object), stays, opens fast."""
    point = (lambda: target.position) if hasattr(target, "position") else (lambda: target)
    while not _near(env, point()):
        yield _toward(env, point(), 1.0)
    for _ in range(stay):
        yield np.array([0.0, 0.0, 1.0])
    yield np.array([1.0, 1.0, -1.0])  # open while moving 0.21: out of reach, still held
    yield np.array([-1.0, 1.0, -1.0])


def _grasp_growing(env, living, supply, rng):
    """Leaves the living thing on its supply, then closes the gripper at a distance that is
    out of its reach before this step's growth and within it after."""
    yield from _fetch(env, living, rng)
    while not _near(env, env.objects[supply].position):
        yield _toward(env, env.objects[supply].position, 1.0)
    yield np.array([0.0, 0.0, -1.0])  # released on the supply, in reach: it goes on growing
    thing = env.objects[living]
    grown = min(thing.size + env.params["obj_size_update"], 0.34)
    distance = ((thing.size + grown) / 2 + env.params["agent_size"]) / 2
    away = -thing.position / max(np.linalg.norm(thing.position), 1e-9)
    yield np.append(away * distance / env.agent_step_size, 1.0)


def plan_actions(env, plan: str, rng: np.random.Generator, args: dict):
    """The actions of one episode (a generator; random ones once the script is done)."""
    objects = env.objects
    if plan == "carry_supply" or plan == "carry_living":
        held, onto = (args["supply"], args["living"])
        if plan == "carry_living":
            held, onto = onto, held
        yield from _fetch(env, held, rng)
        yield from _carry(env, objects[onto], args.get("stay", 4), rng)
    elif plan == "two_supplies":
        yield from _fetch(env, args["living"], rng)
        middle = (objects[args["supply"]].position + objects[args["other"]].position) / 2
        yield from _carry(env, middle, 3, rng)
    elif plan == "grasp_growing":
        yield from _grasp_growing(env, args["living"], args["supply"], rng)
    elif plan == "grasp":
        yield from _fetch(env, 0, rng)
        yield from _carry(env, rng.uniform(-0.8, 0.8, 2), 1, rng)
        yield from _fetch(env, 0, rng)
        yield np.array([0.3, -0.2, -1.0])  # open while moving slowly: released
        yield from _fetch(env, 0, rng)
        yield from _carry(env, rng.uniform(-0.8, 0.8, 2), 0, rng)
    elif plan == "go":
        corner = np.array(args["corner"], dtype=float)
        while not _near(env, corner, 0.05):
            yield _toward(env, corner, rng.choice([-1.0, 1.0]))
    while True:
        yield rng.uniform(-1, 1, 3)


# ----------------------------------------------------------------------------------------------
# Episodes: a goal, a plan, and what the scene must hold for the plan to mean something.
def _kind(env, index) -> str:
    return type(env.objects[index]).__mro__[1].__name__  # Animals, Plants, Furnitures, Supplies


def _type(env, index) -> str:
    return env.objects[index].object_descr["types"]


def _feeds(env, supply, living) -> bool:
    kind = _kind(env, living)
    return _kind(env, supply) == "Supplies" and (
        kind == "Animals" or (kind == "Plants" and _type(env, supply) == "water")
    )


def _fed_after(env, supply):
    """The first living thing after ``supply`` in the list that it feeds, or None."""
    later = [i for i in range(supply + 1, len(env.objects)) if _feeds(env, supply, i)]
    return later[0] if later else None


def _two_supplies(env):
    supplies = [i for i in range(len(env.objects)) if _kind(env, i) == "Supplies"]
    if _kind(env, 0) != "Animals" or len(supplies) < 2:
        return None
    gap = np.linalg.norm(env.objects[supplies[0]].position - env.objects[supplies[1]].position)
    return dict(living=0, supply=supplies[0], other=supplies[1]) if gap < 0.45 else None


def _grow(kind, supply_type=None, small=False):
    def check(env):
        if _kind(env, 0) != kind or (supply_type and _type(env, 1) != supply_type):
            return None
        if small and env.objects[0].size > 0.21:
            return None
        return dict(living=0, supply=1)

    return check


def _supply_first(env):
    living = _fed_after(env, 0) if _kind(env, 0) == "Supplies" else None
    return None if living is None else dict(supply=0, living=living)


EPISODES = (  # (goal, plan, scene check -> plan arguments or None)
    ("Grow any animal", "carry_supply", _grow("Animals", "food")),
    ("Grow any animal", "carry_supply", _grow("Animals", "water")),
    ("Grow red dog", "carry_living", _grow("Animals", "food")),
    ("Grow any plant", "carry_supply", _grow("Plants")),
    ("Grow blue tree", "carry_living", _grow("Plants")),
    ("Grow red living_thing", "carry_supply", _grow("Animals")),
    ("Grow green living_thing", "carry_supply", _grow("Plants")),
    ("Grow any living_thing", "carry_living", _grow("Animals")),
    ("Grow blue living_thing", "carry_living", _grow("Animals")),
    ("Grow any red thing", "carry_supply", _grow("Animals", "food")),
    ("Grasp any water", "carry_supply", _supply_first),
    ("Grasp any food", "carry_supply", _supply_first),
    ("Grasp any supply", "carry_living", _supply_first),
    ("Grow any animal", "two_supplies", _two_supplies),
    ("Grow any animal", "grasp_growing", _grow("Animals", small=True)),
    ("Grow any plant", "grasp_growing", _grow("Plants", small=True)),
    ("Grasp any red thing", "grasp", None),
    ("Grasp blue furniture", "grasp", None),
    ("Grasp green cat", "grasp", None),
    ("Go top left", "go", lambda env: dict(corner=(-0.9, 0.9))),
    ("Go bottom right", "go", lambda env: dict(corner=(0.9, -0.9))),
    ("Grasp any animal", "random", None),
    ("Go center", "random", None),
    ("Grow any plant", "random", None),
    ("Grasp any supply", "carry_supply", _supply_first),  # added last: the seeds above stay
)


def find_scene(env, goal, check, first_seed):
    """The first seed >= ``first_seed`` whose scene passes ``check`` (and its arguments)."""
    for seed in range(first_seed, first_seed + 20_000):
        np.random.seed(seed)
        env.reset_with_goal(goal)
        args = check(env) if check else {}
        if args is not None:
            return seed, args
    raise RuntimeError(f"No scene for {goal!r} passes its check.")


def _object_state(env):
    sizes = [o.size for o in env.objects]
    grasped = [o.grasped for o in env.objects]
    return sizes, grasped, bool(env.object_grasped)


def record_episode(env, goal, plan, check, seed_base):
    """One episode: the scene, the actions and what their env returned at every step."""
    seed, args = find_scene(env, goal, check, seed_base)
    np.random.seed(seed)
    observations = [env.reset_with_goal(goal)]
    scene = dict(
        object_type=[o.object_descr["types"] for o in env.objects],
        colour=[o.object_descr["colors"] for o in env.objects],
        rgb=[o.rgb_code.copy() for o in env.objects],
        size=[o.size for o in env.objects],
        position=[o.position.copy() for o in env.objects],
    )
    states = [_object_state(env)]
    rng = np.random.default_rng(seed)
    actions = []
    script = plan_actions(env, plan, rng, args)
    for _ in range(STEPS):
        action = np.clip(next(script), -1, 1).astype(np.float32).astype(np.float64)
        observations.append(env.step(action)[0])
        actions.append(action)
        states.append(_object_state(env))
    sizes, grasped, held = zip(*states)
    if plan == "grasp_growing":  # the grasp that only this step's grown reach allows
        _report_grown_reach(goal, np.array(observations), np.array(sizes), args["living"])
    return dict(
        goal=goal,
        plan=plan,
        seed=seed,
        **scene,
        actions=np.array(actions),
        observations=np.array(observations),
        sizes=np.array(sizes),
        grasped=np.array(grasped),
        held=np.array(held),
    )


def _report_grown_reach(goal, observations, sizes, living):
    """Prints the steps at which ``living`` was taken from farther than its previous reach."""
    start = 3 + 39 * living + 32
    hand, position = observations[:, :2], observations[:, start : start + 2]
    grasped = observations[:, start + 6] > 0  # after x, y, size, R, G, B
    distance = np.linalg.norm(hand[1:] - position[:-1], axis=1)
    taken = grasped[1:] & ~grasped[:-1] & (distance >= (sizes[:-1, living] + 0.05) / 2)
    print(f"{goal!r}: taken within the grown reach only at steps {np.flatnonzero(taken) + 1}")


def supply_counts(env, seed):
    """Per goal of `SUPPLY_GOALS`: how many of `SUPPLY_SCENES` scenes got water as supply."""
    np.random.seed(seed)
    water = []
    for goal in SUPPLY_GOALS:
        count = 0
        for _ in range(SUPPLY_SCENES):
            env.reset_with_goal(goal)
            count += _type(env, 1) == "water"
        water.append(count)
    return np.array(water)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--authors-src", type=pathlib.Path, required=True)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args(argv)
    env = load_authors_env(args.authors_src.resolve())
    episodes = [
        record_episode(env, goal, plan, check, 1000 * i)
        for i, (goal, plan, check) in enumerate(EPISODES)
    ]
    stacked = {key: np.array([e[key] for e in episodes]) for key in episodes[0]}
    stacked["supply_goal"] = np.array(SUPPLY_GOALS)
    stacked["supply_water"] = supply_counts(env, 123)
    stacked["supply_scenes"] = np.full(len(SUPPLY_GOALS), SUPPLY_SCENES)
    source = args.authors_src / "src" / "playground_env"
    import gym

    metadata = dict(
        source="flowersteam/Imagine (MIT licence), src/playground_env/",
        files={
            name: hashlib.sha256((source / name).read_bytes()).hexdigest() for name in SCRIPT_FILES
        },
        versions=dict(python=platform.python_version(), numpy=np.__version__, gym=gym.__version__),
        stubbed=["pygame", "matplotlib"],
        env="PlayGroundNavigationV1(display=False, render_mode=False): 3 objects, step 0.15",
        steps=STEPS,
        episode_seeds="the first seed >= 1000 * episode index whose scene passes the plan's check",
        supply_seed=123,
        actions="float32 values; plans: see the script's docstring",
    )
    stacked["metadata"] = np.array(json.dumps(metadata, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **stacked)
    print(f"{args.out}: {len(episodes)} episodes, {args.out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
