"""Elementwise functions: NumPy broadcasting, NumPy 2 dtype promotion, IEEE results.

Every binary function takes two arrays, or an array and a Python scalar on
either side, broadcasts them (``layout.broadcast_shapes``) and returns a new
contiguous array. Floating results follow IEEE 754 as NumPy does: ``1/0`` is
``inf``, ``log(0)`` is ``-inf``, ``sqrt(-1)`` is ``nan``, no exceptions.

The values of the unary and binary functions are computed by lesson 03's kernels,
called through the module (``layout.map_unary(op, view)``,
``layout.map_binary(op, view1, view2)``) on the operands' own ``(storage, shape,
strides, offset)``; what is around them is this module's: dtypes (promotion,
casting the results), broadcasting (an operand that broadcasting stretches, or a
scalar, becomes a list of its own of the result's shape: ``map_binary`` takes two
views of one shape) and the IEEE fallbacks. ``where``, of three operands, gathers
them itself.
"""

from __future__ import annotations

import builtins
import math
import operator

from . import layout
from ._core import StridedArray, cast_values, from_values, from_zero, gather, values
from ._dtypes import DType, bool_, float64, scalar_dtype
from ._dtypes import result_type as _result_type

__all__ = [
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow",
    "negative", "positive", "abs", "sign", "square", "sqrt", "exp", "expm1", "log",
    "log1p", "log2", "log10", "sin", "cos", "tanh", "floor", "ceil", "trunc",
    "maximum", "minimum", "clip", "where",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_invert",
    "isnan", "isinf", "isfinite",
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "atan2", "cosh", "sinh", "tan",
    "hypot", "logaddexp", "copysign", "signbit", "round",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "conj", "real", "imag",
]

_SCALARS = (bool, int, float)
_INF = math.inf
_NAN = math.nan


# ----------------------------------------------------------------- machinery


def _kind_of(x) -> str:
    if isinstance(x, StridedArray):
        return x.dtype.kind
    return "b" if isinstance(x, bool) else "i" if isinstance(x, int) else "f"


def _check_operands(name: str, x1, x2) -> None:
    for x in (x1, x2):
        if not isinstance(x, (StridedArray,) + _SCALARS):
            raise TypeError(
                f"{name}: operands must be StridedArrays or Python scalars, "
                f"got {type(x).__name__}"
            )
    if not isinstance(x1, StridedArray) and not isinstance(x2, StridedArray):
        raise TypeError(f"{name}: at least one operand must be a StridedArray, got two scalars")


def _operand_dtype(x1, x2) -> DType:
    if isinstance(x1, StridedArray):
        if isinstance(x2, StridedArray):
            return _result_type(x1.dtype, x2.dtype)
        return scalar_dtype(x1.dtype, x2)
    return scalar_dtype(x2.dtype, x1)


def _view(x: StridedArray) -> tuple:
    """``x`` as lesson 03's view, ``(storage, shape, strides, offset)``: no copy."""
    return (x._storage, x._shape, x._strides, x._offset)


def _operands(x1, x2):
    """Two operands broadcast -> ``(run, shape)``: ``run(f)`` applies ``f`` to each pair
    of elements and returns the result's row-major values.

    Arrays of one shape, or a stretch that only repeats (over new leading axes, or a
    single value; a scalar operand too), are two views of the one shape for lesson
    03's ``map_binary`` (the stretched one gathered, or the scalar repeated, into a
    contiguous list of its own). An array stretched along an inner axis is read
    through its broadcast strides by lesson 04's ``broadcast_binary``, both operands
    from position 0 (:func:`from_zero`).
    """
    if isinstance(x1, StridedArray) and isinstance(x2, StridedArray):
        if x1._shape == x2._shape:
            a, b, shape = _view(x1), _view(x2), x1._shape
        else:
            shape = layout.broadcast_shapes(x1._shape, x2._shape)

            def repeats(x: StridedArray) -> bool:  # what gather() does without strides
                return x._shape == shape or x._size == 1 or shape[len(shape) - x.ndim:] == x._shape

            if not (repeats(x1) and repeats(x2)):
                (xs, xst), (ys, yst) = from_zero(x1), from_zero(x2)
                xst = layout.broadcast_strides(x1._shape, xst, shape)
                yst = layout.broadcast_strides(x2._shape, yst, shape)
                return (lambda f: layout.broadcast_binary(f, xs, xst, ys, yst, shape)), shape
            row_major = layout.contiguous_strides(shape)
            a, b = (_view(x) if x._shape == shape else (gather(x, shape), shape, row_major, 0)
                    for x in (x1, x2))
    elif isinstance(x1, StridedArray):
        a, b, shape = _view(x1), _filled(x2, x1), x1._shape
    else:
        a, b, shape = _filled(x1, x2), _view(x2), x2._shape
    return (lambda f: layout.map_binary(f, a, b)), shape


