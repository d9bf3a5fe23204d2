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
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from stridegrad.tensor import Tensor

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]


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
        if self.weight_decay:
            g = g + self.weight_decay * w
        if self.momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g
            else:
                buf = self.momentum * buf + (1.0 - self.dampening) * g if self.dampening else self.momentum * buf + g
            state["momentum_buffer"] = buf
            g = g + self.momentum * buf if self.nesterov else buf
        return w - self.lr * g

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
        b1, b2 = self.betas
        if self.weight_decay:
            if self.decoupled:
                w = w * (1.0 - self.lr * self.weight_decay)
            else:
                g = g + self.weight_decay * w
        t = state["step"] = state.get("step", 0) + 1
        m = state["exp_avg"] = b1 * state["exp_avg"] + (1.0 - b1) * g if t > 1 else (1.0 - b1) * g
        v = state["exp_avg_sq"] = (b2 * state["exp_avg_sq"] + (1.0 - b2) * (g * g) if t > 1
                                   else (1.0 - b2) * (g * g))
        step_size = self.lr / (1.0 - b1 ** t)
        denom = xp.sqrt(v) / math.sqrt(1.0 - b2 ** t) + self.eps
        return w - step_size * (m / denom)

    def _hyper(self) -> str:
        return f"lr={self.lr}, betas={self.betas}, eps={self.eps}, weight_decay={self.weight_decay}"


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p *= 1 - lr * wd``."""

    decoupled = True

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2) -> None:
        super().__init__(params, lr, betas, eps, weight_decay)
