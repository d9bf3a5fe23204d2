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


# --------------------------------------------------------------------------- the lesson's rules


@pytest.mark.parametrize("make, rule", [
    (lambda ps: optim.SGD(ps, lr=0.1), "sgd_step"),
    (lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01), "sgd_step"),
    (lambda ps: optim.Adam(ps, lr=0.1, weight_decay=0.01), "adam_step"),
    (lambda ps: optim.AdamW(ps, lr=0.1), "adam_step"),
])
def test_optimizers_call_the_lessons_update_rule_through_the_module(monkeypatch, make, rule):
    """SGD and Adam run lesson 09's sgd_step / adam_step for each parameter, looked up
    in stridegrad.optim at call time (so that a learner's can be swapped in)."""
    calls = []
    real = getattr(optim, rule)

    def spy(param, grad, state, **hyper):
        calls.append(sorted(hyper))
        return real(param, grad, state, **hyper)

    p, q = _param([1.0, 2.0], [0.5, -1.0]), _param([3.0], [1.0])
    opt = make([p, q])
    monkeypatch.setattr(optim, rule, spy)
    opt.step()
    assert len(calls) == 2
    assert calls[0] == (["lr", "momentum", "weight_decay"] if rule == "sgd_step"
                        else ["betas", "eps", "lr"])


def test_nesterov_and_dampening_stay_on_sgds_own_path(monkeypatch):
    """Beyond the lesson's rule: SGD does them itself, and does them right."""
    monkeypatch.setattr(optim, "sgd_step", lambda *a, **k: pytest.fail("sgd_step called"))
    p = _param([1.0], [1.0])
    opt = optim.SGD([p], lr=0.1, momentum=0.5, dampening=0.5)
    opt.step()  # the first buffer is the gradient, undampened: b = 1
    np.testing.assert_allclose(p.numpy(), [0.9])
    p.grad = sg.tensor([2.0], dtype=sg.float64)
    opt.step()  # b = 0.5 * 1 + 0.5 * 2 = 1.5
    np.testing.assert_allclose(p.numpy(), [0.9 - 0.15])
    optim.SGD([_param([1.0], [1.0])], lr=0.1, momentum=0.5, nesterov=True).step()


def test_the_update_rules_examples_run():
    import doctest

    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for fn in (optim.sgd_step, optim.adam_step):
        tests = doctest.DocTestFinder(recurse=False).find(fn, fn.__name__, globs={
            "np": np, fn.__name__: fn})
        assert sum(len(t.examples) for t in tests) >= 2, fn.__name__
        for t in tests:
            runner.run(t)
    assert runner.failures == 0


def test_sgd_steps_first_buffer_is_a_new_array():
    grad, state = np.array([1.0, -1.0]), {}
    optim.sgd_step(np.array([0.0, 0.0]), grad, state, lr=0.1, momentum=0.9)
    assert state["momentum_buffer"] is not grad
    np.testing.assert_array_equal(state["momentum_buffer"], grad)


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam])
def test_the_rules_run_on_the_python_device_in_float32(cls):
    """The optimizers hand the rules each device's raw arrays: strided arrays on
    "python" (no np.sqrt there), float32 kept."""
    def run(device):
        p = sg.tensor([[1.0, -2.0, 0.5]], requires_grad=True, device=device)
        opt = cls([p], lr=0.1, momentum=0.9) if cls is optim.SGD else cls([p], lr=0.1)
        for g in ([[0.5, 1.0, -2.0]], [[-0.25, 3.0, 1.0]]):
            p.grad = sg.tensor(g, device=device)
            opt.step()
        return p

    on_python, on_cpu = run("python"), run("cpu")
    assert on_python.device == "python" and on_python.dtype == sg.float32
    assert on_cpu.dtype == sg.float32
    np.testing.assert_allclose(on_python.numpy(), on_cpu.numpy(), rtol=1e-6)
