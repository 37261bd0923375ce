"""Records what the authors' own PyTorch networks compute, once, as test fixtures
(``tests/fixtures/authors/networks.npz``), so that a default test, without PyTorch, can check
that this project's conversion of their released agent (`imagine_tf.pretrained.authors`)
reproduces them (``tests/pretrained/authors_networks_test.py``).

Source: flowersteam/Imagine, MIT licence (Colas et al., NeurIPS 2020), a clone given by
``--authors-src``:

* their released files, ``pretrained_weights/``: ``params.json`` (dims, widths, goal lists),
  ``policy_checkpoints/policy_160.pkl`` (normalizer statistics and the actor's state dict),
  ``reward_checkpoints/reward_func_checkpoint_160`` (the reward model's state dict), loaded
  with ``torch.load`` (``weights_only``, numpy arrays allow-listed);
* their classes, built from their source at run time (parsed with `ast`, only the named class
  and function definitions executed: ``src/or_module/train_or_module.py`` trains an OR net at
  import time, their packages import MPI and gym): ``Feedforward`` and ``Actor``
  (``src/imagine/rl/actor_critic.py``), ``OrNet`` (``src/or_module/train_or_module.py``),
  ``Feedforward`` and ``RewardFunctionModel`` (``src/imagine/reward_function/model.py``), and
  their one-hot encoder (``analyze_descr``, ``Vocab``, ``OneHotEncoder`` of
  ``src/utils/nlp_tools.py``, ``get_one_hot_encoder`` of ``src/imagine/experiment/config.py``),
  built as their training script does, from the train and test goals.

Recorded (float32; inputs drawn with a fixed seed):

* ``sentences`` [255] and ``embeddings`` [255, 100]: the LSTM encoding
  (``get_description_embedding``) of every train and test goal of ``params.json``, spelled as
  their code spells them: ``params.json`` writes "cameleon", their environment's code (which
  builds the goals their training script encodes) "chameleon"; checked on their source;
* ``actor_states`` [A, 240], ``actor_goal_embeddings`` [A, 100] (rows of ``embeddings``,
  ``actor_goal_index``) and ``actor_actions`` [A, 3]: ``Actor.forward``;
* ``reward_states`` [R, 240], ``reward_goal_index`` [R] (into ``sentences``),
  ``reward_probabilities`` [R] (``RewardFunctionModel.forward``: LSTM, gated modules, OR net),
  ``reward_module_probabilities`` [R, 3] (before the OR) and ``reward_oracle`` [R] (this
  project's oracle on the same pair);
* ``metadata``: JSON (files and sha256, versions, vocabulary, seed, how the inputs were drawn,
  and that the release holds **no critic**: no critic values are recorded).

The states are real ones: episodes of this project's Playground played by the converted agent
(one per train and test goal), recorded by this same script run with the project's
interpreter (``scenes``, a subprocess by default). Actor rows: states at random steps with the
episode's goal (or, for a quarter, another goal); reward rows: final states with their goal
when the oracle says it is reached (positives), final states with random goals, and states at
random steps with their goal.

Run (PyTorch is needed only for this recording, never by imagine-tf or its tests):

    python3 -m venv /work/torchvenv && /work/torchvenv/bin/pip install torch==2.13.0 numpy
    /work/torchvenv/bin/python docs/results/scripts/record_authors_fixtures.py \\
        --authors-src /work/authors_src --out tests/fixtures/authors/networks.npz

(``--scenes FILE`` takes states recorded beforehand by ``.venv/bin/python
docs/results/scripts/record_authors_fixtures.py scenes --authors-src ... --out FILE``.)
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]
WEIGHTS = "pretrained_weights"
PARAMS = "params.json"
POLICY = "policy_checkpoints/policy_160.pkl"
REWARD = "reward_checkpoints/reward_func_checkpoint_160"
#: params.json's spelling -> their code's
RESPELLINGS = {"cameleon": "chameleon"}
SEED = 20201109
ACTOR_ROWS = 320
#: reward rows: final state + its reached goal, final state + random goal, random step + its goal
REWARD_ROWS = (128, 96, 96)
SCENES_SEED = 12345
THREADS = {"TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1", "OMP_NUM_THREADS": "1"}


# ---------------------------------------------------------------------------------------------
# scenes: run with this project's interpreter (imagine_tf, TensorFlow)


def record_scenes(weights: pathlib.Path, out: pathlib.Path, seed: int = SCENES_SEED) -> None:
    """Plays every train and test goal once with the converted agent in this project's
    Playground (noise-free); saves the actor and reward input rows drawn from the episodes
    (`draw_rows`), with the oracle's verdict on each reward row."""
    from imagine_tf.language import grammar, oracle
    from imagine_tf.language.goal_table import GoalTable
    from imagine_tf.pretrained.authors import convert_authors

    goals = list(grammar.train_goals()) + list(grammar.test_goals())
    with tempfile.TemporaryDirectory(prefix="authors-fixtures-") as directory:
        converted = convert_authors(weights, pathlib.Path(directory) / "authors")
    learner = converted[0] if isinstance(converted, tuple) else converted  # (learner, card)
    episodes, success = learner.evaluator.play(goals, seed=seed)
    table = GoalTable.from_sentences(goals)
    rows = draw_rows(
        episodes.states.astype(np.float32),  # [B, T + 1, 240]: s_t = [o_t, o_t - o_0]
        oracle.achieved_matrix(episodes.final_states, table),
        np.random.default_rng(seed),
    )
    goal_ids = rows["reward_goal_ids"]
    rows["reward_oracle"] = oracle.achieved(rows["reward_states"], table, goal_ids)
    np.savez_compressed(
        out,
        goals=np.array(goals),
        success=success,
        seed=np.int64(seed),
        **rows,
    )
    print(f"{out}: {len(goals)} episodes, success {np.mean(success):.3f}", file=sys.stderr)


