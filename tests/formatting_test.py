"""The code is as black formats it (pyproject.toml: line length 100; the generated protobuf
modules of client/ are excluded there), and no tracked text file keeps a merge's conflict
markers."""

import pathlib
import re
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


CONFLICT_MARKER = re.compile(r"^(<{7} |={7}$|>{7} )", re.MULTILINE)
TEXT_SUFFIXES = {".py", ".md", ".gin", ".cfg", ".toml", ".txt", ".ipynb", ".json", ".yaml"}


def test_no_file_keeps_merge_conflict_markers():
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()
    assert "README.md" in tracked
    marked = [
        name
        for name in tracked
        if pathlib.Path(name).suffix in TEXT_SUFFIXES
        and (ROOT / name).is_file()
        and CONFLICT_MARKER.search((ROOT / name).read_text(errors="replace"))
    ]
    assert not marked, f"merge conflict markers left in {marked}"