def _filled(value, like: StridedArray) -> tuple:
    """A contiguous view of ``like``'s shape whose every element is the scalar ``value``."""
    shape = like._shape
    return ([value] * like._size, shape, layout.contiguous_strides(shape), 0)


def _binary(name: str, x1, x2, op, safe=None, out_dtype=None, natural=False) -> StridedArray:
    """Apply ``op`` to broadcast pairs; ``natural``: op's Python results already have the dtype."""
    _check_operands(name, x1, x2)
    dtype = _operand_dtype(x1, x2) if out_dtype is None else out_dtype
    run, shape = _operands(x1, x2)
    try:
        out = run(op)
    except (ZeroDivisionError, OverflowError, ValueError):
        if safe is None:
            raise
        out = run(safe)
    if not natural and (_kind_of(x1) != dtype.kind or _kind_of(x2) != dtype.kind):
        out = cast_values(out, dtype)
    return from_values(out, shape, dtype)


def _require_array(name: str, x) -> StridedArray:
    if not isinstance(x, StridedArray):
        raise TypeError(f"{name}: expected a StridedArray, got {type(x).__name__}")
    return x


def _unary(name: str, x, op, safe=None, to_float=False, out_dtype=None) -> StridedArray:
    _require_array(name, x)
    dtype = out_dtype or (x.dtype if not to_float or x.dtype.kind == "f" else float64)
    view = _view(x)
    try:
        out = layout.map_unary(op, view)
    except (ZeroDivisionError, OverflowError, ValueError):
        if safe is None:
            raise
        out = layout.map_unary(safe, view)
    if to_float and x.dtype.kind != "f":
        out = cast_values(out, dtype)
    return from_values(out, x.shape, dtype)


# ------------------------------------------------------------------ IEEE helpers


def _safe_div(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or a != a:
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)


def _safe_pow(a, b):
    try:
        return math.pow(a, b)
    except OverflowError:
        odd = float(b).is_integer() and int(b) % 2 == 1
        return -_INF if (a < 0 and odd) else _INF
    except ValueError:
        if a == 0:  # 0 ** negative
            odd = float(b).is_integer() and int(b) % 2 == 1
            return math.copysign(_INF, a) if odd else _INF
        return _NAN  # negative ** non-integer


def _safe_exp(v):
    try:
        return math.exp(v)
    except OverflowError:
        return _INF


def _safe_expm1(v):
    try:
        return math.expm1(v)
    except OverflowError:
        return _INF


def _log_domain(fn):
    def safe(v):
        try:
            return fn(v)
        except ValueError:
            return -_INF if v == 0 else _NAN

    return safe


def _log1p_safe(v):
    try:
        return math.log1p(v)
    except ValueError:
        return -_INF if v == -1 else _NAN


def _sqrt_safe(v):
    try:
        return math.sqrt(v)
    except ValueError:
        return _NAN


def _trig_safe(fn):
    def safe(v):
        try:
            return fn(v)
        except ValueError:  # sin(inf)
            return _NAN

    return safe


def _round_safe(fn):
    def safe(v):
        try:
            return math.copysign(float(fn(v)), v)
        except (OverflowError, ValueError):  # inf, nan stay as they are
            return v

    return safe


def _domain_safe(fn, edges):
    """``fn`` with IEEE results instead of exceptions: ``edges`` maps a point to its
    limit (``atanh(1) = inf``), any other domain error is nan, an overflow is inf
    with the sign of the argument (``sinh``) or +inf (``cosh``, ``exp``)."""

    def safe(v):
        try:
            return fn(v)
        except ValueError:
            return edges.get(v, _NAN)
        except OverflowError:
            return edges.get("overflow", math.copysign(_INF, v))

    return safe