def draw_rows(states: np.ndarray, reached: np.ndarray, rng: np.random.Generator) -> dict:
    """Actor and reward input rows from B episodes (episode b pursued goal b) of T + 1 states
    and which goals their final states reach ([B, B])."""
    episodes, steps = states.shape[:2]
    own = np.arange(episodes)
    index, step = rng.integers(episodes, size=ACTOR_ROWS), rng.integers(steps, size=ACTOR_ROWS)
    actor_goals = np.where(
        rng.random(ACTOR_ROWS) < 0.75, own[index], rng.integers(episodes, size=ACTOR_ROWS)
    )
    positives, random_goal, random_step = REWARD_ROWS
    reaching = np.flatnonzero(reached.any(axis=1))
    first = rng.choice(reaching, positives)
    first_goals = [
        b if reached[b, b] and rng.random() < 0.5 else rng.choice(np.flatnonzero(reached[b]))
        for b in first
    ]
    second = rng.integers(episodes, size=random_goal)
    third = rng.integers(episodes, size=random_step)
    third_step = rng.integers(steps, size=random_step)
    return {
        "actor_states": states[index, step],
        "actor_goal_ids": actor_goals,
        "reward_states": np.concatenate(
            [states[first, -1], states[second, -1], states[third, third_step]]
        ),
        "reward_goal_ids": np.concatenate(
            [first_goals, rng.integers(episodes, size=random_goal), own[third]]
        ).astype(np.int64),
        "reward_kind": np.array(
            ["reached"] * positives + ["random_goal"] * random_goal + ["random_step"] * random_step
        ),
    }


def scenes_in_subprocess(authors_src: pathlib.Path, python: str, out: pathlib.Path) -> None:
    command = [python, __file__, "scenes", "--authors-src", str(authors_src), "--out", str(out)]
    env = {**os.environ, **THREADS, "TF_CPP_MIN_LOG_LEVEL": "3"}
    subprocess.run(command, check=True, cwd=REPOSITORY, env=env)


# ---------------------------------------------------------------------------------------------
# the authors' networks: run with PyTorch


