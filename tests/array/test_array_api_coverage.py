"""Array API 2023.12 coverage: the bugs of issue #18 and the functions and dtypes added for it.

NumPy is the oracle wherever it implements the same function.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _array_helpers import assert_same, pair
from hypothesis import given, settings
from hypothesis import strategies as st

import stridegrad.array as sa

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
ALL_DTYPES = ["bool", *INT_DTYPES, "float32", "float64"]


def np_quiet(fn, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def signs(a) -> list[float]:
    return [math.copysign(1.0, v) for v in a.tolist()]


# ------------------------------------------------------------- the listed bugs


def test_and_or_xor_on_integer_arrays_are_bitwise():
    a, b = sa.asarray([1, 2, 3]), sa.asarray([3, 2, 1])
    assert (a & b).tolist() == [1, 2, 1]
    assert (a | b).tolist() == [3, 2, 3]
    assert (a ^ b).tolist() == [2, 0, 2]
    assert (a & b).dtype == sa.int64
    assert (6 & a).tolist() == [0, 2, 2] and (a | 4).tolist() == [5, 6, 7]
    t, f = sa.asarray([True, True]), sa.asarray([True, False])
    assert (t & f).tolist() == [True, False] and (t & f).dtype == sa.bool
    assert (t ^ f).tolist() == [False, True]


def test_inplace_and_or_xor_are_bitwise():
    a = sa.asarray([6])
    a &= 3
    assert a.tolist() == [2]
    a |= 5
    assert a.tolist() == [7]
    a ^= 1
    assert a.tolist() == [6]
    a <<= 2
    assert a.tolist() == [24]
    a >>= 3
    assert a.tolist() == [3]


def test_bitwise_ops_refuse_floats():
    with pytest.raises(TypeError, match="bitwise_and.*float64"):
        sa.asarray([1.0]) & sa.asarray([1.0])
    with pytest.raises(TypeError, match="bitwise_left_shift"):
        sa.asarray([True]) << 1
    with pytest.raises(ValueError, match="non-negative"):
        sa.asarray([1]) << sa.asarray([-1])


def test_clip_with_a_nan_bound_gives_nan():
    x = sa.asarray([1.0, 2.0])
    assert all(math.isnan(v) for v in sa.clip(x, min=math.nan).tolist())
    assert all(math.isnan(v) for v in sa.clip(x, max=math.nan).tolist())
    assert all(math.isnan(v) for v in sa.clip(x, min=sa.asarray([math.nan, math.nan])).tolist())
    assert sa.clip(x, min=1.5).tolist() == [1.5, 2.0]


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "round"])
def test_rounding_keeps_negative_zero(name):
    x = sa.asarray([-0.0, -0.25, 0.0, 0.25, -1.5, 2.5, math.inf, -math.inf])
    ref = getattr(np, name)(np.asarray(x))
    out = getattr(sa, name)(x)
    assert out.tolist() == ref.tolist()
    assert signs(out) == [math.copysign(1.0, v) for v in ref.tolist()]
    assert math.isnan(getattr(sa, name)(sa.asarray([math.nan])).item())


def test_clip_bounds_may_broadcast_beyond_x():
    x = sa.asarray([1.0, 5.0])
    lo = sa.asarray([[0.0], [2.0]])
    out = sa.clip(x, min=lo, max=4.0)
    assert out.shape == (2, 2)
    assert_same(out, np.clip(np.asarray(x), np.asarray(lo), 4.0))


def test_boolean_mask_getitem_matches_numpy():
    x, ref = pair((2, 3, 4), sa.int64)
    m = np.arange(12).reshape(3, 4) % 3 == 0
    mask = sa.asarray(m)
    assert_same(x[x % 2 == 0], ref[ref % 2 == 0])
    assert_same(x[:, mask], ref[:, m])
    assert_same(x[..., sa.asarray([True, False, False, True])], ref[..., [True, False, False, True]])
    assert_same(x[sa.asarray(True)], ref[np.True_])
    assert_same(x[sa.asarray(False)], ref[np.False_])
    assert_same(x[None, 1, mask], ref[None, 1, m])
    view = x[:, ::-1, ::2]  # a non-contiguous view
    vref = ref[:, ::-1, ::2]
    assert_same(view[:, sa.asarray([True, False, True])], vref[:, [True, False, True]])


def test_boolean_mask_setitem_matches_numpy():
    x, ref = pair((3, 4), sa.float64)
    x[x > 5.0] = -1.0
    ref[ref > 5.0] = -1.0
    assert_same(x, ref)
    cols = sa.asarray([True, False, True, False])
    x[:, cols] = sa.asarray([7.0, 8.0])
    ref[:, [True, False, True, False]] = [7.0, 8.0]
    assert_same(x, ref)
    base, rbase = pair((4, 4), sa.int64)
    v = base[1:, ::2]  # writes reach the storage through a view
    v[v % 3 == 0] = 100
    rv = rbase[1:, ::2]
    rv[rv % 3 == 0] = 100
    assert_same(base, rbase)


def test_boolean_mask_with_an_empty_axis_selects_nothing():
    x = sa.zeros((0, 1))
    assert x[sa.zeros((0, 0), dtype=sa.bool)].shape == (0,)
    y = sa.zeros((2, 3))
    assert y[sa.zeros((2, 0), dtype=sa.bool)].shape == (0,)


def test_left_shift_drops_the_bits_shifted_out():
    assert (sa.asarray([1], dtype=sa.int32) << 32).tolist() == [0]
    assert (sa.asarray([64], dtype=sa.int8) << 1).tolist() == [-128]
    assert (sa.asarray([255], dtype=sa.uint8) << 4).tolist() == [240]
    assert (sa.asarray([3]) << 10**9).tolist() == [0]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint64"])
def test_integer_pow_wraps_in_the_bit_width_like_numpy(dtype):
    a = np.asarray([2, 3, 7, 0, 1], dtype=dtype)
    b = np.asarray([7, 40, 63, 0, 127], dtype=dtype)
    assert_same(sa.asarray(a) ** sa.asarray(b), np_quiet(np.power, a, b))
    assert (sa.asarray(a) ** sa.asarray(b)).tolist() == np_quiet(np.power, a, b).tolist()
    huge = np_quiet(np.power, np.asarray([3]), np.asarray([2**62]))  # fast, not a huge int
    assert (sa.asarray([3]) ** (2**62)).tolist() == huge.tolist()


def test_boolean_mask_errors_name_the_shapes():
    x = sa.zeros((2, 3))
    with pytest.raises(IndexError, match=r"\(2,\).*\(3,\)"):
        x[:, sa.asarray([True, False])]
    with pytest.raises(IndexError, match="one boolean array"):
        x[sa.asarray([True, False]), sa.asarray([True, False, True])]
    with pytest.raises(ValueError, match="read-only"):
        sa.broadcast_to(sa.zeros(3), (2, 3))[sa.asarray([True, True])] = 1.0


# ------------------------------------------------------------------ dtypes


@pytest.mark.parametrize("d1", ALL_DTYPES)
@pytest.mark.parametrize("d2", ALL_DTYPES)
def test_promotion_matches_numpy(d1, d2):
    assert sa.result_type(getattr(sa, d1), getattr(sa, d2)).name == np.result_type(d1, d2).name


@pytest.mark.parametrize("name", INT_DTYPES)
def test_iinfo_and_integer_arrays(name):
    dt = getattr(sa, name)
    info = sa.iinfo(dt)
    assert (info.min, info.max, info.bits) == (
        int(np.iinfo(name).min), int(np.iinfo(name).max), np.iinfo(name).bits)
    x = sa.asarray([1, 2, 3], dtype=dt)
    assert x.dtype == dt and (x + 1).dtype == dt and sa.sum(x).dtype.name == (
        np.sum(np.asarray([1], dtype=name)).dtype.name)
    assert np.asarray(x).dtype == np.dtype(name)
    assert_same(~x, ~np.asarray([1, 2, 3], dtype=name))


def test_can_cast_and_finfo():
    assert sa.can_cast(sa.int8, sa.int16) and sa.can_cast(sa.uint8, sa.int16)
    assert not sa.can_cast(sa.int16, sa.int8) and not sa.can_cast(sa.uint8, sa.int8)
    assert not sa.can_cast(sa.float64, sa.float32) and sa.can_cast(sa.float32, sa.float64)
    assert not sa.can_cast(sa.bool, sa.int8) and sa.can_cast(sa.asarray([1.0]), sa.float64)
    assert sa.finfo(sa.asarray([1.0], dtype=sa.float32)).bits == 32
    with pytest.raises(TypeError, match="int8"):
        sa.finfo(sa.int8)


def test_namespace_info():
    info = sa.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is True
    assert info.default_device() in info.devices()
    assert info.default_dtypes()["integral"] == sa.int64
    assert set(info.dtypes()) == set(ALL_DTYPES)
    assert set(info.dtypes(kind="unsigned integer")) == {"uint8", "uint16", "uint32", "uint64"}
    assert set(info.dtypes(kind=("bool", "real floating"))) == {"bool", "float32", "float64"}
    with pytest.raises(ValueError, match="cuda"):
        info.dtypes(device="cuda")


def test_dlpack_is_a_named_deviation():
    with pytest.raises(BufferError, match="DLPack"):
        sa.from_dlpack(np.zeros(2))
    with pytest.raises(BufferError, match="DLPack"):
        sa.zeros(2).__dlpack__()


# ------------------------------------------------------------- elementwise


FLOATS = [-math.inf, -3.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 800.0, math.inf, math.nan]
UNARY = ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
         "signbit", "round"]


@pytest.mark.parametrize("name", UNARY)
def test_new_unary_functions_match_numpy_with_special_cases(name):
    x = sa.asarray(FLOATS)
    ref = np_quiet(getattr(np, name), np.asarray(FLOATS))
    out = getattr(sa, name)(x)
    assert_same(out, ref)
    if ref.dtype.kind == "f":
        assert [math.copysign(1.0, v) for v in out.tolist() if v == v] == [
            math.copysign(1.0, v) for v in ref.tolist() if v == v]


BINARY = ["atan2", "hypot", "logaddexp", "copysign"]


@pytest.mark.parametrize("name", BINARY)
def test_new_binary_functions_match_numpy_with_special_cases(name):
    a = np.repeat(np.asarray(FLOATS), len(FLOATS))
    b = np.tile(np.asarray(FLOATS), len(FLOATS))
    ref = np_quiet(getattr(np, name), a, b)
    out = getattr(sa, name)(sa.asarray(a), sa.asarray(b))
    assert_same(out, ref)
    assert [math.copysign(1.0, v) for v in out.tolist() if v == v] == [
        math.copysign(1.0, v) for v in ref.tolist() if v == v]


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor",
                                  "bitwise_left_shift", "bitwise_right_shift"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64"])
def test_bitwise_functions_match_numpy(name, dtype):
    a = np.asarray([0, 1, 5, 7, 12, 100, 127], dtype=dtype)
    b = np.asarray([0, 1, 3, 2, 1, 4, 7], dtype=dtype)
    ref = getattr(np, name)(a, b)
    out = getattr(sa, name)(sa.asarray(a), sa.asarray(b))
    assert_same(out, ref)
    assert out.tolist() == ref.tolist()  # in range without __array__'s wrap-around


# ------------------------------------------------- sorting, searching, sets


@settings(max_examples=40, deadline=None)
@given(vals=st.lists(st.sampled_from([0.0, -0.0, 1.0, 2.0, -3.0, math.inf, 1.0]), min_size=1,
                     max_size=12),
       descending=st.booleans())
def test_sort_argsort_stable_like_numpy(vals, descending):
    x = np.asarray(vals).reshape(-1, 1) * np.asarray([1.0, -1.0])
    for axis in (0, 1, -1):
        ours = sa.argsort(sa.asarray(x), axis=axis, descending=descending)
        # stable descending order is the stable ascending order of -x
        ref = np.argsort(-x if descending else x, axis=axis, stable=True)
        assert_same(ours, ref)
        assert_same(sa.sort(sa.asarray(x), axis=axis, descending=descending),
                    np.take_along_axis(x, ref, axis=axis))


def test_searchsorted_nonzero_and_unique_match_numpy():
    hay = np.asarray([1.0, 2.0, 2.0, 5.0])
    needles = np.asarray([[0.0, 2.0], [5.0, 9.0]])
    for side in ("left", "right"):
        assert_same(sa.searchsorted(sa.asarray(hay), sa.asarray(needles), side=side),
                    np.searchsorted(hay, needles, side=side))
    perm = np.asarray([3, 1, 0, 2])
    assert_same(sa.searchsorted(sa.asarray(hay[perm]), sa.asarray(needles),
                                sorter=sa.asarray(np.argsort(hay[perm]))),
                np.searchsorted(hay, needles))
    x = np.asarray([[0, 3, 0], [2, 0, 1]])
    for ours, ref in zip(sa.nonzero(sa.asarray(x)), np.nonzero(x)):
        assert_same(ours, ref)
    with pytest.raises(ValueError, match="0-d"):
        sa.nonzero(sa.asarray(1))
    y = np.asarray([[3, 1, 3], [2, 1, 3]])
    ua = sa.unique_all(sa.asarray(y))
    ref = np.unique_all(y)
    for field in ("values", "indices", "inverse_indices", "counts"):
        assert_same(getattr(ua, field), getattr(ref, field))
    assert_same(sa.unique_values(sa.asarray(y)), np.unique(y))  # NumPy's unique_values is unordered
    nan_count = sa.unique_counts(sa.asarray([math.nan, 1.0, math.nan])).counts.tolist()
    assert nan_count == [1, 1, 1]  # every nan is a distinct value
    assert_same(sa.unique_inverse(sa.asarray(y)).inverse_indices, np.unique_inverse(y)[1])


# ------------------------------------------------------- manipulation, creation


def test_manipulation_functions_match_numpy():
    x, ref = pair((2, 3, 4), sa.int64)
    assert_same(sa.moveaxis(x, 0, -1), np.moveaxis(ref, 0, -1))
    assert_same(sa.moveaxis(x, (0, 1), (2, 0)), np.moveaxis(ref, (0, 1), (2, 0)))
    assert_same(sa.repeat(x, 2, axis=1), np.repeat(ref, 2, axis=1))
    assert_same(sa.repeat(x, sa.asarray([1, 0, 2]), axis=1), np.repeat(ref, [1, 0, 2], axis=1))
    assert_same(sa.repeat(x, 2), np.repeat(ref, 2))
    assert_same(sa.roll(x, 5), np.roll(ref, 5))
    assert_same(sa.roll(x, (1, -1), axis=(0, 2)), np.roll(ref, (1, -1), axis=(0, 2)))
    assert_same(sa.tile(x, (2, 1, 1, 2)), np.tile(ref, (2, 1, 1, 2)))
    assert_same(sa.tile(x, (0,)), np.tile(ref, (0,)))
    for ours, r in zip(sa.unstack(x, axis=1), np.unstack(ref, axis=1)):
        assert_same(ours, r)
    with pytest.raises(ValueError, match="2 repeats for axis 1 of size 3"):
        sa.repeat(x, sa.asarray([1, 2]), axis=1)
    with pytest.raises(ValueError, match=r"non-negative, got \(2, -1\)"):
        sa.tile(x, (2, -1))
    with pytest.raises(ValueError, match=r"sorter.*\(4,\).*\(2,\)"):
        sa.searchsorted(sa.asarray([1, 2, 3, 4]), sa.asarray([2]), sorter=sa.asarray([0, 1]))


def test_creation_functions_match_numpy():
    a, b = sa.asarray([1, 2]), sa.asarray([3.0, 4.0, 5.0])
    for indexing in ("xy", "ij"):
        for ours, ref in zip(sa.meshgrid(a, b, sa.asarray([7, 8]), indexing=indexing),
                             np.meshgrid([1, 2], [3.0, 4.0, 5.0], [7, 8], indexing=indexing)):
            assert_same(ours, ref)
    x, ref = pair((2, 3, 4), sa.float64)
    for k in (-1, 0, 2):
        assert_same(sa.tril(x, k=k), np.tril(ref, k=k))
        assert_same(sa.triu(x, k=k), np.triu(ref, k=k))


def test_cumulative_sum_and_tensordot_match_numpy():
    x, ref = pair((2, 3), sa.int64)
    assert_same(sa.cumulative_sum(x, axis=1), np.cumulative_sum(ref, axis=1))
    assert_same(sa.cumulative_sum(x, axis=0, include_initial=True),
                np.cumulative_sum(ref, axis=0, include_initial=True))
    b = sa.asarray([True, True, False])
    assert_same(sa.cumulative_sum(b), np.cumulative_sum(np.asarray([True, True, False])))
    with pytest.raises(ValueError, match="axis is required"):
        sa.cumulative_sum(x)
    y, yref = pair((3, 2, 4), sa.float64)
    assert_same(sa.tensordot(x, y, axes=1), np.tensordot(ref, yref, axes=1))
    assert_same(sa.tensordot(x, y, axes=([0, 1], [1, 0])), np.tensordot(ref, yref, ([0, 1], [1, 0])))
    assert_same(sa.tensordot(x, x, axes=0), np.tensordot(ref, ref, axes=0))
    with pytest.raises(ValueError, match=r"axis 1 of shape \(2, 3\)"):
        sa.tensordot(x, y, axes=([1], [1]))
