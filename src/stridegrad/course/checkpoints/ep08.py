"""Checkpoint 08 (tensor autograd): ``unbroadcast``, ``sum_backward``,
``max_backward``, ``matmul_backward`` and ``numerical_gradient``.

Every expected array is written out by hand (from the contract in the
docstring), never computed with the library, so a test cannot agree with a
wrong library. Each test needs only the function it tests.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable

import numpy as np

from hypothesis import strategies as st

from stridegrad.course.checkpoints._images import images
from stridegrad.course.checkpoints._layouts import broadcastable, call, shapes
from stridegrad.course.checks import CheckFailure, Checkpoint, raised
from stridegrad.course.checkpoints._arrays import same_array
from stridegrad.course.checkpoints._arrays import show as _show

__all__ = ["call_text", "checkpoint", "expect_array", "same_array"]

checkpoint = Checkpoint("08_tensor_autograd", "tensor autograd",
                        reference="stridegrad.tensor.rules",
                        # numerical_gradient is the library's own: gradcheck calls it
                        library={"numerical_gradient": ("stridegrad.gradcheck.numerical_gradient",)})


# ------------------------------------------------------------------ helpers


def _values(a: np.ndarray, limit: int = 60) -> str:
    """An array's numbers as a nested list, cut between two numbers after ``limit`` characters."""
    text = repr(np.round(a.astype(float), 6).tolist())
    if len(text) <= limit:
        return text
    head = text[: limit - 4]
    return head[: head.rfind(", ") + 1] + " ..."


