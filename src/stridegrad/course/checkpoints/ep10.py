"""Checkpoint 10 (backends): ``namespace_of``, ``softmax``, ``pick_device``,
``to_host`` and ``time_op``.

No test needs a GPU. Where a GPU would be needed, a small stand-in plays its
part, and you can read it here:

* :class:`FakeCuPyArray` behaves like a CuPy array for the two things the
  exercises touch: it lives on ``"cuda:0"`` in its own namespace, and it refuses
  ``numpy.asarray`` (CuPy raises ``TypeError`` there) but copies itself to the
  host with ``.get()``;
* :class:`FakeAsyncDevice` is a device that works *asynchronously*, with a
  pretend clock: a launch costs the host a little time and returns at once;
  the work itself finishes later, and only a ``sync()`` waits for it.

The second namespace for ``softmax`` is ``array_api_strict`` when it is
installed (it is in ``pip install -e '.[dev]'``), else ``stridegrad.array``;
both refuse NumPy-only habits such as ``x.max(...)``. Expected values are
worked out by hand in the comments. Each test needs only the exercise it tests.
"""

from __future__ import annotations

import functools
import math
from types import ModuleType
from typing import Any

import numpy as np
from hypothesis import strategies as st

import stridegrad.array as sa
from stridegrad.course.checks import (VALUE_LIMIT, CheckFailure, Checkpoint, cut_between_items,
                                     short_repr, expect, fail, raised)
from stridegrad.course.contracts import Call, Invalid

try:  # a dev dependency; the checkpoint works without it
    import array_api_strict as _strict
except ImportError:  # pragma: no cover - the dev environment has it
    _strict = None

__all__ = ["FakeAsyncDevice", "FakeCuPyArray", "checkpoint", "fake_cupy"]

checkpoint = Checkpoint("10_backends", "backends",
                        # to_host is the library's own: backend.to_numpy calls it;
                        # pick_device too: backend.set_default_device calls it
                        library={"to_host": ("stridegrad.backend.to_host",),
                                 "pick_device": ("stridegrad.backend.pick_device",)})


# ------------------------------------------------------------------ stand-ins

fake_cupy = ModuleType("fake_cupy", "A stand-in for CuPy's namespace in the checkpoint tests.")


class FakeCuPyArray:
    """An array "on the GPU": its own namespace and device, and CuPy's rules for
    leaving the device (``.get()`` copies to the host; ``np.asarray`` is refused)."""

    def __init__(self, values: Any, device: str = "cuda:0") -> None:
        self._values = np.array(values)
        self.device = device
        self.shape = self._values.shape
        self.dtype = self._values.dtype
        self.gets = 0  # how many times .get() was called

    def __array_namespace__(self, api_version: str | None = None) -> ModuleType:
        return fake_cupy

    def get(self) -> np.ndarray:
        self.gets += 1
        return self._values.copy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. "
                        "Please use `.get()` to construct a NumPy array explicitly.")

    def __repr__(self) -> str:
        return f"FakeCuPyArray({self._values.tolist()}, device={self.device!r})"


class FakeAsyncDevice:
    """A device that runs work asynchronously, with a pretend clock (seconds).

    ``launch()`` costs the host ``launch_cost`` (plus ``compile_cost`` the first
    time) and queues the next cost of ``costs`` (the last one repeats); the
    device works through its queue while the host goes on. ``sync()`` moves the clock to when the device is done.
    ``clock()`` reads the time.
    """

    def __init__(self, costs: list[float], launch_cost: float = 0.001,
                 compile_cost: float = 0.0) -> None:
        self.costs = list(costs)
        self.launch_cost = launch_cost
        self.compile_cost = compile_cost
        self.now = 0.0
        self.busy_until = 0.0
        self.launches = 0
        self.syncs = 0

    def clock(self) -> float:
        return self.now

    def launch(self) -> None:
        self.now += self.launch_cost + (self.compile_cost if self.launches == 0 else 0.0)
        cost = self.costs[min(self.launches, len(self.costs) - 1)]
        self.busy_until = max(self.busy_until, self.now) + cost
        self.launches += 1

    def sync(self) -> None:
        self.now = max(self.now, self.busy_until)
        self.syncs += 1

    def __repr__(self) -> str:
        return f"FakeAsyncDevice(costs={self.costs}, launch_cost={self.launch_cost})"


# ------------------------------------------------------------------ helpers


def _strict_xp() -> ModuleType:
    return _strict if _strict is not None else sa


def _show(value: Any, limit: int = VALUE_LIMIT) -> str:
    try:
        if hasattr(value, "__array_namespace__") and not isinstance(value, np.ndarray):
            text = f"{np.round(np.asarray(value, dtype=float), 6).tolist()} " \
                   f"({value.__array_namespace__().__name__} array)"
        elif isinstance(value, np.ndarray):
            text = f"{np.round(value.astype(float), 6).tolist()} (numpy array)"
        else:
            text = repr(value)
    except Exception:  # noqa: BLE001 - a learner's result may fail in any way
        text = f"<{type(value).__name__}>"
    return cut_between_items(" ".join(text.split()), limit)


def _call(call: str, fn, *args, **kwargs):
    """Run the learner's code; an exception becomes an 'error' row naming ``call``."""
    try:
        return fn(*args, **kwargs)
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise CheckFailure(call, "no error", raised(exc),
                           kind="error") from exc


def _raises(call: str, fn, args: tuple, kind: type, *names: str) -> None:
    """``fn(*args)`` must raise ``kind`` with every one of ``names`` in its message."""
    try:
        got = fn(*args)
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except kind as exc:
        message = str(exc)
        missing = [n for n in names if n not in message]
        if missing:
            raise CheckFailure(call, f"raises {kind.__name__} naming {' and '.join(names)}",
                               raised(exc)) from exc
        return
    except Exception as exc:
        raise CheckFailure(call, f"raises {kind.__name__}",
                           raised(exc), kind="error") from exc
    raise CheckFailure(call, f"raises {kind.__name__}", f"returned {short_repr(got)}")


