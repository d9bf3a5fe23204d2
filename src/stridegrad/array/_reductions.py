"""Reductions over ``axis`` (None, an int, a negative int, or a tuple), with ``keepdims``.

The reduced axes are moved last by a permuted gather of storage offsets, so each
output element reduces one contiguous run of the gathered list.
"""

from __future__ import annotations

import builtins
import math
import operator

from . import layout
from ._core import StridedArray, cast_values, from_values, normalize_axes, normalize_axis, values
from ._dtypes import as_dtype, bool_, float64, int64, uint64

__all__ = ["sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "any", "all",
           "cumulative_sum"]

_bsum = builtins.sum
_bmax = builtins.max
_bmin = builtins.min
_bany = builtins.any
_ball = builtins.all


def _require(name: str, x) -> StridedArray:
    if not isinstance(x, StridedArray):
        raise TypeError(f"{name}: expected a StridedArray, got {type(x).__name__}")
    return x


def _groups(x: StridedArray, axis, keepdims: bool):
    """Gather ``x`` with the reduced axes last -> (runs, run length, output shape)."""
    axes = normalize_axes(axis, x.ndim)
    reduced = set(axes)
    kept = [k for k in range(x.ndim) if k not in reduced]
    order = kept + sorted(reduced)
    if order == list(range(x.ndim)):
        vals = values(x)
    else:
        shape = tuple(x.shape[k] for k in order)
        strides = tuple(x.strides[k] for k in order)
        vals = list(map(x.storage.__getitem__, layout.iter_offsets(shape, strides, x.offset)))
    k = layout.numel(tuple(x.shape[a] for a in reduced))
    n_out = layout.numel(tuple(x.shape[a] for a in kept))
    if keepdims:
        out_shape = tuple(1 if a in reduced else d for a, d in enumerate(x.shape))
    else:
        out_shape = tuple(x.shape[a] for a in kept)
    if k == 0:
        runs = [[] for _ in range(n_out)]
    elif n_out == 1:
        runs = [vals]
    else:
        runs = [vals[i : i + k] for i in range(0, len(vals), k)]
    return runs, k, out_shape


def _sum_leading(x: StridedArray, axis, keepdims: bool):
    """Fast path: sum over leading axes of a contiguous array by adding whole rows.

    Adds row after row with ``map(operator.add, ...)`` (same order as the general
    path, so the same rounding) -> (values, shape), or (None, None) if it does not apply.
    """
    axes = normalize_axes(axis, x.ndim)
    r = len(axes)
    if not (0 < r < x.ndim and sorted(axes) == list(range(r)) and x.size
            and x.dtype.kind != "b" and layout.is_contiguous(x.shape, x.strides)):
        return None, None
    vals = values(x)
    m = layout.numel(x.shape[r:])
    acc = vals[:m]
    for i in range(m, len(vals), m):
        acc = list(map(operator.add, acc, vals[i : i + m]))
    shape = (1,) * r + x.shape[r:] if keepdims else x.shape[r:]
    return acc, shape


def _sum_dtype(x, dtype):
    """The Array API's accumulation dtype: signed ints and bool -> int64, unsigned -> uint64."""
    if dtype is not None:
        return as_dtype(dtype)
    if x.dtype.kind == "u":
        return uint64
    return int64 if x.dtype.kind in "bi" else x.dtype


def sum(x, /, *, axis=None, dtype=None, keepdims=False) -> StridedArray:
    """Sum over ``axis``. ``(2, 3, 4)``, ``axis=(0, 2)`` -> ``(3,)`` (``(1, 3, 1)`` with keepdims).

    bool and int64 sum to int64; an empty sum is 0.
    """
    _require("sum", x)
    out_dtype = _sum_dtype(x, dtype)
    out, shape = _sum_leading(x, axis, keepdims)
    if out is None:
        runs, _, shape = _groups(x, axis, keepdims)
        out = [_bsum(r, 0.0 if out_dtype.kind == "f" else 0) for r in runs]
    elif out_dtype.kind == "f" and x.dtype.kind != "f":
        out = list(map(float, out))
    if _needs_cast(x.dtype, out_dtype):
        out = cast_values(out, out_dtype)
    return from_values(out, shape, out_dtype)


def _needs_cast(src, dst) -> bool:
    """Whether sums/products of ``src`` values (started at 0 or 0.0) need converting to ``dst``."""
    return dst.kind == "b" or (dst.kind == "i" and src.kind == "f")


def prod(x, /, *, axis=None, dtype=None, keepdims=False) -> StridedArray:
    """Product over ``axis``; same shapes as ``sum``. An empty product is 1."""
    _require("prod", x)
    out_dtype = _sum_dtype(x, dtype)
    runs, _, shape = _groups(x, axis, keepdims)
    out = [math.prod(r, start=1.0 if out_dtype.kind == "f" else 1) for r in runs]
    if _needs_cast(x.dtype, out_dtype):
        out = cast_values(out, out_dtype)
    return from_values(out, shape, out_dtype)


def mean(x, /, *, axis=None, keepdims=False) -> StridedArray:
    """Arithmetic mean over ``axis``; same shapes as ``sum``. Ints give float64; empty gives nan."""
    _require("mean", x)
    out_dtype = x.dtype if x.dtype.kind == "f" else float64
    k = layout.numel(tuple(x.shape[a] for a in normalize_axes(axis, x.ndim)))
    if k == 0:
        shape = sum(x, axis=axis, keepdims=keepdims).shape
        return from_values([math.nan] * layout.numel(shape), shape, out_dtype)
    total = sum(x, axis=axis, dtype=float64, keepdims=keepdims)
    return from_values([v / k for v in values(total)], total.shape, out_dtype)


