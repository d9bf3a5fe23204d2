"""Integer-array and boolean indexing: NumPy's advanced-indexing rules, scatter-add backward.

NumPy is the oracle for the forward pass (``a[key]``) and for the backward pass
(``np.add.at(zeros, key, g)``, which adds up repeated indices); PyTorch, when it
is installed, is a second one.
"""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg

N_KEYS = 25


def _random_key(rng, shape):
    """A random index for ``shape`` mixing slices, ints, None, ... and integer arrays."""
    ndim = len(shape)
    bshape = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(0, 3)))
    n_idx = int(rng.integers(1, ndim + 1))
    # an ellipsis stands for the dims between the first j entries and the rest
    ellipsis = n_idx < ndim and rng.random() < 0.3
    j = int(rng.integers(0, n_idx + 1)) if ellipsis else n_idx
    dims = list(range(j)) + list(range(ndim - (n_idx - j), ndim))
    key = []
    for i, d in enumerate(dims):
        if ellipsis and i == j:
            key.append(Ellipsis)
        size = shape[d]
        r = rng.random()
        if r < 0.45 or (i == len(dims) - 1 and not any(isinstance(k, np.ndarray) for k in key)):
            key.append(rng.integers(-size, size, size=bshape))
        elif r < 0.6:
            key.append(int(rng.integers(-size, size)))
        else:
            start, stop = (int(v) for v in rng.integers(-size - 1, size + 1, size=2))
            step = int(rng.choice([-2, -1, 1, 2, 3]))
            key.append(slice(start, stop, step))
        if rng.random() < 0.15:
            key.append(None)
    if ellipsis and j == len(dims):
        key.append(Ellipsis)
    if rng.random() < 0.3:  # lists as well as arrays
        key = [k.tolist() if isinstance(k, np.ndarray) else k for k in key]
    return tuple(key)


def _scatter(shape, key, g):
    z = np.zeros(shape)
    np.add.at(z, key, g)
    return z


def _check(device, a, key, rng):
    x = sg.tensor(a, device=device, requires_grad=True)
    y = x[key]
    ref = a[key]
    assert y.shape == ref.shape, (key, y.shape, ref.shape)
    np.testing.assert_array_equal(y.numpy(), ref)
    g = rng.standard_normal(ref.shape)
    y.backward(sg.tensor(g, device=device))
    np.testing.assert_allclose(x.grad.numpy(), _scatter(a.shape, key, g), rtol=1e-12, atol=1e-12)


def test_random_keys_match_numpy(device):
    rng = np.random.default_rng(17)
    for _ in range(N_KEYS):
        shape = tuple(int(n) for n in rng.integers(1, 5, size=rng.integers(1, 4)))
        a = rng.standard_normal(shape)
        _check(device, a, _random_key(rng, shape), rng)


@pytest.mark.parametrize(
    "key",
    [
        [0, 2, 2, 2],  # repeated rows: their gradients add up
        ([0, 1], [2, 3]),
        (slice(None), [1, 1, 3]),
        (0, slice(None), [1, 2]),  # int and array apart: the broadcast dims go first
        ([[0], [1]], slice(1, 3), [0, 4]),
        (Ellipsis, [0, 0]),
        (None, [1, 2], None, slice(None), [3]),
        (slice(None, None, -1), [-1, -3]),
        ([],),
        (np.array([[1, 2]]), [2]),
        ([True, False, True],),
        (slice(None), [True, False, True, True]),
    ],
)
def test_known_keys(device, key):
    rng = np.random.default_rng(3)
    _check(device, rng.standard_normal((3, 4, 5)), key, rng)


