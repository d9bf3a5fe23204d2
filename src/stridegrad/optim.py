"""Optimizers: ``SGD`` (momentum, Nesterov, weight decay), ``Adam`` and ``AdamW``.

Backward only computes gradients; an optimizer decides how far to move. That is why
optimizers, weight decay and gradient clipping change here without touching the
autograd engine. The update formulas are PyTorch's documented ones
(https://pytorch.org/docs/stable/optim.html): for SGD,

    g = grad + weight_decay * p
    b = momentum * b + (1 - dampening) * g      (b = g on the first step)
    g = g + momentum * b  if nesterov else  b
    p = p - lr * g

and for Adam (``AdamW`` decays the weights directly: ``p = p * (1 - lr * wd)``):

    g = grad + weight_decay * p                 (Adam only)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    p = p - lr * (m / (1 - beta1**t)) / (sqrt(v / (1 - beta2**t)) + eps)

Updates work on the raw arrays of each parameter's device, outside autograd.

The update of one parameter is lesson 09's exercises, :func:`sgd_step` and
:func:`adam_step`: ``SGD.step`` and ``Adam.step`` call them for each parameter,
looked up in this module at call time (``stridegrad yours`` swaps a learner's in by
setting ``stridegrad.optim.sgd_step``). What the classes add to those rules stays
in the classes: weight decay for Adam (into the gradient) and AdamW (on the
weights) before the call, and SGD's ``dampening`` and ``nesterov``, which take the
class's own path.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from stridegrad.tensor import Tensor

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "adam_step", "sgd_step"]


# --------------------------------------------------------------------------- update rules
# Lesson 09's exercises. The optimizers call them with each parameter's raw arrays:
# NumPy's on "cpu", CuPy's on "cuda", stridegrad.array's on "python", float32 or
# float64, so they use arithmetic operators only.


def sgd_step(param, grad, state: dict, lr: float,
             momentum: float = 0.0, weight_decay: float = 0.0):
    """One step of ``torch.optim.SGD`` (no dampening, no Nesterov) for one
    parameter; returns the new parameter array.

    ``weight_decay`` is L2 regularisation, added to the gradient before
    momentum. With momentum, the velocity is kept in ``state["momentum_buffer"]``
    between calls (``state`` starts as ``{}``). ``param`` and ``grad`` are not
    changed in place, and the buffer is never one of them.

    The library's :class:`SGD` calls it for every parameter that has a gradient,
    with the parameter's raw arrays of its device (NumPy, CuPy or
    ``stridegrad.array`` ones, float32 or float64), so it uses arithmetic only;
    the lesson's checks pass NumPy float64 arrays.

    Example:
        >>> state = {}
        >>> sgd_step(np.array([1.0]), np.array([1.0]), state, lr=0.1, momentum=0.9)
        array([0.9])
        >>> sgd_step(np.array([0.9]), np.array([1.0]), state, lr=0.1, momentum=0.9)
        array([0.71])
    """
    g = grad + weight_decay * param if weight_decay else grad
    if momentum:
        buf = state.get("momentum_buffer")
        # the first buffer is g itself, as a new array (g may be the caller's grad)
        buf = 1.0 * g if buf is None else momentum * buf + g
        state["momentum_buffer"] = buf
        g = buf
    return param - lr * g


def adam_step(param, grad, state: dict, lr: float = 1e-3,
              betas: tuple = (0.9, 0.999), eps: float = 1e-8):
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

    The library's :class:`Adam` and :class:`AdamW` call it for every parameter
    that has a gradient (their weight decay done before the call), with the
    parameter's raw arrays of its device: NumPy, CuPy or ``stridegrad.array``
    ones (the ``"python"`` device, which ``np.sqrt`` would turn into NumPy
    arrays; ``** 0.5`` takes all three), float32 or float64. The lesson's checks
    pass NumPy float64 arrays.

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
    return param - lr * m_hat / (v_hat ** 0.5 + eps)


class Optimizer:
    """Base class: holds the parameters, ``zero_grad()`` and per-parameter ``state``."""

    def __init__(self, params: Iterable[Tensor], lr: float) -> None:
        params = list(params)
        if not params:
            raise ValueError(f"{type(self).__name__} got an empty parameter list")
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(f"{type(self).__name__}: parameter {i} is a {type(p).__name__}, not a Tensor")
            if not p.requires_grad:
                raise ValueError(f"{type(self).__name__}: parameter {i} (shape {p.shape}) does not require grad")
        if len({id(p) for p in params}) != len(params):
            raise ValueError(f"{type(self).__name__}: some parameters appear more than once")
        _check_nonneg("lr", lr)
        self.params = params
        self.lr = float(lr)
        self.state: dict[int, dict[str, Any]] = {}
        self.steps = 0

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the gradients: to None (default, like PyTorch 2) or to zeros in place."""
        for p in self.params:
            g = p.grad
            if g is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g._data = g._xp.zeros_like(g._data)

    def step(self) -> None:
        """Move every parameter that has a gradient by one update."""
        self.steps += 1
        for p in self.params:
            if p.grad is not None:
                p._data = self._update(p._data, p.grad._data, p._xp, self.state.setdefault(id(p), {}))

    def _update(self, w, g, xp, state):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._hyper()}, params={len(self.params)})"

    def _hyper(self) -> str:
        return f"lr={self.lr}"


