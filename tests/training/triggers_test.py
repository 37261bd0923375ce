"""The evaluation trigger in another process's place: the evaluator (`run_evaluator`, here in a
thread) fills an epoch's record through a real replay server with exactly the values that the
in-process evaluation computes."""

import pathlib
import threading

import numpy as np
import pytest

from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig
from imagine_tf.agent.evaluation import EVALUATION_KEYS
from imagine_tf.distributed.address import free_port
from imagine_tf.distributed.replay_server import ReplayServer
from imagine_tf.distributed.stop_signal import StopSignal
from imagine_tf.distributed.variable_container import VariableContainer
from imagine_tf.runs.config_files import parse_config_files
from imagine_tf.training.evaluator_process import run_evaluator
from imagine_tf.training.triggers import EvaluationTrigger, RemoteEvaluationTrigger

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("clear_gin")]
SMOKE = pathlib.Path(__file__).resolve().parents[2] / "configs" / "agent" / "smoke.gin"


@pytest.fixture(scope="module")
def learner():
    import gin

    parse_config_files([SMOKE])
    config = TrainConfig()
    gin.clear_config()
    learner = RunBuilder(config).make_learner()
    learner.epoch.assign(1)
    return learner


def epoch_record(epoch: int) -> dict:
    return {"epoch": epoch, **dict.fromkeys(EVALUATION_KEYS)}


def test_the_evaluator_fills_the_record_as_this_process_does(learner):
    local = epoch_record(1)
    EvaluationTrigger(learner)(local)
    assert local["eval_train_success"] is not None and local["seconds_evaluation"] >= 0
    learner.logs[:] = [epoch_record(1)]
    server, stop = ReplayServer(free_port(), queue_capacity=2), StopSignal()
    evaluator = threading.Thread(target=run_evaluator, args=(server.address, stop, 30, print))
    try:
        VariableContainer(server.address).push_run_config(learner.config.to_json())
        remote = RemoteEvaluationTrigger(learner, server.address, retry_seconds=30)
        evaluator.start()
        remote(learner.logs[0])
        remote.finish(timeout_s=120)
        filled = learner.logs[0]
        assert remote.take_filled() == [filled] and remote.take_filled() == []
        for key in EVALUATION_KEYS:
            np.testing.assert_equal(filled[key], local[key], err_msg=key)
        # A resumed run whose last record has none asks for it again, at once.
        learner.logs[:] = [epoch_record(1)]
        again = RemoteEvaluationTrigger(learner, server.address, retry_seconds=30)
        again.finish(timeout_s=120)
        assert learner.logs[0]["eval_train_success"] == local["eval_train_success"]
        remote.close()
        again.close()
    finally:
        stop.set()
        evaluator.join(timeout=60)
        server.stop()
    assert not evaluator.is_alive()


def test_the_in_process_trigger_fills_the_placeholders_in_place_keeping_their_order(learner):
    """`Learner.end_epoch` leaves the evaluation keys None where the record has them; the
    trigger fills those same keys (progress.jsonl keeps its key order) and has nothing later."""
    record = {"epoch": 1, **dict.fromkeys(EVALUATION_KEYS), "seconds_reward": 0.5}
    order = list(record)
    trigger = EvaluationTrigger(learner)
    trigger(record)
    assert list(record) == [*order, "seconds_evaluation"]
    assert all(0.0 <= record[key] <= 1.0 for key in EVALUATION_KEYS)
    assert trigger.take_filled() == []
