"""Fixtures for the tensor suite; the device list and skip reasons live in tensor_devices."""

from __future__ import annotations

import numpy as np
import pytest
from tensor_devices import DEVICES, device_skip_reason


@pytest.fixture(params=DEVICES)
def device(request):
    reason = device_skip_reason(request.param)
    if reason:
        pytest.skip(reason)
    return request.param


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
