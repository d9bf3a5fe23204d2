"""``stridegrad.tensor.rules`` (lesson 08's exercises): the functions themselves on every
device's arrays, and the nodes calling them through the module at backward time."""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
from stridegrad import backend
from stridegrad.tensor import rules


def _on(device: str, a: np.ndarray):
    """``a`` as a raw array of ``device`` (its dtype kept)."""
    return backend.from_numpy(np.ascontiguousarray(a), device)


def _host(x) -> np.ndarray:
    return np.asarray(backend._generic_to_host(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_rule_on_every_device_keeps_the_namespace_and_the_dtype(device, dtype):
    rng = np.random.default_rng(0)
    xp = backend.get_namespace(device)
    g = rng.normal(size=(2, 3, 4)).astype(dtype)
    got = rules.unbroadcast(_on(device, g), (3, 1))
    assert backend.array_namespace(got) is xp and got.dtype == getattr(xp, dtype.__name__)
    np.testing.assert_allclose(_host(got), g.sum(axis=(0, 2))[:, None], rtol=1e-5)

    g2 = rng.normal(size=(3,)).astype(dtype)
    got = rules.sum_backward(_on(device, g2), (2, 3, 4), axis=(0, -1))
    assert tuple(got.shape) == (2, 3, 4) and got.dtype == getattr(xp, dtype.__name__)
    np.testing.assert_allclose(_host(got), np.broadcast_to(g2[None, :, None], (2, 3, 4)))

    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]], dtype=dtype)
    got = rules.max_backward(_on(device, x), _on(device, np.array([6.0, 1.0], dtype)), axis=1)
    assert got.dtype == getattr(xp, dtype.__name__)
    np.testing.assert_allclose(_host(got), [[0, 3, 3], [1, 0, 0]])

    a, b = rng.normal(size=(2, 3, 4)).astype(dtype), rng.normal(size=(4, 5)).astype(dtype)
    gm = rng.normal(size=(2, 3, 5)).astype(dtype)
    ga, gb = rules.matmul_backward(_on(device, a), _on(device, b), _on(device, gm))
    np.testing.assert_allclose(_host(ga), gm @ b.T, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_host(gb), np.swapaxes(a, -1, -2) @ gm, rtol=1e-4, atol=1e-5)


def test_no_copy_where_none_is_needed():
    g = np.ones((3, 4), np.float32)
    assert rules.unbroadcast(g, (3, 4)) is g
    grad = np.arange(3.0)
    view = rules.sum_backward(grad, (3, 4), axis=1)  # a read-only broadcast view of grad
    assert view.shape == (3, 4) and not view.flags.writeable and np.shares_memory(view, grad)


def test_max_backward_takes_a_tuple_of_axes_and_leaves_its_arguments_alone():
    x = np.array([[[1.0, 4.0], [4.0, 0.0]], [[2.0, 2.0], [-1.0, 2.0]]])
    g = np.array([8.0, 6.0])
    before = x.copy(), g.copy()
    got = rules.max_backward(x, g, axis=(1, 2))
    np.testing.assert_allclose(got, [[[0, 4], [4, 0]], [[2, 2], [0, 2]]])
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(g, before[1])


@pytest.mark.parametrize("name, run", [
    ("unbroadcast", lambda a, b: (a + b[0]).sum()),
    ("sum_backward", lambda a, b: a.sum(axis=0).sum()),
    ("sum_backward", lambda a, b: a.mean()),
    ("max_backward", lambda a, b: a.max(axis=-1).sum()),
    ("max_backward", lambda a, b: a.min()),
    ("matmul_backward", lambda a, b: (a @ b).sum()),
])
def test_the_nodes_call_the_rules_through_the_module(monkeypatch, name, run):
    calls = []
    original = getattr(rules, name)

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(rules, name, spy)
    a = sg.tensor(np.arange(9.0).reshape(3, 3), requires_grad=True)
    b = sg.tensor(np.eye(3), requires_grad=True)
    run(a, b).backward()
    assert calls, f"backward did not call rules.{name}"


def test_matmul_with_one_side_needing_no_gradient_computes_only_the_other():
    """The rule computes both products; asked for one, the node computes only that one."""
    calls = []
    original = rules.matmul_backward
    rules.matmul_backward = lambda *args: calls.append(args) or original(*args)
    try:
        x = sg.tensor(np.ones((2, 3)))
        w = sg.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        (x @ w).sum().backward()
    finally:
        rules.matmul_backward = original
    assert calls == []
    np.testing.assert_allclose(w.grad.numpy(), np.full((3, 4), 2.0))


def test_min_backward_is_max_backward_of_the_negated_input():
    x = sg.tensor([[3.0, 1.0, 1.0], [0.0, 5.0, 2.0]], requires_grad=True)
    (x.min(axis=1) * sg.tensor([4.0, 3.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 2, 2], [3, 0, 0]])


def test_array_namespace_of_each_device(device):
    xp = backend.get_namespace(device)
    assert backend.array_namespace(_on(device, np.ones(2))) is xp
    assert backend.array_namespace(np.float64(1.0)) is np  # a NumPy scalar is NumPy's
    with pytest.raises(TypeError):
        backend.array_namespace([1.0, 2.0])


def test_a_learners_unbroadcast_that_returns_a_view_is_copied_before_the_engine_adds_into_it(
        monkeypatch):
    """The engine adds later gradients into a new array in place; a learner's unbroadcast
    may return a right answer that is a view of the incoming gradient (a reshape that drops
    a size-1 axis), which another input also holds. The add node copies such a result; the
    library's own unbroadcast never returns a view, and is not copied."""
    from stridegrad.tensor._nodes import AddBackward

    def viewing(grad, shape):
        return grad.reshape(shape)  # right for (1, 3) -> (3,), and a view of grad

    g = np.ones((1, 3))
    node = AddBackward((object(), object()), np, None, (3,))
    _, own = node.apply(g)
    assert not np.shares_memory(own, g)  # the library's: a sum, a new array
    monkeypatch.setattr(rules, "unbroadcast", viewing)
    _, gb = node.apply(g)
    assert gb.shape == (3,) and not np.shares_memory(gb, g)
    gb += 1.0
    assert g.tolist() == [[1.0, 1.0, 1.0]]  # the other input's gradient is untouched
