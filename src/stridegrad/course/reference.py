"""Reference solutions of course exercises that are not library functions.

The library's autograd works on whole graphs (``stridegrad.tensor``); the
lessons ask for the single steps inside it as small, pure functions on NumPy
arrays (episode 08) and for the pieces of a training loop (episode 09). The
lesson build copies each function's body from here into the solution notebook
and writes a stub with the same signature and docstring into the lesson, so
this module is the one source of those solutions.

Nothing in the library imports this module.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

import stridegrad as sg

__all__ = [
    "adam_step",
    "log_softmax",
    "matmul_backward",
    "max_backward",
    "nll_loss",
    "numerical_gradient",
    "sgd_step",
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


def numerical_gradient(f: Callable[[np.ndarray], float], x: np.ndarray,
                       eps: float = 1e-6) -> np.ndarray:
    """The gradient of ``f`` at ``x`` by central differences, one entry at a time.

    ``f`` maps an array of ``x``'s shape to a number; ``x`` is a float array
    (float64 or float32) of any shape, 0-d and size 0 included, and any layout
    (a transposed, stepped or reversed view). Returns a new float64 array of
    ``x``'s shape, whose entry ``i`` is ``(f(x + eps e_i) - f(x - eps e_i)) /
    (2 eps)``. ``x`` may be changed while the function runs; when it returns,
    ``x`` holds exactly the values it had (bit for bit).
    """
    grad = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        old = x[idx]
        x[idx] = old + eps
        up = f(x)
        x[idx] = old - eps
        down = f(x)
        x[idx] = old
        grad[idx] = (up - down) / (2 * eps)
    return grad


# --------------------------------------------------------------------------- episode 09


def log_softmax(x: sg.Tensor) -> sg.Tensor:
    """``log(softmax(x))`` along the last axis, from Tensor ops, stable for large logits.

    ``(N, C)`` logits -> ``(N, C)`` log-probabilities (any number of leading
    axes works the same way, none included: a ``(C,)`` vector is one row), for
    ``C >= 1`` and leading sizes >= 1. Stable: logits of 1000 give finite
    answers, no overflow. The result must be a new Tensor of ``x``'s shape and
    dtype, built from Tensor operations, so that gradients flow back to ``x``;
    ``x`` itself is not changed.
    """
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - shifted.exp().sum(axis=-1, keepdims=True).log()


def nll_loss(logp: sg.Tensor, targets) -> sg.Tensor:
    """Mean negative log-likelihood: ``(N, C)`` log-probabilities, ``(N,)`` int targets -> ``()``.

    ``targets`` holds ``N >= 1`` class indices in ``[0, C)``, as a list of ints
    or a NumPy int array. The mean over the ``N`` rows of ``-logp[i, targets[i]]``,
    as a Tensor of shape ``()`` and of ``logp``'s dtype, built from Tensor
    operations, so that gradients flow back to ``logp``; neither argument is
    changed.
    """
    n, c = logp.shape
    onehot = sg.tensor(np.eye(c)[np.asarray(targets)], dtype=logp.dtype)
    return -(logp * onehot).sum() / n


def sgd_step(param: np.ndarray, grad: np.ndarray, state: dict, lr: float,
             momentum: float = 0.0, weight_decay: float = 0.0) -> np.ndarray:
    """One step of ``torch.optim.SGD`` (no dampening, no Nesterov) for one
    parameter; returns the new parameter array.

    ``weight_decay`` is L2 regularisation, added to the gradient before
    momentum. With momentum, the velocity is kept in ``state["momentum_buffer"]``
    between calls (``state`` starts as ``{}``). ``param`` and ``grad`` are not
    changed in place, and the buffer is never one of them.

    Example:
        >>> state = {}
        >>> sgd_step(np.array([1.0]), np.array([1.0]), state, lr=0.1, momentum=0.9)
        array([0.9])
        >>> sgd_step(np.array([0.9]), np.array([1.0]), state, lr=0.1, momentum=0.9)
        array([0.71])
    """
    g = grad + weight_decay * param
    if momentum:
        buf = state.get("momentum_buffer")
        buf = g if buf is None else momentum * buf + g
        state["momentum_buffer"] = buf
        g = buf
    return param - lr * g


def adam_step(param: np.ndarray, grad: np.ndarray, state: dict, lr: float = 1e-3,
              betas: tuple = (0.9, 0.999), eps: float = 1e-8) -> np.ndarray:
    """One Adam update of one parameter; returns the new parameter array.

    The update of ``torch.optim.Adam`` (no weight decay, no amsgrad), as its
    documentation states it, with ``b1, b2 = betas``, ``g = grad`` and ``t``
    the number of this step (1 on the first call)::

        m = b1 * m + (1 - b1) * g              # m and v start at 0
        v = b2 * v + (1 - b2) * g**2           # element by element
        m_hat = m / (1 - b1**t)                # bias corrections
        v_hat = v / (1 - b2**t)
        new param = param - lr * m_hat / (sqrt(v_hat) + eps)

    ``eps`` is added after the square root. ``state`` keeps ``"step"`` (``t``),
    ``"exp_avg"`` (``m``) and ``"exp_avg_sq"`` (``v``) between calls; it starts
    as ``{}``. ``param`` and ``grad`` are not changed in place.

    Example:
        >>> state = {}
        >>> adam_step(np.array([1.0]), np.array([0.5]), state, lr=0.1)   # first step: lr * sign
        array([0.9])
        >>> state["step"], state["exp_avg"], state["exp_avg_sq"]
        (1, array([0.05]), array([0.00025]))
    """
    b1, b2 = betas
    t = state["step"] = state.get("step", 0) + 1
    m = state["exp_avg"] = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
    v = state["exp_avg_sq"] = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad * grad
    m_hat = m / (1 - b1 ** t)
    v_hat = v / (1 - b2 ** t)
    return param - lr * m_hat / (np.sqrt(v_hat) + eps)
