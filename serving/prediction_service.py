"""TensorFlow Serving's gRPC API over a `ModelRegistry`: Predict, GetModelMetadata, GetModelStatus.

Clients use the stock stubs (`prediction_service_pb2_grpc.PredictionServiceStub`,
`model_service_pb2_grpc.ModelServiceStub`) unchanged, including ``model_spec.version`` and
``model_spec.signature_name`` (default ``serving_default``) and ``output_filter``.

Status codes: NOT_FOUND for an unknown model name, version or signature; UNAVAILABLE before a
version is loaded; INVALID_ARGUMENT for every malformed request, with the reason. The server
keeps serving after any of them.

The servicers are coroutines of a ``grpc.aio`` server: a request is parsed, checked and answered
on the event loop, and only the model call leaves it (to the signature's batch thread, or to a
thread pool when batching is off), where the session run releases the GIL. Against the thread
pool server of ``grpc.server`` this saves a thread hand-off per request and the pool's lock
traffic (`imagine-tf bench serving`, 16 concurrent clients).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
from concurrent import futures

import grpc
import tensorflow as tf
from imagine_tf_client.tensors import fill_tensor_proto
from tensorflow_serving.apis import (
    get_model_metadata_pb2,
    get_model_status_pb2,
    model_pb2,
    model_service_pb2_grpc,
    predict_pb2,
    prediction_service_pb2_grpc,
)

from .model_registry import AVAILABLE, LoadedVersion, ModelRegistry
from .request_validation import RequestError, convert_inputs, model_error_message

DEFAULT_SIGNATURE = "serving_default"
LOG = logging.getLogger("serving")
_logged: set[tuple[str, str]] = set()
_logged_lock = threading.Lock()


def internal_error_message(error: Exception) -> str:
    """What a client is told of an unexpected failure; its traceback is logged once per kind."""
    key = (type(error).__name__, str(error)[:200])
    with _logged_lock:
        first = key not in _logged
        _logged.add(key)
    if first:
        LOG.error("unexpected error while serving a request", exc_info=error)
    return (
        f"the server failed on this request ({type(error).__name__}); it keeps serving. "
        "The server's log has the details."
    )


class Predictor:
    """Runs predict requests on the registry's versions (shared by the servicer and warm-up)."""

    def __init__(self, model_name: str, registry: ModelRegistry, max_batch_size: int):
        self.model_name, self.registry, self.max_batch_size = model_name, registry, max_batch_size

    def version_for(self, model_spec) -> LoadedVersion:
        if model_spec.name != self.model_name:
            raise LookupError(
                f"unknown model {model_spec.name!r}; this server serves {self.model_name!r}"
            )
        wanted = self.registry.requested_version(model_spec)  # LookupError: unknown label
        loaded = self.registry.get(wanted)
        if loaded is None:
            served = self.registry.served_versions()
            if not served:
                raise RuntimeError(f"model {self.model_name!r} has no version loaded yet")
            labelled = model_spec.WhichOneof("version_choice") == "version_label"
            named = f" (label {model_spec.version_label!r})" if labelled else ""
            raise LookupError(
                f"version {wanted}{named} of {self.model_name!r} is not served (serving {served})"
            )
        return loaded

    def predict(self, request, loaded: LoadedVersion):
        """The PredictResponse of ``request`` on ``loaded``; raises RequestError / LookupError."""
        name, runner, inputs = self._prepare(request, loaded)
        with _model_errors():
            outputs = runner.run(inputs)
        return self._response(request, loaded, name, outputs)

    async def predict_async(self, request, loaded: LoadedVersion, executor: futures.Executor):
        """`predict` from an event loop: the model runs in its batch thread, or in ``executor``
        when the signature is not batched."""
        name, runner, inputs = self._prepare(request, loaded)
        submitted = runner.submit(inputs)
        with _model_errors():
            if submitted is None:
                loop = asyncio.get_running_loop()
                outputs = await loop.run_in_executor(executor, runner.run, inputs)
            else:
                outputs = await asyncio.wrap_future(submitted)
        return self._response(request, loaded, name, outputs)

    def _prepare(self, request, loaded: LoadedVersion):
        name = request.model_spec.signature_name or DEFAULT_SIGNATURE
        runner = loaded.signatures.get(name)
        if runner is None:
            raise LookupError(f"no signature {name!r}; this model has {sorted(loaded.signatures)}")
        return name, runner, convert_inputs(request.inputs, runner.input_specs, self.max_batch_size)

    def _response(self, request, loaded: LoadedVersion, name: str, outputs: dict):
        wanted = set(request.output_filter) or set(outputs)
        unknown = wanted - set(outputs)
        if unknown:
            raise RequestError(
                f"output_filter names unknown outputs {sorted(unknown)}; outputs are {sorted(outputs)}"
            )
        response = predict_pb2.PredictResponse(
            model_spec=model_pb2.ModelSpec(name=self.model_name, signature_name=name)
        )
        response.model_spec.version.value = loaded.version
        for key in sorted(wanted):
            fill_tensor_proto(response.outputs[key], outputs[key])
        return response


