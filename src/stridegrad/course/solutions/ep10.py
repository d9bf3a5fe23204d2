"""The solutions of lesson 10's exercises (10_backends), in one module.

Written by ``stridegrad build 10`` from ``course/10_backends.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 10 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.backend import pick_device
from stridegrad.backend import to_host


def namespace_of(*arrays):
    """The array namespace shared by ``arrays`` (Python numbers, ``bool``,
    ``int``, ``float`` and ``complex``, are skipped).

    Raises TypeError naming its type for an argument that is not an array (no
    ``__array_namespace__``); RuntimeError naming both namespaces (their
    ``__name__``) when the arrays come from two namespaces, or, all of one
    namespace, naming both devices when they are on two devices (devices are
    compared with ``==``); ValueError when there is no array at all.

    Example:
        >>> namespace_of(np.ones(2), 3.0) is np
        True
    """
    xp = device = None
    for x in arrays:
        if isinstance(x, (bool, int, float, complex)):
            continue
        if not hasattr(x, "__array_namespace__"):
            raise TypeError(f"namespace_of: a {type(x).__name__} is not an array "
                            "(it has no __array_namespace__)")
        x_xp = x.__array_namespace__()
        if xp is None:
            xp, device = x_xp, x.device
        elif x_xp is not xp:
            raise RuntimeError(f"arrays from two namespaces: {xp.__name__} and {x_xp.__name__}")
        elif x.device != device:
            raise RuntimeError(f"arrays on two devices: {device} and {x.device}")
    if xp is None:
        raise ValueError("namespace_of: no array among the arguments")
    return xp


def softmax(xp, x, axis=-1):
    """Softmax of ``x`` along ``axis``, with only Array API calls on ``xp``.

    ``x`` is a float32 or float64 array of ``xp`` with at least one axis;
    ``axis`` is one axis, an int (negative counts from the end). Stable for
    large inputs (the maximum along ``axis`` is subtracted first, in each row
    its own). Returns a new array of ``xp`` with the shape and dtype of ``x``;
    ``x`` itself is left as it was.

    Example:
        >>> softmax(np, np.array([0.0, math.log(3.0)]))
        array([0.25, 0.75])
    """
    m = xp.max(x, axis=axis, keepdims=True)
    e = xp.exp(x - m)
    return e / xp.sum(e, axis=axis, keepdims=True)


import math
import time


def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    """The best (smallest) of ``repeat`` timed runs of ``fn()``, in seconds (a
    float), after one warm-up run that is not timed: ``fn`` is called ``repeat
    + 1`` times. ``sync()`` waits until the device has done everything queued:
    no run's time may include work queued before it (the warm-up's included),
    and none may end before its own work is done (so the device is idle when
    ``time_op`` returns). ValueError when ``repeat`` < 1.

    Example:
        >>> time_op(lambda: sum(range(10_000)), sync=lambda: None) > 0
        True
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    fn()  # warm-up: compilation, allocation, caches
    sync()  # and let it finish before the clock starts
    best = math.inf
    for _ in range(repeat):
        start = clock()
        fn()
        sync()
        best = min(best, clock() - start)
    return best


def logsumexp(xp, x, axis=-1):
    """``log(sum(exp(x)))`` along ``axis``, with only Array API calls on ``xp``.

    ``x`` is a float32 or float64 array of ``xp`` with at least one axis;
    ``axis`` is one axis, an int (negative counts from the end). Shape contract:
    ``x``'s shape without ``axis`` (as ``scipy.special.logsumexp`` and
    ``torch.logsumexp`` without keepdims), an array of ``xp`` with ``x``'s
    dtype; ``x`` itself is left as it was. Finite for any finite input, scores
    of 1000 or -1000 included, in rows of very different sizes.

    Example:
        >>> float(logsumexp(np, np.array([0.0, math.log(3.0)])))   # log(1 + 3)
        1.3862943611198906
        >>> float(logsumexp(np, np.array([1000.0, 1000.0])))        # 1000 + log(2)
        1000.6931471805599
    """
    m = xp.max(x, axis=axis, keepdims=True)
    total = xp.sum(xp.exp(x - m), axis=axis, keepdims=True)
    return xp.squeeze(xp.log(total) + m, axis=axis)


__all__ = ['namespace_of', 'softmax', 'pick_device', 'to_host', 'time_op', 'logsumexp']
