"""TensorFlow Serving's REST API over the same `Predictor` as gRPC (framework-neutral).

`RestApi.handle(method, path, body)` answers one HTTP request with (status, JSON document):

* ``GET /v1/models/{name}[/versions/{v}|/labels/{l}]``: the versions' status,
  ``{"model_version_status": [{"version": "1", "state": "AVAILABLE", "status": {...}}]}``;
* ``GET …/metadata``: ``{"model_spec": {...}, "metadata": {"signature_def": {...}}}``, the
  SignatureDefMap as JSON;
* ``POST …:predict`` with ``{"signature_name"?, "instances": [...]}`` (row format: one object
  per example, or one value when the signature has one input) or ``{"inputs": ...}``
  (columnar: one value per input, or the value of the only input), answered with
  ``{"predictions": [...]}`` or ``{"outputs": ...}``. Strings are JSON strings, or
  ``{"b64": "..."}`` for bytes.

Inputs are converted to the signature's dtypes and go through the gRPC path's own checks
(`request_validation.convert_inputs`) and `Predictor.predict`: the same errors, with TF
Serving's HTTP statuses (400 bad input, 404 unknown model / version / label / signature, 503
nothing loaded yet, 500 anything unexpected, always ``{"error": "..."}``).
"""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import tensorflow as tf
from google.protobuf import json_format
from imagine_tf_client.tensors import fill_tensor_proto, to_array
from tensorflow_serving.apis import get_model_metadata_pb2, model_pb2, predict_pb2

from .model_registry import ModelRegistry
from .prediction_service import (
    DEFAULT_SIGNATURE,
    Predictor,
    internal_error_message,
    no_method_message,
)
from .request_validation import RequestError

#: the deepest a request body may nest: a tensor has at most 32 dimensions (numpy's limit),
#: inside the document's object and an input's object
MAX_DEPTH = 34
_OPENING, _CLOSING = np.frombuffer(b"[{", np.uint8), np.frombuffer(b"]}", np.uint8)
_PATH = re.compile(
    r"^/v1/models/(?P<name>[^/:]+)"
    r"(?:/versions/(?P<version>[^/:]+)|/labels/(?P<label>[^/:]+))?"
    r"(?P<action>/metadata|:predict|:classify|:regress)?/?$"
)
_STATE_NAMES = {
    0: "UNKNOWN",
    10: "START",
    20: "LOADING",
    30: "AVAILABLE",
    40: "UNLOADING",
    50: "END",
}


