"""Layer 5 of :mod:`stridegrad.tensor`: the creation functions (``tensor``, ``zeros``, ``rand``, ...)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stridegrad import backend
from stridegrad.tensor._base import (
    DType,
    Shape,
    _as_dtype,
    _size_args,
    _xp_dtype,
    bool_,
    float32,
    int64,
)
from stridegrad.tensor._tensor import Tensor, _wrap


def tensor(
    data: Any, requires_grad: bool = False, device: str | None = None, dtype: Any = None
) -> Tensor:
    """A tensor from a list, scalar, NumPy array or Tensor (data is copied).

    Args:
        data: a Python number, a (nested) list or tuple of numbers of a regular
            shape, a NumPy array, any Array API array (CuPy, ``stridegrad.array``)
            or a Tensor. It is always copied: later changes to ``data`` do not
            reach the tensor.
        requires_grad: record the ops on this tensor so that ``backward()``
            fills its ``.grad`` (floating point dtypes only).
        device: where the data lives and which array library computes on it:
            ``"cpu"`` (NumPy, the default), ``"python"`` (:mod:`stridegrad.array`,
            pure Python: slow, every stride visible), ``"cuda"`` or ``"cuda:N"``
            (CuPy, needs ``pip install 'stridegrad[gpu]'`` and a GPU). ``None``
            means :func:`~stridegrad.backend.get_default_device`, or a Tensor's
            own device when ``data`` is a Tensor. ``t.to(device)`` moves a tensor.
        dtype: ``sg.float32``, ``sg.float64``, ``sg.int64``, or a name
            (``"bool"``, ``"int32"``, ...) or NumPy dtype. ``None`` infers it as
            PyTorch does:
            Python floats give ``float32``, ints ``int64``, bools ``bool``; a NumPy
            array (and a Tensor) keeps its dtype, so ``np.float64`` data stays
            ``float64``.

    Returns:
        A leaf tensor (``grad_fn is None``), ``Tensor(data, ...)`` with the same
        arguments.

    Raises:
        TypeError: data that is not numbers (strings, objects, complex), or an
            unknown dtype (naming the valid ones).
        ValueError: ragged data (rows of different lengths), or an unknown device
            (naming the valid ones).
        RuntimeError: ``requires_grad=True`` with a non-float dtype (as in
            PyTorch), or a ``"cuda"`` device without CuPy or a GPU (saying why).

    >>> import stridegrad as sg
    >>> x = sg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> x.shape, x.dtype, x.device
    ((2, 2), stridegrad.float32, 'cpu')
    >>> sg.tensor([1, 2, 3]).dtype, sg.tensor(2.5, dtype=sg.float64).dtype
    (stridegrad.int64, stridegrad.float64)
    >>> sg.tensor([1.0, 2.0], device="python")
    tensor([1., 2.], device='python')
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([[2., 4.],
            [6., 8.]])
    """
    return Tensor(data, requires_grad=requires_grad, device=device, dtype=dtype)


def _factory(
    shape: Shape, fill: Any, dtype: Any, device: Any, requires_grad: bool, default: DType
) -> Tensor:
    dev = backend.canonical_device(device if device is not None else backend.get_default_device())
    xp = backend.get_namespace(dev)
    dt = default if dtype is None else _as_dtype(dtype)
    xdt = _xp_dtype(xp, dt, dev)
    if fill == 0:
        data = xp.zeros(shape, dtype=xdt)
    elif fill == 1:
        data = xp.ones(shape, dtype=xdt)
    else:
        data = xp.full(shape, fill, dtype=xdt)
    t = _wrap(data, dev, xp, None)
    if requires_grad:
        t.requires_grad = True
    return t


def zeros(
    *size: Any, dtype: Any = None, device: str | None = None, requires_grad: bool = False
) -> Tensor:
    """Zeros of shape ``size`` (``zeros(2, 3)`` or ``zeros((2, 3))``), float32 by default."""
    return _factory(_size_args(size, "zeros"), 0, dtype, device, requires_grad, float32)


def ones(
    *size: Any, dtype: Any = None, device: str | None = None, requires_grad: bool = False
) -> Tensor:
    """Ones of shape ``size``, float32 by default."""
    return _factory(_size_args(size, "ones"), 1, dtype, device, requires_grad, float32)


def full(
    size: Any,
    fill_value: Any,
    dtype: Any = None,
    device: str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """``fill_value`` everywhere; dtype from the value (bool, int64 or float32) unless given."""
    if isinstance(size, int):
        size = (size,)
    shape = _size_args((size,), "full")
    if isinstance(fill_value, bool):
        default = bool_
    elif isinstance(fill_value, int):
        default = int64
    elif isinstance(fill_value, float):
        default = float32
    else:
        raise TypeError(
            f"full: fill_value must be a Python number, got {type(fill_value).__name__}"
        )
    dev = backend.canonical_device(device if device is not None else backend.get_default_device())
    xp = backend.get_namespace(dev)
    dt = default if dtype is None else _as_dtype(dtype)
    data = xp.full(shape, fill_value, dtype=_xp_dtype(xp, dt, dev))
    t = _wrap(data, dev, xp, None)
    if requires_grad:
        t.requires_grad = True
    return t


def arange(
    start: float,
    end: float | None = None,
    step: float = 1,
    *,
    dtype: Any = None,
    device: str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """``[start, end)`` with ``step``; int64 when all arguments are ints, else float32."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise ValueError("arange: step must be non-zero")
    all_int = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end, step))
    dt = (int64 if all_int else float32) if dtype is None else _as_dtype(dtype)
    dev = backend.canonical_device(device if device is not None else backend.get_default_device())
    xp = backend.get_namespace(dev)
    data = xp.arange(start, end, step, dtype=_xp_dtype(xp, dt, dev))
    t = _wrap(data, dev, xp, None)
    if requires_grad:
        t.requires_grad = True
    return t


