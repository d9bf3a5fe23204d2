"""Shared helpers for the stridegrad.array tests: NumPy is the oracle."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import stridegrad.array as sa

NP_DTYPES = {
    sa.bool: np.bool_,
    sa.int64: np.int64,
    sa.float32: np.float32,
    sa.float64: np.float64,
}


def np_offset(view: np.ndarray, root: np.ndarray) -> int:
    """NumPy's element offset of ``view`` inside ``root``'s buffer."""
    return (view.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // (
        view.itemsize
    )


def np_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def assert_same(ours: sa.StridedArray, ref, *, exact: bool = False, check_dtype: bool = True):
    """Namespace, shape, dtype, then values (allclose unless ``exact``)."""
    ref = np.asarray(ref)
    assert isinstance(ours, sa.StridedArray), type(ours)
    assert ours.__array_namespace__() is sa
    assert ours.shape == ref.shape, (ours.shape, ref.shape)
    if check_dtype:
        assert ours.dtype.name == ref.dtype.name, (ours.dtype, ref.dtype)
    got = np.asarray(ours)
    if exact or ref.dtype.kind in "bi":
        np.testing.assert_array_equal(got, ref)
    else:
        # float32 is a label here (computed in double precision); NumPy rounds to single
        rtol, atol = (2e-5, 1e-4) if ref.dtype == np.float32 else (1e-9, 1e-12)
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, equal_nan=True)


def assert_layout(ours: sa.StridedArray, ref: np.ndarray, root: np.ndarray):
    """Shape, strides (in elements) and offset as NumPy's, and the same values."""
    assert ours.shape == ref.shape, (ours.shape, ref.shape)
    assert ours.tolist() == ref.tolist()
    if ref.size:
        assert ours.strides == np_strides(ref), (ours.strides, np_strides(ref), ref.shape)
        assert ours.offset == np_offset(ref, root), (ours.offset, np_offset(ref, root))


def np_root(a: np.ndarray) -> np.ndarray:
    while a.base is not None:
        a = a.base
    return a


shapes = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 5), min_size=0, max_size=4).map(tuple)


def pair(shape, dtype=sa.float64, start=0):
    """The same data as a NumPy array and a StridedArray: arange values of ``shape``."""
    n = int(np.prod(shape, dtype=np.int64))
    ref = np.arange(start, start + n, dtype=NP_DTYPES[dtype]).reshape(shape)
    ours = sa.reshape(sa.arange(start, start + n, dtype=dtype), shape)
    return ours, ref


@st.composite
def array_pairs(draw, shape=None, dtype=None, noncontiguous=True, elements=None):
    """(StridedArray, ndarray) with equal values; often a non-contiguous view."""
    if shape is None:
        shape = draw(shapes)
    if dtype is None:
        dtype = draw(st.sampled_from([sa.float64, sa.float32, sa.int64, sa.bool]))
    n = int(np.prod(shape, dtype=np.int64))
    if elements is None:
        if dtype.kind == "f":
            elements = st.floats(-8, 8, allow_nan=False, width=32).map(float)
        elif dtype.kind == "i":
            elements = st.integers(-6, 6)
        else:
            elements = st.booleans()
    vals = draw(st.lists(elements, min_size=n, max_size=n))
    layout_kind = draw(st.sampled_from(["contiguous", "transposed", "sliced"])) if (
        noncontiguous and len(shape) >= 1
    ) else "contiguous"
    npdt = NP_DTYPES[dtype]
    if layout_kind == "transposed":
        # store the transpose, then view it back: same logical values, permuted strides
        ref = np.array(vals, dtype=npdt).reshape(shape)
        perm = draw(st.permutations(range(len(shape))))
        inv = tuple(int(i) for i in np.argsort(perm))
        stored = np.ascontiguousarray(ref.transpose(perm))
        ours = sa.permute_dims(sa.asarray(stored, dtype=dtype), inv)
        return ours, ref
    if layout_kind == "sliced":
        # every other element of a bigger array along the last axis, walked backwards
        big_shape = shape[:-1] + (2 * shape[-1],)
        big = np.zeros(big_shape, dtype=npdt)
        big[..., ::-2] = np.array(vals, dtype=npdt).reshape(shape)
        ours_big = sa.asarray(big, dtype=dtype)
        ours = ours_big[..., ::-2]
        return ours, big[..., ::-2]
    ref = np.array(vals, dtype=npdt).reshape(shape)
    return sa.asarray(ref, dtype=dtype), ref
