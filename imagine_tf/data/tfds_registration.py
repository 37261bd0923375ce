"""Makes imagine_tf's TFDS datasets loadable by name, without importing TFDS early.

TFDS finds a builder by name once the module that defines its class is imported. Importing
that module imports TFDS and TensorFlow (seconds), so `import imagine_tf` does not: it adds a
`tfds.core.DatasetBuilderProvider` that imports a builder module the first time TFDS is asked
for its name. The provider is added at once when `tensorflow_datasets` is already imported, and
otherwise right after its import completes (`imagine_tf.import_hooks`). This module and that one
import only the standard library.
"""

from __future__ import annotations

import importlib

from imagine_tf.import_hooks import call_after_import

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
    call_after_import(TFDS_MODULE, add_provider)
