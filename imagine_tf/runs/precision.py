"""The precision a run records: ``compute_dtype = "auto"`` resolved once, then kept.

A new run resolves "auto" on the machine it starts on (`precision.resolve_compute_dtype`); a
run directory that already holds a run (a resume, or a fork's source) keeps the precision its
``config.json`` records, so that moving a run to other hardware does not change it. The
resolved value is bound in gin too, so that the run's ``config.gin`` and operative config name
it and a resume with no gin flags reads it back.
"""

from __future__ import annotations

import dataclasses
import json
import os

from typing import Any

import gin

from imagine_tf.networks.precision import AUTO, resolve_compute_dtype
from imagine_tf.runs.layout import RunLayout

TrainConfig = Any  # an `imagine_tf.agent.config.TrainConfig` (agent/ builds on runs/)


def recorded_compute_dtype(root_dir: str | os.PathLike | None) -> str | None:
    """The ``compute_dtype`` in a run directory's ``config.json``; None if it has none."""
    if root_dir is None:
        return None
    path = RunLayout(root_dir).config_json
    return json.loads(path.read_text()).get("compute_dtype") if path.exists() else None


def resolve_run_precision(
    config: TrainConfig, *run_dirs: str | os.PathLike | None, cpuinfo: str | None = None
) -> TrainConfig:
    """``config`` with "auto" replaced: by the first of ``run_dirs`` that records a
    precision, else by this machine's (`resolve_compute_dtype`; ``cpuinfo``: its CPU flags)."""
    if config.compute_dtype != AUTO:
        return config
    recorded = [d for d in map(recorded_compute_dtype, run_dirs) if d not in (None, AUTO)]
    resolved = recorded[0] if recorded else resolve_compute_dtype(AUTO, cpuinfo)
    return dataclasses.replace(config, compute_dtype=resolved)


def bind_run_precision(config: TrainConfig) -> None:
    """Binds ``TrainConfig.compute_dtype`` to ``config``'s (resolved) value in gin."""
    with gin.unlock_config():
        gin.bind_parameter("TrainConfig.compute_dtype", config.compute_dtype)
