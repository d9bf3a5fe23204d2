"""Autograd engine semantics: accumulation, freed graphs, no_grad, leaves, cycles, depth."""

from __future__ import annotations

import gc
import importlib
import weakref

import numpy as np
import pytest

import stridegrad as sg
from stridegrad.nn import functional as F
from stridegrad.tensor import AccumulateGrad, _base, enable_grad, is_grad_enabled


def t(data, device, **kw):
    return sg.tensor(data, device=device, **kw)


def test_leaf_grads_accumulate_across_backward_calls(device):
    x = t([1.0, 2.0, 3.0], device, requires_grad=True)
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0, 5.0])
    x.grad = None
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_tensor_used_twice_gets_both_gradients(device):
    x = t([1.5, -2.0], device, requires_grad=True)
    (x + x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    x.grad = None
    y = x * 3
    (y * y + y).sum().backward()  # d/dx = 3 * (2y + 1)
    np.testing.assert_allclose(x.grad.numpy(), 3 * (2 * 3 * np.array([1.5, -2.0]) + 1), rtol=1e-6)


def test_second_backward_through_freed_graph_raises(device):
    x = t([1.0, 2.0], device, requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        loss.backward()


def test_retain_graph_allows_second_backward(device):
    x = t([1.0, 2.0], device, requires_grad=True)
    loss = (x.exp() * x).sum()
    loss.backward(retain_graph=True)
    g1 = x.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * g1, rtol=1e-6)


def test_non_scalar_backward_needs_gradient(device):
    x = t([[1.0, 2.0]], device, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match=r"only for scalar outputs.*\(1, 2\)"):
        y.backward()
    y.backward(gradient=t([[1.0, 10.0]], device))
    np.testing.assert_allclose(x.grad.numpy(), [[2.0, 20.0]])
    with pytest.raises(ValueError, match=r"\(3,\).*\(1, 2\)"):
        (x * 2).backward(gradient=t([1.0, 1.0, 1.0], device))


def test_backward_without_grad_raises(device):
    x = t([1.0], device)
    with pytest.raises(RuntimeError, match="does not require grad"):
        (x * 2).sum().backward()


def test_leaf_backward_directly(device):
    x = t(3.0, device, requires_grad=True)
    x.backward()
    assert x.grad.item() == 1.0


def test_no_grad_context_and_decorator(device):
    x = t([1.0, 2.0], device, requires_grad=True)
    with sg.no_grad():
        y = x * 2
        with enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    assert z.requires_grad and z.grad_fn is not None

    @sg.no_grad()
    def f(a):
        return a.exp()

    assert not f(x).requires_grad
    assert (x * 2).requires_grad  # restored afterwards
    assert is_grad_enabled()


def test_grad_mode_has_one_home_that_every_layer_reads(device):
    """``no_grad`` switches the Tensor layer, ``nn.functional`` and the conv ops at once."""
    package = importlib.import_module("stridegrad.tensor")
    assert not hasattr(package, "_grad_enabled")  # no copy that could go stale
    x = t(np.ones((1, 1, 4, 4)), device, requires_grad=True)
    w = t(np.ones((1, 1, 3, 3)), device, requires_grad=True)
    with sg.no_grad():
        assert _base._grad_enabled is False and not is_grad_enabled()
        outs = [x * 2, F.softmax(x, dim=-1), F.conv2d(x, w, padding=1), F.max_pool2d(x, 2)]
        with enable_grad():
            assert _base._grad_enabled is True
            assert F.conv2d(x, w).requires_grad
    assert not any(o.requires_grad or o.grad_fn is not None for o in outs)
    assert _base._grad_enabled is True


def test_no_grad_restores_after_exception():
    with pytest.raises(ZeroDivisionError), sg.no_grad():
        _ = 1 / 0
    assert is_grad_enabled()


def test_detach_shares_data_and_cuts_graph(device):
    x = t([1.0, 2.0], device, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    np.testing.assert_allclose(d.numpy(), y.numpy())
    loss = (y * d).sum()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array([2.0, 4.0]))


def test_requires_grad_rules(device):
    x = t([1.0, 2.0], device)
    assert not x.requires_grad and x.is_leaf
    assert x.requires_grad_() is x and x.requires_grad
    y = x * 2
    assert not y.is_leaf and y.requires_grad
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match="floating point.*int64"):
        t([1, 2], device, requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        t([1, 2], device).requires_grad_()


def test_grad_fn_names_and_edges(device):
    a = t([1.0, 2.0], device, requires_grad=True)
    b = t([3.0, 4.0], device, requires_grad=True)
    c = t([1.0, 1.0], device)
    y = a * b + c
    assert y.grad_fn.name() == "AddBackward"
    (mul, _), (none, _) = y.grad_fn.next_functions
    assert none is None and mul.name() == "MulBackward"
    (acc_a, _), (acc_b, _) = mul.next_functions
    assert isinstance(acc_a, AccumulateGrad) and acc_a.variable is a and acc_b.variable is b
    names = {
        "SubBackward": a - b,
        "DivBackward": a / b,
        "NegBackward": -a,
        "PowBackward": a**2,
        "ExpBackward": a.exp(),
        "LogBackward": a.log(),
        "TanhBackward": a.tanh(),
        "SigmoidBackward": a.sigmoid(),
        "ReluBackward": a.relu(),
        "SumBackward": a.sum(),
        "MeanBackward": a.mean(),
        "MaxBackward": a.max(),
        "ReshapeBackward": a.reshape(2, 1),
        "PermuteBackward": a.reshape(1, 2).T,
        "SliceBackward": a[1:],
        "MatMulBackward": a.reshape(1, 2) @ b.reshape(2, 1),
        "CrossEntropyBackward": F.cross_entropy(a.reshape(1, 2), [1]),
        "SoftmaxBackward": F.softmax(a),
    }
    for name, out in names.items():
        assert out.grad_fn.name() == name
        assert f"grad_fn=<{name}>" in repr(out)


def test_leaf_gradients_are_not_aliased(device):
    """x + y hands the same array to both leaves; each leaf must own its grad."""
    x = t([1.0, 2.0], device, requires_grad=True)
    y = t([3.0, 4.0], device, requires_grad=True)
    (x + y).sum().backward()
    with sg.no_grad():
        x.grad += 10.0
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), [11.0, 11.0])


