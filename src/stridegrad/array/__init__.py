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
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from ._dtypes import (
    DType,
    finfo,
    float32,
    float64,
    iinfo,
    int64,
    isdtype,
    result_type,
)
from ._dtypes import bool_ as bool  # noqa: A001  (the Array API name of the dtype)
from ._elementwise import (
    abs,  # noqa: A004
    add,
    bitwise_invert,
    ceil,
    clip,
    cos,
    divide,
    equal,
    exp,
    expm1,
    floor,
    floor_divide,
    greater,
    greater_equal,
    isfinite,
    isinf,
    isnan,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
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
    remainder,
    sign,
    sin,
    sqrt,
    square,
    subtract,
    tanh,
    trunc,
    where,
)
from ._linalg import matmul, vecdot
from ._manipulation import (
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    concat,
    expand_dims,
    flip,
    matrix_transpose,
    permute_dims,
    reshape,
    squeeze,
    stack,
    take,
)
from ._reductions import (
    all,  # noqa: A004
    any,  # noqa: A004
    argmax,
    argmin,
    max,  # noqa: A004
    mean,
    min,  # noqa: A004
    prod,
    std,
    sum,  # noqa: A004
    var,
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
    # dtypes
    "DType", "bool", "int64", "float32", "float64",
    "isdtype", "result_type", "finfo", "iinfo", "astype",
    # constants
    "e", "inf", "nan", "pi", "newaxis",
    # creation
    "asarray", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
    "zeros_like", "ones_like", "empty_like", "full_like",
    # views and shape manipulation
    "permute_dims", "matrix_transpose", "reshape", "broadcast_to", "broadcast_arrays",
    "broadcast_shapes", "expand_dims", "squeeze", "flip", "stack", "concat", "take",
    # elementwise
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow",
    "negative", "positive", "abs", "sign", "square", "sqrt", "exp", "expm1",
    "log", "log1p", "log2", "log10", "sin", "cos", "tanh", "floor", "ceil", "trunc",
    "maximum", "minimum", "clip", "where",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_invert",
    "isnan", "isinf", "isfinite",
    # reductions
    "sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "any", "all",
    # linear algebra
    "matmul", "vecdot",
]
