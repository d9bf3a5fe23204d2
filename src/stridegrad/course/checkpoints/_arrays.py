"""Helpers shared by the checkpoints whose exercises return arrays (08, 09).

Not a checkpoint itself: ``available()`` lists only ``epNN`` modules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stridegrad.course.checks import VALUE_LIMIT, CheckFailure, cut_between_items, summarise_array

__all__ = ["same_array", "show"]


def show(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A readable text of a value for a checkpoint row (Tensors as arrays): whole when
    it fits in ``limit`` characters; else an array is summarised as every row of the
    table summarises one (:func:`~stridegrad.course.checks.summarise_array`, rounded to 6
    decimals) and any other value cut between two items, never inside a number."""
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        try:
            value = value.numpy()
        except Exception:
            pass
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
        text = f"{np.round(value.astype(float), 6).tolist()!r} shape {value.shape}"
    elif isinstance(value, (np.floating, np.integer)):
        text = repr(round(float(value), 6))
    else:
        try:
            text = repr(value)
        except Exception:
            text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    if len(text) > limit and isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
        text = summarise_array(value.astype(float), digits=6)
    return cut_between_items(text, limit)


def same_array(call: str, got: Any, expected: Any, atol: float = 1e-6,
               rtol: float = 1e-5) -> None:
    """Fail unless ``got`` (an array, a Tensor or a number) has ``expected``'s shape and values."""
    expected = np.asarray(expected, dtype=float)
    if hasattr(got, "numpy") and not isinstance(got, np.ndarray):
        got = got.numpy()  # a Tensor
    try:
        arr = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        raise CheckFailure(call, show(expected), f"{show(got)} (not an array of numbers)") from None
    if arr.shape != expected.shape:
        raise CheckFailure(call, show(expected), f"{show(got)} (shape {arr.shape}, "
                                                 f"not {expected.shape})")
    if not np.allclose(arr, expected, atol=atol, rtol=rtol):
        raise CheckFailure(call, show(expected), show(arr))
