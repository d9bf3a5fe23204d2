"""Shared fixtures for the library's tests."""

from __future__ import annotations

import gc
import inspect

import pytest


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
