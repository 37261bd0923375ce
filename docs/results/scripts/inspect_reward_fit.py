"""How well a run's reward model fits its own reward memory, per predicate, and how saturated
its attention gates are (an exploratory diagnostic; written for the study's commit 38799fc).

    PYTHONPATH=WORKTREE_OF_38799fc python docs/results/scripts/inspect_reward_fit.py RUN_DIR... \
        --out FILE.json

For each run directory (its config.json, checkpoint/ and replay/): the memory's positive share,
the reward's predicted positive share (p > 0.5) and the mean per-goal F1 over the goals with a
positive state, in all and per predicate (Go, Grasp, Grow); the quantiles 1 / 50 / 99 % of the
attention gates σ(W g + b) over the known goals.
"""

import argparse
import datetime
import json
import pathlib
import shlex
import shutil
import sys
import tempfile

import numpy as np
import tensorflow as tf

from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.checkpoint import LearnerCheckpoint
from imagine_tf.agent.config import TrainConfig
from imagine_tf.agent.learning import Learner


def restored(root: pathlib.Path) -> Learner:
    learner = Learner(RunBuilder(TrainConfig.from_json((root / "config.json").read_text())))
    with tempfile.TemporaryDirectory() as copy:  # the run is left untouched
        for name in ("checkpoint", "replay"):
            shutil.copytree(root / name, pathlib.Path(copy) / name)
        shutil.copy(root / "config.json", copy)
        if not LearnerCheckpoint(learner, copy).restore():
            raise FileNotFoundError(f"{root} has no checkpoint")
    return learner


def fit(learner: Learner) -> dict:
    net, memory = learner.reward_network, learner.memory
    states, sentences = memory.states[: memory.size], learner.goals.sentences
    positive = memory.positives[: memory.size, : len(sentences)]
    embeddings = net.encoder(tf.constant(learner.builder.goal_tokens(sentences)))
    predicted = net.scan(tf.constant(states), embeddings, playground_states=True).numpy() > 0.5
    tp = (predicted & positive).sum(0)
    errors = (predicted ^ positive).sum(0)
    f1 = 2 * tp / np.maximum(2 * tp + errors, 1)
    has = positive.any(0)

    def part(columns):
        columns = [c for c in columns if has[c]]
        return {
            "goals": len(columns),
            "positive_share": float(positive[:, columns].mean()),
            "predicted_share": float(predicted[:, columns].mean()),
            "mean_f1": float(f1[columns].mean()),
        }

    record = {"epoch": int(learner.epoch.numpy()), "states": int(memory.size)}
    record["all"] = part(range(len(sentences)))
    for verb in ("Go", "Grasp", "Grow"):
        record[verb] = part([i for i, s in enumerate(sentences) if s.startswith(verb)])
    gates = net.attention.attention_vector(embeddings).numpy()
    record["attention_quantiles_1_50_99"] = np.quantile(gates, [0.01, 0.5, 0.99]).tolist()
    return record


parser = argparse.ArgumentParser()
parser.add_argument("runs", nargs="+")
parser.add_argument("--out", required=True)
args = parser.parse_args()
record = {
    "command": "python " + " ".join(shlex.quote(a) for a in sys.argv),
    "written": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "runs": {str(run): fit(restored(pathlib.Path(run))) for run in args.runs},
}
pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
for run, row in record["runs"].items():
    print(
        run, row["epoch"], {k: round(row[k]["mean_f1"], 3) for k in ("all", "Go", "Grasp", "Grow")}
    )
