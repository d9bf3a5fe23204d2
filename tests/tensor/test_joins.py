"""``sg.cat``, ``sg.stack`` and ``sg.where``: forward and backward against PyTorch in
float64 and against central differences, on every device, and their errors.

PyTorch is only an oracle here: the tests that need it skip without it, and the
gradchecks and error tests run everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
from stridegrad.tensor import CatBackward, StackBackward, WhereBackward

N_CASES = 6


def _t(a, device, requires_grad=False):
    return sg.tensor(np.asarray(a, dtype=np.float64), device=device, requires_grad=requires_grad)


def _shape(rng, min_ndim=1, max_ndim=3):
    return tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(min_ndim, max_ndim + 1)))


def _cat_case(rng):
    """Shapes that agree except in one (possibly negative) dim; which inputs require grad."""
    base = list(_shape(rng))
    ndim = len(base)
    d = int(rng.integers(-ndim, ndim))
    shapes = []
    for _ in range(int(rng.integers(1, 5))):
        s = list(base)
        s[d] = int(rng.integers(0, 4))  # 0 too: an empty part is allowed
        shapes.append(tuple(s))
    grads = [bool(rng.random() < 0.7) for _ in shapes]
    grads[0] = True
    return shapes, d, grads


def _stack_case(rng):
    shape = _shape(rng, 0)
    ndim = len(shape) + 1
    d = int(rng.integers(-ndim, ndim))
    n = int(rng.integers(1, 5))
    grads = [bool(rng.random() < 0.7) for _ in range(n)]
    grads[0] = True
    return [shape] * n, d, grads


def _where_case(rng):
    """Three shapes that broadcast together (each may drop leading dims or have 1s)."""
    full = _shape(rng)
    shapes = []
    for _ in range(3):
        s = list(full[int(rng.integers(0, len(full) + 1)) :])
        for i in range(len(s)):
            if rng.random() < 0.3:
                s[i] = 1
        shapes.append(tuple(s))
    return shapes


def _check_against_torch(torch, device, arrays, grads, sg_fn, torch_fn, rng):
    xs = [_t(a, device, g) for a, g in zip(arrays, grads)]
    txs = [torch.tensor(a, dtype=torch.float64, requires_grad=g) for a, g in zip(arrays, grads)]
    y, ty = sg_fn(xs), torch_fn(txs)
    assert y.shape == tuple(ty.shape) and y.dtype == sg.float64 and y.device == xs[0].device
    np.testing.assert_array_equal(y.numpy(), ty.detach().numpy())
    g = rng.standard_normal(y.shape)
    y.backward(sg.tensor(g, device=device))
    ty.backward(torch.tensor(g))
    for x, tx, req in zip(xs, txs, grads):
        if req:
            assert x.grad is not None and x.grad.device == x.device
            np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
        else:
            assert x.grad is None


# --------------------------------------------------------------------------- against PyTorch


def test_cat_matches_pytorch(device):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    for _ in range(N_CASES):
        shapes, d, grads = _cat_case(rng)
        arrays = [rng.standard_normal(s) for s in shapes]
        _check_against_torch(
            torch, device, arrays, grads,
            lambda xs, d=d: sg.cat(xs, dim=d), lambda ts, d=d: torch.cat(ts, dim=d), rng,
        )


def test_stack_matches_pytorch(device):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    for _ in range(N_CASES):
        shapes, d, grads = _stack_case(rng)
        arrays = [rng.standard_normal(s) for s in shapes]
        _check_against_torch(
            torch, device, arrays, grads,
            lambda xs, d=d: sg.stack(xs, d), lambda ts, d=d: torch.stack(ts, d), rng,
        )


def test_where_matches_pytorch(device):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for i in range(N_CASES):
        sc, sx, sy = _where_case(rng)
        cond = rng.random(sc) < 0.5
        arrays = [rng.standard_normal(sx), rng.standard_normal(sy)]
        grads = [True, i % 3 != 0]
        _check_against_torch(
            torch, device, arrays, grads,
            lambda xs, c=cond: sg.where(sg.tensor(c, device=device), xs[0], xs[1]),
            lambda ts, c=cond: torch.where(torch.tensor(c), ts[0], ts[1]),
            rng,
        )


def test_where_gradient_is_zero_where_not_taken_even_for_inf(device):
    """The branch not taken gets exact zeros (PyTorch's where backward), not ``g * 0``,
    which would be nan where the incoming gradient is inf."""
    torch = pytest.importorskip("torch")
    g = [np.inf, 5.0, -np.inf]
    c = [False, True, True]
    z = _t([1.0, 2.0, 3.0], device, True)
    sg.where(sg.tensor(c, device=device), z, 0.0).backward(_t(g, device))
    tz = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    torch.where(torch.tensor(c), tz, 0.0).backward(torch.tensor(g, dtype=torch.float64))
    np.testing.assert_array_equal(z.grad.numpy(), tz.grad.numpy())
    assert z.grad.tolist() == [0.0, 5.0, -np.inf]


@pytest.mark.parametrize(
    "inputs",
    [
        ("int", "float"),
        ("float", "double"),
        ("bool", "int"),
        ("bool", "float"),
        ("int", "scalar_float"),
        ("scalar_int", "float"),
        ("scalar_float", "scalar_int"),
        ("scalar_int", "scalar_int"),
        ("double", "scalar_float"),
    ],
)
def test_where_dtypes_match_pytorch(device, inputs):
    torch = pytest.importorskip("torch")
    make = {
        "int": (lambda: sg.tensor([1, 2], device=device), lambda: torch.tensor([1, 2])),
        "float": (lambda: sg.tensor([1.5, 2.5], device=device), lambda: torch.tensor([1.5, 2.5])),
        "double": (
            lambda: sg.tensor([1.5, 2.5], dtype=sg.float64, device=device),
            lambda: torch.tensor([1.5, 2.5], dtype=torch.float64),
        ),
        "bool": (lambda: sg.tensor([True, False], device=device),
                 lambda: torch.tensor([True, False])),
        "scalar_int": (lambda: 3, lambda: 3),
        "scalar_float": (lambda: 0.5, lambda: 0.5),
    }
    a, b = (make[k] for k in inputs)
    c = [True, False]
    y = sg.where(sg.tensor(c, device=device), a[0](), b[0]())
    ty = torch.where(torch.tensor(c), a[1](), b[1]())
    assert y.dtype.name == str(ty.dtype).removeprefix("torch.")
    assert y.device == device
    np.testing.assert_array_equal(y.numpy(), ty.numpy())


@pytest.mark.parametrize("fn", ["cat", "stack"])
def test_joins_promote_dtypes_as_pytorch(device, fn):
    torch = pytest.importorskip("torch")
    cases = [
        ([1, 2], [0.5, 1.5], None),
        ([True, False], [3, 4], None),
        ([1.0, 2.0], [3.0, 4.0], "float64"),
    ]
    for a, b, b_dtype in cases:
        x = sg.tensor(a, device=device)
        y = sg.tensor(b, device=device, dtype=b_dtype)
        tb = torch.tensor(b, dtype=getattr(torch, b_dtype) if b_dtype else None)
        out = getattr(sg, fn)([x, y])
        tout = getattr(torch, fn)([torch.tensor(a), tb])
        assert out.dtype.name == str(tout.dtype).removeprefix("torch."), (a, b)
        np.testing.assert_array_equal(out.numpy(), tout.numpy())


def test_a_float32_input_gets_a_float32_gradient_after_promotion(device):
    x = sg.tensor([1.0, 2.0], device=device, requires_grad=True)  # float32
    y = sg.tensor([3.0], dtype=sg.float64, device=device, requires_grad=True)
    out = sg.cat([x, y])
    assert out.dtype == sg.float64
    (out * sg.tensor([1.0, 2.0, 3.0], device=device, dtype=sg.float64)).sum().backward()
    assert x.grad.dtype == sg.float32 and x.grad.tolist() == [1.0, 2.0]
    assert y.grad.dtype == sg.float64 and y.grad.tolist() == [3.0]


# --------------------------------------------------------------------------- central differences


def test_cat_gradcheck(device):
    rng = np.random.default_rng(4)
    for _ in range(N_CASES):
        shapes, d, _ = _cat_case(rng)
        xs = [_t(rng.standard_normal(s), device, True) for s in shapes]
        w = _t(rng.standard_normal(sg.cat(xs, dim=d).shape), device)  # weights break symmetry
        assert sg.gradcheck(lambda *xs, d=d, w=w: (sg.cat(list(xs), d) * w).sum(), xs)


def test_stack_gradcheck(device):
    rng = np.random.default_rng(5)
    for _ in range(N_CASES):
        shapes, d, _ = _stack_case(rng)
        xs = [_t(rng.standard_normal(s), device, True) for s in shapes]
        w = _t(rng.standard_normal(sg.stack(xs, dim=d).shape), device)
        assert sg.gradcheck(lambda *xs, d=d, w=w: (sg.stack(xs, d) * w).sum(), xs)


def test_where_gradcheck(device):
    rng = np.random.default_rng(6)
    for _ in range(N_CASES):
        sc, sx, sy = _where_case(rng)
        cond = sg.tensor(rng.random(sc) < 0.5, device=device)
        x = _t(rng.standard_normal(sx), device, True)
        y = _t(rng.standard_normal(sy), device, True)
        assert sg.gradcheck(lambda x, y, c=cond: sg.where(c, x, y).tanh(), (x, y))
        assert sg.gradcheck(lambda x, c=cond: sg.where(c, x * x, 2.0), (x,))
        assert sg.gradcheck(lambda y, c=cond: sg.where(c, -1.0, y.exp()), (y,))


def test_the_same_tensor_twice_gets_both_parts(device):
    x = _t([1.0, 2.0], device, True)
    sg.cat([x, x * 3, x]).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    x.grad = None
    sg.stack([x, x], dim=1).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_graph_nodes_and_no_grad(device):
    x = _t([1.0, 2.0], device, True)
    c = sg.tensor([True, False], device=device)
    assert isinstance(sg.cat([x, x]).grad_fn, CatBackward)
    assert isinstance(sg.stack([x, x]).grad_fn, StackBackward)
    assert isinstance(sg.where(c, x, 0.0).grad_fn, WhereBackward)
    with sg.no_grad():
        outs = [sg.cat([x, x]), sg.stack([x]), sg.where(c, x, x)]
    assert all(not o.requires_grad and o.grad_fn is None for o in outs)
    y = _t([1.0, 2.0], device)  # nothing requires grad: no graph
    assert sg.cat([y, y]).grad_fn is None and sg.where(c, y, 1.0).grad_fn is None
    # the result is a new tensor: writing into it leaves the inputs alone
    out = sg.cat([y])
    out[0] = 7.0
    assert y.tolist() == [1.0, 2.0]


def test_where_routes_by_condition_and_broadcasts(device):
    x = _t([[1.0], [2.0]], device, True)  # (2, 1)
    y = _t([10.0, 20.0, 30.0], device, True)  # (3,)
    c = sg.tensor([True, False, True], device=device)
    out = sg.where(c, x, y)
    assert out.shape == (2, 3) and out.tolist() == [[1.0, 20.0, 1.0], [2.0, 20.0, 2.0]]
    out.sum().backward()
    assert x.grad.tolist() == [[2.0], [2.0]] and y.grad.tolist() == [0.0, 2.0, 0.0]


def test_where_takes_a_condition_that_is_not_yet_a_tensor(device):
    x = _t([1.0, 2.0], device)
    assert sg.where([True, False], x, 0.0).tolist() == [1.0, 0.0]
    assert sg.where(np.array([False, True]), x, -x).tolist() == [-1.0, 2.0]


# --------------------------------------------------------------------------- bad input


def test_cat_of_mismatched_shapes_names_both_shapes_and_the_dim():
    a, b = sg.zeros(2, 3), sg.zeros(3, 4)
    with pytest.raises(ValueError, match=r"except in dim 0.*\(2, 3\).*tensor 1.*\(3, 4\)"):
        sg.cat([a, b])
    with pytest.raises(ValueError, match=r"except in dim 1.*\(2, 3\).*\(3, 4\)"):
        sg.cat([a, b], dim=-1)  # the dim is named normalised
    with pytest.raises(ValueError, match=r"tensor 0 has shape \(2, 3\) and tensor 2 has shape \(2, 3, 1\)"):
        sg.cat([a, a, sg.zeros(2, 3, 1)], dim=1)
    with pytest.raises(ValueError, match="tensor 1 is 0-d"):
        sg.cat([sg.zeros(1), sg.tensor(1.0)])


def test_stack_of_different_shapes_names_both_shapes():
    with pytest.raises(ValueError, match=r"same shape.*tensor 0 has shape \(2,\) and tensor 1 has shape \(3,\)"):
        sg.stack([sg.zeros(2), sg.zeros(3)])
    with pytest.raises(ValueError, match=r"tensor 0 has shape \(2, 1\) and tensor 2 has shape \(1, 2\)"):
        sg.stack([sg.zeros(2, 1), sg.zeros(2, 1), sg.zeros(1, 2)], dim=1)


def test_dim_out_of_range_names_the_dim_and_its_bound():
    x = sg.zeros(2, 3)
    with pytest.raises(IndexError, match=r"cat: dim 2 is out of range .*2 dimension.*expected -2\.\.1"):
        sg.cat([x, x], dim=2)
    with pytest.raises(IndexError, match=r"cat: dim -3 .*expected -2\.\.1"):
        sg.cat([x, x], dim=-3)
    with pytest.raises(IndexError, match=r"stack: dim 3 is out of range .*expected -3\.\.2"):
        sg.stack([x, x], dim=3)
    with pytest.raises(IndexError, match=r"stack: dim -4 .*expected -3\.\.2"):
        sg.stack([x, x], dim=-4)
    assert sg.stack([x, x], dim=2).shape == (2, 3, 2)  # the bound itself is in range
    assert sg.stack([x, x], dim=-3).shape == (2, 2, 3)
    with pytest.raises(TypeError, match="dim is an int"):
        sg.cat([x], dim=1.0)
    with pytest.raises(TypeError, match="either dim= or axis="):
        sg.cat([x], dim=0, axis=0)
    assert sg.cat([x, x], axis=1).shape == (2, 6)


def test_where_with_shapes_that_do_not_broadcast_names_them():
    c = sg.tensor([True, False])
    with pytest.raises(ValueError, match=r"\(2,\) \(condition\), \(3,\) \(input\) and \(2,\) \(other\)"):
        sg.where(c, sg.zeros(3), sg.zeros(2))
    with pytest.raises(ValueError, match=r"\(2,\) \(condition\), \(\) \(input\) and \(4, 3\) \(other\)"):
        sg.where(c, 1.0, sg.zeros(4, 3))


def test_where_needs_a_bool_condition():
    with pytest.raises(TypeError, match="condition must be a bool tensor, got dtype float32"):
        sg.where(sg.tensor([1.0, 0.0]), sg.zeros(2), 1.0)
    with pytest.raises(TypeError, match="got dtype int64"):
        sg.where(sg.tensor([1, 0]), sg.zeros(2), 1.0)


def test_mixed_devices_name_both_devices():
    a, b = sg.zeros(2, device="cpu"), sg.zeros(2, device="python")
    for call in (lambda: sg.cat([a, b]), lambda: sg.stack([a, b])):
        with pytest.raises(RuntimeError, match=r"same device.*'cpu' and 'python'"):
            call()
    with pytest.raises(RuntimeError, match=r"'python' and 'cpu'"):
        sg.where(b > 0, b, a)
    with pytest.raises(RuntimeError, match=r"'cpu' and 'python'"):
        sg.where(a > 0, b, 1.0)
    with pytest.raises(RuntimeError, match=r"'cpu' and 'python'"):
        sg.where(a > 0, 1.0, b)


def test_cat_and_stack_take_a_list_of_tensors():
    x = sg.zeros(2)
    for fn in (sg.cat, sg.stack):
        with pytest.raises(ValueError, match="non-empty"):
            fn([])
        with pytest.raises(TypeError, match="list or tuple of Tensors, got Tensor"):
            fn(x)
        with pytest.raises(TypeError, match="a Tensor as element 1, got list"):
            fn([x, [1.0, 2.0]])
        assert fn((x, x)).shape in ((4,), (2, 2))  # a tuple works