def _check_nonneg(name: str, value: float) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not value >= 0 or math.isinf(value):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, Nesterov and weight decay."""

    def __init__(self, params: Iterable[Tensor], lr: float, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False) -> None:
        super().__init__(params, lr)
        for name, v in (("momentum", momentum), ("dampening", dampening), ("weight_decay", weight_decay)):
            _check_nonneg(name, v)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum needs momentum > 0 and dampening = 0, "
                             f"got momentum={momentum}, dampening={dampening}")
        self.momentum, self.dampening = float(momentum), float(dampening)
        self.weight_decay, self.nesterov = float(weight_decay), bool(nesterov)

    def _update(self, w, g, xp, state):
        if not (self.nesterov or (self.momentum and self.dampening)):
            # the lesson's rule, looked up at call time (a learner's may be swapped in)
            return sgd_step(w, g, state, lr=self.lr, momentum=self.momentum,
                            weight_decay=self.weight_decay)
        # dampening and Nesterov (both need momentum > 0): beyond the lesson's rule
        if self.weight_decay:
            g = g + self.weight_decay * w
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = g
        else:
            buf = self.momentum * buf + ((1.0 - self.dampening) * g if self.dampening else g)
        state["momentum_buffer"] = buf
        return w - self.lr * (g + self.momentum * buf if self.nesterov else buf)

    def _hyper(self) -> str:
        return (f"lr={self.lr}, momentum={self.momentum}, weight_decay={self.weight_decay}, "
                f"nesterov={self.nesterov}")


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; ``weight_decay`` is added to the gradient."""

    decoupled = False

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0) -> None:
        super().__init__(params, lr)
        b1, b2 = betas
        for name, b in (("betas[0]", b1), ("betas[1]", b2)):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"{name} must be in [0, 1), got {b}")
        _check_nonneg("eps", eps)
        _check_nonneg("weight_decay", weight_decay)
        self.betas, self.eps, self.weight_decay = (float(b1), float(b2)), float(eps), float(weight_decay)

    def _update(self, w, g, xp, state):
        if self.weight_decay:  # beyond the lesson's rule, done before it
            if self.decoupled:
                w = w * (1.0 - self.lr * self.weight_decay)
            else:
                g = g + self.weight_decay * w
        # the lesson's rule, looked up at call time (a learner's may be swapped in)
        return adam_step(w, g, state, lr=self.lr, betas=self.betas, eps=self.eps)

    def _hyper(self) -> str:
        return f"lr={self.lr}, betas={self.betas}, eps={self.eps}, weight_decay={self.weight_decay}"


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p *= 1 - lr * wd``."""

    decoupled = True

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2) -> None:
        super().__init__(params, lr, betas, eps, weight_decay)
