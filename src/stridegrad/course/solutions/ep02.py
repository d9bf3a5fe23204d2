"""The solutions of lesson 02's exercises (02_strides_and_views), in one module.

Written by ``stridegrad build 02`` from ``course/02_strides_and_views.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 02 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.array.layout import permute_layout
from stridegrad.array.layout import slice_layout
from stridegrad.array.layout import is_contiguous
from stridegrad.array.layout import reshape_strides


def getitem_layout(shape, strides, offset, key):
    """The layout ``(shape, strides, offset)`` of the view ``a[key]``, NumPy's basic indexing.

    ``key`` is an int, a slice, or a tuple of them, one per axis from the left;
    axes it leaves out are kept whole. An int picks one position along its axis
    and removes the axis (negative ints count from the end); a slice keeps the
    axis, with the offset change, size and stride ``slice_layout`` gives (an
    empty selection moves nothing and keeps the stride). Nothing is copied.
    The shape and the strides come back as tuples, the offset as an int.

    Raises:
        IndexError: naming the int and the axis's size, if an int is out of range;
            naming both counts, if the key has more items than the array has axes.
        ValueError: for a slice step of 0 (as ``slice_layout``).

    Example:
        >>> getitem_layout((2, 3, 4), (12, 4, 1), 0, (1, slice(None, None, 2)))
        ((2, 4), (8, 1), 12)
        >>> getitem_layout((2, 3), (3, 1), 0, (slice(None), -1))
        ((2,), (3,), 2)
    """
    if not isinstance(key, tuple):
        key = (key,)
    if len(key) > len(shape):
        raise IndexError(f"too many indices: {len(key)} for an array with {len(shape)} axes")
    new_shape, new_strides = [], []
    for k, (d, s) in enumerate(zip(shape, strides)):
        item = key[k] if k < len(key) else slice(None)
        if isinstance(item, slice):
            delta, n, step = slice_layout(d, s, item)
            offset += delta
            new_shape.append(n)
            new_strides.append(step)
        else:
            i = item + d if item < 0 else item
            if not 0 <= i < d:
                raise IndexError(f"index {item} is out of bounds for axis {k} with size {d}")
            offset += i * s
    return tuple(new_shape), tuple(new_strides), offset


__all__ = ['permute_layout', 'slice_layout', 'is_contiguous', 'reshape_strides', 'getitem_layout']