def _floordiv_safe(a, b):
    try:
        return a // b
    except ZeroDivisionError:
        if isinstance(a, float) or isinstance(b, float):
            return _safe_div(a, b)
        return 0  # NumPy: integer division by zero gives 0


def _mod_safe(a, b):
    try:
        return a % b
    except ZeroDivisionError:
        if isinstance(a, float) or isinstance(b, float):
            return _NAN
        return 0


def _max2(a, b):
    return a if a >= b or a != a else b


def _min2(a, b):
    return a if a <= b or a != a else b


# --------------------------------------------------------------- arithmetic


def add(x1, x2, /) -> StridedArray:
    """``x1 + x2`` elementwise. Broadcast shapes -> broadcast shape; bool + bool is ``or``."""
    if _operand_dtype_checked("add", x1, x2) == bool_:
        return _binary("add", x1, x2, operator.or_)
    return _binary("add", x1, x2, operator.add)


def subtract(x1, x2, /) -> StridedArray:
    """``x1 - x2`` elementwise. Broadcast shapes -> broadcast shape."""
    if _operand_dtype_checked("subtract", x1, x2) == bool_:
        raise TypeError("subtract: boolean subtraction is not supported; use logical_xor")
    return _binary("subtract", x1, x2, operator.sub)


def multiply(x1, x2, /) -> StridedArray:
    """``x1 * x2`` elementwise. Broadcast shapes -> broadcast shape; bool * bool is ``and``."""
    if _operand_dtype_checked("multiply", x1, x2) == bool_:
        return _binary("multiply", x1, x2, operator.and_)
    return _binary("multiply", x1, x2, operator.mul)


def divide(x1, x2, /) -> StridedArray:
    """``x1 / x2`` (true division) elementwise. Integer inputs give float64; ``1/0 = inf``."""
    dtype = _operand_dtype_checked("divide", x1, x2)
    out = float64 if dtype.kind != "f" else dtype
    return _binary("divide", x1, x2, operator.truediv, safe=_safe_div, out_dtype=out, natural=True)


def floor_divide(x1, x2, /) -> StridedArray:
    """``x1 // x2`` elementwise (rounds toward -inf). Integer division by 0 gives 0, as in NumPy."""
    dtype = _operand_dtype_checked("floor_divide", x1, x2)
    if dtype == bool_:
        dtype = _result_type(dtype, "int64")
    return _binary("floor_divide", x1, x2, operator.floordiv, safe=_floordiv_safe, out_dtype=dtype)


def remainder(x1, x2, /) -> StridedArray:
    """``x1 % x2`` elementwise, with the sign of ``x2`` (Python's and NumPy's rule)."""
    dtype = _operand_dtype_checked("remainder", x1, x2)
    if dtype == bool_:
        dtype = _result_type(dtype, "int64")
    return _binary("remainder", x1, x2, operator.mod, safe=_mod_safe, out_dtype=dtype)


def pow(x1, x2, /) -> StridedArray:
    """``x1 ** x2`` elementwise. Integer arrays cannot take negative integer powers, and
    integer results wrap around in the dtype's bit width (``int8`` 2 ** 7 is -128)."""
    dtype = _operand_dtype_checked("pow", x1, x2)
    if dtype.kind == "f":
        return _binary("pow", x1, x2, math.pow, safe=_safe_pow, natural=True)
    if dtype == bool_:
        dtype = _result_type(dtype, "int64")
    exponents = values(x2) if isinstance(x2, StridedArray) else [x2]
    if any(e < 0 for e in exponents):
        raise ValueError("pow: integers to negative integer powers are not allowed")
    # in the dtype's bit width, as fixed-width ints compute it: 3 ** (2**62) would
    # otherwise be a Python int too large to build
    modulus = 1 << (8 * dtype.itemsize)
    top = modulus >> 1 if dtype.kind == "i" else 0

    def int_pow(a, b):
        v = builtins.pow(a, b, modulus)
        return v - (v & top) * 2

    return _binary("pow", x1, x2, int_pow, out_dtype=dtype)


