"""Stateless neural-network functions on Tensors: activations, losses, and (from
:mod:`stridegrad.nn.conv`) convolution and pooling.

Softmax and cross-entropy have their own backward nodes: they are computed with
the max subtracted (so logits of +-1000 stay finite and exact), and
cross-entropy's backward is the fused ``(softmax - onehot) / N`` (one node, the
speed of a training step). ``log_softmax`` and ``nll_loss`` are lesson 09's
exercises, the library's own functions: built from Tensor operations, so that
autograd gives their gradients; ``x.log_softmax()`` calls this module's
``log_softmax``, looked up at call time (``stridegrad yours`` swaps a learner's
in). ``cross_entropy`` does not go through them: it is ``nll_loss(log_softmax(z),
targets)`` in one node.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

import stridegrad as sg  # sg.tensor in nll_loss: the lesson's spelling (it is its exercise)
from stridegrad import backend
from stridegrad.tensor import _base
from stridegrad.tensor import Node, Tensor, _device_error, _edge, _kind, _norm_axes, _wrap, tensor

from .conv import avg_pool2d, conv2d, max_pool2d, unfold

__all__ = [
    "avg_pool2d",
    "conv2d",
    "cross_entropy",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
    "unfold",
]


def _check(x: Any, fn: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn} expects a Tensor, got {type(x).__name__}")
    return x


def relu(x: Tensor) -> Tensor:
    """``max(x, 0)`` elementwise; any shape."""
    return _check(x, "relu").relu()


def sigmoid(x: Tensor) -> Tensor:
    """``1 / (1 + exp(-x))`` elementwise, stable for large ``|x|``."""
    return _check(x, "sigmoid").sigmoid()


def tanh(x: Tensor) -> Tensor:
    """``tanh(x)`` elementwise."""
    return _check(x, "tanh").tanh()


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight.T + bias``: ``(…, in)``, ``(out, in)``, ``(out,)`` -> ``(…, out)``."""
    y = x @ weight.mT
    return y if bias is None else y + bias


def _one_axis(x: Tensor, axis: Any, fn: str) -> int:
    if isinstance(axis, (tuple, list)):
        raise TypeError(f"{fn} takes a single int axis, got {axis!r}")
    (a,) = _norm_axes(axis, x.ndim)
    return a


class SoftmaxBackward(Node):
    """Saves the output ``p``: ``grad = p * (g - sum(g * p))``."""

    __slots__ = ("axis", "out", "xp")
    _saves = True

    def __init__(self, edges, xp, out, axis):
        self._edges = edges
        self._released = False
        self.xp, self.out, self.axis = xp, out, axis

    def apply(self, g):
        p = self.out
        return (p * (g - self.xp.sum(g * p, axis=self.axis, keepdims=True)),)

    def _release(self):
        self.out = None


def log_softmax(x, axis=-1, *, dim=None):
    """``log(softmax(x))`` along the last axis (or ``axis``), from Tensor ops, stable for large logits.

    ``(N, C)`` logits -> ``(N, C)`` log-probabilities (any number of leading
    axes works the same way, none included: a ``(C,)`` vector is one row), for
    ``C >= 1`` and leading sizes >= 1. Stable: logits of 1000 give finite
    answers, no overflow. The result must be a new Tensor of ``x``'s shape and
    dtype, built from Tensor operations, so that gradients flow back to ``x``;
    ``x`` itself is not changed.

    The lesson's checks call it with ``x`` alone. The library also passes
    ``axis`` (``x.log_softmax(dim)`` calls this function): an int, negative ones
    counting from the end, the axis to normalise along instead of the last;
    ``dim`` is PyTorch's name for it and wins when given. Like every Tensor, ``x``
    may live on any device, float32 or float64.
    """
    axis = axis if dim is None else dim
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - shifted.exp().sum(axis=axis, keepdims=True).log()


