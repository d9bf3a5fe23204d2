"""Tracing: run a function once on stand-in arrays that record every op into a Graph.

The Tensor code is written once against an array namespace ``xp`` (NumPy, CuPy,
``stridegrad.array``). The tracer is one more namespace: while a trace runs,
every Tensor's ``_xp`` reads as a :class:`TraceNamespace` and every ``_data``
reads as a :class:`Tracer`, an array stand-in that carries a real value (so
shapes, dtypes and promotion rules are exactly the backend's) and a graph node.
Forward ops, the backward engine's ops (``loss.backward()`` runs its nodes'
``apply`` on tracers too) and the optimizer's updates are all recorded; no
Tensor code needs to know.

How the Tensor class is hooked, without editing it: for the duration of one
trace the slot descriptors ``Tensor._data``, ``Tensor._xp`` and
``Tensor._grad`` are replaced by descriptors that route through the trace
context, and a few methods that read values out (``item``, ``numpy``,
``__bool__``, ...) are replaced by ones that stop the trace; everything is
restored in ``finally``. A tensor that existed before the trace (an argument, or
a parameter the function captured) becomes a *placeholder* the first time its
data or gradient is read; writes to such tensors are journaled, become graph
outputs ("effects"), and are undone when the trace ends, so tracing changes
nothing. **Thread safety**: the hooks are class attributes, so while one thread
traces, Tensors used by other threads are routed through that trace; do not
trace while other threads use stridegrad.

What stops a trace (:class:`GraphBreak`): reading a value into Python
(``item()``, ``bool(t)``, ``float(t)``, ``numpy()``, ``tolist()``, printing),
random numbers (they would be frozen into the graph), device moves, captured
tensors with autograd history, and results that require grad when the
function never calls ``backward()``.
"""

from __future__ import annotations

import contextlib
import os
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from stridegrad.compile import ops as _ops
from stridegrad.compile.ir import Graph, Node
from stridegrad.tensor import Tensor, _creation, _wrap, is_grad_enabled

__all__ = ["GraphBreak", "TraceNamespace", "TraceResult", "Tracer", "is_tracing", "require", "trace"]

_ACTIVE: list[_Context] = []  # the running trace (one at a time)
_HERE = os.path.dirname(os.path.abspath(__file__))
_TENSOR_DIR = os.path.dirname(os.path.abspath(_creation.__file__)) + os.sep


class GraphBreak(Exception):
    """The function did something a captured graph cannot hold; the reason names it."""


def is_tracing() -> bool:
    """Whether a trace is running (compiled functions called inside one run inline)."""
    return bool(_ACTIVE)


def require(array: Any, check: Callable[[Any], None]) -> None:
    """Run ``check(array)`` now, and on every replay of the graph being traced.

    For checks on input *values* (a label range, say) that a graph cannot hold: the
    check gets the real array and raises to reject it. Outside a trace it simply
    runs. A value the graph computes has no real array before replay: asking to
    check one stops the trace (the function then runs eagerly, checks included).
    """
    if not isinstance(array, Tracer):
        check(array)  # eager, or a constant baked into the graph: one check is enough
        return
    if array.node.op != "placeholder":
        raise _break(f"a value check on a computed array ({array.node.op})")
    check(array.value)
    array._ctx.result.value_checks.append((array.node.attrs["source"], check))


def _where() -> str:
    """``file:line (function)`` of the innermost frame outside the tracer and the tensor package."""
    for frame in reversed(traceback.extract_stack()[:-1]):
        path = os.path.abspath(frame.filename)
        if not path.startswith(_HERE) and not path.startswith(_TENSOR_DIR):
            return f"{os.path.basename(path)}:{frame.lineno} ({frame.name})"
    return "?"


def _break(what: str) -> GraphBreak:
    return GraphBreak(f"{what} at {_where()}")


