"""The solutions of lesson 09's exercises (09_training_loop), in one module.

Written by ``stridegrad build 09`` from ``course/09_training_loop.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 09 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.nn.modules import Linear
from stridegrad.nn.functional import log_softmax
from stridegrad.nn.functional import nll_loss
from stridegrad.optim import sgd_step
from stridegrad.optim import adam_step


import numpy as np


def rmsprop_step(param, grad, state, lr=0.01, alpha=0.99, eps=1e-8):
    """One RMSprop update of one parameter; returns the new parameter array.

    ``torch.optim.RMSprop`` with no momentum, not centered, no weight decay: the
    running average of the squared gradient, ``alpha``-weighted, is kept in
    ``state["square_avg"]`` between calls (``state`` starts as ``{}``, the average
    at 0), and ``eps`` is added after the square root. ``param`` and ``grad`` are
    not changed in place.

    Example:
        >>> state = {}
        >>> rmsprop_step(np.array([1.0, 1.0]), np.array([0.5, -2.0]), state, lr=0.1, alpha=0.9)
        array([0.68377223, 1.31622777])
        >>> state["square_avg"]
        array([0.025, 0.4  ])
    """
    v = state["square_avg"] = alpha * state.get("square_avg", 0.0) + (1 - alpha) * grad * grad
    return param - lr * grad / (np.sqrt(v) + eps)


__all__ = ['Linear', 'log_softmax', 'nll_loss', 'sgd_step', 'adam_step', 'rmsprop_step']
