"""gradcheck itself: passes correct gradients, fails wrong ones with a readable table."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import stridegrad as sg
from stridegrad.gradcheck import GradcheckError
from stridegrad.tensor import ExpBackward


def test_passes_and_checks_in_float64():
    x = sg.tensor([[0.3, -1.2], [2.0, 0.1]], requires_grad=True)  # float32 input
    assert sg.gradcheck(lambda x: (x * x).tanh().sum(), x)
    assert x.grad is None  # the caller's tensor is not touched


def test_wrong_gradient_fails_with_table(monkeypatch):
    # a planted bug: exp's backward forgets the factor exp(x)
    monkeypatch.setattr(ExpBackward, "apply", lambda self, g: (g,))
    x = sg.tensor([0.5, 1.5, -0.3], dtype=sg.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as info:
        sg.gradcheck(lambda x: x.exp().sum(), (x,))
    msg = str(info.value)
    assert "analytic" in msg and "numeric" in msg and "difference" in msg
    assert "input 0" in msg and "(1,)" in msg  # the worst entry: exp(1.5) - 1
    first_row = msg.splitlines()[2]
    assert "(1,)" in first_row
    assert sg.gradcheck(lambda x: x.exp().sum(), (x,), raise_exception=False) is False


def test_broadcast_bug_is_caught():
    """A gradient summed to the wrong shape is caught (the classic un-broadcast bug)."""
    a = sg.tensor(np.ones((2, 3)), dtype=sg.float64, requires_grad=True)
    b = sg.tensor(np.ones(3), dtype=sg.float64, requires_grad=True)

    def wrong(a, b):  # b's contribution detached: its analytic gradient is 0
        return (a * b.detach() + b * 0).sum()

    assert sg.gradcheck(wrong, (a, b), raise_exception=False) is False


def test_values_are_supported():
    Value = sg.Value
    a, b = Value(0.7), Value(-1.3)
    assert sg.gradcheck(lambda a, b: (a * b + a**2).tanh() + b.exp(), (a, b))
    assert a.data == 0.7 and b.data == -1.3


def test_duck_typed_value():
    class V:
        """A Value-like with a wrong derivative for multiplication."""

        def __init__(self, data):
            self.data, self.grad, self._back = data, 0.0, None

        def __mul__(self, other):
            out = V(self.data * other.data)

            def back():
                self.grad += other.data  # forgets out.grad... fine here (out.grad == 1)
                other.grad += 2 * self.data  # bug: factor 2

            out._back = back
            return out

        def backward(self):
            self._back()

    x, y = V(2.0), V(3.0)
    with pytest.raises(GradcheckError, match="input 1"):
        sg.gradcheck(lambda x, y: x * y, (x, y))


def test_errors():
    with pytest.raises(ValueError, match="no input requires grad"):
        sg.gradcheck(lambda x: x * 2, (sg.tensor([1.0]),))
    with pytest.raises(TypeError):
        sg.gradcheck(lambda x: 3.0, (sg.tensor([1.0], requires_grad=True),))


def test_numeric_side_is_numerical_gradient_called_through_the_module(monkeypatch):
    """Lesson 08's exercise is gradcheck's own finite differences, looked up at call
    time: each checked input (a Tensor on any device, a Value) gets one call, on a
    float64 copy, and a wrong numerical_gradient makes a right backward fail."""
    gc_mod = importlib.import_module("stridegrad.gradcheck")  # the module, not the function

    seen = []
    real = gc_mod.numerical_gradient

    def spy(f, x, eps=1e-6):
        seen.append((x.dtype, x.shape))
        return real(f, x, eps)

    monkeypatch.setattr(gc_mod, "numerical_gradient", spy)
    a = sg.tensor([[0.3, -1.2], [2.0, 0.1]], requires_grad=True, device="python")  # float32
    b = sg.tensor([0.5, 1.5], requires_grad=True, device="python")
    assert sg.gradcheck(lambda a, b: (a * b).tanh().sum(), (a, b))
    assert seen == [(np.float64, (2, 2)), (np.float64, (2,))]
    b = sg.tensor([0.5, 1.5], requires_grad=True)  # cpu
    assert sg.gradcheck(lambda b: b.exp().sum(), b) and seen[-1] == (np.float64, (2,))
    v = sg.Value(0.7)
    assert sg.gradcheck(lambda v: v * v, v) and v.data == 0.7
    assert seen[-1] == (np.float64, ())

    monkeypatch.setattr(gc_mod, "numerical_gradient", lambda f, x, eps=1e-6: 2 * real(f, x, eps))
    assert sg.gradcheck(lambda b: (b * b).sum(), b, raise_exception=False) is False