def call_text(fn: Callable, args: tuple, kwargs: dict) -> str:
    """``name(grad, (3, 1)) with grad of shape (3, 4) = [[0.0, 1.0, ...], ...]``.

    An array argument appears by the name the function gives it, and its shape and
    (cut) values follow after "with": the shape is the key fact of a gradient, and a
    long array cut inside the call would hide it."""
    try:
        names = [p.name for p in inspect.signature(fn).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    parts, described = [], []
    for k, a in enumerate(args):
        if isinstance(a, np.ndarray) and a.ndim:
            name = names[k] if k < len(names) else f"argument {k + 1}"
            parts.append(name)
            described.append(f"{name} of shape {a.shape} = {_values(a)}")
        elif isinstance(a, np.ndarray):  # 0-d: the number says it all
            parts.append(repr(round(float(a), 6)))
        else:
            parts.append(_show(a, 30))
    parts += [f"{k}={_show(v, 20)}" for k, v in kwargs.items()]
    text = f"{getattr(fn, '__name__', 'fn')}({', '.join(parts)})"
    return text + (" with " + ", ".join(described) if described else "")


def expect_array(fn: Callable, *args: Any, returns: Any, atol: float = 1e-6,
                 call: str | None = None, **kwargs: Any) -> Any:
    """Call ``fn`` and check that it returns ``returns`` (an array, compared with a tolerance)."""
    if call is None:
        call = call_text(fn, args, kwargs)
    try:
        got = fn(*args, **kwargs)
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise CheckFailure(call, _show(np.asarray(returns, dtype=float)),
                           raised(exc), kind="error") from exc
    same_array(call, got, returns, atol)
    return got


def _a(*rows) -> np.ndarray:
    return np.array(rows, dtype=float)


# ------------------------------------------------------------------ unbroadcast


@checkpoint.test("unbroadcast", hint="Nothing was broadcast: return the gradient as it is.")
def unbroadcast_same_shape(unbroadcast):
    expect_array(unbroadcast, _a([1, 2, 3], [4, 5, 6]), (2, 3), returns=[[1, 2, 3], [4, 5, 6]])


@checkpoint.test("unbroadcast", hint="Broadcasting added the leading axis: sum over axis 0. "
                                     "(3,) from (2, 3) gets [1+1, 1+1, 1+1].")
def unbroadcast_leading_axis(unbroadcast):
    expect_array(unbroadcast, np.ones((2, 3)), (3,), returns=[2, 2, 2])


@checkpoint.test("unbroadcast", hint="A size-1 axis that was stretched to 4: sum over it "
                                     "with keepdims=True, so the result is (3, 1), not (3,).",
                 hint_for=("forgets keepdims",))
def unbroadcast_stretched_axis_keeps_its_dim(unbroadcast):
    g = np.arange(12.0).reshape(3, 4)
    expect_array(unbroadcast, g, (3, 1), returns=[[6], [22], [38]])


@checkpoint.test("unbroadcast", hint="Row vector (1, 4) from a (3, 4) gradient: add the "
                                     "3 rows together, keep the axis: [[12, 15, 18, 21]].")
def unbroadcast_row_vector(unbroadcast):
    g = np.arange(12.0).reshape(3, 4)
    expect_array(unbroadcast, g, (1, 4), returns=[[12, 15, 18, 21]])


@checkpoint.test("unbroadcast", hint="Both at once: first sum the added leading axis "
                                     "(2, 3, 4) -> (3, 4), then the stretched one with keepdims.")
def unbroadcast_added_and_stretched(unbroadcast):
    expect_array(unbroadcast, np.ones((2, 3, 4)), (3, 1), returns=[[8], [8], [8]])


@checkpoint.test("unbroadcast", hint="A stretched axis in the middle: (2, 1, 4) from "
                                     "(2, 3, 4) sums axis 1 only, keeping it.")
def unbroadcast_middle_axis(unbroadcast):
    expect_array(unbroadcast, np.ones((2, 3, 4)), (2, 1, 4), returns=np.full((2, 1, 4), 3.0))


@checkpoint.test("unbroadcast", hint="A scalar input (shape ()) was added to every entry: "
                                     "its gradient is the sum of them all, with shape ().")
def unbroadcast_to_a_scalar(unbroadcast):
    expect_array(unbroadcast, _a([1, 2], [3, 4]), (), returns=10.0)


@st.composite
def _unbroadcasts(draw):
    """An input shape and the output shape it broadcast to: leading axes added (up to
    four), axes of size 1 stretched (one or several), both, or neither."""
    (shape,), out = draw(broadcastable(1))
    return call(draw(images(out, np.float64)), shape)


# a reshape of grad is a view of it: the docstring does not ask for a new array
checkpoint.contract("unbroadcast", valid=_unbroadcasts(), may_alias=True)


# ------------------------------------------------------------------ sum_backward


@checkpoint.test("sum_backward", hint="x.sum() with no axis: every element gets the one "
                                      "output gradient; the result has x's shape.")
def sum_backward_all_axes(sum_backward):
    expect_array(sum_backward, np.array(2.0), (2, 3), returns=np.full((2, 3), 2.0))


@checkpoint.test("sum_backward", hint="Row sums of a (2, 3) x have gradient (2,): reshape it "
                                      "to (2, 1), then broadcast to (2, 3).")
def sum_backward_rows(sum_backward):
    expect_array(sum_backward, _a(1, 2), (2, 3), axis=1,
                 returns=[[1, 1, 1], [2, 2, 2]])


@checkpoint.test("sum_backward", hint="On a square matrix a plain broadcast_to puts the "
                                      "gradient along the wrong axis without any error: put "
                                      "the reduced axis back as size 1 at position `axis`.",
                 hint_for=("plain broadcast_to",))
def sum_backward_square_axis_1(sum_backward):
    expect_array(sum_backward, _a(1, 2, 3), (3, 3), axis=1,
                 returns=[[1, 1, 1], [2, 2, 2], [3, 3, 3]])


@checkpoint.test("sum_backward", hint="axis=0 removes the rows: the gradient (3,) becomes "
                                      "(1, 3) and every row is [1, 2, 3].")
def sum_backward_square_axis_0(sum_backward):
    expect_array(sum_backward, _a(1, 2, 3), (3, 3), axis=0,
                 returns=[[1, 2, 3], [1, 2, 3], [1, 2, 3]])


@checkpoint.test("sum_backward", hint="With keepdims=True the gradient already has a size-1 "
                                      "axis where the sum was: only broadcast it.")
def sum_backward_keepdims(sum_backward):
    expect_array(sum_backward, _a([1], [2]), (2, 3), axis=1, keepdims=True,
                 returns=[[1, 1, 1], [2, 2, 2]])


@checkpoint.test("sum_backward", hint="axis=-1 means the last axis: normalise negative axes "
                                      "with axis % ndim.",
                 hint_for=("ignores negative axes",))
def sum_backward_negative_axis(sum_backward):
    expect_array(sum_backward, _a(5, 6), (2, 2), axis=-1, returns=[[5, 5], [6, 6]])


@checkpoint.test("sum_backward", hint="A tuple of axes: insert a size-1 axis for each of them, "
                                      "here (3,) -> (1, 3, 1), then broadcast to (2, 3, 4).")
def sum_backward_tuple_of_axes(sum_backward):
    want = np.broadcast_to(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4))
    expect_array(sum_backward, _a(1, 2, 3), (2, 3, 4), axis=(0, 2), returns=want)


