"""Exported reward models for the server tests: each seed is exported once per test process
and copied in as a new version wherever a test needs it (an export costs seconds; a copy of
its directory is the same SavedModel)."""

from __future__ import annotations

import atexit
import os
import pathlib
import shutil
import tempfile

import numpy as np
import requests

from tests.waiting import wait_until

#: The shared server's --max_message_mb: larger requests are RESOURCE_EXHAUSTED / 413.
MAX_MESSAGE_MB = 1

_EXPORTS: dict[int, pathlib.Path] = {}
_CACHE = pathlib.Path(tempfile.mkdtemp(prefix="imagine_tf_test_rewards_"))
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


def export(base_path, seed: int, version: int | None = None) -> pathlib.Path:
    """Puts the MA reward model (N = 3) initialised with ``seed`` into ``base_path`` as
    ``version`` (default: the next one), atomically as `export_reward_model` does; its path."""
    from imagine_tf.export.versions import claim_version

    final, temporary = claim_version(base_path, version)
    shutil.copytree(_exported(seed), temporary)
    os.replace(temporary, final)
    return final


def _exported(seed: int) -> pathlib.Path:
    if seed not in _EXPORTS:
        import tensorflow as tf

        from imagine_tf.reward.export import export_reward_model
        from imagine_tf.language.vocabulary import Vocabulary
        from imagine_tf.reward.network import RewardNetwork, example_inputs

        tf.keras.utils.set_random_seed(seed)
        vocabulary = Vocabulary.default()
        network = RewardNetwork("ma", vocabulary.words[1:], vocabulary.max_length, 3)
        network(example_inputs(3, vocabulary.max_length))
        base = _CACHE / f"seed{seed}"
        _EXPORTS[seed] = export_reward_model(network, base, {"test": True}, 1, max_num_objects=3)
    return _EXPORTS[seed]


def random_states(count: int, num_objects: int = 3, seed: int = 0) -> np.ndarray:
    """float32 [count, 2 (3 + 39 N)] states uniform in [-1, 1]."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (count, 2 * (3 + 39 * num_objects))).astype(np.float32)


def wait_available(url: str, timeout: float = 60.0) -> None:
    """Waits until the REST API at ``url`` reports model 'reward' AVAILABLE (fails after
    ``timeout`` seconds)."""

    def available() -> bool:
        try:
            states = requests.get(f"{url}/v1/models/reward", timeout=5).json()
            return states["model_version_status"][0]["state"] == "AVAILABLE"
        except (requests.ConnectionError, KeyError, IndexError):
            return False

    wait_until(available, timeout, interval=0.1, what=f"model 'reward' AVAILABLE at {url}")