def nll_loss(logp, targets):
    """Mean negative log-likelihood: ``(N, C)`` log-probabilities, ``(N,)`` int targets -> ``()``.

    ``targets`` holds ``N >= 1`` class indices in ``[0, C)``, as a list of ints
    or a NumPy int array. The mean over the ``N`` rows of ``-logp[i, targets[i]]``,
    as a Tensor of shape ``()`` and of ``logp``'s dtype, built from Tensor
    operations, so that gradients flow back to ``logp``; neither argument is
    changed.

    The library's works on ``logp``'s device (the lesson's checks use the CPU
    only), and also refuses ``targets`` of another length than ``N``
    (ValueError), which the lesson's checks never pass: NumPy would broadcast a
    single target over every row.

    Raises:
        IndexError: if a target is outside ``0..C-1``, a negative one included
            (NumPy would read -1 as the last class); the message names it.
    """
    n, c = logp.shape
    t = np.asarray(targets)
    if t.shape != (n,):
        raise ValueError(f"nll_loss: targets of shape {t.shape} for log-probabilities of "
                         f"shape {tuple(logp.shape)}; expected ({n},)")
    if n and not 0 <= t.min() <= t.max() < c:
        raise IndexError(f"nll_loss: targets from {t.min()} to {t.max()} for {c} classes "
                         f"(they must be in 0..{c - 1})")
    onehot = sg.tensor(np.eye(c)[t], dtype=logp.dtype, device=logp.device)
    return -(logp * onehot).sum() / n


