"""The errors of the clients: what failed, what was given or expected, and how to fix it.

Every error is a `ClientError`; its subclasses say what to do:

* `ServerUnavailable` (also a `ConnectionError`): no connection, no answer in time, or no
  version loaded yet: start the server, fix the address, or wait and retry.
* `ModelNotFound` (also a `LookupError`): unknown model name, version, label or signature:
  the message lists what the server has.
* `InvalidInput` (also a `ValueError`): bad shapes, dtypes or goals, found by the client
  before sending or by the server (HTTP 400, ``INVALID_ARGUMENT``), or a request too large.
* `ServerError`: the server failed (HTTP 500, ``INTERNAL``) or answered something unexpected.

``status`` is the HTTP status (int) or the gRPC status name (str), None for a client-side
check; ``message`` is the server's own message ("" if none).
"""

from __future__ import annotations


class ClientError(Exception):
    """A call that did not return a result."""

    def __init__(self, text: str, status: int | str | None = None, message: str = ""):
        super().__init__(text)
        self.status, self.message = status, message


class ServerUnavailable(ClientError, ConnectionError):
    """The server cannot be reached, did not answer in time, or has nothing loaded yet."""


class ModelNotFound(ClientError, LookupError):
    """The server has no such model, version, label or signature."""


class InvalidInput(ClientError, ValueError):
    """The request's inputs are not what the signature takes."""


class ServerError(ClientError):
    """The server failed on a valid request, or answered in a way this client cannot read."""


#: HTTP status -> (error class, what to do)
_HTTP = {
    400: (InvalidInput, "fix the input"),
    404: (ModelNotFound, "check the model name, version, label or signature"),
    413: (InvalidInput, "the request is over the server's size limit: split the batch"),
    503: (ServerUnavailable, "no version is loaded yet: wait and retry (status() shows it)"),
}

#: gRPC status name -> (error class, what to do)
_GRPC = {
    "INVALID_ARGUMENT": _HTTP[400],
    "NOT_FOUND": _HTTP[404],
    "RESOURCE_EXHAUSTED": _HTTP[413],
    "UNIMPLEMENTED": (ServerError, "is this a TensorFlow Serving API server?"),
}


def http_error(status: int, message: str, url: str) -> ClientError:
    """The error of a non-200 HTTP answer from ``url``."""
    kind, hint = _HTTP.get(status, (ServerError, "the server's log has the details"))
    return kind(f"HTTP {status} from {url}: {message} ({hint})", status, message)


def grpc_error(code: str, details: str, target: str, timeout: float) -> ClientError:
    """The error of a failed gRPC call to ``target`` (``code``: the status name)."""
    if code == "UNAVAILABLE":
        if "connect" in details.lower():
            text = (
                f"cannot connect to the model server at {target} ({details}): is it running "
                "(imagine-tf serve --model-base-path ... --port PORT) and is the target right?"
            )
        else:
            text = f"the model server at {target} is unavailable: {details} (wait and retry)"
        return ServerUnavailable(text, code, details)
    if code == "DEADLINE_EXCEEDED":
        return ServerUnavailable(
            f"no answer from {target} within {timeout:g} s: give a larger timeout or split "
            "the batch",
            code,
            details,
        )
    kind, hint = _GRPC.get(code, (ServerError, "the server's log has the details"))
    return kind(f"{code} from {target}: {details} ({hint})", code, details)