def _operand_dtype_checked(name, x1, x2) -> DType:
    _check_operands(name, x1, x2)
    return _operand_dtype(x1, x2)


def negative(x, /) -> StridedArray:
    """``-x`` elementwise. Same shape and dtype (not defined for bool)."""
    _require_array("negative", x)
    if x.dtype == bool_:
        raise TypeError("negative: the boolean negative is not supported; use logical_not")
    return _unary("negative", x, operator.neg)


def positive(x, /) -> StridedArray:
    """``+x``: a copy. Same shape and dtype."""
    return _unary("positive", x, operator.pos, out_dtype=_require_array("positive", x).dtype)


def abs(x, /) -> StridedArray:
    """``|x|`` elementwise. Same shape and dtype."""
    return _unary("abs", x, builtins.abs)


def sign(x, /) -> StridedArray:
    """-1, 0 or +1 by the sign of each element (nan stays nan). Same shape and dtype."""
    _require_array("sign", x)
    if x.dtype.kind == "f":
        return _unary("sign", x, lambda v: v if v != v else float((v > 0) - (v < 0)))
    return _unary("sign", x, lambda v: (v > 0) - (v < 0), out_dtype=x.dtype)


def square(x, /) -> StridedArray:
    """``x * x`` elementwise. Same shape and dtype."""
    _require_array("square", x)
    if x.dtype == bool_:
        return _unary("square", x, bool)
    return _unary("square", x, lambda v: v * v)


def sqrt(x, /) -> StridedArray:
    """Square root elementwise (``nan`` for negatives). Same shape, floating dtype."""
    return _unary("sqrt", x, math.sqrt, safe=_sqrt_safe, to_float=True)


def exp(x, /) -> StridedArray:
    """``e ** x`` elementwise (``inf`` on overflow). Same shape, floating dtype."""
    return _unary("exp", x, math.exp, safe=_safe_exp, to_float=True)


def expm1(x, /) -> StridedArray:
    """``e ** x - 1`` elementwise, accurate near 0. Same shape, floating dtype."""
    return _unary("expm1", x, math.expm1, safe=_safe_expm1, to_float=True)


def log(x, /) -> StridedArray:
    """Natural log elementwise (``-inf`` at 0, ``nan`` below). Same shape, floating dtype."""
    return _unary("log", x, math.log, safe=_log_domain(math.log), to_float=True)


def log1p(x, /) -> StridedArray:
    """``log(1 + x)`` elementwise, accurate near 0. Same shape, floating dtype."""
    return _unary("log1p", x, math.log1p, safe=_log1p_safe, to_float=True)


def log2(x, /) -> StridedArray:
    """Base-2 log elementwise. Same shape, floating dtype."""
    return _unary("log2", x, math.log2, safe=_log_domain(math.log2), to_float=True)


def log10(x, /) -> StridedArray:
    """Base-10 log elementwise. Same shape, floating dtype."""
    return _unary("log10", x, math.log10, safe=_log_domain(math.log10), to_float=True)


def sin(x, /) -> StridedArray:
    """Sine elementwise. Same shape, floating dtype."""
    return _unary("sin", x, math.sin, safe=_trig_safe(math.sin), to_float=True)


def cos(x, /) -> StridedArray:
    """Cosine elementwise. Same shape, floating dtype."""
    return _unary("cos", x, math.cos, safe=_trig_safe(math.cos), to_float=True)


def tanh(x, /) -> StridedArray:
    """Hyperbolic tangent elementwise. Same shape, floating dtype."""
    return _unary("tanh", x, math.tanh, to_float=True)


def _float_unary(name, fn, edges=None, doc=""):
    safe = _domain_safe(fn, edges or {})

    def unary(x, /) -> StridedArray:
        return _unary(name, x, fn, safe=safe, to_float=True)

    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = f"{doc} elementwise (IEEE special cases, no exceptions). Same shape, floating dtype."
    return unary


