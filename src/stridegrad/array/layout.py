"""Layout arithmetic: pure functions from shapes and strides to storage offsets.

Everything an N-dimensional array needs to know about *where* its elements live
in a flat storage list is here, as small functions on tuples of ints. No classes,
no NumPy: these are the functions the learner writes in lessons 01-04.

Conventions:

* a ``Shape`` is a tuple of non-negative ints, one per dimension;
* ``Strides`` count *elements*, not bytes (NumPy's ``strides // itemsize``);
* an ``Index`` is a tuple of ints, one per dimension;
* an ``offset`` is a position in the flat storage list.

The element at ``index`` lives at ``storage[offset + sum(i * s for i, s in
zip(index, strides))]``; every view (transpose, slice, reshape, broadcast) is a
new ``(shape, strides, offset)`` over the *same* storage.
"""

from __future__ import annotations

import operator
from itertools import chain, repeat

Shape = tuple[int, ...]
Strides = tuple[int, ...]
Index = tuple[int, ...]
#: A strided view over a flat storage list: ``(storage, shape, strides, offset)``.
View = tuple[list, Shape, Strides, int]

__all__ = [
    "Shape",
    "Strides",
    "Index",
    "View",
    "numel",
    "contiguous_strides",
    "index_to_offset",
    "offset_to_index",
    "check_index",
    "is_contiguous",
    "permute_layout",
    "slice_layout",
    "reshape_strides",
    "infer_shape",
    "broadcast_shapes",
    "broadcast_strides",
    "iter_offsets",
    "map_unary",
    "map_binary",
    "broadcast_binary",
    "sum_axis",
    "reduce_axis",
    "matmul_2d",
    "batched_matmul",
]


def numel(shape: Shape) -> int:
    """Number of elements of an array of this shape.

    Shape contract: ``(d0, ..., dn-1) -> d0 * ... * dn-1``; ``() -> 1`` (a scalar).

    Args:
        shape: sizes of the dimensions.

    Returns:
        The product of the sizes (1 for the empty shape, 0 if any size is 0).

    Example:
        >>> numel((2, 3, 4))
        24
    """
    n = 1
    for d in shape:
        n *= d
    return n


def contiguous_strides(shape: Shape) -> Strides:
    """Row-major (C-order) strides, in elements, for a freshly allocated array.

    Shape contract: ``(d0, ..., dn-1) -> (s0, ..., sn-1)``, one stride per
    dimension, where ``sk`` is how many storage positions one step along axis ``k``
    moves in a row-major array; ``() -> ()``.

    A size-0 dimension counts as 1, as in NumPy's ``reshape``, so that no stride
    is 0 (a 0 stride means "broadcast"); an empty array has no elements, so any
    strides address them all correctly.

    Args:
        shape: sizes of the dimensions.

    Returns:
        One stride per dimension, as a tuple.

    Example:
        >>> contiguous_strides((2, 3, 4))
        (12, 4, 1)
    """
    strides = [0] * len(shape)
    step = 1
    for k in range(len(shape) - 1, -1, -1):
        strides[k] = step
        step *= shape[k] if shape[k] > 0 else 1
    return tuple(strides)


def index_to_offset(index: Index, strides: Strides, offset: int = 0) -> int:
    """Storage position of the element at ``index`` (no bounds check).

    Shape contract: ``index`` and ``strides`` have one entry per dimension.

    Args:
        index: one (non-negative) int per dimension.
        strides: element strides, one per dimension.
        offset: storage position of element ``(0, ..., 0)``.

    Returns:
        The position in the flat storage list.

    Example:
        >>> index_to_offset((1, 2), (3, 1))
        5
    """
    position = offset
    for i, s in zip(index, strides):
        position += i * s
    return position


def offset_to_index(offset: int, shape: Shape) -> Index:
    """Index of the element at ``offset`` in a contiguous row-major array.

    The inverse of ``index_to_offset(index, contiguous_strides(shape))``.
    Shape contract: ``0 <= offset < numel(shape)`` -> one int per dimension.

    Args:
        offset: a position in ``range(numel(shape))``.
        shape: sizes of the dimensions.

    Returns:
        The index tuple.

    Raises:
        ValueError: if ``offset`` is outside ``range(numel(shape))``.

    Example:
        >>> offset_to_index(5, (2, 3))
        (1, 2)
    """
    n = numel(shape)
    if not 0 <= offset < n:
        raise ValueError(
            f"offset {offset} is out of range for shape {tuple(shape)} with {n} elements"
        )
    index = [0] * len(shape)
    for k in range(len(shape) - 1, -1, -1):
        offset, index[k] = divmod(offset, shape[k])
    return tuple(index)


