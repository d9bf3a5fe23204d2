"""Shared fixtures for the library's tests."""

from __future__ import annotations

import gc
import inspect

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis on a shared, loaded machine: no per-example deadline (200 ms by default,
# which a busy 2-core machine misses and then reports as a flaky failure), no "too
# slow" health check for the same reason, and the same examples on every run and
# machine (a property failure is a bug to fix, never luck of the draw in CI).
settings.register_profile("stridegrad", deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("stridegrad")


def _ours(obj) -> bool:
    module = getattr(type(obj), "__module__", "") or ""
    if inspect.isfunction(obj):
        module = obj.__module__ or ""
    return module.startswith("stridegrad")


@pytest.fixture
def collector_finds():
    """A probe to call after dropping a graph: the stridegrad objects (nodes, tensors,
    Values, backward closures) that only the cycle collector could free.

    ``gc.collect()``'s bare count is not enough here: background threads of other
    tests (kernel clients, event loops) make garbage of their own at any moment.
    """

    def probe() -> list:
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            return [o for o in gc.garbage if _ours(o)]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()

    return probe


def pytest_collection_finish(session):
    """Move everything collection made (thousands of parametrized items, the checkpoints,
    their misconceptions) into the collector's permanent generation.

    Several checkpoints (lesson 07's ``count_cycle_garbage``, the graph-freeing tests)
    call ``gc.collect()`` many times; in a process holding the whole collected suite each
    full collection walks millions of long-lived objects (22 s for one test instead of
    0.3 s). Frozen objects are still alive and are never garbage of a test's own, so what
    the tests count (the cycles *they* make) is unchanged.
    """
    gc.collect()
    gc.freeze()


_FROZEN_AFTER: list = [None]


def pytest_runtest_setup(item):
    """Freeze again when a new test file starts: module fixtures and imports since then."""
    module = getattr(item, "module", None)
    if module is not _FROZEN_AFTER[0]:
        _FROZEN_AFTER[0] = module
        gc.collect()
        gc.freeze()


@pytest.fixture(autouse=True)
def _numpy_print_options():
    """Each test starts with NumPy's print options as they were: a lesson's setup cell,
    run in this process by a test (lessons 08 and 09 set ``precision=4``), must not change
    how a later test on the same worker prints arrays."""
    import numpy as np

    before = np.get_printoptions()
    yield
    np.set_printoptions(**before)
