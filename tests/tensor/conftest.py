"""Fixtures for the tensor suite; the device list, skip reasons and fixture live in tensor_devices."""

from __future__ import annotations

import numpy as np
import pytest
from tensor_devices import device  # noqa: F401 - the fixture, shared with tests/nn


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
