"""Table 1 F1 of every K-run ensemble of finished reward runs (sampled when there are many).

An ensemble's probability is the mean of its members' (`reward_ensemble`). Each run's
probabilities on the study's test states, for the goals of Table 1 only, come from its kept
test probabilities (an ensemble's member keeps them) or are scored once and cached as float16 in
``--cache-dir`` (a stopped analysis resumes). Then for each K in
``--sizes``, every K-combination of the runs (or ``--max-combinations`` drawn without
repetition, seeded) is averaged and scored with the study's F1 (`f1_per_goal`, positive =
probability > 0.5). K = 1 must reproduce each run's own ``metrics.json``: the script checks it.

    python docs/results/scripts/ensemble_combinations.py \
        --gin-file configs/studies/reward_two_object_relations.gin --sizes 1 3 5 \
        --cache-dir runs/ensemble_cache --out FILE RUN_DIR...
"""

import argparse
import datetime
import itertools
import json
import math
import pathlib

import numpy as np

from imagine_tf.cli.common import (
    add_dataset_flags,
    add_gin_flags,
    gin_configured,
    limit_threads,
    prepared_dataset,
)

# Table 1's columns: `summarize_f1`'s Grasp one-object train / test (no Type 2) and two-object.
COLUMNS = ("grasp_one_object.train", "grasp_one_object.test", "two_object.train", "two_object.test")
TARGETS = (0.98, 0.94, 0.92, 0.97)  # the paper's Table 1

parser = argparse.ArgumentParser()
parser.add_argument("runs", nargs="+", help="finished runs of `imagine-tf reward study`")
parser.add_argument("--sizes", type=int, nargs="+", default=[1, 3, 5])
parser.add_argument("--max-combinations", type=int, default=5000)
parser.add_argument("--seed", type=int, default=0, help="of the drawn combinations")
parser.add_argument("--cache-dir", required=True)
parser.add_argument(
    "--ensembles",
    nargs="*",
    default=[],
    help="ensemble directories of the study whose members are among the runs: their "
    "metrics.json must equal the mean of their members' cached probabilities",
)
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--out", required=True)
add_gin_flags(parser)
add_dataset_flags(parser)
args = parser.parse_args()
limit_threads(args.threads)

from imagine_tf.data.supervised import goal_set, load_supervised_data  # noqa: E402
from imagine_tf.atomic_files import save_array_atomically  # noqa: E402
from imagine_tf.provenance import code_version  # noqa: E402
from imagine_tf.language.vocabulary import Vocabulary  # noqa: E402
from imagine_tf.reward.f1 import f1_per_goal  # noqa: E402
from imagine_tf.reward.supervised_training import score_matrix  # noqa: E402
from imagine_tf.reward.kept_probabilities import (  # noqa: E402
    kept_test_probabilities,
    states_fingerprint,
)
from imagine_tf.reward import study as reward_study  # noqa: E402
from imagine_tf.analysis.saved_run import load_reward_network  # noqa: E402
from imagine_tf.reward.config import reward_train_config  # noqa: E402

config = gin_configured(args, reward_study, reward_train_config)
data = load_supervised_data(
    prepared_dataset(args),
    goal_set(config.goal_set),
    config.max_train_episodes,
    config.max_test_episodes,
)
goals = np.array(data.goals)
relational, test = data.is_relational, data.is_test_goal
grasp = np.char.startswith(goals, "Grasp") & ~relational
masks = (  # over the data's goals, in COLUMNS' order
    grasp & ~test,
    grasp & test & (data.generalization_type != 2),
    relational & ~test,
    relational & test,
)
scored = np.flatnonzero(np.any(masks, axis=0))  # the goals Table 1 needs
column_masks = [m[scored] for m in masks]
labels = data.test_labels[:, scored]
fingerprint = states_fingerprint(data.test_states)
tokens = np.asarray(Vocabulary.from_goals(list(data.goals)).encode(list(data.goals)))[scored]


def table_1(probabilities):
    """The 4 Table 1 means of probabilities [S, G_scored]."""
    f1 = f1_per_goal(probabilities > 0.5, labels).numpy()
    return [float(np.nanmean(f1[m])) for m in column_masks]