def _ctx() -> _Context:
    if not _ACTIVE:
        raise RuntimeError(
            "a traced array was used outside its trace: a value from inside a compiled "
            "function escaped (stored in a global or an optimizer's state?)"
        )
    return _ACTIVE[-1]


# --------------------------------------------------------------------------- Tracer


def _binop(op: str, reflected: bool = False):
    def method(self, other):
        if isinstance(other, (list, tuple, dict, str)) or other is None:
            return NotImplemented
        args = (other, self) if reflected else (self, other)
        return self._ctx.record(op, args, {})

    method.__name__ = f"__{'r' if reflected else ''}{op}__"
    return method


def _inplace(op: str):
    def method(self, other):
        new = self._ctx.record(op, (self, other), {})
        if new.node.shape != self.node.shape:
            raise ValueError(
                f"non-broadcastable output operand with shape {self.node.shape} doesn't "
                f"match the broadcast shape {new.node.shape}"
            )
        self.node, self.value = new.node, new.value  # the handle now holds the new value
        return self

    return method


def _refuse(what: str):
    def method(self, *args, **kwargs):
        raise _break(f"{what} of a traced array (a data-dependent value)")

    return method


class Tracer:
    """An array stand-in during a trace: a graph ``node`` and the real ``value``.

    Operators and namespace calls on tracers record nodes; mutation
    (``a[k] = v``, ``a += b``) records a new node and points this handle at it.
    """

    __slots__ = ("_ctx", "node", "value")
    __array_ufunc__ = None  # NumPy defers to our reflected operators
    __array_priority__ = 1e6
    __hash__ = object.__hash__

    def __init__(self, ctx: _Context, node: Node, value: Any) -> None:
        self._ctx = ctx
        self.node = node
        self.value = value

    @property
    def shape(self) -> tuple:
        return self.node.shape

    @property
    def dtype(self) -> Any:
        return self.node.dtype

    @property
    def ndim(self) -> int:
        return len(self.node.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.node.shape, dtype=np.int64))

    @property
    def mT(self) -> Tracer:
        return self._ctx.record("mT", (self,), {})

    @property
    def T(self) -> Tracer:
        return self._ctx.record("T", (self,), {})

    def __len__(self) -> int:
        if not self.node.shape:
            raise TypeError("len() of a 0-d array")
        return self.node.shape[0]

    def __getitem__(self, key: Any) -> Tracer:
        if _has_tracer(key):
            raise _break("indexing with a traced array")
        return self._ctx.record("getitem", (self,), {"key": key})

    def __setitem__(self, key: Any, value: Any) -> None:
        if _has_tracer(key):
            raise _break("indexing with a traced array")
        new = self._ctx.record("setitem", (self, value), {"key": key})
        self.node, self.value = new.node, new.value

    def __neg__(self) -> Tracer:
        return self._ctx.record("negative", (self,), {})

    def __pos__(self) -> Tracer:
        return self._ctx.record("positive", (self,), {})

    def __abs__(self) -> Tracer:
        return self._ctx.record("absolute", (self,), {})

    def __array_namespace__(self, api_version: str | None = None) -> Any:
        """The namespace code asks a tracer for (``backend.array_namespace(a)``): one
        that records into the running trace, on its backend (the same object for every
        trace, since callers may cache it by type)."""
        return _RUNNING

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # never hand NumPy an __array_interface__ of the value
            raise AttributeError(name)
        attr = getattr(self.value, name)
        if callable(attr):
            raise _break(f"the array method .{name}()")
        return attr

    def __repr__(self) -> str:
        return f"Tracer({self.node.name}, shape={self.node.shape})"

    __bool__ = _refuse("bool()")
    __int__ = _refuse("int()")
    __float__ = _refuse("float()")
    __index__ = _refuse("using as an index")
    __complex__ = _refuse("complex()")
    __array__ = _refuse("conversion to NumPy")
    __iter__ = _refuse("iteration")
    item = _refuse(".item()")
    tolist = _refuse(".tolist()")
    __dlpack__ = _refuse("DLPack export")


