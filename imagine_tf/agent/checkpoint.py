"""The earlier name of `imagine_tf.runs.checkpoint` (a learner's checkpoint), kept for one
release: import from `imagine_tf.runs.checkpoint`."""

from imagine_tf.runs.checkpoint import (  # noqa: F401
    NETWORKS_ONLY,
    LearnerCheckpoint,
    NotResumable,
    check_run_config,
    networks_checkpoint,
    write_networks_checkpoint,
    write_run_config,
)
