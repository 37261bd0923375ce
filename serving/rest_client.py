"""The reward model's client over TF Serving's REST API (the same methods as `RewardClient`).

    client = RestRewardClient("http://127.0.0.1:8501")
    client.score(["Grasp red cat"], states)    # {"probability": [B], "reward": [B], ...}
    client.scan(states, ["Go left"]), client.metadata(), client.status()

Requests are TF Serving's columnar ``{"signature_name", "inputs"}``; a non-200 answer raises
`RestError` with the HTTP status and the server's ``error`` message.
"""

from __future__ import annotations

import json

import numpy as np
import requests

from .signature_client import SignatureClient


class RestError(Exception):
    """A non-200 answer: ``status`` and the server's message."""

    def __init__(self, status: int, message: str):
        super().__init__(f"HTTP {status}: {message}")
        self.status, self.message = status, message


class RestRewardClient(SignatureClient):
    """Calls a served reward model over HTTP.

    Args:
      url: "http://host:port".
      model_name, version, version_label, timeout: as `RewardClient`.
    """

    def __init__(
        self,
        url: str = "http://127.0.0.1:8501",
        model_name: str = "reward",
        version: int | None = None,
        timeout: float = 10.0,
        version_label: str | None = None,
    ):
        if version is not None and version_label is not None:
            raise ValueError("give a version or a version_label, not both")
        where = (
            f"/versions/{version}"
            if version is not None
            else f"/labels/{version_label}" if version_label is not None else ""
        )
        self.base = f"{url.rstrip('/')}/v1/models/{model_name}{where}"
        self.timeout, self.session = timeout, requests.Session()

    def _call(self, method: str, suffix: str, body: dict | None = None) -> dict:
        answer = self.session.request(
            method,
            self.base + suffix,
            timeout=self.timeout,
            data=None if body is None else json.dumps(body),
        )
        try:
            document = answer.json()
        except ValueError:
            raise RestError(answer.status_code, answer.text[:200]) from None
        if answer.status_code != 200:
            raise RestError(answer.status_code, document.get("error", answer.text[:200]))
        return document

    def predict(self, signature: str, inputs: dict) -> dict[str, np.ndarray]:
        """Any signature: inputs name -> array; returns outputs name -> array."""
        columns = {name: _jsonable(value) for name, value in inputs.items()}
        body = {"signature_name": signature, "inputs": columns}
        outputs = self._call("POST", ":predict", body)["outputs"]
        if not isinstance(outputs, dict):  # one output: TF Serving gives its value alone
            outputs = {"output": outputs}
        return {name: np.asarray(value) for name, value in outputs.items()}

    def metadata(self) -> dict:
        body = {"signature_name": "metadata", "inputs": {}}
        return json.loads(self._call("POST", ":predict", body)["outputs"])

    def status(self) -> dict[int, str]:
        document = self._call("GET", "")
        return {int(s["version"]): s["state"] for s in document["model_version_status"]}

    def close(self) -> None:
        self.session.close()


def _jsonable(value):
    if isinstance(value, np.ndarray):  # strings (dtype object) are str or bytes
        return [_text(v) for v in value.ravel()] if value.dtype == object else value.tolist()
    return value


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value
