"""Shape manipulation: views where the layout allows, copies otherwise."""

from __future__ import annotations

import operator

from . import layout
from ._core import (
    AxisError,
    StridedArray,
    as_shape,
    cast_values,
    from_values,
    normalize_axes,
    normalize_axis,
    values,
    view,
)
from ._dtypes import result_type

__all__ = [
    "permute_dims", "matrix_transpose", "reshape", "broadcast_to", "broadcast_arrays",
    "broadcast_shapes", "expand_dims", "squeeze", "flip", "stack", "concat", "take",
    "moveaxis", "repeat", "roll", "tile", "unstack",
]


def _require(name: str, x) -> StridedArray:
    if not isinstance(x, StridedArray):
        raise TypeError(f"{name}: expected a StridedArray, got {type(x).__name__}")
    return x


def permute_dims(x, /, axes) -> StridedArray:
    """Reorder the axes (a view). ``(d0, ..., dn-1) -> (d[axes[0]], ..., d[axes[n-1]])``."""
    _require("permute_dims", x)
    axes = tuple(axes)
    if len(axes) == x.ndim:
        try:
            axes = tuple(normalize_axis(a, x.ndim) for a in axes)
        except AxisError:
            pass  # permute_layout names the whole tuple
    shape, strides = layout.permute_layout(x.shape, x.strides, axes)
    return view(x, shape, strides, x.offset)


def matrix_transpose(x, /) -> StridedArray:
    """Swap the last two axes (a view). ``(..., M, N) -> (..., N, M)``."""
    return _require("matrix_transpose", x).mT


def reshape(x, /, shape, *, copy=None) -> StridedArray:
    """The same elements in a new shape: a view when the strides allow, else a copy.

    Shape contract: ``numel(shape) == x.size``; one ``-1`` is inferred. A view is
    returned exactly when NumPy's ``reshape`` returns one; ``copy=True`` always
    copies, ``copy=False`` raises ValueError instead of copying.
    """
    _require("reshape", x)
    requested = shape if isinstance(shape, tuple) else (
        (shape,) if hasattr(shape, "__index__") else tuple(shape))
    try:
        new_shape = layout.infer_shape(requested, x.size)
    except ValueError as e:
        raise ValueError(
            f"cannot reshape array of shape {x.shape} (size {x.size}) into shape "
            f"{tuple(requested)}: {e}"
        ) from None
    if copy:
        return from_values(values(x), new_shape, x.dtype)
    if tuple(requested) == x.shape:
        # NumPy's shortcut (before inferring -1): the same shape is a plain view
        return view(x, x.shape, x.strides, x.offset)
    strides = layout.reshape_strides(x.shape, x.strides, new_shape)
    if strides is not None:
        return view(x, new_shape, strides, x.offset)
    if copy is False:
        raise ValueError(
            f"cannot reshape array of shape {x.shape} with strides {x.strides} into shape "
            f"{new_shape} without copying, but copy=False"
        )
    return from_values(values(x), new_shape, x.dtype)


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The common shape of ``shapes`` by NumPy's broadcasting rules."""
    return layout.broadcast_shapes(*shapes)


def broadcast_to(x, /, shape) -> StridedArray:
    """View ``x`` as ``shape`` with stride 0 on stretched and new axes (read-only, as NumPy)."""
    _require("broadcast_to", x)
    shape = as_shape(shape)
    strides = layout.broadcast_strides(x.shape, x.strides, shape)
    return view(x, shape, strides, x.offset, readonly=True)


def broadcast_arrays(*arrays) -> list[StridedArray]:
    """Views of all ``arrays`` broadcast to their common shape (read-only)."""
    for a in arrays:
        _require("broadcast_arrays", a)
    shape = layout.broadcast_shapes(*(a.shape for a in arrays))
    return [broadcast_to(a, shape) for a in arrays]


def expand_dims(x, /, axis=0) -> StridedArray:
    """Insert size-1 axes at ``axis`` (an int or tuple, of the result). A view.

    Shape contract: ``(3, 4)`` with ``axis=0`` -> ``(1, 3, 4)``; ``axis=-1`` -> ``(3, 4, 1)``.
    """
    _require("expand_dims", x)
    n_new = len(axis) if isinstance(axis, (tuple, list)) else 1
    out_ndim = x.ndim + n_new
    axes = set(normalize_axes(axis, out_ndim))
    it = iter(x.shape)
    new_shape = tuple(1 if k in axes else next(it) for k in range(out_ndim))
    strides = layout.reshape_strides(x.shape, x.strides, new_shape)
    return view(x, new_shape, strides, x.offset)


