#!/bin/bash
# Copies each finished cell of an experiment grid (its evaluations, progress.jsonl,
# config.json, fork.json, cpu_seconds.json and code versions: what the report reads) from the
# grid's run root into the repository (`keep_run_records.py`: with kept.json, what wrote them),
# with machine.json (the machine it ran on: this one),
# and commits it, once per cell, so that a lost machine costs only the cells in flight.
# With --watch, checks again every 10 minutes until stopped.
#   bash docs/results/scripts/keep_finished_cells.sh NAME RUNS [--watch]
#   e.g. NAME = imagination_preregistered, RUNS = the --root-dir of `imagine-tf experiment`
set -uo pipefail
name=$1 runs=$(realpath "$2") watch=${3:-}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dest="$repo/docs/results/experiments/$name/cells"
python=${PYTHON:-$repo/.venv/bin/python}
keep_once() {
  cd "$repo" || return
  "$python" -m imagine_tf.cli.main experiment "$name" --root-dir "$runs" --list 2>/dev/null \
    | awk '$2 == "finished" {print $1}' | while read -r cell; do
    [ -e "$dest/$cell/DONE" ] && continue
    "$python" "$repo/docs/results/scripts/keep_run_records.py" "$runs/$cell" "$dest/$cell" \
      --report "$repo/docs/results/experiments/$name.json" 2>/dev/null \
      || "$python" "$repo/docs/results/scripts/keep_run_records.py" "$runs/$cell" "$dest/$cell"
    "$python" "$repo/docs/results/scripts/cell_machine.py" "$dest/$cell"
    date -u +%FT%TZ > "$dest/$cell/DONE"
    git add "$dest/$cell" "$dest/$cell.code_versions" 2>/dev/null
    git commit -q -m "results: $name cell $cell finished" -- "$dest/$cell" \
      $( [ -e "$dest/$cell.code_versions" ] && echo "$dest/$cell.code_versions" ) \
      && echo "committed $cell"
  done
}
keep_once
while [ "$watch" = "--watch" ]; do sleep 600; keep_once; done
