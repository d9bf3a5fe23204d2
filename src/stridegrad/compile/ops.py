"""What each IR op means: one evaluation rule per op name, on a real array namespace.

The tracer records ops under the name of what the Tensor code called: an operator
on an array (``a * b`` is ``multiply``, ``a.mT`` is ``mT``, ``a[k]`` is
``getitem``) or a namespace function (``xp.exp``, ``xp.sum(axis=...)``). Replaying
an op calls the very same thing on the real arrays, so a compiled graph computes
what eager mode computed, op for op, on every backend.

Elementwise ops (same-shape in, broadcast shape out, no mixing of positions) are
the ones :func:`~stridegrad.compile.passes.fuse_elementwise` may merge.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["BINARY", "COMPARISONS", "ELEMENTWISE", "UNARY", "evaluate", "is_array", "symbol"]

# operators on arrays: name -> Python operator (what eager mode applied)
BINARY: dict[str, Callable] = {
    "add": operator.add,
    "subtract": operator.sub,
    "multiply": operator.mul,
    "divide": operator.truediv,
    "pow": operator.pow,
    "matmul": operator.matmul,
}
COMPARISONS: dict[str, Callable] = {
    "equal": operator.eq,
    "not_equal": operator.ne,
    "less": operator.lt,
    "less_equal": operator.le,
    "greater": operator.gt,
    "greater_equal": operator.ge,
}
UNARY_OPERATORS: dict[str, Callable] = {
    "negative": operator.neg,
    "positive": operator.pos,
    "absolute": operator.abs,
}
# namespace functions that act element by element
UNARY = ("exp", "log", "sqrt", "abs", "tanh", "sign", "square")
ELEMENTWISE = frozenset(
    [*(k for k in BINARY if k != "matmul"), *COMPARISONS, *UNARY_OPERATORS, *UNARY,
     "maximum", "minimum", "astype"]
)

_SYMBOLS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "pow": "**",
            "matmul": "@", "equal": "==", "not_equal": "!=", "less": "<",
            "less_equal": "<=", "greater": ">", "greater_equal": ">="}


def symbol(op: str) -> str | None:
    """The infix symbol of a binary op (``multiply`` -> ``*``), or None."""
    return _SYMBOLS.get(op)


def is_array(x: Any) -> bool:
    """An array of some namespace (NumPy, CuPy, stridegrad.array), NumPy scalars included."""
    if isinstance(x, np.generic):  # np.float64 is also a Python float
        return True
    if isinstance(x, (bool, int, float, complex, str, type, np.dtype)) or x is None:
        return False
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _functional_setitem(xp, a, key, value):
    out = xp.asarray(a, copy=True)
    out[key] = value
    return out


def evaluate(op: str, xp: Any, args: tuple, attrs: dict) -> Any:
    """Run one op on real arrays of namespace ``xp`` (``args`` are arrays or literals)."""
    fn = BINARY.get(op) or COMPARISONS.get(op)
    if fn is not None:
        return fn(*args)
    fn = UNARY_OPERATORS.get(op)
    if fn is not None:
        return fn(args[0])
    if op == "getitem":
        return args[0][attrs["key"]]
    if op == "setitem":
        return _functional_setitem(xp, args[0], attrs["key"], args[1])
    if op == "mT":
        return args[0].mT
    if op == "T":
        return args[0].T
    if op == "fused":
        from stridegrad.compile import kernels

        return kernels.run_fused(xp, attrs["program"], args)
    return getattr(xp, op)(*args, **attrs)