def check_index(index: Index, shape: Shape) -> Index:
    """Validate an integer index and normalise its negative entries.

    Shape contract: one int per dimension -> one int per dimension, each in
    ``range(shape[k])``.

    Args:
        index: one int per dimension; ``-1`` means the last element.
        shape: sizes of the dimensions.

    Returns:
        The index with every entry in ``range(shape[k])``.

    Raises:
        TypeError: if an entry is not an int.
        IndexError: if the index has the wrong length or an entry is out of bounds;
            the message names the index, the axis and the size.

    Example:
        >>> check_index((-1, 0), (3, 4))
        (2, 0)
    """
    index = tuple(index)
    if len(index) != len(shape):
        raise IndexError(
            f"index {index} has {len(index)} entries but the array is "
            f"{len(shape)}-dimensional with shape {tuple(shape)}"
        )
    out = []
    for axis, (i, d) in enumerate(zip(index, shape)):
        if isinstance(i, bool) or not hasattr(i, "__index__"):
            raise TypeError(f"index entries must be ints, got {type(i).__name__} {i!r}")
        i = operator.index(i)
        j = i + d if i < 0 else i
        if not 0 <= j < d:
            raise IndexError(f"index {i} is out of bounds for axis {axis} with size {d}")
        out.append(j)
    return tuple(out)


def is_contiguous(shape: Shape, strides: Strides) -> bool:
    """Whether the elements are laid out row-major with no gaps.

    Shape contract: ``shape`` and ``strides`` have one entry per dimension.
    Dimensions of size 1 may have any stride (they are never stepped over:
    NumPy's "relaxed strides" rule), and an array with no elements is
    contiguous whatever its strides.

    Args:
        shape: sizes of the dimensions.
        strides: element strides, one per dimension.

    Returns:
        True if the array occupies ``storage[offset : offset + numel(shape)]`` in
        row-major order.

    Example:
        >>> is_contiguous((2, 3), (3, 1)), is_contiguous((3, 2), (1, 3))
        (True, False)
    """
    if 0 in shape:
        return True
    expected = 1
    for k in range(len(shape) - 1, -1, -1):
        d = shape[k]
        if d != 1:
            if strides[k] != expected:
                return False
            expected *= d
    return True


def permute_layout(shape: Shape, strides: Strides, axes: tuple[int, ...]) -> tuple[Shape, Strides]:
    """Reorder the dimensions: the layout of a transpose, no data moved.

    Shape contract: ``axes`` is a permutation of ``range(len(shape))``; output
    dimension ``k`` is input dimension ``axes[k]``.

    Args:
        shape: sizes of the dimensions.
        strides: element strides, one per dimension.
        axes: the new order of the input dimensions.

    Returns:
        ``(new_shape, new_strides)``.

    Raises:
        ValueError: if ``axes`` is not a permutation of ``range(len(shape))``.

    Example:
        >>> permute_layout((2, 3, 4), (12, 4, 1), (2, 0, 1))
        ((4, 2, 3), (1, 12, 4))
    """
    axes = tuple(axes)
    ndim = len(shape)
    if sorted(axes) != list(range(ndim)):
        raise ValueError(
            f"axes {axes} is not a permutation of range({ndim}) "
            f"for an array of shape {tuple(shape)}"
        )
    return tuple(shape[a] for a in axes), tuple(strides[a] for a in axes)


