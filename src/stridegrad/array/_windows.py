"""Views with any layout over the same storage: ``as_strided`` and sliding windows.

A window over an image is a view with one more pair of strides: for a 1-D
array of stride ``s``, the windows of width ``k`` are the view of shape
``(n - k + 1, k)`` and strides ``(s, s)`` (step to the next window, step inside
a window). No element is copied; windows overlap in the storage.
"""

from __future__ import annotations

import operator

from ._core import StridedArray, as_shape, normalize_axis, view

__all__ = ["as_strided", "sliding_window_view"]


def as_strided(x, /, shape, strides, *, offset=None, writeable=False) -> StridedArray:
    """A view of ``x``'s storage with the given layout (strides and offset in elements).

    Unlike NumPy's ``as_strided`` it is checked: a layout that would reach outside
    the storage raises ValueError naming the positions it would reach. The view
    is read-only unless ``writeable=True`` (overlapping views make writes
    surprising). ``offset`` defaults to ``x``'s own offset.
    """
    if not isinstance(x, StridedArray):
        raise TypeError(f"as_strided: expected a StridedArray, got {type(x).__name__}")
    shape = as_shape(shape)
    try:
        strides = tuple(operator.index(s) for s in strides)
    except TypeError:
        raise TypeError(f"as_strided: strides must be ints, got {strides!r}") from None
    if len(strides) != len(shape):
        raise ValueError(
            f"as_strided: {len(strides)} strides {strides} for {len(shape)} dims {shape}"
        )
    offset = x.offset if offset is None else operator.index(offset)
    n = len(x.storage)
    if all(shape):  # an empty view reads nothing
        lo = offset + sum((d - 1) * s for d, s in zip(shape, strides) if s < 0)
        hi = offset + sum((d - 1) * s for d, s in zip(shape, strides) if s > 0)
        if lo < 0 or hi >= n:
            raise ValueError(
                f"as_strided: shape={shape}, strides={strides}, offset={offset} reach storage "
                f"positions {lo} to {hi}, but the storage has {n} elements (0 to {n - 1})"
            )
    return view(x, shape, strides, offset, readonly=x.readonly or not writeable)


def sliding_window_view(x, /, window_shape, axis=None) -> StridedArray:
    """All windows of ``window_shape`` over ``axis`` (all axes by default), as a read-only view.

    Shape contract (NumPy's): each windowed axis shrinks to ``n - k + 1`` and the
    window dims are appended, e.g. ``(N, C, H, W)``, ``(kh, kw)``, ``axis=(2, 3)`` ->
    ``(N, C, H - kh + 1, W - kw + 1, kh, kw)``. Strides: the windowed axes keep
    theirs, and each window dim repeats the stride of its axis.
    """
    if not isinstance(x, StridedArray):
        raise TypeError(f"sliding_window_view: expected a StridedArray, got {type(x).__name__}")
    window = (window_shape,) if hasattr(window_shape, "__index__") else tuple(window_shape)
    window = tuple(operator.index(k) for k in window)
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = (axis,) if hasattr(axis, "__index__") else tuple(axis)
        axes = tuple(normalize_axis(a, x.ndim) for a in axes)
    if len(window) != len(axes):
        raise ValueError(
            f"sliding_window_view: window_shape {window} has {len(window)} entries "
            f"for {len(axes)} axes {axes}"
        )
    shape = list(x.shape)
    for a, k in zip(axes, window):
        if k < 0:
            raise ValueError(f"sliding_window_view: negative window size {k} in {window}")
        if k > shape[a]:
            raise ValueError(
                f"sliding_window_view: window {window} does not fit in shape {x.shape} "
                f"(size {k} > {shape[a]} on axis {a})"
            )
        shape[a] -= k - 1
    strides = x.strides + tuple(x.strides[a] for a in axes)
    return as_strided(x, tuple(shape) + window, strides)
