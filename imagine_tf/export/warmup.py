"""TF Serving warm-up records: ``assets.extra/tf_serving_warmup_requests``.

A TFRecord file of `PredictionLog` protos, each holding a `PredictRequest`, which a server
replays after loading a version and before reporting it AVAILABLE, so that the first real
request does not pay for tracing and memory allocation (TF Serving's SavedModel warm-up).
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np
import tensorflow as tf


def write_warmup_requests(
    path: str | os.PathLike, goals: Sequence[str], states: np.ndarray, model_name: str = "reward"
) -> None:
    """One `score` and one `scan` request on ``goals`` [B] and ``states`` [B, D]."""
    from tensorflow_serving.apis import model_pb2, predict_pb2, prediction_log_pb2

    requests = []
    for signature in ("score", "scan"):
        request = predict_pb2.PredictRequest(
            model_spec=model_pb2.ModelSpec(name=model_name, signature_name=signature)
        )
        request.inputs["goals"].CopyFrom(tf.make_tensor_proto(list(goals), dtype=tf.string))
        request.inputs["states"].CopyFrom(tf.make_tensor_proto(np.asarray(states, np.float32)))
        requests.append(request)
    with tf.io.TFRecordWriter(str(path)) as writer:
        for request in requests:
            log = prediction_log_pb2.PredictionLog(
                predict_log=prediction_log_pb2.PredictLog(request=request)
            )
            writer.write(log.SerializeToString())
