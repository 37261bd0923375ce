"""docs/results/scripts/sample_cell_cpu.py, run as its docstring says beside a process that
looks like a cell's train command and burns CPU: the sample is its CPU time, written whole."""

import json
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "results" / "scripts" / "sample_cell_cpu.py"
BURN = "import sys, time\nend = time.time() + float(sys.argv[1])\nwhile time.time() < end: pass"


def test_the_cpu_of_a_cell_process_is_sampled_into_its_directory(tmp_path):
    runs = tmp_path / "runs"
    (runs / "cgh_s0").mkdir(parents=True)
    (runs / "elsewhere").mkdir()
    cell_argv = ["imagine_tf.cli.main", "train", "--root-dir", str(runs / "cgh_s0")]
    cell = subprocess.Popen([sys.executable, "-c", BURN, "8", *cell_argv])
    outside = ["imagine_tf.cli.main", "train", "--root-dir", str(tmp_path / "other" / "x_s0")]
    other = subprocess.Popen([sys.executable, "-c", BURN, "8", *outside])
    sampler = subprocess.Popen([sys.executable, str(SCRIPT), str(runs), "--every", "0.2"])
    try:
        time.sleep(2.5)
        samples = json.loads((runs / "cgh_s0" / "cpu_seconds.json").read_text())
    finally:
        sampler.kill()  # a real kill: the file it last replaced is whole
        cell.kill()
        other.kill()
    (key, entry), *more = samples.items()
    assert not more and key.startswith(f"{cell.pid} ")
    assert entry["command"] == "train" and "logical CPUs" in entry["machine"]
    # a busy loop for about 2 s (a share of a core on a loaded machine), at most its age
    assert 0.2 < entry["cpu_seconds"] <= entry["wall_seconds"] + 0.05 < 3.0
    assert not (tmp_path / "other").exists() and not list((runs / "elsewhere").iterdir())