def zeros_like(
    t: Tensor, dtype: Any = None, device: str | None = None, requires_grad: bool = False
) -> Tensor:
    """Zeros with ``t``'s shape, dtype and device (unless given)."""
    return zeros(
        t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad
    )


def ones_like(
    t: Tensor, dtype: Any = None, device: str | None = None, requires_grad: bool = False
) -> Tensor:
    """Ones with ``t``'s shape, dtype and device (unless given)."""
    return ones(
        t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad
    )


_rng = np.random.default_rng()


def manual_seed(seed: int) -> None:
    """Seed the one generator behind ``rand``/``randn``; every device gets the same numbers."""
    global _rng
    try:
        seed = operator.index(seed)
    except TypeError:
        raise TypeError(f"seed must be an int, got {type(seed).__name__}") from None
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    _rng = np.random.default_rng(seed)


def _random(kind: str, size: tuple, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    shape = _size_args(size, kind)
    dt = float32 if dtype is None else _as_dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"{kind}: dtype must be floating, got {dt.name}")
    gen = _rng.random if kind == "rand" else _rng.standard_normal
    host = gen(shape, dtype=np.float64).astype(dt.name)  # float64 draws: same values per dtype
    dev = backend.canonical_device(device if device is not None else backend.get_default_device())
    t = _wrap(backend.from_numpy(host, dev), dev, backend.get_namespace(dev), None)
    if requires_grad:
        t.requires_grad = True
    return t


def rand(
    *size: Any, dtype: Any = None, device: str | None = None, requires_grad: bool = False
) -> Tensor:
    """Uniform ``[0, 1)`` samples of shape ``size`` (float32 by default)."""
    return _random("rand", size, dtype, device, requires_grad)


def randn(
    *size: Any, dtype: Any = None, device: str | None = None, requires_grad: bool = False
) -> Tensor:
    """Standard normal samples of shape ``size`` (float32 by default)."""
    return _random("randn", size, dtype, device, requires_grad)

