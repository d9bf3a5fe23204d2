"""PyTorch's Tensor methods a user reaches for: ``any``/``all``, ``softmax``/``log_softmax``,
``cpu()``, and the messages of ``bool(t)`` and of ``backward()`` under ``no_grad``.

Checked against PyTorch in float64 where it is installed (an oracle only: those
tests skip without it) and against central differences everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
from stridegrad.nn import functional as F
from stridegrad.tensor import enable_grad

DIMS = [None, 0, -1, (0, 1), (-1, 0)]


@pytest.mark.parametrize("fn", ["any", "all"])
@pytest.mark.parametrize("kind", ["bool", "int", "float"])
def test_any_all_match_pytorch(device, fn, kind):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(fn) * 10 + len(kind))
    for shape in [(3, 4), (2, 1, 3), (4, 2)]:
        a = rng.random(shape) < 0.8
        if kind == "int":
            a = a * rng.integers(-3, 4, size=shape)
        elif kind == "float":
            a = a * rng.standard_normal(shape)
        for dim in DIMS:
            for keepdim in (False, True):
                x = sg.tensor(a, device=device)
                out = getattr(x, fn)(dim=dim, keepdim=keepdim)
                tout = getattr(torch.tensor(a), fn)(dim=dim, keepdim=keepdim)
                assert out.dtype == "bool" and out.device == device
                assert out.shape == tuple(tout.shape), (shape, dim, keepdim)
                np.testing.assert_array_equal(out.numpy(), tout.numpy())
                if dim is not None:  # NumPy's spelling gives the same
                    np.testing.assert_array_equal(
                        getattr(x, fn)(dim, keepdim).numpy(), out.numpy()
                    )


def test_any_all_values_and_edge_cases(device):
    x = sg.tensor([[0.0, 2.0], [0.0, 0.0]], device=device)
    assert x.any().item() is True and x.all().item() is False
    assert x.any(dim=1).tolist() == [True, False] and x.all(axis=0).tolist() == [False, False]
    assert x.any(1, keepdims=True).shape == (2, 1)
    assert sg.zeros(0, device=device).all().item() is True  # empty: all true, none true
    assert sg.zeros(0, device=device).any().item() is False
    assert sg.tensor(np.nan, device=device).any().item() is True  # nan is non-zero
    y = sg.tensor([1.0], device=device, requires_grad=True)
    assert not y.any().requires_grad and y.all().grad_fn is None  # not differentiable


def test_any_all_dim_out_of_range_names_the_dim_and_bound():
    x = sg.zeros(2, 3)
    with pytest.raises(IndexError, match=r"axis 2 is out of range .* 2 dimension.*-2\.\.1"):
        x.any(dim=2)
    with pytest.raises(IndexError, match=r"axis -3 .*-2\.\.1"):
        x.all(-3)


def test_bool_of_many_elements_recommends_any_and_all_which_exist():
    t = sg.tensor([1.0, -2.0])
    with pytest.raises(ValueError, match=r"shape \(2,\) is ambiguous; use t\.any\(\) or t\.all\(\)"):
        bool(t > 0)
    assert bool((t > 0).any()) and not bool((t > 0).all())  # what the message says works


# --------------------------------------------------------------------------- softmax


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_methods_match_pytorch(device, name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for shape in [(5,), (3, 4), (2, 3, 4)]:
        for dim in range(-len(shape), len(shape)):
            a = rng.standard_normal(shape) * 3
            g = rng.standard_normal(shape)
            x = sg.tensor(a, device=device, requires_grad=True)
            y = getattr(x, name)(dim)
            tx = torch.tensor(a, requires_grad=True)
            ty = getattr(tx, name)(dim)
            np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-14)
            y.backward(sg.tensor(g, device=device))
            ty.backward(torch.tensor(g))
            np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
            assert y.dtype == sg.float64 and y.device == device


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_methods_gradcheck_and_spellings(device, name):
    rng = np.random.default_rng(8)
    x = sg.tensor(rng.standard_normal((3, 4)), device=device, requires_grad=True)
    w = sg.tensor(rng.standard_normal((3, 4)), device=device)
    for kw in ({}, {"dim": 0}, {"axis": 0}, {"dim": -1}):
        assert sg.gradcheck(lambda x, kw=kw: getattr(x, name)(**kw) * w, (x,))
    f = getattr(F, name)
    np.testing.assert_array_equal(getattr(x, name)(dim=0).numpy(), f(x, dim=0).numpy())
    np.testing.assert_array_equal(getattr(x, name)().numpy(), f(x).numpy())  # last dim
    with pytest.raises(IndexError, match=r"axis 2 is out of range .*-2\.\.1"):
        getattr(x, name)(dim=2)
    with pytest.raises(TypeError, match="floating point"):
        getattr(sg.tensor([1, 2], device=device), name)()


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_methods_are_the_functional_implementation(monkeypatch, name):
    """One implementation: the method calls ``nn.functional``'s, looked up at call time
    (so a learner's replacement of it reaches the method too)."""
    calls = []
    real = getattr(F, name)

    def spy(x, axis=-1, *, dim=None):
        calls.append((axis, dim))
        return real(x, axis, dim=dim)

    monkeypatch.setattr(F, name, spy)
    x = sg.tensor([[1.0, 2.0]])
    getattr(x, name)(dim=1)
    getattr(x, name)(0)
    assert calls == [(-1, 1), (0, None)]


# --------------------------------------------------------------------------- cpu()


def test_cpu_copies_from_another_device_and_gradients_flow_back():
    x = sg.tensor([1.0, -2.0], dtype=sg.float64, device="python", requires_grad=True)
    y = x.cpu()
    assert y.device == "cpu" and isinstance(y.numpy(), np.ndarray) and y.dtype == sg.float64
    assert y.tolist() == [1.0, -2.0] and y.grad_fn is not None
    (y * y).sum().backward()
    assert x.grad.device == "python" and x.grad.tolist() == [2.0, -4.0]
    assert sg.gradcheck(lambda x: (x.cpu() * 3).exp(), (x,))
    z = sg.tensor([1.0], device="python")
    c = z.cpu()
    c[0] = 5.0  # a copy: the source is untouched
    assert z.tolist() == [1.0]


def test_cpu_of_a_cpu_tensor_is_the_tensor_itself(device):
    """As PyTorch: already on the cpu device, no copy is made (``t.cpu() is t``)."""
    torch = pytest.importorskip("torch")
    t = torch.tensor([1.0])
    assert t.cpu() is t
    x = sg.tensor([1.0, 2.0], device=device)
    if device == "cpu":
        assert x.cpu() is x
    else:
        assert x.cpu() is not x and x.cpu().device == "cpu"
        assert x.cpu().tolist() == x.tolist()


# --------------------------------------------------------------------------- backward under no_grad


def test_backward_of_a_tensor_made_under_no_grad_says_no_grad_is_active(device):
    x = sg.tensor([1.0, 2.0], device=device, requires_grad=True)
    with sg.no_grad():
        y = (x * 2).sum()
        with pytest.raises(RuntimeError, match=r"does not require grad.*no_grad is active"):
            y.backward()
    with pytest.raises(RuntimeError, match="does not require grad") as info:
        sg.tensor([1.0], device=device).sum().backward()
    assert "no_grad" not in str(info.value)  # grad mode is on: no such hint
    with sg.no_grad(), enable_grad():
        with pytest.raises(RuntimeError) as info:
            sg.tensor([1.0], device=device).backward()
    assert "no_grad" not in str(info.value)