for _name in ("add", "subtract", "multiply", "divide", "pow", "matmul"):
    _dunder = {"subtract": "sub", "multiply": "mul", "divide": "truediv"}.get(_name, _name)
    setattr(Tracer, f"__{_dunder}__", _binop(_name))
    setattr(Tracer, f"__r{_dunder}__", _binop(_name, reflected=True))
    if _name != "matmul":
        setattr(Tracer, f"__i{_dunder}__", _inplace(_name))
for _name, _dunder in [("equal", "eq"), ("not_equal", "ne"), ("less", "lt"),
                       ("less_equal", "le"), ("greater", "gt"), ("greater_equal", "ge")]:
    setattr(Tracer, f"__{_dunder}__", _binop(_name))
del _name, _dunder


def _has_tracer(obj: Any) -> bool:
    if isinstance(obj, Tracer):
        return True
    if isinstance(obj, (tuple, list)):
        return any(_has_tracer(o) for o in obj)
    return False


class TraceNamespace:
    """Stands for a real array namespace during a trace: its functions record ops.

    Functions that make no array (``finfo``, ``isdtype``) and non-functions
    (dtypes) pass straight through to the real namespace.
    """

    def __init__(self, real: Any) -> None:
        self._real = real
        self.__name__ = f"traced {getattr(real, '__name__', real)!s}"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        attr = getattr(self._real, name)
        if not callable(attr) or isinstance(attr, type):
            return attr
        real = self._real

        def fn(*args: Any, **kwargs: Any) -> Any:
            ctx = _ctx()
            if any(_has_tracer(v) for v in kwargs.values()) or any(
                    isinstance(a, (tuple, list)) and _has_tracer(a) for a in args):
                raise _break(f"xp.{name} with arrays in a list or keyword")
            if not any(isinstance(a, Tracer) or _ops.is_array(a) for a in args):
                probe = attr(*args, **kwargs)
                if not _ops.is_array(probe):
                    return probe  # finfo, isdtype, result_type, ...
            ctx.use_namespace(real)
            return ctx.record(name, args, kwargs)

        fn.__name__ = name
        self.__dict__[name] = fn
        return fn

    def __repr__(self) -> str:
        return f"<TraceNamespace of {self._real!r}>"


class _RunningNamespace:
    """The trace namespace of the running trace's backend, looked up at each use."""

    __name__ = "traced namespace of the running trace"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        ctx = _ctx()
        if ctx.xp is None:
            raise _break("an array namespace asked for before any array was seen")
        return getattr(_trace_namespace(ctx.xp), name)

    def __repr__(self) -> str:
        return "<the running trace's namespace>"


_RUNNING = _RunningNamespace()
_namespaces: dict[int, tuple[Any, TraceNamespace]] = {}


def _trace_namespace(real: Any) -> TraceNamespace:
    hit = _namespaces.get(id(real))
    if hit is None or hit[0] is not real:
        hit = _namespaces[id(real)] = (real, TraceNamespace(real))
    return hit[1]


# --------------------------------------------------------------------------- context

_SLOTS = ("_data", "_xp", "_grad")
_ORIG = {name: Tensor.__dict__[name] for name in _SLOTS}  # the slot member descriptors
_DATA, _XP, _GRAD = (_ORIG[n] for n in _SLOTS)


