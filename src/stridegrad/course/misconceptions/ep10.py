"""Known-wrong implementations of episode 10's exercises (backends).

Each must fail checkpoint 10; ``test_checks.py`` and ``test_ep10.py`` run them all.
"""

from __future__ import annotations

from stridegrad.course.misconceptions import Misconception

__all__ = ["MISCONCEPTIONS"]

MISCONCEPTIONS = {
    "namespace_of": [
        Misconception("returns the first array's namespace, never compares",
          "returns the first array's namespace without comparing the others: mixing libraries "
          "or devices is not reported",
          """
def namespace_of(*arrays):
    for x in arrays:
        if hasattr(x, "__array_namespace__"):
            return x.__array_namespace__()
    raise ValueError("no array")
"""),
        Misconception("compares namespaces but not devices",
          "compares namespaces but not devices: arrays on two devices are accepted together",
          """
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
        Misconception("compares devices with is",
          "compares devices with `is not`: two arrays on the same device may hold two equal "
          "but distinct device objects, so NumPy arrays on 'cpu' are refused as a mix; compare "
          "devices with == (namespaces are modules, where is works)",
          """
def namespace_of(*arrays):
    xp = device = None
    for x in arrays:
        if isinstance(x, (bool, int, float, complex)):
            continue
        if not hasattr(x, "__array_namespace__"):
            raise TypeError(f"{type(x).__name__} is not an array")
        if xp is None:
            xp, device = x.__array_namespace__(), x.device
        elif x.__array_namespace__() is not xp:
            raise RuntimeError(f"{xp.__name__} and {x.__array_namespace__().__name__}")
        elif x.device is not device:
            raise RuntimeError(f"devices {device} and {x.device}")
    if xp is None:
        raise ValueError("no array")
    return xp
"""),
        Misconception("asks Python numbers for a namespace",
          "asks Python numbers for __array_namespace__: a call like namespace_of(x, 2.0) raises "
          "TypeError instead of ignoring the number",
          """
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
        Misconception("vague error when mixing",
          "raises an error that does not name the two namespaces or devices: the reader cannot "
          "tell what was mixed",
          """
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
        Misconception("returns None for no arrays",
          "returns None when no argument is an array: the caller gets no namespace and no "
          "ValueError saying why",
          """
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
        Misconception("compares only the first two arrays",
          "checks the second array against the first and stops there: a third array of "
          "another namespace or device is let through",
          """
def namespace_of(*arrays):
    found = [x for x in arrays if not isinstance(x, (bool, int, float, complex))]
    if not found:
        raise ValueError("no array")
    for x in found:
        if not hasattr(x, "__array_namespace__"):
            raise TypeError(f"a {type(x).__name__} is not an array")
    xp = found[0].__array_namespace__()
    if len(found) > 1:
        other = found[1].__array_namespace__()
        if other is not xp:
            raise RuntimeError(f"arrays of {xp.__name__} and {other.__name__}")
        if found[1].device != found[0].device:
            raise RuntimeError(f"arrays on {found[0].device} and {found[1].device}")
    return xp
"""),
        Misconception("forgets complex numbers",
          "skips bool, int and float but not complex: a Python complex number such as 3j is "
          "asked for a namespace and refused with TypeError, though it goes with any array",
          """
def namespace_of(*arrays):
    xp = device = None
    for x in arrays:
        if isinstance(x, (bool, int, float)):
            continue
        if not hasattr(x, "__array_namespace__"):
            raise TypeError(f"a {type(x).__name__} is not an array")
        if xp is None:
            xp, device = x.__array_namespace__(), x.device
        elif x.__array_namespace__() is not xp:
            raise RuntimeError(f"{xp.__name__} and {x.__array_namespace__().__name__}")
        elif x.device != device:
            raise RuntimeError(f"{device} and {x.device}")
    if xp is None:
        raise ValueError("no array")
    return xp
"""),
    ],
    "softmax": [
        Misconception("NumPy habits: methods and np.exp",
          "uses NumPy methods and np.exp: arrays of another namespace are turned into NumPy "
          "arrays or fail",
          """
import numpy as np
def softmax(xp, x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""),
        Misconception("np.exp on any namespace",
          "calls np.exp instead of the array's namespace's exp: the result is a NumPy array "
          "whatever came in",
          """
import numpy as np
def softmax(xp, x, axis=-1):
    e = np.exp(x - xp.max(x, axis=axis, keepdims=True))
    return e / xp.sum(e, axis=axis, keepdims=True)
"""),
        Misconception("does not subtract the max (overflows)",
          "takes exp of the inputs directly: large inputs overflow to inf and give nan",
          """
def softmax(xp, x, axis=-1):
    e = xp.exp(x)
    return e / xp.sum(e, axis=axis, keepdims=True)
"""),
        Misconception("sums over every element",
          "sums over every element instead of along the axis: the rows do not each sum to 1",
          """
def softmax(xp, x, axis=-1):
    e = xp.exp(x - xp.max(x))
    return e / xp.sum(e)
"""),
        Misconception("always along the last axis",
          "ignores axis and always normalises the last axis: softmax(x, axis=0) normalises the "
          "rows instead of the columns",
          """
def softmax(xp, x, axis=-1):
    e = xp.exp(x - xp.max(x, axis=-1, keepdims=True))
    return e / xp.sum(e, axis=-1, keepdims=True)
"""),
        Misconception("reduces without keepdims",
          "reduces without keepdims=True: the max and the sum lose their axis, so on a 2-D "
          "input they broadcast along the wrong axis (each row divided by another row's sum) "
          "or not at all",
          """
def softmax(xp, x, axis=-1):
    e = xp.exp(x - xp.max(x, axis=axis))
    return e / xp.sum(e, axis=axis)
"""),
        Misconception("casts to float64",
          "casts to float64: a float32 input comes back as float64",
          """
def softmax(xp, x, axis=-1):
    x = xp.astype(x, xp.float64)
    e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))
    return e / xp.sum(e, axis=axis, keepdims=True)
"""),
        Misconception("one max for the whole array",
          "subtracts the maximum of the whole array instead of each row's: a row far below "
          "the largest (scores near -1000 beside scores near 0) underflows to exp(...) = 0 "
          "everywhere and gives 0 / 0 = nan, and an x with no element (shape (0, 2)) has no "
          "maximum at all",
          """
def softmax(xp, x, axis=-1):
    e = xp.exp(x - xp.max(x))
    return e / xp.sum(e, axis=axis, keepdims=True)
"""),
        Misconception("changes x in place",
          "subtracts the maximum from x in place (x -= ...): the answer is right, but the "
          "caller's array now holds other numbers",
          """
def softmax(xp, x, axis=-1):
    x -= xp.max(x, axis=axis, keepdims=True)
    e = xp.exp(x)
    return e / xp.sum(e, axis=axis, keepdims=True)
"""),
    ],
    "pick_device": [
        Misconception("iterates over the letters of a string",
          "iterates over a single device string letter by letter: pick_device('cpu') tries 'c', "
          "'p', 'u'",
          """
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
        Misconception("tests the pair, which is always true",
          "tests a (name, reason) pair as a condition: a non-empty tuple is always true, so the "
          "first device is picked even when unavailable",
          """
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
        Misconception("asks about every device first",
          "asks about every device before choosing: devices after the first available one are "
          "probed for nothing (slow, and may fail)",
          """
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
        Misconception("falls back to cpu silently",
          "falls back to cpu when none of the devices asked for is available: the caller asked "
          "for a GPU and silently gets the CPU instead of a RuntimeError",
          """
from stridegrad.backend import device_available
def pick_device(prefer, available=device_available):
    names = (prefer,) if isinstance(prefer, str) else tuple(prefer)
    for name in names:
        if available(name)[0]:
            return name
    return "cpu"
"""),
        Misconception("error without the reasons",
          "raises RuntimeError without the reason each device was refused: the reader cannot "
          "tell what to install or fix",
          """
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
        Misconception("a list of names taken for one name",
          "wraps anything that is not a tuple as one name: a list of devices such as "
          "['cuda', 'cpu'] is asked about as a single device",
          """
from stridegrad.backend import device_available
def pick_device(prefer, available=device_available):
    names = prefer if isinstance(prefer, tuple) else (prefer,)
    if not names:
        raise ValueError("no device to choose from")
    reasons = []
    for name in names:
        ok, why = available(name)
        if ok:
            return name
        reasons.append(f"{name} ({why})")
    raise RuntimeError("no device works: " + "; ".join(reasons))
"""),
    ],
    "to_host": [
        Misconception("np.asarray for everything",
          "calls np.asarray on everything: arrays on a GPU are not copied to the host as asked",
          """
import numpy as np
def to_host(x):
    return np.asarray(x)
"""),
        Misconception("copies NumPy arrays too",
          "copies NumPy arrays that are already on the host: the result is not the same array",
          """
import numpy as np
def to_host(x):
    if hasattr(x, "get"):
        return x.get()
    return np.array(x)
"""),
        Misconception("returns a list",
          "returns a list instead of a NumPy array: the values are right but the shape, dtype "
          "and array methods are lost",
          """
import numpy as np
def to_host(x):
    if hasattr(x, "get"):
        return x.get().tolist()
    return np.asarray(x).tolist()
"""),
        Misconception("turns 0-d arrays into 1-d",
          "turns a 0-d array into a 1-d one: the shape changes from () to (1,)",
          """
import numpy as np
def to_host(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get"):
        return np.atleast_1d(x.get())
    return np.atleast_1d(np.asarray(x))
"""),
        Misconception("float64 always",
          "converts to float64: the dtype of the input is lost",
          """
import numpy as np
def to_host(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get"):
        return x.get().astype(np.float64)
    return np.asarray(x, dtype=np.float64)
"""),
        Misconception("makes NumPy views contiguous",
          "returns np.ascontiguousarray(x) for a NumPy array: a transposed, reversed or "
          "stepped view comes back as a copy, not as the array itself",
          """
import numpy as np
def to_host(x):
    if isinstance(x, np.ndarray):
        return np.ascontiguousarray(x)
    if hasattr(x, "get"):
        return x.get()
    return np.asarray(x)
"""),
        Misconception("through tolist(), loses the dtype",
          "copies through .tolist() and np.array(...): Python numbers come back as float64 "
          "or int64, so float32, int32 and uint8 arrays change dtype",
          """
import numpy as np
def to_host(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get"):
        return np.array(x.get().tolist())
    return np.array(np.asarray(x).tolist())
"""),
    ],
    "time_op": [
        Misconception("returns the mean",
          "returns the mean of the timed runs instead of the smallest: other programs only "
          "ever add time, so the fastest run is the least disturbed one",
          """
import time
def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    fn()
    sync()
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        sync()
        times.append(clock() - start)
    return sum(times) / len(times)
"""),
        Misconception("no sync: times the launch",
          "reads the clock without synchronizing: on an asynchronous device it times the "
          "launch, not the work",
          """
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
        Misconception("no warm-up",
          "times the first call too: one-time costs (compilation, allocation) inflate the "
          "result",
          """
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
        Misconception("no warm-up and no sync",
          "makes no warm-up call and never calls sync(), two mistakes: the first call's "
          "one-time cost (compilation, allocation) is timed, and the clock stops as soon as "
          "the launch returns, before the device has done the work, which stays queued; make "
          "one untimed warm-up call, and read the clock only after sync()",
          """
import math, time
def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    if repeat < 1:
        raise ValueError("repeat")
    best = math.inf
    for _ in range(repeat):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return best
"""),
        Misconception("no sync after the warm-up",
          "does not synchronize after the warm-up: the warm-up's work is counted in the first "
          "timed run",
          """
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
        Misconception("the mean, not the best",
          "reports the mean instead of the best run: one slow run, a hiccup, raises the result",
          """
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
        Misconception("reads the clock before the sync",
          "reads the clock before synchronizing: the last run's work is not included",
          """
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
        Misconception("times repeat - 1 runs",
          "runs the timed loop repeat - 1 times (off by one): fn runs one time too few, and "
          "repeat=1 times nothing",
          """
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
        Misconception("the warm-up counted as a run",
          "times the warm-up too and returns the best of all the runs, warm-up included: when "
          "the warm-up happens to be the fastest run, its time is returned",
          """
import math, time
def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    best = math.inf
    for _ in range(repeat + 1):
        start = clock()
        fn()
        sync()
        best = min(best, clock() - start)
    return best
"""),
    ],
}


# ------------------------------------------------------------------ stretch: logsumexp

_LOGSUMEXP = """
import numpy as np


def logsumexp(xp, x, axis=-1):
    m = {MAX}
    total = {SUM}
    return {RESULT}
"""


def _logsumexp(max_="xp.max(x, axis=axis, keepdims=True)",
               sum_="xp.sum(xp.exp(x - m), axis=axis, keepdims=True)",
               result="xp.squeeze(xp.log(total) + m, axis=axis)"):
    return (_LOGSUMEXP.replace("{MAX}", max_).replace("{SUM}", sum_)
            .replace("{RESULT}", result))


MISCONCEPTIONS["logsumexp"] = [
    Misconception("no shift: overflows",
      "takes exp of the scores as they are: exp(1000) overflows to inf, so large scores "
      "give inf instead of about 1000",
      _logsumexp(sum_="xp.sum(xp.exp(x), axis=axis, keepdims=True)",
                 result="xp.squeeze(xp.log(total), axis=axis)")),
    Misconception("forgets to add the max back",
      "shifts by the max but never adds it back after the log: every answer is off by "
      "its row's maximum",
      _logsumexp(result="xp.squeeze(xp.log(total), axis=axis)")),
    Misconception("one max for the whole array",
      "subtracts the maximum of the whole array instead of each row's: a row far below "
      "the largest underflows to exp(...) = 0 and log(0) = -inf, and an x with no element "
      "(shape (0, 2)) has no maximum at all",
      _logsumexp(max_="xp.max(x)")),
    Misconception("keeps the reduced axis",
      "returns the keepdims shape (the reduced axis kept as size 1): the values are right "
      "but the result has one axis too many",
      _logsumexp(result="xp.log(total) + m")),
    Misconception("NumPy on any namespace",
      "calls np.max, np.exp and np.log instead of xp's: right for NumPy arrays, refused by "
      "(or silently converting) other namespaces",
      _logsumexp(max_="np.max(x, axis=axis, keepdims=True)",
                 sum_="np.sum(np.exp(x - m), axis=axis, keepdims=True)",
                 result="np.squeeze(np.log(total) + m, axis=axis)")),
    Misconception("shifts by the mean, not the max",
      "subtracts the mean along the axis instead of the maximum: scores spread over more "
      "than about 700 (0 and 2000) still overflow exp, and the answer is inf",
      _logsumexp(max_="xp.mean(x, axis=axis, keepdims=True)")),
]
