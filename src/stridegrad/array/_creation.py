"""Creation functions: new arrays with fresh, contiguous, row-major storage."""

from __future__ import annotations

import math
import operator

from . import layout
from ._core import StridedArray, as_shape, cast_values, check_device, from_values, values
from ._dtypes import DType, as_dtype, bool_, float32, float64, int64

__all__ = [
    "asarray", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
    "zeros_like", "ones_like", "empty_like", "full_like", "astype",
    "meshgrid", "tril", "triu", "from_dlpack",
]

_SCALARS = (bool, int, float)


def _dtype_or(dtype, default: DType) -> DType:
    return default if dtype is None else as_dtype(dtype)


def _numpy_dtype(np_dtype) -> DType:
    kind, size = np_dtype.kind, np_dtype.itemsize
    if kind == "b":
        return bool_
    if kind in "iu":
        return as_dtype(np_dtype.name)
    if kind == "f":
        return float32 if size <= 4 else float64
    raise TypeError(f"asarray: unsupported NumPy dtype {np_dtype}")


def _is_numpy_like(obj) -> bool:
    return hasattr(obj, "__array__") and hasattr(obj, "dtype") and hasattr(obj, "shape")


def _leaf(v):
    """A leaf of a nested sequence -> a Python bool/int/float."""
    if isinstance(v, StridedArray):
        if v.ndim:
            raise ValueError(f"asarray: nested StridedArray of shape {v.shape} in a list")
        return v.item()
    if _is_numpy_like(v) and getattr(v, "shape", None) == ():
        return v.item()
    if isinstance(v, _SCALARS):
        return v
    if hasattr(v, "__index__"):
        return operator.index(v)
    if isinstance(v, complex):
        raise TypeError(f"asarray: complex numbers are not supported, got {v!r}")
    raise TypeError(f"asarray: unsupported element {v!r} of type {type(v).__name__}")


def _flatten(obj) -> tuple[list, tuple]:
    """Nested lists/tuples -> (flat row-major values, shape); ragged input is a ValueError."""
    shape: list[int] = []
    level = [obj]
    while True:
        is_seq = [isinstance(e, (list, tuple)) or (isinstance(e, StridedArray) and e.ndim > 0)
                  for e in level]
        if level and all(is_seq):
            level = [e.tolist() if isinstance(e, StridedArray) else e for e in level]
            n = len(level[0])
            for e in level:
                if len(e) != n:
                    raise ValueError(
                        f"asarray: ragged nested sequence: at dimension {len(shape)} "
                        f"expected length {n}, got length {len(e)}"
                    )
            shape.append(n)
            level = [v for e in level for v in e]
        elif any(is_seq):
            raise ValueError(
                f"asarray: ragged nested sequence: dimension {len(shape)} mixes "
                f"sequences and scalars"
            )
        else:
            break
    return level, tuple(shape)


def _infer(vals: list) -> DType:
    types = set(map(type, vals))
    if not types:
        return float64
    if types <= {bool}:
        return bool_
    if types <= {bool, int}:
        return int64
    return float64


def asarray(obj, /, *, dtype=None, device=None, copy=None) -> StridedArray:
    """Convert nested sequences, scalars, NumPy arrays or StridedArrays to a StridedArray.

    Shape contract: nested lists of depth ``n`` -> an ``n``-d array; a scalar -> 0-d.
    Default dtype as NumPy: bools -> bool, ints -> int64, any float -> float64;
    a NumPy array keeps its dtype (float32 stays float32).

    ``copy=None`` reuses a StridedArray when no conversion is needed, ``copy=True``
    always copies, ``copy=False`` never copies (ValueError if it would have to).
    """
    check_device(device)
    want = None if dtype is None else as_dtype(dtype)
    if isinstance(obj, StridedArray):
        if want is None or want == obj.dtype:
            return obj.copy() if copy else obj
        if copy is False:
            raise ValueError(
                f"asarray: converting {obj.dtype} to {want} needs a copy, but copy=False"
            )
        return astype(obj, want)
    if copy is False:
        raise ValueError(
            f"asarray: a {type(obj).__name__} cannot become a StridedArray without a copy, "
            f"but copy=False"
        )
    if _is_numpy_like(obj):
        import numpy as np  # only reached with a NumPy(-like) input

        arr = np.asarray(obj)
        src = _numpy_dtype(arr.dtype)
        vals, shape = arr.ravel().tolist(), arr.shape
        dtype = want or src
        if dtype.kind != src.kind and not (dtype.kind in "iu" and src.kind in "iu"):
            vals = cast_values(vals, dtype)
        return from_values(vals, tuple(shape), dtype)
    if isinstance(obj, _SCALARS):
        vals, shape = [obj], ()
    else:
        vals, shape = _flatten(obj)
        if set(map(type, vals)) - {bool, int, float}:
            vals = list(map(_leaf, vals))
    dtype = want or _infer(vals)
    if set(map(type, vals)) != {dtype.type}:
        vals = cast_values(vals, dtype)
    return from_values(vals, shape, dtype)


