"""`imagine-tf bench dataset --beam-workers N`: the plain and the Beam build, timed and compared."""

import json

import pytest

from imagine_tf.benchmarks.dataset_bench import run_beam_build_benchmark
from imagine_tf.cli.main import main


def test_beam_workers_must_be_positive(capsys):
    with pytest.raises(ValueError, match="beam_workers must be >= 1, got 0"):
        run_beam_build_benchmark(num_episodes=40, beam_workers=0)
    assert main(["bench", "dataset", "--num-episodes", "40", "--beam-workers", "0"]) == 2
    assert "beam_workers must be >= 1" in capsys.readouterr().err


@pytest.mark.slow
def test_plain_and_beam_builds_write_the_same_episodes(capsys, tmp_path):
    out_file = tmp_path / "dataset_beam_bench.json"
    argv = ["bench", "dataset", "--num-episodes", "40", "--beam-workers", "2"]
    assert main([*argv, "--data-dir", str(tmp_path / "data"), "--out", str(out_file)]) == 0
    results = json.loads(capsys.readouterr().out)
    assert results == json.loads(out_file.read_text())
    assert results["episodes"] == 40 and results["same_episodes"] is True
    expected = {"train": 36, "test": 4}
    assert results["expected_split_episodes"] == results["plain"]["split_episodes"] == expected
    assert results["beam"]["split_episodes"] == expected and "failed" not in results["beam"]
    assert results["beam"]["pipeline_options"].endswith("direct_running_mode=multi_processing")
    assert results["plain"]["bytes_on_disk"] == results["beam"]["bytes_on_disk"] > 0
    assert results["beam"]["max_rss_bytes"]["largest_worker"] > 0