def their_definitions(path: pathlib.Path, names: list[str], namespace: dict) -> dict:
    """Executes only the top-level classes and functions ``names`` of one of their modules
    (nothing else of it runs) in ``namespace``, which provides what they use."""
    tree = ast.parse(path.read_text(), str(path))
    nodes = [
        node
        for node in tree.body
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name in names
    ]
    missing = set(names) - {node.name for node in nodes}
    if missing:
        raise SystemExit(f"{path} has no top-level {sorted(missing)}: not their code?")
    exec(compile(ast.Module(body=nodes, type_ignores=[]), str(path), "exec"), namespace)
    return namespace


def their_classes(src: pathlib.Path) -> dict:
    """{"Actor", "RewardFunctionModel", "OrNet", "get_one_hot_encoder"}, from their source."""
    import abc

    import torch
    import torch.nn.functional as F
    from torch import nn
    from torch.autograd import Variable

    base = {"torch": torch, "nn": nn, "F": F, "np": np}
    actor = their_definitions(
        src / "imagine/rl/actor_critic.py", ["Feedforward", "Actor"], {**base}
    )
    ornet = their_definitions(src / "or_module/train_or_module.py", ["OrNet"], {**base})
    reward = their_definitions(
        src / "imagine/reward_function/model.py",
        ["Feedforward", "RewardFunctionModel"],
        {**base, "OrNet": ornet["OrNet"], "Variable": Variable},
    )
    nlp = their_definitions(
        src / "utils/nlp_tools.py",
        ["analyze_descr", "Vocab", "AbstractEncoder", "OneHotEncoder"],
        {"np": np, "ABC": abc.ABC, "abstractmethod": abc.abstractmethod},
    )
    encoder = their_definitions(src / "imagine/experiment/config.py", ["get_one_hot_encoder"], nlp)
    return {
        "Actor": actor["Actor"],
        "RewardFunctionModel": reward["RewardFunctionModel"],
        "OrNet": ornet["OrNet"],
        "get_one_hot_encoder": encoder["get_one_hot_encoder"],
    }