def full(shape, fill_value, *, dtype=None, device=None) -> StridedArray:
    """An array of ``shape`` filled with ``fill_value``; dtype from the value if not given."""
    check_device(device)
    shape = as_shape(shape)
    if isinstance(fill_value, StridedArray):
        fill_value = fill_value.item()
    if not isinstance(fill_value, (bool, int, float)):
        raise TypeError(f"full: fill_value must be a bool, int or float, got {fill_value!r}")
    if dtype is None:
        dtype = bool_ if isinstance(fill_value, bool) else (
            int64 if isinstance(fill_value, int) else float64)
    dtype = as_dtype(dtype)
    return from_values([dtype.type(fill_value)] * layout.numel(shape), shape, dtype)


def zeros(shape, *, dtype=None, device=None) -> StridedArray:
    """An array of ``shape`` filled with 0 (default dtype float64)."""
    return full(shape, 0, dtype=_dtype_or(dtype, float64), device=device)


def ones(shape, *, dtype=None, device=None) -> StridedArray:
    """An array of ``shape`` filled with 1 (default dtype float64)."""
    return full(shape, 1, dtype=_dtype_or(dtype, float64), device=device)


def empty(shape, *, dtype=None, device=None) -> StridedArray:
    """An array of ``shape`` (filled with 0: Python lists have no uninitialised memory)."""
    return zeros(shape, dtype=dtype, device=device)


def zeros_like(x, /, *, dtype=None, device=None) -> StridedArray:
    """Zeros with ``x``'s shape and (by default) dtype."""
    return zeros(x.shape, dtype=_dtype_or(dtype, x.dtype), device=device)


def ones_like(x, /, *, dtype=None, device=None) -> StridedArray:
    """Ones with ``x``'s shape and (by default) dtype."""
    return ones(x.shape, dtype=_dtype_or(dtype, x.dtype), device=device)


def empty_like(x, /, *, dtype=None, device=None) -> StridedArray:
    """An array with ``x``'s shape and (by default) dtype, filled with 0."""
    return zeros_like(x, dtype=dtype, device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None) -> StridedArray:
    """``fill_value`` with ``x``'s shape and (by default) dtype."""
    return full(x.shape, fill_value, dtype=_dtype_or(dtype, x.dtype), device=device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None) -> StridedArray:
    """Evenly spaced values ``start, start + step, ...`` below ``stop``. ``() -> (n,)``.

    ``n = ceil((stop - start) / step)``; ints give int64, any float gives float64.
    """
    check_device(device)
    if stop is None:
        start, stop = 0, start
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"arange: {name} must be an int or float, got {v!r}")
    if step == 0:
        raise ValueError("arange: step must not be zero")
    n = max(0, math.ceil((stop - start) / step))
    all_int = all(isinstance(v, int) for v in (start, stop, step))
    dtype = _dtype_or(dtype, int64 if all_int else float64)
    if all_int:
        vals = list(range(start, start + n * step, step))
    else:
        vals = [start + i * step for i in range(n)]
    if set(map(type, vals)) - {dtype.type}:
        vals = cast_values(vals, dtype)
    return from_values(vals, (n,), dtype)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True) -> StridedArray:
    """``num`` evenly spaced floats from ``start`` to ``stop``. ``() -> (num,)``."""
    check_device(device)
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}")
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    vals = [start + i * step for i in range(num)]
    if endpoint and num > 1:
        vals[-1] = stop
    dtype = _dtype_or(dtype, float64)
    return from_values(cast_values(vals, dtype), (num,), dtype)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None) -> StridedArray:
    """Ones on the ``k``-th diagonal, zeros elsewhere. ``() -> (n_rows, n_cols)``."""
    check_device(device)
    n_rows = operator.index(n_rows)
    n_cols = n_rows if n_cols is None else operator.index(n_cols)
    dtype = _dtype_or(dtype, float64)
    zero, one = dtype.type(0), dtype.type(1)
    vals = [zero] * (n_rows * n_cols)
    for i in range(n_rows):
        j = i + k
        if 0 <= j < n_cols:
            vals[i * n_cols + j] = one
    return from_values(vals, as_shape((n_rows, n_cols)), dtype)