def _same_array(call: str, got: Any, xp: ModuleType, expected: list, dtype_name: str) -> None:
    """``got`` is an array of namespace ``xp`` with dtype ``dtype_name`` and these values."""
    owner = getattr(got, "__array_namespace__", None)
    if owner is None or owner() is not xp:
        where = owner().__name__ if owner is not None else type(got).__name__
        raise CheckFailure(call, f"an array of {xp.__name__} (the namespace it was given)",
                           f"{_show(got)}: a {where} result")
    values = np.asarray(got, dtype=float)
    want = np.asarray(expected, dtype=float)
    if values.shape != want.shape:
        raise CheckFailure(call, f"shape {want.shape}", f"shape {values.shape}")
    if not np.allclose(values, want, rtol=1e-5, atol=1e-6):
        # each side named by its own namespace: a right namespace with wrong values says so
        expected_text = f"{np.round(want, 6).tolist()} ({xp.__name__} array)"
        raise CheckFailure(call, expected_text, _show(got))
    if str(got.dtype).rsplit(".", 1)[-1] != dtype_name:
        raise CheckFailure(call, f"dtype {dtype_name}", f"dtype {got.dtype}")


def _close(call: str, got: Any, expected: float) -> None:
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        raise CheckFailure(call, f"{expected!r} (a float, in seconds)", _show(got))
    if not math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9):
        raise CheckFailure(call, f"{expected:.6g} s", f"{got:.6g} s")


LN2, LN3 = math.log(2.0), math.log(3.0)


# ------------------------------------------------------------------ contracts: the scenarios
#
# A contract case of this lesson is a plain description (a namespace's name and a
# NumPy array, a list of device names and reasons, a fake device's costs); its
# scenario builds the arrays, fakes and clocks from it, runs the function on them
# and returns what it saw as plain data, which is compared with what the lesson's
# own solution gives in the same scenario.

#: the namespaces a case names, by their ``__name__``
NAMESPACES: dict[str, ModuleType] = {"numpy": np, "stridegrad.array": sa}
if _strict is not None:
    NAMESPACES["array_api_strict"] = _strict


# Strategies made once, not at every draw (making one costs more than drawing from it)
@functools.cache
def _ints(low: int, high: int) -> st.SearchStrategy:
    return st.integers(low, high)


@functools.cache
def _pick(*options: Any) -> st.SearchStrategy:
    return st.sampled_from(options)


def _index(draw, n: int) -> int:
    """A position in ``range(n + 1)`` (where to insert into a list of ``n``)."""
    return draw(_ints(0, n))


_SEED = st.integers(0, 2**32 - 1)
_SHIFT = st.sampled_from([0.0, 0.0, 1000.0, -1000.0, 60.0, -300.0])


def _on(xp: ModuleType, x: np.ndarray) -> Any:
    """``x`` (a NumPy array) as an array of ``xp``: NumPy's is ``x`` itself, with its
    strides (transposed, reversed, stepped); the others get a copy."""
    if xp is np:
        return x
    if xp is sa:
        return sa.asarray(x.tolist(), dtype=getattr(sa, x.dtype.name))
    return xp.asarray(x)


def _host(value: Any) -> np.ndarray | None:
    """A NumPy copy of an array of any namespace (None for something else)."""
    try:
        out = np.array(np.asarray(value), copy=True)
    except Exception:  # noqa: BLE001 - a learner's result may be anything
        return None
    return out if out.dtype.kind in "biufc" else None


def _namespace_name(value: Any) -> str:
    owner = getattr(value, "__array_namespace__", None)
    try:
        return owner().__name__ if owner is not None else f"none: a {type(value).__name__}"
    except Exception:  # noqa: BLE001
        return f"none: a {type(value).__name__}"


def portable_scenario(fn, xp_name: str, x: np.ndarray, *args: Any, **kwargs: Any) -> dict:
    """``fn(xp, x as an array of xp, ...)``, observed: the namespace, dtype and shape of
    its result, and its values on the host. For a float32 ``x`` the values are those of
    the same call in float64, and whether the float32 result agrees with them to
    float32's precision (any order of the arithmetic rounds float32 differently)."""
    xp = NAMESPACES[xp_name]
    wide = None
    if x.dtype == np.float32:
        wide = _host(fn(xp, _on(xp, x.astype(np.float64)), *args, **kwargs))
    arr = _on(xp, x)
    before = None if xp is np else _host(arr)  # NumPy's x is an argument: checked for us
    out = fn(xp, arr, *args, **kwargs)
    host = _host(out)
    seen: dict = {"namespace": _namespace_name(out),
                  "dtype": str(getattr(out, "dtype", type(out).__name__)).rsplit(".", 1)[-1],
                  "shape": tuple(getattr(out, "shape", ()))}
    if wide is None:
        seen["values"] = host
    else:
        seen["values of the same call in float64"] = wide
        seen["float32 values agree with those"] = (
            host is not None and host.shape == wide.shape
            and bool(np.allclose(host, wide, rtol=1e-5, atol=1e-7)))
    if before is not None and not np.array_equal(before, _host(arr), equal_nan=True):
        seen["x was changed in place"] = True
    return seen


@st.composite
def _scores(draw, dims: tuple = (1, 4), namespaces: tuple | None = None) -> Call:
    """``(xp's name, x)`` and maybe ``axis`` (negative too, by position or by name): x
    of rank 1 to 4, float32 or float64, multiples of 1/4 (often tied) with each row
    (index along the first axis) shifted by its own amount, up to +-1000 (one max for
    the whole array underflows the others), as a fresh array or a transposed,
    reversed, stepped or broadcast view."""
    # NumPy most often: only its arrays keep the layout of the case (views)
    xp_name = draw(_pick(*(namespaces or ["numpy", "numpy"] + sorted(NAMESPACES))))
    ndim = draw(_ints(*dims))
    axis = draw(_ints(-ndim, ndim - 1))
    # at most 36 values (the python device is slow); size 0 along another axis than
    # ``axis`` for NumPy and array_api_strict (stridegrad.array cannot reduce those)
    low = 0 if xp_name != "stridegrad.array" and ndim > 1 else 1
    shape = [draw(_ints(low, 4 if ndim <= 2 else 3 if ndim == 3 else 2))
             for _ in range(ndim)]
    shape[axis] = max(shape[axis], 1)
    shape = tuple(shape)
    dtype = draw(_pick(np.float64, np.float32))
    n = int(np.prod(shape))
    if draw(_ints(0, 7)) == 0:
        base = np.zeros(n)
    else:
        rng = np.random.default_rng(draw(_SEED))
        base = rng.integers(-12, 13, size=n) / 4
    x = base.reshape(shape)
    if ndim and shape[0]:
        shifts = np.array([draw(_SHIFT) for _ in range(shape[0])])
        x = x + shifts.reshape((-1,) + (1,) * (ndim - 1))
    x = _laid_out(draw, x.astype(dtype))
    how = draw(_pick("default", "positional", "keyword"))
    if how == "default" and axis == -1:
        return Call((xp_name, x))
    return Call((xp_name, x, axis)) if how == "positional" else Call((xp_name, x),
                                                                     {"axis": axis})


