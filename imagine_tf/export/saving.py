"""Writing SavedModels that hold Keras layers, without Keras's per-layer traces."""

from __future__ import annotations

import contextlib


def without_keras_layer_traces() -> contextlib.AbstractContextManager:
    """A context in which `tf.saved_model.save` does not trace every Keras layer's ``call``.

    Those traces serve only Keras's own loader (`tf.keras.models.load_model`); our SavedModels
    are read through their signatures (`tf.saved_model.load`, TF Serving, TF-Agents' policy
    loaders), which do not use them. Skipping them makes an export several times faster and
    its files smaller (tracing every layer was most of an export's time on Keras 2.15).
    """
    try:
        from keras.src.saving.legacy.saved_model.utils import keras_option_scope
    except ImportError:  # another Keras: save as it does by default
        return contextlib.nullcontext()
    return keras_option_scope(save_traces=False)
