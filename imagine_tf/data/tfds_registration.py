"""Makes imagine_tf's TFDS datasets loadable by name, without importing TFDS early.

TFDS finds a builder by name once the module that defines its class is imported. Importing
that module imports TFDS and TensorFlow (seconds), so `import imagine_tf` does not: it adds a
`tfds.core.DatasetBuilderProvider` that imports a builder module the first time TFDS is asked
for its name. The provider is added at once when `tensorflow_datasets` is already imported, and
otherwise right after its import completes (a one-shot `sys.meta_path` finder). This module
imports only the standard library.
"""

from __future__ import annotations

import importlib
import sys

TFDS_MODULE = "tensorflow_datasets"
# dataset name -> package whose import defines (and registers) its `Builder`
BUILDER_MODULES = {"playground_trajectories": "imagine_tf.data.playground_trajectories"}

_provider_added = False


class DatasetProvider:
    """A `tfds.core.DatasetBuilderProvider` for `BUILDER_MODULES`: imports a builder on demand."""

    def has_dataset(self, name: str) -> bool:
        return name in BUILDER_MODULES

    def get_builder_cls(self, name: str):
        return importlib.import_module(BUILDER_MODULES[name]).Builder


def add_provider() -> None:
    """Adds `DatasetProvider` to TFDS (first, so TFDS need not scan its own catalogue); once."""
    global _provider_added
    if _provider_added:
        return
    import tensorflow_datasets as tfds

    tfds.core.add_dataset_builder_provider(DatasetProvider(), index=0)
    _provider_added = True


def register_on_tfds_import() -> None:
    """Adds the provider now if TFDS is imported, else as soon as TFDS is imported."""
    if TFDS_MODULE in sys.modules:
        add_provider()
    elif not any(isinstance(finder, _AfterTfdsImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterTfdsImport())


class _AfterTfdsImport:
    """A `sys.meta_path` finder: finds `tensorflow_datasets` through the other finders, then
    runs `add_provider` after its import. (Plain classes: `importlib.abc` costs 8 ms.)"""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != TFDS_MODULE:
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find_spec = getattr(finder, "find_spec", None)
            spec = find_spec(fullname, path, target) if find_spec else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _ThenAddProvider(spec.loader)
                return spec
        return None


class _ThenAddProvider:
    """Wraps the loader of `tensorflow_datasets`; the module keeps the original loader."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        module.__spec__.loader = module.__loader__ = self._loader
        self._loader.exec_module(module)
        add_provider()
