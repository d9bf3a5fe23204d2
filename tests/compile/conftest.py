"""Fixtures for the compile suite: devices (with skip reasons) and a seeded generator."""

from __future__ import annotations

import numpy as np
import pytest

from stridegrad import backend

DEVICES = ["cpu", "python", "cuda"]


@pytest.fixture(params=DEVICES)
def device(request):
    ok, reason = backend.device_available(request.param)
    if not ok:
        pytest.skip(f"cuda: {reason}")
    return request.param


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
