"""The gradient rules that lesson 08 writes: pure functions of arrays.

``unbroadcast``, ``sum_backward``, ``max_backward`` and ``matmul_backward`` are the
single steps inside the backward nodes of :mod:`stridegrad.tensor._nodes`: every
node of a broadcasting op (``+``, ``*``, ``where``, ...) sums its gradient back
with :func:`unbroadcast`, ``SumBackward`` and ``MeanBackward`` call
:func:`sum_backward`, ``MaxBackward`` and ``MinBackward`` :func:`max_backward`,
``MatMulBackward`` :func:`matmul_backward`. The nodes look them up in this module
at call time (``rules.unbroadcast(g, shape)``), so that ``stridegrad yours`` can
run the library with a learner's versions by setting them here.

The nodes call them with the raw arrays of a tensor's device: NumPy's on
``"cpu"``, CuPy's on ``"cuda"``, ``stridegrad.array``'s on ``"python"`` (and any
registered Array API namespace), float32 or float64. So each function finds the
namespace of its arrays (:func:`stridegrad.backend.array_namespace`) and calls
standard Array API functions on it, never NumPy's methods; a gradient keeps its
dtype. The lesson's checks pass NumPy float64 arrays.
"""

from __future__ import annotations

from stridegrad.backend import array_namespace

__all__ = ["matmul_backward", "max_backward", "sum_backward", "unbroadcast"]


def unbroadcast(grad, shape: tuple):
    """Sum a gradient back to the shape of an input that was broadcast.

    ``grad`` has the shape of the op's output; ``shape`` is the input's shape,
    which broadcast to it. Each input element gets the sum of the gradients
    of all the output elements it was broadcast to.

    ``(2, 3, 4)`` gradient, ``(3, 1)`` input -> a ``(3, 1)`` array.
    The result always has exactly ``shape``.

    The library's nodes call it with the gradient arrays of any device (NumPy,
    CuPy, ``stridegrad.array``), float32 or float64, so it uses the array's own
    namespace ``xp`` (``xp.sum``, ``xp.reshape``) and keeps the dtype; when
    nothing was broadcast it returns ``grad`` itself, no copy.
    """
    xp = array_namespace(grad)
    have = grad.shape
    if have == shape:
        return grad
    lead = len(have) - len(shape)
    stretched = tuple(lead + i for i, n in enumerate(shape) if n == 1 and have[lead + i] != 1)
    if not stretched:
        return xp.sum(grad, axis=tuple(range(lead)))
    grad = xp.sum(grad, axis=tuple(range(lead)) + stretched, keepdims=True)
    return xp.reshape(grad, shape)


def sum_backward(grad, shape: tuple, axis=None, keepdims: bool = False):
    """The gradient of ``x.sum(axis, keepdims)`` with respect to ``x`` of shape ``shape``.

    Every input element gets the gradient of the output element it was added
    into. ``grad`` has the output's shape; ``axis`` is None (all axes), an int
    or a tuple of ints, negative ones counting from the end; ``keepdims`` as
    in the forward call. The result is an array of shape ``shape``; a read-only
    broadcast view (no copy) is fine, as PyTorch's backward of ``sum`` returns
    ``grad.expand(...)``, a view too.

    ``grad`` of shape ``(2,)``, ``shape (2, 3)``, ``axis=1`` -> a ``(2, 3)`` array.

    The library's ``SumBackward`` and ``MeanBackward`` call it with the gradient
    arrays of any device (NumPy, CuPy, ``stridegrad.array``), float32 or float64,
    so it uses the array's own namespace ``xp`` (``xp.reshape``,
    ``xp.broadcast_to``); it returns the broadcast view, which the engine copies
    before it keeps one in a ``.grad``.
    """
    xp = array_namespace(grad)
    if not keepdims:
        ndim = len(shape)
        if axis is None:
            kept = (1,) * ndim
        else:
            axes = {axis % ndim} if isinstance(axis, int) else {a % ndim for a in axis}
            kept = tuple([1 if i in axes else n for i, n in enumerate(shape)])
        grad = xp.reshape(grad, kept)
    return xp.broadcast_to(grad, shape)


def max_backward(x, grad, axis=None, keepdims: bool = False):
    """The gradient of ``x.max(axis, keepdims)`` with respect to ``x``.

    Only the entries that *are* the maximum of their slice receive gradient;
    when several entries tie for the maximum, they share it equally (as
    PyTorch's ``amax`` does). ``axis`` is None or an int (negative counts from
    the end); ``keepdims`` as in the forward call; ``grad`` has the output's
    shape: with ``keepdims=True`` a size-1 axis where the max was taken, without
    it no such axis. The result has ``x``'s shape; ``x`` and ``grad`` are not changed.

    ``x = [1, 5, 3]``, ``grad = 1.0`` -> ``[0, 1, 0]``.
    ``x = [[1, 9], [8, 2]]``, ``grad = [[10], [20]]``, ``axis=1, keepdims=True``
    -> ``[[0, 10], [20, 0]]``.

    The library's ``MaxBackward`` calls it with the arrays of any device (NumPy,
    CuPy, ``stridegrad.array``), float32 or float64, and ``axis`` also a tuple of
    ints (``x.max(axis=(0, 2))``); ``MinBackward`` calls it with ``-x`` (the
    minima of ``x`` are the maxima of ``-x``). So it uses the namespace ``xp`` of
    ``x`` and the result has ``x``'s dtype.
    """
    xp = array_namespace(x)
    out = xp.max(x, axis=axis, keepdims=True)
    # without keepdims the reduced axes are gone from grad; its entries are in the
    # same order as out's, so a reshape puts them back as size-1 axes
    grad = xp.reshape(grad, out.shape)
    mask = xp.astype(x == out, x.dtype)
    count = xp.sum(mask, axis=axis, keepdims=True)
    return mask * (grad / count)


def matmul_backward(a, b, grad) -> tuple:
    """The gradients of ``out = a @ b`` for matrices: ``(n, k) @ (k, m) -> (n, m)``.

    ``grad`` is the gradient of the output, shape ``(n, m)``. Returns
    ``(grad_a, grad_b)`` with the shapes of ``a`` and of ``b``.

    The library's ``MatMulBackward`` calls it with the arrays of any device (NumPy,
    CuPy, ``stridegrad.array``), float32 or float64, and with stacks of matrices
    too, ``(..., n, k) @ (..., k, m)``: so it transposes the last two axes
    (``.mT``, the Array API's matrix transpose; ``.T`` reverses every axis). Where
    the batch axes were broadcast, the node sums each gradient back with
    :func:`unbroadcast`.
    """
    grad_a = grad @ b.mT
    grad_b = a.mT @ grad
    return grad_a, grad_b
