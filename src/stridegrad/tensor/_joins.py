"""Layer 6 of :mod:`stridegrad.tensor`: functions of several tensors (``cat``, ``stack``, ``where``).

PyTorch's semantics: the inputs are promoted to one dtype (bool < int < float,
then the wider), live on one device, and the result is a new tensor whose
backward hands each input its part of the gradient (``cat``, ``stack``) or routes
it by the condition (``where``).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from stridegrad.tensor import _base
from stridegrad.tensor._base import _broadcast_shapes, _kind
from stridegrad.tensor._nodes import CatBackward, StackBackward, WhereBackward, _edge
from stridegrad.tensor._tensor import Tensor, _device_error, _pair, _promote_dtypes, _wrap


def _dim(fn: str, dim: Any, axis: Any, ndim: int, what: str) -> int:
    """One dim (``dim=`` or NumPy's ``axis=``) normalised to ``0..ndim-1``; an IndexError
    names the dim and its bound."""
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{fn}: pass either dim= or axis=, not both")
        dim = axis
    if dim is None:
        dim = 0
    if isinstance(dim, bool):
        raise TypeError(f"{fn}: dim is an int, got bool {dim!r}")
    try:
        d = operator.index(dim)
    except TypeError:
        raise TypeError(f"{fn}: dim is an int, got {type(dim).__name__}: {dim!r}") from None
    if not -ndim <= d < ndim:
        raise IndexError(
            f"{fn}: dim {d} is out of range for {what} (expected {-ndim}..{ndim - 1})"
        )
    return d % ndim


def _tensors(fn: str, tensors: Any) -> list[Tensor]:
    """The inputs of ``cat``/``stack``: a non-empty sequence of Tensors on one device,
    promoted to one dtype."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, Sequence) or isinstance(
        tensors, (str, bytes)
    ):
        raise TypeError(
            f"{fn}: expected a list or tuple of Tensors, got {type(tensors).__name__}"
        )
    ts = list(tensors)
    if not ts:
        raise ValueError(f"{fn}: expected a non-empty list of Tensors")
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{fn}: expected a Tensor as element {i}, got {type(t).__name__}"
            )
    first = ts[0]
    for t in ts[1:]:
        if t._device != first._device:
            raise _device_error(first, t)
    dtype = _promote_dtypes([t.dtype for t in ts])
    return [t._cast(dtype) for t in ts]


def cat(tensors: Sequence[Tensor], dim: int | None = None, *, axis: int | None = None) -> Tensor:
    """Join tensors along an existing dimension ``dim`` (default 0), as ``torch.cat``.

    All tensors have the same number of dimensions and the same size in every
    dimension but ``dim``; ``dim`` may be negative. ``axis=`` is NumPy's spelling.
    The inputs are promoted to one dtype and must share a device; the result is
    a new tensor. Backward gives each input its slice of the gradient.

    >>> import stridegrad as sg
    >>> sg.cat([sg.tensor([[1, 2]]), sg.tensor([[3, 4], [5, 6]])]).tolist()
    [[1, 2], [3, 4], [5, 6]]
    >>> sg.cat([sg.zeros(2, 1), sg.ones(2, 2)], dim=-1).shape
    (2, 3)

    Raises TypeError for anything but a list or tuple of Tensors, ValueError for
    an empty list, 0-d tensors, or shapes that differ outside ``dim`` (naming both
    shapes and the dim), IndexError for a dim out of range (naming it and its
    bound), RuntimeError for tensors on different devices (naming both).
    """
    ts = _tensors("cat", tensors)
    first = ts[0]
    shape0 = first.shape
    ndim = len(shape0)
    for i, t in enumerate(ts):
        if t._data.ndim == 0:
            raise ValueError(
                f"cat: tensor {i} is 0-d and cannot be concatenated; use stack, or "
                "reshape(1) first"
            )
    d = _dim("cat", dim, axis, ndim, f"tensors with {ndim} dimension(s)")
    for i, t in enumerate(ts[1:], 1):
        s = t.shape
        if len(s) != ndim or s[:d] + s[d + 1 :] != shape0[:d] + shape0[d + 1 :]:
            raise ValueError(
                f"cat: tensors must have the same shape except in dim {d}, but tensor 0 has "
                f"shape {shape0} and tensor {i} has shape {s}"
            )
    xp = first._xp
    out = xp.concat([t._data for t in ts], axis=d)
    node = None
    if _base._grad_enabled and any(t._requires_grad for t in ts):
        keys, start = [], 0
        lead = (slice(None),) * d
        tail = (slice(None),) * (ndim - d - 1)
        for t in ts:
            stop = start + t._data.shape[d]
            keys.append((*lead, slice(start, stop), *tail))
            start = stop
        node = CatBackward(tuple(_edge(t) for t in ts), tuple(keys))
    return _wrap(out, first._device, xp, node)


