"""Datasets and batching: digits, moons, spirals, ``train_test_split``, ``DataLoader``.

Everything here works on NumPy arrays. A :class:`TensorDataset` made from
stridegrad Tensors (anything with ``.numpy()`` and ``.device``) keeps a host copy
and hands out batches as Tensors on the original device; ``stridegrad.tensor``
is imported only then, so this module needs nothing but NumPy.
"""

from __future__ import annotations

import functools
import gzip
import math
import numbers
from collections.abc import Iterator
from importlib import resources
from typing import Any

import numpy as np

__all__ = [
    "DataLoader",
    "TensorDataset",
    "load_digits",
    "make_moons",
    "make_spirals",
    "train_test_split",
]


# ------------------------------------------------------------------ validation


def _check_int(value: Any, name: str, minimum: int) -> int:
    """``value`` as an int >= ``minimum``; TypeError/ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def _check_noise(noise: Any) -> float:
    if isinstance(noise, bool) or not isinstance(noise, numbers.Real):
        raise TypeError(f"noise must be a real number, got {type(noise).__name__} {noise!r}")
    if not noise >= 0:  # also rejects NaN
        raise ValueError(f"noise must be >= 0, got {noise!r}")
    return float(noise)


def _rng(seed: Any) -> np.random.Generator:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__} {seed!r}")
    return np.random.default_rng(seed)


# ------------------------------------------------------------------ datasets


@functools.lru_cache(maxsize=1)
def _read_digits() -> tuple[np.ndarray, np.ndarray]:
    path = resources.files(__name__).joinpath("digits.csv.gz")
    with path.open("rb") as raw, gzip.open(raw, "rt") as text:
        table = np.loadtxt(text, delimiter=",", dtype=np.float32)
    X = table[:, :64]
    y = table[:, 64].astype(np.int64)
    X.flags.writeable = False
    y.flags.writeable = False
    return X, y


def load_digits() -> tuple[np.ndarray, np.ndarray]:
    """The UCI hand-written digits, 8x8 images: ``-> X (1797, 64) float32, y (1797,) int64``.

    Pixel values are the integers 0..16 (stored as float32), labels are 0..9;
    reshape a row to ``(8, 8)`` to see the image. The data ships with the
    package (see ``DIGITS.md`` next to this file); each call returns fresh copies.
    """
    X, y = _read_digits()
    return X.copy(), y.copy()


def make_moons(n: int = 100, noise: float = 0.1, seed: int | None = 0):
    """Two interleaving half circles: ``-> X (n, 2) float32, y (n,) int64``.

    Class 0 is the upper half circle of radius 1 around (0, 0), class 1 the lower
    one around (1, 0.5), with ``n // 2`` and ``n - n // 2`` points; Gaussian noise
    of standard deviation ``noise`` is added to every coordinate and the rows are
    shuffled. The same ``seed`` gives the same data.
    """
    n = _check_int(n, "n", 2)
    noise = _check_noise(noise)
    rng = _rng(seed)
    n_out = n // 2
    n_in = n - n_out
    t_out = np.linspace(0.0, np.pi, n_out)
    t_in = np.linspace(0.0, np.pi, n_in)
    X = np.concatenate(
        [
            np.stack([np.cos(t_out), np.sin(t_out)], axis=1),
            np.stack([1.0 - np.cos(t_in), 0.5 - np.sin(t_in)], axis=1),
        ]
    )
    y = np.concatenate([np.zeros(n_out, np.int64), np.ones(n_in, np.int64)])
    order = rng.permutation(n)
    X = X[order] + rng.normal(scale=noise, size=(n, 2))
    return X.astype(np.float32), y[order]


def make_spirals(n: int = 300, classes: int = 3, noise: float = 0.2, seed: int | None = 0):
    """``classes`` interleaved spiral arms: ``-> X (n, 2) float32, y (n,) int64``.

    The CS231n toy set: arm ``k`` has points at radius ``r`` in [0, 1] and angle
    ``4k + 4r`` plus Gaussian noise of standard deviation ``noise`` (in radians).
    The ``n`` points are split between the arms as evenly as possible, and the
    rows are shuffled. The same ``seed`` gives the same data.
    """
    classes = _check_int(classes, "classes", 1)
    n = _check_int(n, "n", classes)
    noise = _check_noise(noise)
    rng = _rng(seed)
    xs, ys = [], []
    for k in range(classes):
        m = n // classes + (1 if k < n % classes else 0)
        r = np.linspace(0.0, 1.0, m)
        theta = 4.0 * k + 4.0 * r + rng.normal(scale=noise, size=m)
        xs.append(np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1))
        ys.append(np.full(m, k, dtype=np.int64))
    order = rng.permutation(n)
    return np.concatenate(xs)[order].astype(np.float32), np.concatenate(ys)[order]


def train_test_split(X, y, test_size: float = 0.2, seed: int | None = 0):
    """Shuffle and split: ``-> X_train, X_test, y_train, y_test``.

    ``X (N, ...)`` and ``y (N, ...)`` are split along the first axis; the test
    part has ``ceil(test_size * N)`` rows. The same ``seed`` gives the same split.
    Not stratified.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim == 0 or y.ndim == 0:
        raise ValueError(
            f"X and y must have a first axis to split along, got shapes {X.shape} and {y.shape}"
        )
    if len(X) != len(y):
        raise ValueError(
            f"X and y must have the same length, got len(X)={len(X)} and len(y)={len(y)}"
        )
    if isinstance(test_size, bool) or not isinstance(test_size, numbers.Real):
        raise TypeError(
            f"test_size must be a number in (0, 1), got {type(test_size).__name__} {test_size!r}"
        )
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be in (0, 1), got {test_size!r}")
    n = len(X)
    n_test = math.ceil(test_size * n)
    if n_test >= n:
        raise ValueError(
            f"test_size={test_size!r} leaves no training rows out of {n}; use a smaller test_size"
        )
    order = _rng(seed).permutation(n)
    test, train = order[:n_test], order[n_test:]
    return X[train], X[test], y[train], y[test]


