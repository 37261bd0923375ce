"""The with / without imagination table of docs/imagination.md from run directories.

For each run: its config (imagination, final-goal ratio, seed), the evaluation at the given
epoch (`imagine-tf eval --repetitions 30`: evaluations/epoch_EEEE.json), the imagined set's
size and test coverage per epoch (progress.jsonl), and the test goals the policy reaches.

    python docs/results/scripts/imagination_summary.py --epoch 30 --out FILE [--plot PNG] RUN_DIR...
"""

import argparse
import json
import pathlib

parser = argparse.ArgumentParser()
parser.add_argument("runs", nargs="+")
parser.add_argument("--epoch", type=int, required=True)
parser.add_argument("--out", required=True)
parser.add_argument("--plot", help="PNG: imagined set over epochs, and test SR over epochs")
args = parser.parse_args()
rows = []
for run in map(pathlib.Path, args.runs):
    config = json.loads((run / "config.json").read_text())
    logs = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    evaluation_file = run / "evaluations" / f"epoch_{args.epoch:04d}.json"
    evaluation = json.loads(evaluation_file.read_text()) if evaluation_file.exists() else None
    row = {
        "run": run.name,
        "seed": config["seed"],
        "imagination": config.get("imagination", "none"),
        "final_goal_ratio": config["final_goal_ratio"],
        "epochs_trained": logs[-1]["epoch"],
        "imagined_over_epochs": [
            {
                "epoch": r["epoch"],
                "imagined": r["imagined_goals"],
                "imagined_test_goals": r["imagined_test_goals"],
            }
            for r in logs
            if "imagined_goals" in r
        ],
        "in_training_test_success": [(r["epoch"], r["eval_test_success"]) for r in logs],
    }
    if evaluation is not None:
        row.update(
            evaluated_at_epoch=evaluation["epoch"],
            repetitions=evaluation["repetitions"],
            train_success=evaluation["train_success"],
            test_success=evaluation["test_success"],
            per_type=evaluation["per_type"],
            train_per_predicate=evaluation["train_per_predicate"],
            imagination_at_evaluation=evaluation.get("imagination"),
        )
    rows.append(row)
command = "python docs/results/scripts/imagination_summary.py --epoch {} --out {} {}".format(
    args.epoch, args.out, " ".join(args.runs)
)
pathlib.Path(args.out).write_text(json.dumps({"command": command, "runs": rows}, indent=1))
if args.plot:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    for row in rows:
        if row["imagined_over_epochs"]:
            epochs = [p["epoch"] for p in row["imagined_over_epochs"]]
            line = left.plot(
                epochs,
                [p["imagined"] for p in row["imagined_over_epochs"]],
                label=f"{row['run']}: imagined",
            )[0]
            left.plot(
                epochs,
                [p["imagined_test_goals"] for p in row["imagined_over_epochs"]],
                linestyle="--",
                color=line.get_color(),
                label=f"{row['run']}: test goals among them",
            )
        style = "-" if row["imagination"] != "none" else ":"
        right.plot(*zip(*row["in_training_test_success"]), style, label=row["run"])
    left.set(xlabel="epoch", ylabel="goals", title="imagined set (CGH)", ylim=(0, None))
    right.set(
        xlabel="epoch", ylabel="test SR (1 episode per goal)", ylim=(0, 1), title="test goals"
    )
    left.legend(fontsize=6)
    right.legend(fontsize=6)
    figure.tight_layout()
    figure.savefig(args.plot, dpi=110)
print(f"wrote {args.out}: {len(rows)} runs")