def test_grad_buffer_accumulation_does_not_mutate_shared_arrays(device):
    """A gradient forwarded unchanged (add) must not be summed into in place."""
    x = t([1.0, 2.0], device, requires_grad=True)
    w = t([3.0, 4.0], device, requires_grad=True)
    h = x + 0.0  # AddBackward passes g through
    out = h + h * w  # h gets g (shared) and g * w
    g = t([1.0, 1.0], device)
    out.backward(gradient=g)
    np.testing.assert_allclose(g.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 5.0])


def test_broadcast_and_view_gradients_reach_leaves_as_their_own_arrays(device):
    """Gradients summed back to a broadcast input, and views (reshape, permute) of a
    gradient the engine owns, are stored without a copy; views of a gradient the
    engine does not own (a sum's broadcast, an add passing g on) are copied. Either
    way each leaf's grad is its own writable array with the right values."""
    a = t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device, requires_grad=True)
    b = t([1.0, 1.0, 1.0], device, requires_grad=True)
    w = t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device, requires_grad=True)
    x = t([[1.0, -1.0, 2.0], [0.5, 0.0, 1.0]], device)
    v = w.mT  # (2, 3): PermuteBackward gets the matmul's new gradient
    ((x @ v.mT).sum() + (a + b).sum() + w.reshape(6).sum() + (x @ v.mT).sum()).backward()
    with sg.no_grad():
        a.grad += 1.0
        b.grad += 1.0
        w.grad += 1.0
    np.testing.assert_allclose(a.grad.numpy(), np.full((2, 3), 2.0))
    np.testing.assert_allclose(b.grad.numpy(), [3.0, 3.0, 3.0])
    col = x.numpy().sum(axis=0)[:, None]  # d sum(x @ w) / dw, twice, plus 1 from the reshape
    np.testing.assert_allclose(w.grad.numpy(), 2 * col + 1.0 + 1.0 + np.zeros((3, 2)))
    s = t([[1.0, 2.0], [3.0, 4.0]], device, requires_grad=True)
    s.reshape(4).sum().backward()  # the reshape's gradient is a read-only broadcast
    with sg.no_grad():
        s.grad += 1.0
    np.testing.assert_allclose(s.grad.numpy(), np.full((2, 2), 2.0))


