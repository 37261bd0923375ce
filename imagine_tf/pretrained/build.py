"""`imagine-tf pretrained build`: ``models/`` from a finished agent run and the other seeds of
its configuration.

1. checks the runs: each finished (config.json, progress.jsonl, an evaluation of its last
   epoch: eval.json or ``evaluations/epoch_NNNN.json``; the shipped run also its checkpoint),
   all of one configuration but their seeds, the shipped run among them. The other seeds may
   be an experiment's compact records (`experiments/cells.py`'s kept cells, without
   checkpoints);
2. copies the shipped run's records (config, gin files, fork.json, progress.jsonl, eval.json)
   and writes its networks-only checkpoint (`write_networks_checkpoint`: no optimizer state,
   target networks, reward memory or replay), then exports its reward model (version 1);
3. measures the shipped copy (`measures`: SR, the check, reward F1 of the checkpoint's
   network and of the SavedModel) and every seed's run (SR per type from its evaluation; F1
   measured where its checkpoint is, else the F1 its run recorded);
4. writes ``card.json`` (`write_record`, whole) and ``README.md`` from it (`card.render_readme`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
import shutil

from imagine_tf.runs.checkpoint import write_networks_checkpoint
from imagine_tf.analysis.saved_run import load_agent, load_reward_network
from imagine_tf.analysis.run_evaluation import evaluate_run
from imagine_tf.analysis.success_report import run_logs
from imagine_tf.atomic_files import write_record, write_text_atomically
from imagine_tf.pretrained import measures
from imagine_tf.pretrained.card import SPREAD_METRICS, render_readme
from imagine_tf.pretrained.location import CARD, README
from imagine_tf.pretrained.provenance import data_summary, provenance
from imagine_tf.reward.export import export_reward_model
from imagine_tf.reward.or_network import PACKAGED_DIR, weight_dirs, weights_path
from imagine_tf.runs import layout as run_layout
from imagine_tf.runs.config_keys import flat_config

#: The records of the shipped run copied beside its checkpoint.
KEPT_FILES = (
    run_layout.CONFIG_JSON,
    run_layout.RUN_GIN,
    run_layout.OPERATIVE_GIN,
    run_layout.FORK,
    run_layout.PROGRESS,
    run_layout.EVAL_JSON,
)
REWARD = "reward"
REWARD_VERSION = 1


class BuildError(ValueError):
    """Runs that cannot make the pretrained models (said with what to give instead)."""


@dataclasses.dataclass
class BuildRequest:
    """What `build_models` makes the models from.

    Attributes:
      run: the shipped run (an agent run of `imagine-tf train`, finished and evaluated).
      seed_runs: every seed's run of the same configuration, ``run`` among them.
      out: the models directory (``models/``); ``<out>/imagine_<run name>/`` is replaced.
      experiment_record: the experiment's report (``docs/results/experiments/NAME.json``),
        whose ``cell_commands`` say how each run was made.
      command: the command line, for the card.
      code_version: the code that builds (and measures), for the card.
    """

    run: pathlib.Path
    seed_runs: list[pathlib.Path]
    out: pathlib.Path
    experiment_record: pathlib.Path
    command: str
    code_version: str


def _evaluation_path(run: pathlib.Path, progress: list[dict]) -> pathlib.Path:
    """The run's eval.json, else its kept evaluation of its last epoch."""
    if (run / run_layout.EVAL_JSON).is_file() or not progress:
        return run / run_layout.EVAL_JSON
    return run_layout.evaluation_file(run, progress[-1]["epoch"])