def code_words(src: pathlib.Path) -> set[str]:
    """The lower-case words of the string constants of their environment's goal code."""
    words = set()
    for name in ("playground_env/env_params.py", "playground_env/descriptions.py"):
        for node in ast.walk(ast.parse((src / name).read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                words.update(node.value.lower().replace("{}", " ").split())
    return words


def their_sentences(params: dict, src: pathlib.Path) -> list[str]:
    """params.json's train then test goals, respelled as their code spells them (checked: the
    respelled words, and only those, are missing from their code)."""
    goals = params["train_descriptions"] + params["test_descriptions"]
    words = {word for goal in goals for word in goal.lower().split(" ")}
    absent = words - code_words(src)
    if absent != set(RESPELLINGS) or not set(RESPELLINGS.values()) <= code_words(src):
        raise SystemExit(f"params.json's words absent from their code: {sorted(absent)}")
    return [" ".join(RESPELLINGS.get(w, w) for w in goal.split(" ")) for goal in goals]


def load_released(weights: pathlib.Path) -> tuple[list, dict]:
    """(policy pickle items, reward state dict) as torch loads them (weights only)."""
    import torch

    numpy_globals = [
        (np._core.multiarray._reconstruct, "numpy.core.multiarray._reconstruct"),
        np.ndarray,
        (np.dtype, "numpy.dtype"),
        np.dtypes.Float32DType,
        np.dtypes.Float64DType,
    ]
    with torch.serialization.safe_globals(numpy_globals):
        policy = torch.load(weights / POLICY, map_location="cpu", weights_only=True)
    reward = torch.load(weights / REWARD, map_location="cpu", weights_only=True)
    return policy, reward


def build_networks(classes: dict, params: dict, policy: list, reward_state: dict, encoder):
    """Their actor and reward model (eval mode) with the released weights, strictly loaded."""
    import torch

    dims, learning = params["dims"], params["learning_params"]
    actor = classes["Actor"](dims, int(learning["layers"]), int(learning["hidden"]))
    actor.load_state_dict(policy[4], strict=True)
    inds = dims["inds_objs"]
    with tempfile.TemporaryDirectory(prefix="authors-or-") as directory:
        # their constructor loads a pretrained OR net from disk; the checkpoint replaces it
        or_file = pathlib.Path(directory) / "or.pt"
        torch.save(classes["OrNet"](len(inds)).state_dict(), or_file)
        reward = classes["RewardFunctionModel"](
            or_params_path={len(inds): str(or_file)},
            body_size=int(inds[0][0]),
            obj_size=len(inds[0]),
            n_obj=len(inds),
            state_size=int(dims["obs"]),
            voc_size=encoder.vocab.size,
            sequence_length=encoder.max_seq_length,
            batch_size=int(params["reward_function"]["batch_size"]),
            num_hidden_lstm=int(params["reward_function"]["num_hidden_lstm"]),
        )
    reward.load_state_dict(reward_state, strict=True)
    return actor.eval(), reward.eval()


def check_no_critic(policy: list) -> dict:
    """What the policy pickle holds: [o_mean, o_std, g_mean, g_std, actor state dict]."""
    if len(policy) != 5 or not all(isinstance(item, np.ndarray) for item in policy[:4]):
        raise SystemExit(f"unexpected policy pickle: {[type(item) for item in policy]}")
    keys = list(policy[4])
    if any(not key.startswith(("fc_cast.", "fc_actor.", "fc_pi.")) for key in keys):
        raise SystemExit(f"the policy pickle holds more than an actor: {keys}")
    identity = [np.zeros(240), np.ones(240), np.zeros(100), np.ones(100)]
    return {
        "recorded": False,
        "why": "the release holds no critic: policy_160.pkl is [o_mean, o_std, g_mean, g_std, "
        "actor state dict] (their DDPG.save_model), with no Critic weights",
        "policy_items": ["o_mean [240]", "o_std [240]", "g_mean [100]", "g_std [100]"]
        + ["actor state dict"],
        "actor_keys": keys,
        "normalizer_identity": all(np.array_equal(a, b) for a, b in zip(policy[:4], identity)),
    }


def sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record_networks(authors_src: pathlib.Path, scenes: dict, out: pathlib.Path) -> None:
    """Their networks' outputs on every goal sentence and on the scenes' rows, into ``out``."""
    import torch

    torch.set_num_threads(1)
    weights, src = authors_src / WEIGHTS, authors_src / "src"
    params = json.loads((weights / PARAMS).read_text())
    classes = their_classes(src)
    sentences = their_sentences(params, src)
    encoder = classes["get_one_hot_encoder"](sentences)  # as their train.py: train + test goals
    policy, reward_state = load_released(weights)
    actor, reward = build_networks(classes, params, policy, reward_state, encoder)
    one_hot = np.array([encoder.encode(s.lower().split(" ")) for s in sentences], np.float32)
    index = {sentence: i for i, sentence in enumerate(sentences)}
    project_goals = [str(goal) for goal in scenes["goals"]]
    actor_goals = np.array([index[project_goals[i]] for i in scenes["actor_goal_ids"]], np.int16)
    reward_goals = np.array([index[project_goals[i]] for i in scenes["reward_goal_ids"]], np.int16)
    actor_states = np.asarray(scenes["actor_states"], np.float32)
    reward_states = np.asarray(scenes["reward_states"], np.float32)
    with torch.no_grad():
        embeddings = reward.get_description_embedding(torch.from_numpy(one_hot)).numpy()
        actions = actor(torch.from_numpy(actor_states), torch.from_numpy(embeddings[actor_goals]))
        state, goal = torch.from_numpy(reward_states), torch.from_numpy(one_hot[reward_goals])
        probabilities = reward(state, goal)[:, 0]
        modules = torch.cat(
            reward.compute_logits_before_or(state, torch.from_numpy(embeddings[reward_goals])),
            dim=1,
        )
    metadata = describe(authors_src, params, policy, encoder, scenes)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out,
        sentences=np.array(sentences),
        embeddings=embeddings.astype(np.float32),
        actor_states=actor_states,
        actor_goal_index=actor_goals,
        actor_goal_embeddings=embeddings[actor_goals].astype(np.float32),
        actor_actions=actions.numpy().astype(np.float32),
        reward_states=reward_states,
        reward_goal_index=reward_goals,
        reward_probabilities=probabilities.numpy().astype(np.float32),
        reward_module_probabilities=modules.numpy().astype(np.float32),
        reward_oracle=np.asarray(scenes["reward_oracle"], bool),
        reward_kind=np.asarray(scenes["reward_kind"]),
        metadata=np.array(json.dumps(metadata, indent=1)),
    )
    print(f"{out}: {out.stat().st_size / 1e3:.0f} kB", file=sys.stderr)


def describe(authors_src: pathlib.Path, params: dict, policy: list, encoder, scenes) -> dict:
    """The fixture's metadata."""
    import torch

    weights = authors_src / WEIGHTS
    vocabulary = [encoder.vocab.id2word[i] for i in range(encoder.vocab.size)]
    return {
        "what": "outputs of the authors' own PyTorch networks (actor, reward model) with their "
        "released weights, for tests/pretrained/authors_networks_test.py",
        "source": "flowersteam/Imagine, MIT licence (Colas et al., NeurIPS 2020)",
        "files": {f"{WEIGHTS}/{name}": sha256(weights / name) for name in (PARAMS, POLICY, REWARD)},
        "code": {
            "src/imagine/rl/actor_critic.py": ["Feedforward", "Actor"],
            "src/or_module/train_or_module.py": ["OrNet"],
            "src/imagine/reward_function/model.py": ["Feedforward", "RewardFunctionModel"],
            "src/utils/nlp_tools.py": [
                "analyze_descr",
                "Vocab",
                "AbstractEncoder",
                "OneHotEncoder",
            ],
            "src/imagine/experiment/config.py": ["get_one_hot_encoder"],
        },
        "recorded_by": "docs/results/scripts/record_authors_fixtures.py",
        "torch": torch.__version__,
        "numpy": np.__version__,
        "seed": SEED,
        "scenes_seed": int(scenes["seed"]),
        "scenes": "this project's Playground, one noise-free episode per train and test goal "
        "played by the converted agent (imagine_tf.pretrained.authors.convert_authors); "
        f"success {float(np.mean(scenes['success'])):.3f}",
        "vocabulary": vocabulary,
        "max_seq_length": int(encoder.max_seq_length),
        "respelled": RESPELLINGS,
        "actor_inputs": "states at random steps (0..T) of the episodes, with the embedding of "
        "the episode's goal (3 in 4 rows) or of a random goal; Actor.forward, eval mode",
        "reward_inputs": {
            "reached": "final states with a goal the oracle says they reach",
            "random_goal": "final states with a random goal",
            "random_step": "states at random steps with the episode's goal",
        },
        "reward_output": "RewardFunctionModel.forward: the OR net's output (0.98 sigmoid + 0.01)",
        "normalization": "none: params.json normalize_obs is false and the pickle's statistics "
        "are the identity; the actor reads raw observations",
        "critic": check_no_critic(policy),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", choices=("networks", "scenes"), default="networks")
    parser.add_argument("--authors-src", type=pathlib.Path, required=True, help="their clone")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--scenes", type=pathlib.Path, help="states from the `scenes` mode")
    parser.add_argument("--project-python", default=str(REPOSITORY / ".venv/bin/python"))
    args = parser.parse_args(argv)
    if args.mode == "scenes":
        record_scenes(args.authors_src / WEIGHTS, args.out)
        return
    with tempfile.TemporaryDirectory(prefix="authors-scenes-") as directory:
        scenes_file = args.scenes
        if scenes_file is None:
            scenes_file = pathlib.Path(directory) / "scenes.npz"
            scenes_in_subprocess(args.authors_src, args.project_python, scenes_file)
        with np.load(scenes_file) as scenes:
            record_networks(args.authors_src, dict(scenes), args.out)


if __name__ == "__main__":
    main()
