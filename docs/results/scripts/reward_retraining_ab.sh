#!/bin/bash
# One reward retraining per seed 0-2 on one saved memory, with the code of each worktree given
# (`reward_retraining_ab.py`), one JSON line per retraining:
#   bash docs/results/scripts/reward_retraining_ab.sh mem.npz BEFORE_TREE AFTER_TREE > FILE.jsonl
set -euo pipefail
memory=$(realpath "$1"); shift
python=${PYTHON:-$(command -v python)}
for tree in "$@"; do
  commit=$(git -C "$tree" rev-parse --short HEAD)
  for seed in 0 1 2; do
    (cd "$tree" && PYTHONPATH="$tree" TF_CPP_MIN_LOG_LEVEL=3 "$python" \
      docs/results/scripts/reward_retraining_ab.py "$seed" "$memory" 2>/dev/null | tail -1 \
      | sed "s/^{/{\"commit\": \"$commit\", /")
  done
done