def _records(run: pathlib.Path, checkpoint: bool = True) -> tuple[dict, list[dict], dict]:
    """(config.json, progress records, the last epoch's evaluation) of a finished run (with
    its checkpoint if ``checkpoint``); `BuildError` if not."""
    progress = run_logs(run) if (run / run_layout.PROGRESS).is_file() else []
    evaluation_path = _evaluation_path(run, progress)
    required = [run / run_layout.CONFIG_JSON, run / run_layout.PROGRESS, evaluation_path]
    missing = [str(path.relative_to(run)) for path in required if not path.is_file()]
    if checkpoint and not (run / run_layout.CHECKPOINT).is_dir():
        missing.append(run_layout.CHECKPOINT)
    if missing:
        raise BuildError(
            f"{run} is not a finished, evaluated agent run (missing: {', '.join(missing)}). "
            "Give runs of `imagine-tf train` read by `imagine-tf eval` (an experiment's cells "
            "are; the other seeds may be its kept cells, without checkpoints)."
        )
    evaluation = json.loads(evaluation_path.read_text())
    if not progress or evaluation.get("epoch") != progress[-1]["epoch"]:
        raise BuildError(
            f"{evaluation_path} is of epoch {evaluation.get('epoch')}, its last epoch is "
            f"{progress[-1]['epoch'] if progress else None}: evaluate it again with "
            f"`imagine-tf eval --root-dir {run} --repetitions 30`."
        )
    config = json.loads((run / run_layout.CONFIG_JSON).read_text())
    return config, progress, evaluation


def check_runs(run: pathlib.Path, seed_runs: list[pathlib.Path]) -> dict:
    """{run: (config, progress, eval)} of the seed runs, checked: one configuration, distinct
    seeds, the same evaluation, ``run`` among them; `BuildError` naming what differs."""
    if len(seed_runs) < 2:
        raise BuildError(
            f"--seed-runs matched {len(seed_runs)} run(s); the card's spread needs the runs of "
            "at least 2 seeds of the shipped run's configuration (e.g. 'RUNS/cgh_s*')."
        )
    if run.resolve() not in {path.resolve() for path in seed_runs}:
        raise BuildError(f"--run {run} is not among --seed-runs {[str(p) for p in seed_runs]}.")
    records = {
        path: _records(path, checkpoint=path.resolve() == run.resolve()) for path in seed_runs
    }
    reference, _, first_eval = records[run]
    reference = flat_config(reference)  # either layout of config.json gives the same keys
    for path, (config, _, evaluation) in records.items():
        config = flat_config(config)
        differs = sorted(
            key
            for key in set(config) | set(reference)
            if key != "seed" and config.get(key) != reference.get(key)
        )
        if differs:
            raise BuildError(
                f"{path} is not a seed of {run}'s configuration: {', '.join(differs)} differ. "
                "Give --seed-runs the runs of one configuration."
            )
        if evaluation["repetitions"] != first_eval["repetitions"]:
            raise BuildError(
                f"{path}/eval.json has {evaluation['repetitions']} episodes per goal, "
                f"{run}/eval.json {first_eval['repetitions']}: evaluate them alike."
            )
    seeds = [config["seed"] for config, _, _ in records.values()]
    if len(set(seeds)) != len(seeds):
        raise BuildError(f"--seed-runs repeat a seed: {sorted(seeds)}.")
    return records


def _copy_run(run: pathlib.Path, target: pathlib.Path, max_num_objects: int) -> None:
    """The shipped run's records, its networks-only checkpoint and its reward SavedModel."""
    target.mkdir(parents=True)
    for name in KEPT_FILES:
        if (run / name).is_file():
            shutil.copy2(run / name, target / name)
    write_networks_checkpoint(load_agent(run), target)
    network, metadata = load_reward_network(target)  # what the stripped checkpoint holds
    metadata["source"] = {"run": str(run), "kind": "agent_run", "shipped_as": target.name}
    export_reward_model(
        network, target / REWARD, metadata, REWARD_VERSION, max_num_objects=max_num_objects
    )


def _shipped_figures(target: pathlib.Path, evaluation: dict, progress: list, probes) -> dict:
    """The shipped copy measured again: SR as the run's eval.json was, the check, reward F1
    of its checkpoint's network and of its SavedModel; and what the run recorded."""
    result = evaluate_run(str(target), evaluation["repetitions"], write=False)
    learner = load_agent(target)
    return {
        "train_success": result["train_success"],
        "test_success": result["test_success"],
        "per_type": result["per_type"],
        "train_per_predicate": result["train_per_predicate"],
        "check_train_success": measures.check_success(learner),
        **measures.reward_f1(learner.reward_network, probes),
        "served": measures.served_reward_f1(measures.load_served(target / REWARD), probes),
        "recorded": {
            "train_success": evaluation["train_success"],
            "test_success": evaluation["test_success"],
            "test_goal_f1": progress[-1].get("reward_test_goal_f1"),
        },
    }