def probabilities_of(run: pathlib.Path, metrics: dict) -> np.ndarray:
    """The run's probabilities [S, G_scored], float32: an ensemble member's kept ones (if of
    these test states), else scored once into the cache (float16)."""
    kept = kept_test_probabilities(run, metrics, fingerprint, data.test_labels.shape)
    if kept is not None:
        return kept[:, scored]
    cache = pathlib.Path(args.cache_dir) / f"{run.parent.name}__{run.name}.npy"
    if not cache.exists():
        network, _ = load_reward_network(run)
        cache.parent.mkdir(parents=True, exist_ok=True)
        probabilities = score_matrix(network, data.test_states, tokens)
        save_array_atomically(cache, probabilities.astype(np.float16))
        print(f"scored {run}", flush=True)
    return np.load(cache).astype(np.float32)


def own_table_1(metrics: dict) -> list:
    summary = metrics["summary"]
    return [summary[c.split(".")[0]][c.split(".")[1]]["f1"] for c in COLUMNS]


def read_metrics(run: pathlib.Path) -> dict:
    return json.loads((run / "metrics.json").read_text())


runs = [pathlib.Path(r) for r in args.runs]
run_metrics = [read_metrics(r) for r in runs]
scores = [probabilities_of(r, m) for r, m in zip(runs, run_metrics)]
largest_gap = max(  # float16 storage may move a probability across 0.5: allow a little
    abs(a - b) for s, m in zip(scores, run_metrics) for a, b in zip(table_1(s), own_table_1(m))
)
if largest_gap > 0.01:
    raise SystemExit(f"K = 1 differs from the runs' metrics.json by {largest_gap:.4f}.")

resolved = [r.resolve() for r in runs]
for ensemble in map(pathlib.Path, args.ensembles):
    ensemble_metrics = read_metrics(ensemble)
    members = [(ensemble / m["run"]).resolve() for m in ensemble_metrics["members"]]
    mean = np.mean([scores[resolved.index(m)] for m in members], axis=0)
    gap = max(abs(a - b) for a, b in zip(table_1(mean), own_table_1(ensemble_metrics)))
    largest_gap = max(largest_gap, gap)
    if gap > 0.01:
        raise SystemExit(f"{ensemble} differs from its members' mean by {gap:.4f}.")

rng = np.random.default_rng(args.seed)
by_size = {}
for size in args.sizes:
    total = math.comb(len(runs), size)
    if total <= args.max_combinations:
        combinations = list(itertools.combinations(range(len(runs)), size))
    else:
        drawn = set()
        while len(drawn) < args.max_combinations:
            drawn.add(tuple(sorted(rng.choice(len(runs), size, replace=False).tolist())))
        combinations = sorted(drawn)
    values = np.array([table_1(np.mean([scores[i] for i in c], axis=0)) for c in combinations])
    meets = values >= np.array(TARGETS)
    by_size[str(size)] = {
        "combinations": len(combinations),
        "of": total,
        "mean": values.mean(axis=0).round(4).tolist(),
        "std": values.std(axis=0, ddof=1).round(4).tolist() if len(values) > 1 else None,
        "p10": np.percentile(values, 10, axis=0).round(4).tolist(),
        "min": values.min(axis=0).round(4).tolist(),
        "fraction_meeting_each": meets.mean(axis=0).round(3).tolist(),
        "fraction_meeting_all_four": round(float(meets.all(axis=1).mean()), 3),
    }
    print(size, json.dumps(by_size[str(size)]), flush=True)

record = {
    "what": "Table 1 F1 of K-run ensembles (mean probability) of the runs below, on their "
    f"study's {len(data.test_states)} test states; every combination, or "
    f"{args.max_combinations} drawn (seed {args.seed}) when there are more",
    "columns": list(COLUMNS),
    "targets": list(TARGETS),
    "runs": [str(r) for r in runs],
    "ensembles_checked": args.ensembles,
    "largest_gap_to_metrics_json": round(largest_gap, 5),  # K = 1 and the checked ensembles
    "command": "python docs/results/scripts/ensemble_combinations.py "
    + " ".join(f"--gin-file {g}" for g in args.gin_file)
    + f" --sizes {' '.join(map(str, args.sizes))} --max-combinations {args.max_combinations}"
    + f" --cache-dir {args.cache_dir} --out {args.out} RUN_DIR... (the runs above)",
    "code_version": code_version(pathlib.Path(__file__).resolve().parents[3]),
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "by_ensemble_size": by_size,
}
pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
