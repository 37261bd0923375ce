"""gRPC method handlers whose requests may be any bytes.

The generated ``add_*Servicer_to_server`` functions parse a request before the servicer sees
it; bytes that are no valid proto then end as UNKNOWN ("Unexpected DecodeError"), which a
client cannot act on. Here a request that does not parse reaches the method as
`MalformedRequest` and is answered INVALID_ARGUMENT, naming the message type expected.
"""

from __future__ import annotations

import dataclasses

import grpc
from google.protobuf import message
from tensorflow_serving.apis import (
    classification_pb2,
    get_model_metadata_pb2,
    get_model_status_pb2,
    inference_pb2,
    predict_pb2,
    regression_pb2,
)

#: service -> {method: (request type, response type)}: what this server registers.
SERVICES = {
    "tensorflow.serving.PredictionService": {
        "Classify": (
            classification_pb2.ClassificationRequest,
            classification_pb2.ClassificationResponse,
        ),
        "Regress": (regression_pb2.RegressionRequest, regression_pb2.RegressionResponse),
        "Predict": (predict_pb2.PredictRequest, predict_pb2.PredictResponse),
        "MultiInference": (
            inference_pb2.MultiInferenceRequest,
            inference_pb2.MultiInferenceResponse,
        ),
        "GetModelMetadata": (
            get_model_metadata_pb2.GetModelMetadataRequest,
            get_model_metadata_pb2.GetModelMetadataResponse,
        ),
    },
    "tensorflow.serving.ModelService": {
        "GetModelStatus": (
            get_model_status_pb2.GetModelStatusRequest,
            get_model_status_pb2.GetModelStatusResponse,
        ),
    },
}


@dataclasses.dataclass(frozen=True)
class MalformedRequest:
    """Bytes that did not parse as ``expected``."""

    expected: str
    size: int
    error: str


def _lenient(request_type):
    def deserialize(data: bytes):
        try:
            return request_type.FromString(data)
        except message.DecodeError as error:
            return MalformedRequest(request_type.DESCRIPTOR.full_name, len(data), str(error))

    return deserialize


def _checked(method):
    async def behaviour(request, context):
        if isinstance(request, MalformedRequest):
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the request ({request.size} bytes) is not a valid {request.expected}: "
                f"{request.error}",
            )
        return await method(request, context)

    return behaviour


def add_servicer(server: grpc.aio.Server, service: str, servicer) -> None:
    """Registers ``servicer``'s methods of ``service`` (a key of `SERVICES`) on ``server``."""
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(
            _checked(getattr(servicer, name)),
            request_deserializer=_lenient(request_type),
            response_serializer=response_type.SerializeToString,
        )
        for name, (request_type, response_type) in SERVICES[service].items()
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