def test_grad_setter_validates(device):
    x = t([1.0, 2.0], device, requires_grad=True)
    with pytest.raises(ValueError, match=r"\(3,\).*\(2,\)"):
        x.grad = t([1.0, 2.0, 3.0], device)
    with pytest.raises(TypeError):
        x.grad = [1.0, 2.0]
    x.grad = t([5.0, 5.0], device)
    x.grad = None
    assert x.grad is None


def test_data_property_for_optimizers(device):
    p = t([1.0, 2.0], device, requires_grad=True)
    (p * p).sum().backward()
    d = p.data
    assert not d.requires_grad
    with sg.no_grad():
        p -= 0.5 * p.grad
    np.testing.assert_allclose(p.numpy(), [0.0, 0.0])
    assert p.is_leaf and p.requires_grad
    p.data = t([7.0, 8.0], device)
    np.testing.assert_allclose(p.numpy(), [7.0, 8.0])
    with pytest.raises(TypeError):
        p.data = [1.0]
    p.data.add_(t([1.0, 1.0], device), alpha=-2.0)
    np.testing.assert_allclose(p.numpy(), [5.0, 6.0])
    p.grad.zero_()
    np.testing.assert_allclose(p.grad.numpy(), [0.0, 0.0])


def test_in_place_on_leaf_requiring_grad_raises(device):
    p = t([1.0, 2.0], device, requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        p += 1.0
    y = p * 2
    y += 1.0  # non-leaf: falls back to out-of-place and keeps the graph
    y.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [2.0, 2.0])


def test_no_reference_cycles(device, collector_finds):
    gc.collect()
    gc.disable()
    try:
        w = t(np.ones((3, 4)), device, requires_grad=True)
        x = t(np.ones((2, 3)), device)
        loss = F.cross_entropy((x @ w).relu().tanh() * 2 + 1, [0, 3])
        ref = weakref.ref(loss.grad_fn)
        loss.backward()
        del loss
        assert ref() is None, "graph was not freed by reference counting"
        assert collector_finds() == []
        # also with retain_graph, and a dropped graph that never ran backward
        y = (w.exp() * w).sum()
        y.backward(retain_graph=True)
        z = (w[1:] @ w.T).mean()
        del y, z
        assert collector_finds() == []
    finally:
        gc.enable()


def test_deep_chain_is_iterative(device):
    if device == "python":
        n = 2_000
    else:
        n = 20_000
    x = t([1.0], device, requires_grad=True)
    y = x
    for _ in range(n):
        y = y + 1.0
    y.sum().backward()
    assert x.grad.item() == 1.0
    del y  # freeing a long chain must not hit the recursion limit either


def test_device_mixing_error_names_both(device):
    if device == "cpu":
        pytest.skip("needs a second device")
    a = sg.tensor([1.0, 2.0])
    b = sg.tensor([1.0, 2.0], device=device)
    for op in (lambda: a + b, lambda: b * a, lambda: a @ b, lambda: a == b):
        with pytest.raises(RuntimeError, match=rf"'cpu'.*'{device}'|'{device}'.*'cpu'"):
            op()
    with pytest.raises(RuntimeError, match="'cpu'"):
        F.cross_entropy(sg.tensor([[1.0, 2.0]], device=device), sg.tensor([0]))


def test_to_moves_data(device):
    a = sg.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = a.to(device)
    assert b.device == device and b.shape == (2, 2) and b.dtype == sg.float32
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    assert b.to("cpu").device == "cpu"
    assert a.to("cpu") is a
    c = b.to(sg.float64)
    assert c.dtype == sg.float64 and c.device == device


def test_pickle_and_deepcopy_make_leaves(device):
    import copy
    import pickle

    x = t([1.0, 2.0], device, requires_grad=True)
    for y in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert y.device == device and y.requires_grad and y.is_leaf
        assert y.tolist() == [1.0, 2.0]
        with sg.no_grad():
            y *= 3.0
        assert x.tolist() == [1.0, 2.0]  # no shared storage

    class Param(sg.Tensor):
        pass

    p = Param([1.0], requires_grad=True)
    p.name = "w"
    q = copy.deepcopy(p)
    assert type(q) is Param and q.name == "w" and q.requires_grad
