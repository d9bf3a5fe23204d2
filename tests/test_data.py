"""Tests for stridegrad.data: the shipped digits, toy sets, splitting and batching."""

from __future__ import annotations

import numpy as np
import pytest

from stridegrad.data import (
    DataLoader,
    TensorDataset,
    load_digits,
    make_moons,
    make_spirals,
    train_test_split,
)

# ---------------------------------------------------------------- digits


def test_load_digits_shapes_types_and_values():
    X, y = load_digits()
    assert X.shape == (1797, 64) and X.dtype == np.float32
    assert y.shape == (1797,) and y.dtype == np.int64
    assert X.min() == 0.0 and X.max() == 16.0
    assert np.array_equal(X, np.round(X)), "pixels are integer counts 0..16"
    assert np.bincount(y).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    # the first image is a zero
    assert y[0] == 0
    assert X[0, :16].tolist() == [0, 0, 5, 13, 9, 1, 0, 0, 0, 0, 13, 15, 10, 15, 5, 0]


def test_load_digits_returns_fresh_arrays():
    X, y = load_digits()
    X[:] = -1
    y[:] = -1
    X2, y2 = load_digits()
    assert X2.min() == 0.0 and y2.min() == 0


def test_digits_files_ship_with_the_package():
    from importlib import resources

    folder = resources.files("stridegrad.data")
    assert folder.joinpath("digits.csv.gz").is_file()
    notes = folder.joinpath("DIGITS.md").read_text()
    assert "CC BY 4.0" in notes and "BSD-3-Clause" in notes


# ---------------------------------------------------------------- toy sets


@pytest.mark.parametrize("n", [2, 7, 100])
def test_make_moons_shapes_and_classes(n):
    X, y = make_moons(n)
    assert X.shape == (n, 2) and X.dtype == np.float32
    assert y.shape == (n,) and y.dtype == np.int64
    assert np.bincount(y, minlength=2).tolist() == [n // 2, n - n // 2]


def test_make_moons_without_noise_lies_on_the_half_circles():
    X, y = make_moons(50, noise=0.0)
    outer, inner = X[y == 0].astype(np.float64), X[y == 1].astype(np.float64)
    np.testing.assert_allclose(np.hypot(outer[:, 0], outer[:, 1]), 1.0, atol=1e-6)
    assert (outer[:, 1] >= -1e-6).all()
    np.testing.assert_allclose(np.hypot(inner[:, 0] - 1.0, inner[:, 1] - 0.5), 1.0, atol=1e-6)
    assert (inner[:, 1] <= 0.5 + 1e-6).all()


def test_make_moons_is_shuffled_and_seeded():
    X1, y1 = make_moons(100, seed=3)
    X2, y2 = make_moons(100, seed=3)
    X3, _ = make_moons(100, seed=4)
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2)
    assert not np.array_equal(X1, X3)
    assert 0 < y1[:50].sum() < 50, "rows are shuffled, not class 0 then class 1"


def test_make_spirals_shapes_classes_and_geometry():
    X, y = make_spirals(10, classes=3, noise=0.0)
    assert X.shape == (10, 2) and X.dtype == np.float32 and y.dtype == np.int64
    assert np.bincount(y).tolist() == [4, 3, 3]
    r = np.hypot(X[:, 0], X[:, 1]).astype(np.float64)
    assert (r <= 1.0 + 1e-6).all()
    theta = 4.0 * y + 4.0 * r  # without noise, arm k sits at angle 4k + 4r
    np.testing.assert_allclose(X[:, 0], r * np.sin(theta), atol=1e-5)
    np.testing.assert_allclose(X[:, 1], r * np.cos(theta), atol=1e-5)


def test_make_spirals_seeded():
    a = make_spirals(seed=1)
    b = make_spirals(seed=1)
    c = make_spirals(seed=2)
    assert a[0].shape == (300, 2)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: make_moons(1), ValueError, "n must be >= 2"),
        (lambda: make_moons(10.0), TypeError, "n must be an int"),
        (lambda: make_moons(10, noise=-0.1), ValueError, "noise"),
        (lambda: make_moons(10, noise="a"), TypeError, "noise"),
        (lambda: make_moons(10, seed=1.5), TypeError, "seed"),
        (lambda: make_spirals(2, classes=3), ValueError, "n must be >= 3"),
        (lambda: make_spirals(10, classes=0), ValueError, "classes"),
    ],
)
def test_toy_set_errors(call, error, words):
    with pytest.raises(error, match=words):
        call()


# ---------------------------------------------------------------- train_test_split


