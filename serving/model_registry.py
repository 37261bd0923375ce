"""The versions of one model on disk: load, warm up, serve the latest, unload the old.

TensorFlow Serving's layout and "latest" version policy: integer version directories under a
base path; the ``num_versions`` newest (1 by default) are served. A poller loads a new version,
replays its warm-up requests (``assets.extra/tf_serving_warmup_requests``), serves it once
AVAILABLE and unloads the versions that are no longer among the newest. Requests without a
version go to the newest; version labels (``{"stable": 3, "canary": 4}``) name served versions.
Requests hold a reference to the version they started on, so an unloaded version is freed only
once its in-flight requests finish.

States follow `ModelVersionStatus.State`: START, LOADING, AVAILABLE, UNLOADING, END.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import pathlib
import threading
from typing import Callable

from .batching import BatchingOptions, BatchingRunner
from .signature_runner import LoadedSession

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
      num_versions: how many of the newest versions are served at once (TF Serving's
        ``latest { num_versions }``).
      version_labels: label -> version (TF Serving's ``version_labels``).
      on_available: called (from the loading thread) each time a version becomes AVAILABLE.
    """

    def __init__(
        self,
        base_path: str | os.PathLike,
        warm_up: Callable[[LoadedVersion], None],
        poll_seconds: float = 1.0,
        session_config=None,
        batching: BatchingOptions | None = None,
        batching_signatures: tuple[str, ...] = ("serving_default", "score"),
        num_versions: int = 1,
        version_labels: dict[str, int] | None = None,
        on_available: Callable[[], None] = lambda: None,
    ):
        if num_versions < 1:
            raise ValueError(f"num_versions must be at least 1, got {num_versions}")
        self.base_path = pathlib.Path(base_path)
        self.num_versions, self.version_labels = num_versions, dict(version_labels or {})
        self.on_available = on_available
        self.session_config = session_config
        self.batching, self.batching_signatures = batching, tuple(batching_signatures)
        self.warm_up, self.poll_seconds = warm_up, poll_seconds
        self.states: dict[int, tuple[int, str]] = {}  # version -> (state, error message)
        self._loaded: dict[int, LoadedVersion] = {}  # replaced whole, never mutated
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None

    # -- queries -------------------------------------------------------------------------------
    def served(self) -> LoadedVersion | None:
        """The version requests without a version go to: the newest served (None before the
        first is ready)."""
        loaded = self._loaded
        return loaded[max(loaded)] if loaded else None

    def served_versions(self) -> list[int]:
        return sorted(self._loaded)

    def get(self, version: int | None) -> LoadedVersion | None:
        """A served version by number (None: the newest); None if it is not served."""
        return self.served() if version is None else self._loaded.get(version)

    def requested_version(self, model_spec) -> int | None:
        """The version a `ModelSpec` asks for: its number, its label's version, or None (the
        newest). LookupError for an unknown label."""
        choice = model_spec.WhichOneof("version_choice")
        if choice == "version":
            return model_spec.version.value
        if choice != "version_label":
            return None
        label = model_spec.version_label
        if label not in self.version_labels:
            raise LookupError(
                f"no version label {label!r}; labels: {self.version_labels or 'none'} "
                "(set them with --version_labels NAME=VERSION,...)"
            )
        return self.version_labels[label]

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
        """Loads the newest ``num_versions`` versions on disk that are not loaded yet (newest
        first), then unloads the served versions no longer among them."""
        wanted = self.versions_on_disk()[-self.num_versions :]
        for version in reversed(wanted):
            if version not in self._loaded and self.states.get(version, (None,))[0] != END:
                self._load_and_serve(version)
        # Versions no longer wanted go once a wanted one serves (never down to none).
        retired = [v for v in self._loaded if v not in wanted]
        if retired and any(v in self._loaded for v in wanted):
            # One thread loads (the poller); readers take `_loaded` as it is (a whole swap).
            loaded, self._loaded = self._loaded, {
                v: x for v, x in self._loaded.items() if v not in retired
            }
            for version in retired:
                loaded[version].close()
                self.states[version] = (END, "")  # freed when its requests finish
                LOG.info("unloaded version %s of %s", version, self.base_path)

    def _load_and_serve(self, version: int) -> None:
        self.states[version] = (LOADING, "")
        path = self.base_path / str(version)
        loaded = None
        try:
            loaded = self._load(version, path)
            self.warm_up(loaded)
        except Exception as error:  # a broken version is reported, never served
            LOG.error("version %s of %s failed to load: %s", version, self.base_path, error)
            self.states[version] = (END, f"failed to load: {error}")
            if loaded is not None:
                loaded.close()
            return
        self._loaded = {**self._loaded, version: loaded}
        self.states[version] = (AVAILABLE, "")
        LOG.info("serving version %s of %s", version, self.base_path)
        self.on_available()

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
        for loaded in self._loaded.values():
            loaded.close()