tan = _float_unary("tan", math.tan, doc="Tangent")
acos = _float_unary("acos", math.acos, doc="Inverse cosine")
asin = _float_unary("asin", math.asin, doc="Inverse sine")
atan = _float_unary("atan", math.atan, doc="Inverse tangent")
cosh = _float_unary("cosh", math.cosh, {"overflow": _INF}, doc="Hyperbolic cosine")
sinh = _float_unary("sinh", math.sinh, doc="Hyperbolic sine")
acosh = _float_unary("acosh", math.acosh, doc="Inverse hyperbolic cosine")
asinh = _float_unary("asinh", math.asinh, doc="Inverse hyperbolic sine")
atanh = _float_unary("atanh", math.atanh, {1.0: _INF, -1.0: -_INF},
                     doc="Inverse hyperbolic tangent")


def _float_binary(name, x1, x2, op, safe=None) -> StridedArray:
    """A binary function whose result is floating (ints promote to float64)."""
    dtype = _operand_dtype_checked(name, x1, x2)
    out = dtype if dtype.kind == "f" else float64
    return _binary(name, x1, x2, op, safe=safe, out_dtype=out, natural=True)


def atan2(x1, x2, /) -> StridedArray:
    """Angle of the point ``(x2, x1)``, in ``[-pi, pi]`` (C99's special cases). Broadcast shapes."""
    return _float_binary("atan2", x1, x2, lambda a, b: math.atan2(float(a), float(b)))


def _hypot_safe(a, b):
    try:
        return math.hypot(a, b)
    except OverflowError:
        return _INF


def hypot(x1, x2, /) -> StridedArray:
    """``sqrt(x1**2 + x2**2)`` without overflow in the squares (``inf`` beats ``nan``)."""
    return _float_binary("hypot", x1, x2, _hypot_safe)


def _logaddexp(a, b):
    if a != a or b != b:
        return _NAN
    if a == b:  # also +-inf with itself, where a - b would be nan
        return a + math.log(2.0) if builtins.abs(a) != _INF else float(a)
    hi, lo = (a, b) if a > b else (b, a)
    if hi == _INF:
        return _INF
    return hi + math.log1p(math.exp(lo - hi))


def logaddexp(x1, x2, /) -> StridedArray:
    """``log(exp(x1) + exp(x2))`` without overflow. Broadcast shapes -> broadcast shape."""
    return _float_binary("logaddexp", x1, x2, _logaddexp)


def copysign(x1, x2, /) -> StridedArray:
    """``|x1|`` with the sign bit of ``x2`` (also of -0.0 and nan). Broadcast shapes."""
    return _float_binary("copysign", x1, x2, lambda a, b: math.copysign(a, b))


def signbit(x, /) -> StridedArray:
    """Whether the sign bit is set (true for -0.0 and negative values). Same shape, bool."""
    _require_array("signbit", x)
    if x.dtype.kind != "f":
        return _unary("signbit", x, lambda v: v < 0, out_dtype=bool_)
    return _unary("signbit", x, lambda v: math.copysign(1.0, v) < 0, out_dtype=bool_)


def _rounding(name, fn):
    def rounded(x, /) -> StridedArray:
        _require_array(name, x)
        if x.dtype.kind != "f":
            return _unary(name, x, operator.pos, out_dtype=x.dtype)
        # copysign keeps the sign of zero: floor(-0.0) and ceil(-0.5) are -0.0
        return _unary(name, x, lambda v: math.copysign(float(fn(v)), v), safe=_round_safe(fn))

    rounded.__name__ = rounded.__qualname__ = name
    rounded.__doc__ = f"``{name}`` of each element (integers unchanged). Same shape and dtype."
    return rounded


floor = _rounding("floor", math.floor)
ceil = _rounding("ceil", math.ceil)
trunc = _rounding("trunc", math.trunc)
round = _rounding("round", builtins.round)  # noqa: A001  (the Array API name; halves to even)


def maximum(x1, x2, /) -> StridedArray:
    """Larger of each pair, ``nan`` if either is ``nan``. Broadcast shapes -> broadcast shape."""
    return _binary("maximum", x1, x2, _max2)


def minimum(x1, x2, /) -> StridedArray:
    """Smaller of each pair, ``nan`` if either is ``nan``. Broadcast shapes -> broadcast shape."""
    return _binary("minimum", x1, x2, _min2)


