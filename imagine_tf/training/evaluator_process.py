"""The evaluator process: evaluates the learner's policy at the end of each epoch, beside it.

    imagine-tf evaluator --replay-server HOST:PORT

`imagine-tf train --actors K` starts one (its log: ``<run>/logs/evaluator.log``), so that the
learner never stops learning to evaluate. At the end of every epoch the learner pushes an
evaluation request to the replay server (`RemoteEvaluationTrigger`): the policy's weights, the
reward encoder's embeddings of every training and test goal, and the epoch. The evaluator plays
every goal once with the noise-free policy, exactly as the learner does in a single process
(`evaluate_epoch`), and queues the result; the learner fills that epoch's record with it.
"""

from __future__ import annotations

import time

import numpy as np
import tensorflow as tf

from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.episode_batch import PolicySnapshot
from imagine_tf.agent.evaluation import PolicyEvaluator, evaluate_epoch
from imagine_tf.distributed.episode_queue import EpisodeWriter
from imagine_tf.distributed.replay_server import (
    EVALUATION_REQUESTS_TABLE,
    EVALUATION_RESULTS_TABLE,
)
from imagine_tf.distributed.stop_signal import StopSignal
from imagine_tf.distributed.variable_container import VariableContainer
from imagine_tf.training.actor_process import POLL_SECONDS, built_actor_network, learner_config
from imagine_tf.training.triggers import RESULT_KEYS


class EmbeddingLookup:
    """A goal encoder that looks embeddings up: token rows [G, L] -> embeddings [G, E]."""

    def __init__(self):
        self.table: dict[bytes, np.ndarray] = {}

    def set(self, tokens: np.ndarray, embeddings: np.ndarray) -> None:
        self.table = {row.tobytes(): e for row, e in zip(np.asarray(tokens), embeddings)}

    def __call__(self, tokens) -> tf.Tensor:
        return tf.constant(np.stack([self.table[row.tobytes()] for row in np.asarray(tokens)]))


def run_evaluator(
    address: str, stop: StopSignal | None = None, retry_seconds: float = 60.0, log=print
) -> int:
    """Evaluates the requests of the learner at ``address`` until ``stop`` is set; the
    number of epochs evaluated.

    Raises:
      ReplayServerUnavailable: the server does not answer for ``retry_seconds``.
    """
    stop = stop or StopSignal()
    requests = VariableContainer(address, EVALUATION_REQUESTS_TABLE, deadline_s=retry_seconds)
    results = EpisodeWriter(address, EVALUATION_RESULTS_TABLE, deadline_s=retry_seconds)
    evaluated = 0
    try:
        config = learner_config(requests, None, stop, log)
        if config is None:
            return evaluated
        builder = RunBuilder(config)
        network = built_actor_network(builder)
        encoder = EmbeddingLookup()
        evaluator = PolicyEvaluator(builder, network, encoder)
        log(f"evaluating for the learner at {address}")
        last_request = None
        while not stop.is_set():
            arrays = requests.pull(timeout_s=POLL_SECONDS)
            if arrays is None or int(arrays["request_id"]) == last_request:
                time.sleep(POLL_SECONDS)
                continue
            last_request = int(arrays["request_id"])
            epoch = int(arrays["evaluated_epoch"])
            network.set_weights(PolicySnapshot.from_arrays(arrays).weights)
            encoder.set(arrays["evaluated_goal_tokens"], arrays["evaluated_goal_embeddings"])
            result = evaluate_epoch(evaluator)
            values = np.array([result[key] for key in RESULT_KEYS], np.float64)
            item = {"epoch": np.asarray(epoch, np.int64), "values": values}
            if not results.write(item, should_stop=stop.is_set):
                break
            evaluated += 1
            log(f"epoch {epoch}: train SR {result['eval_train_success']:.3f}")
    finally:
        results.close()
        requests.close()
    return evaluated
