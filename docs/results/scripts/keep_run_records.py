"""Keeps a finished run's compact records in the repository, with a manifest that says what
wrote them: its evaluations, progress.jsonl, config.json, fork.json and cpu_seconds.json (those
it has) are copied into DEST, its ``RUN.code_versions`` beside DEST, and ``DEST/kept.json`` is
written whole: this command, the commands that made the run (``--made-by``, or the run's
``cell_commands`` entry of an experiment report, ``--report``), its source and every kept
file's SHA-256.

    python docs/results/scripts/keep_run_records.py RUN DEST [--report REPORT.json] \
        [--made-by COMMAND ...]
"""

import argparse
import datetime
import hashlib
import json
import pathlib
import shlex
import shutil
import sys

RECORDS = ("progress.jsonl", "config.json", "fork.json", "cpu_seconds.json")

parser = argparse.ArgumentParser()
parser.add_argument("run")
parser.add_argument("dest")
parser.add_argument("--report", help="the experiment report whose cell_commands made RUN")
parser.add_argument("--made-by", nargs="+", default=[], help="the commands that made RUN")
args = parser.parse_args()
run, dest = pathlib.Path(args.run), pathlib.Path(args.dest)
if not (run / "progress.jsonl").is_file():
    sys.exit(f"{run} has no progress.jsonl: give a run directory of `imagine-tf train`.")
made_by = list(args.made_by)
if args.report:
    commands = json.loads(pathlib.Path(args.report).read_text()).get("cell_commands", {})
    if run.name not in commands:
        sys.exit(f"{args.report} has no cell_commands entry for {run.name}: {sorted(commands)}.")
    made_by += [commands[run.name]] if isinstance(commands[run.name], str) else commands[run.name]
(dest / "evaluations").mkdir(parents=True, exist_ok=True)
kept = [shutil.copy2(path, dest / "evaluations") for path in sorted(run.glob("evaluations/*.json"))]
kept += [shutil.copy2(run / name, dest) for name in RECORDS if (run / name).is_file()]
versions = run.parent / f"{run.name}.code_versions"
if versions.is_file():
    kept.append(shutil.copy2(versions, dest.parent))
manifest = {
    "command": "python " + " ".join(shlex.quote(a) for a in sys.argv),
    "written": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "source": str(run.resolve()),
    "made_by": made_by,
    "files": {
        str(pathlib.Path(path).resolve().relative_to(dest.parent.resolve())): hashlib.sha256(
            pathlib.Path(path).read_bytes()
        ).hexdigest()
        for path in kept
    },
}
(dest / "kept.json").write_text(json.dumps(manifest, indent=1) + "\n")
print(f"{dest}: {len(kept)} files kept from {run}")