def _clip_low(v, m):
    return m if v < m or m != m else v


def _clip_high(v, m):
    return m if v > m or m != m else v


def clip(x, /, min=None, max=None) -> StridedArray:
    """Clamp each element to ``[min, max]`` (scalars or arrays). Result keeps ``x``'s dtype.

    Shape contract: ``x``, ``min`` and ``max`` broadcast together (the result may
    be larger than ``x``, as in API 2023.12). A nan bound gives nan.
    """
    _require_array("clip", x)
    out = x
    if min is not None:
        out = _binary("clip", out, min, _clip_low, out_dtype=x.dtype)
    if max is not None:
        out = _binary("clip", out, max, _clip_high, out_dtype=x.dtype)
    if out is x:
        return from_values(values(x), x.shape, x.dtype)
    return out


def where(condition, x1, x2, /) -> StridedArray:
    """``x1`` where ``condition`` is true, else ``x2``. Three shapes broadcast -> one shape."""
    _require_array("where", condition)
    for x in (x1, x2):
        if not isinstance(x, (StridedArray,) + _SCALARS):
            raise TypeError(
                f"where: x1 and x2 must be StridedArrays or scalars, got {type(x).__name__}"
            )
    if isinstance(x1, StridedArray) or isinstance(x2, StridedArray):
        dtype = _operand_dtype(x1, x2)
    else:
        dtype = _result_type(x1, x2)
    shapes = [condition.shape] + [x.shape for x in (x1, x2) if isinstance(x, StridedArray)]
    shape = layout.broadcast_shapes(*shapes)
    n = layout.numel(shape)
    c = gather(condition, shape)
    a = gather(x1, shape) if isinstance(x1, StridedArray) else [x1] * n
    b = gather(x2, shape) if isinstance(x2, StridedArray) else [x2] * n
    out = [u if t else v for t, u, v in zip(c, a, b)]
    if _kind_of(x1) != dtype.kind or _kind_of(x2) != dtype.kind:
        out = cast_values(out, dtype)
    return from_values(out, shape, dtype)


# -------------------------------------------------------------- comparisons


def _compare(name, op):
    def compare(x1, x2, /) -> StridedArray:
        _check_operands(name, x1, x2)
        return _binary(name, x1, x2, op, out_dtype=bool_, natural=True)

    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = (
        f"``{name}`` elementwise. Broadcast shapes -> broadcast shape, dtype bool."
    )
    return compare


equal = _compare("equal", operator.eq)
not_equal = _compare("not_equal", operator.ne)
less = _compare("less", operator.lt)
less_equal = _compare("less_equal", operator.le)
greater = _compare("greater", operator.gt)
greater_equal = _compare("greater_equal", operator.ge)


def _logical(name, op):
    def logical(x1, x2, /) -> StridedArray:
        _check_operands(name, x1, x2)
        return _binary(name, x1, x2, lambda a, b: op(bool(a), bool(b)), out_dtype=bool_,
                       natural=True)

    logical.__name__ = logical.__qualname__ = name
    logical.__doc__ = f"``{name}`` of the truth values. Broadcast shapes -> broadcast shape, bool."
    return logical


logical_and = _logical("logical_and", operator.and_)
logical_or = _logical("logical_or", operator.or_)
logical_xor = _logical("logical_xor", operator.xor)


def logical_not(x, /) -> StridedArray:
    """``not x`` elementwise. Same shape, dtype bool."""
    return _unary("logical_not", x, operator.not_, out_dtype=bool_)


def bitwise_invert(x, /) -> StridedArray:
    """``~x`` for integer arrays (``not`` for bool). Same shape and dtype.

    Unsigned ints flip their ``8 * itemsize`` bits (``~uint8(1) == 254``).
    """
    _require_array("bitwise_invert", x)
    if x.dtype == bool_:
        return logical_not(x)
    if x.dtype.kind == "u":
        mask = (1 << (8 * x.dtype.itemsize)) - 1
        return _unary("bitwise_invert", x, mask.__xor__)
    if x.dtype.kind != "i":
        raise TypeError(f"bitwise_invert: needs an integer or bool array, got {x.dtype}")
    return _unary("bitwise_invert", x, operator.invert)