def _axes(draw, ndim: int, tuples: bool = True):
    """None, an int (negative too), or a tuple of distinct axes (negative entries too)."""
    kinds = ["none", "int", "tuple"] if tuples and ndim else (["none", "int"] if ndim
                                                                else ["none"])
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return None, tuple(range(ndim))
    if kind == "int":
        axis = draw(st.integers(-ndim, ndim - 1))
        return axis, (axis % ndim,)
    picked = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    axis = tuple(a - ndim if draw(st.booleans()) else a for a in picked)
    return axis, tuple(sorted(picked))


def _reduced(shape: tuple, axes: tuple, keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if k in axes else d for k, d in enumerate(shape))
    return tuple(d for k, d in enumerate(shape) if k not in axes)


def _axis_kwargs(draw, axis, keepdims) -> dict:
    kwargs = {}
    if axis is not None or draw(st.booleans()):
        kwargs["axis"] = axis
    if keepdims or draw(st.booleans()):
        kwargs["keepdims"] = keepdims
    return kwargs


@st.composite
def _sum_backwards(draw):
    shape = draw(shapes(0, 4))
    axis, axes = _axes(draw, len(shape))
    keepdims = draw(st.booleans())
    grad = draw(images(_reduced(shape, axes, keepdims), np.float64))
    return call(grad, shape, **_axis_kwargs(draw, axis, keepdims))


# a read-only broadcast view of grad is fine, the docstring says
checkpoint.contract("sum_backward", valid=_sum_backwards(), may_alias=True)


# ------------------------------------------------------------------ max_backward


@checkpoint.test("max_backward", hint="Only the maximum (5, at index 1) gets the gradient; "
                                      "the others get 0, not the gradient too.",
                 hint_for=("spreads the gradient to all entries",))
def max_backward_vector(max_backward):
    expect_array(max_backward, _a(1, 5, 3), np.array(1.0), returns=[0, 1, 0])


@checkpoint.test("max_backward", hint="Two entries tie for the maximum: they share the "
                                      "gradient, 0.5 each (divide by the number of ties).",
                 hint_for=("ties each get the whole gradient",
                           "the whole gradient to the first maximum only"))
def max_backward_ties_share(max_backward):
    expect_array(max_backward, _a(2, 7, 7), np.array(1.0), returns=[0, 0.5, 0.5])


@checkpoint.test("max_backward", hint="Row maxima (axis=1) of [[1, 9], [8, 2]] are 9 and 8: "
                                      "row 0 sends 10 to the 9, row 1 sends 20 to the 8.")
def max_backward_rows(max_backward):
    expect_array(max_backward, _a([1, 9], [8, 2]), _a(10, 20), axis=1,
                 returns=[[0, 10], [20, 0]])


@checkpoint.test("max_backward", hint="Column maxima (axis=0) of [[1, 9], [8, 2]] are 8 and "
                                      "9: column 0 sends 10 to the 8, column 1 sends 20 to the 9.")
def max_backward_columns(max_backward):
    expect_array(max_backward, _a([1, 9], [8, 2]), _a(10, 20), axis=0,
                 returns=[[0, 20], [10, 0]])


@checkpoint.test("max_backward", hint="With keepdims=True the gradient is already (2, 1); "
                                      "compare x with the maxima kept as (2, 1).",
                 hint_for=("compares with the max without keepdims",))
def max_backward_keepdims(max_backward):
    expect_array(max_backward, _a([1, 9], [8, 2]), _a([10], [20]), axis=1, keepdims=True,
                 returns=[[0, 10], [20, 0]])


@checkpoint.test("max_backward", hint="All-negative inputs: the maximum of [-3, -1, -2] is -1, "
                                      "so only index 1 gets the gradient: [0, 4, 0].")
def max_backward_negative_values(max_backward):
    expect_array(max_backward, _a(-3, -1, -2), np.array(4.0), returns=[0, 4, 0])


@checkpoint.test("max_backward", hint="axis=-1 is the last axis; ties inside one row share "
                                      "that row's gradient.")