class HttpError(Exception):
    """An answer other than 200: its HTTP status and message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class RestApi:
    """Answers TF Serving REST requests for one model.

    Args:
      predictor: the gRPC service's `Predictor` (registry, model name, batch limit).
      registry: the `ModelRegistry` (version states for the status call).
    """

    def __init__(self, predictor: Predictor, registry: ModelRegistry):
        self.predictor, self.registry = predictor, registry

    def handle(self, method: str, path: str, body: bytes) -> tuple[int, dict]:
        """(HTTP status, JSON document) of one request; never raises."""
        try:
            return 200, self._route(method, path, body)
        except HttpError as error:
            return error.status, {"error": str(error)}
        except RequestError as error:
            return 400, {"error": str(error)}
        except LookupError as error:
            return 404, {"error": str(error).strip("'\"")}
        except RuntimeError as error:  # nothing loaded yet
            return 503, {"error": str(error)}
        except Exception as error:  # a clean answer for what no check foresaw
            return 500, {"error": internal_error_message(error)}

    def _route(self, method: str, path: str, body: bytes) -> dict:
        match = _PATH.match(path)
        if match is None:
            raise HttpError(
                404,
                f"no such resource {path!r}: the API is /v1/models/{{name}}"
                "[/versions/{v}|/labels/{l}][/metadata|:predict|:classify|:regress]",
            )
        spec = model_pb2.ModelSpec(name=match["name"])
        if match["version"] is not None:
            if not match["version"].isdigit():
                raise HttpError(400, f"version {match['version']!r} is not a number")
            spec.version.value = int(match["version"])
        elif match["label"] is not None:
            spec.version_label = match["label"]
        action = match["action"] or ""
        wanted = {"": "GET", "/metadata": "GET"}.get(action.rstrip("/"), "POST")
        if method != wanted:
            raise HttpError(405, f"{path} takes {wanted}, not {method}")
        if action in (":classify", ":regress"):  # TF Serving's routes; no such signature here
            loaded = self.predictor.version_for(spec)
            raise RequestError(no_method_message(loaded, action[1:]))
        if action == ":predict":
            return self._predict(spec, body)
        if action == "/metadata":
            return self._metadata(spec)
        return self._status(spec)

    # -- status and metadata ------------------------------------------------------------------
    def _status(self, spec) -> dict:
        if spec.name != self.predictor.model_name:
            raise LookupError(
                f"unknown model {spec.name!r}; this server serves " f"{self.predictor.model_name!r}"
            )
        states = dict(self.registry.states)
        wanted = self.registry.requested_version(spec)
        if wanted is not None:
            if wanted not in states:
                raise LookupError(f"version {wanted} of {spec.name!r} is unknown")
            states = {wanted: states[wanted]}
        return {
            "model_version_status": [
                {
                    "version": str(version),
                    "state": _STATE_NAMES.get(state, str(state)),
                    "status": {
                        "error_code": "OK" if not message else "UNKNOWN",
                        "error_message": message,
                    },
                }
                for version, (state, message) in sorted(states.items())
            ]
        }

    def _metadata(self, spec) -> dict:
        loaded = self.predictor.version_for(spec)
        signature_map = get_model_metadata_pb2.SignatureDefMap()
        for name, signature in loaded.signature_defs.items():
            signature_map.signature_def[name].CopyFrom(signature)
        return {
            "model_spec": {
                "name": self.predictor.model_name,
                "signature_name": "",
                "version": str(loaded.version),
            },
            "metadata": {
                "signature_def": json_format.MessageToDict(
                    signature_map, preserving_proto_field_name=True
                )
            },
        }

    # -- predict --------------------------------------------------------------------------------
    def _predict(self, spec, body: bytes) -> dict:
        document = _json_object(body)
        loaded = self.predictor.version_for(spec)
        name = document.get("signature_name", DEFAULT_SIGNATURE)
        if not isinstance(name, str):
            raise RequestError(f"signature_name must be a string, got {type(name).__name__}")
        runner = loaded.signatures.get(name)
        if runner is None:
            raise LookupError(f"no signature {name!r}; this model has {sorted(loaded.signatures)}")
        specs = runner.input_specs
        if ("instances" in document) == ("inputs" in document):
            raise RequestError(
                'the body needs exactly one of "instances" (row format) or '
                '"inputs" (columnar format)'
            )
        unknown = set(document) - {"signature_name", "instances", "inputs"}
        if unknown:
            raise RequestError(
                f"unknown keys {sorted(unknown)}: the body takes signature_name, "
                "instances or inputs"
            )
        row_format = "instances" in document
        values = (
            _rows_to_columns(document["instances"], specs)
            if row_format
            else _named(document["inputs"], specs, "inputs")
        )
        request = predict_pb2.PredictRequest(model_spec=spec)
        request.model_spec.signature_name = name
        for key, value in values.items():
            target = specs.get(key)
            fill_tensor_proto(request.inputs[key], _array(key, value, target))
        response = self.predictor.predict(request, loaded)
        outputs = {key: _json_value(to_array(proto)) for key, proto in response.outputs.items()}
        if row_format:
            return {"predictions": _columns_to_rows(outputs)}
        return {"outputs": outputs if len(outputs) > 1 else next(iter(outputs.values()))}


def _depth(body: bytes) -> int:
    """How deep the body's arrays and objects nest, from its brackets, in one vectorised pass
    (a bound: brackets inside strings count too; goals and base64 hold none)."""
    codes = np.frombuffer(body, np.uint8)
    steps = np.isin(codes, _OPENING).astype(np.int32) - np.isin(codes, _CLOSING)
    return int(np.cumsum(steps).max(initial=0))


def _json_object(body: bytes) -> dict:
    if _depth(body or b"") > MAX_DEPTH:  # before parsing: no recursion, no Python loop
        raise RequestError(f"the body nests deeper than {MAX_DEPTH} levels")
    try:
        document = json.loads(body or b"{}")
    except (UnicodeDecodeError, ValueError) as error:
        raise RequestError(f"the body is not JSON: {error}") from None
    except RecursionError:  # deeper than the parser follows
        raise RequestError(f"the body nests deeper than {MAX_DEPTH} levels") from None
    if not isinstance(document, dict):
        raise RequestError(f"the body must be a JSON object, got {type(document).__name__}")
    return document


def _named(value, specs: dict, where: str) -> dict:
    """{input: value} of a columnar value: an object keyed by input, or the only input's."""
    if isinstance(value, dict) and not _is_b64(value):
        return value
    if len(specs) != 1:
        raise RequestError(f'"{where}" must be an object keyed by the inputs {sorted(specs)}')
    return {next(iter(specs)): value}


