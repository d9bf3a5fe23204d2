"""The strided array's matmul runs lesson 05's kernels (``layout.matmul_2d``,
``layout.batched_matmul``): against NumPy on views of every kind (transposed, stepped,
reversed, sliced from an offset, broadcast batches of several axes), and the kernels
themselves against the lesson's loop."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridegrad.array as sa
from stridegrad.array import layout


def _loop_2d(a, a_shape, a_strides, b, b_shape, b_strides):
    """The lesson's triple loop, the definition the kernels must agree with exactly."""
    (n, k), (_, m) = a_shape, b_shape
    out = []
    for i in range(n):
        for j in range(m):
            total = 0
            for p in range(k):
                total += a[i * a_strides[0] + p * a_strides[1]] * b[p * b_strides[0] + j * b_strides[1]]
            out.append(total)
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4),
       st.sampled_from(["plain", "transposed", "broadcast"]), st.booleans(), st.integers(0, 2**31))
def test_matmul_2d_is_the_loop_exactly(n, k, m, kind, floats, seed):
    rng = np.random.default_rng(seed)
    draw = (lambda size: rng.normal(size=size).tolist()) if floats else \
        (lambda size: rng.integers(-5, 6, size=size).tolist())
    a, b = draw(n * k + 1), draw(k * m + 1)
    a_strides = {"plain": (k, 1), "transposed": (1, n), "broadcast": (0, 1)}[kind]
    b_strides = (m, 1) if kind != "broadcast" else (1, 0)
    got = layout.matmul_2d(a, (n, k), a_strides, b, (k, m), b_strides)
    assert got == _loop_2d(a, (n, k), a_strides, b, (k, m), b_strides)
    assert all(type(v) is type(w) for v, w in zip(got, _loop_2d(a, (n, k), a_strides, b, (k, m), b_strides)))


def _loop_batched(a, a_shape, a_strides, b, b_shape, b_strides):
    """The lesson's loop over the batch: matrix t of each operand starts t batch strides in."""
    (nb, n, k), (_, _, m) = a_shape, b_shape
    out = []
    for t in range(nb):
        for i in range(n):
            for j in range(m):
                total = 0
                for p in range(k):
                    total += (a[t * a_strides[0] + i * a_strides[1] + p * a_strides[2]]
                              * b[t * b_strides[0] + p * b_strides[1] + j * b_strides[2]])
                out.append(total)
    return out


def _storage(shape, strides):
    """Distinct numbers for a view of ``shape`` read through ``strides`` from position 0,
    and a few more after it (so that reading one too many is seen)."""
    need = 0 if 0 in shape else sum((d - 1) * s for d, s in zip(shape, strides)) + 1
    return list(range(1, need + 4))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_kernels_are_the_loop_for_any_strides_0_included(data):
    """Every axis of either operand with any stride from 0 to 3 (0: a broadcast axis, the
    inner one included; more than 1: a stepped one), distinct values, so that a value
    read from the wrong place shows."""
    draw = data.draw
    n, k, m, nb = (draw(st.integers(0, 3)) for _ in range(4))
    a_strides = tuple(draw(st.integers(0, 3)) for _ in range(2))
    b_strides = tuple(draw(st.integers(0, 3)) for _ in range(2))
    a, b = _storage((n, k), a_strides), _storage((k, m), b_strides)
    assert layout.matmul_2d(a, (n, k), a_strides, b, (k, m), b_strides) == \
        _loop_2d(a, (n, k), a_strides, b, (k, m), b_strides)
    a3 = tuple(draw(st.integers(0, 3)) for _ in range(3))
    b3 = tuple(draw(st.integers(0, 3)) for _ in range(3))
    a, b = _storage((nb, n, k), a3), _storage((nb, k, m), b3)
    assert layout.batched_matmul(a, (nb, n, k), a3, b, (nb, k, m), b3) == \
        _loop_batched(a, (nb, n, k), a3, b, (nb, k, m), b3)


def test_batched_matmul_shares_a_matrix_of_batch_stride_0():
    # two 1 x 2 inputs, one shared (2, 1) weight: the lesson's example
    assert layout.batched_matmul([1, 2, 3, 4], (2, 1, 2), (2, 2, 1), [10, 1], (2, 2, 1),
                                 (0, 1, 1)) == [12, 34]
    with pytest.raises(ValueError, match=r"\(2, 1, 2\) and \(3, 2, 1\)"):
        layout.batched_matmul([0] * 4, (2, 1, 2), (2, 2, 1), [0] * 6, (3, 2, 1), (2, 1, 1))


def _sa(x: np.ndarray):
    """``x`` as a contiguous strided array (an empty one keeps its shape)."""
    return sa.reshape(sa.asarray(x.ravel().tolist(), dtype=sa.float64), x.shape)


def _strided(x: np.ndarray, how: str):
    """``x`` as a strided array of the same values, laid out ``how``."""
    if how == "transposed":
        return sa.permute_dims(_sa(np.swapaxes(x, -1, -2)),
                               tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))
    if how == "reversed":
        return _sa(x[..., ::-1, :])[..., ::-1, :]
    if how == "offset":
        padded = np.concatenate([np.zeros((1,) + x.shape[1:]), x])
        return _sa(padded)[1:]
    if how == "stepped":
        wide = np.repeat(x, 2, axis=-1)
        return _sa(wide)[..., ::2]
    return _sa(x)


@pytest.mark.parametrize("a_shape,b_shape", [
    ((3, 4), (4, 2)), ((4,), (4, 3)), ((3, 4), (4,)), ((4,), (4,)),
    ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((1, 3, 4), (5, 4, 2)),
    ((2, 1, 3, 4), (1, 3, 4, 2)), ((2, 3, 2, 4), (3, 4, 1)), ((0, 3, 4), (4, 2)), ((3, 0), (0, 2)),
])
@pytest.mark.parametrize("how", ["plain", "transposed", "reversed", "offset", "stepped"])
def test_matmul_agrees_with_numpy_on_every_kind_of_view(a_shape, b_shape, how):
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    if len(a_shape) < 2 and how in ("transposed", "reversed", "offset"):
        pytest.skip("a 1-D operand has no matrix layout to vary")
    got = sa.matmul(_strided(a, how) if len(a_shape) >= 2 else _sa(a),
                    _strided(b, how) if len(b_shape) >= 2 else _sa(b))
    want = np.matmul(a, b)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got.tolist()).reshape(got.shape), want, rtol=1e-12,
                               atol=1e-12)
