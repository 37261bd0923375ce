"""TensorFlow Serving's gRPC API for one model (``PredictionService``, ``ModelService``), with
the stubs generated into ``imagine_tf_client._protos``. Failed calls become
`imagine_tf_client.errors`."""

from __future__ import annotations

import grpc
import numpy as np

from imagine_tf_client._protos.tensorflow.core.framework import types_pb2
from imagine_tf_client._protos.tensorflow_serving.apis import (
    get_model_metadata_pb2,
    get_model_status_pb2,
    model_pb2,
    model_service_pb2_grpc,
    predict_pb2,
    prediction_service_pb2_grpc,
)
from imagine_tf_client.errors import InvalidInput, ServerError, grpc_error
from imagine_tf_client.inputs import check_timeout, model_path
from imagine_tf_client.tensors import to_array, to_tensor_proto

_STATE_NAMES = get_model_status_pb2.ModelVersionStatus.State


class GrpcTransport:
    """Calls one served model over gRPC.

    Args:
      target: "host:port" (the server's ``--port``).
      model, version, label: which model and version (None, None: the newest served).
      timeout: seconds per call.
      root_certificates: PEM bytes to verify a TLS server (None: plaintext).
      max_message_mb: the largest answer accepted.
    """

    def __init__(
        self,
        target,
        model,
        version=None,
        label=None,
        timeout=10.0,
        root_certificates=None,
        max_message_mb=64,
    ):
        if not isinstance(target, str) or ":" not in target or "://" in target:
            raise InvalidInput(f"the gRPC target must be 'host:port', got {target!r}")
        model_path(model, version, label)  # the same checks as REST's
        self.target, self.model, self.timeout = target, model, check_timeout(timeout)
        self.version = None if version is None else int(version)
        self.label = label
        options = [("grpc.max_receive_message_length", max_message_mb << 20)]
        if root_certificates is None:
            self.channel = grpc.insecure_channel(target, options)
        else:
            credentials = grpc.ssl_channel_credentials(root_certificates)
            self.channel = grpc.secure_channel(target, credentials, options)
        self.prediction = prediction_service_pb2_grpc.PredictionServiceStub(self.channel)
        self.models = model_service_pb2_grpc.ModelServiceStub(self.channel)

    def _spec(self, signature: str = "") -> model_pb2.ModelSpec:
        spec = model_pb2.ModelSpec(name=self.model, signature_name=signature)
        if self.version is not None:
            spec.version.value = self.version
        elif self.label is not None:
            spec.version_label = self.label
        return spec

    def _call(self, method, request):
        try:
            return method(request, timeout=self.timeout)
        except grpc.RpcError as error:
            code = error.code().name if error.code() is not None else "UNKNOWN"
            raise grpc_error(code, error.details() or "", self.target, self.timeout) from None

    def predict(self, signature: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Outputs by name."""
        request = predict_pb2.PredictRequest(model_spec=self._spec(signature))
        for name, value in inputs.items():
            try:
                request.inputs[name].CopyFrom(to_tensor_proto(value))
            except TypeError as error:
                raise InvalidInput(f"input {name!r}: {error}") from None
        response = self._call(self.prediction.Predict, request)
        try:
            return {name: to_array(proto) for name, proto in response.outputs.items()}
        except ValueError as error:
            raise ServerError(f"{self.target} answered an unreadable tensor: {error}") from None

    def status(self) -> dict[int, str]:
        """version -> state name ("AVAILABLE" once it serves)."""
        request = get_model_status_pb2.GetModelStatusRequest(model_spec=self._spec())
        response = self._call(self.models.GetModelStatus, request)
        return {s.version: _STATE_NAMES.Name(s.state) for s in response.model_version_status}

    def signature_defs(self) -> dict:
        """The SignatureDefMap (GetModelMetadata's ``signature_def``) as `RestTransport`'s."""
        request = get_model_metadata_pb2.GetModelMetadataRequest(
            model_spec=self._spec(), metadata_field=["signature_def"]
        )
        packed = self._call(self.prediction.GetModelMetadata, request).metadata["signature_def"]
        if not packed.type_url.endswith("/tensorflow.serving.SignatureDefMap"):
            raise ServerError(f"{self.target} answered metadata of type {packed.type_url!r}")
        signatures = get_model_metadata_pb2.SignatureDefMap.FromString(packed.value)
        return {name: _summary(sig) for name, sig in signatures.signature_def.items()}

    def close(self) -> None:
        self.channel.close()


def _summary(signature) -> dict:
    def tensors(infos) -> dict:
        return {
            key: {"dtype": types_pb2.DataType.Name(info.dtype), "shape": _shape(info)}
            for key, info in infos.items()
        }

    return {
        "inputs": tensors(signature.inputs),
        "outputs": tensors(signature.outputs),
        "method_name": signature.method_name,
    }


def _shape(info) -> tuple[int, ...] | None:
    if info.tensor_shape.unknown_rank:
        return None
    return tuple(dim.size for dim in info.tensor_shape.dim)
