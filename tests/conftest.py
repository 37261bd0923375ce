"""Shared fixtures: quiet TensorFlow, fixed seeds."""

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