def slice_layout(size: int, stride: int, sl: slice) -> tuple[int, int, int]:
    """Layout of ``a[start:stop:step]`` along one dimension.

    Same semantics as Python and NumPy slicing: negative ``start``/``stop``
    count from the end, out-of-range bounds are clipped, and any non-zero
    step is allowed (a negative step walks backwards).

    Args:
        size: size of the dimension being sliced.
        stride: its element stride.
        sl: the slice.

    Returns:
        ``(offset_delta, new_size, new_stride)``: how far the first selected
        element is from the old first element, how many are selected, and the
        step between them in storage. An empty selection gives
        ``(0, 0, stride)``, as in NumPy.

    Raises:
        ValueError: if the step is 0.

    Example:
        >>> slice_layout(10, 1, slice(None, None, -3))
        (9, 4, -3)
    """
    if sl.step is not None and operator.index(sl.step) == 0:
        raise ValueError(f"slice step cannot be zero in {sl!r}")
    start, stop, step = sl.indices(size)
    n = len(range(start, stop, step))
    if n == 0:
        return 0, 0, stride
    return start * stride, n, stride * step


def reshape_strides(shape: Shape, strides: Strides, new_shape: Shape) -> Strides | None:
    """Strides that view the same elements in ``new_shape``, or None if a copy is needed.

    Shape contract: ``numel(new_shape) == numel(shape)``. Returns None exactly
    when NumPy's ``reshape`` would copy (row-major order, as NumPy's
    ``_attempt_nocopy_reshape``): a view can exist even when the array is not
    contiguous. An axis of size 1 in ``new_shape`` is never stepped along, so
    any stride is right for it (this function gives NumPy's).

    Args:
        shape: current sizes.
        strides: current element strides.
        new_shape: the requested sizes, all known (a ``-1`` is resolved before this
            is called).

    Returns:
        The new strides, or None when NumPy's ``reshape`` would copy.

    Raises:
        ValueError: if the element counts differ.

    Example:
        >>> reshape_strides((2, 3), (3, 1), (3, 2))
        (2, 1)
        >>> reshape_strides((3, 2), (1, 3), (6,)) is None   # a transpose
        True
        >>> reshape_strides((2, 4), (8, 1), (2, 2, 2))      # every other row: still a view
        (8, 2, 1)
    """
    shape, strides, new_shape = tuple(shape), tuple(strides), tuple(new_shape)
    if numel(shape) != numel(new_shape):
        raise ValueError(
            f"cannot reshape array of shape {shape} (size {numel(shape)}) "
            f"into shape {new_shape} (size {numel(new_shape)})"
        )
    if is_contiguous(shape, strides):
        return contiguous_strides(new_shape)

    old_dims = [d for d in shape if d != 1]
    old_strides = [s for d, s in zip(shape, strides) if d != 1]
    n_old, n_new = len(old_dims), len(new_shape)
    new_strides = [0] * n_new

    # [oi, oj) and [ni, nj) are the groups of old and new axes being matched
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < n_new and oi < n_old:
        np_, op = new_shape[ni], old_dims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new_shape[nj]  # trailing 1s of the new shape are handled below
                nj += 1
            else:
                op *= old_dims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if old_strides[ok] != old_dims[ok + 1] * old_strides[ok + 1]:
                return None
        new_strides[nj - 1] = old_strides[oj - 1]
        for nk in range(nj - 1, ni, -1):
            new_strides[nk - 1] = new_strides[nk] * new_shape[nk]
        ni, nj = nj, nj + 1
        oi, oj = oj, oj + 1

    last = new_strides[ni - 1] if ni >= 1 else 1
    for nk in range(ni, n_new):
        new_strides[nk] = last
    return tuple(new_strides)


