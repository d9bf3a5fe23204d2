"""Elementwise ops, broadcasting, dtype promotion, reductions and matmul against NumPy."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
from _array_helpers import NP_DTYPES, array_pairs, assert_same, pair, shapes
from hypothesis import given, settings
from hypothesis import strategies as st

import stridegrad.array as sa

DTYPES = [sa.bool, sa.int64, sa.float32, sa.float64]
NUMERIC = [sa.int64, sa.float32, sa.float64]


@st.composite
def broadcastable_shapes(draw):
    """Two shapes that broadcast: drop leading axes of one and set some sizes to 1."""
    shape = draw(shapes)
    other = list(shape[draw(st.integers(0, len(shape))):])
    other = [1 if draw(st.booleans()) else d for d in other]
    shape = [1 if draw(st.integers(0, 4)) == 0 else d for d in shape]
    pair_ = (tuple(shape), tuple(other))
    return pair_ if draw(st.booleans()) else pair_[::-1]


def np_quiet(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


BINARY = [
    (sa.add, np.add),
    (sa.subtract, np.subtract),
    (sa.multiply, np.multiply),
    (sa.divide, np.divide),
    (sa.maximum, np.maximum),
    (sa.minimum, np.minimum),
    (sa.equal, np.equal),
    (sa.not_equal, np.not_equal),
    (sa.less, np.less),
    (sa.less_equal, np.less_equal),
    (sa.greater, np.greater),
    (sa.greater_equal, np.greater_equal),
    (sa.logical_and, np.logical_and),
    (sa.logical_or, np.logical_or),
]


@pytest.mark.parametrize("ours_fn, np_fn", BINARY, ids=[f.__name__ for f, _ in BINARY])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_binary_ops_broadcast_like_numpy(ours_fn, np_fn, data):
    s1, s2 = data.draw(broadcastable_shapes())
    d1 = data.draw(st.sampled_from(NUMERIC))
    d2 = data.draw(st.sampled_from(NUMERIC))
    x, xr = data.draw(array_pairs(shape=s1, dtype=d1))
    y, yr = data.draw(array_pairs(shape=s2, dtype=d2))
    assert_same(ours_fn(x, y), np_quiet(np_fn, xr, yr))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "pow"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_operators_with_scalars_on_either_side(op, data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    x, xr = data.draw(array_pairs(dtype=dtype, elements=st.integers(1, 4)))
    scalar = data.draw(st.sampled_from([2, 3, 0.5, 1.5]))
    fn = getattr(operator, op)
    assert_same(fn(x, scalar), np_quiet(fn, xr, scalar))
    assert_same(fn(scalar, x), np_quiet(fn, scalar, xr))


def test_operators_cover_the_dunder_methods():
    x = sa.asarray([[1.0, 2.0], [3.0, 4.0]])
    r = np.array([[1.0, 2.0], [3.0, 4.0]])
    for got, want in [
        (x + x, r + r), (x - 1, r - 1), (2 - x, 2 - r), (x * x, r * r), (x / 2, r / 2),
        (1 / x, 1 / r), (x ** 2, r ** 2), (2 ** x, 2 ** r), (-x, -r), (+x, +r), (abs(-x), r),
        (x @ x, r @ r), (x == 2, r == 2), (x != 2, r != 2), (x < 2, r < 2), (x <= 2, r <= 2),
        (x > 2, r > 2), (x >= 2, r >= 2), (x // 3, r // 3), (x % 3, r % 3),
    ]:
        assert_same(got, want)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "abs", "tanh", "sign", "square",
                                  "negative", "sin", "cos", "log1p", "expm1", "floor", "ceil"])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_unary_ops_match_numpy(name, data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    x, xr = data.draw(array_pairs(dtype=dtype))
    assert_same(getattr(sa, name)(x), np_quiet(getattr(np, name), xr))


def test_ieee_results_instead_of_exceptions():
    x = sa.asarray([0.0, -1.0, 1.0, 1000.0])
    r = np.array([0.0, -1.0, 1.0, 1000.0])
    assert_same(sa.log(x), np_quiet(np.log, r))
    assert_same(sa.sqrt(x), np_quiet(np.sqrt, r))
    assert_same(sa.exp(x), np_quiet(np.exp, r))
    assert_same(x / 0.0, np_quiet(np.divide, r, 0.0))
    assert_same(x ** -1.0, np_quiet(np.power, r, -1.0))
    assert_same(x ** 0.5, np_quiet(np.power, r, 0.5))
    assert_same(sa.asarray([-0.0]) ** -1.0, np_quiet(np.power, np.array([-0.0]), -1.0))
    nan = sa.asarray([1.0, float("nan"), 3.0])
    assert_same(sa.maximum(nan, 2.0), np.maximum(np.array([1.0, np.nan, 3.0]), 2.0))
    assert_same(sa.minimum(2.0, nan), np.minimum(2.0, np.array([1.0, np.nan, 3.0])))
    assert sa.isnan(nan).tolist() == [False, True, False]
    assert sa.isfinite(sa.asarray([1.0, float("inf"), float("nan")])).tolist() == [
        True, False, False]


def test_integer_pow_rejects_negative_exponents():
    with pytest.raises(ValueError, match="negative integer powers"):
        sa.asarray([1, 2]) ** -1
    assert_same(sa.asarray([2, 3]) ** 2, np.array([2, 3]) ** 2)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_where_and_clip(data):
    s1, s2 = data.draw(broadcastable_shapes())
    c, cr = data.draw(array_pairs(shape=s1, dtype=sa.bool))
    x, xr = data.draw(array_pairs(shape=s2, dtype=sa.float64))
    assert_same(sa.where(c, x, 0.5), np.where(cr, xr, 0.5))
    assert_same(sa.where(c, -1, x), np.where(cr, -1, xr))
    assert_same(sa.clip(x, -1.0, 2), np.clip(xr, -1.0, 2))
    assert_same(sa.clip(x, max=0), np.clip(xr, None, 0))


# -------------------------------------------------------------- dtype promotion


@pytest.mark.parametrize("d1", DTYPES, ids=str)
@pytest.mark.parametrize("d2", DTYPES, ids=str)
def test_array_array_promotion_matches_numpy(d1, d2):
    x = sa.ones((2,), dtype=d1)
    y = sa.ones((2,), dtype=d2)
    a, b = np.ones(2, NP_DTYPES[d1]), np.ones(2, NP_DTYPES[d2])
    assert sa.result_type(d1, d2).name == np.result_type(a, b).name
    for ours, ref in [(sa.add, np.add), (sa.multiply, np.multiply), (sa.divide, np.divide),
                      (sa.maximum, np.maximum)]:
        assert_same(ours(x, y), ref(a, b))
    assert sa.equal(x, y).dtype == sa.bool


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("scalar", [True, 2, 2.5])
def test_python_scalars_adopt_the_array_dtype(dtype, scalar):
    x = sa.ones((2,), dtype=dtype)
    a = np.ones(2, NP_DTYPES[dtype])
    assert_same(x * scalar, a * scalar)
    assert_same(scalar * x, scalar * a)
    assert_same(x / scalar, a / scalar)
    assert_same(sa.maximum(x, scalar), np.maximum(a, scalar))
    assert sa.result_type(x, scalar).name == np.result_type(a, scalar).name


def test_int_true_division_gives_float64_and_values_are_python_types():
    q = sa.asarray([1, 2]) / sa.asarray([2, 2])
    assert q.dtype == sa.float64 and q.tolist() == [0.5, 1.0]
    m = sa.maximum(sa.asarray([1, 5]), sa.asarray([2.5, 0.5]))
    assert m.dtype == sa.float64 and all(type(v) is float for v in m.tolist())
    b = sa.asarray([True, False]) + sa.asarray([True, True])
    assert b.dtype == sa.bool and b.tolist() == [True, True]  # bool + bool is logical or
    with pytest.raises(TypeError, match="boolean subtraction"):
        sa.asarray([True]) - sa.asarray([True])


def test_result_type_and_isdtype():
    assert sa.result_type(sa.int64, sa.float32) == sa.float64  # NumPy's rule
    assert sa.result_type(sa.float32, 1.0) == sa.float32
    assert sa.result_type(sa.int64, 1.0) == sa.float64
    assert sa.result_type(sa.bool, 1) == sa.int64
    assert sa.isdtype(sa.float32, "real floating")
    assert sa.isdtype(sa.int64, ("integral", "bool"))
    assert sa.isdtype(sa.bool, "bool") and not sa.isdtype(sa.bool, "numeric")
    assert sa.isdtype(sa.float64, sa.float64)
    assert sa.finfo(sa.float32).eps == float(np.finfo(np.float32).eps)
    assert sa.finfo(sa.float64).max == float(np.finfo(np.float64).max)
    assert sa.iinfo(sa.int64).max == np.iinfo(np.int64).max
    with pytest.raises(ValueError, match="unknown dtype kind 'floating'"):
        sa.isdtype(sa.float32, "floating")


# ---------------------------------------------------------------------- reductions


@st.composite
def axis_forms(draw, ndim):
    """None, an int, a negative int, or a tuple (possibly with negative entries)."""
    if ndim == 0:
        return draw(st.sampled_from([None, (), 0, -1]))
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    axes = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    return tuple(a - ndim if draw(st.booleans()) else a for a in axes)


REDUCTIONS = ["sum", "mean", "max", "min", "prod", "any", "all"]


@pytest.mark.parametrize("name", REDUCTIONS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_reductions_match_numpy_on_views(name, data):
    dtype = data.draw(st.sampled_from(DTYPES if name != "mean" else NUMERIC))
    x, xr = data.draw(array_pairs(dtype=dtype))
    axis = data.draw(axis_forms(x.ndim))
    if x.ndim == 0 and axis not in (None, ()):
        axis = None if axis in (0, -1) else axis
    keepdims = data.draw(st.booleans())
    try:
        expected = np_quiet(getattr(np, name), xr, axis, None, None, keepdims) if name in (
            "sum", "mean", "prod") else np_quiet(getattr(np, name), xr, axis, None, keepdims)
    except ValueError:
        with pytest.raises(ValueError, match="zero-size array"):
            getattr(sa, name)(x, axis=axis, keepdims=keepdims)
        return
    assert_same(getattr(sa, name)(x, axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_argmax_argmin_match_numpy(name, data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    x, xr = data.draw(array_pairs(dtype=dtype, elements=st.integers(-2, 2)))
    axis = None if x.ndim == 0 else data.draw(
        st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)))
    keepdims = data.draw(st.booleans())
    try:
        expected = getattr(np, name)(xr, axis=axis, keepdims=keepdims)
    except ValueError:
        with pytest.raises(ValueError, match="empty sequence"):
            getattr(sa, name)(x, axis=axis, keepdims=keepdims)
        return
    assert_same(getattr(sa, name)(x, axis=axis, keepdims=keepdims), expected)


def test_reduction_edge_cases():
    nan = float("nan")
    x = sa.asarray([[1.0, nan, 3.0], [4.0, 5.0, 6.0]])
    r = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    assert_same(sa.max(x, axis=1), np.max(r, axis=1))
    assert_same(sa.argmax(x, axis=1), np.argmax(r, axis=1))
    assert_same(sa.sum(sa.zeros((0, 3)), axis=0), np.zeros((0, 3)).sum(axis=0))
    assert_same(sa.mean(sa.zeros((0,))), np_quiet(np.mean, np.zeros((0,))))
    assert_same(sa.sum(sa.asarray([True, True, False])), np.sum([True, True, False]))
    assert_same(sa.var(x, axis=0, correction=1), np.var(r, axis=0, ddof=1))
    assert_same(sa.std(sa.asarray([1.0, 2.0, 4.0])), np.std([1.0, 2.0, 4.0]))
    with pytest.raises(ValueError, match=r"zero-size array to reduction operation max.*\(0, 3\)"):
        sa.max(sa.zeros((0, 3)), axis=0)
    with pytest.raises(sa.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        sa.sum(x, axis=2)
    with pytest.raises(ValueError, match=r"duplicate value in 'axis': \(0, -2\)"):
        sa.sum(x, axis=(0, -2))


# -------------------------------------------------------------------------- matmul


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (3,)),
    ((2, 1, 2, 3), (5, 3, 4)),
    ((1, 2, 3), (4, 1, 3, 2)),
    ((0, 3), (3, 2)),
    ((2, 0), (0, 3)),
    ((2, 3), (3, 0)),
]


@pytest.mark.parametrize("s1, s2", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("d1, d2", [(sa.float64, sa.float64), (sa.int64, sa.int64),
                                    (sa.float32, sa.int64), (sa.bool, sa.bool)], ids=str)
def test_matmul_matches_numpy(s1, s2, d1, d2):
    x, xr = pair(s1, d1, start=1) if d1 != sa.bool else (sa.ones(s1, dtype=d1),
                                                          np.ones(s1, bool))
    y, yr = pair(s2, d2, start=-3) if d2 != sa.bool else (sa.ones(s2, dtype=d2),
                                                           np.ones(s2, bool))
    assert_same(sa.matmul(x, y), np.matmul(xr, yr))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_matmul_on_non_contiguous_views_with_broadcast_batches(data):
    n, k, m = (data.draw(st.integers(1, 4)) for _ in range(3))
    batch1, batch2 = data.draw(broadcastable_shapes().filter(lambda p: len(p[0]) <= 2
                                                             and len(p[1]) <= 2))
    x, xr = data.draw(array_pairs(shape=batch1 + (n, k), dtype=sa.float64))
    y, yr = data.draw(array_pairs(shape=batch2 + (k, m), dtype=sa.float64))
    assert_same(x @ y, xr @ yr)
    assert_same(x.mT.mT @ y, xr @ yr)


def test_matmul_errors_name_both_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(2, 3\) are not aligned: 3 .* != 2"):
        sa.matmul(sa.ones((2, 3)), sa.ones((2, 3)))
    with pytest.raises(ValueError, match=r"\(4,\) and \(3,\)"):
        sa.ones((4,)) @ sa.ones((3,))
    with pytest.raises(ValueError, match=r"batch dimensions of shapes \(2, 1, 3\) and \(3, 3, 1\)"):
        sa.matmul(sa.ones((2, 1, 3)), sa.ones((3, 3, 1)))
    with pytest.raises(ValueError, match=r"at least 1-D.*\(\) and \(3,\)"):
        sa.matmul(sa.asarray(2.0), sa.ones((3,)))
    with pytest.raises(TypeError):
        sa.matmul(sa.ones((3,)), [1.0, 2.0, 3.0])


def test_vecdot():
    x, xr = pair((2, 3), start=1)
    assert_same(sa.vecdot(x, x), np.vecdot(xr, xr))


# ---------------------------------------------------------------- manipulation


def test_stack_concat_take_flip():
    x, xr = pair((2, 3))
    y, yr = pair((2, 3), sa.int64, start=10)
    assert_same(sa.concat([x, y], axis=0), np.concatenate([xr, yr], axis=0))
    assert_same(sa.concat([x.T, y.T], axis=-1), np.concatenate([xr.T, yr.T], axis=-1))
    assert_same(sa.concat([x, y], axis=None), np.concatenate([xr, yr], axis=None))
    assert_same(sa.stack([x, y], axis=1), np.stack([xr, yr], axis=1))
    assert_same(sa.stack([x, y], axis=-1), np.stack([xr, yr], axis=-1))
    assert_same(sa.take(x, sa.asarray([2, 0, -1]), axis=1), np.take(xr, [2, 0, -1], axis=1))
    assert_same(sa.flip(x, axis=1), np.flip(xr, axis=1))
    assert_same(sa.broadcast_arrays(x, sa.ones((3,)))[1], np.broadcast_arrays(xr, np.ones(3))[1])
    with pytest.raises(ValueError, match=r"same shape.*\(2, 3\).*\(3, 2\)"):
        sa.stack([x, x.T])
    with pytest.raises(ValueError, match=r"along dimension 1 .*\(2, 3\).*\(2, 2\)"):
        sa.concat([x, x[:, :2]], axis=0)
