"""Matrix products with NumPy's ``matmul`` semantics."""

from __future__ import annotations

from . import layout
from ._core import StridedArray, cast_values, from_values, from_zero
from ._dtypes import result_type

__all__ = ["matmul", "vecdot", "tensordot"]


def _require(name: str, x) -> StridedArray:
    if not isinstance(x, StridedArray):
        raise TypeError(f"{name}: expected a StridedArray, got {type(x).__name__}")
    return x


def _one_batch(store: list, shape: tuple, strides: tuple, batch: tuple) -> tuple[list, tuple]:
    """Strides of the ``(numel(batch), n, k)`` view of an operand of shape ``shape``
    (its batch axes broadcast to ``batch``, then made one); a row-major copy of the
    broadcast operand when no single batch stride reads it."""
    inner, lead = shape[-2:], len(shape) - 2
    bstrides = layout.broadcast_strides(shape[:lead], strides[:lead], batch)
    one = layout.reshape_strides(batch, bstrides, (layout.numel(batch),))
    if one is not None:
        return store, one + strides[lead:]
    full = batch + inner
    copy = [store[p] for p in layout.iter_offsets(full, bstrides + strides[lead:], 0)]
    return copy, (inner[0] * inner[1],) + layout.contiguous_strides(inner)


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

    # each operand's storage from its first element (lesson 05's kernels read from
    # position 0); a 1-D one as a (1, k) row or a (k, 1) column, stride 0 on the new axis
    a_store, a_strides = from_zero(x1)
    b_store, b_strides = from_zero(x2)
    a_shape, b_shape = x1.shape, x2.shape
    if x1.ndim == 1:
        a_shape, a_strides = (1,) + a_shape, (0,) + a_strides
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

    if not batch:  # two matrices: lesson 05's matmul_2d
        out = layout.matmul_2d(a_store, (n, k), a_strides, b_store, (k, m), b_strides)
    else:  # lesson 05's batched_matmul, the batch axes made one
        a_store, a3 = _one_batch(a_store, a_shape, a_strides, batch)
        b_store, b3 = _one_batch(b_store, b_shape, b_strides, batch)
        size = layout.numel(batch)
        out = layout.batched_matmul(a_store, (size, n, k), a3, b_store, (size, k, m), b3)
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
    # the dtype of the operands' promotion, not sum's wider accumulator
    return _sum(multiply(x1, x2), axis=axis, dtype=result_type(x1.dtype, x2.dtype))


def tensordot(x1, x2, /, *, axes=2) -> StridedArray:
    """Sum of products over pairs of axes.

    Shape contract: ``axes=k`` contracts the last ``k`` axes of ``x1`` with the
    first ``k`` of ``x2``; ``axes=(a1, a2)`` pairs the axes listed. ``(a, b, k),
    (k, c)`` with ``axes=1`` -> ``(a, b, c)``. Paired axes must have equal sizes.
    """
    from ._core import normalize_axis
    from ._manipulation import permute_dims, reshape

    _require("tensordot", x1)
    _require("tensordot", x2)
    if isinstance(axes, int):
        if axes < 0 or axes > min(x1.ndim, x2.ndim):
            raise ValueError(f"tensordot: axes={axes} must be in [0, {min(x1.ndim, x2.ndim)}] "
                             f"for shapes {x1.shape} and {x2.shape}")
        a1 = tuple(range(x1.ndim - axes, x1.ndim))
        a2 = tuple(range(axes))
    else:
        a1, a2 = (tuple(a) if isinstance(a, (tuple, list)) else (a,) for a in axes)
        if len(a1) != len(a2):
            raise ValueError(f"tensordot: axes {axes} pair {len(a1)} with {len(a2)} axes")
        a1 = tuple(normalize_axis(a, x1.ndim) for a in a1)
        a2 = tuple(normalize_axis(a, x2.ndim) for a in a2)
    for p, q in zip(a1, a2):
        if x1.shape[p] != x2.shape[q]:
            raise ValueError(
                f"tensordot: axis {p} of shape {x1.shape} ({x1.shape[p]}) does not match "
                f"axis {q} of shape {x2.shape} ({x2.shape[q]})"
            )
    free1 = [k for k in range(x1.ndim) if k not in a1]
    free2 = [k for k in range(x2.ndim) if k not in a2]
    k = layout.numel(tuple(x1.shape[p] for p in a1))
    left = reshape(permute_dims(x1, tuple(free1) + a1),
                   (layout.numel(tuple(x1.shape[p] for p in free1)), k))
    right = reshape(permute_dims(x2, a2 + tuple(free2)),
                    (k, layout.numel(tuple(x2.shape[q] for q in free2))))
    out = matmul(left, right)
    return reshape(out, tuple(x1.shape[p] for p in free1) + tuple(x2.shape[q] for q in free2))