# ------------------------------------------------------------------ batching


def _is_tensor_like(x: Any) -> bool:
    # NumPy 2 arrays have .device too, so ask for .numpy() as well.
    return not isinstance(x, np.ndarray) and hasattr(x, "numpy") and hasattr(x, "device")


class TensorDataset:
    """Rows of several arrays taken together: ``dataset[i] -> (a[i], b[i], ...)``.

    Takes NumPy arrays (or anything ``np.asarray`` accepts) and stridegrad
    Tensors, all with the same first dimension N. ``dataset[idx]`` takes an int,
    a slice or an index array and returns a tuple with one entry per array:
    NumPy arrays for NumPy input, Tensors on the original device for Tensor input.
    """

    def __init__(self, *arrays: Any) -> None:
        if not arrays:
            raise ValueError("TensorDataset needs at least one array")
        self.arrays: tuple[np.ndarray, ...] = ()
        self.devices: tuple[Any, ...] = ()  # None: hand out NumPy arrays
        hosts, devices = [], []
        for i, a in enumerate(arrays):
            if _is_tensor_like(a):
                hosts.append(np.asarray(a.numpy()))
                devices.append(a.device)
            else:
                hosts.append(np.asarray(a))
                devices.append(None)
            if hosts[-1].ndim == 0:
                raise ValueError(
                    f"array {i} is a scalar; TensorDataset needs arrays with a first axis"
                )
        lengths = [h.shape[0] for h in hosts]
        if len(set(lengths)) != 1:
            shapes = ", ".join(str(h.shape) for h in hosts)
            raise ValueError(f"all arrays must have the same first dimension, got shapes {shapes}")
        self.arrays = tuple(hosts)
        self.devices = tuple(devices)

    def __len__(self) -> int:
        return self.arrays[0].shape[0]

    def __getitem__(self, index: Any) -> tuple:
        out = []
        for a, device in zip(self.arrays, self.devices):
            part = a[index]
            if device is not None:
                from stridegrad.tensor import tensor  # lazily: data sits above tensor

                part = tensor(part, device=device)
            out.append(part)
        return tuple(out)

    def __repr__(self) -> str:
        shapes = ", ".join(str(a.shape) for a in self.arrays)
        return f"TensorDataset({shapes})"


class DataLoader:
    """Iterate over a dataset in batches: each batch is a tuple ``(X_batch, y_batch, ...)``.

    ``dataset`` is a :class:`TensorDataset` or a tuple/list of arrays such as
    ``(X, y)``. Batches hold ``batch_size`` rows (the last may be shorter unless
    ``drop_last``); ``len(loader)`` is the number of batches. With ``shuffle`` the
    rows are reshuffled every epoch from one generator seeded with ``seed``, so a
    seeded loader gives the same sequence of epochs every time.
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int = 32,
        shuffle: bool = False,
        seed: int | None = None,
        drop_last: bool = False,
    ) -> None:
        if isinstance(dataset, (tuple, list)):
            dataset = TensorDataset(*dataset)
        elif not isinstance(dataset, TensorDataset):
            raise TypeError(
                "dataset must be a TensorDataset or a tuple of arrays such as (X, y), "
                f"got {type(dataset).__name__}"
            )
        self.dataset = dataset
        self.batch_size = _check_int(batch_size, "batch_size", 1)
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self._rng = _rng(seed)

    def __len__(self) -> int:
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self) -> Iterator[tuple]:
        n = len(self.dataset)
        # Index arrays (not slices) even in order, so every batch is a copy and a
        # learner's in-place edit of a batch never reaches the dataset.
        order = self._rng.permutation(n) if self.shuffle else np.arange(n)
        bs = self.batch_size
        stop = (n // bs) * bs if self.drop_last else n
        for start in range(0, stop, bs):
            yield self.dataset[order[start : start + bs]]

    def __repr__(self) -> str:
        return (
            f"DataLoader({self.dataset!r}, batch_size={self.batch_size}, "
            f"shuffle={self.shuffle}, drop_last={self.drop_last})"
        )
