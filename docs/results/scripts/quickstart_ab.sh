#!/bin/bash
# The quickstart (configs/agent/quickstart.gin, then `imagine-tf eval --repetitions 10`) with
# the code of two worktrees, seeds 0-2, the two codes' runs of a seed side by side, one
# TensorFlow thread each; runs go to OUT/{before,after}_s{seed}. Resumable: a run with its
# eval.json is skipped. Then `quickstart_ab.py OUT` writes the record.
#   bash docs/results/scripts/quickstart_ab.sh BEFORE_TREE AFTER_TREE OUT
set -uo pipefail
before=$(realpath "$1") after=$(realpath "$2") out=$(realpath -m "$3")
python_bin=$(dirname "$(command -v python)")
mkdir -p "$out"
run() {  # tree name seed
  local tree=$1 dir=$out/${2}_s${3}
  [ -f "$dir/eval.json" ] && return
  cd "$tree" && PYTHONPATH=$tree TF_CPP_MIN_LOG_LEVEL=3 "$python_bin/imagine-tf" train \
    --gin-file configs/agent/quickstart.gin --root-dir "$dir" --threads 1 \
    --gin-binding "TrainConfig.seed = $3" > "$dir.train.log" 2>&1 \
  && PYTHONPATH=$tree TF_CPP_MIN_LOG_LEVEL=3 "$python_bin/imagine-tf" eval --root-dir "$dir" \
    --repetitions 10 > "$dir.eval.log" 2>&1
}
for seed in 0 1 2; do
  run "$before" before $seed &
  run "$after" after $seed &
  wait
done
