"""Unit and property tests for the pure layout functions (episodes 1-4)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _array_helpers import nonempty_shapes, np_offset, np_strides, shapes
from hypothesis import given, settings
from hypothesis import strategies as st

from stridegrad.array import layout as L

# ------------------------------------------------------------------ numel / strides


@pytest.mark.parametrize(
    "shape, n", [((), 1), ((0,), 0), ((3,), 3), ((2, 3, 4), 24), ((2, 0, 5), 0), ((1, 1), 1)]
)
def test_numel(shape, n):
    assert L.numel(shape) == n


@pytest.mark.parametrize(
    "shape, strides",
    [((), ()), ((5,), (1,)), ((2, 3), (3, 1)), ((2, 3, 4), (12, 4, 1)), ((4, 1, 2), (2, 2, 1))],
)
def test_contiguous_strides(shape, strides):
    assert L.contiguous_strides(shape) == strides


@given(nonempty_shapes)
def test_contiguous_strides_match_numpy(shape):
    assert L.contiguous_strides(shape) == np_strides(np.zeros(shape))


def test_contiguous_strides_of_empty_shapes_follow_numpy_reshape():
    # a 0-size axis counts as 1, so no stride is 0 (0 means "broadcast")
    ref = np.arange(0.0).reshape(3, 0, 2)
    assert L.contiguous_strides((3, 0, 2)) == np_strides(ref) == (2, 2, 1)


def test_index_to_offset():
    assert L.index_to_offset((), ()) == 0
    assert L.index_to_offset((), (), 7) == 7
    assert L.index_to_offset((1, 2), (3, 1)) == 5
    assert L.index_to_offset((1, 2), (1, 2), offset=10) == 15
    assert L.index_to_offset((2,), (-1,), offset=4) == 2


@given(st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple))
def test_offset_to_index_inverts_index_to_offset(shape):
    strides = L.contiguous_strides(shape)
    for k, index in enumerate(itertools.product(*(range(d) for d in shape))):
        assert L.index_to_offset(index, strides) == k
        assert L.offset_to_index(k, shape) == index


def test_offset_to_index_out_of_range():
    with pytest.raises(ValueError, match=r"offset 6 .*\(2, 3\).* 6 elements"):
        L.offset_to_index(6, (2, 3))
    with pytest.raises(ValueError, match="offset -1"):
        L.offset_to_index(-1, (2, 3))


# ------------------------------------------------------------------------- indices


def test_check_index_normalises_negatives():
    assert L.check_index((-1, 0), (3, 4)) == (2, 0)
    assert L.check_index((), ()) == ()
    assert L.check_index((np.int64(1),), (2,)) == (1,)


def test_check_index_errors():
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        L.check_index((5, 0), (3, 4))
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        L.check_index((0, -5), (3, 4))
    with pytest.raises(IndexError, match=r"2 entries .* 3-dimensional"):
        L.check_index((0, 0), (3, 4, 5))
    with pytest.raises(TypeError, match="float"):
        L.check_index((1.0,), (3,))


# ------------------------------------------------------------------- contiguity


@pytest.mark.parametrize(
    "shape, strides, expected",
    [
        ((), (), True),
        ((2, 3), (3, 1), True),
        ((3, 2), (1, 3), False),
        ((2, 1, 3), (3, 99, 1), True),  # size-1 axes may have any stride
        ((2, 3), (6, 2), False),
        ((0, 3), (7, 7), True),  # empty arrays are contiguous
        ((1,), (0,), True),
        ((3,), (0,), False),
        ((3,), (-1,), False),
    ],
)
def test_is_contiguous(shape, strides, expected):
    assert L.is_contiguous(shape, strides) is expected


@settings(max_examples=80)
@given(shapes, st.data())
def test_is_contiguous_matches_numpy_flag(shape, data):
    ref = np.arange(L.numel(shape), dtype=np.float64).reshape(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    ref = ref.transpose(perm)
    if ref.ndim:
        ref = ref[data.draw(st.sampled_from([slice(None), slice(None, None, 2), slice(1, None)]))]
    assert L.is_contiguous(ref.shape, np_strides(ref)) == ref.flags.c_contiguous


# ---------------------------------------------------------------------- permute


def test_permute_layout():
    assert L.permute_layout((2, 3, 4), (12, 4, 1), (2, 0, 1)) == ((4, 2, 3), (1, 12, 4))
    assert L.permute_layout((), (), ()) == ((), ())


@pytest.mark.parametrize("axes", [(0, 0), (0,), (0, 1, 2), (1, 2), (-1, 0)])
def test_permute_layout_rejects_non_permutations(axes):
    pattern = rf"axes {re_tuple(axes)} is not a permutation of range\(2\)"
    with pytest.raises(ValueError, match=pattern):
        L.permute_layout((2, 3), (3, 1), axes)


def re_tuple(t):
    return str(tuple(t)).replace("(", r"\(").replace(")", r"\)")


# ------------------------------------------------------------------------ slices


@settings(max_examples=300)
@given(
    st.integers(0, 9),
    st.sampled_from([1, 3, -2]),
    st.one_of(st.none(), st.integers(-12, 12)),
    st.one_of(st.none(), st.integers(-12, 12)),
    st.one_of(st.none(), st.integers(-4, 4).filter(bool)),
)
def test_slice_layout_matches_numpy(size, stride, start, stop, step):
    base = np.arange(30.0)
    origin = 15  # room for negative strides on both sides
    ref = np.lib.stride_tricks.as_strided(base[origin:], shape=(size,), strides=(stride * 8,)) \
        if stride > 0 else np.lib.stride_tricks.as_strided(
            base[origin:], shape=(size,), strides=(stride * 8,))
    sl = slice(start, stop, step)
    view = ref[sl]
    delta, n, new_stride = L.slice_layout(size, stride, sl)
    assert n == view.shape[0]
    assert new_stride == view.strides[0] // 8
    assert origin + delta == np_offset(view, base)
    # the positions the slice picks, against the plain Python loop it stands for
    assert [delta + j * new_stride for j in range(n)] == [
        i * stride for i in range(*sl.indices(size))
    ]


def test_slice_layout_examples():
    assert L.slice_layout(10, 1, slice(None, None, -3)) == (9, 4, -3)
    assert L.slice_layout(5, 2, slice(1, 4)) == (2, 3, 2)
    assert L.slice_layout(5, 2, slice(4, 1)) == (0, 0, 2)  # empty: NumPy keeps the stride


def test_slice_layout_step_zero():
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        L.slice_layout(5, 1, slice(None, None, 0))


# ----------------------------------------------------------------------- reshape


def test_reshape_strides_examples():
    assert L.reshape_strides((2, 3), (3, 1), (3, 2)) == (2, 1)
    assert L.reshape_strides((3, 2), (1, 3), (6,)) is None  # transposed: needs a copy
    assert L.reshape_strides((3, 2), (1, 3), (3, 2, 1)) == (1, 3, 3)
    assert L.reshape_strides((4, 3), (6, 1), (2, 2, 3)) == (12, 6, 1)  # split a strided axis
    assert L.reshape_strides((4, 3), (6, 1), (12,)) is None


def test_reshape_strides_size_mismatch():
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        L.reshape_strides((2, 3), (3, 1), (4,))


@settings(max_examples=200, deadline=None)
@given(shapes, st.data())
def test_reshape_strides_match_numpy(shape, data):
    ref = np.arange(L.numel(shape), dtype=np.float64).reshape(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    ref = ref.transpose(perm)
    if ref.ndim:
        k = data.draw(st.integers(0, ref.ndim - 1))
        key = (slice(None),) * k + (data.draw(st.sampled_from(
            [slice(None), slice(None, None, 2), slice(None, None, -1)])),)
        ref = ref[key]
    n = ref.size
    divisors = [d for d in range(1, n + 1) if n % d == 0] or [0]
    a = data.draw(st.sampled_from(divisors))
    new_shape = data.draw(st.sampled_from(
        [(n,), (a, n // a) if a else (0, 3), (1, n, 1), (a, 1, n // a) if a else (2, 0)]))
    got = L.reshape_strides(ref.shape, np_strides(ref), new_shape)
    if tuple(new_shape) == ref.shape:
        return  # NumPy's same-shape shortcut lives in reshape(), not here
    new = ref.reshape(new_shape)
    root = ref
    while root.base is not None:
        root = root.base
    new_root = new
    while new_root.base is not None:
        new_root = new_root.base
    if new_root is root:
        assert got == np_strides(new) or new.size == 0
    else:
        assert got is None


def test_infer_shape():
    assert L.infer_shape((2, -1), 6) == (2, 3)
    assert L.infer_shape((-1,), 0) == (0,)
    assert L.infer_shape((2, 3), 6) == (2, 3)
    assert L.infer_shape((), 1) == ()


@pytest.mark.parametrize(
    "shape, n, pattern",
    [
        ((-1, -1), 6, r"one unknown dimension.*\(-1, -1\)"),
        ((4, -1), 6, r"size 6 into shape \(4, -1\)"),
        ((4,), 6, r"size 6 into shape \(4,\)"),
        ((0, -1), 0, r"size 0 into shape \(0, -1\)"),
        ((-2, 3), 6, r"negative dimensions.*\(-2, 3\)"),
    ],
)
def test_infer_shape_errors(shape, n, pattern):
    with pytest.raises(ValueError, match=pattern):
        L.infer_shape(shape, n)


# -------------------------------------------------------------------- broadcasting


@pytest.mark.parametrize(
    "shapes_, out",
    [
        ([], ()),
        ([(2, 1), (3,)], (2, 3)),
        ([(4, 1, 3), (5, 1)], (4, 5, 3)),
        ([(), (2, 2)], (2, 2)),
        ([(0,), (1,)], (0,)),
        ([(1, 0), (3, 1)], (3, 0)),
        ([(2, 1, 1), (1, 3, 1), (1, 1, 4)], (2, 3, 4)),
    ],
)
def test_broadcast_shapes(shapes_, out):
    assert L.broadcast_shapes(*shapes_) == out


def test_broadcast_shapes_error_names_both_shapes():
    with pytest.raises(
        ValueError,
        match=r"operands could not be broadcast together with shapes \(2, 3\) and \(4, 3\)",
    ):
        L.broadcast_shapes((2, 3), (4, 3))
    with pytest.raises(ValueError, match=r"\(3,\) and \(1, 2\)"):
        L.broadcast_shapes((1, 1), (3,), (1, 2))


@settings(max_examples=150)
@given(st.lists(shapes, min_size=1, max_size=3))
def test_broadcast_shapes_match_numpy(shape_list):
    try:
        expected = np.broadcast_shapes(*shape_list)
    except ValueError:
        with pytest.raises(ValueError, match="could not be broadcast"):
            L.broadcast_shapes(*shape_list)
    else:
        assert L.broadcast_shapes(*shape_list) == expected


def test_broadcast_strides():
    assert L.broadcast_strides((3, 1), (1, 1), (2, 3, 4)) == (0, 1, 0)
    assert L.broadcast_strides((3,), (2,), (3,)) == (2,)
    assert L.broadcast_strides((), (), (2, 2)) == (0, 0)
    with pytest.raises(ValueError, match=r"cannot broadcast shape \(3,\) to \(4,\)"):
        L.broadcast_strides((3,), (1,), (4,))
    with pytest.raises(ValueError, match=r"cannot broadcast shape \(2, 3\) to \(3,\)"):
        L.broadcast_strides((2, 3), (3, 1), (3,))


@given(shapes, st.data())
def test_broadcast_strides_match_numpy(shape, data):
    ref = np.arange(L.numel(shape), dtype=np.float64).reshape(shape)
    lead = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    target = lead + tuple(data.draw(st.integers(0, 3)) if d == 1 else d for d in shape)
    expected = np.broadcast_to(ref, target)
    assert L.broadcast_strides(shape, np_strides(ref), target) == np_strides(expected)


# ---------------------------------------------------------------------- iteration


def test_iter_offsets_examples():
    assert L.iter_offsets((), ()) == [0]
    assert L.iter_offsets((), (), 4) == [4]
    assert L.iter_offsets((2, 3), (1, 2)) == [0, 2, 4, 1, 3, 5]
    assert L.iter_offsets((2, 0), (1, 1)) == []
    assert L.iter_offsets((3,), (0,), 2) == [2, 2, 2]
    assert L.iter_offsets((3,), (-2,), 4) == [4, 2, 0]


@settings(max_examples=150)
@given(
    st.lists(st.integers(0, 14), max_size=4).map(tuple),
    st.lists(st.integers(-5, 5), min_size=4, max_size=4),
    st.integers(0, 50),
)
def test_iter_offsets_is_the_nested_loop(shape, strides, offset):
    strides = tuple(strides[: len(shape)])
    expected = [
        L.index_to_offset(index, strides, offset)
        for index in itertools.product(*(range(d) for d in shape))
    ]
    assert L.iter_offsets(shape, strides, offset) == expected


# ---------------------------------------------------------------------- lesson 03's kernels
# The strided array runs map_unary, map_binary and reduce_axis; each has a shortcut
# (a contiguous view read as a slice, a lane with a positive stride as a strided
# slice). Against the lesson's plain loops, on views of every kind: the same values,
# and fn called the same number of times on the same values in the same order.


def _plain_map_unary(fn, x):
    storage, shape, strides, offset = x
    return [fn(storage[p]) for p in L.iter_offsets(shape, strides, offset)]


def _plain_reduce_axis(fn, x, axis, keepdims=False):
    storage, shape, strides, offset = x
    axis %= len(shape)
    rest, rest_strides = shape[:axis] + shape[axis + 1:], strides[:axis] + strides[axis + 1:]
    values = [fn([storage[start + j * strides[axis]] for j in range(shape[axis])])
              for start in L.iter_offsets(rest, rest_strides, offset)]
    return values, shape[:axis] + (1,) + shape[axis + 1:] if keepdims else rest


@st.composite
def _views(draw, shape=None):
    """A view over a storage list that holds all its elements: contiguous (at an offset,
    or the whole storage), or with any strides (negative, 0)."""
    if shape is None:
        shape = draw(st.lists(st.integers(0, 4), max_size=3).map(tuple))
    if draw(st.booleans()):
        strides = L.contiguous_strides(shape)
    else:
        strides = tuple(draw(st.integers(-4, 4)) for _ in shape)
    reach = [abs(s) * (d - 1) for d, s in zip(shape, strides) if d]
    low = sum(s * (d - 1) for d, s in zip(shape, strides) if d and s < 0)
    offset = -low + draw(st.integers(0, 3))
    size = offset + sum(r for r, s in zip(reach, strides) if s > 0) + 1 + draw(st.integers(0, 3))
    if draw(st.booleans()) and strides == L.contiguous_strides(shape):
        offset, size = 0, L.numel(shape)  # the whole storage
    storage = [draw(st.integers(-9, 9)) * 0.5 for _ in range(size)]
    return (storage, shape, strides, offset)


def _recorded(fn):
    calls = []

    def recording(*args):
        calls.append(args)
        return fn(*args)

    return recording, calls


@settings(max_examples=200)
@given(_views())
def test_map_unary_shortcut_is_the_plain_loop(x):
    fast, fast_calls = _recorded(lambda v: v * 3 - 1)
    slow, slow_calls = _recorded(lambda v: v * 3 - 1)
    before = list(x[0])
    assert L.map_unary(fast, x) == _plain_map_unary(slow, x)
    assert fast_calls == slow_calls and x[0] == before


@settings(max_examples=200)
@given(st.lists(st.integers(0, 4), max_size=3).map(tuple).flatmap(
    lambda shape: st.tuples(_views(shape), _views(shape))))
def test_map_binary_shortcut_is_the_plain_loop(pair):
    x, y = pair
    fast, fast_calls = _recorded(lambda a, b: a * 2 - b)
    slow, slow_calls = _recorded(lambda a, b: a * 2 - b)
    want = [slow(u, v) for u, v in zip(_plain_map_unary(lambda v: v, x),
                                       _plain_map_unary(lambda v: v, y))]
    assert L.map_binary(fast, x, y) == want
    assert fast_calls == slow_calls


@settings(max_examples=200)
@given(_views().filter(lambda x: len(x[1]) > 0), st.data())
def test_reduce_axis_shortcut_is_the_plain_loop(x, data):
    axis = data.draw(st.integers(-len(x[1]), len(x[1]) - 1))
    keepdims = data.draw(st.booleans())
    fast, fast_calls = _recorded(lambda lane: sum(lane, 0.25))
    slow, slow_calls = _recorded(lambda lane: sum(lane, 0.25))
    assert L.reduce_axis(fast, x, axis, keepdims) == _plain_reduce_axis(slow, x, axis, keepdims)
    assert fast_calls == slow_calls
    assert all(type(lane) is list for (lane,) in fast_calls)


def test_the_strided_array_calls_the_kernels_through_the_module(monkeypatch):
    # what `stridegrad yours` relies on: setting layout.map_unary changes what sa.exp runs
    import stridegrad.array as sa

    calls = []
    for name in ("map_unary", "map_binary", "reduce_axis"):
        original = getattr(L, name)

        def spy(*args, _f=original, _name=name):
            calls.append(_name)
            return _f(*args)

        monkeypatch.setattr(L, name, spy)
    x = sa.reshape(sa.arange(6.0), (2, 3))
    t = sa.permute_dims(x, (1, 0))
    assert sa.exp(t).shape == (3, 2) and calls == ["map_unary"]
    assert sa.add(x, 1.0).shape == (2, 3) and sa.multiply(t, t).shape == (3, 2)
    assert calls[1:] == ["map_binary", "map_binary"]
    del calls[:]
    for reduction in (sa.sum, sa.prod, sa.max, sa.min, sa.any, sa.all, sa.argmax, sa.var):
        reduction(t, axis=0)
        reduction(x)
    assert calls == ["reduce_axis"] * 16
