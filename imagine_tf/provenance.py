"""Where a result came from: the code's version and the machine, as records name them.

`code_version` (the git commit, ``+dirty`` with local changes) and `machine_description` (CPU
model, instruction sets, logical CPUs, Python, OS) are written by the experiment grids, the
benchmarks and each training start of a run (`record_start`: ``starts.jsonl`` in the run
directory, one line per process that trained it).
"""

from __future__ import annotations

import datetime
import json
import os
import pathlib
import platform
import subprocess

#: The one file of a run directory that lists its training starts (`record_start`).
STARTS = "starts.jsonl"
REPOSITORY = pathlib.Path(__file__).resolve().parents[1]


def code_version(repository: pathlib.Path, outputs: tuple[str, ...] = ("docs/results",)) -> str:
    """The git commit of the repository (``+dirty`` with local changes outside the records,
    the ``outputs`` folders), or the package's version outside a git checkout."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=repository,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(  # records (docs/results/) are outputs, not code
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "."]
            + [f":!{folder}" for folder in outputs],
            cwd=repository,
            capture_output=True,
            text=True,
        ).stdout.strip()
        return commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        import imagine_tf

        return f"imagine-tf {getattr(imagine_tf, '__version__', 'unknown')}"


#: Instruction-set extensions that change how fast TensorFlow and numpy run here.
_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_tile")


def machine_description() -> dict:
    """The machine a figure was measured on: CPU model, the instruction-set extensions of
    `_FLAGS` it has, logical CPUs, Python and the OS (Linux /proc/cpuinfo; "unknown"
    elsewhere)."""
    model, flags = "unknown", set()
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model == "unknown":
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    return {
        "cpu_model": model,
        "instruction_sets": [flag for flag in _FLAGS if flag in flags],
        "logical_cpus": os.cpu_count(),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.machine()}",
    }


def record_start(root_dir: str | os.PathLike, command: str) -> dict:
    """Appends this training start to ``root_dir/starts.jsonl``: when, ``command``, the code
    version of this package's checkout and the machine. A crash mid-write leaves at most one
    partial last line, which `read_starts` skips."""
    start = {
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "code_version": code_version(REPOSITORY),
        "machine": machine_description(),
    }
    with open(pathlib.Path(root_dir) / STARTS, "a") as starts:
        starts.write(json.dumps(start) + "\n")
    return start


def read_starts(root_dir: str | os.PathLike) -> list[dict]:
    """The run's recorded training starts (none for runs made before they were recorded)."""
    path = pathlib.Path(root_dir) / STARTS
    if not path.exists():
        return []
    starts = []
    for line in path.read_text().splitlines():
        try:
            starts.append(json.loads(line))
        except json.JSONDecodeError:  # a partial last line of an interrupted start
            continue
    return starts