def squeeze(x, /, axis=None) -> StridedArray:
    """Remove size-1 axes (``axis``: int, tuple, or None for all). A view.

    Shape contract: ``(1, 3, 1)`` with ``axis=0`` -> ``(3, 1)``. Squeezing an axis
    whose size is not 1 is a ValueError.
    """
    _require("squeeze", x)
    if axis is None:
        axes = tuple(k for k, d in enumerate(x.shape) if d == 1)
    else:
        axes = normalize_axes(axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(
                f"cannot squeeze axis {a} of an array of shape {x.shape}: its size is "
                f"{x.shape[a]}, not 1"
            )
    keep = [k for k in range(x.ndim) if k not in axes]
    return view(x, [x.shape[k] for k in keep], [x.strides[k] for k in keep], x.offset)


def flip(x, /, *, axis=None) -> StridedArray:
    """Reverse the order of elements along ``axis`` (None: all). A view with negative strides."""
    _require("flip", x)
    axes = normalize_axes(axis, x.ndim)
    strides = list(x.strides)
    offset = x.offset
    for a in axes:
        d = x.shape[a]
        if d > 0:
            offset += (d - 1) * strides[a]
            strides[a] = -strides[a]
    return view(x, x.shape, strides, offset)


def concat(arrays, /, *, axis=0) -> StridedArray:
    """Join arrays along an existing axis (a copy). ``(a, n1, b), (a, n2, b) -> (a, n1+n2, b)``.

    ``axis=None`` flattens the inputs first.
    """
    arrays = list(arrays)
    if not arrays:
        raise ValueError("concat: need at least one array")
    for a in arrays:
        _require("concat", a)
    dtype = result_type(*arrays)
    if axis is None:
        vals = [v for a in arrays for v in values(a)]
        out = from_values(vals, (len(vals),), dtype)
    else:
        first = arrays[0]
        if first.ndim == 0:
            raise ValueError("concat: zero-dimensional arrays cannot be concatenated")
        axis = normalize_axis(axis, first.ndim)
        for i, a in enumerate(arrays[1:], 1):
            if a.ndim != first.ndim:
                raise ValueError(
                    f"concat: all arrays must have the same number of dimensions, but array 0 "
                    f"has shape {first.shape} and array {i} has shape {a.shape}"
                )
            for k in range(first.ndim):
                if k != axis and a.shape[k] != first.shape[k]:
                    raise ValueError(
                        f"concat: array dimensions except the concatenation axis {axis} must "
                        f"match, but along dimension {k} array 0 has shape {first.shape} and "
                        f"array {i} has shape {a.shape}"
                    )
        outer = layout.numel(first.shape[:axis])
        blocks = []
        for a in arrays:
            inner = layout.numel(a.shape[axis:])
            vals = values(a)
            blocks.append([vals[o * inner : (o + 1) * inner] for o in range(outer)])
        vals = [v for o in range(outer) for b in blocks for v in b[o]]
        shape = list(first.shape)
        shape[axis] = sum(a.shape[axis] for a in arrays)
        out = from_values(vals, tuple(shape), dtype)
    if any(a.dtype.kind != dtype.kind for a in arrays):
        out = from_values(cast_values(values(out), dtype), out.shape, dtype)
    return out


def stack(arrays, /, *, axis=0) -> StridedArray:
    """Join same-shape arrays along a new axis (a copy). ``k x (a, b) -> (k, a, b)`` at axis 0."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("stack: need at least one array")
    for i, a in enumerate(arrays):
        _require("stack", a)
        if a.shape != arrays[0].shape:
            raise ValueError(
                f"stack: all input arrays must have the same shape, but array 0 has shape "
                f"{arrays[0].shape} and array {i} has shape {a.shape}"
            )
    axis = normalize_axis(axis, arrays[0].ndim + 1)
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)


def take(x, indices, /, *, axis=None) -> StridedArray:
    """Pick entries along ``axis`` by 1-D int indices (a copy). ``(a, n, b), (k,) -> (a, k, b)``."""
    _require("take", x)
    idx = values(indices) if isinstance(indices, StridedArray) else list(indices)
    if isinstance(indices, StridedArray) and (indices.ndim != 1 or indices.dtype.kind not in "iu"):
        raise TypeError(
            f"take: indices must be a 1-D integer array, got shape {indices.shape} "
            f"dtype {indices.dtype}"
        )
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for a {x.ndim}-D array of shape {x.shape}")
        axis = 0
    axis = normalize_axis(axis, x.ndim)
    d = x.shape[axis]
    parts = []
    for i in idx:
        i = operator.index(i)
        j = i + d if i < 0 else i
        if not 0 <= j < d:
            raise IndexError(f"index {i} is out of bounds for axis {axis} with size {d}")
        key = (slice(None),) * axis + (slice(j, j + 1),)
        parts.append(x[key])
    if not parts:
        shape = list(x.shape)
        shape[axis] = 0
        return from_values([], tuple(shape), x.dtype)
    return concat(parts, axis=axis)


def moveaxis(x, source, destination, /) -> StridedArray:
    """Move axes ``source`` to positions ``destination`` (ints or tuples), others in order. A view."""
    _require("moveaxis", x)
    src = normalize_axes(source, x.ndim)
    dst = normalize_axes(destination, x.ndim)
    if len(src) != len(dst):
        raise ValueError(
            f"moveaxis: source {source} and destination {destination} must name as many axes"
        )
    order = [k for k in range(x.ndim) if k not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, tuple(order))


def repeat(x, repeats, /, *, axis=None) -> StridedArray:
    """Repeat each element ``repeats`` times (an int, or one count per element) along ``axis``.

    Shape contract: ``axis=None`` flattens first; ``(a, n, b)`` along axis 1 with
    an int ``r`` -> ``(a, n * r, b)``, with counts ``(n,)`` -> ``(a, sum(counts), b)``.
    """
    from ._sorting import from_lines, lines

    _require("repeat", x)
    if axis is None:
        x = reshape(x, (x.size,))
        axis = 0
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(repeats, StridedArray):
        if repeats.dtype.kind not in "iu" or repeats.ndim > 1:
            raise TypeError(f"repeat: repeats must be a 0-d or 1-D integer array, got "
                            f"shape {repeats.shape} dtype {repeats.dtype}")
        counts = values(repeats) if repeats.ndim else [repeats.item()] * n
    else:
        counts = [operator.index(repeats)] * n
    if len(counts) == 1 and n != 1:
        counts = counts * n
    if len(counts) != n:
        raise ValueError(f"repeat: {len(counts)} repeats for axis {axis} of size {n} "
                         f"(array of shape {x.shape})")
    if any(c < 0 for c in counts):
        raise ValueError(f"repeat: repeats must be non-negative, got {min(counts)}")
    runs, shape = lines(x, axis)
    out = [[v for v, c in zip(r, counts) for _ in range(c)] for r in runs]
    shape = shape[:-1] + (sum(counts),)
    if not runs:  # an empty line length, or nothing outside the axis
        return from_values([], tuple(shape[: axis] + shape[-1:] + shape[axis:-1]), x.dtype)
    return from_lines(out, shape, axis, x.dtype)


def roll(x, /, shift, *, axis=None) -> StridedArray:
    """Shift elements along ``axis`` (None: of the flattened array), wrapping around. Same shape."""
    _require("roll", x)
    if axis is None:
        flat = roll(reshape(x, (x.size,)), shift, axis=0)
        return reshape(flat, x.shape)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = tuple(shifts) * len(axes)
        elif len(axes) == 1:
            axes = tuple(axes) * len(shifts)
        else:
            raise ValueError(f"roll: shift {shift} and axis {axis} must have the same length")
    total = {}
    for s, a in zip(shifts, axes):
        a = normalize_axis(a, x.ndim)
        total[a] = total.get(a, 0) + operator.index(s)
    out = x
    for a, s in total.items():
        d = x.shape[a]
        if d == 0 or s % d == 0:
            continue
        k = s % d
        head = (slice(None),) * a + (slice(d - k, None),)
        tail = (slice(None),) * a + (slice(0, d - k),)
        out = concat([out[head], out[tail]], axis=a)
    return out if out is not x else from_values(values(x), x.shape, x.dtype)


def tile(x, repetitions, /) -> StridedArray:
    """``x`` repeated ``repetitions[k]`` times along axis ``k`` (shapes padded with leading 1s)."""
    _require("tile", x)
    reps = tuple(operator.index(r) for r in repetitions)
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: repetitions must be non-negative, got {reps}")
    ndim = max(x.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    out = reshape(x, (1,) * (ndim - x.ndim) + x.shape)
    for a, r in enumerate(reps):
        if r != 1:
            out = concat([out] * r, axis=a) if r > 0 else from_values(
                [], out.shape[:a] + (0,) + out.shape[a + 1 :], x.dtype)
    return out if out is not x else from_values(values(x), x.shape, x.dtype)


def unstack(x, /, *, axis=0) -> tuple[StridedArray, ...]:
    """Views of ``x`` along ``axis``: ``(a, n, b)`` at axis 1 -> ``n`` arrays of shape ``(a, b)``."""
    _require("unstack", x)
    if x.ndim == 0:
        raise ValueError("unstack: needs an array of at least 1 dimension, got shape ()")
    axis = normalize_axis(axis, x.ndim)
    return tuple(x[(slice(None),) * axis + (i,)] for i in range(x.shape[axis]))
