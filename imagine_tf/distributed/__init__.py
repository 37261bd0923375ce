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
* `address`, `backoff`, `errors`, `table_io`: ``HOST:PORT`` and ports, retries with a deadline,
  the errors users act on, and bounded Reverb calls: no call of this package blocks forever.
"""

from imagine_tf.distributed.address import check_port_free, format_address, free_port, parse_address
from imagine_tf.distributed.backoff import call_with_backoff, is_connection_error
from imagine_tf.distributed.codec import array_text, decode, encode, text_array
from imagine_tf.distributed.episode_queue import EpisodeReader, EpisodeWriter
from imagine_tf.distributed.errors import PortInUse, ReplayServerUnavailable
from imagine_tf.distributed.replay_server import (
    EPISODES_TABLE,
    RUN_CONFIG_TABLE,
    VARIABLES_TABLE,
    ReplayServer,
    make_tables,
    serve_forever,
)
from imagine_tf.distributed.variable_container import VariableContainer

__all__ = [
    "EPISODES_TABLE",
    "RUN_CONFIG_TABLE",
    "VARIABLES_TABLE",
    "EpisodeReader",
    "EpisodeWriter",
    "PortInUse",
    "ReplayServer",
    "ReplayServerUnavailable",
    "VariableContainer",
    "array_text",
    "call_with_backoff",
    "check_port_free",
    "decode",
    "encode",
    "format_address",
    "free_port",
    "is_connection_error",
    "make_tables",
    "parse_address",
    "serve_forever",
    "text_array",
]
