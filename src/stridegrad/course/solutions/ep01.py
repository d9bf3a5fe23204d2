"""The solutions of lesson 01's exercises (01_flat_storage), in one module.

Written by ``stridegrad build 01`` from ``course/01_flat_storage.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 01 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.array.layout import numel
from stridegrad.array.layout import contiguous_strides
from stridegrad.array.layout import index_to_offset
from stridegrad.array.layout import offset_to_index


def locate(position, shape, strides, offset=0):
    """The index of the element of a strided view that sits at storage ``position``.

    The inverse of ``index_to_offset(index, strides, offset)`` over the indices of
    ``shape``, for any strides (negative, permuted, with gaps, or 0) and any
    starting ``offset``. Returns the index as a tuple of ints (``()`` for a 0-d
    view). When several indices share the position (a stride of 0, or strides
    that overlap), the first in row-major order.

    Raises:
        ValueError: naming the position, the shape and the strides, if no element
            of the view sits at ``position``.

    Example:
        >>> locate(5, (3, 2), (1, 3))            # a transposed (2, 3) array
        (2, 1)
        >>> locate(0, (4,), (-1,), offset=3)     # a flipped vector
        (3,)
    """
    for k in range(numel(shape)):
        index = offset_to_index(k, shape)
        if index_to_offset(index, strides, offset) == position:
            return index
    raise ValueError(f"no element of the view with shape {tuple(shape)}, strides "
                     f"{tuple(strides)} and offset {offset} sits at position {position}")


__all__ = ['numel', 'contiguous_strides', 'index_to_offset', 'offset_to_index', 'locate']
