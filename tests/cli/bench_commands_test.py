"""`imagine-tf bench`: each benchmark's quick mode runs and writes its JSON record."""

import json

import pytest

from tests.cli.main_test import run


def test_bench_quick_json(capsys, tmp_path):
    path = tmp_path / "bench.json"
    code, out, _ = run(
        capsys, "bench", "env", "--quick", "--json", "--out", str(path), "--conditions", "a test"
    )
    results, record = json.loads(out), json.loads(path.read_text())
    assert code == 0 and record.pop("written") and record == results  # the record, and when
    assert results["conditions"] == "a test"  # what else ran, in the caller's words
    assert [len(results["load_average"][k]) for k in ("at_start", "at_end")] == [3, 3]
    for key in ("env_core_steps_per_s", "env_gymnasium_vector_steps_per_s"):
        assert set(results[key]) == {"1", "64", "1024"}
        assert all(v > 0 for v in results[key].values())
    assert "env_gymnasium_vector_steps_per_s_batch_1024" in results["targets_met"]
    assert results["machine"]["cpu_count"] >= 1


def test_bench_dataset_small(capsys, tmp_path):
    out_file = tmp_path / "dataset_bench.json"
    code, out, _ = run(capsys, "bench", "dataset", "--num-episodes", "40", "--out", str(out_file))
    results = json.loads(out)
    assert code == 0 and results["episodes"] == 40 and results["build_seconds"] > 0
    assert (
        results["examples"]["train_states"] == 36 and results["examples"]["test_states"] == 4 * 51
    )
    record = json.loads(out_file.read_text())
    assert record.pop("written") and record == results


def test_the_bench_flags_offer_every_compute_dtype_of_the_networks():
    from imagine_tf.cli.main import build_parser
    from imagine_tf.networks.precision import COMPUTE_DTYPES

    parser = build_parser()
    for dtype in COMPUTE_DTYPES:
        assert parser.parse_args(["bench", "train", "--compute-dtype", dtype]).compute_dtype == [
            dtype
        ]
    both = parser.parse_args(["bench", "train", "--compute-dtype", "float32", "bfloat16"])
    assert both.compute_dtype == ["float32", "bfloat16"]
    with pytest.raises(SystemExit):
        parser.parse_args(["bench", "train", "--compute-dtype", "float16"])


@pytest.mark.slow
def test_bench_train_quick(capsys, tmp_path):
    out_file = tmp_path / "train_bench.json"
    code, out, _ = run(
        capsys,
        "bench",
        "train",
        "--quick",
        "--reward-patience",
        "5",
        "--repeats",
        "2",
        "--out",
        str(out_file),
    )
    results = json.loads(out_file.read_text())
    assert results["repeats"] == 2 and len(results["runs"]["float32"]) == 2
    summary = results["summary"]["float32"]["updates_per_s"]
    assert summary["min"] <= summary["median"] <= summary["max"]
    assert results["machine"]["cpu_model"] and "load_average" in results
    assert results["command"].startswith("imagine-tf ") and "--repeats" in results["command"]
    assert results["config"]["reward_patience"] == 5
    assert code == 0 and results["config"]["updates_per_epoch"] == 250
    assert results["machine"]["bfloat16_matmul_speedup"] > 0
    assert results["updates_per_s"] > 0 and results["collection_steps_per_s"] > 0
    # Epoch 0 trains no policy (learned reward); the update's tracing makes 3 before epoch 1.
    assert results["warm_up_epoch"]["updates"] == 0 and results["epoch"]["updates"] == 3 + 250


@pytest.mark.slow
def test_bench_distributed_quick(capsys, tmp_path):
    out_file = tmp_path / "distributed_bench.json"
    code, _, _ = run(capsys, "bench", "distributed", "--quick", "--out", str(out_file))
    results = json.loads(out_file.read_text())
    assert code == 0 and set(results["collection_episodes_per_s_learner_idle"]) == {"1", "2"}
    assert all(v > 0 for v in results["collection_episodes_per_s_learner_idle"].values())
    assert results["learner_running"]["2"]["updates_per_s"] > 0