def _laid_out(draw, a: np.ndarray) -> np.ndarray:
    """``a``'s values as a fresh array, or as a view: transposed, reversed (negative
    strides), stepped, at an offset, or broadcast (stride 0) when its rows repeat."""
    style = draw(_pick("fresh", "transposed", "reversed", "stepped", "offset", "broadcast"))
    if a.ndim == 0 or a.size == 0 or style == "fresh":
        return a.copy()
    if style == "transposed" and a.ndim >= 2:
        return np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)
    if style == "reversed":
        return np.ascontiguousarray(a[..., ::-1])[..., ::-1]
    if style == "stepped":
        big = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
        big[..., ::2] = a
        return big[..., ::2]
    if style == "offset":
        big = np.zeros((a.shape[0] + 1,) + a.shape[1:], dtype=a.dtype)
        big[1:] = a
        return big[1:]
    if style == "broadcast" and a.shape[0] > 1:
        return np.broadcast_to(a[:1], a.shape)  # every row the first one's
    return a.copy()


# ------------------------------------------------------------------ namespace_of


@checkpoint.test("namespace_of", hint="Ask each array for its namespace: x.__array_namespace__() "
                                      "returns the module (numpy here).")
def numpy_arrays(namespace_of):
    expect(namespace_of, np.ones(2), np.zeros((2, 2)), returns=np)


@checkpoint.test("namespace_of", hint="Nothing NumPy-specific: a stridegrad.array array "
                                      "answers __array_namespace__() with stridegrad.array.")
def strided_arrays(namespace_of):
    expect(namespace_of, sa.asarray([1.0, 2.0]), sa.asarray([[3.0]]), returns=sa)


@checkpoint.test("namespace_of", hint="Python numbers (bool, int, float, complex) go with any "
                                      "namespace: skip them, do not ask them for a namespace.",
                 hint_for=("asks Python numbers for a namespace",))
def python_numbers_are_skipped(namespace_of):
    expect(namespace_of, 2.0, np.ones(3), 1, True, returns=np)


@checkpoint.test("namespace_of", hint="Two different namespaces: raise RuntimeError and name "
                                      "both modules (xp.__name__), e.g. numpy and stridegrad.array.")
def two_namespaces_raise(namespace_of):
    _raises("namespace_of(numpy array, stridegrad.array array)", namespace_of,
            (np.ones(2), sa.asarray([1.0, 2.0])), RuntimeError, "numpy", "stridegrad.array")


@checkpoint.test("namespace_of", hint="One namespace but two devices is a mix too: compare "
                                      "x.device, raise RuntimeError naming both devices.",
                 hint_for=("compares namespaces but not devices",))
def two_devices_raise(namespace_of):
    a, b = FakeCuPyArray([1.0], "cuda:0"), FakeCuPyArray([2.0], "cuda:1")
    _raises("namespace_of(array on cuda:0, array on cuda:1)", namespace_of, (a, b),
            RuntimeError, "cuda:0", "cuda:1")


@checkpoint.test("namespace_of", hint="Arrays on the same device are fine: compare devices "
                                      "with ==, and return the namespace module itself.")
def one_device_is_fine(namespace_of):
    a, b = FakeCuPyArray([1.0], "cuda:1"), FakeCuPyArray([2.0], "cuda:1")
    expect(namespace_of, a, b, returns=fake_cupy)


@checkpoint.test("namespace_of", hint="A list is not an array (no __array_namespace__): "
                                      "raise TypeError naming its type.")
def a_list_is_not_an_array(namespace_of):
    _raises("namespace_of([1.0, 2.0])", namespace_of, ([1.0, 2.0],), TypeError, "list")


@checkpoint.test("namespace_of", hint="With no array at all there is no answer: raise "
                                      "ValueError (for no arguments, and for numbers only).",
                 hint_for=("returns None for no arrays",))
def no_array_raises(namespace_of):
    expect(namespace_of, raises=ValueError)
    expect(namespace_of, 1, 2.5, raises=ValueError)


_NOT_ARRAYS = {"list": list, "tuple": tuple, "str": lambda v: str(v), "dict": lambda v: {"v": v},
               "None": lambda v: None}


def _argument(desc: Any) -> Any:
    """An argument of ``namespace_of`` from its plain description: a Python number as
    it is; ``("numpy", values)``, ``("stridegrad.array", values)``,
    ``("array_api_strict", values, device)`` and ``("fake_cupy", values, n)`` (on
    ``f"cuda:{n}"``, a new string each time: devices are compared with ``==``) arrays;
    ``("list", values)``, ``("tuple", ...)``, ``("str", ...)``, ``("dict", ...)`` and
    ``("None", ...)``, which are not arrays."""
    if not isinstance(desc, tuple):
        return desc
    kind, values, *where = desc
    if kind == "numpy":
        return np.asarray(values)
    if kind == "stridegrad.array":
        return sa.asarray(values)
    if kind == "array_api_strict":
        return _strict.asarray(values, device=_strict.Device(where[0]))
    if kind == "fake_cupy":
        return FakeCuPyArray(values, f"cuda:{where[0]}")
    return _NOT_ARRAYS[kind](values)


def namespace_scenario(namespace_of, *descs: Any) -> Any:
    """The arrays built from ``descs``; what is observed is the name of the namespace
    returned (or what came back instead of a module)."""
    got = namespace_of(*[_argument(d) for d in descs])
    return got.__name__ if isinstance(got, ModuleType) else got


_NUMBERS = [2.0, 1, True, -0.5, 3j, False, 0, 1e300]


def _places() -> list[tuple]:
    places = [("numpy",), ("stridegrad.array",), ("fake_cupy", 0), ("fake_cupy", 1),
              ("fake_cupy", 2)]
    if _strict is not None:
        places += [("array_api_strict", "CPU_DEVICE"), ("array_api_strict", "device1")]
    return places