def max_backward_negative_axis_with_ties(max_backward):
    expect_array(max_backward, _a([3, 3, 1], [0, 2, 1]), _a(6, 1), axis=-1,
                 returns=[[3, 3, 0], [0, 1, 0]])


@st.composite
def _max_backwards(draw):
    """Small integers, so that maxima tie often; no size 0 (a max needs an element)."""
    shape = draw(shapes(0, 3, min_side=1))
    axis, axes = _axes(draw, len(shape), tuples=False)
    keepdims = draw(st.booleans())
    x = draw(images(shape, np.float64))
    out = _reduced(shape, axes, keepdims)
    grad = 1.0 if out == () and draw(st.booleans()) else draw(images(out, np.float64))
    return call(x, grad, **_axis_kwargs(draw, axis, keepdims))


checkpoint.contract("max_backward", valid=_max_backwards())


# ------------------------------------------------------------------ matmul_backward


def _operand(name: str, a: np.ndarray) -> str:
    """``a of shape (2, 2) = [[1.0, 2.0], [3.0, 4.0]]``: the values too when there are at
    most 12 of them (a row can then be worked by hand), else the shape alone."""
    text = f"{name} of shape {a.shape}"
    return text + (f" = {np.round(a.astype(float), 6).tolist()!r}" if a.size <= 12 else "")


def _expect_pair(fn, a, b, g, want_a, want_b):
    call = (f"matmul_backward({_operand('a', a)}, {_operand('b', b)}, "
            f"{_operand('grad', g)})")
    try:
        got = fn(a, b, g)
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise CheckFailure(call, f"(grad_a of shape {a.shape}, grad_b of shape {b.shape})",
                           raised(exc), kind="error") from exc
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise CheckFailure(call, "a pair (grad_a, grad_b)", _show(got))
    same_array(call + "[0] (grad_a)", got[0], want_a)
    same_array(call + "[1] (grad_b)", got[1], want_b)


@checkpoint.test("matmul_backward", hint="grad_a = grad @ b.T: (2, 1) @ (1, 3) is each row "
                                         "[1, 2, 3]; grad_b = a.T @ grad: the column sums of a.")
def matmul_backward_matrix_times_column(matmul_backward):
    a, b = _a([1, 2, 3], [4, 5, 6]), _a([1], [2], [3])
    _expect_pair(matmul_backward, a, b, np.ones((2, 1)), [[1, 2, 3], [1, 2, 3]], [[5], [7], [9]])


@checkpoint.test("matmul_backward", hint="Work out the shapes first: grad_a must be (2, 3) "
                                         "like a, so it is (2, 4) @ (4, 3) = grad @ b.T.")
def matmul_backward_shapes(matmul_backward):
    a, b = np.ones((2, 3)), np.ones((3, 4))
    _expect_pair(matmul_backward, a, b, np.ones((2, 4)), np.full((2, 3), 4.0),
                 np.full((3, 4), 2.0))


@checkpoint.test("matmul_backward", hint="Square matrices hide a missing transpose: the shapes "
                                         "fit, the values do not. grad_a = grad @ b.T.",
                 hint_for=("grad_a without the transpose of b",))
def matmul_backward_square_needs_transpose(matmul_backward):
    a, b = _a([1, 2], [3, 4]), _a([1, 2], [0, 1])
    _expect_pair(matmul_backward, a, b, np.eye(2), [[1, 0], [2, 1]], [[1, 3], [2, 4]])


@checkpoint.test("matmul_backward", hint="Order matters: grad_b = a.T @ grad, not grad @ a.T "
                                         "or grad.T @ a.",
                 hint_for=("grad_b as grad.T @ a (transposed)",))
def matmul_backward_order_of_factors(matmul_backward):
    a, b = _a([1, 2], [3, 4]), np.eye(2)
    g = _a([1, 0], [1, 1])
    _expect_pair(matmul_backward, a, b, g, [[1, 0], [1, 1]], [[4, 3], [6, 4]])


@checkpoint.test("matmul_backward", hint="Return (grad_a, grad_b) in that order: a row times "
                                         "a column gives grad_a = 2 * b.T and grad_b = 2 * a.T.",
                 hint_for=("returns (grad_b, grad_a)",))
def matmul_backward_row_times_column(matmul_backward):
    a, b = _a([1, 2, 3]), _a([4], [5], [6])
    _expect_pair(matmul_backward, a, b, _a([2]), [[8, 10, 12]], [[2], [4], [6]])