def var(x, /, *, axis=None, correction=0.0, keepdims=False) -> StridedArray:
    """Variance over ``axis`` with ``correction`` degrees of freedom removed; shapes as ``sum``."""
    _require("var", x)
    out_dtype = x.dtype if x.dtype.kind == "f" else float64
    runs, k, shape = _groups(x, axis, keepdims)
    denom = k - correction
    out = []
    for r in runs:
        if k == 0 or denom <= 0:
            out.append(math.nan)
            continue
        m = _bsum(r, 0.0) / k
        out.append(_bsum([(v - m) * (v - m) for v in r], 0.0) / denom)
    return from_values(out, shape, out_dtype)


def std(x, /, *, axis=None, correction=0.0, keepdims=False) -> StridedArray:
    """Standard deviation over ``axis``; see ``var``."""
    v = var(x, axis=axis, correction=correction, keepdims=keepdims)
    return from_values([math.sqrt(e) if e == e else e for e in values(v)], v.shape, v.dtype)


def _has_nan(run) -> bool:
    s = _bsum(run, 0.0)  # nan (or inf - inf) shows in the sum: a cheap first check
    return s != s and _bany(v != v for v in run)


def _extreme(name, pick, x, axis, keepdims):
    _require(name, x)
    runs, k, shape = _groups(x, axis, keepdims)
    if k == 0:
        raise ValueError(
            f"{name}: zero-size array to reduction operation {name} which has no identity "
            f"(shape {x.shape}, axis {axis})"
        )
    out = [pick(r) for r in runs]
    if x.dtype.kind == "f":
        out = [math.nan if _has_nan(r) else v for r, v in zip(runs, out)]
    return from_values(out, shape, x.dtype)


def max(x, /, *, axis=None, keepdims=False) -> StridedArray:
    """Largest element over ``axis`` (nan if any is nan); shapes as ``sum``. Empty -> ValueError."""
    return _extreme("max", _bmax, x, axis, keepdims)


def min(x, /, *, axis=None, keepdims=False) -> StridedArray:
    """Smallest element over ``axis`` (nan if any is nan); shapes as ``sum``. Empty: ValueError."""
    return _extreme("min", _bmin, x, axis, keepdims)


def _arg(name, pick, x, axis, keepdims):
    _require(name, x)
    if axis is None:
        flat = from_values(values(x), (x.size,), x.dtype)
        out = _arg(name, pick, flat, 0, False)
        if keepdims:
            return from_values(values(out), (1,) * x.ndim, int64)
        return out
    axis = normalize_axis(axis, x.ndim)
    runs, k, shape = _groups(x, axis, keepdims)
    if k == 0:
        raise ValueError(f"{name}: attempt to get {name} of an empty sequence (shape {x.shape})")
    out = []
    for r in runs:
        if x.dtype.kind == "f" and _has_nan(r):
            out.append(next(i for i, v in enumerate(r) if v != v))
        else:
            out.append(r.index(pick(r)))
    return from_values(out, shape, int64)


def argmax(x, /, *, axis=None, keepdims=False) -> StridedArray:
    """Index of the first largest element along ``axis`` (None: of the flattened array). int64."""
    return _arg("argmax", _bmax, x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False) -> StridedArray:
    """Index of the first smallest element along ``axis`` (None: of the flattened array). int64."""
    return _arg("argmin", _bmin, x, axis, keepdims)


def any(x, /, *, axis=None, keepdims=False) -> StridedArray:
    """Whether any element over ``axis`` is true; shapes as ``sum``, dtype bool."""
    _require("any", x)
    runs, _, shape = _groups(x, axis, keepdims)
    return from_values([_bany(r) for r in runs], shape, bool_)


def all(x, /, *, axis=None, keepdims=False) -> StridedArray:
    """Whether every element over ``axis`` is true; shapes as ``sum``, dtype bool."""
    _require("all", x)
    runs, _, shape = _groups(x, axis, keepdims)
    return from_values([_ball(r) for r in runs], shape, bool_)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False) -> StridedArray:
    """Running sums along ``axis`` (required unless ``x`` is 1-D). Same shape, or one longer
    along ``axis`` with ``include_initial`` (a leading 0). Accumulates in ``sum``'s dtype."""
    from ._sorting import from_lines, lines

    _require("cumulative_sum", x)
    if axis is None:
        if x.ndim != 1:
            raise ValueError(
                f"cumulative_sum: axis is required for a {x.ndim}-D array of shape {x.shape}"
            )
        axis = 0
    axis = normalize_axis(axis, x.ndim)
    out_dtype = _sum_dtype(x, dtype)
    zero = out_dtype.type(0)
    runs, shape = lines(x, axis)
    out = []
    for r in runs:
        acc = [zero] if include_initial else []
        total = zero
        for v in r:
            total = total + v
            acc.append(total)
        out.append(acc)
    shape = shape[:-1] + (shape[-1] + (1 if include_initial else 0),)
    if not runs:
        full = shape[:axis] + shape[-1:] + shape[axis:-1]
        return from_values([zero] * layout.numel(full), full, out_dtype)
    if out_dtype.kind != x.dtype.kind or out_dtype.kind == "b":
        out = [cast_values(r, out_dtype) for r in out]
    return from_lines(out, shape, axis, out_dtype)
