"""Reverb plumbing between actor processes and a learner process.

The split follows TF-Agents' distributed actor/learner design (Guadarrama et al., 2018;
``tf_agents.experimental.distributed``, e.g. ``examples/sac/distributed``): actors play episodes
with the latest policy weights and send experience through a Reverb server (Cassirer et al.,
2021, "Reverb: A Framework for Experience Replay", arXiv:2102.04736); the learner trains on
it and publishes the weights back. Here:

* `ReplayServer` (`replay_server`): a Reverb server with an episode queue and two 1-item
  tables (variables, run configuration); no table signatures, so it needs no model.
* `EpisodeWriter` / `EpisodeReader` (`episode_queue`): one item per batch of episodes, FIFO,
  taken once; a full queue makes writers wait, which holds the actors to the learner's pace.
* `VariableContainer` (`variable_container`): weights and the run's configuration, learner ->
  actors, as TF-Agents' ``ReverbVariableContainer`` does.
* `codec`: dicts of arrays <-> the flat lists of arrays of Reverb items.
* `data_parallel`: K learner processes' gradients all-reduced (MultiWorkerMirroredStrategy).
* `address`, `backoff`, `errors`, `table_io`: ``HOST:PORT`` and ports, retries with a deadline,
  the errors users act on, and bounded Reverb calls: no call of this package blocks forever.
"""

import importlib

#: Each public name and the module that defines it, imported on first use (PEP 562): a command
#: that only needs `errors` or `address` (its usage errors) does not import Reverb and
#: TensorFlow through this package.
_MODULES = {
    "address": ("check_port_free", "format_address", "free_port", "parse_address"),
    "backoff": ("call_with_backoff", "is_connection_error"),
    "codec": ("array_text", "decode", "encode", "text_array"),
    "data_parallel": (
        "ConfigMismatch",
        "GradientAllReduce",
        "check_same_config",
        "worker_strategy",
    ),
    "episode_queue": ("EpisodeReader", "EpisodeWriter"),
    "errors": ("PortInUse", "ReplayServerUnavailable"),
    "replay_server": (
        "EPISODES_TABLE",
        "RUN_CONFIG_TABLE",
        "VARIABLES_TABLE",
        "ReplayServer",
        "make_tables",
        "serve_forever",
    ),
    "variable_container": ("VariableContainer",),
}
_DEFINED_IN = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_DEFINED_IN)


def __getattr__(name: str):
    if name not in _DEFINED_IN:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_DEFINED_IN[name]}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