def softmax(x: Tensor, axis: int = -1, *, dim: int | None = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis`` (max subtracted first); same shape as ``x``."""
    x = _check(x, "softmax")
    x._float_only("softmax")
    a = _one_axis(x, axis if dim is None else dim, "softmax")
    xp = x._xp
    e = xp.exp(x._data - xp.max(x._data, axis=a, keepdims=True))
    out = e / xp.sum(e, axis=a, keepdims=True)
    node = (
        SoftmaxBackward((_edge(x),), xp, out, a) if _base._grad_enabled and x._requires_grad else None
    )
    return _wrap(out, x._device, xp, node)


def mse_loss(pred: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """Mean (or sum, or per-element) squared error; ``pred`` and ``target`` have the same shape."""
    pred = _check(pred, "mse_loss")
    if not isinstance(target, Tensor):
        target = tensor(target, device=pred.device, dtype=pred.dtype)
    if pred.shape != target.shape:
        raise ValueError(
            f"mse_loss: pred shape {pred.shape} and target shape {target.shape} differ"
        )
    sq = (pred - target) ** 2
    if reduction == "mean":
        return sq.mean()
    if reduction == "sum":
        return sq.sum()
    if reduction == "none":
        return sq
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


class CrossEntropyBackward(Node):
    """Fused backward of log-softmax + pick: ``(softmax - onehot) * scale``.

    Saves the exponentials ``e`` of the shifted logits and their sums ``se`` over
    the class axis ``axis`` of ``e`` (the softmax is ``e / se``), and the int64
    targets. ``axis`` is 0 when the forward pass worked on a class-major copy of
    the logits (see :func:`cross_entropy`); the gradient is then its transpose, a
    view with the logits' shape.
    """

    __slots__ = ("axis", "e", "n", "reduction", "se", "t", "xp")
    _saves = True

    def __init__(self, edges, xp, e, se, t, axis, reduction, n):
        self._edges = edges
        self._released = False
        self.xp, self.e, self.se, self.t, self.axis = xp, e, se, t, axis
        self.reduction, self.n = reduction, n

    def apply(self, g):
        xp = self.xp
        e, t, axis = self.e, self.t, self.axis
        d = e / self.se  # the softmax: a fresh array, so the updates below are in place
        d -= xp.astype(_onehot(xp, t, e.shape[axis], axis), d.dtype)
        if self.reduction == "mean":
            d *= g / self.n
        elif self.reduction == "sum":
            d *= g
        else:  # per row: g has shape (N,)
            d *= g if axis == 0 else xp.reshape(g, (self.n, 1))
        return (xp.permute_dims(d, (1, 0)) if axis == 0 else d,)

    def _release(self):
        self.e = self.se = self.t = None


def _onehot(xp, t: Any, c: int, axis: int) -> Any:
    """Bool mask of the targets ``t`` (N,) among ``c`` classes, the class axis at ``axis``."""
    classes = xp.arange(c, dtype=t.dtype)
    if axis == 0:
        return xp.equal(classes[:, None], t)
    return xp.equal(t[:, None], classes)


def _require(array: Any, check) -> None:
    """``check(array)`` now, and on every replay when ``sg.compile`` is tracing.

    Looked up lazily in ``sys.modules``: when ``stridegrad.compile`` was never
    imported, nothing can be tracing, and eager code does not import it.
    """
    trace = sys.modules.get("stridegrad.compile.trace")
    if trace is not None and trace.is_tracing():
        trace.require(array, check)
    else:
        check(array)


def _label_check(classes: int, device: str):
    """A check that integer labels lie in ``0..classes-1`` (IndexError naming one that does not)."""

    def check(t: Any) -> None:
        if t.shape[0] == 0:
            return
        xp = backend.get_namespace(device)
        if int(xp.min(t)) < 0 or int(xp.max(t)) >= classes:
            host = backend.to_numpy(t, device)
            bad = int(host[(host < 0) | (host >= classes)][0])
            raise IndexError(
                f"cross_entropy: target label {bad} is out of range for {classes} classes "
                f"(labels must be in 0..{classes - 1})"
            )

    return check


def _targets(targets: Any, logits: Tensor) -> Any:
    """Targets as an integer array on the logits' device."""
    if isinstance(targets, Tensor):
        if targets.device != logits.device:
            raise _device_error(logits, targets)
        t = targets
    else:
        if isinstance(targets, np.ndarray) and targets.dtype.kind not in "iu":
            raise TypeError(
                f"cross_entropy: targets must be integer class indices, got dtype {targets.dtype}"
            )
        t = tensor(targets, device=logits.device)
    if _kind(t) not in "iu":
        raise TypeError(
            f"cross_entropy: targets must be integer class indices, got dtype {t.dtype.name}"
        )
    return t._data


def cross_entropy(logits: Tensor, targets: Any, reduction: str = "mean") -> Tensor:
    """Softmax cross-entropy: ``(N, C)`` logits, ``(N,)`` int targets -> ``()`` loss.

    ``targets`` may be a Tensor, a NumPy array or a list. Computed via log-softmax
    with the row max subtracted, so logits of +-1000 give finite, exact losses.
    The target entries are picked with ``take`` and the backward's one-hot mask is
    built with ``equal`` (no fancy indexing), so it runs on every device.
    ``reduction`` is ``"mean"`` (default), ``"sum"`` or ``"none"``.
    Labels outside ``0..C-1`` raise ``IndexError``, in eager mode and, under
    ``sg.compile``, before every replay of the captured step.
    """
    logits = _check(logits, "cross_entropy")
    logits._float_only("cross_entropy")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if logits.ndim != 2:
        raise ValueError(f"cross_entropy expects (N, C) logits, got shape {logits.shape}")
    n, c = logits.shape
    t = _targets(targets, logits)
    if tuple(t.shape) != (n,):
        raise ValueError(
            f"cross_entropy: targets shape {tuple(t.shape)} does not match logits shape "
            f"{logits.shape}; expected ({n},)"
        )
    xp = logits._xp
    # the range check reads values into Python; under sg.compile it becomes a check
    # that runs on the real labels before every replay of the captured step
    _require(t, _label_check(c, logits.device))
    z = logits._data
    if t.dtype != xp.int64:  # positions below are t * n or t + c * row: no narrow ints
        t = xp.astype(t, xp.int64)
    # NumPy reduces a short axis slowly (per-row overhead): with fewer classes than
    # rows, work on a class-major copy, whose reductions run along contiguous rows.
    # The values are the same either way; only the layout differs.
    if n > c:
        zc = xp.reshape(xp.permute_dims(z, (1, 0)), (c, n), copy=True)
        axis, pos = 0, t * n + xp.arange(n, dtype=xp.int64)
    else:
        zc, axis, pos = z, 1, xp.arange(n, dtype=xp.int64) * c + t
    s = zc - xp.max(zc, axis=axis, keepdims=True)  # the row max subtracted: exp never overflows
    e = xp.exp(s)
    se = xp.sum(e, axis=axis, keepdims=True)
    # -log_softmax at the target: log(sum exp(s)) - s[target], the target picked with take
    per_row = xp.reshape(xp.log(se), (n,)) - xp.take(xp.reshape(s, (-1,)), pos)
    if reduction == "mean":
        out = xp.sum(per_row) / n if n else xp.sum(per_row) * float("nan")
    elif reduction == "sum":
        out = xp.sum(per_row)
    else:
        out = per_row
    node = None
    if _base._grad_enabled and logits._requires_grad:
        node = CrossEntropyBackward((_edge(logits),), xp, e, se, t, axis, reduction, n)
    return _wrap(out, logits.device, xp, node)