def _values(draw) -> Any:
    shape = draw(_pick((), (1,), (3,), (2, 3), (2, 1, 2)))
    kind = draw(_pick("float", "int", "bool"))
    a = np.arange(int(np.prod(shape))).reshape(shape)
    a = a * 0.5 if kind == "float" else a % 2 == 0 if kind == "bool" else a
    return a.tolist()


def _at(draw, place: tuple) -> tuple:
    return (place[0], _values(draw), *place[1:])


def _with_numbers(draw, args: list) -> Call:
    for _ in range(draw(_ints(0, 3))):
        args.insert(_index(draw, len(args)), draw(_pick(*_NUMBERS)))
    return Call(args)


@st.composite
def _arrays_of_one_place(draw, bad: str | None = None) -> Call:
    """One to four arrays of one namespace on one device, Python numbers between them;
    ``bad="not an array"``: one argument that is neither (a list, a str, None, ...)."""
    place = draw(_pick(*_places()))
    args = [_at(draw, place) for _ in range(draw(_ints(1, 4)))]
    if bad == "not an array":
        kind = draw(_pick(*sorted(_NOT_ARRAYS)))
        values = list(draw(_pick((1.0, 2.0), (0,), (3, 4), ())))
        args.insert(_index(draw, len(args)), (kind, values))
    return _with_numbers(draw, args)


@st.composite
def _arrays_of_two_places(draw, same_namespace: bool) -> Call:
    """Arrays from two namespaces, or (``same_namespace``) from one namespace on two
    devices, in any order, Python numbers between them."""
    places = _places()
    first = draw(_pick(*[p for p in places if not same_namespace
                         or p[0] in ("fake_cupy", "array_api_strict")]))
    second = draw(_pick(*[p for p in places if (p[0] == first[0]) == same_namespace
                          and p != first]))
    picks = [first, second] + [draw(_pick(first, second))
                               for _ in range(draw(_ints(0, 2)))]
    picks = draw(st.permutations(picks))
    return _with_numbers(draw, [_at(draw, p) for p in picks])


def _first_two(descs: tuple, key) -> tuple:
    """The first array's ``key`` and the first other ``key`` after it (as text)."""
    seen: list = []
    for d in descs:
        x = _argument(d)
        if isinstance(x, (bool, int, float, complex)):
            continue
        k = key(x)
        if not seen or (k != seen[0] and len(seen) == 1):
            seen.append(k)
    return tuple(str(k) for k in seen[:2])


def _not_an_array_type(*descs: Any) -> tuple:
    return tuple(type(_argument(d)).__name__ for d in descs
                 if isinstance(d, tuple) and d[0] in _NOT_ARRAYS)[:1]


checkpoint.contract(
    "namespace_of", valid=_arrays_of_one_place(), scenario=namespace_scenario,
    hint="This row tries arrays of every namespace and device (described as "
         "('numpy', values), ('fake_cupy', values, n) for an array on cuda:n, ...), Python "
         "numbers among them, and the errors of the docstring, and shows the smallest case "
         "your function gets wrong.",
    invalid=[Invalid(_arrays_of_one_place("not an array"), TypeError,
                     "arguments that are not arrays", naming=_not_an_array_type),
             Invalid(_arrays_of_two_places(same_namespace=False), RuntimeError,
                     "arrays of two namespaces",
                     naming=lambda *d: _first_two(d, lambda x: x.__array_namespace__().__name__)),
             Invalid(_arrays_of_two_places(same_namespace=True), RuntimeError,
                     "arrays of one namespace on two devices",
                     naming=lambda *d: _first_two(d, lambda x: x.device)),
             Invalid(st.lists(st.sampled_from(_NUMBERS), max_size=3).map(Call), ValueError,
                     "calls with no array")])


# ------------------------------------------------------------------ softmax


@checkpoint.test("softmax", hint="exp(x) / sum(exp(x)) along the last axis: [0, ln 3] gives "
                                 "[1, 3] / 4.")
def numpy_rows(softmax):
    x = np.array([[0.0, LN3], [LN2, LN2]])
    got = _call("softmax(np, [[0, ln 3], [ln 2, ln 2]])", softmax, np, x)
    _same_array("softmax(np, [[0, ln 3], [ln 2, ln 2]])", got, np,
                [[0.25, 0.75], [0.5, 0.5]], "float64")


@checkpoint.test("softmax", hint="Only xp functions: xp.max(x, axis=..., keepdims=True), "
                                 "xp.exp, xp.sum. Methods like x.max() and np.exp are NumPy habits.",
                 hint_for=("NumPy habits: methods and np.exp", "np.exp on any namespace"))
def on_a_strict_namespace(softmax):
    xp = _strict_xp()
    x = xp.asarray([[0.0, LN3], [LN2, LN2]])
    call = f"softmax({xp.__name__}, [[0, ln 3], [ln 2, ln 2]])"
    _same_array(call, _call(call, softmax, xp, x), xp, [[0.25, 0.75], [0.5, 0.5]], "float64")


@checkpoint.test("softmax", hint="exp(1000) overflows to inf: subtract the max along the axis "
                                 "first (it cancels out in the ratio).",
                 hint_for=("does not subtract the max (overflows)",))
def large_inputs_do_not_overflow(softmax):
    x = np.array([1000.0, 1000.0 + LN3])
    with np.errstate(all="ignore"):
        got = _call("softmax(np, [1000, 1000 + ln 3])", softmax, np, x)
    _same_array("softmax(np, [1000, 1000 + ln 3])", got, np, [0.25, 0.75], "float64")


@checkpoint.test("softmax", hint="Respect axis: with axis=0 each COLUMN sums to 1.",
                 hint_for=("always along the last axis",))
def along_axis_zero(softmax):
    x = np.array([[0.0, LN2], [LN3, LN2]])
    got = _call("softmax(np, [[0, ln 2], [ln 3, ln 2]], axis=0)", softmax, np, x, axis=0)
    _same_array("softmax(np, [[0, ln 2], [ln 3, ln 2]], axis=0)", got, np,
                [[0.25, 0.5], [0.75, 0.5]], "float64")


@checkpoint.test("softmax", hint="Reduce along the axis with keepdims=True so that the (2, 1) "
                                 "max and sum broadcast back over (2, 3); do not sum everything.",
                 hint_for=("sums over every element",))
