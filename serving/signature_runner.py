"""One SavedModel version in a TensorFlow session, its signatures as callables (TF Serving's way).

TensorFlow Serving loads a SavedModel into a session (`SavedModelBundle`) and answers a
request with one `Session::Run` over the SignatureDef's tensors. This does the same with
`tf.compat.v1.saved_model.load` and ``Session::MakeCallable`` (the session's
``_make_callable_from_options``, the C API's ``TF_SessionMakeCallable``): arrays go in and come
out without eager tensors, the TF2 object graph (no restored Python objects, no TypeSpecs to
register) or ``Session.run``'s Python feed/fetch handling. On this 2-core machine, one
(goal, state) pair through the reward model's ``score``: 0.64 ms, against 1.22 ms through
``Session.make_callable`` and 1.5 ms through ``tf.saved_model.load(...).signatures``.

Small requests (up to `CALLER_THREAD_MAX_ROWS` rows) run their ops in the calling thread
(``RunOptions.inter_op_thread_pool = -1``): no hand-off to the session's thread pool, which on
this machine takes one pair through ``score`` from 1.13 to 1.00 ms; larger ones use the pool,
where independent ops run in parallel (batch 1024: 4.1 ms against 4.7 in the caller thread).
Each callable costs Grappler's optimization of the signature's graph and function library
(about 2 s of CPU per callable for the MA reward model here): a version is loaded with the
caller-thread callables, and a signature's pool callable is made by its first larger request.

Inputs and outputs are named by the SignatureDef keys (``goals``, ``states``, ...); the specs
(`input_specs`) are what requests are checked against.
"""

from __future__ import annotations

import pathlib
import threading

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf.config_pb2 import CallableOptions
from tensorflow.python.util import deprecation  # to hush the TF1 loader's deprecation notice

SERVING_TAG = "serve"
CALLER_THREAD_MAX_ROWS = 32


class SignatureRunner:
    """A signature of a loaded session: ``run({name: array}) -> {name: array}``.

    Args:
      session: the session holding the loaded graph.
      signature: the `SignatureDef`.
    """

    def __init__(self, session: tf.compat.v1.Session, signature):
        self.input_names = sorted(signature.inputs)
        self.output_names = sorted(signature.outputs)
        self.input_specs = {
            name: tf.TensorSpec(
                tf.TensorShape(signature.inputs[name].tensor_shape),
                tf.dtypes.as_dtype(signature.inputs[name].dtype),
                name,
            )
            for name in self.input_names
        }
        # Session::MakeCallable (CallableOptions): arrays in, arrays out, without the Python
        # feed / fetch handling of ``Session.run`` (0.4 ms of a 1.2 ms call at batch 1).
        self._session = session
        self._feeds = [signature.inputs[n].name for n in self.input_names]
        self._fetches = [signature.outputs[n].name for n in self.output_names]
        self._pool_lock = threading.Lock()
        if not self._fetches:  # e.g. a policy's ``get_initial_state`` without policy state
            self._in_caller_thread = self._pool_callable = lambda *arrays: []
            return
        self._in_caller_thread = self._make_callable(inter_op_thread_pool=-1)
        self._pool_callable = None  # made by the first request of more than CALLER_THREAD_MAX_ROWS

    def _make_callable(self, inter_op_thread_pool: int):
        """``Session::MakeCallable`` of this signature (-1: the ops run in the calling thread;
        0: in the session's inter-op pool)."""
        options = CallableOptions(
            feed=self._feeds,
            fetch=self._fetches,
            run_options=tf.compat.v1.RunOptions(inter_op_thread_pool=inter_op_thread_pool),
        )
        return self._session._make_callable_from_options(options)

    def _in_pool(self, *arrays):
        """Runs in the session's inter-op pool (its callable made on the first call)."""
        if self._pool_callable is None:
            with self._pool_lock:
                if self._pool_callable is None:
                    self._pool_callable = self._make_callable(inter_op_thread_pool=0)
        return self._pool_callable(*arrays)

    def submit(self, inputs: dict[str, np.ndarray]) -> None:
        """None: an unbatched signature is run by its caller (`run`); `BatchingRunner.submit`
        queues instead."""
        return None

    def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Outputs by name; raises `tf.errors.OpError` (e.g. a failed assertion in the model)."""
        arrays = [inputs[name] for name in self.input_names]
        small = all(np.ndim(a) and len(a) <= CALLER_THREAD_MAX_ROWS for a in arrays)
        values = (self._in_caller_thread if small else self._in_pool)(*arrays)
        return dict(zip(self.output_names, values))


def session_config(intra_op_threads: int = 0, inter_op_threads: int = 0):
    """TF Serving's ``--tensorflow_intra_op_parallelism`` / ``--tensorflow_inter_op_parallelism``
    (0: TensorFlow's default, one thread per core)."""
    return tf.compat.v1.ConfigProto(
        intra_op_parallelism_threads=intra_op_threads, inter_op_parallelism_threads=inter_op_threads
    )


class LoadedSession:
    """A SavedModel loaded into its own graph and session (closed by `close` or when freed).

    Args:
      path: the version directory.
      config: a `tf.compat.v1.ConfigProto` (`session_config`), or None for the defaults.
    """

    def __init__(self, path: str | pathlib.Path, config=None):
        self.graph = tf.Graph()
        self.session = tf.compat.v1.Session(graph=self.graph, config=config)
        with self.graph.as_default(), deprecation.silence():
            meta_graph = tf.compat.v1.saved_model.loader.load(
                self.session, [SERVING_TAG], str(path)
            )
        self.signature_defs = meta_graph.signature_def
        self.signatures = {  # not the loader's own "__saved_model_init_op"
            name: SignatureRunner(self.session, signature)
            for name, signature in self.signature_defs.items()
            if not name.startswith("__")
        }

    def close(self) -> None:
        self.session.close()
