"""Per kept cell of an agent experiment: the reward's held-out F1 at each retraining and the
train SR at the last epoch, from the cells' progress.jsonl (what the runs recorded).

    python docs/results/scripts/reward_f1_and_learning.py \
        docs/results/experiments/imagination_preregistered/cells \
        --out docs/results/experiments/imagination_preregistered_reward_f1.json
"""

import argparse
import datetime
import json
import pathlib
import shlex
import sys

parser = argparse.ArgumentParser()
parser.add_argument("cells")
parser.add_argument("--out", required=True)
parser.add_argument("--learned", type=float, default=0.9, help="held-out F1 that counts as learned")
args = parser.parse_args()
rows = {}
for progress in sorted(pathlib.Path(args.cells).glob("*/progress.jsonl")):
    records = [json.loads(line) for line in progress.open()]
    f1 = [
        (r["epoch"], r["reward_held_out_f1"])
        for r in records
        if r.get("reward_held_out_f1") is not None
    ]
    reached = next((epoch for epoch, value in f1 if value >= args.learned), None)
    rows[progress.parent.name] = {
        "last_epoch": records[-1]["epoch"],
        "train_success": records[-1].get("eval_train_success"),
        "held_out_f1": [value for _, value in f1],
        "retraining_epochs": [epoch for epoch, _ in f1],
        "max_held_out_f1": max(value for _, value in f1),
        "first_epoch_f1_reached": reached,
    }
learned = [name for name, row in rows.items() if row["first_epoch_f1_reached"] is not None]
record = {
    "command": "python " + " ".join(shlex.quote(a) for a in sys.argv),
    "written": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "what": "the reward model's held-out F1 (per retraining, as each run recorded it) beside its last epoch's train SR (eval_train_success, the run's own evaluation)",
    "learned_f1": args.learned,
    "cells_whose_reward_reached_it": sorted(learned),
    "cells_whose_reward_never_did": sorted(set(rows) - set(learned)),
    "cells": rows,
}
pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
print(f"{args.out}: {len(learned)} of {len(rows)} cells reached held-out F1 {args.learned}")
for name in sorted(set(rows) - set(learned)):
    print(
        f"  never: {name} (max F1 {rows[name]['max_held_out_f1']:.2f}, train SR {rows[name]['train_success']:.2f})"
    )