def keepdims_for_broadcasting(softmax):
    x = np.array([[0.0, 0.0, LN2], [5.0, 5.0, 5.0]])
    got = _call("softmax(np, [[0, 0, ln 2], [5, 5, 5]])", softmax, np, x)
    _same_array("softmax(np, [[0, 0, ln 2], [5, 5, 5]])", got, np,
                [[0.25, 0.25, 0.5], [1 / 3, 1 / 3, 1 / 3]], "float64")


@checkpoint.test("softmax", hint="Keep the input's dtype: float32 in, float32 out (Python "
                                 "numbers like 1.0 do not promote an array).",
                 hint_for=("casts to float64",))
def float32_stays_float32(softmax):
    xp = _strict_xp()
    x = xp.asarray([0.0, LN3], dtype=xp.float32)
    call = f"softmax({xp.__name__}, float32 [0, ln 3])"
    _same_array(call, _call(call, softmax, xp, x), xp, [0.25, 0.75], "float32")


@checkpoint.test("softmax", hint="The same code must run on stridegrad.array (the 'python' "
                                 "device): use xp.max, xp.exp and xp.sum, never NumPy's.",
                 hint_for=("NumPy habits: methods and np.exp", "np.exp on any namespace"))
def on_the_python_device(softmax):
    x = sa.asarray([[LN3, 0.0, 0.0, 0.0, 0.0, 0.0]])  # [3, 1, 1, 1, 1, 1] / 8
    call = "softmax(stridegrad.array, [[ln 3, 0, 0, 0, 0, 0]])"
    _same_array(call, _call(call, softmax, sa, x), sa,
                [[0.375, 0.125, 0.125, 0.125, 0.125, 0.125]], "float64")


_PORTABLE_HINT = ("This row tries x of every rank from 1 to 4, float32 and float64, rows "
                  "of very different sizes (up to +-1000), ties, views (transposed, "
                  "reversed, stepped, broadcast) and every axis, on each namespace, and "
                  "shows the smallest case your function gets wrong: what came back, "
                  "as namespace, dtype, shape and values.")

checkpoint.contract("softmax", valid=_scores(), scenario=portable_scenario, hint=_PORTABLE_HINT)


# ------------------------------------------------------------------ pick_device


def _availability(works: dict[str, str], asked: list | None = None):
    """An ``available(name)`` like backend.device_available: True for names mapped to ''."""
    def available(name):
        if asked is not None:
            asked.append(name)
        if name not in works:
            return False, f"unknown device {name!r}"
        reason = works[name]
        return reason == "", reason
    return available


_NO_GPU = "CuPy is not installed"
_HERE = {"python": "", "cpu": "", "cuda": _NO_GPU}


@checkpoint.test("pick_device", hint="Go through prefer in order and return the first name for "
                                     "which available(name) says (True, '').")
def the_first_that_works(pick_device):
    gpu_box = {"python": "", "cpu": "", "cuda": ""}
    expect(pick_device, ("cuda", "cpu"), _availability(gpu_box), returns="cuda")


@checkpoint.test("pick_device", hint="available(name) returns a pair (ok, reason): test ok, "
                                     "not the pair (a non-empty tuple is always true).",
                 hint_for=("tests the pair, which is always true",))
def falls_back(pick_device):
    expect(pick_device, ("cuda", "cpu"), _availability(_HERE), returns="cpu")


@checkpoint.test("pick_device", hint="The order is the preference: ('python', 'cpu') gives "
                                     "'python' when both work.")
def order_is_preference(pick_device):
    expect(pick_device, ("python", "cpu"), _availability(_HERE), returns="python")


@checkpoint.test("pick_device", hint="A single string is one device, not a sequence of letters: "
                                     "turn 'cpu' into ('cpu',) first.",
                 hint_for=("iterates over the letters of a string",))
def one_string_is_one_device(pick_device):
    expect(pick_device, "cpu", _availability(_HERE), returns="cpu")


@checkpoint.test("pick_device", hint="Stop at the first device that works: asking about cuda "
                                     "imports CuPy, which is slow, so do not ask more than needed.",
                 hint_for=("asks about every device first",))
def stops_at_the_first(pick_device):
    asked: list = []
    expect(pick_device, ("cpu", "cuda"), _availability(_HERE, asked), returns="cpu")
    if asked != ["cpu"]:
        fail("devices asked about by pick_device(('cpu', 'cuda'), ...)", ["cpu"], asked)


@checkpoint.test("pick_device", hint="When none works, raise RuntimeError naming every device "
                                     "tried AND its reason, so the reader knows what to fix.",
                 hint_for=("error without the reasons",))
def none_works_names_the_reasons(pick_device):
    only_gpu = _availability({"cuda": _NO_GPU, "cuda:1": "only 1 CUDA device"})
    _raises("pick_device(('cuda', 'cuda:1'), <no device works>)", pick_device,
            (("cuda", "cuda:1"), only_gpu), RuntimeError,
            "cuda", _NO_GPU, "cuda:1", "only 1 CUDA device")


@checkpoint.test("pick_device", hint="An empty preference list is a mistake of the caller: "
                                     "raise ValueError.")
def empty_preference(pick_device):
    expect(pick_device, (), _availability(_HERE), raises=ValueError)


#: the devices a case prefers, and why each may be refused
_REFUSED = {"cuda": _NO_GPU, "cuda:1": "only 1 CUDA device", "mps": "not an Apple machine",
            "tpu": "no TPU driver", "cpu": "cpu switched off", "python": "python switched off"}
_NAMES = st.lists(st.sampled_from(sorted(_REFUSED)), min_size=1, max_size=4, unique=True)
#: names whose answer from backend.device_available is the same on every machine
_NAMES_HERE = st.lists(st.sampled_from(["cpu", "python", "tpu", "mps"]), min_size=1,
                       max_size=4, unique=True)


def pick_scenario(pick_device, prefer: Any, *rest: Any, **kwargs: Any) -> dict:
    """``rest``/``kwargs``: the availability, given by position or as ``available=``, a
    dict ``name -> reason`` ('' for a device that works; a name not in it is unknown);
    none: the default (backend.device_available). Observed: the device picked, and the
    names ``available`` was asked about, in order."""
    asked: list = []

    def availability(works: dict):
        def available(name):
            asked.append(name)
            reason = works.get(name, f"unknown device {name!r}")
            return reason == "", reason
        return available

    got = pick_device(prefer, *[availability(w) for w in rest],
                      **{k: availability(w) for k, w in kwargs.items()})
    return {"picked": got, "asked": asked} if rest or kwargs else {"picked": got}


