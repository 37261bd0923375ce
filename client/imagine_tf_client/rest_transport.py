"""TensorFlow Serving's REST API for one model, with ``requests``.

Requests are the columnar format, ``{"signature_name": ..., "inputs": {...}}``; strings go as
JSON strings. Non-200 answers and connection failures become `imagine_tf_client.errors`.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import requests

from imagine_tf_client.errors import InvalidInput, ServerError, ServerUnavailable, http_error
from imagine_tf_client.inputs import check_timeout, model_path


class RestTransport:
    """Calls one served model over HTTP.

    Args:
      url: the REST API's root, "http://host:port" (the server's ``--rest_api_port``).
      model, version, label: which model and version (None, None: the newest served).
      timeout: seconds per call.
    """

    def __init__(self, url, model, version=None, label=None, timeout=10.0):
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise InvalidInput(f"the REST URL must be 'http://host:port', got {url!r}")
        self.url = url.rstrip("/") + model_path(model, version, label)
        self.timeout, self.session = check_timeout(timeout), requests.Session()

    def _call(self, method: str, suffix: str = "", body: dict | None = None) -> dict:
        url = self.url + suffix
        try:
            answer = self.session.request(
                method, url, data=None if body is None else json.dumps(body), timeout=self.timeout
            )
        except requests.Timeout:
            raise ServerUnavailable(
                f"no answer from {url} within {self.timeout:g} s: give a larger timeout or "
                "split the batch"
            ) from None
        except requests.ConnectionError as error:
            raise ServerUnavailable(
                f"cannot connect to the model server at {url} ({_reason(error)}): is it running "
                "with its REST API (imagine-tf serve ... --rest-port PORT) and is the URL right?"
            ) from None
        try:
            document = answer.json()
        except ValueError:
            document = None
        if answer.status_code != 200:
            message = document.get("error", "") if isinstance(document, dict) else ""
            raise http_error(answer.status_code, message or answer.text[:300], url)
        if not isinstance(document, dict):
            raise ServerError(f"{url} answered 200 without a JSON object: {answer.text[:300]!r}")
        return document

    def predict(self, signature: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Outputs by name; a signature with one output answers ``{"": value}`` (TF Serving's
        REST API leaves its name out)."""
        columns = {name: _jsonable(value) for name, value in inputs.items()}
        body = {"signature_name": signature, "inputs": columns}
        outputs = self._call("POST", ":predict", body).get("outputs")
        if isinstance(outputs, dict) and set(outputs) != {"b64"}:
            return {name: np.asarray(value) for name, value in outputs.items()}
        return {"": np.asarray(outputs)}

    def status(self) -> dict[int, str]:
        """version -> state name ("AVAILABLE" once it serves)."""
        rows = self._call("GET").get("model_version_status", [])
        return {int(row["version"]): row["state"] for row in rows}

    def signature_defs(self) -> dict:
        """The SignatureDefMap as `signature_summary` gives it."""
        document = self._call("GET", "/metadata")
        signatures = document["metadata"]["signature_def"].get("signature_def", {})
        return {name: _summary(signature) for name, signature in signatures.items()}

    def close(self) -> None:
        self.session.close()


def _summary(signature: dict) -> dict:
    def tensors(infos: dict) -> dict:
        return {
            key: {"dtype": info.get("dtype", "DT_INVALID"), "shape": _shape(info)}
            for key, info in infos.items()
        }

    return {
        "inputs": tensors(signature.get("inputs", {})),
        "outputs": tensors(signature.get("outputs", {})),
        "method_name": signature.get("method_name", ""),
    }


def _shape(info: dict) -> tuple[int, ...] | None:
    shape = info.get("tensor_shape", {})
    if shape.get("unknown_rank"):
        return None
    return tuple(int(dim.get("size", 0)) for dim in shape.get("dim", []))


def _jsonable(value: np.ndarray):
    if value.dtype == object:  # strings: str or bytes
        return np.vectorize(_text, otypes=[object])(value).tolist() if value.size else []
    return value.tolist()


def _text(value):
    """A JSON string; bytes that are not UTF-8 as TF Serving's ``{"b64": ...}``."""
    if not isinstance(value, bytes):
        return value
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return {"b64": base64.b64encode(value).decode("ascii")}


def _reason(error: requests.ConnectionError) -> str:
    text = str(error)
    return "connection refused" if "refused" in text.lower() else text[:200]