def test_train_test_split_sizes_and_alignment():
    X = np.arange(50).reshape(25, 2)
    y = np.arange(25) * 10
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2)
    assert len(X_te) == len(y_te) == 5 and len(X_tr) == len(y_tr) == 20
    assert np.array_equal(X_tr[:, 0] // 2 * 10, y_tr) and np.array_equal(X_te[:, 0] // 2 * 10, y_te)
    rows = np.sort(np.concatenate([y_tr, y_te]))
    assert np.array_equal(rows, y), "every row lands in exactly one part"
    assert not np.array_equal(y_tr, np.sort(y_tr)), "rows are shuffled"


def test_train_test_split_rounds_the_test_part_up():
    parts = train_test_split(np.zeros(10), np.zeros(10), test_size=0.25)
    assert [len(p) for p in parts] == [7, 3, 7, 3]


def test_train_test_split_is_seeded():
    X, y = make_moons(40)
    a = train_test_split(X, y, seed=5)
    b = train_test_split(X, y, seed=5)
    c = train_test_split(X, y, seed=6)
    assert all(np.array_equal(p, q) for p, q in zip(a, b))
    assert not np.array_equal(a[0], c[0])


def test_train_test_split_errors():
    with pytest.raises(ValueError, match=r"len\(X\)=10 and len\(y\)=9"):
        train_test_split(np.zeros((10, 2)), np.zeros(9))
    for bad in (0, 0.0, 1, 1.0, 1.5, -0.1):
        with pytest.raises(ValueError, match=f"test_size must be in \\(0, 1\\), got {bad}"):
            train_test_split(np.zeros(10), np.zeros(10), test_size=bad)
    with pytest.raises(TypeError, match="test_size"):
        train_test_split(np.zeros(10), np.zeros(10), test_size="0.2")
    with pytest.raises(ValueError, match="no training rows"):
        train_test_split(np.zeros(2), np.zeros(2), test_size=0.9)


# ---------------------------------------------------------------- TensorDataset


def test_tensor_dataset_indexing():
    X = np.arange(12.0).reshape(6, 2)
    y = np.arange(6)
    ds = TensorDataset(X, y)
    assert len(ds) == 6
    xi, yi = ds[2]
    assert np.array_equal(xi, [4.0, 5.0]) and yi == 2
    xb, yb = ds[np.array([5, 0])]
    assert np.array_equal(xb, X[[5, 0]]) and np.array_equal(yb, [5, 0])


def test_tensor_dataset_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"\(6, 2\), \(5,\)"):
        TensorDataset(np.zeros((6, 2)), np.zeros(5))
    with pytest.raises(ValueError, match="at least one"):
        TensorDataset()


# ---------------------------------------------------------------- DataLoader


def _xy(n=10):
    return np.arange(2 * n, dtype=np.float32).reshape(n, 2), np.arange(n, dtype=np.int64)


def test_loader_in_order_batches():
    X, y = _xy(10)
    loader = DataLoader((X, y), batch_size=4)
    batches = list(loader)
    assert len(loader) == len(batches) == 3
    assert [len(yb) for _, yb in batches] == [4, 4, 2]
    for xb, yb in batches:
        assert isinstance(xb, np.ndarray) and isinstance(yb, np.ndarray)
        assert xb.dtype == np.float32 and yb.dtype == np.int64
        assert np.array_equal(xb, X[yb])
    assert np.array_equal(np.concatenate([yb for _, yb in batches]), y)


def test_loader_drop_last():
    X, y = _xy(10)
    loader = DataLoader(TensorDataset(X, y), batch_size=4, drop_last=True)
    assert len(loader) == 2
    assert [len(yb) for _, yb in loader] == [4, 4]
    assert len(DataLoader((X, y), batch_size=5, drop_last=True)) == 2


def test_loader_shuffle_is_seeded_and_reshuffles_every_epoch():
    X, y = _xy(20)

    def epochs(loader, k=3):
        return [np.concatenate([yb for _, yb in loader]).tolist() for _ in range(k)]

    a = epochs(DataLoader((X, y), batch_size=6, shuffle=True, seed=7))
    b = epochs(DataLoader((X, y), batch_size=6, shuffle=True, seed=7))
    c = epochs(DataLoader((X, y), batch_size=6, shuffle=True, seed=8))
    assert a == b, "same seed, same epochs"
    assert a != c
    assert a[0] != a[1], "a new order every epoch"
    assert all(sorted(e) == list(range(20)) for e in a), "each epoch is a permutation"
    assert a[0] != list(range(20))
    for xb, yb in DataLoader((X, y), batch_size=6, shuffle=True, seed=7):
        assert np.array_equal(xb, X[yb]), "rows stay aligned across arrays"


def test_loader_batches_are_copies():
    X, y = _xy(4)
    for xb, _ in DataLoader((X, y), batch_size=2):
        xb[:] = -1
    assert X.min() == 0


@pytest.mark.parametrize(
    "bad, error",
    [(0, ValueError), (-3, ValueError), (2.5, TypeError), ("4", TypeError), (True, TypeError)],
)
def test_loader_batch_size_is_validated(bad, error):
    with pytest.raises(error, match="batch_size"):
        DataLoader(_xy(), batch_size=bad)


def test_loader_rejects_other_datasets():
    with pytest.raises(TypeError, match="TensorDataset or a tuple of arrays"):
        DataLoader(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="first dimension"):
        DataLoader((np.zeros((4, 2)), np.zeros(3)))


# ---------------------------------------------------------------- Tensors


def test_tensor_dataset_yields_tensors_on_their_device():
    tensor_mod = pytest.importorskip("stridegrad.tensor")
    X, y = _xy(10)
    tx = tensor_mod.tensor(X, device="cpu")
    ty = tensor_mod.tensor(y, device="cpu")
    loader = DataLoader(TensorDataset(tx, ty), batch_size=4, shuffle=True, seed=0)
    seen = []
    for xb, yb in loader:
        assert isinstance(xb, tensor_mod.Tensor) and isinstance(yb, tensor_mod.Tensor)
        assert xb.device == tx.device and yb.device == ty.device
        assert np.array_equal(xb.numpy(), X[yb.numpy()])
        seen += yb.numpy().tolist()
    assert sorted(seen) == list(range(10))


def test_tensor_dataset_mixes_tensors_and_arrays():
    tensor_mod = pytest.importorskip("stridegrad.tensor")
    X, y = _xy(6)
    ds = TensorDataset(tensor_mod.tensor(X), y)
    xb, yb = ds[np.array([1, 2])]
    assert isinstance(xb, tensor_mod.Tensor) and isinstance(yb, np.ndarray)