@st.composite
def _preferences(draw, works: bool = True, empty: bool = False) -> Call:
    """A name, or a tuple or list of distinct names, and an availability in which some
    device works (``works``) or none does; given by position, by name, or left to the
    default (then on names whose answer is the same on every machine: cpu, python and
    unknown ones). ``empty``: no name at all."""
    how = draw(_pick("positional", "keyword", "default"))
    names = [] if empty else draw(_NAMES_HERE if how == "default" else _NAMES)
    table: dict = {}
    if how == "default" and names:
        here = [n for n in names if n in ("cpu", "python")]
        if works and not here:
            names.insert(_index(draw, len(names)), draw(_pick("cpu", "python")))
        elif not works:
            names = [n for n in names if n not in here] or ["tpu"]
    elif names:
        states = ["works", "refused", "refused", "unknown"] if works else ["refused", "unknown"]
        for name in names:
            state = draw(_pick(*states))
            if state != "unknown":
                table[name] = "" if state == "works" else _REFUSED[name]
        if works and "" not in table.values():
            table[draw(_pick(*names))] = ""
    kinds = ["tuple", "list", "str"] if len(names) == 1 else ["tuple", "list"]
    kind = draw(_pick(*kinds))
    prefer = names[0] if kind == "str" else tuple(names) if kind == "tuple" else list(names)
    if how == "default":
        return Call((prefer,))
    return Call((prefer, table)) if how == "positional" else Call((prefer,), {"available": table})


def _tried_and_why(prefer: Any, *rest: Any, **kwargs: Any) -> tuple:
    from stridegrad.backend import device_available
    names = (prefer,) if isinstance(prefer, str) else tuple(prefer)
    table = rest[0] if rest else kwargs.get("available")
    # the library's own reason up to its list of valid devices: that list depends on
    # what the notebook registered (lesson 10 adds "strict"), which the grader's judge,
    # outside the notebook's process, does not see
    why = [table.get(n, f"unknown device {n!r}") if table is not None else
           device_available(n)[1].split("; valid devices")[0] for n in names]
    return names + tuple(why)


checkpoint.contract(
    "pick_device", valid=_preferences(), scenario=pick_scenario,
    hint="This row tries preferences (a name, a tuple or a list), each with an availability "
         "written as a dict name -> reason ('' for a device that works), and shows the "
         "smallest case your function gets wrong, with the names it asked available about.",
    invalid=[Invalid(_preferences(works=False), RuntimeError, "preferences of which none works",
                     naming=_tried_and_why),
             Invalid(_preferences(empty=True), ValueError, "empty preferences")])


# ------------------------------------------------------------------ to_host


@checkpoint.test("to_host", hint="A NumPy array is on the host already: return it as it is "
                                 "(no copy, `result is x`).",
                 hint_for=("copies NumPy arrays too",))
def numpy_stays_as_is(to_host):
    x = np.arange(3.0)
    got = _call("to_host(numpy array)", to_host, x)
    if got is not x:
        fail("to_host(x) is x, for a NumPy x", True, f"a new {type(got).__name__}")


@checkpoint.test("to_host", hint="A CuPy array refuses np.asarray (TypeError): copy it with its "
                                 "own .get() method.")
def gpu_array_uses_get(to_host):
    x = FakeCuPyArray([[1.0, 2.0], [3.0, 4.0]])
    got = _call("to_host(FakeCuPyArray([[1, 2], [3, 4]]))", to_host, x)
    if not isinstance(got, np.ndarray) or got.tolist() != [[1.0, 2.0], [3.0, 4.0]]:
        fail("to_host(FakeCuPyArray([[1, 2], [3, 4]]))", "ndarray [[1.0, 2.0], [3.0, 4.0]]",
             _show(got))
    if x.gets != 1:
        fail("calls of x.get() by to_host(x)", 1, x.gets)


@checkpoint.test("to_host", hint="Other arrays (stridegrad.array, array_api_strict) convert "
                                 "with np.asarray(x); return an ndarray, not a list.",
                 hint_for=("returns a list",))
def strided_array_to_numpy(to_host):
    got = _call("to_host(stridegrad.array [[1, 2, 3]])", to_host, sa.asarray([[1.0, 2.0, 3.0]]))
    if not isinstance(got, np.ndarray):
        fail("type(to_host(stridegrad.array [[1, 2, 3]]))", "numpy.ndarray", type(got).__name__)
    if got.shape != (1, 3) or got.tolist() != [[1.0, 2.0, 3.0]] or got.dtype != np.float64:
        fail("to_host(stridegrad.array [[1, 2, 3]])", "float64 [[1.0, 2.0, 3.0]], shape (1, 3)",
             f"{got.dtype} {got.tolist()}, shape {got.shape}")


@checkpoint.test("to_host", hint="Keep the dtype and shape: an int64 array stays int64.",
                 hint_for=("float64 always",))
def keeps_dtype(to_host):
    got = _call("to_host(FakeCuPyArray int64 [1, 2])", to_host,
                FakeCuPyArray(np.array([1, 2], dtype=np.int64)))
    if not isinstance(got, np.ndarray) or got.dtype != np.int64 or got.tolist() != [1, 2]:
        fail("to_host(FakeCuPyArray int64 [1, 2])", "int64 ndarray [1, 2]", _show(got))


@checkpoint.test("to_host", hint="A 0-d array (a scalar on the device) gives a 0-d ndarray: "
                                 "shape (), not a Python float and not shape (1,).",
                 hint_for=("turns 0-d arrays into 1-d",))
def zero_d_stays_zero_d(to_host):
    for x, label in ((FakeCuPyArray(2.5), "FakeCuPyArray(2.5)"), (sa.asarray(2.5),
                                                                    "stridegrad.array 2.5")):
        got = _call(f"to_host({label})", to_host, x)
        if not isinstance(got, np.ndarray) or got.shape != () or float(got) != 2.5:
            fail(f"to_host({label})", "ndarray 2.5 of shape ()", _show(got))


@checkpoint.test("to_host", hint="A copy from the device is the host's own: changing it must not "
                                 "change the device array (.get() already copies).")