class _SlotHook:
    """A data descriptor that replaces a Tensor slot while a trace runs."""

    def __init__(self, ctx: _Context, name: str) -> None:
        self.ctx, self.name, self.orig = ctx, name, _ORIG[name]

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        if obj is None:
            return self
        return self.ctx.get_slot(obj, self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        self.ctx.set_slot(obj, self.name, value)

    def __delete__(self, obj: Any) -> None:
        self.orig.__delete__(obj)


class TraceResult:
    """What a trace found besides the graph: where placeholders come from, what to write
    back, how to rebuild the return value, and which guards must hold to reuse it."""

    def __init__(self) -> None:
        self.captured: list[Tensor] = []  # tensors the function reached that are not args
        self.effects: list[tuple] = []  # (slot, field) per effect output, after the returns
        self.spec: Any = None  # the return value's structure
        self.guards: list[tuple] = []  # (slot, what, expected)
        self.value_checks: list[tuple] = []  # (placeholder source, check) run on every replay
        self.backward_called = False


class _Context:
    def __init__(self, args: list[Tensor], arg_names: list[str], names: dict[int, str]) -> None:
        self.graph = Graph(None, "")
        self.result = TraceResult()
        self.xp = None
        self.args = args
        self.slots: dict[int, tuple] = {id(t): ("arg", i) for i, t in enumerate(args)}
        self.labels: dict[tuple, str] = {("arg", i): n for i, n in enumerate(arg_names)}
        self.names = names  # id(tensor) -> readable name of captured tensors
        self.internal: set[int] = set()
        self.keep: list[Any] = []  # holds internal tensors so their ids stay unique
        self.journal: dict[tuple[int, str], tuple[Tensor, Any]] = {}
        self.lifted: dict[int, Node] = {}  # id(tensor) -> its data placeholder
        self.grad_proxy: dict[int, tuple[Tensor | None, Node | None]] = {}
        self.constants: dict[int, Node] = {}

    # ---- namespace
    def use_namespace(self, real: Any) -> None:
        if self.xp is None:
            self.xp = real
            self.graph.xp = real
        elif real is not self.xp:
            raise _break("arrays of two devices in one function")

    # ---- nodes
    def constant(self, value: Any) -> Node:
        node = self.constants.get(id(value))
        if node is None:
            if self.xp is None:
                self.use_namespace(_namespace_of(value))
            node = self.graph.add("constant", (), {"value": value}, tuple(value.shape),
                                  value.dtype)
            self.constants[id(value)] = node
            self.keep.append(value)
        return node

    def record(self, op: str, args: tuple, attrs: dict) -> Tracer:
        if not _ACTIVE or _ACTIVE[-1] is not self:
            raise RuntimeError(
                f"a traced array ({op} of a value from a finished trace) was used outside its "
                "trace: a value from inside a compiled function escaped (stored in a list, a "
                "global or an optimizer's state?)"
            )
        inputs, values = [], []
        for a in args:
            if isinstance(a, Tracer):
                if a._ctx is not self:
                    raise RuntimeError("a traced array from a finished trace escaped into this "
                                       "one (stored in a list or a global?)")
                inputs.append(a.node)
                values.append(a.value)
            elif _ops.is_array(a):
                inputs.append(self.constant(a))
                values.append(a)
            else:
                inputs.append(a)
                values.append(a)
        value = _ops.evaluate(op, self.xp, tuple(values), attrs)
        if not _ops.is_array(value):
            raise _break(f"{op} returning a {type(value).__name__}")
        node = self.graph.add(op, tuple(inputs), attrs, tuple(value.shape), value.dtype)
        return Tracer(self, node, value)

    # ---- tensors
    def slot_of(self, t: Tensor) -> tuple:
        slot = self.slots.get(id(t))
        if slot is None:
            slot = ("cap", len(self.result.captured))
            self.slots[id(t)] = slot
            self.result.captured.append(t)
            self.labels[slot] = self.names.get(id(t), f"c{slot[1]}")
            self.result.guards.append((slot, "requires_grad", Tensor.requires_grad.fget(t)))
        return slot

    def placeholder(self, t: Tensor, field: str, raw: Any) -> Tracer:
        self.use_namespace(_namespace_of(raw, _XP.__get__(t)))
        slot = self.slot_of(t)
        label = self.labels[slot] + ("" if field == "data" else ".grad")
        node = self.graph.add("placeholder", (), {"source": (*slot, field), "label": label},
                              tuple(raw.shape), raw.dtype, name=label)
        return Tracer(self, node, raw)

    def _check_history(self, t: Tensor) -> None:
        fn = t.grad_fn
        if fn is not None and is_grad_enabled():
            raise _break(
                f"a tensor with autograd history from outside the function "
                f"(grad_fn={fn.name()}, shape {tuple(_DATA.__get__(t).shape)}): pass it "
                "detached, or compute it inside"
            )

    def get_slot(self, t: Tensor, name: str) -> Any:
        raw = _ORIG[name].__get__(t, Tensor)
        if name == "_xp":
            return raw if isinstance(raw, TraceNamespace) else _trace_namespace(raw)
        tid = id(t)
        if name == "_data":
            if isinstance(raw, Tracer):
                return raw
            if tid in self.internal:  # set before the hooks saw it (cannot happen in practice)
                return Tracer(self, self.constant(raw), raw)
            self._check_history(t)
            tr = self.placeholder(t, "data", raw)
            self.lifted[tid] = tr.node
            self.journal.setdefault((tid, "_data"), (t, raw))
            _DATA.__set__(t, tr)
            return tr
        # _grad
        if tid in self.internal or (tid, "_grad") in self.journal:
            return raw
        self.journal[(tid, "_grad")] = (t, raw)
        slot = self.slot_of(t)
        if raw is None:
            self.result.guards.append((slot, "grad_is_none", True))
            self.grad_proxy[tid] = (None, None)
            return None
        self.result.guards.append((slot, "grad_is_none", False))
        tr = self.placeholder(t, "grad", _DATA.__get__(raw))
        proxy = _wrap(tr, t._device, _XP.__get__(raw), None)
        self.grad_proxy[tid] = (proxy, tr.node)
        _GRAD.__set__(t, proxy)
        return proxy

    def set_slot(self, t: Tensor, name: str, value: Any) -> None:
        tid = id(t)
        orig = _ORIG[name]
        try:
            raw = orig.__get__(t, Tensor)
        except AttributeError:  # a tensor born inside the trace
            if tid not in self.internal:
                self.internal.add(tid)
                self.keep.append(t)
        else:
            if tid not in self.internal:
                self.journal.setdefault((tid, name), (t, raw))
        if name == "_data" and not isinstance(value, Tracer) and _ops.is_array(value):
            value = Tracer(self, self.constant(value), value)
        orig.__set__(t, value)

    # ---- the end
    def finish(self, out: Any) -> None:
        res = self.result
        res.spec = self._flatten(out)
        labels = ["return"] * len(self.graph.outputs)
        for (tid, name), (t, _raw) in list(self.journal.items()):
            if name == "_data":
                cur = _DATA.__get__(t)
                if isinstance(cur, Tracer) and cur.node is not self.lifted.get(tid):
                    self._effect(t, "data", cur.node, labels)
            elif name == "_grad":
                cur = _GRAD.__get__(t)
                proxy, ph = self.grad_proxy.get(tid, (None, None))
                if cur is proxy:
                    if proxy is not None:
                        d = _DATA.__get__(proxy)
                        if d.node is not ph:
                            self._effect(t, "grad_data", d.node, labels)
                elif cur is None:
                    self._effect(t, "grad", None, labels)
                else:
                    d = cur._data
                    self._effect(t, "grad", d.node, labels)
        self.graph.meta["output_labels"] = labels

    def _effect(self, t: Tensor, field: str, node: Node | None, labels: list) -> None:
        slot = self.slot_of(t)
        self.result.effects.append((slot, field, node is None))
        self.graph.outputs.append(node)
        suffix = {"data": "", "grad": ".grad", "grad_data": ".grad"}[field]
        labels.append(self.labels[slot] + suffix)

    def _flatten(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            tid = id(obj)
            if tid not in self.internal:
                return ("ext", self.slot_of(obj))
            data = obj._data
            if obj._requires_grad and is_grad_enabled() and not self.result.backward_called:
                raise _break(
                    "returning a tensor that requires grad from a function that never calls "
                    "backward() (compile the whole training step, or run it under no_grad())"
                )
            self.graph.outputs.append(data.node)
            return ("out", len(self.graph.outputs) - 1)
        if isinstance(obj, (tuple, list)):
            return (type(obj), [self._flatten(o) for o in obj])
        if isinstance(obj, dict):
            return (dict, list(obj), [self._flatten(v) for v in obj.values()])
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return ("lit", obj)
        if isinstance(obj, Tracer) or _ops.is_array(obj):
            raise _break(f"returning a raw array ({type(obj).__name__})")
        raise _break(f"returning a {type(obj).__name__}")


def _namespace_of(raw: Any, xp: Any = None) -> Any:
    if xp is not None and not isinstance(xp, TraceNamespace):
        return xp
    if isinstance(raw, np.ndarray | np.generic):
        return np
    ns = getattr(raw, "__array_namespace__", None)
    return ns() if ns is not None else np


# --------------------------------------------------------------------------- hooks


def _refusing(what: str) -> Callable:
    def method(self, *args, **kwargs):
        raise _break(f"{what} (it reads a value out of the graph: data-dependent Python)")

    return method


_REFUSED = {
    "item": "Tensor.item()",
    "numpy": "Tensor.numpy()",
    "tolist": "Tensor.tolist()",
    "__bool__": "bool(tensor)",
    "__float__": "float(tensor)",
    "__int__": "int(tensor)",
    "__index__": "using a tensor as an index",
    "__array__": "np.asarray(tensor)",
    "__repr__": "printing a tensor",
    "__reduce_ex__": "pickling a tensor",
}


@contextlib.contextmanager
def _hooks(ctx: _Context):
    saved = {name: Tensor.__dict__[name] for name in (*_SLOTS, *_REFUSED, "backward")}
    saved_random = _creation._random
    orig_backward = Tensor.backward

    def backward(self, *args, **kwargs):
        ctx.result.backward_called = True
        return orig_backward(self, *args, **kwargs)

    def no_random(*args, **kwargs):
        raise _break("random numbers inside a compiled function (they would be frozen into "
                     "the graph; pass them in as arguments)")

    try:
        for name in _SLOTS:
            setattr(Tensor, name, _SlotHook(ctx, name))
        for name, what in _REFUSED.items():
            setattr(Tensor, name, _refusing(what))
        Tensor.backward = backward
        _creation._random = no_random
        _ACTIVE.append(ctx)
        yield
    finally:
        _ACTIVE.pop()
        _creation._random = saved_random
        for name, value in saved.items():
            setattr(Tensor, name, value)


def trace(fn: Callable, args: list[Tensor], arg_names: list[str] | None = None,
          names: dict[int, str] | None = None, call: Callable | None = None
          ) -> tuple[Graph, TraceResult]:
    """Run ``fn`` once on tracers; return the recorded Graph and what it needs to replay.

    ``args`` are the tensor arguments (placeholders ``("arg", i, "data")``); ``call``
    (default ``lambda: fn(*args)``) performs the call. Tensors are left exactly as
    they were; :class:`GraphBreak` says why a function cannot be captured.
    """
    if _ACTIVE:
        raise RuntimeError("a trace is already running")
    arg_names = arg_names or [f"arg{i}" for i in range(len(args))]
    ctx = _Context(list(args), arg_names, names or {})
    if call is None:
        def call():
            return fn(*args)
    try:
        with _hooks(ctx):
            for t in args:  # arguments become placeholders in argument order
                ctx.get_slot(t, "_data")
            out = call()
            ctx.finish(out)
    finally:
        for (_, name), (t, raw) in ctx.journal.items():
            _ORIG[name].__set__(t, raw)
    g = ctx.graph
    if g.xp is None:  # a function of nothing: no arrays at all
        g.xp = np
    g.device = args[0]._device if args else (
        ctx.result.captured[0]._device if ctx.result.captured else "cpu")
    return g, ctx.result
