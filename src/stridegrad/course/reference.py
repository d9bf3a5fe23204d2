"""Reference solutions of course exercises that are not library functions.

The library's autograd works on whole graphs (``stridegrad.tensor``); the
lessons ask for the single steps inside it as small, pure functions on NumPy
arrays (episode 08); episode 09's exercises are the library's own
(``stridegrad.nn.functional``, ``stridegrad.optim``). The lesson build copies
each function's body from here into the solution notebook and writes a stub
with the same signature and docstring into the lesson, so this module is the
one source of those solutions.

Nothing in the library imports this module.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "matmul_backward",
    "max_backward",
    "sum_backward",
    "unbroadcast",
]


# --------------------------------------------------------------------------- episode 08


def unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum a gradient back to the shape of an input that was broadcast.

    ``grad`` has the shape of the op's output; ``shape`` is the input's shape,
    which broadcast to it. Each input element gets the sum of the gradients
    of all the output elements it was broadcast to.

    ``(2, 3, 4)`` gradient, ``(3, 1)`` input -> a ``(3, 1)`` array.
    The result always has exactly ``shape``.
    """
    grad = np.asarray(grad)
    lead = grad.ndim - len(shape)
    if lead:
        grad = grad.sum(axis=tuple(range(lead)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return np.asarray(grad).reshape(shape)


def sum_backward(grad: np.ndarray, shape: tuple, axis=None, keepdims: bool = False) -> np.ndarray:
    """The gradient of ``x.sum(axis, keepdims)`` with respect to ``x`` of shape ``shape``.

    Every input element gets the gradient of the output element it was added
    into. ``grad`` has the output's shape; ``axis`` is None (all axes), an int
    or a tuple of ints, negative ones counting from the end; ``keepdims`` as
    in the forward call. The result is an array of shape ``shape``; a read-only
    broadcast view (no copy) is fine, as PyTorch's backward of ``sum`` returns
    ``grad.expand(...)``, a view too.

    ``grad`` of shape ``(2,)``, ``shape (2, 3)``, ``axis=1`` -> a ``(2, 3)`` array.
    """
    grad = np.asarray(grad)
    ndim = len(shape)
    if axis is None:
        axes = tuple(range(ndim))
    elif isinstance(axis, int):
        axes = (axis % ndim,)
    else:
        axes = tuple(a % ndim for a in axis)
    if not keepdims:
        kept = [1 if i in axes else n for i, n in enumerate(shape)]
        grad = grad.reshape(kept)
    return np.broadcast_to(grad, shape).copy()


def max_backward(x: np.ndarray, grad: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
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
    """
    x = np.asarray(x)
    out = x.max(axis=axis, keepdims=True)
    if axis is None or keepdims:
        grad = np.reshape(grad, out.shape)
    else:
        grad = np.expand_dims(grad, axis)
    mask = (x == out).astype(float)
    count = mask.sum(axis=axis, keepdims=True)
    return mask * grad / count


def matmul_backward(a: np.ndarray, b: np.ndarray, grad: np.ndarray) -> tuple:
    """The gradients of ``out = a @ b`` for matrices: ``(n, k) @ (k, m) -> (n, m)``.

    ``grad`` is the gradient of the output, shape ``(n, m)``. Returns
    ``(grad_a, grad_b)`` with the shapes of ``a`` and of ``b``.
    """
    grad_a = grad @ b.T
    grad_b = a.T @ grad
    return grad_a, grad_b