@st.composite
def _matmul_backwards(draw):
    n, k, m = (draw(st.integers(1, 4)) for _ in range(3))
    return call(draw(images((n, k), np.float64)), draw(images((k, m), np.float64)),
                draw(images((n, m), np.float64)))


checkpoint.contract("matmul_backward", valid=_matmul_backwards())


# ------------------------------------------------------------------ numerical_gradient


def _numgrad(fn, f, x, want, what, eps=None, atol=1e-4):
    kwargs = {} if eps is None else {"eps": eps}
    call = (f"numerical_gradient({what}, x" + (f", eps={eps})" if eps else ")")
            + f" with x of shape {x.shape} = {_values(x)}")
    expect_array(fn, f, x.copy(), returns=want, atol=atol, call=call, **kwargs)


@checkpoint.test("numerical_gradient", hint="(f(x + eps) - f(x - eps)) / (2 * eps) for one "
                                            "entry at a time; for sum(x**2) that is 2x.")
def numerical_gradient_of_squares(numerical_gradient):
    _numgrad(numerical_gradient, lambda x: float((x ** 2).sum()), _a(1, 2, 3), [2, 4, 6],
             "lambda x: (x**2).sum()")


@checkpoint.test("numerical_gradient", hint="Walk every index of a 2-D x (np.ndindex(*x.shape)) "
                                            "and return an array of x's shape.")
def numerical_gradient_of_a_matrix(numerical_gradient):
    w = _a([1, 2], [3, 4])
    _numgrad(numerical_gradient, lambda x: float((x * w).sum()), _a([0.5, -1], [2, 0]),
             [[1, 2], [3, 4]], "lambda x: (x * [[1, 2], [3, 4]]).sum()")


@checkpoint.test("numerical_gradient", hint="Use the central difference, not the forward one: "
                                            "with eps=0.01 the forward difference of x**3 at 2 "
                                            "is 12.06, the central one 12.0001.",
                 hint_for=("forward difference",))
def numerical_gradient_is_central(numerical_gradient):
    _numgrad(numerical_gradient, lambda x: float((x ** 3).sum()), _a(2.0), [12.0001],
             "lambda x: (x**3).sum()", eps=1e-2, atol=1e-3)


@checkpoint.test("numerical_gradient", hint="Divide by 2 * eps, the distance between the two "
                                            "points: in Python a / 2 * eps is (a / 2) * eps, so "
                                            "write a / (2 * eps).",
                 hint_for=("divides by eps, not 2 eps", "divides by 2, then multiplies by eps"))
def numerical_gradient_divides_by_two_eps(numerical_gradient):
    _numgrad(numerical_gradient, lambda x: float(np.sin(x).sum()), _a(0.0, np.pi),
             [1, -1], "lambda x: np.sin(x).sum()")


@checkpoint.test("numerical_gradient", hint="Put each entry back to its old value after "
                                            "measuring it: save it, and assign it back (adding "
                                            "and subtracting eps again is not exact in floating "
                                            "point). x must be unchanged, bit for bit.",
                 hint_for=("does not restore x", "restores x by adding the nudges back"))
def numerical_gradient_restores_x(numerical_gradient):
    x = _a([1.0, 2.0], [3.0, 4.0])
    before = x.copy()
    call = "x after numerical_gradient(lambda v: (v**2).sum(), x)"
    try:
        numerical_gradient(lambda v: float((v ** 2).sum()), x)
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise CheckFailure(call, "x unchanged", raised(exc), kind="error") from exc
    if x.shape != before.shape or not np.array_equal(x, before):
        # at full precision: one ulp off prints like the old value with 6 digits
        moved = [(idx, float(x[idx])) for idx in np.ndindex(*before.shape)
                 if x[idx] != before[idx]] if x.shape == before.shape else []
        detail = "; ".join(f"x[{', '.join(map(str, i))}] is {v!r}, was {float(before[i])!r}"
                           for i, v in moved[:2])
        raise CheckFailure(call, f"{before.tolist()!r}, bit for bit",
                           f"{x.tolist()!r} ({detail or 'a different shape'})")


@checkpoint.test("numerical_gradient", hint="Perturb one entry at a time; each entry of the "
                                            "gradient is its own pair of calls to f.",
                 hint_for=("perturbs every entry at once",))