def infer_shape(shape: tuple[int, ...], numel_: int) -> Shape:
    """Replace a single ``-1`` in a requested shape by the size that fits.

    Shape contract: ``shape`` may contain one ``-1``; the result has
    ``numel(result) == numel_``.

    Args:
        shape: the requested shape, possibly with one ``-1``.
        numel_: the number of elements of the array being reshaped.

    Returns:
        The shape with the ``-1`` filled in.

    Raises:
        ValueError: for more than one ``-1``, a negative size, or a shape whose
            element count cannot equal ``numel_``; the message names both.

    Example:
        >>> infer_shape((2, -1), 6)
        (2, 3)
    """
    shape = tuple(operator.index(d) for d in shape)
    unknown = [k for k, d in enumerate(shape) if d == -1]
    if len(unknown) > 1:
        raise ValueError(f"can only specify one unknown dimension (-1), got shape {shape}")
    if any(d < -1 for d in shape):
        raise ValueError(f"negative dimensions are not allowed, got shape {shape}")
    known = 1
    for d in shape:
        if d != -1:
            known *= d
    if unknown:
        if known == 0 or numel_ % known != 0:
            raise ValueError(
                f"cannot reshape array of size {numel_} into shape {shape}"
            )
        k = unknown[0]
        return shape[:k] + (numel_ // known,) + shape[k + 1 :]
    if known != numel_:
        raise ValueError(f"cannot reshape array of size {numel_} into shape {shape}")
    return shape


def broadcast_shapes(*shapes: Shape) -> Shape:
    """The shape that all ``shapes`` broadcast to, by NumPy's rules.

    Shape contract: align shapes on the right; in each column every size must
    be 1 or the common size; missing leading sizes count as 1.
    ``(4, 1, 3), (5, 1) -> (4, 5, 3)``.

    Args:
        *shapes: any number of shapes (none gives ``()``).

    Returns:
        The broadcast shape.

    Raises:
        ValueError: naming both offending shapes, if two sizes clash: the two
            shapes as they were given, not a shape broadcast from several of them.

    Example:
        >>> broadcast_shapes((2, 1), (3,))
        (2, 3)
    """
    shapes = [tuple(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    # which input set out[k] (to name it in the error message)
    source = [None] * ndim
    for s in shapes:
        for k in range(1, len(s) + 1):
            d = s[-k]
            if d == 1:
                continue
            if out[-k] == 1:
                out[-k] = d
                source[-k] = s
            elif out[-k] != d:
                raise ValueError(
                    f"operands could not be broadcast together with shapes "
                    f"{source[-k]} and {s}"
                )
    return tuple(out)


def broadcast_strides(shape: Shape, strides: Strides, target_shape: Shape) -> Strides:
    """Strides that view an array of ``shape`` as ``target_shape`` without copying.

    Shape contract: ``shape`` broadcasts to ``target_shape``. New leading
    dimensions and size-1 dimensions get stride 0 (every index along them
    reads the same element; NumPy zeroes a size-1 axis even when it is not
    stretched); the others keep their stride.

    Args:
        shape: current sizes.
        strides: current element strides.
        target_shape: the shape to view the array as.

    Returns:
        One stride per target dimension.

    Raises:
        ValueError: if ``shape`` cannot be broadcast to ``target_shape``.

    Example:
        >>> broadcast_strides((3, 1), (1, 1), (2, 3, 4))
        (0, 1, 0)
    """
    shape, target_shape = tuple(shape), tuple(target_shape)
    lead = len(target_shape) - len(shape)
    if lead < 0:
        raise ValueError(f"cannot broadcast shape {shape} to {target_shape}: too many dimensions")
    out = [0] * lead
    for d, s, t in zip(shape, strides, target_shape[lead:]):
        if d == 1:
            out.append(0)  # as NumPy: a size-1 axis reads one element, stretched or not
        elif d == t:
            out.append(s)
        else:
            raise ValueError(f"cannot broadcast shape {shape} to {target_shape}")
    return tuple(out)


def iter_offsets(shape: Shape, strides: Strides, offset: int = 0) -> list[int]:
    """Storage positions of all elements, in row-major logical order.

    Shape contract: ``(d0, ..., dn-1)`` -> a list of ``numel(shape)`` ints;
    element ``k`` of the list is the position of ``offset_to_index(k, shape)``.

    Args:
        shape: sizes of the dimensions.
        strides: element strides, one per dimension.
        offset: storage position of element ``(0, ..., 0)``.

    Returns:
        The list of storage positions (``[offset]`` for a 0-d array, ``[]`` for
        an empty one).

    Example:
        >>> iter_offsets((3, 2), (1, 3))       # the transpose of a (2, 3) array
        [0, 3, 1, 4, 2, 5]
    """
    positions = [offset]
    for d, s in zip(shape, strides):
        if d == 1:
            continue  # one index: the positions do not move
        if d == 0:
            return []
        if s == 0:
            positions = list(chain.from_iterable(map(repeat, positions, repeat(d))))
        elif d <= 12:
            # short runs: one comprehension beats building a range per position
            steps = range(0, d * s, s)
            positions = [p + t for p in positions for t in steps]
        else:
            span = d * s
            positions = list(chain.from_iterable(range(p, p + span, s) for p in positions))
    return positions


# ---------------------------------------------------------------------------
# Kernels over flat storage (lesson 03): each reads a view through its layout
# and writes a fresh row-major list. The strided array's elementwise functions
# run map_unary and map_binary, and its reductions reduce_axis (as
# ``layout.map_unary(...)``, so that ``stridegrad yours`` can swap in a learner's).
# For the library's speed each takes a shortcut the lesson does not ask for: a
# contiguous view is one run of its storage, read as a slice (no offsets to list),
# and reduce_axis reads a lane with a positive stride as one strided slice. A
# shortcut gives the same values, in the same order, with fn called the same way.


def map_unary(fn, x: View) -> list:
    """Apply ``fn`` to every element of a view: a unary elementwise op.

    Shape contract: a view of shape ``S`` -> a new list of ``numel(S)`` values,
    the row-major storage of the result (so its strides are
    ``contiguous_strides(S)`` and its offset 0). The storage of ``x`` is not
    modified, and ``fn`` is called once per element, in row-major order.

    Args:
        fn: a function of one value.
        x: the view, a tuple ``(storage, shape, strides, offset)``.

    Returns:
        The list of ``fn(v)`` for the view's values ``v`` in row-major order.

    Example:
        >>> map_unary(lambda v: -v, ([0, 1, 2, 3], (2, 2), (1, 2), 0))   # a transpose
        [0, -2, -1, -3]
    """
    storage, shape, strides, offset = x
    if tuple(strides) == contiguous_strides(shape):  # contiguous: one run, in order
        n = numel(shape)
        run = storage if offset == 0 and len(storage) == n else storage[offset:offset + n]
        return list(map(fn, run))
    return [fn(storage[p]) for p in iter_offsets(shape, strides, offset)]


def map_binary(fn, x: View, y: View) -> list:
    """Apply ``fn`` to matching elements of two views of the same shape.

    Shape contract: ``S, S -> numel(S)`` values in row-major order; the element
    at each index is ``fn(x[index], y[index])``. The two views may have
    different strides and offsets, and may share one storage.

    Args:
        fn: a function of two values (``x``'s first).
        x, y: the views, each a tuple ``(storage, shape, strides, offset)``.

    Returns:
        The list of results in row-major order.

    Raises:
        ValueError: if the shapes differ (naming both; broadcasting is lesson 04).

    Example:
        >>> map_binary(lambda a, b: a - b, ([5, 7], (2,), (1,), 0), ([1, 2], (2,), (1,), 0))
        [4, 5]
    """
    xs, x_shape, x_strides, x_offset = x
    ys, y_shape, y_strides, y_offset = y
    if tuple(x_shape) != tuple(y_shape):
        raise ValueError(f"shapes {tuple(x_shape)} and {tuple(y_shape)} differ: "
                         "an elementwise op needs equal shapes")
    n, row_major = numel(x_shape), contiguous_strides(x_shape)
    runs = []  # the values of each view, in row-major order
    for storage, strides, offset in ((xs, x_strides, x_offset), (ys, y_strides, y_offset)):
        if tuple(strides) != row_major:  # read through the strides
            runs.append(list(map(storage.__getitem__, iter_offsets(x_shape, strides, offset))))
        elif offset == 0 and len(storage) == n:  # contiguous, all of its storage
            runs.append(storage)
        else:  # contiguous: one run of its storage
            runs.append(storage[offset:offset + n])
    return list(map(fn, runs[0], runs[1]))


def broadcast_binary(op, x: list, x_strides: Strides, y: list, y_strides: Strides,
                     shape: Shape) -> list:
    """``op`` applied elementwise to two operands read as ``shape`` through their strides.

    Shape contract: ``x_strides`` and ``y_strides`` have one entry per dimension
    of ``shape`` (0 where that operand is broadcast), all 0 or more. Returns the
    flat row-major storage of the result as a new list: ``numel(shape)`` values,
    element ``k`` being ``op(x[...], y[...])`` at index ``offset_to_index(k,
    shape)``, x's value first. ``op`` is called once per element, in any order;
    ``x`` and ``y`` are left as they are (they may be one and the same list).

    The strided array calls it for an elementwise op on two arrays whose shapes
    broadcast through an inner axis (``(3, 1) + (1, 4)``, ``x - x.max(axis=1,
    keepdims=True)``; a stretch over leading axes only, ``(n, n) + (n,)``, repeats
    the small operand's block instead). The library's version walks each operand's
    storage positions in the result's order with lesson 03's :func:`iter_offsets`
    instead of an index per element: the same values, faster in Python.

    Example:
        >>> broadcast_binary(operator.add, [0, 10], (1, 0), [1, 2, 3], (0, 1), (2, 3))
        [1, 2, 3, 11, 12, 13]
    """
    xs = [x[p] for p in iter_offsets(shape, x_strides)]  # x's values, in the result's order
    ys = [y[p] for p in iter_offsets(shape, y_strides)]
    return list(map(op, xs, ys))


def sum_axis(x: View, axis: int, keepdims: bool = False) -> tuple[list, Shape]:
    """Sum a view along one axis.

    Shape contract: ``(d0, ..., dn-1)`` summed over ``axis = k`` -> the shape
    without ``dk``, or with ``dk`` replaced by 1 when ``keepdims``; the values
    come back as a new row-major list. A negative ``axis`` counts from the end.
    An axis of size 0 sums to 0.

    Args:
        x: the view, a tuple ``(storage, shape, strides, offset)``.
        axis: the axis to sum over, in ``range(-ndim, ndim)``.
        keepdims: keep the summed axis as a size-1 dimension.

    Returns:
        ``(values, shape)`` of the result.

    Raises:
        ValueError: if ``axis`` is out of range.

    Example:
        >>> sum_axis((list(range(6)), (2, 3), (3, 1), 0), axis=1, keepdims=True)
        ([3, 12], (2, 1))
    """
    storage, shape, strides, offset = x
    shape, strides = tuple(shape), tuple(strides)
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {len(shape)}")
    axis %= len(shape)  # -1 is the last axis
    rest_shape = shape[:axis] + shape[axis + 1:]
    rest_strides = strides[:axis] + strides[axis + 1:]
    size, step = shape[axis], strides[axis]
    values = []
    for start in iter_offsets(rest_shape, rest_strides, offset):
        total = 0
        for j in range(size):
            total += storage[start + j * step]
        values.append(total)
    out_shape = shape[:axis] + (1,) + shape[axis + 1:] if keepdims else rest_shape
    return values, out_shape


def reduce_axis(fn, x: View, axis: int, keepdims: bool = False) -> tuple[list, Shape]:
    """Reduce a view along one axis with ``fn``, a function of a list of values.

    Shape contract: as :func:`sum_axis`. For each position of the other axes,
    ``fn`` gets the list of values along ``axis`` in index order (index 0
    first) and returns one value: ``sum``, ``max``, ``min``, a mean
    (``lambda v: sum(v) / len(v)``), ...

    Args:
        fn: a function from a list of values to one value.
        x: the view, a tuple ``(storage, shape, strides, offset)``.
        axis: the axis to reduce, in ``range(-ndim, ndim)``.
        keepdims: keep the reduced axis as a size-1 dimension.

    Returns:
        ``(values, shape)`` of the result.

    Raises:
        ValueError: if ``axis`` is out of range.

    Example:
        >>> reduce_axis(max, (list(range(6)), (2, 3), (3, 1), 0), axis=0)
        ([3, 4, 5], (3,))
    """
    storage, shape, strides, offset = x
    shape, strides = tuple(shape), tuple(strides)
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {len(shape)}")
    axis %= len(shape)  # -1 is the last axis
    rest_shape = shape[:axis] + shape[axis + 1:]
    rest_strides = strides[:axis] + strides[axis + 1:]
    size, step = shape[axis], strides[axis]
    starts = iter_offsets(rest_shape, rest_strides, offset)
    if step > 0:  # a lane is a strided slice of the storage
        span = size * step
        values = [fn(storage[start:start + span:step]) for start in starts]
    else:
        values = [fn([storage[start + j * step] for j in range(size)]) for start in starts]
    out_shape = shape[:axis] + (1,) + shape[axis + 1:] if keepdims else rest_shape
    return values, out_shape


# ---------------------------------------------------------------------------
# Matrix products over flat storage (lesson 05): the strided array's matmul calls
# these. Each reads its operands through their strides where they lie (a transposed
# or broadcast operand is never copied first) and writes a fresh row-major list.

def matmul_2d(a: list, a_shape: Shape, a_strides: Strides,
              b: list, b_shape: Shape, b_strides: Strides) -> list:
    """Matrix product of two rank-2 strided arrays over flat storage.

    Shape contract: ``(n, k) @ (k, m) -> (n, m)``; ``a`` and ``b`` are storage
    lists read through any strides >= 0 (transposed, stepped or broadcast
    views, 0 included), each starting at position 0 of its storage. Any sizes,
    0 included.
    Returns a new list, the flat row-major storage of the product: element
    ``i * m + j`` is the dot product of row ``i`` of ``a`` and column ``j`` of
    ``b``, a sum that starts at 0 (an int when the numbers are ints; 0 when
    ``k`` is 0).

    The library's strided array calls it for every product of two matrices
    (``sa.matmul``, ``@``); the library's version reads row ``i`` and column ``j``
    as two slices of storage first (``a[i * s0 : ... : s1]``), then sums their
    products in order, which is the same sum as a loop over ``p``, faster in Python.

    Raises:
        ValueError: naming both shapes, if the inner sizes differ.

    Example:
        >>> matmul_2d([1, 2, 3, 4], (2, 2), (2, 1), [1, 0, 0, 1], (2, 2), (2, 1))
        [1, 2, 3, 4]
    """
    (n, k), (k2, m) = a_shape, b_shape
    if k != k2:
        raise ValueError(f"matmul: shapes {tuple(a_shape)} and {tuple(b_shape)} are not "
                         f"aligned: {k} != {k2}")
    (s0, s1), (t0, t1) = a_strides, b_strides
    # row i of a and column j of b, each read as one slice of storage (a stride of
    # 0, a broadcast axis, reads one value k times)
    rows = [a[i * s0 : i * s0 + k * s1 : s1] if s1 else a[i * s0 : i * s0 + 1] * k
            for i in range(n)]
    cols = [b[j * t1 : j * t1 + k * t0 : t0] if t0 else b[j * t1 : j * t1 + 1] * k
            for j in range(m)]
    # each dot product a sum from 0, in order, by one call that loops in C
    return [sum(map(operator.mul, row, col)) for row in rows for col in cols]


def batched_matmul(a: list, a_shape: Shape, a_strides: Strides,
                   b: list, b_shape: Shape, b_strides: Strides) -> list:
    """Batched matrix product of two rank-3 strided arrays over flat storage.

    Shape contract: ``(B, n, k) @ (B, k, m) -> (B, n, m)``, matrix ``t`` of
    the result being ``a[t] @ b[t]``. Any strides >= 0, 0 included (a batch
    stride of 0 shares one matrix across the batch), each array starting at
    position 0 of its storage; any sizes, 0 included. Returns a new list, the
    flat row-major storage of the result, each element a dot product as in
    ``matmul_2d``.

    The library's strided array calls it for every product with batch dimensions
    (several batch axes are first made one); the library's version reads each row
    and column as a slice, as its ``matmul_2d`` does.

    Raises:
        ValueError: naming both shapes, if the batch sizes or the inner sizes differ.
    """
    (nb, n, k), (nb2, k2, m) = a_shape, b_shape
    if nb != nb2 or k != k2:
        raise ValueError(f"batched matmul: shapes {tuple(a_shape)} and {tuple(b_shape)} do not "
                         "match: batch sizes and inner sizes must be equal")
    (s0, s1, s2), (t0, t1, t2) = a_strides, b_strides
    out = []
    for t in range(nb):
        at, bt = t * s0, t * t0  # where matrix t of each operand starts
        rows = [a[at + i * s1 : at + i * s1 + k * s2 : s2] if s2 else
                a[at + i * s1 : at + i * s1 + 1] * k for i in range(n)]
        cols = [b[bt + j * t2 : bt + j * t2 + k * t1 : t1] if t1 else
                b[bt + j * t2 : bt + j * t2 + 1] * k for j in range(m)]
        out += [sum(map(operator.mul, row, col)) for row in rows for col in cols]
    return out
