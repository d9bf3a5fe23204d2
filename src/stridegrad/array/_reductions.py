"""Reductions over ``axis`` (None, an int, a negative int, or a tuple), with ``keepdims``.

Every reduction is lesson 03's ``reduce_axis``, called through the module
(``layout.reduce_axis(fn, view, axis)``): ``fn`` maps the list of values along the
reduced axis (a *lane*, in index order) to one value, and this module supplies it
(``builtins.sum`` from the accumulation dtype's zero, ``max`` with NumPy's nan rule,
...). One axis is reduced on the array's own ``(storage, shape, strides, offset)``.
Several axes are first gathered, the reduced ones last, into a list seen as
``(outputs, lane length)``, so that each output reduces one row of it; a
contiguous array whose reduced axes are its last (or its first) ones is seen that
way (or as ``(lane length, outputs)``, a lane per column) without a copy.
"""

from __future__ import annotations

import builtins
import math

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


def _reduce(fn, x: StridedArray, axis, keepdims: bool) -> tuple[list, tuple]:
    """``fn`` of every lane of ``x`` over ``axis`` -> (values, shape), by ``layout.reduce_axis``."""
    axes = normalize_axes(axis, x.ndim)
    if len(axes) == 1:
        return layout.reduce_axis(fn, (x._storage, x._shape, x._strides, x._offset), axes[0],
                                  keepdims)
    # several axes (or none, for a 0-d array): the reduced axes last, one row per output
    reduced = set(axes)
    kept = [k for k in range(x.ndim) if k not in reduced]
    order = kept + sorted(reduced)
    k = layout.numel(tuple(x._shape[a] for a in reduced))
    n_out = layout.numel(tuple(x._shape[a] for a in kept))
    contiguous = layout.is_contiguous(x._shape, x._strides)
    if contiguous and order == list(range(x.ndim)):  # the last axes: a lane is a row
        out, _ = layout.reduce_axis(fn, (x._storage, (n_out, k), (k, 1), x._offset), 1)
    elif contiguous and sorted(reduced) == list(range(len(reduced))):  # the first: a column
        out, _ = layout.reduce_axis(fn, (x._storage, (k, n_out), (n_out, 1), x._offset), 0)
    else:
        shape = tuple(x._shape[a] for a in order)
        strides = tuple(x._strides[a] for a in order)
        vals = list(map(x._storage.__getitem__, layout.iter_offsets(shape, strides, x._offset)))
        out, _ = layout.reduce_axis(fn, (vals, (n_out, k), (k, 1), 0), 1)
    if keepdims:
        return out, tuple(1 if a in reduced else d for a, d in enumerate(x._shape))
    return out, tuple(x._shape[a] for a in kept)


def _lane_length(x: StridedArray, axis) -> int:
    """How many values each output of a reduction over ``axis`` reduces."""
    return layout.numel(tuple(x.shape[a] for a in normalize_axes(axis, x.ndim)))


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
    zero = 0.0 if out_dtype.kind == "f" else 0
    out, shape = _reduce(lambda lane: _bsum(lane, zero), x, axis, keepdims)
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
    one = 1.0 if out_dtype.kind == "f" else 1
    out, shape = _reduce(lambda lane: math.prod(lane, start=one), x, axis, keepdims)
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
    k = _lane_length(x, axis)
    denom = k - correction

    def variance(lane):
        if k == 0 or denom <= 0:
            return math.nan
        m = _bsum(lane, 0.0) / k
        return _bsum([(v - m) * (v - m) for v in lane], 0.0) / denom

    out, shape = _reduce(variance, x, axis, keepdims)
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
    if _lane_length(x, axis) == 0:
        raise ValueError(
            f"{name}: zero-size array to reduction operation {name} which has no identity "
            f"(shape {x.shape}, axis {axis})"
        )
    if x.dtype.kind == "f":
        out, shape = _reduce(lambda lane: math.nan if _has_nan(lane) else pick(lane), x, axis,
                             keepdims)
    else:
        out, shape = _reduce(pick, x, axis, keepdims)
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
    if x.shape[axis] == 0:
        raise ValueError(f"{name}: attempt to get {name} of an empty sequence (shape {x.shape})")
    floating = x.dtype.kind == "f"

    def position(lane):
        if floating and _has_nan(lane):
            return next(i for i, v in enumerate(lane) if v != v)
        return lane.index(pick(lane))

    out, shape = _reduce(position, x, axis, keepdims)
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
    out, shape = _reduce(_bany, x, axis, keepdims)
    return from_values(out, shape, bool_)


def all(x, /, *, axis=None, keepdims=False) -> StridedArray:
    """Whether every element over ``axis`` is true; shapes as ``sum``, dtype bool."""
    _require("all", x)
    out, shape = _reduce(_ball, x, axis, keepdims)
    return from_values(out, shape, bool_)


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
