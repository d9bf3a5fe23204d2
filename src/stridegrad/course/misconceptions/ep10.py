"""Known-wrong implementations of episode 10's exercises (backends).

Each must fail checkpoint 10; ``test_checks.py`` and ``test_ep10.py`` run them all.
"""

from __future__ import annotations

__all__ = ["WRONG"]

WRONG = {
    "namespace_of": [
        ("returns the first array's namespace, never compares", """
def namespace_of(*arrays):
    for x in arrays:
        if hasattr(x, "__array_namespace__"):
            return x.__array_namespace__()
    raise ValueError("no array")
"""),
        ("compares namespaces but not devices", """
def namespace_of(*arrays):
    xp = None
    for x in arrays:
        if isinstance(x, (bool, int, float, complex)):
            continue
        if not hasattr(x, "__array_namespace__"):
            raise TypeError(type(x).__name__)
        if xp is None:
            xp = x.__array_namespace__()
        elif x.__array_namespace__() is not xp:
            raise RuntimeError(f"{xp.__name__} and {x.__array_namespace__().__name__}")
    if xp is None:
        raise ValueError("no array")
    return xp
"""),
        ("asks Python numbers for a namespace", """
def namespace_of(*arrays):
    if not arrays:
        raise ValueError("no array")
    xps = []
    for x in arrays:
        if not hasattr(x, "__array_namespace__"):
            raise TypeError(f"{type(x).__name__} is not an array")
        xps.append(x.__array_namespace__())
    if any(xp is not xps[0] for xp in xps):
        raise RuntimeError("mixed namespaces")
    return xps[0]
"""),
        ("vague error when mixing", """
def namespace_of(*arrays):
    found = [x for x in arrays if not isinstance(x, (bool, int, float, complex))]
    if not found:
        raise ValueError("no array")
    for x in found:
        if not hasattr(x, "__array_namespace__"):
            raise TypeError(type(x).__name__)
    xp, device = found[0].__array_namespace__(), found[0].device
    for x in found[1:]:
        if x.__array_namespace__() is not xp or x.device != device:
            raise RuntimeError("cannot mix arrays")
    return xp
"""),
        ("returns None for no arrays", """
def namespace_of(*arrays):
    xp = device = None
    for x in arrays:
        if isinstance(x, (bool, int, float, complex)):
            continue
        if not hasattr(x, "__array_namespace__"):
            raise TypeError(type(x).__name__)
        if xp is None:
            xp, device = x.__array_namespace__(), x.device
        elif x.__array_namespace__() is not xp:
            raise RuntimeError(f"{xp.__name__} and {x.__array_namespace__().__name__}")
        elif x.device != device:
            raise RuntimeError(f"{device} and {x.device}")
    return xp
"""),
    ],
    "softmax": [
        ("NumPy habits: methods and np.exp", """
import numpy as np
def softmax(xp, x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""),
        ("np.exp on any namespace", """
import numpy as np
def softmax(xp, x, axis=-1):
    e = np.exp(x - xp.max(x, axis=axis, keepdims=True))
    return e / xp.sum(e, axis=axis, keepdims=True)
"""),
        ("does not subtract the max (overflows)", """
def softmax(xp, x, axis=-1):
    e = xp.exp(x)
    return e / xp.sum(e, axis=axis, keepdims=True)
"""),
        ("sums over every element", """
def softmax(xp, x, axis=-1):
    e = xp.exp(x - xp.max(x))
    return e / xp.sum(e)
"""),
        ("always along the last axis", """
def softmax(xp, x, axis=-1):
    e = xp.exp(x - xp.max(x, axis=-1, keepdims=True))
    return e / xp.sum(e, axis=-1, keepdims=True)
"""),
        ("casts to float64", """
def softmax(xp, x, axis=-1):
    x = xp.astype(x, xp.float64)
    e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))
    return e / xp.sum(e, axis=axis, keepdims=True)
"""),
    ],
    "pick_device": [
        ("iterates over the letters of a string", """
from stridegrad.backend import device_available
def pick_device(prefer, available=device_available):
    prefer = tuple(prefer)
    if not prefer:
        raise ValueError("empty")
    why = []
    for name in prefer:
        ok, reason = available(name)
        if ok:
            return name
        why.append(f"{name}: {reason}")
    raise RuntimeError("; ".join(why))
"""),
        ("tests the pair, which is always true", """
from stridegrad.backend import device_available
def pick_device(prefer, available=device_available):
    names = (prefer,) if isinstance(prefer, str) else tuple(prefer)
    if not names:
        raise ValueError("empty")
    for name in names:
        if available(name):
            return name
    raise RuntimeError(f"none of {names} works")
"""),
        ("asks about every device first", """
from stridegrad.backend import device_available
def pick_device(prefer, available=device_available):
    names = (prefer,) if isinstance(prefer, str) else tuple(prefer)
    if not names:
        raise ValueError("empty")
    answers = {name: available(name) for name in names}
    for name in names:
        if answers[name][0]:
            return name
    raise RuntimeError("; ".join(f"{n}: {answers[n][1]}" for n in names))
"""),
        ("falls back to cpu silently", """
from stridegrad.backend import device_available
def pick_device(prefer, available=device_available):
    names = (prefer,) if isinstance(prefer, str) else tuple(prefer)
    for name in names:
        if available(name)[0]:
            return name
    return "cpu"
"""),
        ("error without the reasons", """
from stridegrad.backend import device_available
def pick_device(prefer, available=device_available):
    names = (prefer,) if isinstance(prefer, str) else tuple(prefer)
    if not names:
        raise ValueError("empty")
    for name in names:
        if available(name)[0]:
            return name
    raise RuntimeError(f"no device works among {names}")
"""),
    ],
    "to_host": [
        ("np.asarray for everything", """
import numpy as np
def to_host(x):
    return np.asarray(x)
"""),
        ("copies NumPy arrays too", """
import numpy as np
def to_host(x):
    if hasattr(x, "get"):
        return x.get()
    return np.array(x)
"""),
        ("returns a list", """
import numpy as np
def to_host(x):
    if hasattr(x, "get"):
        return x.get().tolist()
    return np.asarray(x).tolist()
"""),
        ("turns 0-d arrays into 1-d", """
import numpy as np
def to_host(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get"):
        return np.atleast_1d(x.get())
    return np.atleast_1d(np.asarray(x))
"""),
        ("float64 always", """
import numpy as np
def to_host(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get"):
        return x.get().astype(np.float64)
    return np.asarray(x, dtype=np.float64)
"""),
    ],
    "time_op": [
        ("no sync: times the launch", """
import math, time
def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    if repeat < 1:
        raise ValueError("repeat")
    fn()
    best = math.inf
    for _ in range(repeat):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return best
"""),
        ("no warm-up", """
import math, time
def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    if repeat < 1:
        raise ValueError("repeat")
    sync()
    best = math.inf
    for _ in range(repeat):
        start = clock()
        fn()
        sync()
        best = min(best, clock() - start)
    return best
"""),
        ("no sync after the warm-up", """
import math, time
def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    if repeat < 1:
        raise ValueError("repeat")
    fn()
    best = math.inf
    for _ in range(repeat):
        start = clock()
        fn()
        sync()
        best = min(best, clock() - start)
    return best
"""),
        ("the mean, not the best", """
import time
def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    if repeat < 1:
        raise ValueError("repeat")
    fn()
    sync()
    start = clock()
    for _ in range(repeat):
        fn()
    sync()
    return (clock() - start) / repeat
"""),
        ("reads the clock before the sync", """
import math, time
def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    if repeat < 1:
        raise ValueError("repeat")
    fn()
    sync()
    best = math.inf
    for _ in range(repeat):
        start = clock()
        fn()
        best = min(best, clock() - start)
        sync()
    return best
"""),
        ("times repeat - 1 runs", """
import math, time
def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    fn()
    sync()
    best = math.inf
    for _ in range(repeat - 1):
        start = clock()
        fn()
        sync()
        best = min(best, clock() - start)
    return best
"""),
    ],
}