def numerical_gradient_one_entry_at_a_time(numerical_gradient):
    _numgrad(numerical_gradient, lambda x: float(x[0] * x[1] + 3 * x[2]), _a(2, 5, 7),
             [5, 2, 3], "lambda x: x[0] * x[1] + 3 * x[2]")


# The functions f of the contract read x's numbers in index order (whatever its
# layout) as Python floats and sum them in that order: f's value depends on x's
# values alone, so a right answer that nudges a copy, or x itself, gets the very
# same numbers as the reference.


def _in_index_order(v) -> list:
    return np.asarray(v, dtype=np.float64).ravel().tolist()


def sum_of_squares(v) -> float:
    return sum(t * t for t in _in_index_order(v))


def sum_of_cubes(v) -> float:
    return sum(t ** 3 for t in _in_index_order(v))


def weighted_by_position(v) -> float:
    """sum(w[k] * v[k]) with weights -2, -1, 0, 1, 2, -2, ... in index order."""
    return sum((k % 5 - 2) * t for k, t in enumerate(_in_index_order(v)))


def neighbours_multiplied(v) -> float:
    """v[0] * v[1] + v[1] * v[2] + ... in index order, plus the sum of the v[k]."""
    values = _in_index_order(v)
    return sum(a * b for a, b in zip(values, values[1:])) + sum(values)


def sines_by_position(v) -> float:
    return sum(math.sin(t) * (k + 1) for k, t in enumerate(_in_index_order(v)))


_FUNCTIONS = [sum_of_squares, sum_of_cubes, weighted_by_position, neighbours_multiplied,
              sines_by_position]


@st.composite
def _laid_out(draw, a: np.ndarray) -> np.ndarray:
    """``a``'s values as a fresh array, or as a transposed, stepped (every other row of
    a larger array) or reversed view."""
    style = draw(st.sampled_from(["fresh", "transposed", "stepped", "reversed"])
                 if a.ndim >= 2 else st.sampled_from(["fresh", "reversed"]))
    if style == "transposed":
        return np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)
    if style == "stepped":
        big = np.zeros(a.shape[:-2] + (2 * a.shape[-2], a.shape[-1]), dtype=a.dtype)
        big[..., ::2, :] = a
        return big[..., ::2, :]
    if style == "reversed" and a.ndim:
        return np.ascontiguousarray(a[..., ::-1])[..., ::-1]
    return a.copy()


@st.composite
def _numerical_gradients(draw):
    """x of rank 0 to 4 (at most 24 numbers: sizes 0, 1 and unequal), multiples of 1/8
    between -4 and 4, float64 or float32, fresh or a view; f one of the functions
    above; eps left out (1e-6) or given, by position or by name. For float32 only eps
    a power of two: x + eps is then exact in float32 too, as it is in float64, so a
    right answer that nudges a float64 copy is not told apart by its rounding."""
    shape = draw(shapes(0, 4, max_side=3).filter(lambda s: int(np.prod(s)) <= 24))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = draw(_laid_out(np.array(rng.integers(-32, 33, size=shape) / 8.0, dtype=dtype)))
    f = draw(st.sampled_from(_FUNCTIONS))
    if dtype == np.float64:
        eps = draw(st.sampled_from([None, 1e-3, 1e-4, 2.0 ** -10]))
    else:
        eps = draw(st.sampled_from([2.0 ** -6, 2.0 ** -10]))
    if eps is None:
        return call(f, x)
    return call(f, x, eps) if draw(st.booleans()) else call(f, x, eps=eps)


def _bit_for_bit(numerical_gradient, f, x, *args, **kwargs):
    """A scenario: what numerical_gradient returns, and whether x is the same
    afterwards bit for bit (a contract compares numbers within a tolerance, and one
    rounding step off is within it), else x before and after at full precision."""
    before = x.copy()
    result = numerical_gradient(f, x, *args, **kwargs)
    if x.shape == before.shape and x.dtype == before.dtype and x.tobytes() == before.tobytes():
        return result, "x as it was, bit for bit"
    return result, (f"x is now {np.asarray(x).tolist()!r}, not {before.tolist()!r} "
                    "(at full precision)")


checkpoint.contract("numerical_gradient", valid=_numerical_gradients(), scenario=_bit_for_bit)


# ------------------------------------------------------------------ stretch: softmax_backward