def astype(x, dtype, /, *, copy=True, device=None) -> StridedArray:
    """``x`` converted to ``dtype`` (floats to int truncate toward 0). Same shape."""
    check_device(device)
    if not isinstance(x, StridedArray):
        raise TypeError(f"astype: expected a StridedArray, got {type(x).__name__}")
    dtype = as_dtype(dtype)
    if dtype == x.dtype:
        return x.copy() if copy else x
    vals = values(x)
    if dtype.kind != x.dtype.kind:
        vals = cast_values(vals, dtype)
    return from_values(vals, x.shape, dtype)


def meshgrid(*arrays, indexing="xy") -> list[StridedArray]:
    """Coordinate grids from 1-D arrays: ``n`` arrays of sizes ``(s0, ..., sn-1)``.

    Shape contract: ``indexing="ij"`` -> each output ``(s0, s1, ..., sn-1)``;
    ``"xy"`` (default) swaps the first two: ``(s1, s0, s2, ...)``. Copies.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    for a in arrays:
        if not isinstance(a, StridedArray) or a.ndim != 1:
            raise ValueError(
                f"meshgrid: expects 1-D StridedArrays, got {getattr(a, 'shape', type(a).__name__)}"
            )
    sizes = [a.size for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    shape = tuple(sizes)
    out = []
    for k, a in enumerate(arrays):
        axis = k
        if indexing == "xy" and len(arrays) > 1 and k < 2:
            axis = 1 - k
        # each value repeats over the axes after ``axis``, the block over those before
        inner = layout.numel(shape[axis + 1 :])
        outer = layout.numel(shape[:axis])
        vals = [v for v in values(a) for _ in range(inner)] * outer
        out.append(from_values(vals, shape, a.dtype))
    return out


def _triangle(name, x, k, keep):
    if not isinstance(x, StridedArray):
        raise TypeError(f"{name}: expected a StridedArray, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"{name}: needs at least 2 dimensions, got shape {x.shape}")
    k = operator.index(k)
    n, m = x.shape[-2:]
    zero = x.dtype.type(0)
    vals = values(x)
    keep_mask = [keep(j - i, k) for i in range(n) for j in range(m)]
    block = n * m
    out = [v if keep_mask[p % block] else zero for p, v in enumerate(vals)] if block else []
    return from_values(out, x.shape, x.dtype)


def tril(x, /, *, k=0) -> StridedArray:
    """Zeros above the ``k``-th diagonal of the last two axes. Same shape and dtype."""
    return _triangle("tril", x, k, lambda d, k: d <= k)


def triu(x, /, *, k=0) -> StridedArray:
    """Zeros below the ``k``-th diagonal of the last two axes. Same shape and dtype."""
    return _triangle("triu", x, k, lambda d, k: d >= k)


def from_dlpack(x, /, *, device=None, copy=None) -> StridedArray:
    """DLPack import is not supported (deviation): storage is a Python list, not a buffer.

    NumPy arrays and other objects with ``__array__`` can be converted with
    ``asarray`` (a copy). Raises BufferError.
    """
    raise BufferError(
        "stridegrad.array cannot share memory through DLPack: its storage is a Python list "
        f"of numbers, not a buffer; use asarray({type(x).__name__}) to copy instead"
    )
