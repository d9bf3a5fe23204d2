"""Optimizers against the documented update formulas, computed by hand."""

import math

import numpy as np
import pytest

import stridegrad as sg
from stridegrad import optim
from stridegrad.nn.utils import clip_grad_norm_


def _param(values, grad, device="cpu"):
    p = sg.tensor(values, dtype=sg.float64, requires_grad=True, device=device)
    p.grad = sg.tensor(grad, dtype=sg.float64, device=device)
    return p


@pytest.mark.parametrize("device", ["cpu", "python"])
def test_sgd_plain_step(device):
    p = _param([1.0, -2.0], [0.5, 0.25], device)
    optim.SGD([p], lr=0.1).step()
    np.testing.assert_allclose(p.numpy(), [1.0 - 0.05, -2.0 - 0.025])
    assert p.device == device and p.requires_grad and p.is_leaf


def test_sgd_momentum_weight_decay_by_hand():
    w, g1, g2 = 1.0, 0.5, -0.3
    lr, mu, wd = 0.1, 0.9, 0.01
    p = _param([w], [g1])
    opt = optim.SGD([p], lr=lr, momentum=mu, weight_decay=wd)
    opt.step()
    d1 = g1 + wd * w
    b1 = d1  # first step: the buffer is the gradient
    w1 = w - lr * b1
    np.testing.assert_allclose(p.numpy(), [w1])
    p.grad = sg.tensor([g2], dtype=sg.float64)
    opt.step()
    d2 = g2 + wd * w1
    b2 = mu * b1 + d2
    np.testing.assert_allclose(p.numpy(), [w1 - lr * b2])


def test_sgd_nesterov_by_hand():
    p = _param([2.0], [1.0])
    opt = optim.SGD([p], lr=0.5, momentum=0.5, nesterov=True)
    opt.step()  # b = 1, g = 1 + 0.5 * 1
    np.testing.assert_allclose(p.numpy(), [2.0 - 0.5 * 1.5])
    p.grad = sg.tensor([1.0], dtype=sg.float64)
    opt.step()  # b = 0.5 * 1 + 1 = 1.5, g = 1 + 0.75
    np.testing.assert_allclose(p.numpy(), [1.25 - 0.5 * 1.75])


def _adam_reference(w, grads, lr, b1, b2, eps, wd, decoupled):
    m = v = 0.0
    for t, g in enumerate(grads, start=1):
        if wd and decoupled:
            w = w * (1 - lr * wd)
        elif wd:
            g = g + wd * w
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mhat, vhat = m / (1 - b1 ** t), v / (1 - b2 ** t)
        w = w - lr * mhat / (math.sqrt(vhat) + eps)
    return w


@pytest.mark.parametrize("cls,wd", [(optim.Adam, 0.0), (optim.Adam, 0.1), (optim.AdamW, 0.1)])
def test_adam_and_adamw_by_hand(cls, wd):
    grads = [0.3, -1.2, 0.7, 0.05]
    p = _param([0.8], [grads[0]])
    opt = cls([p], lr=0.01, betas=(0.8, 0.95), eps=1e-6, weight_decay=wd)
    for g in grads:
        p.grad = sg.tensor([g], dtype=sg.float64)
        opt.step()
    expected = _adam_reference(0.8, grads, 0.01, 0.8, 0.95, 1e-6, wd, decoupled=cls is optim.AdamW)
    np.testing.assert_allclose(p.numpy(), [expected], rtol=1e-12)


def test_adam_first_step_moves_by_lr_whatever_the_gradient_scale():
    # bias correction: the first Adam step is lr * sign(g) (up to eps)
    p = _param([0.0, 0.0], [1e-3, -50.0])
    optim.Adam([p], lr=0.1).step()
    np.testing.assert_allclose(p.numpy(), [-0.1, 0.1], rtol=1e-4)


def test_zero_grad_and_parameters_without_grad():
    p, q = _param([1.0], [1.0]), _param([1.0], [1.0])
    q.grad = None
    opt = optim.SGD([p, q], lr=1.0)
    opt.step()
    np.testing.assert_allclose(q.numpy(), [1.0])  # no gradient, no move
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(p.grad.numpy(), [0.0])
    opt.zero_grad()
    assert p.grad is None


def test_optimizer_bad_input():
    with pytest.raises(ValueError, match="SGD got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Adam got an empty parameter list"):
        optim.Adam(iter([]))
    with pytest.raises(ValueError, match="lr must be a finite number >= 0, got -1"):
        optim.SGD([_param([1.0], [1.0])], lr=-1)
    with pytest.raises(ValueError, match=r"parameter 0 \(shape \(2,\)\) does not require grad"):
        optim.SGD([sg.zeros(2)], lr=0.1)
    with pytest.raises(TypeError, match="parameter 0 is a ndarray"):
        optim.SGD([np.zeros(2)], lr=0.1)
    with pytest.raises(ValueError, match=r"betas\[1\] must be in \[0, 1\), got 1.0"):
        optim.Adam([_param([1.0], [1.0])], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD([_param([1.0], [1.0])], lr=0.1, nesterov=True)


def test_clip_grad_norm_on_known_gradients():
    a = _param([0.0, 0.0], [3.0, 0.0])
    b = _param([0.0], [4.0])
    total = clip_grad_norm_([a, b], max_norm=1.0)
    assert total == pytest.approx(5.0)
    np.testing.assert_allclose(a.grad.numpy(), [3 / 5, 0.0], rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), [4 / 5], rtol=1e-5)
    # below the threshold nothing changes
    c = _param([0.0], [0.5])
    assert clip_grad_norm_([c], max_norm=1.0) == pytest.approx(0.5)
    np.testing.assert_array_equal(c.grad.numpy(), [0.5])
    # the infinity norm
    d = _param([0.0, 0.0], [-6.0, 2.0])
    assert clip_grad_norm_([d], max_norm=3.0, norm_type=math.inf) == pytest.approx(6.0)
    np.testing.assert_allclose(d.grad.numpy(), [-3.0, 1.0], rtol=1e-5)
    with pytest.raises(ValueError, match="max_norm must be positive, got 0.0"):
        clip_grad_norm_([d], max_norm=0)
