"""Shared by every test: quiet TensorFlow, fixed seeds, a cleared gin config on request, and
the slowest modules collected first."""

import os
import random

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def fixed_seeds():
    random.seed(0)
    np.random.seed(0)
    yield


@pytest.fixture
def clear_gin():
    """A gin config cleared before and after the test (`pytest.mark.usefixtures("clear_gin")`)."""
    import gin

    gin.clear_config()
    yield
    gin.clear_config()


#: The modules that take longest, slowest first. `make test` runs the suite on two workers
#: (pytest-xdist, a module per worker at a time): started first, they overlap the many short
#: modules instead of ending the run alone.
SLOWEST_MODULES = (
    "tests/training/distributed_run_test.py",
    "tests/training/learning_test.py",
    "tests/experiments/experiment_test.py",
    "tests/cli/readme_commands_test.py",
    "tests/training/train_eval_test.py",
    "tests/export/reward_export_test.py",
    "tests/serving/serving_test.py",
    "tests/experiments/fork_grid_test.py",
    "tests/cli/main_test.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {module: index for index, module in enumerate(SLOWEST_MODULES)}
    root = config.rootpath

    def position(item) -> int:
        return rank.get(item.path.relative_to(root).as_posix(), len(rank))

    items.sort(key=position)  # stable: the other modules keep their order
