"""The main-path test's run (tests/cli/readme_commands_test.py: the MA policy with its co-trained
MA reward on the Go goals) at several seeds: per Go goal, the trained policy's success and random
actions', as the test measures them (20 episodes per goal, the same scenes). It calibrates the
test's learning criterion: the test runs seed 0 only, and a machine with other floating-point
kernels (AVX-512 rather than AVX2, say) trains it as differently as another seed would.

Each seed trains with ``imagine-tf train`` in a process of its own (``--parallel`` at once, one
TensorFlow thread each); a run already trained is evaluated again, not retrained.

    python docs/results/scripts/main_path_seeds.py --seeds 0 1 2 3 4 --parallel 2 \
        --runs-dir runs/main_path_seeds --out docs/results/main_path_seeds.json
"""

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))  # the test's command line and its measure of random actions

from imagine_tf.provenance import machine_description  # noqa: E402
from tests.cli.readme_commands_test import MAIN_PATH, MASTERED, main_path_measure  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
parser.add_argument("--parallel", type=int, default=2, help="training processes at once")
parser.add_argument("--runs-dir", type=pathlib.Path, required=True)
parser.add_argument("--out", type=pathlib.Path, required=True)
parser.add_argument("--extra", nargs=argparse.REMAINDER, default=[], help="more train flags")


def train_all(seeds: list[int], runs_dir: pathlib.Path, parallel: int, extra: list[str]) -> None:
    """Trains each seed's run that is not trained yet, ``parallel`` processes at once."""
    environment = {**os.environ, "TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1"}
    pending = [
        seed for seed in seeds if not (runs_dir / f"seed_{seed}" / "progress.jsonl").exists()
    ]
    running = []
    while pending or running:
        while pending and len(running) < parallel:
            seed = pending.pop(0)
            command = [sys.executable, "-m", "imagine_tf.cli.main", "train", *MAIN_PATH, *extra]
            command += ["--root-dir", str(runs_dir / f"seed_{seed}")]
            command += ["--gin-binding", f"TrainConfig.seed = {seed}"]
            log = open(runs_dir / f"seed_{seed}.log", "wb")
            running.append(
                subprocess.Popen(command, cwd=ROOT, env=environment, stdout=log, stderr=log)
            )
        finished = running.pop(0)
        if finished.wait() != 0:
            raise SystemExit(f"a training run failed: {finished.args} (its log: {runs_dir})")


def main() -> None:
    args = parser.parse_args()
    args.runs_dir.mkdir(parents=True, exist_ok=True)
    train_all(args.seeds, args.runs_dir, args.parallel, args.extra)
    seeds = {str(seed): main_path_measure(args.runs_dir / f"seed_{seed}") for seed in args.seeds}
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    record = {
        "command": " ".join(["python", *sys.argv]),
        "commit": commit,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_description(),
        "threads": "1 TensorFlow thread per training process",
        "train_flags": [*MAIN_PATH, *args.extra],
        "test_asks_mastered": MASTERED,
        "seeds": seeds,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    temporary = args.out.with_suffix(".tmp")
    temporary.write_text(json.dumps(record, indent=2) + "\n")
    temporary.replace(args.out)
    print(json.dumps({seed: row["mastered"] for seed, row in seeds.items()}))


if __name__ == "__main__":
    main()
