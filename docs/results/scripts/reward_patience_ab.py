"""One reward retraining from runs' restored states, at several patiences.

For each run, restores its last checkpoint (networks, goals, reward memory) once per patience and
runs one co-learning update with the reference's settings (`RewardModelConfig`'s defaults:
up to 100 reward-epochs of 200 batches of 512, F1 early stopping) and a fresh optimizer,
holding out the memory's most recent ``--held-out`` final states (the protocol holds out 120;
more gives a steadier comparison). Writes the seconds, the reward-epochs and the held-out mean
per-goal F1 before and after each update.

    python docs/results/scripts/reward_patience_ab.py RUN_DIR... --patience 15 5 3 --out FILE
"""

import argparse
import datetime
import json
import pathlib

parser = argparse.ArgumentParser()
parser.add_argument("runs", nargs="+")
parser.add_argument("--patience", type=int, nargs="+", default=[15, 5, 3])
parser.add_argument("--held-out", type=int, default=1200)
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--conditions", default="", help="what else ran on the machine")
parser.add_argument("--out", required=True)
args = parser.parse_args()

from imagine_tf.cli.common import limit_threads  # noqa: E402

limit_threads(args.threads)

from imagine_tf.provenance import code_version  # noqa: E402
from imagine_tf.reward.co_learning import CoLearnedReward  # noqa: E402
from imagine_tf.reward.config import RewardModelConfig  # noqa: E402
from imagine_tf.analysis.saved_run import load_agent  # noqa: E402


def held_out_f1(learner, reward):
    memory, tokens = learner.memory, learner.builder.goal_tokens(learner.goals.sentences)
    rows = memory.held_out_rows(args.held_out, args.held_out)
    return reward.held_out_f1(memory.states[rows], memory.positives[rows, : len(tokens)], tokens)


def cpu_model():
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


rows = []
for run in args.runs:
    for patience in args.patience:
        learner = load_agent(run)  # the same restored state for every patience
        # the reference's update (RewardModelConfig's defaults), whatever the run's own settings
        config = RewardModelConfig(patience=patience, max_held_out=args.held_out)
        reward = CoLearnedReward(learner.reward_network, config, seed=learner.config.seed)
        before = held_out_f1(learner, reward)
        tokens = learner.builder.goal_tokens(learner.goals.sentences)
        report = reward.update(learner.memory, tokens, args.held_out)
        rows.append(
            {
                "run": str(pathlib.Path(run).resolve()),
                "epoch": int(learner.epoch.numpy()),
                "patience": patience,
                "seconds": round(report["seconds"], 1),
                "reward_epochs": report["epochs"],
                "held_out_states": report["held_out_states"],
                "goals": len(tokens),
                "mean_f1_before": round(before, 4),
                "mean_f1_after": round(report["held_out_f1"], 4),
            }
        )
        print(json.dumps(rows[-1]), flush=True)

command = [*args.runs, "--patience", *map(str, args.patience), "--held-out", str(args.held_out)]
record = {
    "what": "One reward retraining from each run's restored last checkpoint at each patience "
    f"(the reference's update: up to 100 reward-epochs of 200 batches of 512, a fresh Adam; F1 on the {args.held_out} most recent "
    "final states, held out of the retraining).",
    "command": "python docs/results/scripts/reward_patience_ab.py "
    + " ".join([*command, "--threads", str(args.threads), "--out", args.out]),
    "code_version": code_version(pathlib.Path(__file__).resolve().parents[3]),
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": {"cpu": cpu_model(), "threads": args.threads},
    "conditions": args.conditions,
    "rows": rows,
}
pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