def _bitwise_dtype(name, x1, x2, allow_bool=True) -> DType:
    dtype = _operand_dtype_checked(name, x1, x2)
    kinds = "iub" if allow_bool else "iu"
    if dtype.kind not in kinds or _kind_of(x1) not in kinds or _kind_of(x2) not in kinds:
        raise TypeError(
            f"{name}: needs integer{' or bool' if allow_bool else ''} operands, got "
            f"{getattr(x1, 'dtype', type(x1).__name__)} and "
            f"{getattr(x2, 'dtype', type(x2).__name__)}"
        )
    return dtype


def _bitwise(name, op):
    def bitwise(x1, x2, /) -> StridedArray:
        return _binary(name, x1, x2, op, out_dtype=_bitwise_dtype(name, x1, x2))

    bitwise.__name__ = bitwise.__qualname__ = name
    bitwise.__doc__ = (
        f"``{name}`` of integer (or bool) operands, bit by bit. Broadcast shapes -> "
        f"broadcast shape, promoted dtype."
    )
    return bitwise


bitwise_and = _bitwise("bitwise_and", operator.and_)
bitwise_or = _bitwise("bitwise_or", operator.or_)
bitwise_xor = _bitwise("bitwise_xor", operator.xor)


def _shift(name, op, x1, x2) -> StridedArray:
    dtype = _bitwise_dtype(name, x1, x2, allow_bool=False)
    bits = 8 * dtype.itemsize
    counts = values(x2) if isinstance(x2, StridedArray) else [x2]
    if builtins.any(c < 0 for c in counts):
        raise ValueError(f"{name}: shift counts must be non-negative, got {builtins.min(counts)}")
    if op is operator.lshift:
        # bits shifted past the width are lost, as in a fixed-width int (and 1 << 10**9
        # does not build a huge Python int)
        mask = (1 << bits) - 1
        top = 1 << (bits - 1) if dtype.kind == "i" else 0

        def lshift(a, b):
            if b >= bits:
                return 0
            v = (a << b) & mask
            return v - (v & top) * 2  # two's complement for signed ints

        return _binary(name, x1, x2, lshift, out_dtype=dtype)
    return _binary(name, x1, x2, op, out_dtype=dtype)


def bitwise_left_shift(x1, x2, /) -> StridedArray:
    """``x1 << x2`` for integers (``x2 >= 0``), in the dtype's bit width: bits shifted out are lost."""
    return _shift("bitwise_left_shift", operator.lshift, x1, x2)


def bitwise_right_shift(x1, x2, /) -> StridedArray:
    """``x1 >> x2`` for integers (``x2 >= 0``; arithmetic shift for signed)."""
    return _shift("bitwise_right_shift", operator.rshift, x1, x2)


def isnan(x, /) -> StridedArray:
    """Whether each element is ``nan``. Same shape, dtype bool."""
    return _unary("isnan", x, lambda v: v != v, out_dtype=bool_)


def isinf(x, /) -> StridedArray:
    """Whether each element is ``+inf`` or ``-inf``. Same shape, dtype bool."""
    return _unary("isinf", x, lambda v: v == _INF or v == -_INF, out_dtype=bool_)


def isfinite(x, /) -> StridedArray:
    """Whether each element is neither ``inf`` nor ``nan``. Same shape, dtype bool."""
    return _unary("isfinite", x, lambda v: v - v == 0, out_dtype=bool_)


# The namespace has no complex dtypes: on real arrays these are the identity and
# zeros, as API 2024.12 defines them for real input.


def conj(x, /) -> StridedArray:
    """Complex conjugate: a copy of a real ``x``. Same shape and dtype."""
    return _unary("conj", x, operator.pos, out_dtype=_require_array("conj", x).dtype)


def real(x, /) -> StridedArray:
    """Real part: a copy of a real ``x``. Same shape and dtype."""
    return _unary("real", x, operator.pos, out_dtype=_require_array("real", x).dtype)


def imag(x, /) -> StridedArray:
    """Imaginary part: zeros for a real ``x``. Same shape and dtype."""
    _require_array("imag", x)
    return from_values([x.dtype.type(0)] * x.size, x.shape, x.dtype)