def device_copy_is_independent(to_host):
    x = FakeCuPyArray([1.0, 2.0])
    got = _call("to_host(FakeCuPyArray([1, 2]))", to_host, x)
    got[0] = 99.0
    if x.get().tolist() != [1.0, 2.0]:
        fail("device values after writing to to_host(x)", [1.0, 2.0], x.get().tolist())


def host_scenario(to_host, where: str, x: np.ndarray) -> dict:
    """``x`` on ``where``: "numpy" is ``x`` itself (with its strides), "fake_cupy" a
    FakeCuPyArray of its values, the others an array of that namespace. Observed: what
    came back (a NumPy array as a copy, its dtype and shape), whether it is ``x``
    itself, and how often ``x.get()`` was called."""
    arg = x if where == "numpy" else FakeCuPyArray(x) if where == "fake_cupy" else \
        _on(NAMESPACES[where], x)
    got = to_host(arg)
    seen = {"returned": got.copy() if isinstance(got, np.ndarray) else got}
    if where == "numpy":
        seen["is x itself"] = got is arg
    if where == "fake_cupy":
        seen["calls of x.get()"] = arg.gets
    return seen


@st.composite
def _on_some_device(draw) -> Call:
    """An array of rank 0 to 3 (sizes 0 and 1 too), of every dtype its namespace has,
    on NumPy (fresh or a view), on the fake GPU, on stridegrad.array or array_api_strict."""
    where = draw(_pick("numpy", "fake_cupy", *sorted(NAMESPACES)[1:]))
    shape = tuple(draw(_ints(0 if where != "stridegrad.array" else 1, 3))
                  for _ in range(draw(_ints(0, 3))))
    dtype = draw(_pick("float64", "float32", "int64", "int32", "bool", "uint8"))
    rng = np.random.default_rng(draw(_SEED))
    x = np.asarray(rng.integers(-8, 9, size=shape) / 2).astype(dtype)
    return Call((where, _laid_out(draw, x) if where == "numpy" else x))


checkpoint.contract(
    "to_host", valid=_on_some_device(), scenario=host_scenario,
    hint="This row tries arrays of every rank, dtype and layout on each kind of device "
         "(numpy, fake_cupy, stridegrad.array, array_api_strict), and shows the smallest "
         "case your function gets wrong: what came back, whether it is x itself, and how "
         "often x.get() was called.")


# ------------------------------------------------------------------ time_op


@checkpoint.test("time_op", hint="A launch returns at once; the work is done only after sync(). "
                                 "Read the clock after fn() AND sync().",
                 hint_for=("no sync: times the launch",
                           "reads the clock before the sync"))
def waits_for_the_device(time_op):
    dev = FakeAsyncDevice([0.010])  # each run: 0.001 launch + 0.010 of device work
    got = _call("time_op(launch, sync, clock=fake)", time_op, dev.launch, dev.sync,
                clock=dev.clock)
    _close("time_op(launch 0.001 s, work 0.010 s)", got, 0.011)


@checkpoint.test("time_op", hint="The first call compiles and allocates: make one warm-up call "
                                 "before timing, and do not count it.",
                 hint_for=('no warm-up',))
def warm_up_is_not_timed(time_op):
    # the first launch compiles for 5 s on the host; then each run is a 0.001 s launch with
    # no device work, so that only the warm-up decides this test (a missing sync does not)
    dev = FakeAsyncDevice([0.0], compile_cost=5.0)
    got = _call("time_op(launch, sync, repeat=1), first call compiles 5 s", time_op,
                dev.launch, dev.sync, repeat=1, clock=dev.clock)
    _close("time_op(first call 5 s, then 0.001 s, repeat=1)", got, 0.001)


@checkpoint.test("time_op", hint="Sync after the warm-up too, before you start the clock: "
                                 "otherwise the warm-up's work lands in the first timed run.",
                 hint_for=('no sync after the warm-up',))
def sync_before_starting_the_clock(time_op):
    dev = FakeAsyncDevice([0.020])
    got = _call("time_op(launch, sync, repeat=1)", time_op, dev.launch, dev.sync, repeat=1,
                clock=dev.clock)
    # a run started while the warm-up's 0.020 s are still queued measures 0.040 s
    _close("time_op(launch 0.001 s, work 0.020 s, repeat=1)", got, 0.021)


@checkpoint.test("time_op", hint="Return the BEST (smallest) run: other programs only ever add "
                                 "time, so the minimum is the least disturbed.",
                 hint_for=('the mean, not the best',))
def best_of_the_runs(time_op):
    # the warm-up is the slowest run, as a first call is: timed or not, the best is 0.011
    dev = FakeAsyncDevice([0.050, 0.030, 0.010, 0.020])
    got = _call("time_op(runs of 0.050, 0.030, 0.010, 0.020 s, repeat=3)", time_op, dev.launch,
                dev.sync, repeat=3, clock=dev.clock)
    _close("time_op(warm-up 0.050 s, then runs of 0.030, 0.010, 0.020 s + 0.001 launch, "
           "repeat=3)", got, 0.011)


@checkpoint.test("time_op", hint="One warm-up call plus `repeat` timed calls: fn runs "
                                 "repeat + 1 times.",
                 hint_for=('no warm-up', 'times repeat - 1 runs'))
def calls_fn_repeat_plus_one_times(time_op):
    dev = FakeAsyncDevice([0.010])
    _call("time_op(launch, sync, repeat=4)", time_op, dev.launch, dev.sync, repeat=4,
          clock=dev.clock)
    if dev.launches != 5:
        fail("calls of fn by time_op(fn, sync, repeat=4)", 5, dev.launches)


@checkpoint.test("time_op", hint="On the host, sync does nothing and fn's own time is measured: "
                                 "pass sync=lambda: None.")
def host_work_is_measured(time_op):
    dev = FakeAsyncDevice([0.0], launch_cost=0.002)  # all the work is in the launch itself
    got = _call("time_op(host fn of 0.002 s, no-op sync)", time_op, dev.launch, lambda: None,
                clock=dev.clock)
    _close("time_op(host fn of 0.002 s, no-op sync)", got, 0.002)


@checkpoint.test("time_op", hint="Sync after the last timed run too: time_op must return with "
                                 "the device idle, or its work lands in the caller's next "
                                 "measurement.",
                 hint_for=('no sync: times the launch',))
