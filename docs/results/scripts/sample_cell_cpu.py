"""Samples the CPU seconds of an experiment grid's cell processes, for its report's cost.

Every ``--every`` seconds, for each running ``imagine_tf`` train or eval process whose
``--root-dir`` is a cell directory under RUNS, reads its user + system CPU time and its age
from /proc (both cumulative since the process started, so a sample taken late loses nothing
but the last interval before the process exits) and writes RUNS/CELL/cpu_seconds.json
atomically: {"PID START": {"command", "cpu_seconds", "wall_seconds", "sampled", "machine"}}. The grid's
runner does not measure CPU time itself; this runs beside it:

    python docs/results/scripts/sample_cell_cpu.py RUNS [--every 30]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import time

TICKS = os.sysconf("SC_CLK_TCK")


def machine() -> str:
    """This machine as the report names it: CPU model, logical CPUs, vector instruction sets."""
    info = pathlib.Path("/proc/cpuinfo").read_text()
    model = next((l.split(":", 1)[1].strip() for l in info.splitlines() if "model name" in l), "?")
    flags = next(
        (l.split(":", 1)[1].split() for l in info.splitlines() if l.startswith("flags")), []
    )
    sets = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in flags]
    return f"{model}, {os.cpu_count()} logical CPUs, {' '.join(sets) or 'no AVX2'}"


def _uptime() -> float:
    return float(pathlib.Path("/proc/uptime").read_text().split()[0])


def cell_processes(runs: pathlib.Path):
    """(pid, cell directory, command) of each running train / eval process of a cell."""
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if "imagine_tf.cli.main" not in argv or "--root-dir" not in argv:
            continue
        command = argv[argv.index("imagine_tf.cli.main") + 1]
        directory = pathlib.Path(argv[argv.index("--root-dir") + 1])
        if command in ("train", "eval") and directory.parent == runs:
            yield int(entry.name), directory, command


def sample(pid: int) -> tuple[str, float, float] | None:
    """(process key "PID START", CPU seconds, age in seconds), None if it has exited."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # fields[0] is field 3 of proc(5): utime = 14, stime = 15, starttime = 22
    utime, stime, start = int(fields[11]), int(fields[12]), int(fields[19])
    return f"{pid} {start}", (utime + stime) / TICKS, _uptime() - start / TICKS


def record(
    directory: pathlib.Path, key: str, command: str, cpu: float, wall: float, where: str
) -> None:
    path = directory / "cpu_seconds.json"
    samples = json.loads(path.read_text()) if path.exists() else {}
    samples[key] = {
        "command": command,
        "cpu_seconds": round(cpu, 2),
        "wall_seconds": round(wall, 2),
        "sampled": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": where,
    }
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(samples, indent=1) + "\n")
    os.replace(temporary, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=pathlib.Path)
    parser.add_argument("--every", type=float, default=30.0)
    args = parser.parse_args()
    runs, where = args.runs.resolve(), machine()
    while True:
        for pid, directory, command in cell_processes(runs):
            taken = sample(pid)
            if taken is not None and directory.is_dir():
                key, cpu, wall = taken
                record(directory, key, command, cpu, wall, where)
        time.sleep(args.every)


if __name__ == "__main__":
    main()
