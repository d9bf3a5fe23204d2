"""Helpers that act on parameters' gradients, outside autograd."""

from __future__ import annotations

import math
from collections.abc import Iterable

from stridegrad.tensor import Tensor

__all__ = ["clip_grad_norm_"]


def clip_grad_norm_(parameters: Iterable[Tensor] | Tensor, max_norm: float,
                    norm_type: float = 2.0) -> float:
    """Scale all gradients together so that their joint norm is at most ``max_norm``.

    The norm is taken over every gradient as if concatenated into one vector (PyTorch's
    rule); gradients are multiplied by ``max_norm / (total_norm + 1e-6)`` when that is
    below 1. Returns the total norm before clipping, as a float.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    max_norm = float(max_norm)
    if not max_norm > 0:
        raise ValueError(f"max_norm must be positive, got {max_norm}")
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return 0.0
    if norm_type == math.inf:
        total = max(float(g._xp.max(g._xp.abs(g._data))) for g in grads)
    else:
        norm_type = float(norm_type)
        total = sum(float(g._xp.sum(g._xp.abs(g._data) ** norm_type)) for g in grads) ** (1.0 / norm_type)
    coef = max_norm / (total + 1e-6)
    if coef < 1.0:
        for g in grads:
            g._data = g._data * coef
    return total
