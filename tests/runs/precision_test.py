"""``compute_dtype = "auto"``: a run records the resolved precision and keeps it on resume."""

import json

import gin
import pytest

from imagine_tf.networks import precision
from imagine_tf.agent.config import COMPUTE_DTYPES, TrainConfig
from imagine_tf.runs.checkpoint import check_run_config
from imagine_tf.runs.precision import recorded_compute_dtype, resolve_run_precision

AVX512_BF16_CPU = "flags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512_vnni\n"
AVX2_CPU = "flags\t\t: fpu sse2 avx2 fma\n"
TINY = dict(
    episodes_per_cycle=2,
    cycles_per_epoch=2,
    updates_per_cycle=1,
    batch_size=8,
    num_candidates=5,
    replay_capacity=50,
    memory_capacity=50,
)


pytestmark = pytest.mark.usefixtures("clear_gin")  # tests/conftest.py


def native(monkeypatch, value: bool) -> None:
    """Pretends this machine has (or lacks) native bfloat16."""
    monkeypatch.setattr(precision, "has_native_bfloat16", lambda *args, **kwargs: value)


def test_the_train_config_accepts_the_precisions_and_auto():
    assert set(COMPUTE_DTYPES) == {*precision.COMPUTE_DTYPES, precision.AUTO}
    assert TrainConfig(compute_dtype="auto").compute_dtype == "auto"
    with pytest.raises(ValueError, match="compute_dtype must be one of"):
        TrainConfig(compute_dtype="float16")


def test_auto_resolves_from_the_cpu_of_a_new_run(tmp_path, monkeypatch):
    monkeypatch.setattr(precision, "bfloat16_matmul_speedup", lambda: 1.75)  # measured faster
    auto = TrainConfig(compute_dtype="auto")
    resolved = resolve_run_precision(auto, tmp_path, cpuinfo=AVX512_BF16_CPU)
    assert resolved.compute_dtype == "bfloat16"
    if not precision.gpu_compute_capabilities():  # a GPU of capability >= 8 is native anyway
        assert resolve_run_precision(auto, tmp_path, cpuinfo=AVX2_CPU).compute_dtype == "float32"
    named = TrainConfig(compute_dtype="float32")
    assert resolve_run_precision(named, cpuinfo=AVX512_BF16_CPU) is named


def test_auto_keeps_the_precision_a_run_recorded(tmp_path, monkeypatch):
    (tmp_path / "config.json").write_text(json.dumps({"compute_dtype": "bfloat16"}))
    native(monkeypatch, False)  # the run moved to a machine without native bfloat16
    assert recorded_compute_dtype(tmp_path) == "bfloat16"
    auto = TrainConfig(compute_dtype="auto")
    assert resolve_run_precision(auto, tmp_path).compute_dtype == "bfloat16"
    # The first directory that records one wins (a fork's own, then its source's).
    assert resolve_run_precision(auto, tmp_path / "new", tmp_path).compute_dtype == "bfloat16"
    assert resolve_run_precision(auto, tmp_path / "new").compute_dtype == "float32"


def test_a_run_started_with_auto_records_the_resolved_dtype(tmp_path, monkeypatch):
    from imagine_tf.training.train_eval import train_eval

    native(monkeypatch, True)
    bindings = [f"TrainConfig.{key} = {value}" for key, value in TINY.items()]
    gin.parse_config(
        [*bindings, "TrainConfig.reward = 'oracle'", "TrainConfig.compute_dtype = 'auto'"]
    )
    train_eval(str(tmp_path), num_epochs=1, progress=False, demo_goals=("Go left",))
    assert json.loads((tmp_path / "config.json").read_text())["compute_dtype"] == "bfloat16"
    for name in ("config.gin", "operative_config.gin"):
        text = (tmp_path / name).read_text()
        assert "TrainConfig.compute_dtype = 'bfloat16'" in text and "'auto'" not in text, name
    # Resumed with "auto" on a machine without native bfloat16: the run keeps bfloat16.
    gin.clear_config()
    native(monkeypatch, False)
    resumed = resolve_run_precision(
        TrainConfig(compute_dtype="auto", reward="oracle", **TINY), tmp_path
    )
    assert resumed.compute_dtype == "bfloat16"
    check_run_config(tmp_path, resumed)  # no mismatch
    gin.parse_config((tmp_path / "config.gin").read_text())  # a resume with no gin flags
    assert TrainConfig().compute_dtype == "bfloat16"


@pytest.mark.integration  # a server on 127.0.0.1
def test_an_actor_given_auto_takes_the_learners_precision():
    from imagine_tf.distributed.address import free_port
    from imagine_tf.distributed.replay_server import ReplayServer
    from imagine_tf.distributed.stop_signal import StopSignal
    from imagine_tf.distributed.variable_container import VariableContainer
    from imagine_tf.training.actor_process import learner_config

    with ReplayServer(free_port(), 2) as server:
        with VariableContainer(f"127.0.0.1:{server.port}") as container:
            container.push_run_config(TrainConfig(compute_dtype="bfloat16").to_json())
            given = TrainConfig(compute_dtype="auto")
            assert learner_config(container, given, StopSignal()).compute_dtype == "bfloat16"
