"""Every differentiable op against central differences (float64), on every device.

Shapes are drawn from a seeded generator per case (several per op), binary ops
include broadcasting in both directions.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import stridegrad as sg
from stridegrad.nn import functional as F

N_SHAPES = 3


def _shape(rng, min_ndim=1, max_ndim=3):
    return tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(min_ndim, max_ndim + 1)))


def _data(rng, shape, domain):
    x = rng.standard_normal(shape)
    if domain == "pos":
        return np.abs(x) + 0.5
    if domain == "away0":  # kinks (relu, abs) and poles stay well clear of eps
        return np.sign(x) * (np.abs(x) + 0.2)
    return x


# name -> (fn, min_ndim, domain)
UNARY = {
    "neg": (lambda x: -x, 1, "any"),
    "pos": (lambda x: +x, 1, "any"),
    "exp": (lambda x: x.exp(), 1, "any"),
    "log": (lambda x: x.log(), 1, "pos"),
    "sqrt": (lambda x: x.sqrt(), 1, "pos"),
    "abs": (lambda x: x.abs(), 1, "away0"),
    "tanh": (lambda x: x.tanh(), 1, "any"),
    "sigmoid": (lambda x: x.sigmoid(), 1, "any"),
    "relu": (lambda x: x.relu(), 1, "away0"),
    "F.relu": (lambda x: F.relu(x), 1, "away0"),
    "F.sigmoid": (lambda x: F.sigmoid(x), 1, "any"),
    "F.tanh": (lambda x: F.tanh(x), 1, "any"),
    "pow2": (lambda x: x**2, 1, "any"),
    "pow3": (lambda x: x**3, 1, "any"),
    "pow_frac": (lambda x: x**1.5, 1, "pos"),
    "pow_neg": (lambda x: x**-1, 1, "pos"),
    "rpow": (lambda x: 2.0**x, 1, "any"),
    "radd": (lambda x: 1.5 + x, 1, "any"),
    "rsub": (lambda x: 1.5 - x, 1, "any"),
    "sub_scalar": (lambda x: x - 2, 1, "any"),
    "rmul": (lambda x: 3 * x, 1, "any"),
    "rdiv": (lambda x: 2.0 / x, 1, "away0"),
    "div_scalar": (lambda x: x / 4, 1, "any"),
    "sum": (lambda x: x.sum(), 1, "any"),
    "sum_axis0": (lambda x: x.sum(axis=0), 1, "any"),
    "sum_neg_keepdims": (lambda x: x.sum(-1, keepdims=True), 1, "any"),
    "sum_tuple": (lambda x: x.sum(axis=(0, 1)), 2, "any"),
    "sum_dim_keepdim": (lambda x: x.sum(dim=1, keepdim=True), 2, "any"),
    "mean": (lambda x: x.mean(), 1, "any"),
    "mean_axis": (lambda x: x.mean(axis=-1), 1, "any"),
    "mean_tuple_keepdims": (lambda x: x.mean(axis=(0, -1), keepdims=True), 2, "any"),
    "max": (lambda x: x.max(), 1, "any"),
    "max_axis": (lambda x: x.max(axis=0), 1, "any"),
    "max_keepdims": (lambda x: x.max(dim=-1, keepdim=True), 2, "any"),
    "min_axis": (lambda x: x.min(axis=-1), 1, "any"),
    "reshape_flat": (lambda x: x.reshape(-1), 1, "any"),
    "reshape_tuple": (lambda x: x.reshape((1, -1)) * 2, 1, "any"),
    "view": (lambda x: x.view(x.numel(), 1), 1, "any"),
    "flatten": (lambda x: x.flatten(), 1, "any"),
    "unsqueeze": (lambda x: x.unsqueeze(0), 1, "any"),
    "permute": (lambda x: x.permute(*reversed(range(x.ndim))), 1, "any"),
    "transpose": (lambda x: x.transpose(0, -1), 2, "any"),
    "T": (lambda x: x.T, 2, "any"),
    "mT": (lambda x: x.mT * 1.0, 2, "any"),
    "slice_rows": (lambda x: x[1:], 1, "any"),
    "slice_step": (lambda x: x[:, ::2], 2, "any"),
    "slice_neg_step": (lambda x: x[::-1, 0], 2, "any"),
    "index_int": (lambda x: x[0], 1, "any"),
    "index_ellipsis_none": (lambda x: x[..., None, -1], 1, "any"),
    "softmax": (lambda x: F.softmax(x, axis=-1), 1, "any"),
    "softmax_axis0": (lambda x: F.softmax(x, dim=0), 2, "any"),
    "log_softmax": (lambda x: F.log_softmax(x), 1, "any"),
    "log_softmax_axis0": (lambda x: F.log_softmax(x, 0), 2, "any"),
    "clone": (lambda x: x.clone() * x, 1, "any"),
    "reuse": (lambda x: x * x + x.exp() * x, 1, "any"),
    "mse_loss": (lambda x: F.mse_loss(x, sg.zeros_like(x) + 0.5), 1, "any"),
}


def _pair_shapes(rng):
    """Two broadcast-compatible shapes: b drops leading dims and/or has size-1 dims."""
    sa = _shape(rng)
    sb = list(sa[int(rng.integers(0, len(sa))) :])
    for i in range(len(sb)):
        if rng.random() < 0.4:
            sb[i] = 1
    sb = tuple(sb)
    return (sa, sb) if rng.random() < 0.5 else (sb, sa)


BINARY = {
    "add": (lambda a, b: a + b, "any"),
    "sub": (lambda a, b: a - b, "any"),
    "mul": (lambda a, b: a * b, "any"),
    "div": (lambda a, b: a / b, "away0"),
    "pow": (lambda a, b: a**b, "pos"),
    "compose": (lambda a, b: (a * b - b / (a * a + 1)).tanh(), "any"),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_grad(device, name):
    fn, min_ndim, domain = UNARY[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for _ in range(N_SHAPES):
        shape = _shape(rng, min_ndim)
        x = sg.tensor(_data(rng, shape, domain), device=device, requires_grad=True)
        assert sg.gradcheck(fn, (x,)), (name, shape)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_grad_broadcasting(device, name):
    fn, domain = BINARY[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for _ in range(N_SHAPES):
        sa, sb = _pair_shapes(rng)
        a = sg.tensor(_data(rng, sa, domain), device=device, requires_grad=True)
        b = sg.tensor(_data(rng, sb, domain), device=device, requires_grad=True)
        assert sg.gradcheck(fn, (a, b)), (name, sa, sb)
        # and with only one side requiring grad
        c = sg.tensor(_data(rng, sb, domain), device=device)
        assert sg.gradcheck(lambda a, c=c: fn(a, c), (a,)), (name, sa, sb)


@pytest.mark.parametrize(
    "sa, sb",
    [
        ((3, 4), (4, 2)),
        ((2, 3, 4), (4, 5)),
        ((3, 4), (2, 4, 5)),
        ((2, 1, 3, 4), (5, 4, 2)),
        ((4,), (4, 3)),
        ((2, 3), (3,)),
        ((3,), (3,)),
    ],
)
def test_matmul_grad(device, sa, sb):
    rng = np.random.default_rng(7)
    a = sg.tensor(rng.standard_normal(sa), device=device, requires_grad=True)
    b = sg.tensor(rng.standard_normal(sb), device=device, requires_grad=True)
    assert sg.gradcheck(lambda a, b: a @ b, (a, b))
    np.testing.assert_allclose(
        (a @ b).numpy(), np.asarray(a.numpy()) @ np.asarray(b.numpy()), rtol=1e-12
    )


def test_cross_entropy_grad(device):
    rng = np.random.default_rng(3)
    for n, c in [(1, 2), (4, 3), (5, 7)]:
        logits = sg.tensor(rng.standard_normal((n, c)) * 3, device=device, requires_grad=True)
        targets = rng.integers(0, c, size=n)
        for reduction in ("mean", "sum", "none"):
            assert sg.gradcheck(
                lambda z, t=targets, r=reduction: F.cross_entropy(z, t, reduction=r), (logits,)
            )


def test_mlp_grad(device):
    rng = np.random.default_rng(5)
    x = sg.tensor(rng.standard_normal((6, 4)), device=device)
    w1 = sg.tensor(rng.standard_normal((4, 5)), device=device, requires_grad=True)
    b1 = sg.tensor(rng.standard_normal(5), device=device, requires_grad=True)
    w2 = sg.tensor(rng.standard_normal((5, 3)), device=device, requires_grad=True)
    y = np.array([0, 2, 1, 1, 0, 2])

    def f(w1, b1, w2):
        return F.cross_entropy((x @ w1 + b1).relu() @ w2, y)

    assert sg.gradcheck(f, (w1, b1, w2))


def test_to_device_grad(device):
    """Gradients flow back across a device move."""
    x = sg.tensor([1.0, -2.0, 3.0], dtype="float64", requires_grad=True)  # cpu
    assert sg.gradcheck(lambda x: (x.to(device) * 2).exp().to("cpu"), (x,))
    y = x.to(device)
    assert y.device == device and y.grad_fn is not None or device == "cpu"
