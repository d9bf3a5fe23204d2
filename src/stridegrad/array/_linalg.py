"""Matrix products with NumPy's ``matmul`` semantics."""

from __future__ import annotations

import math
import operator

from . import layout
from ._core import StridedArray, cast_values, from_values, values, view
from ._dtypes import result_type

__all__ = ["matmul", "vecdot"]

_mul = operator.mul
_sumprod = getattr(math, "sumprod", None)  # Python >= 3.12: one C loop per dot product


def _require(name: str, x) -> StridedArray:
    if not isinstance(x, StridedArray):
        raise TypeError(f"{name}: expected a StridedArray, got {type(x).__name__}")
    return x


def _runs(vals: list, k: int, count: int) -> list[list]:
    if k == 0:
        return [[] for _ in range(count)]
    return [vals[i : i + k] for i in range(0, len(vals), k)]


def matmul(x1, x2, /) -> StridedArray:
    """Matrix product with broadcast batch dimensions.

    Shape contract: ``(..., n, k) @ (..., k, m) -> (..., n, m)``, the batch
    dimensions broadcast. A 1-D first operand is a row ``(1, k)`` and a 1-D
    second operand a column ``(k, 1)``; the added dimension is removed from the
    result, so ``(k,) @ (k,) -> ()``. Mismatched ``k`` is a ValueError naming
    both shapes.
    """
    _require("matmul", x1)
    _require("matmul", x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(
            f"matmul: operands must be at least 1-D, got shapes {x1.shape} and {x2.shape}"
        )
    dtype = result_type(x1.dtype, x2.dtype)

    # A as (..., n, k), B transposed as (..., m, k): one run of k per row / column
    a_shape, a_strides = x1.shape, x1.strides
    if x1.ndim == 1:
        a_shape, a_strides = (1,) + a_shape, (0,) + a_strides
    b_shape, b_strides = x2.shape, x2.strides
    if x2.ndim == 1:
        b_shape, b_strides = b_shape + (1,), b_strides + (0,)
    n, k = a_shape[-2:]
    k2, m = b_shape[-2:]
    if k != k2:
        raise ValueError(
            f"matmul: shapes {x1.shape} and {x2.shape} are not aligned: "
            f"{k} (dim {x1.ndim - 1} of the first) != {k2} "
            f"(dim {x2.ndim - 1 if x2.ndim == 1 else x2.ndim - 2} of the second)"
        )
    a_batch, b_batch = a_shape[:-2], b_shape[:-2]
    try:
        batch = layout.broadcast_shapes(a_batch, b_batch)
    except ValueError:
        raise ValueError(
            f"matmul: batch dimensions of shapes {x1.shape} and {x2.shape} do not broadcast "
            f"({a_batch} and {b_batch})"
        ) from None

    bt_shape = b_batch + (m, k)
    bt_strides = b_strides[:-2] + (b_strides[-1], b_strides[-2])
    rows = _runs(values(view(x1, a_shape, a_strides, x1.offset)), k, layout.numel(a_batch) * n)
    cols = _runs(values(view(x2, bt_shape, bt_strides, x2.offset)), k, layout.numel(b_batch) * m)

    # which stored matrix each output batch reads (broadcast batch -> own batch)
    a_idx = layout.iter_offsets(
        batch, layout.broadcast_strides(a_batch, layout.contiguous_strides(a_batch), batch))
    b_idx = layout.iter_offsets(
        batch, layout.broadcast_strides(b_batch, layout.contiguous_strides(b_batch), batch))

    out: list = []
    if _sumprod is not None:
        dot = _sumprod
    else:
        def dot(r, c):
            return sum(map(_mul, r, c))
    for ia, ib in zip(a_idx, b_idx):
        bcols = cols[ib * m : (ib + 1) * m]
        for r in rows[ia * n : (ia + 1) * n]:
            out.extend([dot(r, c) for c in bcols])
    if dtype.kind == "b" or k == 0:  # sums of bools are ints; an empty sum is int 0
        out = cast_values(out, dtype)

    shape = batch + (n, m)
    if x1.ndim == 1:
        shape = shape[:-2] + shape[-1:]
    if x2.ndim == 1:
        shape = shape[:-1]
    return from_values(out, shape, dtype)


def vecdot(x1, x2, /, *, axis=-1) -> StridedArray:
    """Dot product along ``axis`` after broadcasting. ``(..., k), (..., k) -> (...)``."""
    from ._elementwise import multiply
    from ._reductions import sum as _sum

    _require("vecdot", x1)
    _require("vecdot", x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"vecdot: operands must be at least 1-D, got {x1.shape} and {x2.shape}")
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(
            f"vecdot: shapes {x1.shape} and {x2.shape} differ along axis {axis}: "
            f"{x1.shape[axis]} != {x2.shape[axis]}"
        )
    return _sum(multiply(x1, x2), axis=axis)
