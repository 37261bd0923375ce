"""The code is as black formats it (pyproject.toml: line length 100; the generated protobuf
modules of client/ are excluded there)."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCES = ("imagine_tf", "serving", "client", "datasets", "benchmarks", "tests")


def test_the_sources_are_black_formatted():
    result = subprocess.run(
        [sys.executable, "-m", "black", "--check", *SOURCES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, (
        "Some files are not black-formatted; run `.venv/bin/black "
        + " ".join(SOURCES)
        + "`:\n"
        + result.stderr
    )
