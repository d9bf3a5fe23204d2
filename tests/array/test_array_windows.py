"""as_strided and sliding_window_view: checked views of the same storage, NumPy as the oracle."""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad.array as sa


def _arange(shape):
    n = int(np.prod(shape))
    return sa.reshape(sa.arange(n, dtype=sa.float64), shape), np.arange(n, dtype=np.float64).reshape(shape)


@pytest.mark.parametrize(
    "shape, window, axis",
    [
        ((7,), 3, None),
        ((5, 6), (2, 3), None),
        ((2, 3, 5, 6), (3, 3), (2, 3)),
        ((2, 3, 5, 6), (2, 2), (-2, -1)),
        ((4, 5), 4, 0),
        ((4, 5), (1, 5), (0, 1)),
    ],
)
def test_sliding_window_view_matches_numpy(shape, window, axis):
    x, a = _arange(shape)
    v = sa.sliding_window_view(x, window, axis=axis)
    ref = np.lib.stride_tricks.sliding_window_view(a, window, axis=axis)
    assert v.shape == ref.shape
    assert v.strides == tuple(s // a.itemsize for s in ref.strides)
    np.testing.assert_array_equal(np.asarray(v), ref)
    assert v.storage is x.storage and v.readonly


def test_windows_of_a_transposed_strided_view():
    x, a = _arange((2, 3, 6, 5))
    xt = sa.permute_dims(x, (0, 1, 3, 2))[:, :, ::2, :]
    v = sa.sliding_window_view(xt, (2, 2), axis=(2, 3))[:, :, ::2, ::3]
    ref = np.lib.stride_tricks.sliding_window_view(
        a.transpose(0, 1, 3, 2)[:, :, ::2, :], (2, 2), axis=(2, 3)
    )[:, :, ::2, ::3]
    np.testing.assert_array_equal(np.asarray(v), ref)
    assert v.storage is x.storage


def test_as_strided_is_checked():
    x, _ = _arange((3, 4))
    v = sa.as_strided(x, (3, 2), (4, 2), offset=1)
    assert v.tolist() == [[1.0, 3.0], [5.0, 7.0], [9.0, 11.0]]
    assert v.readonly and not sa.as_strided(x, (2,), (1,), writeable=True).readonly
    with pytest.raises(ValueError, match=r"reach storage positions 0 to 15.*12 elements"):
        sa.as_strided(x, (4, 4), (4, 1))
    with pytest.raises(ValueError, match=r"positions -1 to"):
        sa.as_strided(x, (2,), (-1,), offset=0)
    with pytest.raises(ValueError, match="2 strides"):
        sa.as_strided(x, (2,), (1, 1))
    assert sa.as_strided(x, (0, 5), (100, 100)).shape == (0, 5)  # reads nothing


def test_sliding_window_view_errors():
    x, _ = _arange((3, 4))
    with pytest.raises(ValueError, match=r"window \(4,\) does not fit in shape \(3, 4\)"):
        sa.sliding_window_view(x, 4, axis=0)
    with pytest.raises(ValueError, match="2 entries for 1 axes"):
        sa.sliding_window_view(x, (2, 2), axis=1)
    with pytest.raises(TypeError, match="StridedArray"):
        sa.sliding_window_view(np.zeros(3), 2)