def test_index_tensors_and_masks(device):
    a = np.arange(12.0).reshape(3, 4)
    x = sg.tensor(a, device=device, requires_grad=True)
    rows = sg.tensor([2, 0, 2], device=device)
    np.testing.assert_array_equal(x[rows].numpy(), a[[2, 0, 2]])
    np.testing.assert_array_equal(x[rows, sg.tensor([1, 1, 3])].numpy(), a[[2, 0, 2], [1, 1, 3]])
    mask = x > 4.5
    np.testing.assert_array_equal(x[mask].numpy(), a[a > 4.5])
    x[mask].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), (a > 4.5).astype(float))
    np.testing.assert_array_equal(x[range(1, 3), (0, 3)].numpy(), a[[1, 2], [0, 3]])
    # a 0-d int tensor is an int: basic indexing
    assert x[sg.tensor(1, device=device)].shape == (4,)


def test_gradcheck_with_duplicates(device):
    rng = np.random.default_rng(5)
    x = sg.tensor(rng.standard_normal((4, 3)), device=device, requires_grad=True)
    rows, cols = [3, 0, 3, 3, 1], [2, 2, 2, 0, 1]
    assert sg.gradcheck(lambda x: x[rows, cols] * x[rows, cols], (x,))
    assert sg.gradcheck(lambda x: x[:, [0, 0, 2]].exp(), (x,))
    assert sg.gradcheck(lambda x: x[[[1, 1], [2, 1]]].sum(axis=0), (x,))


def test_many_repeats_and_few(device):
    """Positions repeated 1, 2, 3 and 9 times in one index (several padding widths)."""
    idx = [0] * 9 + [1, 1, 1, 2, 2, 3]
    g = np.arange(1.0, len(idx) + 1)
    x = sg.tensor(np.zeros(5), device=device, requires_grad=True)
    x[idx].backward(sg.tensor(g, device=device))
    np.testing.assert_array_equal(x.grad.numpy(), _scatter((5,), idx, g))


def test_float32_grad_dtype(device):
    x = sg.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
    x[[1, 1]].sum().backward()
    assert x.grad.dtype == sg.float32
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [2, 2]])


def test_errors_name_index_and_bound(device):
    x = sg.ones(3, 4, device=device)
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 3"):
        x[[0, 4]]
    with pytest.raises(IndexError, match="index -5 is out of bounds for dimension 1 with size 4"):
        x[[0, 1], [1, -5]]
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 1 with size 4"):
        x[:, sg.tensor([7], device=device)]
    with pytest.raises(IndexError, match="integers or booleans; index entry 0 has dtype float"):
        x[[0.5, 1.0]]
    with pytest.raises(IndexError, match=r"boolean index of shape \(4,\).*\(3,\)"):
        x[[True, False, True, True]]
    with pytest.raises(IndexError, match="too many indices"):
        x[[0], [0], [0]]
    with pytest.raises(IndexError, match="broadcast"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="entry 1 is str"):
        x[[0], "a"]
    with pytest.raises(IndexError, match="entry 0 is float"):
        x[1.5]


def test_setitem_with_arrays_is_refused_clearly():
    x = sg.zeros(3)
    with pytest.raises(IndexError, match="basic indexing"):
        x[[0, 1]] = 1.0


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    for _ in range(N_KEYS):
        shape = tuple(int(n) for n in rng.integers(1, 5, size=rng.integers(1, 4)))
        a = rng.standard_normal(shape)
        key = _random_key(rng, shape)
        tkey = tuple(
            torch.as_tensor(np.asarray(k)) if isinstance(k, (list, np.ndarray)) else k
            for k in key
        )
        if any(isinstance(k, slice) and k.step is not None and k.step < 0 for k in key):
            continue  # PyTorch has no negative slice steps
        ta = torch.tensor(a, requires_grad=True)
        ty = ta[tkey]
        g = rng.standard_normal(tuple(ty.shape))
        ty.backward(torch.tensor(g))
        x = sg.tensor(a, requires_grad=True)
        y = x[key]
        y.backward(sg.tensor(g))
        np.testing.assert_array_equal(y.numpy(), ty.detach().numpy())
        np.testing.assert_allclose(x.grad.numpy(), ta.grad.numpy(), rtol=1e-12, atol=1e-12)
