"""The versions of one model on disk: load, warm up, serve the latest, unload the old.

TensorFlow Serving's layout and "latest" version policy (num_versions = 1): integer version
directories under a base path; a poller loads a new version, replays its warm-up requests
(``assets.extra/tf_serving_warmup_requests``), makes it the served version once AVAILABLE and
unloads the previous one. Requests hold a reference to the version they started on, so an
unloaded version is freed only once its in-flight requests finish.

States follow `ModelVersionStatus.State`: START, LOADING, AVAILABLE, UNLOADING, END.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import pathlib
import threading
from typing import Callable

from serving.batching import BatchingOptions, BatchingRunner
from serving.signature_runner import LoadedSession

LOG = logging.getLogger("serving")

# ModelVersionStatus.State values (tensorflow_serving/apis/get_model_status.proto).
START, LOADING, AVAILABLE, UNLOADING, END = 10, 20, 30, 40, 50


@dataclasses.dataclass
class LoadedVersion:
    """One loaded SavedModel version and its signatures (SignatureRunner or BatchingRunner)."""

    version: int
    path: pathlib.Path
    model: LoadedSession
    signatures: dict = dataclasses.field(default_factory=dict)

    @property
    def signature_defs(self):  # SignatureDef map of the MetaGraph
        return self.model.signature_defs

    def close(self) -> None:
        """Stops its batch threads (after their queued requests); the session is freed with
        the last request holding this version."""
        for runner in self.signatures.values():
            if isinstance(runner, BatchingRunner):
                runner.close()


class ModelRegistry:
    """Serves the latest version under ``base_path``.

    Args:
      base_path: the model base path (``<base_path>/<version>/saved_model.pb``).
      warm_up: called with each new `LoadedVersion` before it is served (replays warm-up
        requests); exceptions mark the version as failed (it is not served).
      poll_seconds: how often to look for a new version (TF Serving's
        ``--file_system_poll_wait_seconds``).
      session_config: the sessions' `tf.compat.v1.ConfigProto` (None: defaults).
      batching: `BatchingOptions` for the signatures named in ``batching_signatures`` (None:
        no batching).
    """

    def __init__(self, base_path: str | os.PathLike, warm_up: Callable[[LoadedVersion], None],
                 poll_seconds: float = 1.0, session_config=None,
                 batching: BatchingOptions | None = None,
                 batching_signatures: tuple[str, ...] = ("serving_default", "score")):  # fmt: skip
        self.base_path = pathlib.Path(base_path)
        self.session_config = session_config
        self.batching, self.batching_signatures = batching, tuple(batching_signatures)
        self.warm_up, self.poll_seconds = warm_up, poll_seconds
        self.states: dict[int, tuple[int, str]] = {}  # version -> (state, error message)
        self._served: LoadedVersion | None = None
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None

    # -- queries -------------------------------------------------------------------------------
    def served(self) -> LoadedVersion | None:
        """The version requests without a version go to (None before the first is ready)."""
        return self._served

    def get(self, version: int | None) -> LoadedVersion | None:
        """A served version by number (None: the latest); None if it is not served."""
        served = self._served
        if served is None or (version is not None and version != served.version):
            return None
        return served

    # -- loading -------------------------------------------------------------------------------
    def versions_on_disk(self) -> list[int]:
        if not self.base_path.exists():
            return []
        return sorted(
            int(p.name)
            for p in self.base_path.iterdir()
            if p.name.isdigit() and (p / "saved_model.pb").exists()
        )

    def poll_once(self) -> None:
        """Loads the newest version on disk if it is newer than the served one."""
        versions = self.versions_on_disk()
        if not versions:
            return
        newest = versions[-1]
        current = self._served.version if self._served else None
        if newest == current or self.states.get(newest, (None,))[0] in (LOADING, END):
            return
        self.states[newest] = (LOADING, "")
        path = self.base_path / str(newest)
        loaded = None
        try:
            loaded = self._load(newest, path)
            self.warm_up(loaded)
        except Exception as error:  # a broken version is reported, never served
            LOG.error("version %s of %s failed to load: %s", newest, self.base_path, error)
            self.states[newest] = (END, f"failed to load: {error}")
            if loaded is not None:
                loaded.close()
            return
        # One thread loads (the poller); readers take `_served` as it is (an atomic swap).
        previous, self._served = self._served, loaded
        self.states[newest] = (AVAILABLE, "")
        if previous is not None:
            previous.close()
            self.states[previous.version] = (END, "")  # freed when its requests finish
        LOG.info("serving version %s of %s", newest, self.base_path)

    def _load(self, version: int, path: pathlib.Path) -> LoadedVersion:
        model = LoadedSession(path, self.session_config)
        signatures = dict(model.signatures)
        if self.batching is not None:
            for name in set(self.batching_signatures) & set(signatures):
                signatures[name] = BatchingRunner(signatures[name], self.batching, name)
        return LoadedVersion(version, path, model, signatures)

    def start(self) -> None:
        """Loads the latest version now, then polls in a background thread."""
        self.poll_once()
        self._poller = threading.Thread(target=self._poll_loop, name="version-poller", daemon=True)
        self._poller.start()

    def _poll_loop(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                self.poll_once()
            except Exception as error:  # keep polling whatever happens on disk
                LOG.error("polling %s: %s", self.base_path, error)

    def stop(self) -> None:
        self._stop.set()
        if self._poller is not None:
            self._poller.join(timeout=5)
        if self._served is not None:
            self._served.close()