def stack(tensors: Sequence[Tensor], dim: int | None = None, *, axis: int | None = None) -> Tensor:
    """Join tensors of one shape along a new dimension ``dim`` (default 0), as ``torch.stack``.

    For inputs of ``n`` dimensions ``dim`` is in ``-(n+1)..n``; the result has
    ``len(tensors)`` at ``dim``. ``axis=`` is NumPy's spelling. The inputs are
    promoted to one dtype and must share a device. Backward gives each input its
    entry of the gradient along ``dim``.

    >>> import stridegrad as sg
    >>> sg.stack([sg.tensor([1, 2]), sg.tensor([3, 4])], dim=1).tolist()
    [[1, 3], [2, 4]]

    Raises TypeError for anything but a list or tuple of Tensors, ValueError for
    an empty list or tensors of different shapes (naming both shapes),
    IndexError for a dim out of range (naming it and its bound), RuntimeError for
    tensors on different devices (naming both).
    """
    ts = _tensors("stack", tensors)
    first = ts[0]
    shape0 = first.shape
    for i, t in enumerate(ts[1:], 1):
        if t.shape != shape0:
            raise ValueError(
                f"stack: all tensors must have the same shape, but tensor 0 has shape "
                f"{shape0} and tensor {i} has shape {t.shape}"
            )
    ndim = len(shape0) + 1
    d = _dim("stack", dim, axis, ndim, f"stacking tensors with {ndim - 1} dimension(s)")
    xp = first._xp
    out = xp.stack([t._data for t in ts], axis=d)
    node = None
    if _base._grad_enabled and any(t._requires_grad for t in ts):
        lead = (slice(None),) * d
        tail = (slice(None),) * (ndim - d - 1)
        keys = tuple((*lead, i, *tail) for i in range(len(ts)))
        node = StackBackward(tuple(_edge(t) for t in ts), keys)
    return _wrap(out, first._device, xp, node)


def where(condition: Tensor, input: Any, other: Any) -> Tensor:  # noqa: A002 - PyTorch's names
    """``input`` where ``condition`` is true, else ``other``, elementwise, as ``torch.where``.

    ``condition`` is a bool tensor (compare to make one: ``x > 0``); ``input`` and
    ``other`` are tensors or Python numbers. The three broadcast together, and the
    result has the promoted dtype of ``input`` and ``other`` (Python numbers do not
    widen a float tensor, as in ``x * 2``) on the condition's device. Backward
    sends the gradient to ``input`` where the condition holds and to ``other``
    elsewhere (zeros in the other places), none to the condition.

    >>> import stridegrad as sg
    >>> x = sg.tensor([-1.0, 2.0, -3.0], requires_grad=True)
    >>> y = sg.where(x > 0, x, 0.0)
    >>> y.tolist()
    [0.0, 2.0, 0.0]
    >>> y.sum().backward(); x.grad.tolist()
    [0.0, 1.0, 0.0]

    Raises TypeError for a condition that is not bool (naming its dtype),
    ValueError for shapes that do not broadcast (naming the three), RuntimeError
    for tensors on different devices (naming both).
    """
    if not isinstance(condition, Tensor):
        dev = next((t._device for t in (input, other) if isinstance(t, Tensor)), None)
        condition = Tensor(condition, device=dev)
    if _kind(condition) != "b":
        raise TypeError(
            f"where: the condition must be a bool tensor, got dtype {condition.dtype.name}; "
            "compare to make one (x > 0, x != 0)"
        )
    dev = condition._device
    for t in (input, other):
        if isinstance(t, Tensor) and t._device != dev:
            raise _device_error(condition, t)
    # input and other: one dtype, both tensors (a Python number is weak, as in x * 2)
    if isinstance(input, Tensor):
        x, y = _pair(input, other)
    elif isinstance(other, Tensor):
        y, x = _pair(other, input)
    else:
        x = Tensor(input, device=dev)
        x, y = _pair(x, other)
    if not isinstance(y, Tensor):
        y = Tensor(y, device=dev, dtype=x.dtype)
    elif not isinstance(x, Tensor):
        x = Tensor(x, device=dev, dtype=y.dtype)
    sc, sx, sy = condition.shape, x.shape, y.shape
    try:
        s = _broadcast_shapes(_broadcast_shapes(sc, sx), sy)
    except ValueError:
        raise ValueError(
            f"where: shapes {sc} (condition), {sx} (input) and {sy} (other) cannot be "
            "broadcast together"
        ) from None
    xp = x._xp
    out = xp.where(condition._data, x._data, y._data)
    node = None
    if _base._grad_enabled and (x._requires_grad or y._requires_grad):
        node = WhereBackward(
            (_edge(x), _edge(y)),
            xp,
            condition._data,
            sx if sx != s else None,
            sy if sy != s else None,
        )
    return _wrap(out, dev, xp, node)
