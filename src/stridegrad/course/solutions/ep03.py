"""The solutions of lesson 03's exercises (03_elementwise_and_reductions), in one module.

Written by ``stridegrad build 03`` from ``course/03_elementwise_and_reductions.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 03 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.array.layout import iter_offsets
from stridegrad.array.layout import map_unary
from stridegrad.array.layout import map_binary
from stridegrad.array.layout import sum_axis
from stridegrad.array.layout import reduce_axis


def argmax_axis(x, axis):
    """For each lane of a view along ``axis``, the index of its largest element.

    Shape contract: ``(d0, ..., dn-1)`` along ``axis = k`` -> the shape without
    ``dk``. On a tie, the first (smallest) index, as in NumPy. A negative ``axis``
    counts from the end.

    Returns:
        ``(values, shape)``: the indices, a list of ints in row-major order, each in
        ``range(dk)`` (the position along the axis, not in storage), and that shape
        as a tuple.

    Raises:
        ValueError: naming the axis and the number of dimensions, if ``axis`` is out
            of range; if the axis has size 0, even when no lane is left (no maximum
            of nothing).

    Example:
        >>> argmax_axis(([3, 9, 2, 7, 1, 8], (2, 3), (3, 1), 0), axis=1)
        ([1, 2], (2,))
        >>> argmax_axis(([3, 9, 2, 7, 1, 8], (2, 3), (3, 1), 0), axis=0)
        ([1, 0, 1], (3,))
    """
    storage, shape, strides, offset = x
    shape, strides = tuple(shape), tuple(strides)
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {len(shape)}")
    axis %= len(shape)
    size, step = shape[axis], strides[axis]
    if size == 0:
        raise ValueError(f"argmax of an empty axis (axis {axis} of shape {shape})")
    rest_shape = shape[:axis] + shape[axis + 1:]
    rest_strides = strides[:axis] + strides[axis + 1:]
    out = []
    for start in iter_offsets(rest_shape, rest_strides, offset):
        best = 0
        for j in range(1, size):
            if storage[start + j * step] > storage[start + best * step]:
                best = j
        out.append(best)
    return out, rest_shape


__all__ = ['iter_offsets', 'map_unary', 'map_binary', 'sum_axis', 'reduce_axis', 'argmax_axis']