def device_is_idle_afterwards(time_op):
    dev = FakeAsyncDevice([0.010])
    _call("time_op(launch, sync, repeat=2)", time_op, dev.launch, dev.sync, repeat=2,
          clock=dev.clock)
    if dev.busy_until > dev.now:
        fail("device work still queued when time_op(launch, sync, repeat=2) returns",
             "0.0 s", round(dev.busy_until - dev.now, 6))


@checkpoint.test("time_op", hint="repeat must be at least 1: raise ValueError for 0.")
def repeat_must_be_positive(time_op):
    dev = FakeAsyncDevice([0.010])
    expect(time_op, dev.launch, dev.sync, repeat=0, clock=dev.clock, raises=ValueError)


def time_scenario(time_op, device: dict, *args: Any, **kwargs: Any) -> dict:
    """``time_op(launch, sync, *args, clock=clock, **kwargs)`` on a FakeAsyncDevice made
    from ``device`` (its ``costs``, ``launch_cost`` and ``compile_cost``). Observed: what
    it returned, how often it called fn, and the device's work still queued when it
    returned (in seconds)."""
    dev = FakeAsyncDevice(device["costs"], device["launch_cost"], device["compile_cost"])
    got = time_op(dev.launch, dev.sync, *args, clock=dev.clock, **kwargs)
    return {"returned": float(got) if isinstance(got, float) else got,
            "calls of fn": dev.launches,
            "work still queued": max(0.0, dev.busy_until - dev.now)}


_COSTS = st.lists(st.sampled_from([0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05]), min_size=1,
                  max_size=6)


@st.composite
def _timings(draw, repeats: tuple = (1, 5)) -> Call:
    """A fake device: the cost of each run (the last one repeats), a launch cost and a
    first call that compiles or not; repeat left out, by position or by name."""
    device = {"costs": draw(_COSTS),
              "launch_cost": draw(_pick(0.0, 0.001, 0.002)),
              "compile_cost": draw(_pick(0.0, 0.5, 5.0))}
    how = draw(_pick("default", "positional", "keyword"))
    r = draw(_ints(*repeats))
    if how == "default" and r == 3:
        return Call((device,))
    return Call((device, r)) if how == "positional" else Call((device,), {"repeat": r})


checkpoint.contract(
    "time_op", valid=_timings(), scenario=time_scenario,
    hint="This row tries fake devices (each run's cost on the device, the launch's cost on "
         "the host, a first call that compiles) and repeat from 1 to 5, and shows the "
         "smallest case your function gets wrong: what it returned, how often it called fn, "
         "and the device's work still queued when it returned.",
    invalid=[Invalid(_timings(repeats=(-2, 0)), ValueError, "repeat below 1")])


# ------------------------------------------------------------------ stretch: logsumexp

LN4 = math.log(4.0)


@checkpoint.test("logsumexp", hint="log(exp(0) + exp(ln 3)) = log(4), one number per row.",
                 stretch=True)
def logsumexp_of_rows(logsumexp):
    x = np.array([[0.0, LN3], [LN2, LN2]])
    got = _call("logsumexp(np, [[0, ln 3], [ln 2, ln 2]])", logsumexp, np, x)
    _same_array("logsumexp(np, [[0, ln 3], [ln 2, ln 2]])", got, np, [LN4, LN4], "float64")


@checkpoint.test("logsumexp", hint="exp(1000) overflows: shift by the max along the axis, and "
                                   "add it back after the log.", stretch=True,
                 hint_for=("no shift: overflows",))
def large_scores_stay_finite(logsumexp):
    x = np.array([1000.0, 1000.0 + LN3])
    with np.errstate(all="ignore"):
        got = _call("logsumexp(np, [1000, 1000 + ln 3])", logsumexp, np, x)
    _same_array("logsumexp(np, [1000, 1000 + ln 3])", got, np, 1000.0 + LN4, "float64")


@checkpoint.test("logsumexp", hint="Each row needs its own max: with one max for the whole "
                                   "array, exp(0 - 1000) underflows to 0 and log(0) is -inf.",
                 stretch=True,
                 hint_for=("one max for the whole array",))
def each_row_its_own_max(logsumexp):
    x = np.array([[0.0, 0.0], [1000.0, 1000.0]])
    with np.errstate(all="ignore"):
        got = _call("logsumexp(np, [[0, 0], [1000, 1000]])", logsumexp, np, x)
    _same_array("logsumexp(np, [[0, 0], [1000, 1000]])", got, np, [LN2, 1000.0 + LN2], "float64")


@checkpoint.test("logsumexp", hint="axis=0 reduces the columns; the reduced axis is gone from "
                                   "the result's shape.", stretch=True,
                 hint_for=("keeps the reduced axis",))
def along_axis_zero_without_the_axis(logsumexp):
    x = np.array([[0.0, LN2, 0.0], [LN3, LN2, 0.0]])
    got = _call("logsumexp(np, [[0, ln 2, 0], [ln 3, ln 2, 0]], axis=0)", logsumexp, np, x,
                axis=0)
    _same_array("logsumexp(np, [[0, ln 2, 0], [ln 3, ln 2, 0]], axis=0)", got, np,
                [LN4, LN4, LN2], "float64")


@checkpoint.test("logsumexp", hint="Only xp functions (xp.max, xp.exp, xp.sum, xp.log, "
                                   "xp.squeeze): NumPy's are refused by a strict namespace.",
                 stretch=True,
                 hint_for=("NumPy on any namespace",))
def logsumexp_on_a_strict_namespace(logsumexp):
    xp = _strict_xp()
    x = xp.asarray([[0.0, LN3], [LN2, LN2]])
    call = f"logsumexp({xp.__name__}, [[0, ln 3], [ln 2, ln 2]])"
    _same_array(call, _call(call, logsumexp, xp, x), xp, [LN4, LN4], "float64")


@checkpoint.test("logsumexp", hint="Keep the input's dtype: float32 in, float32 out.",
                 stretch=True)
def logsumexp_keeps_float32(logsumexp):
    xp = _strict_xp()
    x = xp.asarray([0.0, LN3], dtype=xp.float32)
    call = f"logsumexp({xp.__name__}, float32 [0, ln 3])"
    _same_array(call, _call(call, logsumexp, xp, x), xp, LN4, "float32")


checkpoint.contract("logsumexp", valid=_scores(), scenario=portable_scenario, hint=_PORTABLE_HINT,
                    stretch=True)
