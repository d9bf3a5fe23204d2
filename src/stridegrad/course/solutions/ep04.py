"""The solutions of lesson 04's exercises (04_broadcasting), in one module.

Written by ``stridegrad build 04`` from ``course/04_broadcasting.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 04 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.array.layout import broadcast_shapes
from stridegrad.array.layout import broadcast_strides
from stridegrad.array.layout import broadcast_binary


# keep this import when you write the function: the cell runs on its own
from stridegrad.array.layout import (contiguous_strides, index_to_offset,  # lesson 01
                                     numel, offset_to_index)


def broadcast_where(cond, c_shape, x, x_shape, y, y_shape):
    """``np.where(cond, x, y)`` for three contiguous row-major operands of any shapes.

    Shape contract: ``c_shape``, ``x_shape`` and ``y_shape`` broadcast together to
    a shape ``S``; returns ``(values, S)`` with ``values`` the flat row-major
    storage of the result, a new list: at each index, ``x``'s element there where
    ``cond``'s is true, else ``y``'s; and ``S`` as a tuple. Each operand is a flat
    list holding its own shape's elements in row-major order.

    Raises:
        ValueError: naming the two shapes that clash (as they were given), if they
            do not broadcast together.

    Example:
        >>> broadcast_where([True, False], (2, 1), [1, 2, 3], (3,), [0], ())
        ([1, 2, 3, 0, 0, 0], (2, 3))
    """
    shape = broadcast_shapes(c_shape, x_shape, y_shape)
    c_str, x_str, y_str = (broadcast_strides(s, contiguous_strides(s), shape)
                           for s in (c_shape, x_shape, y_shape))
    values = []
    for k in range(numel(shape)):
        index = offset_to_index(k, shape)
        if cond[index_to_offset(index, c_str)]:
            values.append(x[index_to_offset(index, x_str)])
        else:
            values.append(y[index_to_offset(index, y_str)])
    return values, shape


__all__ = ['broadcast_shapes', 'broadcast_strides', 'broadcast_binary', 'broadcast_where']
