"""The record of `quickstart_ab.sh`: per seed and code, the train / test success rate of the
quickstart's evaluation (10 episodes per goal), its commit and training seconds; the paired
differences (after − before) with their mean and a paired t interval.

    python docs/results/scripts/quickstart_ab.py OUT --before-commit C1 --after-commit C2 \
        --out docs/results/quickstart_before_after.json
"""

import argparse
import json
import pathlib
import shlex
import sys

import numpy as np
from scipy import stats

parser = argparse.ArgumentParser()
parser.add_argument("runs")
parser.add_argument("--out", required=True)
parser.add_argument("--before-commit", required=True)
parser.add_argument("--after-commit", required=True)
args = parser.parse_args()
runs = pathlib.Path(args.runs)
rows = []
for path in sorted(runs.glob("*_s*/eval.json")):
    code, seed = path.parent.name.rsplit("_s", 1)
    evaluation = json.loads(path.read_text())
    progress = [json.loads(line) for line in (path.parent / "progress.jsonl").open()]
    seconds = sum(v for r in progress for k, v in r.items() if k.startswith("seconds_"))
    rows.append(
        {
            "code": code,
            "seed": int(seed),
            "commit": {"before": args.before_commit, "after": args.after_commit}[code],
            "train_success": evaluation["train_success"],
            "test_success": evaluation["test_success"],
            "epochs": evaluation["epoch"],
            "seconds_in_epochs": round(seconds, 1),
        }
    )
summary = {}
for measure in ("train_success", "test_success"):
    by = {(r["code"], r["seed"]): r[measure] for r in rows}
    seeds = sorted({s for c, s in by if (("before", s) in by and ("after", s) in by)})
    differences = np.array([by["after", s] - by["before", s] for s in seeds])
    mean = float(differences.mean()) if len(seeds) else None
    half = (
        float(stats.t.ppf(0.975, len(seeds) - 1) * differences.std(ddof=1) / np.sqrt(len(seeds)))
        if len(seeds) > 1
        else None
    )
    summary[measure] = {
        "seeds": seeds,
        "before": [by["before", s] for s in seeds],
        "after": [by["after", s] for s in seeds],
        "mean_difference": mean,
        "paired_t_95_ci": None if half is None else [mean - half, mean + half],
    }
record = {
    "command": "python " + shlex.join(["docs/results/scripts/quickstart_ab.py", *sys.argv[1:]]),
    "runs": rows,
    "summary": summary,
    "machine": next(
        line.split(":", 1)[1].strip()
        for line in open("/proc/cpuinfo")
        if line.startswith("model name")
    ),
    "conditions": "the two codes' runs of a seed side by side, one TensorFlow thread each",
}
pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
print(json.dumps(summary, indent=1))