def _seed_figures(path: pathlib.Path, records: tuple, probes) -> dict:
    """A seed's SR and test SR per type (its evaluation), its reward's F1 measured on the
    probes (None without its checkpoint) and the test-goal F1 its run recorded."""
    config, progress, evaluation = records
    if (path / run_layout.CHECKPOINT).is_dir():
        f1 = measures.reward_f1(load_reward_network(path)[0], probes)
    else:
        f1 = {"train_goal_f1": None, "test_goal_f1": None}
    return {
        "seed": config["seed"],
        "epoch": evaluation["epoch"],
        "train_success": evaluation["train_success"],
        "test_success": evaluation["test_success"],
        "per_type": evaluation.get("per_type"),
        **f1,
        "recorded_test_goal_f1": progress[-1].get("reward_test_goal_f1"),
    }


def seed_spread(seeds: dict) -> dict:
    """`measures.spread` of each figure over the seeds that have it: METRICS, the recorded
    test-goal F1 and the test SR of each type (``type_1`` …)."""
    values = {metric: [s[metric] for s in seeds.values()] for metric in SPREAD_METRICS}
    for figures in seeds.values():
        for kind, rate in (figures.get("per_type") or {}).items():
            values.setdefault(f"type_{kind}", []).append(rate)
    return {
        metric: measures.spread([v for v in found if v is not None])
        for metric, found in values.items()
        if any(v is not None for v in found)
    }


def _or_weights(max_num_objects: int) -> dict:
    """{file: sha256} of the OR weights the exported reward model holds (n = 2..N inputs;
    one object needs none); `BuildError` unless they are the package's, which every clone
    has (the checkpoint holds the training N's own)."""
    used = {}
    for n in range(2, max_num_objects + 1):
        found = [weights_path(n, d) for d in weight_dirs() if weights_path(n, d).exists()]
        if not found or found[0].parent.resolve() != PACKAGED_DIR.resolve():
            raise BuildError(
                f"The OR weights for {n} inputs come from {found[0] if found else 'nowhere'}, "
                f"not the package's {PACKAGED_DIR}: unset IMAGINE_TF_OR_WEIGHTS and move "
                "~/.cache/imagine_tf/or_weights aside, so that the models use the weights "
                "every clone has."
            )
        used[found[0].name] = hashlib.sha256(found[0].read_bytes()).hexdigest()
    return used


def _files(directory: pathlib.Path) -> dict:
    """{relative path: {bytes, sha256}} of every file under ``directory``."""
    return {
        str(path.relative_to(directory)): {
            "bytes": path.stat().st_size,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        }
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def build_models(request: BuildRequest, max_num_objects: int = 10) -> dict:
    """Makes ``<out>/imagine_<run>/``, ``card.json`` and ``README.md``; returns the card."""
    records = check_runs(request.run, request.seed_runs)
    config, progress, evaluation = records[request.run]
    or_weights = _or_weights(max_num_objects)  # before anything is written
    source = provenance(request.run, request.experiment_record, evaluation)
    name = f"imagine_{request.run.name}"
    target, partial = request.out / name, request.out / f".partial-{name}"
    shutil.rmtree(partial, ignore_errors=True)
    _copy_run(request.run, partial, max_num_objects)
    probes = measures.goal_probes(config["num_objects"])
    shipped = _shipped_figures(partial, evaluation, progress, probes)
    seeds = {path.name: _seed_figures(path, records[path], probes) for path in records}
    shutil.rmtree(target, ignore_errors=True)
    os.replace(partial, target)
    card = {
        "code_version": request.code_version,
        "agent": {"directory": name, "epoch": progress[-1]["epoch"], "config": config},
        "reward": {
            "directory": f"{name}/{REWARD}",
            "version": REWARD_VERSION,
            "max_num_objects": max_num_objects,
            "or_weights": {
                "directory": "imagine_tf/reward/or_weights",
                "sha256": or_weights,
            },
        },
        "source": source,
        "data": data_summary(config, progress, request.run),
        "measures": measures.description(evaluation["repetitions"]),
        "shipped": shipped,
        "seeds": {
            "runs": seeds,
            "spread": seed_spread(seeds),
        },
        "files": _files(target),
    }
    card["total_bytes"] = sum(f["bytes"] for f in card["files"].values())
    card = write_record(request.out / CARD, card, request.command)
    write_text_atomically(request.out / README, render_readme(card))
    return card
