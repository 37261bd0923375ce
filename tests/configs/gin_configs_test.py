"""Every configs/*.gin parses and builds the environment it configures."""

import pathlib

import gin
import pytest

from imagine_tf import playground

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "configs").glob("*.gin"))


@pytest.fixture(autouse=True)
def clear_gin():
    gin.clear_config()
    yield
    gin.clear_config()


def test_there_are_configs():
    assert CONFIGS


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_builds_the_environment(path, monkeypatch):
    monkeypatch.chdir(ROOT)  # includes are relative to the repository root
    gin.parse_config_file(str(path))
    env = playground.make_env(batch_size=2, seed=0)
    bound = gin.query_parameter("make_env.num_objects")
    assert env.config.num_objects == bound
    assert env.reset().observation["state"].shape == (2, 2 * (3 + 39 * bound))


def test_caller_arguments_win_over_bindings():
    gin.parse_config("make_env.num_objects = 7")
    assert playground.make_env(batch_size=1).config.num_objects == 7
    assert playground.make_env(batch_size=1, num_objects=2).config.num_objects == 2
