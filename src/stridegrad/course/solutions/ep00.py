"""The solutions of lesson 00's exercises (00_welcome), in one module.

Written by ``stridegrad build 00`` from ``course/00_welcome.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 00 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


def flatten(data):
    """All the numbers of a nested list (of lists or tuples, to any depth), in
    reading (row-major) order, as a new list (the caller's lists are left as
    they were).

    Example:
        >>> flatten([[1, 2], [3, 4]])
        [1, 2, 3, 4]
        >>> flatten(5)
        [5]
    """
    if isinstance(data, (list, tuple)):
        out = []
        for item in data:
            out.extend(flatten(item))
        return out
    return [data]


def shape_of(data):
    """The shape of a nested list: the size of each level, outermost first.

    A number (anything that is not a list or a tuple) has the shape ``()``.
    Returns a tuple of ints.

    Raises:
        ValueError: naming the two sizes (or shapes) that clash, if the items of
            one list do not all have the same shape.

    Example:
        >>> shape_of([[1, 2, 3], [4, 5, 6]])
        (2, 3)
        >>> shape_of(7), shape_of([]), shape_of([[], []])
        ((), (0,), (2, 0))
    """
    if not isinstance(data, (list, tuple)):
        return ()
    shapes = [shape_of(item) for item in data]
    for other in shapes[1:]:
        if other != shapes[0]:
            raise ValueError(f"ragged nested list: items of shapes {shapes[0]} and {other}")
    return (len(data),) + (shapes[0] if shapes else ())


def dtype_of(flat):
    """The name of the dtype NumPy gives an array of these Python bools, ints and
    floats: ``"bool"``, ``"int64"`` or ``"float64"``.

    The elements are Python bools, ints and floats, and the dtype is the one type
    that holds them all: bools alone give ``"bool"``; bools and ints give
    ``"int64"``; any float makes it ``"float64"``. An empty list gives NumPy's
    default, ``"float64"``.

    Raises:
        TypeError: naming the element and its type, for anything else in the list
            (a string, None, a complex number).

    Example:
        >>> dtype_of([1, 2, 3]), dtype_of([1, 2.5]), dtype_of([True, False])
        ('int64', 'float64', 'bool')
    """
    rank = {bool: 0, int: 1, float: 2}
    for v in flat:
        if type(v) not in rank:
            raise TypeError(f"dtype_of: {v!r} (of type {type(v).__name__}) is not a bool, "
                            f"an int or a float")
    return ("bool", "int64", "float64")[max((rank[type(v)] for v in flat), default=2)]


def to_bytes(flat, dtype):
    r"""The numbers of ``flat`` as one block of bytes, laid out as NumPy lays out an
    array of ``dtype``: one slot per number, in order, each of the dtype's size
    (``"float64"`` and ``"int64"``: 8 bytes; ``"bool"``: 1), little-endian.

    Every number is stored as the dtype: in a ``"float64"`` block the int 1 takes
    the slot of 1.0. ``flat`` holds what ``dtype_of`` accepts, and ``dtype`` can
    hold all of it (``dtype_of(flat)`` does). No numbers give ``b""``. ``flat`` is
    left as it was.

    Raises:
        ValueError: naming ``dtype`` and the three dtypes it can be, for any other
            dtype, with numbers or without.

    Example:
        >>> to_bytes([1.0], "float64").hex(" ")
        '00 00 00 00 00 00 f0 3f'
        >>> to_bytes([1, 258], "int64").hex(" ")
        '01 00 00 00 00 00 00 00 02 01 00 00 00 00 00 00'
        >>> to_bytes([True, False], "bool")
        b'\x01\x00'
    """
    import struct

    formats = {"bool": "?", "int64": "q", "float64": "d"}
    if dtype not in formats:
        raise ValueError(f"to_bytes: unknown dtype {dtype!r}: it must be 'bool', 'int64' "
                         f"or 'float64'")
    return struct.pack(f"<{len(flat)}{formats[dtype]}", *flat)


def unflatten(flat, shape):
    """The nested lists of ``shape`` holding ``flat``'s numbers in reading (row-major)
    order: the inverse of ``flatten``.

    ``shape`` is a tuple of sizes; the empty shape ``()`` gives the one number
    itself. The result is new: it shares no list with ``flat``, and ``flat`` is
    left as it was.

    Raises:
        ValueError: naming the length of ``flat`` and the shape, if ``flat`` does not
            have exactly as many numbers as the shape holds.

    Example:
        >>> unflatten([1, 2, 3, 4, 5, 6], (2, 3))
        [[1, 2, 3], [4, 5, 6]]
        >>> unflatten([1, 2, 3, 4, 5, 6], (3, 2))
        [[1, 2], [3, 4], [5, 6]]
        >>> unflatten([7], ())
        7
    """
    n = 1
    for d in shape:
        n *= d
    if len(flat) != n:
        raise ValueError(f"unflatten: {len(flat)} numbers cannot fill shape {tuple(shape)} "
                         f"({n} elements)")
    if not shape:
        return flat[0]
    step = n // shape[0] if shape[0] else 0
    return [unflatten(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


__all__ = ['flatten', 'shape_of', 'dtype_of', 'to_bytes', 'unflatten']
