"""Runs the same configs at two commits and compares their progress.jsonl (seconds aside).

A refactor that must not change behaviour is checked this way: each commit is checked out in
its own worktree, each config trained there with one thread and float32, and the two
progress.jsonl files compared line by line with the timing fields (``seconds*``) removed.

    python docs/results/scripts/parity_runs.py --before caa617d --after HEAD \
        --out docs/results/parity/issue51.json

The record names both commits, each config's command, and every differing line (none when
the runs agree).
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile

RUNS = (
    ("smoke", "configs/agent/smoke.gin", None),
    ("quickstart_3_epochs", "configs/agent/quickstart.gin", 3),
)


def git(*args, cwd="."):
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def train(tree, gin_file, epochs, root_dir):
    """Trains one config in worktree ``tree``; returns the command as run."""
    command = [
        sys.executable, "-m", "imagine_tf.cli.main", "train", "--gin-file", gin_file,
        "--gin-binding", "TrainConfig.compute_dtype = 'float32'",
        "--root-dir", str(root_dir), "--threads", "1",
    ]  # fmt: skip
    if epochs is not None:
        command += ["--num-epochs", str(epochs)]
    env = dict(os.environ, PYTHONPATH=str(tree), TF_CPP_MIN_LOG_LEVEL="3")
    subprocess.run(command, cwd=tree, env=env, check=True, capture_output=True)
    return command


def untimed(path):
    """The lines of a progress.jsonl with the ``seconds*`` fields removed."""
    lines = []
    for line in pathlib.Path(path).read_text().splitlines():
        row = json.loads(line)
        lines.append({k: v for k, v in row.items() if not k.startswith("seconds")})
    return lines


def compare(before, after):
    if len(before) != len(after):
        return [f"{len(before)} lines before, {len(after)} after"]
    return [
        {"line": i, "before": b, "after": a}
        for i, (b, a) in enumerate(zip(before, after))
        if b != a
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", default="HEAD")
    parser.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args(argv)
    repo = git("rev-parse", "--show-toplevel")
    commits = {k: git("rev-parse", getattr(args, k), cwd=repo) for k in ("before", "after")}
    record = {"commits": commits, "runs": {}, "started": now()}
    with tempfile.TemporaryDirectory(prefix="parity_") as scratch:
        trees = {}
        for side, commit in commits.items():
            trees[side] = pathlib.Path(scratch) / side
            git("worktree", "add", "--detach", str(trees[side]), commit, cwd=repo)
        try:
            for name, gin_file, epochs in RUNS:
                progress = {}
                for side, tree in trees.items():
                    run_dir = pathlib.Path(scratch) / f"{name}_{side}"
                    command = train(tree, gin_file, epochs, run_dir)
                    progress[side] = untimed(run_dir / "progress.jsonl")
                differences = compare(progress["before"], progress["after"])
                record["runs"][name] = {
                    "command": " ".join(command[1:]).replace(str(run_dir), "RUN_DIR"),
                    "lines": len(progress["after"]),
                    "identical": not differences,
                    "differences": differences,
                }
        finally:
            for tree in trees.values():
                git("worktree", "remove", "--force", str(tree), cwd=repo)
    record.update(finished=now(), machine=machine())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_suffix(".partial")
    partial.write_text(json.dumps(record, indent=1) + "\n")
    partial.replace(args.out)
    print(json.dumps({k: v["identical"] for k, v in record["runs"].items()}))


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def machine():
    model = next(
        (l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if "model name" in l), ""
    )
    return {"cpu_model": model, "threads": 1, "precision": "float32",
            "python": platform.python_version(),
            "load_average_1_5_15_min": os.getloadavg()}  # fmt: skip


if __name__ == "__main__":
    main()
