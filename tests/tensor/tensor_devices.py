"""Devices for the tensor suite and why each is skipped.

Every test that takes the ``device`` fixture runs on "cpu" (NumPy), "python"
(stridegrad.array), "strict" (array_api_strict, registered here as a device: a
proxy for CuPy and the python backend that rejects NumPy-only habits) and
"cuda" (CuPy), each skipped with its reason when unavailable.
"""

from __future__ import annotations

import array_api_strict
import pytest

from stridegrad import backend

if "strict" not in backend.available_devices():
    backend.register_device("strict", array_api_strict)

DEVICES = ["cpu", "python", "strict", "cuda"]

# what the Tensor code calls on a namespace; the python device is skipped until all exist
NEEDED = [
    "asarray",
    "zeros",
    "ones",
    "full",
    "arange",
    "ones_like",
    "reshape",
    "permute_dims",
    "broadcast_to",
    "expand_dims",
    "exp",
    "log",
    "sqrt",
    "abs",
    "sign",
    "tanh",
    "where",
    "concat",
    "stack",
    "any",
    "all",
    "equal",
    "sum",
    "mean",
    "max",
    "min",
    "argmax",
    "astype",
    "float32",
    "float64",
    "int64",
    "bool",
]


def device_skip_reason(device: str) -> str | None:
    ok, reason = backend.device_available(device)
    if not ok:
        return reason
    if device == "python":
        xp = backend.get_namespace("python")
        missing = [n for n in NEEDED if not hasattr(xp, n)]
        if missing:
            return f"stridegrad.array is incomplete; missing: {', '.join(missing)}"
    return None


@pytest.fixture(params=DEVICES)
def device(request):
    """Each of cpu, python, strict (array_api_strict) and cuda, skipped with its reason."""
    reason = device_skip_reason(request.param)
    if reason:
        pytest.skip(reason)
    return request.param
