"""Sorting, searching and set functions: ``sort``, ``argsort``, ``searchsorted``,
``nonzero`` and the ``unique_*`` family.

Along an axis, the axis is moved last by a permuted gather, so each run of the
gathered list is one line to sort; the results are put back in ``x``'s axis order.
Sorts are stable (Python's ``sorted``); nan sorts after every number, as in NumPy.
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from . import layout
from ._core import StridedArray, from_values, normalize_axis, values, view
from ._dtypes import int64

__all__ = [
    "sort", "argsort", "searchsorted", "nonzero",
    "unique_all", "unique_counts", "unique_inverse", "unique_values",
]


def _require(name: str, x) -> StridedArray:
    if not isinstance(x, StridedArray):
        raise TypeError(f"{name}: expected a StridedArray, got {type(x).__name__}")
    return x


def lines(x: StridedArray, axis: int) -> tuple[list[list], tuple]:
    """The 1-D lines of ``x`` along ``axis`` -> (runs, shape with ``axis`` moved last)."""
    order = [k for k in range(x.ndim) if k != axis] + [axis]
    shape = tuple(x.shape[k] for k in order)
    strides = tuple(x.strides[k] for k in order)
    vals = values(view(x, shape, strides, x.offset))
    n = x.shape[axis]
    if n == 0:
        return [], shape
    return [vals[i : i + n] for i in range(0, len(vals), n)], shape


def from_lines(runs: list[list], moved_shape: tuple, axis: int, dtype) -> StridedArray:
    """Inverse of ``lines``: runs laid out with ``axis`` last -> an array in ``x``'s axis order."""
    flat = [v for r in runs for v in r]
    moved = from_values(flat, moved_shape, dtype)
    ndim = len(moved_shape)
    # axis k of the result is axis inv[k] of ``moved``
    inv = list(range(ndim - 1))
    inv.insert(axis, ndim - 1)
    out = view(moved, [moved_shape[k] for k in inv], [moved.strides[k] for k in inv], 0)
    return from_values(values(out), out.shape, dtype)


def _key(v):
    return (v != v, v)  # nan last


def _order(run: list, descending: bool) -> list[int]:
    idx = range(len(run))
    if descending:
        # stable descending: equal elements keep their order, nan still last
        nans = [i for i in idx if run[i] != run[i]]
        rest = sorted((i for i in idx if run[i] == run[i]), key=run.__getitem__, reverse=True)
        return rest + nans
    return sorted(idx, key=lambda i: _key(run[i]))


def _check_axis(name, x, axis) -> int:
    if x.ndim == 0:
        raise ValueError(f"{name}: needs an array of at least 1 dimension, got shape ()")
    return normalize_axis(axis, x.ndim)


def argsort(x, /, *, axis=-1, descending=False, stable=True) -> StridedArray:
    """Indices that sort ``x`` along ``axis`` (stable). Same shape, int64."""
    _require("argsort", x)
    axis = _check_axis("argsort", x, axis)
    runs, shape = lines(x, axis)
    return from_lines([_order(r, descending) for r in runs], shape, axis, int64)


def sort(x, /, *, axis=-1, descending=False, stable=True) -> StridedArray:
    """``x`` sorted along ``axis`` (stable, nan last). Same shape and dtype."""
    _require("sort", x)
    axis = _check_axis("sort", x, axis)
    runs, shape = lines(x, axis)
    out = [[r[i] for i in _order(r, descending)] for r in runs]
    return from_lines(out, shape, axis, x.dtype)


def searchsorted(x1, x2, /, *, side="left", sorter=None) -> StridedArray:
    """Where each element of ``x2`` would be inserted into the sorted 1-D ``x1``. Shape of x2.

    ``side="left"`` gives the first suitable position, ``"right"`` the last;
    ``sorter`` (int indices) sorts ``x1`` first.
    """
    _require("searchsorted", x1)
    _require("searchsorted", x2)
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-D, got shape {x1.shape}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    hay = values(x1)
    if sorter is not None:
        _require("searchsorted", sorter)
        if sorter.shape != x1.shape or sorter.dtype.kind not in "iu":
            raise ValueError(
                f"searchsorted: sorter must be integer indices of x1's shape {x1.shape}, got "
                f"shape {sorter.shape} dtype {sorter.dtype}"
            )
        hay = [hay[i] for i in values(sorter)]
    keys = [_key(v) for v in hay]
    find = bisect.bisect_left if side == "left" else bisect.bisect_right
    out = [find(keys, _key(v)) for v in values(x2)]
    return from_values(out, x2.shape, int64)


def nonzero(x, /) -> tuple[StridedArray, ...]:
    """Indices of the non-zero elements: one int64 array per axis, each of shape ``(k,)``."""
    _require("nonzero", x)
    if x.ndim == 0:
        raise ValueError("nonzero: a 0-d array has no axes to index; use x[None]")
    flat = [i for i, v in enumerate(values(x)) if v]
    cols = [layout.offset_to_index(i, x.shape) for i in flat] if x.ndim > 1 else [(i,) for i in flat]
    return tuple(from_values([c[k] for c in cols], (len(cols),), int64) for k in range(x.ndim))


class UniqueAllResult(NamedTuple):
    values: StridedArray
    indices: StridedArray
    inverse_indices: StridedArray
    counts: StridedArray


class UniqueCountsResult(NamedTuple):
    values: StridedArray
    counts: StridedArray


class UniqueInverseResult(NamedTuple):
    values: StridedArray
    inverse_indices: StridedArray


def _unique(name, x):
    """Sorted distinct values of ``x`` (each nan distinct) -> (values, first index, inverse, counts)."""
    _require(name, x)
    vals = values(x)
    groups: dict = {}
    nans = []
    for i, v in enumerate(vals):
        if v != v:
            nans.append(i)
        else:
            groups.setdefault(v, []).append(i)
    keys = sorted(groups)
    uniq = [vals[groups[k][0]] for k in keys] + [vals[i] for i in nans]
    members = [groups[k] for k in keys] + [[i] for i in nans]
    inverse = [0] * len(vals)
    for j, m in enumerate(members):
        for i in m:
            inverse[i] = j
    n = len(uniq)
    return (from_values(uniq, (n,), x.dtype),
            from_values([m[0] for m in members], (n,), int64),
            from_values(inverse, x.shape, int64),
            from_values([len(m) for m in members], (n,), int64))


def unique_all(x, /) -> UniqueAllResult:
    """Distinct values (sorted, each nan distinct), first indices, inverse indices and counts."""
    return UniqueAllResult(*_unique("unique_all", x))


def unique_counts(x, /) -> UniqueCountsResult:
    """Distinct values of ``x`` (sorted) and how often each occurs. ``(...) -> (k,), (k,)``."""
    u, _, _, counts = _unique("unique_counts", x)
    return UniqueCountsResult(u, counts)


def unique_inverse(x, /) -> UniqueInverseResult:
    """Distinct values and, for each element of ``x``, the index of its value (x's shape)."""
    u, _, inverse, _ = _unique("unique_inverse", x)
    return UniqueInverseResult(u, inverse)


def unique_values(x, /) -> StridedArray:
    """Distinct values of ``x``, sorted (each nan distinct). ``(...) -> (k,)``."""
    return _unique("unique_values", x)[0]
