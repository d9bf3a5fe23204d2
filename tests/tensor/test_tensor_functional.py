"""nn.functional: activations, softmax family, losses (values, stability, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
from stridegrad.nn import functional as F


def _ref_log_softmax(z, axis=-1):
    m = z.max(axis=axis, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=axis, keepdims=True))


def test_softmax_and_log_softmax_values(device):
    z = np.random.default_rng(0).standard_normal((3, 5))
    x = sg.tensor(z, device=device)
    np.testing.assert_allclose(F.log_softmax(x).numpy(), _ref_log_softmax(z), rtol=1e-12)
    p = F.softmax(x, axis=0).numpy()
    np.testing.assert_allclose(p, np.exp(_ref_log_softmax(z, 0)), rtol=1e-12)
    np.testing.assert_allclose(p.sum(axis=0), 1.0)


def test_softmax_family_stable_at_large_logits(device):
    x = sg.tensor([[1000.0, -1000.0, 0.0]], device=device, requires_grad=True)
    ls = F.log_softmax(x)
    np.testing.assert_array_equal(ls.numpy(), [[0.0, -2000.0, -1000.0]])
    np.testing.assert_array_equal(F.softmax(x).numpy(), [[1.0, 0.0, 0.0]])
    ls.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    s = sg.tensor([-1000.0, 1000.0], device=device).sigmoid().numpy()
    np.testing.assert_array_equal(s, [0.0, 1.0])
    z = np.array([-30.0, -20.0, -1.0, 0.0, 3.0])
    s = sg.tensor(z, device=device).sigmoid().numpy()  # float64: tiny values keep full precision
    np.testing.assert_allclose(s, 1 / (1 + np.exp(-z)), rtol=1e-14)


def test_cross_entropy_matches_reference(device):
    rng = np.random.default_rng(1)
    z = rng.standard_normal((6, 4))
    y = rng.integers(0, 4, size=6)
    ref_rows = -_ref_log_softmax(z)[np.arange(6), y]
    x = sg.tensor(z, device=device, requires_grad=True)
    for targets in (y, sg.tensor(y, device=device), y.tolist()):
        np.testing.assert_allclose(F.cross_entropy(x, targets).item(), ref_rows.mean(), rtol=1e-12)
    np.testing.assert_allclose(
        F.cross_entropy(x, y, reduction="sum").item(), ref_rows.sum(), rtol=1e-12
    )
    np.testing.assert_allclose(
        F.cross_entropy(x, y, reduction="none").numpy(), ref_rows, rtol=1e-12
    )
    F.cross_entropy(x, y).backward()
    onehot = np.eye(4)[y]
    np.testing.assert_allclose(
        x.grad.numpy(), (np.exp(_ref_log_softmax(z)) - onehot) / 6, rtol=1e-10
    )


@pytest.mark.parametrize("shape", [(7, 3), (3, 7), (5, 5), (1, 1)])
def test_cross_entropy_matches_reference_in_both_layouts(device, shape):
    """More rows than classes runs on a class-major copy, the others on the logits as
    they are: the same values and gradients, every reduction."""
    n, c = shape
    rng = np.random.default_rng(n * 10 + c)
    z = rng.standard_normal(shape) * 3
    y = rng.integers(0, c, size=n)
    ref_rows = -_ref_log_softmax(z)[np.arange(n), y]
    onehot = np.eye(c)[y]
    for reduction, ref, scale in (("mean", ref_rows.mean(), 1 / n), ("sum", ref_rows.sum(), 1.0),
                                  ("none", ref_rows, None)):
        x = sg.tensor(z, device=device, requires_grad=True)
        loss = F.cross_entropy(x, y, reduction=reduction)
        np.testing.assert_allclose(loss.numpy(), ref, rtol=1e-12)
        g = np.linspace(0.5, 2.0, n) if scale is None else None
        loss.backward(None if g is None else sg.tensor(g, device=device))
        expect = (np.exp(_ref_log_softmax(z)) - onehot) * (g[:, None] if g is not None else scale)
        assert x.grad.shape == shape
        np.testing.assert_allclose(x.grad.numpy(), expect, rtol=1e-10, atol=1e-15)


def test_cross_entropy_narrow_int_targets(device):
    """uint8 / int32 labels: the picked positions (label * rows + row) must not wrap."""
    rng = np.random.default_rng(3)
    z = rng.standard_normal((300, 3))
    y = rng.integers(0, 3, size=300)
    ref = -_ref_log_softmax(z)[np.arange(300), y].mean()
    for dtype in (np.uint8, np.int32):
        loss = F.cross_entropy(sg.tensor(z, device=device), y.astype(dtype))
        np.testing.assert_allclose(loss.item(), ref, rtol=1e-12)


def test_cross_entropy_stable_and_exact_at_1000(device):
    x = sg.tensor(
        [[1000.0, -1000.0], [-1000.0, 1000.0], [1000.0, 1000.0]], device=device, requires_grad=True
    )
    per_row = F.cross_entropy(x, [0, 0, 1], reduction="none").numpy()
    np.testing.assert_allclose(per_row, [0.0, 2000.0, np.log(2.0)], rtol=1e-6)
    loss = F.cross_entropy(x, [0, 0, 1])
    np.testing.assert_allclose(loss.item(), (2000.0 + np.log(2.0)) / 3, rtol=1e-6)
    loss.backward()
    g = x.grad.numpy()
    assert np.isfinite(g).all()
    np.testing.assert_allclose(g, np.array([[0, 0], [-1, 1], [0.5, -0.5]]) / 3, atol=1e-7)


def test_cross_entropy_errors(device):
    x = sg.zeros(3, 4, device=device, requires_grad=True)
    with pytest.raises(IndexError, match=r"label 4 .*4 classes"):
        F.cross_entropy(x, [0, 4, 1])
    with pytest.raises(IndexError, match=r"label -1 .*4 classes"):
        F.cross_entropy(x, np.array([0, -1, 1]))
    with pytest.raises(ValueError, match=r"\(2,\).*\(3, 4\)"):
        F.cross_entropy(x, [0, 1])
    with pytest.raises(ValueError, match=r"\(3, 4, 1\)"):
        F.cross_entropy(sg.zeros(3, 4, 1, device=device), [0, 1, 2])
    with pytest.raises(TypeError, match="integer class indices"):
        F.cross_entropy(x, np.array([0.0, 1.0, 2.0]))
    with pytest.raises(TypeError, match="integer class indices"):
        F.cross_entropy(x, sg.tensor([0.0, 1.0, 2.0], device=device))
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(x, [0, 1, 2], reduction="avg")
    with pytest.raises(TypeError):
        F.cross_entropy(np.zeros((3, 4)), [0, 1, 2])


# --------------------------------------------------------------------------- lesson 09's exercises


def test_log_softmax_keeps_dtype_device_and_takes_axis_or_dim(device):
    """log_softmax is lesson 09's exercise, built from Tensor ops: float32 stays float32,
    ``dim`` (PyTorch's name) wins over ``axis``, and gradients flow."""
    z = np.random.default_rng(1).standard_normal((2, 3, 4))
    x = sg.tensor(z.astype(np.float32), device=device, requires_grad=True)
    out = F.log_softmax(x)
    assert out.dtype == sg.float32 and out.device == device and out.shape == (2, 3, 4)
    np.testing.assert_allclose(out.numpy(), _ref_log_softmax(z), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(F.log_softmax(x, 2, dim=1).numpy(), _ref_log_softmax(z, 1),
                               rtol=1e-5, atol=1e-6)
    out.sum().backward()  # each row of exp(out) sums to 1: the gradient is 1 - C * softmax
    np.testing.assert_allclose(x.grad.numpy(), 1 - 4 * np.exp(_ref_log_softmax(z)), atol=1e-5)


def test_nll_loss_of_log_softmax_is_cross_entropy(device):
    z = np.random.default_rng(2).standard_normal((5, 3)) * 10
    y = np.array([2, 0, 1, 1, 0])
    x = sg.tensor(z, device=device, requires_grad=True)
    loss = F.nll_loss(F.log_softmax(x), y)
    assert loss.shape == () and loss.dtype == sg.float64 and loss.device == device
    np.testing.assert_allclose(loss.item(), -_ref_log_softmax(z)[np.arange(5), y].mean(),
                               rtol=1e-12)
    loss.backward()
    onehot = np.eye(3)[y]
    np.testing.assert_allclose(x.grad.numpy(), (np.exp(_ref_log_softmax(z)) - onehot) / 5,
                               rtol=1e-10, atol=1e-12)
    logp = sg.tensor(np.log([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1]]), device=device,
                     requires_grad=True)
    F.nll_loss(logp, [0, 1]).backward()  # -1/N at the targets, 0 elsewhere
    np.testing.assert_array_equal(logp.grad.numpy(), [[-0.5, 0, 0], [0, -0.5, 0]])


def test_nll_loss_errors(device):
    logp = sg.zeros(3, 4, device=device, requires_grad=True)
    with pytest.raises(ValueError, match=r"targets of shape \(1,\) .*\(3, 4\); expected \(3,\)"):
        F.nll_loss(logp, [2])  # NumPy would broadcast one target over every row
    with pytest.raises(IndexError, match=r"targets from -1 to 2 for 4 classes .*0\.\.3"):
        F.nll_loss(logp, np.array([0, -1, 2]))  # NumPy would read -1 as the last class
    with pytest.raises(IndexError, match=r"from 0 to 4 for 4 classes"):
        F.nll_loss(logp, [0, 4, 1])


def test_mse_loss(device):
    p = sg.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
    t = np.array([[1.0, 0.0], [0.0, 0.0]], dtype=np.float32)
    loss = F.mse_loss(p, t)
    np.testing.assert_allclose(loss.item(), (4 + 9 + 16) / 4)
    loss.backward()
    np.testing.assert_allclose(p.grad.numpy(), 2 * (p.numpy() - t) / 4)
    assert F.mse_loss(p, t, reduction="sum").item() == 29.0
    with pytest.raises(ValueError, match=r"\(2, 2\).*\(2,\)"):
        F.mse_loss(p, sg.tensor([1.0, 2.0], device=device))


def test_linear(device):
    x = sg.ones(5, 3, device=device)
    w = sg.ones(2, 3, device=device)
    b = sg.tensor([1.0, -1.0], device=device)
    assert F.linear(x, w, b).shape == (5, 2)
    assert F.linear(x, w, b).tolist()[0] == [4.0, 2.0]
    assert F.linear(x, w).tolist()[0] == [3.0, 3.0]
