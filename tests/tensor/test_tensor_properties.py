"""Property tests with NumPy as the oracle: broadcasting forward and un-broadcast backward."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tensor_devices import device_skip_reason

import stridegrad as sg

OPS = {
    "add": (lambda a, b: a + b, lambda a, b, g: (g, g)),
    "sub": (lambda a, b: a - b, lambda a, b, g: (g, -g)),
    "mul": (lambda a, b: a * b, lambda a, b, g: (g * b, g * a)),
}


def _unbroadcast(g, shape):
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


@pytest.mark.parametrize("dev", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(OPS))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_broadcast_forward_and_backward_match_numpy(dev, name, data):
    if reason := device_skip_reason(dev):
        pytest.skip(reason)
    shapes = data.draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4)
    )
    sa, sb = shapes.input_shapes
    a_np = data.draw(hnp.arrays(np.float64, sa, elements=st.floats(-10, 10)))
    b_np = data.draw(hnp.arrays(np.float64, sb, elements=st.floats(-10, 10)))
    fwd, bwd = OPS[name]
    a = sg.tensor(a_np, device=dev, requires_grad=True)
    b = sg.tensor(b_np, device=dev, requires_grad=True)
    out = fwd(a, b)
    expected = fwd(a_np, b_np)
    assert out.shape == expected.shape == shapes.result_shape
    np.testing.assert_allclose(out.numpy(), expected)
    g = np.arange(1.0, 1.0 + np.prod(expected.shape)).reshape(expected.shape)
    out.backward(gradient=sg.tensor(g, device=dev))
    ga, gb = bwd(a_np, b_np, g)
    assert a.grad.shape == sa and b.grad.shape == sb
    np.testing.assert_allclose(
        a.grad.numpy(), _unbroadcast(np.broadcast_to(ga, expected.shape), sa)
    )
    np.testing.assert_allclose(
        b.grad.numpy(), _unbroadcast(np.broadcast_to(gb, expected.shape), sb)
    )


@settings(max_examples=25, deadline=None)
@given(
    x=hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=st.floats(-5, 5)
    ),
    data=st.data(),
)
def test_sum_mean_over_random_axes_match_numpy(x, data):
    axes = data.draw(st.lists(st.integers(0, x.ndim - 1), unique=True, max_size=x.ndim))
    axis = tuple(axes) if axes else None
    keepdims = data.draw(st.booleans())
    t = sg.tensor(x, requires_grad=True)
    np.testing.assert_allclose(
        t.sum(axis=axis, keepdims=keepdims).numpy(), x.sum(axis=axis, keepdims=keepdims)
    )
    m = t.mean(axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(m.numpy(), x.mean(axis=axis, keepdims=keepdims))
    m.sum().backward()
    n = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
    np.testing.assert_allclose(t.grad.numpy(), np.full(x.shape, 1.0 / n))
