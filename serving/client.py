"""A small client of the reward model's signatures over TF Serving's gRPC API.

    client = RewardClient("127.0.0.1:8500")
    client.score(["Grasp red cat"], states)   # {"probability": [B], "reward": [B], "module_probabilities": [B, M]}
    client.scan(states, ["Go left", "Grasp any animal"])  # {"probabilities": [B, K], "rewards": [B, K]}
    client.metadata(), client.status()

It uses the stock stubs (`PredictionServiceStub`, `ModelServiceStub`) exactly as a TensorFlow
Serving client would; errors are `grpc.RpcError`s with the server's status and message.
"""

from __future__ import annotations

import json

import grpc
import numpy as np
import tensorflow as tf
from tensorflow_serving.apis import (
    get_model_status_pb2,
    model_pb2,
    model_service_pb2_grpc,
    predict_pb2,
    prediction_service_pb2_grpc,
)

from .signature_client import SignatureClient
from .tensor_protos import to_tensor_proto

STATE_NAMES = {10: "START", 20: "LOADING", 30: "AVAILABLE", 40: "UNLOADING", 50: "END"}


class RewardClient(SignatureClient):
    """Calls a served reward model.

    Args:
      target: "host:port".
      model_name: the served model's name.
      version: a version number, or None for the newest served.
      version_label: a version label instead of a number (the server's --version_labels).
      timeout: seconds per call.
      root_certificates: PEM bytes for TLS (None: plaintext).
    """

    def __init__(
        self,
        target: str = "127.0.0.1:8500",
        model_name: str = "reward",
        version: int | None = None,
        timeout: float = 10.0,
        root_certificates: bytes | None = None,
        version_label: str | None = None,
    ):
        if version is not None and version_label is not None:
            raise ValueError("give a version or a version_label, not both")
        self.channel = (
            grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates))
            if root_certificates
            else grpc.insecure_channel(target)
        )
        self.prediction = prediction_service_pb2_grpc.PredictionServiceStub(self.channel)
        self.models = model_service_pb2_grpc.ModelServiceStub(self.channel)
        self.model_name, self.version, self.timeout = model_name, version, timeout
        self.version_label = version_label

    def _spec(self, signature: str = "") -> model_pb2.ModelSpec:
        spec = model_pb2.ModelSpec(name=self.model_name, signature_name=signature)
        if self.version is not None:
            spec.version.value = self.version
        elif self.version_label is not None:
            spec.version_label = self.version_label
        return spec

    def predict(self, signature: str, inputs: dict) -> dict[str, np.ndarray]:
        """Any signature: inputs name -> array; returns outputs name -> array."""
        request = predict_pb2.PredictRequest(model_spec=self._spec(signature))
        for name, value in inputs.items():
            request.inputs[name].CopyFrom(to_tensor_proto(value))
        response = self.prediction.Predict(request, timeout=self.timeout)
        return {name: tf.make_ndarray(proto) for name, proto in response.outputs.items()}

    def metadata(self) -> dict:
        """The model's metadata (architecture, accepted N, threshold, vocabulary, goals)."""
        return json.loads(self.predict("metadata", {})["metadata"].item())

    def status(self) -> dict[int, str]:
        """version -> state name (AVAILABLE once warm)."""
        request = get_model_status_pb2.GetModelStatusRequest(model_spec=self._spec())
        response = self.models.GetModelStatus(request, timeout=self.timeout)
        return {
            s.version: STATE_NAMES.get(s.state, str(s.state)) for s in response.model_version_status
        }

    def close(self) -> None:
        self.channel.close()