def _unchanged(fn, *arrays, **kwargs):
    """Call fn on copies and fail if it changed an argument in place."""
    before = [a.copy() for a in arrays]
    fn(*arrays, **kwargs)
    for k, (a, b) in enumerate(zip(arrays, before)):
        if not np.array_equal(a, b):
            raise CheckFailure(f"argument {k + 1} after {getattr(fn, '__name__', 'fn')}(...)",
                               _show(b), f"changed in place to {_show(a)}")


@checkpoint.test("softmax_backward", hint="y = [0.25, 0.75], grad = [1, 0]: dL/dx_0 = "
                                          "0.25 * (1 - 0.25) and dL/dx_1 = -0.25 * 0.75.",
                 stretch=True)
def softmax_backward_of_two_classes(softmax_backward):
    expect_array(softmax_backward, _a(0.25, 0.75), _a(1, 0), returns=[0.1875, -0.1875])


@checkpoint.test("softmax_backward", hint="Adding a constant to every score changes no "
                                          "probability: a uniform grad gives 0 everywhere.",
                 stretch=True)
def a_uniform_gradient_gives_zero(softmax_backward):
    expect_array(softmax_backward, _a(0.25, 0.75), _a(1, 1), returns=[0, 0])
    expect_array(softmax_backward, _a(0.5, 0.3, 0.2), _a(2, 2, 2), returns=[0, 0, 0])


@checkpoint.test("softmax_backward", hint="Every output depends on every input of its row, so "
                                          "each score's gradient collects a term from every output "
                                          "of the row.",
                 stretch=True)
def softmax_backward_of_three_classes(softmax_backward):
    expect_array(softmax_backward, _a(0.5, 0.3, 0.2), _a(0, 1, 0), returns=[-0.15, 0.21, -0.06])


@checkpoint.test("softmax_backward", hint="Each row is its own softmax: the sum over the "
                                          "classes is per row, kept as a column (keepdims).",
                 stretch=True,
                 hint_for=("sum without keepdims",))
def each_row_on_its_own(softmax_backward):
    expect_array(softmax_backward, _a([0.5, 0.5], [0.2, 0.8]), _a([1, 0], [0, 1]),
                 returns=[[0.25, -0.25], [-0.16, 0.16]])


@checkpoint.test("softmax_backward", hint="axis=0: the softmax ran down the columns, so the sum "
                                          "runs down them too.", stretch=True)
def along_axis_zero(softmax_backward):
    expect_array(softmax_backward, _a([0.5, 0.2], [0.5, 0.8]), _a([1, 0], [0, 1]), axis=0,
                 returns=[[0.25, -0.16], [-0.25, 0.16]])


@checkpoint.test("softmax_backward", hint="Return a new array: do not subtract from grad in "
                                          "place.", stretch=True,
                 hint_for=("changes grad in place",))
def leaves_y_and_grad_alone(softmax_backward):
    _unchanged(softmax_backward, _a([0.5, 0.5], [0.2, 0.8]), _a([1, 0], [0, 1]))


@st.composite
def _softmax_backwards(draw):
    """y: every slice along ``axis`` positive and summing to 1 (sixteenths), grad
    multiples of 1/8 (every product and sum is then exact, in float32 too, in any
    order); rank 1 to 4, the softmax axis of size 1 to 4 and the others 0 to 3 (often
    unequal), axis left out (-1) or given, negative too; float64 or float32; each a
    fresh array or a view."""
    ndim = draw(st.integers(1, 4))
    axis = draw(st.integers(-ndim, ndim - 1))
    shape = list(draw(shapes(ndim, ndim, max_side=3)))
    shape[axis] = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    c = shape[axis]
    rest = [d for k, d in enumerate(shape) if k != axis % ndim]
    lanes = int(np.prod(rest))
    counts = np.empty((lanes, c))
    for r in range(lanes):  # c positive parts of 16
        cuts = np.sort(rng.choice(np.arange(1, 16), size=c - 1, replace=False))
        counts[r] = np.diff(np.concatenate([[0], cuts, [16]]))
    y = np.moveaxis((counts / 16).reshape(*rest, c), -1, axis % ndim)
    grad = rng.integers(-16, 17, size=shape) / 8.0
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    y, grad = draw(_laid_out(y.astype(dtype))), draw(_laid_out(grad.astype(dtype)))
    if axis == -1 and draw(st.booleans()):
        return call(y, grad)
    return call(y, grad, axis) if draw(st.booleans()) else call(y, grad, axis=axis)


checkpoint.contract("softmax_backward", valid=_softmax_backwards(), stretch=True)