def _rows_to_columns(instances, specs: dict) -> dict:
    """The row format: a list of examples (objects by input, or values of the only input)."""
    if not isinstance(instances, list) or not instances:
        raise RequestError('"instances" must be a non-empty list of examples')
    rows = [_named(row, specs, "instances[i]") for row in instances]
    keys = set(rows[0])
    if any(set(row) != keys for row in rows):
        raise RequestError('every example of "instances" must name the same inputs')
    return {key: [row[key] for row in rows] for key in keys}


def _is_b64(value) -> bool:
    return isinstance(value, dict) and set(value) == {"b64"}


def _array(name: str, value, spec: tf.TensorSpec | None) -> np.ndarray:
    """A JSON value as an array of the input's dtype (the checks come after, as for gRPC)."""
    if spec is None:  # an unknown input: convert_inputs names it
        return np.zeros(0, np.float32)
    if spec.dtype == tf.string:
        return np.array(_strings(name, value), dtype=object)
    try:
        array = np.array(value, dtype=spec.dtype.as_numpy_dtype)
    except (TypeError, ValueError, OverflowError) as error:
        raise RequestError(
            f"input {name!r} must hold {spec.dtype.name} values in a regular "
            f"nested list: {error}"
        ) from None
    return array


def _strings(name: str, value):
    """Nested lists of JSON strings or {"b64": ...} as nested lists of bytes."""
    if isinstance(value, list):
        return [_strings(name, item) for item in value]
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if _is_b64(value) and isinstance(value["b64"], str):
        try:
            return base64.b64decode(value["b64"], validate=True)
        except ValueError as error:
            raise RequestError(f"input {name!r}: invalid base64: {error}") from None
    raise RequestError(
        f'input {name!r} takes strings (or {{"b64": ...}}), got ' f"{type(value).__name__}"
    )


def _json_value(array: np.ndarray):
    if array.dtype == object:
        return np.vectorize(_text, otypes=[object])(array).tolist() if array.size else []
    return array.tolist()


def _text(value):
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return {"b64": base64.b64encode(value).decode("ascii")}
    return value


def _columns_to_rows(outputs: dict) -> list:
    """TF Serving's row answer: one value per example (one output) or one object per example."""
    if len(outputs) == 1:
        return next(iter(outputs.values()))
    sizes = {len(v) if isinstance(v, list) else None for v in outputs.values()}
    if len(sizes) != 1 or None in sizes:
        raise RequestError(
            "the outputs do not share a batch size: use the columnar format "
            '("inputs") for this signature'
        )
    count = sizes.pop()
    return [{key: value[i] for key, value in outputs.items()} for i in range(count)]
