"""Compiled equals eager, values and gradients, for every Tensor op, on every device.

Each case runs a whole step, ``out = op(*xs); (out * w).sum().backward()``,
eagerly and compiled (twice: the trace call and a replay on new inputs), and
compares the outputs and the inputs' gradients.
"""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
import stridegrad.nn.functional as F
from stridegrad.compile import compile

# name -> (op, input shapes, kwargs of the input maker)
CASES = {
    "add": (lambda a, b: a + b, [(3, 4), (3, 4)]),
    "add_broadcast": (lambda a, b: a + b, [(3, 4), (4,)]),
    "add_scalar": (lambda a: a + 2.5, [(3, 4)]),
    "radd": (lambda a: 2.5 + a, [(3, 4)]),
    "sub": (lambda a, b: a - b, [(3, 1), (1, 4)]),
    "rsub": (lambda a: 1.0 - a, [(5,)]),
    "mul": (lambda a, b: a * b, [(2, 3, 4), (3, 1)]),
    "div": (lambda a, b: a / b, [(3, 4), (3, 4)]),
    "rdiv": (lambda a: 2.0 / a, [(3, 4)]),
    "pow_scalar": (lambda a: a ** 3, [(3, 4)]),
    "square": (lambda a: a ** 2, [(3, 4)]),
    "pow_tensor": (lambda a, b: a ** b, [(3, 4), (3, 4)]),
    "rpow": (lambda a: 2.0 ** a, [(6,)]),
    "neg": (lambda a: -a, [(3, 4)]),
    "exp": (lambda a: a.exp(), [(3, 4)]),
    "log": (lambda a: a.log(), [(3, 4)]),
    "sqrt": (lambda a: a.sqrt(), [(3, 4)]),
    "abs": (lambda a: a.abs(), [(3, 4)]),
    "tanh": (lambda a: a.tanh(), [(3, 4)]),
    "sigmoid": (lambda a: a.sigmoid(), [(3, 4)]),
    "relu": (lambda a: a.relu(), [(3, 4)]),
    "sum": (lambda a: a.sum(), [(3, 4)]),
    "sum_axis": (lambda a: a.sum(axis=1), [(3, 4)]),
    "sum_keepdims": (lambda a: a.sum(axis=0, keepdims=True), [(3, 4)]),
    "mean": (lambda a: a.mean(), [(3, 4)]),
    "mean_axis": (lambda a: a.mean(dim=(0, 2)), [(2, 3, 4)]),
    "max": (lambda a: a.max(axis=1), [(3, 4)]),
    "min": (lambda a: a.min(), [(3, 4)]),
    "matmul": (lambda a, b: a @ b, [(3, 4), (4, 5)]),
    "matmul_batched": (lambda a, b: a @ b, [(2, 3, 4), (4, 5)]),
    "matmul_vec": (lambda a, b: a @ b, [(3, 4), (4,)]),
    "reshape": (lambda a: a.reshape(4, 3) * 1.5, [(3, 4)]),
    "flatten": (lambda a: a.flatten(), [(2, 3, 4)]),
    "unsqueeze_squeeze": (lambda a: a.unsqueeze(1).squeeze(1), [(3, 4)]),
    "permute": (lambda a: a.permute(2, 0, 1), [(2, 3, 4)]),
    "transpose": (lambda a: a.transpose(0, 1), [(3, 4)]),
    "T": (lambda a: a.T, [(3, 4)]),
    "getitem": (lambda a: a[1:, ::2], [(3, 4)]),
    "getitem_int_none": (lambda a: a[1, None, :], [(3, 4)]),
    "clone": (lambda a: a.clone() * 2, [(3, 4)]),
    "double": (lambda a: a.double() * 2, [(3, 4)]),
    "softmax": (lambda a: F.softmax(a, axis=1), [(3, 4)]),
    "log_softmax": (lambda a: F.log_softmax(a, axis=0), [(3, 4)]),
    "mse_loss": (lambda a, b: F.mse_loss(a, b), [(3, 4), (3, 4)]),
    "linear": (lambda x, w, b: F.linear(x, w, b), [(5, 4), (3, 4), (3,)]),
    "chain": (lambda a, b: ((a * b + 1.0).exp() - a / 3.0).tanh() * b, [(3, 4), (3, 4)]),
}
POSITIVE = {"log", "sqrt", "pow_tensor", "div"}  # inputs kept away from 0 and negatives


def _inputs(rng, shapes, name, device):
    out = []
    for s in shapes:
        a = rng.standard_normal(s).astype(np.float32)
        if name in POSITIVE:
            a = np.abs(a) + 0.5
        out.append(sg.tensor(a, requires_grad=True, device=device))
    return out


def _step(op):
    def step(w, *xs):
        out = op(*xs)
        (out * w).sum().backward()
        return out

    return step


def _run(fn, rng, shapes, name, device):
    xs = _inputs(rng, shapes, name, device)
    probe = CASES[name][0](*[x.detach() for x in xs])
    w = sg.tensor(rng.standard_normal(probe.shape).astype(probe.dtype.name), device=device)
    out = fn(w, *xs)
    return out, xs


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_equals_eager(name, device):
    op, shapes = CASES[name]
    eager = _step(op)
    compiled = compile(_step(op))
    for seed in (0, 1):  # the first call traces, the second replays
        out_e, xs_e = _run(eager, np.random.default_rng(seed), shapes, name, device)
        out_c, xs_c = _run(compiled, np.random.default_rng(seed), shapes, name, device)
        assert out_c.shape == out_e.shape and out_c.dtype == out_e.dtype
        assert out_c.device == device
        np.testing.assert_allclose(out_c.numpy(), out_e.numpy(), rtol=1e-5, atol=1e-6)
        for a, b in zip(xs_c, xs_e):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert compiled.traces == 1 and compiled.fallbacks == 0


NO_GRAD = {
    "compare": (lambda a, b: (a < b).float() + (a >= b).float() * 2, [(3, 4), (3, 4)]),
    "equal": (lambda a, b: (a == b).float() - (a != b).float(), [(3, 4), (3, 4)]),
    "argmax": (lambda a, b: a.argmax(axis=1) + 1, [(3, 4), (3, 4)]),
    "setitem": (None, [(3, 4), (3, 4)]),
}


def _setitem(a, b):
    c = a * 1.0
    c[0] = b[1]
    c[:, 1] = 7.0
    return c + b


@pytest.mark.parametrize("name", sorted(NO_GRAD))
def test_no_grad_ops(name, device, rng):
    op = NO_GRAD[name][0] or _setitem
    compiled = compile(op)
    for _ in range(2):
        a = sg.tensor(rng.standard_normal((3, 4)).astype(np.float32), device=device)
        b = sg.tensor(np.round(rng.standard_normal((3, 4))).astype(np.float32), device=device)
        with sg.no_grad():
            want = op(a, b)
            got = compiled(a, b)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert compiled.traces == 1 and compiled.fallbacks == 0