@contextlib.contextmanager
def _model_errors():
    """The model's own checks (a failed assertion, an unknown word) become `RequestError`."""
    try:
        yield
    except (tf.errors.InvalidArgumentError, tf.errors.OutOfRangeError) as error:
        raise RequestError(model_error_message(error)) from None


def answers_cleanly(handler):
    """A servicer coroutine whose unexpected exceptions become INTERNAL with a message (never
    UNKNOWN with internals); what the method aborted with itself passes through."""

    @functools.wraps(handler)
    async def wrapped(self, request, context):
        try:
            return await handler(self, request, context)
        except Exception as error:
            if context.code() is not None:  # the handler aborted: answered already
                raise
            await context.abort(grpc.StatusCode.INTERNAL, internal_error_message(error))

    return wrapped


def no_method_message(loaded: LoadedVersion, method: str) -> str:
    """What TF Serving says when a model has no signature of ``method`` (classify, regress)."""
    return (
        f"Expected a tensorflow/serving/{method} signature; version {loaded.version} of this "
        f"model has only predict signatures ({', '.join(sorted(loaded.signatures))}): call "
        "Predict with one of them."
    )


async def _abort(context, error: Exception):
    if isinstance(error, RequestError):
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
    if isinstance(error, LookupError):
        await context.abort(grpc.StatusCode.NOT_FOUND, str(error).strip("'\""))
    await context.abort(grpc.StatusCode.UNAVAILABLE, str(error))


class PredictionServicer(prediction_service_pb2_grpc.PredictionServiceServicer):
    """`tensorflow.serving.PredictionService`: Predict and GetModelMetadata; Classify, Regress
    and MultiInference answer as TF Serving does for a model whose signatures are all predict
    signatures (NOT_FOUND for an unknown model or version, else INVALID_ARGUMENT)."""

    def __init__(self, predictor: Predictor, executor: futures.Executor):
        self.predictor, self.executor = predictor, executor

    @answers_cleanly
    async def Predict(self, request, context):  # noqa: N802 - the gRPC method name
        try:
            loaded = self.predictor.version_for(request.model_spec)
            return await self.predictor.predict_async(request, loaded, self.executor)
        except (RequestError, LookupError, RuntimeError) as error:
            await _abort(context, error)

    async def _no_such_method(self, model_spec, method: str, context):
        try:
            loaded = self.predictor.version_for(model_spec)
        except (LookupError, RuntimeError) as error:
            await _abort(context, error)
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, no_method_message(loaded, method))

    @answers_cleanly
    async def Classify(self, request, context):  # noqa: N802
        await self._no_such_method(request.model_spec, "classify", context)

    @answers_cleanly
    async def Regress(self, request, context):  # noqa: N802
        await self._no_such_method(request.model_spec, "regress", context)

    @answers_cleanly
    async def MultiInference(self, request, context):  # noqa: N802
        if not request.tasks:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "MultiInference needs tasks")
        task = request.tasks[0]
        method = task.method_name.rsplit("/", 1)[-1] or "an inference"
        await self._no_such_method(task.model_spec, method, context)

    @answers_cleanly
    async def GetModelMetadata(self, request, context):  # noqa: N802
        try:
            loaded = self.predictor.version_for(request.model_spec)
        except (LookupError, RuntimeError) as error:
            await _abort(context, error)
        unknown = set(request.metadata_field) - {"signature_def"}
        if unknown:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"metadata_field {sorted(unknown)} unknown; only 'signature_def' exists",
            )
        signature_map = get_model_metadata_pb2.SignatureDefMap()
        for name, signature in loaded.signature_defs.items():
            signature_map.signature_def[name].CopyFrom(signature)
        response = get_model_metadata_pb2.GetModelMetadataResponse(
            model_spec=model_pb2.ModelSpec(name=self.predictor.model_name)
        )
        response.model_spec.version.value = loaded.version
        response.metadata["signature_def"].Pack(signature_map)
        return response


class ModelStatusServicer(model_service_pb2_grpc.ModelServiceServicer):
    """`tensorflow.serving.ModelService.GetModelStatus`: the state of each version."""

    def __init__(self, model_name: str, registry: ModelRegistry):
        self.model_name, self.registry = model_name, registry

    @answers_cleanly
    async def GetModelStatus(self, request, context):  # noqa: N802
        if request.model_spec.name != self.model_name:
            await context.abort(
                grpc.StatusCode.NOT_FOUND, f"unknown model {request.model_spec.name!r}"
            )
        states = dict(self.registry.states)
        try:
            wanted = self.registry.requested_version(request.model_spec)
        except LookupError as error:
            await _abort(context, error)
        if wanted is not None:
            if wanted not in states:
                await context.abort(
                    grpc.StatusCode.NOT_FOUND, f"version {wanted} of {self.model_name!r} is unknown"
                )
            states = {wanted: states[wanted]}
        response = get_model_status_pb2.GetModelStatusResponse()
        for version, (state, message) in sorted(states.items()):
            status = response.model_version_status.add(version=version, state=state)
            status.status.error_code = 0 if state == AVAILABLE or not message else 13  # INTERNAL
            status.status.error_message = message
        return response
