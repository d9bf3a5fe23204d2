"""stridegrad.array: the pure-Python strided array, and its Array API namespace.

A ``StridedArray`` is a flat Python list (``storage``) seen through ``shape``,
``strides`` and ``offset`` (both counted in elements). Views share the storage;
computations return new contiguous arrays. This module is itself the array
namespace (``x.__array_namespace__()`` returns it), so code written against the
Python Array API standard runs on it as it runs on NumPy:

    >>> import stridegrad.array as sa
    >>> x = sa.reshape(sa.arange(6), (2, 3))
    >>> x.T.strides, sa.sum(x, axis=0).tolist()
    ((1, 3), [3, 5, 7])

``stridegrad.array.layout`` holds the pure index arithmetic behind it all.
Dtypes are labels over Python numbers: ``float32`` is *not* rounded to single
precision (see ``stridegrad.array._dtypes``).

Array API conformance
---------------------
The namespace implements every core function, operator and dtype of API
``2023.12`` (``__array_api_version__``) except the complex dtypes; the
``linalg`` and ``fft`` extensions are absent. ``conformance/run.py`` runs the
standard's own test suite against it. Where pure Python cannot do what the
standard asks, the difference is named here and nowhere silent:

* **No complex dtypes.** ``complex64``/``complex128`` do not exist; ``conj``,
  ``real`` and ``imag`` accept real arrays (identity, identity, zeros), as API
  2024.12 defines them.
* **float32 is not rounded.** Values are Python floats (double precision)
  whatever the label; ``float32`` results are more precise than a float32
  library's and do not overflow to ``inf`` at ``finfo(float32).max``.
* **Integers do not wrap in arithmetic.** Python ints are exact: ``int8``
  127 + 1 is 128, not -128, and values stay outside ``iinfo(dtype)`` until
  converted; ``__array__`` (NumPy conversion) wraps them modulo ``2**bits``,
  as a fixed-width array would hold them. Integer ``pow`` and
  ``bitwise_left_shift`` do work in the dtype's width, since their exact
  Python results can be too large to build (``int8`` 2 ** 7 is -128, 64 << 1
  is -128); ``bitwise_invert`` of ``uint8`` 1 is 254.
* **No DLPack.** The storage is a Python list, not a buffer: ``from_dlpack``
  and ``x.__dlpack__()`` raise ``BufferError`` (convert with ``asarray`` or
  ``numpy.asarray``, which copy).
* **One device**, ``"python"``; any other device is a ValueError.
* Negative shift counts are a ValueError (the standard leaves them undefined).
"""

from __future__ import annotations

import math as _math

from . import layout
from ._core import AxisError, StridedArray
from ._creation import (
    arange,
    asarray,
    astype,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tril,
    triu,
    zeros,
    zeros_like,
)
from ._dtypes import (
    DType,
    can_cast,
    finfo,
    float32,
    float64,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    isdtype,
    result_type,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._dtypes import bool_ as bool  # noqa: A001  (the Array API name of the dtype)
from ._elementwise import (
    abs,  # noqa: A004
    acos,
    acosh,
    add,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    ceil,
    clip,
    conj,
    copysign,
    cos,
    cosh,
    divide,
    equal,
    exp,
    expm1,
    floor,
    floor_divide,
    greater,
    greater_equal,
    hypot,
    imag,
    isfinite,
    isinf,
    isnan,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    positive,
    pow,  # noqa: A004
    real,
    remainder,
    round,  # noqa: A004
    sign,
    signbit,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    trunc,
    where,
)
from ._info import __array_namespace_info__
from ._linalg import matmul, tensordot, vecdot
from ._manipulation import (
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    concat,
    expand_dims,
    flip,
    matrix_transpose,
    moveaxis,
    permute_dims,
    repeat,
    reshape,
    roll,
    squeeze,
    stack,
    take,
    tile,
    unstack,
)
from ._windows import as_strided, sliding_window_view
from ._reductions import (
    all,  # noqa: A004
    any,  # noqa: A004
    argmax,
    argmin,
    cumulative_sum,
    max,  # noqa: A004
    mean,
    min,  # noqa: A004
    prod,
    std,
    sum,  # noqa: A004
    var,
)
from ._sorting import (
    argsort,
    nonzero,
    searchsorted,
    sort,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
)

__array_api_version__ = "2023.12"

e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None

__all__ = [
    # the array, its layout arithmetic, errors
    "StridedArray", "layout", "AxisError",
    # dtypes and inspection
    "DType", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "isdtype", "result_type", "can_cast", "finfo", "iinfo", "astype",
    "__array_namespace_info__",
    # constants
    "e", "inf", "nan", "pi", "newaxis",
    # creation
    "asarray", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
    "zeros_like", "ones_like", "empty_like", "full_like", "meshgrid", "tril", "triu",
    "from_dlpack",
    # views and shape manipulation
    "permute_dims", "matrix_transpose", "reshape", "broadcast_to", "broadcast_arrays",
    "broadcast_shapes", "expand_dims", "squeeze", "flip", "stack", "concat", "take",
    "moveaxis", "repeat", "roll", "tile", "unstack",
    "as_strided", "sliding_window_view",
    # elementwise
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow",
    "negative", "positive", "abs", "sign", "signbit", "copysign", "square", "sqrt",
    "exp", "expm1", "log", "log1p", "log2", "log10", "logaddexp", "hypot",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "floor", "ceil", "trunc", "round", "maximum", "minimum", "clip", "where",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert",
    "bitwise_left_shift", "bitwise_right_shift",
    "isnan", "isinf", "isfinite", "conj", "real", "imag",
    # reductions and scans
    "sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "any", "all",
    "cumulative_sum",
    # sorting, searching, sets
    "sort", "argsort", "searchsorted", "nonzero",
    "unique_all", "unique_counts", "unique_inverse", "unique_values",
    # linear algebra
    "matmul", "vecdot", "tensordot",
]
