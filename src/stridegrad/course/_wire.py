"""Plain data between the grader's judge and a notebook's worker, and handles for the rest.

The judge (:mod:`stridegrad.course._judge`, outside the sandbox) runs a lesson's tests
unchanged, with each exercise a :class:`Remote`: calling it sends the arguments to the
worker (:mod:`stridegrad.course._worker`, in the sandbox), which calls the notebook's
function and sends back what came out. Both directions use one JSON encoding of a closed
set of types: None, bool, int, float, complex, str, bytes, bytearray; tuples, lists,
dicts, sets and frozensets of them; slices and Ellipsis; NumPy arrays and scalars as
dtype, shape and bytes. A container sent twice in one message is sent once and then by
reference, so aliasing survives (``[row] * 2``), and what a call returns that *is* one
of its arguments comes back as a reference to it (``return x``).

Anything else is a handle: the worker's objects (an instance of the learner's class) reach
the judge as a :class:`Remote`, whose attributes, calls and operators are asked of the
worker and whose answers are again plain data or handles; the judge's objects (the
tests' own node class, a lambda) reach the worker as a :class:`HostProxy`, whose use is
asked of the judge. A Remote never answers ``==`` itself (equal only to itself), so an
object that says it equals everything equals nothing; its ``__class__`` is the library
class the worker's type derives from, if any (a learner's ``Linear(Module)`` is a Module
to ``isinstance``), and ``type(remote).__name__`` is the worker type's name.

The judge's objects are reachable from the worker only through names that do not start
with two underscores (and a few protocol methods, called, never handed out): no
``__globals__``, ``__closure__``, ``__class__`` or ``__dict__``, no module, frame or code
object. Nothing here is secret: the module is the same on both sides.
"""

from __future__ import annotations

import base64
import functools
import inspect
import gc
import importlib
import json
import math
import os
import select
import time
from collections.abc import Callable
from typing import Any

__all__ = ["ChannelClosed", "Codec", "HostProxy", "ProtocolError", "Remote", "read_message",
           "write_message"]

#: How deep a value may nest, and how many items one message may hold.
MAX_DEPTH = 64
MAX_ITEMS = 2_000_000
#: The longest text a Remote's repr brings back.
REPR_CHARS = 400

#: Protocol methods a Remote forwards and a HostProxy may call on the judge's objects.
OPERATORS = frozenset({
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
    "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__pos__", "__abs__",
    "__lt__", "__le__", "__gt__", "__ge__", "__getitem__", "__setitem__", "__delitem__",
    "__contains__", "__len__", "__bool__", "__float__", "__int__", "__index__",
    "__iter__", "__next__", "__call__", "__array_namespace__", "__enter__", "__exit__",
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__and__", "__or__", "__xor__",
    "__invert__", "__round__", "__trunc__", "__floor__", "__ceil__", "__hash__", "__str__",
})
#: Plain-data functions sent by name rather than as a handle (called in the worker).
_BY_NAME_MODULES = ("operator", "math", "builtins")


#: Names with two underscores the judge answers about its objects, when they are text.
_NAMES = frozenset({"__name__", "__qualname__", "__module__"})


class ProtocolError(ValueError):
    """A message that is not one the other side writes."""


class ChannelClosed(ConnectionError):
    """The other side is gone (its process ended, or stopped answering and was killed)."""


# --------------------------------------------------------------------------- lines

def write_message(fd: int, payload: dict) -> None:
    """One JSON line, written whole."""
    data = json.dumps(payload, allow_nan=False, separators=(",", ":")).encode() + b"\n"
    while data:
        data = data[os.write(fd, data):]


class LineReader:
    """JSON lines from ``fd``, at most ``limit`` bytes each, with an optional deadline."""

    def __init__(self, fd: int, limit: int = 64 * 1024 * 1024):
        self.fd, self.limit, self.buffer = fd, limit, bytearray()

    def line(self, deadline: float | None = None) -> bytes:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                if line.strip():
                    return line
                continue
            if len(self.buffer) > self.limit:
                raise ProtocolError(f"a line longer than {self.limit} bytes")
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                    raise TimeoutError("no answer in time")
            try:
                chunk = os.read(self.fd, 1 << 20)
            except InterruptedError:  # pragma: no cover - PEP 475 retries
                continue
            if not chunk:
                raise ChannelClosed("the other side closed the channel")
            self.buffer += chunk


def read_message(reader: LineReader, deadline: float | None = None, *,
                 limits=None) -> dict:
    """The next message, parsed within ``limits`` (:mod:`stridegrad.course._limits`)
    when given (the judge reading the worker), else with plain ``json``."""
    line = reader.line(deadline)
    if limits is not None:
        from stridegrad.course._limits import UntrustedJSONError, loads
        try:
            message = loads(line, limits, "a message from the notebook's process")
        except UntrustedJSONError as exc:
            raise ProtocolError(str(exc)) from None
    else:
        message = json.loads(line)
    if not isinstance(message, dict):
        raise ProtocolError("a message that is not a JSON object")
    return message


# --------------------------------------------------------------------------- values

def _type_name(kind: type) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"


class Codec:
    """Plain data both ways, and handles for everything else.

    ``local(obj)`` makes a handle of one of this side's objects (``{"$w": n}`` from the
    worker, ``{"$h": n}`` from the judge); ``remote(tag, number, info)`` turns the other
    side's handle into a stand-in. Containers are numbered as they are sent (and decoded
    in the same order), so ``{"$r": k}`` is the k-th container of the same message and
    ``{"$in": k}`` the k-th container of the call's arguments.
    """

    def __init__(self, side: str):
        self.side = side  # "$w" or "$h": the tag of this side's handles
        self.objects: dict[int, Any] = {}  # handle number -> object (kept alive)
        self.numbers: dict[int, int] = {}  # id(object) -> handle number
        self.proxies: dict[tuple[str, int], Any] = {}  # the other side's handles
        self.last = 0  # the last handle number given

    # ---- this side's objects

    def handle(self, obj: Any) -> dict:
        number = self.numbers.get(id(obj))
        if number is None or self.objects.get(number) is not obj:
            self.last += 1  # never reused: a dropped handle's number stays unknown
            number = self.last
            self.objects[number] = obj
            self.numbers[id(obj)] = number
        return {self.side: number, **self.describe(obj)}

    def describe(self, obj: Any) -> dict:
        """What the other side learns of a handle's object: its type, its name if it is
        a function or class, and the library classes its type derives from."""
        kind = type(obj)
        info: dict[str, Any] = {"t": _type_name(kind)[:300], "c": callable(obj)}
        name = getattr(obj, "__name__", None) if isinstance(obj, type) or callable(obj) else None
        if isinstance(name, str):
            info["n"] = name[:200]
        mro = [c for c in (obj.__mro__ if isinstance(obj, type) else kind.__mro__)
               if (c.__module__ or "").startswith("stridegrad.")]
        if mro:
            info["m"] = [_type_name(c)[:300] for c in mro[:8]]
            info["k"] = isinstance(obj, type)  # a class itself, not an instance
        return info

    def local(self, number: Any) -> Any:
        if type(number) is not int or number not in self.objects:
            raise ProtocolError(f"no such handle {number!r}")
        return self.objects[number]

    # ---- encoding

    def encode(self, value: Any, *, inputs: dict[int, int] | None = None) -> Any:
        return _Encoder(self, inputs).run(value)

    def decode(self, data: Any, *, inputs: list | None = None,
               record: list | None = None) -> Any:
        return _Decoder(self, inputs, record).run(data)


_PLAIN = (type(None), bool, int, float, str)
_CONTAINERS = (list, tuple, dict, set, frozenset, bytearray)


def _float(x: float) -> Any:
    if math.isfinite(x):
        return x
    return {"$f": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


class _Encoder:
    def __init__(self, codec: Codec, inputs: dict[int, int] | None):
        self.codec, self.inputs = codec, inputs or {}
        self.seen: dict[int, int] = {}
        self.count = 0
        self.keep: list = []  # what the numbers refer to, alive until encoded

    def run(self, value: Any) -> Any:
        return self.value(value, 0)

    def number(self, obj: Any) -> int:
        self.seen[id(obj)] = len(self.seen)
        self.keep.append(obj)
        return len(self.seen) - 1

    def value(self, v: Any, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_ITEMS:
            raise ValueError(f"more than {MAX_ITEMS} values")
        if depth > MAX_DEPTH:
            raise ValueError(f"nested more than {MAX_DEPTH} deep")
        kind = type(v)
        if kind is float:
            return _float(v)
        if kind in _PLAIN:
            if kind is int and abs(v) > 1 << 4000:
                raise ValueError("an int of more than 4000 bits")
            return v
        if kind is bytes:
            return {"$b": base64.b64encode(v).decode()}
        if kind is complex:
            return {"$c": [_float(v.real), _float(v.imag)]}
        if v is Ellipsis:
            return {"$e": 1}
        if kind is slice:
            return {"$sl": [self.value(x, depth + 1) for x in (v.start, v.stop, v.step)]}
        mutable = kind in _CONTAINERS or _is_ndarray(v) or \
            _VALUE_CLASSES.get(_type_name(kind)) in ("state", "op")
        if mutable:
            if id(v) in self.inputs:
                return {"$in": self.inputs[id(v)]}
            if id(v) in self.seen:
                return {"$r": self.seen[id(v)]}
        if kind is list:
            self.number(v)
            return [self.value(x, depth + 1) for x in v]
        if kind is tuple:
            self.number(v)
            return {"$t": [self.value(x, depth + 1) for x in v]}
        if kind is dict:
            self.number(v)
            return {"$d": [[self.value(k, depth + 1), self.value(x, depth + 1)]
                           for k, x in v.items()]}
        if kind is set or kind is frozenset:
            self.number(v)
            return {"$s" if kind is set else "$fs": [self.value(x, depth + 1) for x in v]}
        if kind is bytearray:
            self.number(v)
            return {"$ba": base64.b64encode(bytes(v)).decode()}
        if _is_ndarray(v) and v.dtype.hasobject is False and v.dtype.names is None:
            self.number(v)
            return {"$nd": [v.dtype.str, list(v.shape), base64.b64encode(
                v.tobytes(order="C")).decode()]}
        if _is_np_scalar(v) and v.dtype.hasobject is False and v.dtype.names is None:
            return {"$ns": [v.dtype.str, base64.b64encode(v.tobytes()).decode()]}
        value_class = _VALUE_CLASSES.get(_type_name(kind))
        if value_class is not None:
            return self.copy_of(v, kind, value_class, depth)
        if _is_np_dtype(v):
            return {"$dt": v.str}
        if kind is type and v in _BUILTIN_TYPES.values():
            return {"$ty": v.__name__}
        if isinstance(v, Remote):
            if v._codec is self.codec:
                return {v._tag: v._number}
            raise ValueError("a handle of another channel")
        if isinstance(v, HostProxy):
            return {"$h": object.__getattribute__(v, "_number")}
        named = _by_name(v)
        if named is not None:
            return {"$fn": named}
        if kind is _ModuleType and _importable(v):
            return {"$mod": v.__name__}
        if _unsafe(v) and not (kind is _ModuleType and self.codec.side == "$h"
                               and not _secret_module(v)):
            raise ValueError(f"a {type(v).__name__} cannot be sent")
        return self.codec.handle(v)


    def copy_of(self, v: Any, kind: type, how: str, depth: int) -> Any:
        """A library object sent by value: its state (slots or attributes), or for a
        dtype label its name."""
        if how == "by-name":  # the module's name for this one object of its kind
            module = importlib.import_module(kind.__module__)
            found = next((k for k, x in vars(module).items() if x is v), None)
            if found is None:
                raise ValueError(f"a {kind.__name__} that is none of its module's")
            return {"$named": [_type_name(kind), found]}
        self.number(v)
        names = _state_names(kind)
        state = {n: getattr(v, n) for n in names if hasattr(v, n)} if names is not None \
            else {k: x for k, x in vars(v).items() if isinstance(k, str)}
        if how == "op":  # an Op's attrs are a read-only mapping
            state["attrs"] = dict(state.get("attrs") or {})
        return {"$v": [_type_name(kind), self.value(state, depth + 1)]}


def _state_names(kind: type) -> list[str] | None:
    """A class's slots (over its whole ancestry), or None if its objects have a dict."""
    names: list[str] = []
    for c in kind.__mro__:
        if c is object:
            continue
        if "__slots__" not in vars(c):
            return None
        slots = vars(c)["__slots__"]
        names += [n for n in ((slots,) if isinstance(slots, str) else slots)
                  if n not in ("__weakref__", "__dict__")]
    return names


#: Library classes sent by value (their state), both ways: arrays and the IR's values.
#: "by-name": a label of which each value is one object of its module (a dtype).
_VALUE_CLASSES = {
    "stridegrad.array._core.StridedArray": "state",
    "stridegrad.array._dtypes.DType": "by-name",
    "array_api_strict._array_object.Array": "state",
    "array_api_strict._dtypes.DType": "state",
    "array_api_strict._devices.Device": "state",
    "stridegrad.compile.graph.Op": "op",
    "stridegrad.compile.graph.Graph": "state",
}
_BUILTIN_TYPES = {t.__name__: t for t in (bool, int, float, complex, str, bytes, list,
                                          tuple, dict, set, frozenset, type(None))}


def _value_class(dotted: Any) -> type:
    import importlib
    if dotted not in _VALUE_CLASSES:
        raise ProtocolError(f"no value class {str(dotted)[:80]!r}")
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _rebuild(dotted: Any, state: Any) -> Any:
    """A library object from its state, as :meth:`_Encoder.copy_of` sent it."""
    kind = _value_class(dotted)
    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise ProtocolError("a malformed state")
    if _VALUE_CLASSES[dotted] == "op":
        try:
            return kind(state.get("name"), state.get("op"), state.get("args") or (),
                        state.get("attrs") or {})
        except (TypeError, ValueError) as exc:
            raise ProtocolError(f"an Op that cannot be: {exc}") from None
    obj = object.__new__(kind)  # as copy does: no __init__, no __new__ of its own
    names = _state_names(kind)
    for k, x in state.items():
        if (names is not None and k not in names) or k.startswith("__"):
            raise ProtocolError(f"no attribute {k[:40]!r} in a {kind.__name__}")
        object.__setattr__(obj, k, x)
    return obj


def _is_ndarray(v: Any) -> bool:
    return type(v).__name__ == "ndarray" and type(v).__module__ == "numpy"


def _is_np_dtype(v: Any) -> bool:
    import sys
    np = sys.modules.get("numpy")
    return np is not None and isinstance(v, np.dtype) and v.names is None and \
        not v.hasobject and v.subdtype is None


def _is_np_scalar(v: Any) -> bool:
    import sys
    np = sys.modules.get("numpy")
    return np is not None and isinstance(v, np.generic) and type(v).__module__ == "numpy"


def _by_name(v: Any) -> str | None:
    """``operator.add``, ``math.exp``, ``abs``: a builtin function of a plain-data module,
    sent by its name (the worker has the same one)."""
    if type(v).__name__ != "builtin_function_or_method":
        return None
    module = getattr(v, "__module__", None) or ""
    module = module.lstrip("_") if module in ("_operator",) else module
    if module in _BY_NAME_MODULES and getattr(v, "__self__", None) in (None, _module(module)):
        name = getattr(v, "__name__", "")
        if getattr(_module(module), name, None) is v:
            return f"{module}.{name}"
    return None


_ModuleType = type(math)


def _importable(module) -> bool:
    """Whether a module is one the other side can import by its name: a real module
    (in ``sys.modules`` under its name), not the course's checkpoints or solutions."""
    import sys
    name = getattr(module, "__name__", None)
    return (isinstance(name, str) and sys.modules.get(name) is module
            and not name.startswith(_SECRET_MODULES))


def _secret_module(module) -> bool:
    """A module of the judge's that no handle may lead to: one of the course's secrets,
    or any module imported under its name (those are sent by name, never as handles)."""
    import sys
    name = getattr(module, "__name__", "")
    return not isinstance(name, str) or name.startswith(_SECRET_MODULES) or name in sys.modules


#: Modules never named to the other side (the judge's tests and answers).
_SECRET_MODULES = ("stridegrad.course.checkpoints", "stridegrad.course.solutions",
                   "stridegrad.course.misconceptions", "stridegrad.course._judge")


def _module(name: str):
    import importlib
    return importlib.import_module(name)


def _unsafe(v: Any) -> bool:
    """What never becomes a handle: a module, a frame, code, a traceback."""
    import types
    return isinstance(v, (types.ModuleType, types.FrameType, types.CodeType,
                          types.TracebackType))


class _Decoder:
    def __init__(self, codec: Codec, inputs: list | None, record: list | None):
        self.codec, self.inputs = codec, inputs
        self.record = record if record is not None else []
        self.count = 0

    def run(self, data: Any) -> Any:
        return self.value(data, 0)

    def slot(self, obj: Any) -> int:
        self.record.append(obj)
        return len(self.record) - 1

    def value(self, d: Any, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_ITEMS or depth > MAX_DEPTH:
            raise ProtocolError("a value too big or nested too deep")
        kind = type(d)
        if kind in _PLAIN:
            return d
        if kind is list:
            out: list = []
            self.slot(out)
            out.extend(self.value(x, depth + 1) for x in d)
            return out
        if kind is not dict or len(d) < 1:
            raise ProtocolError(f"not a value: {str(d)[:80]}")
        tag = next(iter(d))
        body = d[tag]
        if tag == "$f":
            return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[_one_of(
                body, ("nan", "inf", "-inf"))]
        if tag == "$b":
            return _b64(body)
        if tag == "$c":
            re_, im = (self.value(x, depth + 1) for x in _list(body, 2))
            return complex(_number(re_), _number(im))
        if tag == "$e":
            return Ellipsis
        if tag == "$sl":
            return slice(*(self.value(x, depth + 1) for x in _list(body, 3)))
        if tag == "$t":
            index = self.slot(None)
            t = tuple(self.value(x, depth + 1) for x in _list(body))
            self.record[index] = t
            return t
        if tag == "$d":
            out_d: dict = {}
            self.slot(out_d)
            for pair in _list(body):
                k, v = (self.value(x, depth + 1) for x in _list(pair, 2))
                try:
                    out_d[k] = v
                except TypeError:
                    raise ProtocolError("a dict key that cannot be hashed") from None
            return out_d
        if tag in ("$s", "$fs"):
            index = self.slot(None)
            try:
                s = (set if tag == "$s" else frozenset)(
                    self.value(x, depth + 1) for x in _list(body))
            except TypeError:
                raise ProtocolError("a set item that cannot be hashed") from None
            self.record[index] = s
            return s
        if tag == "$ba":
            b = bytearray(_b64(body))
            self.slot(b)
            return b
        if tag == "$nd":
            array = _array(body)
            self.slot(array)
            return array
        if tag == "$ns":
            return _np_scalar(body)
        if tag == "$r":
            if type(body) is not int or not 0 <= body < len(self.record) \
                    or self.record[body] is None:
                raise ProtocolError("a reference to nothing")
            return self.record[body]
        if tag == "$in":
            if self.inputs is None or type(body) is not int or not 0 <= body < len(self.inputs):
                raise ProtocolError("a reference to no argument")
            return self.inputs[body]
        if tag == "$fn":
            return _named_function(body)
        if tag == "$mod":
            return _named_module(body)
        if tag == "$v":
            dotted, state = _list(body, 2)
            index = self.slot(None)
            obj = _rebuild(dotted, self.value(state, depth + 1))
            self.record[index] = obj
            return obj
        if tag == "$named":
            dotted, name = _list(body, 2)
            kind = _value_class(dotted)
            found = getattr(importlib.import_module(kind.__module__), str(name), None)
            if type(found) is not kind:
                raise ProtocolError(f"no {kind.__name__} named {str(name)[:40]!r}")
            return found
        if tag == "$dt":
            return _dtype(body)
        if tag == "$ty":
            if body not in _BUILTIN_TYPES:
                raise ProtocolError("a malformed type")
            return _BUILTIN_TYPES[body]
        if tag == self.codec.side:
            return self.codec.local(body)
        if tag in ("$w", "$h"):
            return self.remote(tag, body, d)
        raise ProtocolError(f"an unknown tag {tag[:20]!r}")

    def remote(self, tag: str, number: Any, info: dict) -> Any:
        if type(number) is not int:
            raise ProtocolError("a handle that is not a number")
        key = (tag, number)
        proxy = self.codec.proxies.get(key)
        if proxy is None:
            if tag == "$w":
                proxy = _remote_class(info)(self.codec, tag, number, info)
            else:
                proxy = HostProxy(self.codec, number, info)
            self.codec.proxies[key] = proxy
        return proxy


def _one_of(value, allowed):
    if value not in allowed:
        raise ProtocolError(f"not one of {allowed}")
    return value


def _list(value, n: int | None = None) -> list:
    if type(value) is not list or (n is not None and len(value) != n):
        raise ProtocolError("a malformed value")
    return value


def _number(x):
    if type(x) not in (int, float):
        raise ProtocolError("not a number")
    return x


def _b64(text) -> bytes:
    if type(text) is not str:
        raise ProtocolError("bytes that are not base64 text")
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        raise ProtocolError("bytes that are not base64") from None


def _dtype(text):
    import numpy as np
    if type(text) is not str or len(text) > 16:
        raise ProtocolError("a malformed dtype")
    try:
        dtype = np.dtype(text)
    except TypeError:
        raise ProtocolError(f"no dtype {text!r}") from None
    if dtype.hasobject or dtype.names is not None or dtype.subdtype is not None:
        raise ProtocolError(f"the dtype {text!r} is not plain data")
    return dtype


def _array(body):
    import numpy as np
    dtype_text, shape, data = _list(body, 3)
    dtype = _dtype(dtype_text)
    shape = tuple(_list(shape))
    if len(shape) > 64 or any(type(n) is not int or n < 0 for n in shape):
        raise ProtocolError("a malformed shape")
    raw = _b64(data)
    if math.prod(shape) * dtype.itemsize != len(raw):
        raise ProtocolError("an array whose bytes do not fit its shape")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def _np_scalar(body):
    import numpy as np
    dtype_text, data = _list(body, 2)
    dtype = _dtype(dtype_text)
    raw = _b64(data)
    if len(raw) != dtype.itemsize:
        raise ProtocolError("a scalar whose bytes do not fit its dtype")
    return np.frombuffer(raw, dtype=dtype)[0]


def _named_module(text):
    """A module named by the other side: the worker imports it (its own business); the
    judge only takes one it has already imported, else a stand-in that shows the name."""
    import importlib
    import sys
    if type(text) is not str or len(text) > 200 or text.startswith(_SECRET_MODULES):
        raise ProtocolError("a malformed module name")
    found = sys.modules.get(text)
    if found is not None:
        return found
    if _JUDGE_SIDE[0]:
        return _ModuleName(text)
    try:
        return importlib.import_module(text)
    except Exception:
        return _ModuleName(text)


class _ModuleName:
    """A module the worker named that the judge has not imported: shown by its name."""

    def __init__(self, name: str):
        self.__name__ = name

    def __repr__(self):
        return f"<module {self.__name__!r}>"


_JUDGE_SIDE = [False]  # set by the judge's channel: never import on the worker's word


def _named_function(text):
    if type(text) is not str or text.count(".") != 1:
        raise ProtocolError("a malformed function name")
    module, name = text.split(".")
    if module not in _BY_NAME_MODULES or name.startswith("_"):
        raise ProtocolError(f"no function {text!r} may be sent by name")
    fn = getattr(_module(module), name, None)
    if type(fn).__name__ != "builtin_function_or_method":
        raise ProtocolError(f"no function {text!r}")
    return fn


# --------------------------------------------------------------------------- exceptions

#: Exceptions the other side may raise by name (anything else: its nearest base of these).
_EXCEPTIONS = {e.__name__: e for e in (
    ArithmeticError, AssertionError, AttributeError, BufferError, EOFError, FloatingPointError,
    ImportError, IndexError, KeyError, LookupError, MemoryError, ModuleNotFoundError,
    NameError, NotImplementedError, OSError, OverflowError, RecursionError, ReferenceError,
    RuntimeError, StopIteration, SyntaxError, TypeError, UnboundLocalError,
    UnicodeDecodeError, UnicodeEncodeError, UnicodeError, ValueError, ZeroDivisionError,
    Exception)}
_RAISED_CLASSES: dict[tuple, type] = {}


def describe_exception(exc: BaseException) -> dict:
    """An exception as plain data: its type's name and module, the builtin exceptions
    it derives from, its message, and the function it came from."""
    kind = type(exc)
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    try:
        message = str(exc)
    except Exception:
        message = "(a message that cannot be shown)"
    return {"name": str(kind.__name__)[:100], "module": str(kind.__module__)[:100],
            "bases": [c.__name__ for c in kind.__mro__ if c.__name__ in _EXCEPTIONS
                      and _EXCEPTIONS[c.__name__] is c][:6],
            "message": message[:4000],
            "raiser": tb.tb_frame.f_code.co_name[:100] if tb is not None else ""}


def rebuild_exception(info: Any) -> Exception:
    """The other side's exception as one of this side's: a class of the same name and
    module, deriving from the same builtin exceptions, whose ``str`` is the message.
    Never a BaseException that stops the caller (SystemExit, KeyboardInterrupt)."""
    if not isinstance(info, dict):
        raise ProtocolError("a malformed exception")
    name = info.get("name") if isinstance(info.get("name"), str) else "Exception"
    name = "".join(ch for ch in name if ch.isalnum() or ch == "_")[:100] or "Exception"
    module = info.get("module") if isinstance(info.get("module"), str) else "builtins"
    bases = tuple(dict.fromkeys(_EXCEPTIONS[b] for b in info.get("bases") or ()
                                if isinstance(b, str) and b in _EXCEPTIONS)) or (Exception,)
    bases = tuple(b for b in bases if not any(o is not b and issubclass(o, b) for o in bases))
    message = info.get("message") if isinstance(info.get("message"), str) else ""
    key = (name, module, bases)
    kind = _RAISED_CLASSES.get(key)
    if kind is None:
        try:
            kind = type(name, bases, {"__str__": lambda self: self.args[0] if self.args else "",
                                      "__module__": module[:100]})
        except TypeError:  # bases whose layouts clash
            kind = type(name, (bases[0],), {"__str__": lambda self: self.args[0]
                                            if self.args else "", "__module__": module[:100]})
        _RAISED_CLASSES[key] = kind
    exc = kind.__new__(kind)
    exc.args = (message,)
    exc.raiser = info.get("raiser") if isinstance(info.get("raiser"), str) else ""
    return exc


# --------------------------------------------------------------------------- handles

_REMOTE_CLASSES: dict[str, type] = {}
_SHADOWS: dict[tuple, type] = {}


def _library_class(dotted: str) -> type | None:
    """The judge's own class ``module.Qualname`` if it is one of the library's (never the
    course's checkpoints, solutions or misconceptions)."""
    import importlib
    import sys
    module, _, qualname = dotted.rpartition(".")
    if not module.startswith("stridegrad.") or module.startswith((
            "stridegrad.course.checkpoints", "stridegrad.course.solutions",
            "stridegrad.course.misconceptions")) or "<" in qualname:
        return None
    try:
        obj = sys.modules.get(module) or importlib.import_module(module)
    except Exception:
        return None
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) else None


def _remote_class(info: dict) -> type:
    """A Remote subclass named as the worker's type, so that ``type(x).__name__`` reads
    as it would in the notebook."""
    dotted = info.get("t") if isinstance(info.get("t"), str) else "object"
    kind = _REMOTE_CLASSES.get(dotted)
    if kind is None:
        name = "".join(ch for ch in dotted.rpartition(".")[2] if ch.isalnum() or ch == "_")
        kind = type(name or "object", (Remote,), {"__slots__": ()})
        _REMOTE_CLASSES[dotted] = kind
    return kind


def _shadow(info: dict) -> type | None:
    """What ``isinstance`` sees of a Remote: the first library class of its worker type's
    ancestry (a learner's subclass of Module is a Module), itself for a library type."""
    mro = info.get("m")
    if not isinstance(mro, list) or not mro:
        return None
    for dotted in mro:
        if isinstance(dotted, str):
            cls = _library_class(dotted)
            if cls is not None:
                return cls
    return None


class Remote:
    """The judge's stand-in for one of the worker's objects (see the module's text)."""

    __slots__ = ("_codec", "_tag", "_number", "_info", "__weakref__")

    def __init__(self, codec, tag: str, number: int, info: dict):
        object.__setattr__(self, "_codec", codec)
        object.__setattr__(self, "_tag", tag)
        object.__setattr__(self, "_number", number)
        object.__setattr__(self, "_info", {k: info.get(k) for k in ("t", "c", "n", "m", "k")})

    def _ask(self, op: str, **fields) -> Any:
        return self._codec.channel.request(op, target=self._number, **fields)

    # what the judge knows without asking
    @property
    def __name__(self):  # noqa: PLW3201 - a function's or class's name, as inspect reads it
        name = self._info.get("n")
        if not isinstance(name, str):
            raise AttributeError("__name__")
        return name

    @property
    def __class__(self):  # noqa: PLW3201 - isinstance() reads it
        if self._info.get("k"):
            return type  # a class of the notebook's
        return _shadow(self._info) or type(self)

    @property
    def __dict__(self):  # noqa: PLW3201 - vars() reads it
        found = self._ask("vars")
        if not isinstance(found, dict):
            raise TypeError("vars() argument must have __dict__ attribute")
        return found

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._ask("getattr", name=name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._ask("setattr", name=name, value=value)

    def __call__(self, *args, **kwargs):
        return self._codec.channel.call(self._number, args, kwargs)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __hash__(self):
        return hash((self._tag, self._number))

    def __repr__(self):
        if isinstance(self._info.get("n"), str):
            return self._info["n"]
        text = self._ask("repr")
        return text if isinstance(text, str) else f"<{type(self).__name__}>"

    def __str__(self):
        text = self._ask("dunder", name="__str__", args=[])
        return text if isinstance(text, str) else repr(self)

    def __iter__(self):
        items = self._ask("list")
        if not isinstance(items, list):
            raise TypeError(f"'{type(self).__name__}' object is not iterable")
        return iter(items)

    def __bool__(self):
        got = self._ask("dunder", name="__bool__", args=[])
        if type(got) is not bool:
            raise TypeError("__bool__ should return bool")
        return got

    def __len__(self):
        got = self._ask("dunder", name="__len__", args=[])
        if type(got) is not int or got < 0:
            raise TypeError("__len__ should return a non-negative int")
        return got

    def __float__(self):
        got = self._ask("dunder", name="__float__", args=[])
        if type(got) is not float:
            raise TypeError("__float__ returned non-float")
        return got

    def __int__(self):
        got = self._ask("dunder", name="__int__", args=[])
        if type(got) is not int:
            raise TypeError("__int__ returned non-int")
        return got

    def __index__(self):
        got = self._ask("dunder", name="__index__", args=[])
        if type(got) is not int:
            raise TypeError("__index__ returned non-int")
        return got


def _forward(name: str):
    def method(self, *args):
        return self._ask("dunder", name=name, args=list(args))
    method.__name__ = name
    return method


for _name in sorted(OPERATORS - {"__bool__", "__len__", "__float__", "__int__", "__index__",
                                 "__iter__", "__call__", "__hash__", "__str__", "__next__",
                                 "__array_namespace__", "__enter__", "__exit__"}):
    setattr(Remote, _name, _forward(_name))


class HostProxy:
    """The worker's stand-in for one of the judge's objects: its use is asked of the
    judge, during the call that handed it over."""

    __slots__ = ("_codec", "_number", "_info", "__weakref__")

    def __init__(self, codec, number: int, info: dict):
        object.__setattr__(self, "_codec", codec)
        object.__setattr__(self, "_number", number)
        object.__setattr__(self, "_info", {k: info.get(k) for k in ("t", "c", "n")})

    def _ask(self, op: str, **fields):
        return object.__getattribute__(self, "_codec").channel.callback(
            op, target=object.__getattribute__(self, "_number"), **fields)

    def __getattr__(self, name: str):
        if name.startswith("__") and name not in OPERATORS and name not in _NAMES:
            raise AttributeError(f"{name} of the grader's objects is not available")
        if name in OPERATORS:
            return lambda *args: self._ask("dunder", name=name, args=list(args))
        return self._ask("getattr", name=name)

    def __setattr__(self, name: str, value):
        self._ask("setattr", name=name, value=value)

    def __call__(self, *args, **kwargs):
        return self._ask("call", args=list(args), kwargs=kwargs)

    def __repr__(self):
        text = self._ask("repr")
        return text if isinstance(text, str) else "<object>"

    def __iter__(self):
        return iter(self._ask("list"))

    def __len__(self):
        return self._ask("dunder", name="__len__", args=[])

    def __bool__(self):
        return bool(self._ask("dunder", name="__bool__", args=[]))

    def __float__(self):
        return self._ask("dunder", name="__float__", args=[])

    def __int__(self):
        return self._ask("dunder", name="__int__", args=[])

    def __index__(self):
        return self._ask("dunder", name="__index__", args=[])

    def __array_namespace__(self, *args):
        return self._ask("dunder", name="__array_namespace__", args=list(args))


for _name in sorted(OPERATORS - {"__bool__", "__len__", "__float__", "__int__", "__index__",
                                 "__iter__", "__call__", "__hash__", "__str__",
                                 "__array_namespace__"}):
    setattr(HostProxy, _name, _forward(_name))


def serve(codec: Codec, message: dict, *, on_host: bool) -> dict:
    """Answer one request about this side's objects (``getattr``, ``setattr``, ``call``,
    ``dunder``, ``list``, ``repr``, ``vars``): the reply's fields. On the judge's side
    (``on_host``) only names without two leading underscores and :data:`OPERATORS` are
    reachable."""
    op = message.get("op")
    target = codec.local(message.get("target"))
    name = message.get("name")
    if name is not None and (type(name) is not str or len(name) > 200):
        raise ProtocolError("a malformed name")
    if op == "getattr":
        if on_host and name in _NAMES:  # a function's, class's or module's name
            found = getattr(target, name, None)
            if isinstance(found, str):
                return {"value": found[:REPR_CHARS]}
        if on_host and name.startswith("__"):
            raise AttributeError(f"{name} of the grader's objects is not available")
        return {"value": codec.encode(getattr(target, name))}
    if op == "setattr":
        if name.startswith("__"):
            raise AttributeError(f"{name} cannot be set")
        setattr(target, name, codec.decode(message.get("value")))
        return {"value": None}
    if op == "dunder":
        if name not in OPERATORS:
            raise AttributeError(f"{name} is not available")
        args = codec.decode(message.get("args") or [])
        if name == "__bool__":
            return {"value": bool(target)}
        if name == "__len__":
            return {"value": len(target)}
        if name == "__str__":
            return {"value": str(target)[:REPR_CHARS * 10]}
        method = getattr(type(target), name, None)
        if method is None:
            raise TypeError(f"'{type(target).__name__}' object does not support {name}")
        return {"value": codec.encode(method(target, *args))}
    if op == "call":
        args = codec.decode(message.get("args") or [])
        kwargs = codec.decode(message.get("kwargs") or {"$d": []})
        if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
            raise ProtocolError("malformed keyword arguments")
        return {"value": codec.encode(target(*args, **kwargs))}
    if op == "list":
        items = []
        for item in target:
            items.append(item)
            if len(items) > 100_000:
                raise ValueError("more than 100,000 items")
        return {"value": codec.encode(items)}
    if op == "repr":
        return {"value": repr(target)[:REPR_CHARS]}
    if op == "vars":
        found = vars(target)
        return {"value": codec.encode({k: v for k, v in found.items() if isinstance(k, str)
                                       and not (on_host and k.startswith("__"))})}
    raise ProtocolError(f"no request {str(op)[:40]!r}")


# --------------------------------------------------------------------------- channels

class _Unreadable:
    """What the judge got for a value the worker could not send (nested too deep...)."""

    def __init__(self, why: str):
        self.why = why

    def __repr__(self):
        return f"a value the grader cannot read ({self.why})"


def _write_back(host: Any, new: Any, depth: int = 0, memo: dict | None = None) -> None:
    """Make the judge's argument ``host`` what the worker's copy became (``new``), in
    place, keeping the identity of the containers inside it. ``memo`` maps each worker
    value already written back (by id) to the judge's object it became: a value the
    call put in two places (a state dict that now holds the call's own ``grad``)
    becomes one judge object in both, as it is one object in the worker."""
    memo = {} if memo is None else memo
    if depth > MAX_DEPTH:
        return
    memo[id(new)] = host
    if type(host) is list and type(new) is list:
        items = [_kept(h, n, depth, memo) for h, n in zip(host, new)] + [
            memo.get(id(n), n) for n in new[len(host):]]
        if len(items) != len(host) or any(a is not b for a, b in zip(items, host)):
            host[:] = items
    elif type(host) is dict and type(new) is dict:
        items = {k: _kept(host[k], v, depth, memo) if k in host else memo.get(id(v), v)
                 for k, v in new.items()}
        if items.keys() != host.keys() or any(items[k] is not host[k] for k in items):
            host.clear()
            host.update(items)
    elif type(host) is tuple and type(new) is tuple:
        for h, n in zip(host, new):
            _write_back(h, n, depth + 1, memo)
    elif type(host) is set and type(new) is set:
        if host != new:
            host.clear()
            host.update(new)
    elif type(host) is bytearray and type(new) is bytearray:
        host[:] = new
    elif _is_ndarray(host) and _is_ndarray(new):
        if host.shape == new.shape and host.dtype == new.dtype and host.flags.writeable:
            host[...] = new


def _kept(host: Any, new: Any, depth: int, memo: dict) -> Any:
    if id(new) in memo:  # a worker value written back already: that judge object
        return memo[id(new)]
    if type(host) is type(new) and (type(host) in _CONTAINERS or _is_ndarray(host)):
        _write_back(host, new, depth + 1, memo)
        return host
    return new


class JudgeChannel:
    """The judge's end: requests to the worker, answers to its callbacks."""

    def __init__(self, read_fd: int, write_fd: int, *, limits=None, grace: float = 3.0,
                 default_timeout: float = 10.0, on_gone=None):
        _JUDGE_SIDE[0] = True
        self.reader = LineReader(read_fd)
        self.write_fd = write_fd
        self.codec = Codec("$h")
        self.codec.channel = self
        self.limits, self.grace, self.default_timeout = limits, grace, default_timeout
        self.on_gone = on_gone  # called once when the worker has to be stopped
        self.next_id = 0
        self.pending: int | None = None  # a request whose answer did not come in time
        self.closed: str | None = None

    def read(self, deadline: float | None) -> dict:
        return read_message(self.reader, deadline, limits=self.limits)

    def close(self, why: str) -> None:
        self.pending = None  # no answer is waited for once the channel is closed
        if self.closed is None:
            self.closed = why
            if self.on_gone is not None:
                self.on_gone()

    def _timeout(self) -> float:
        import signal
        left = signal.getitimer(signal.ITIMER_REAL)[0] if hasattr(signal, "getitimer") else 0
        return left if left > 0 else self.default_timeout

    def _drain(self, why: str = "the notebook's process stopped answering") -> None:
        """Wait for the answer of a request that ran past its time (the worker stops it
        at its own alarm), or stop the worker (``why`` is then the channel's reason)."""
        deadline = time.monotonic() + self.grace
        try:
            while True:
                msg = self.read(deadline)
                if "cb" in msg:
                    write_message(self.write_fd, {"cbre": msg.get("cb"), "abort": True})
                elif msg.get("re") == self.pending:
                    self.pending = None
                    return
        except (TimeoutError, ChannelClosed, ProtocolError, OSError) as exc:
            self.close(f"{why} ({exc})")

    def request(self, op: str, **fields) -> Any:
        return self._send({"op": op, **{k: self.codec.encode(v) if k in ("value", "args")
                                        else v for k, v in fields.items()}})

    def call(self, number: int, args: tuple, kwargs: dict, *,
             observation: str | None = None) -> Any:
        """Call the worker's object ``number`` (or run the named observation of it)."""
        encoder = _Encoder(self.codec, None)
        sent_args = encoder.run(list(args))
        sent_kwargs = encoder.run(dict(kwargs))
        inputs = encoder.keep
        message = {"op": "call", "target": number, "args": sent_args, "kwargs": sent_kwargs}
        if observation:
            message.update(op="observe", name=observation)
        return self._send(message, inputs=inputs, host_args=(args, kwargs))

    def _send(self, message: dict, *, inputs: list | None = None, host_args=None) -> Any:
        from stridegrad.course.checks import _TestTimeout

        if self.pending is not None:  # close() clears it: nothing to wait for then
            self._drain()
        if self.closed:
            raise ChannelClosed(self.closed)
        timeout = self._timeout()
        self.next_id += 1
        ident = message["id"] = self.next_id
        message["timeout"] = round(timeout, 3)
        message["gc"] = gc.isenabled()  # the tests' collector state holds in the worker too
        try:
            write_message(self.write_fd, message)
        except OSError as exc:
            self.close(f"the notebook's process is gone ({exc})")
            raise ChannelClosed(self.closed) from None
        deadline = time.monotonic() + timeout + self.grace
        self.pending = ident
        while True:
            try:
                msg = self.read(deadline)
            except _TestTimeout:
                # the test's own alarm, as the worker's goes off: its "timeout" answer is
                # waited for here (up to the grace), so that a worker that ignores its
                # alarm is stopped now, not one test limit per test after it
                self._drain(f"the notebook's process went on past its {timeout:.3g} s limit "
                            "and was stopped")
                raise
            except TimeoutError:
                self.close(f"the notebook's process did not answer within {timeout:g} s "
                           "and was stopped")
                raise _TestTimeout() from None
            except (ChannelClosed, OSError) as exc:
                self.close(f"the notebook's process ended ({exc})")
                raise ChannelClosed(self.closed) from None
            except ProtocolError as exc:
                self.close(f"the notebook's process sent what the grader does not read ({exc})")
                raise ChannelClosed(self.closed) from None
            if "cb" in msg:
                self._answer(msg)
                continue
            if msg.get("re") != ident:
                continue  # the late answer of a request given up on
            self.pending = None
            return self._reply(msg, inputs, host_args)

    def _answer(self, msg: dict) -> None:
        try:
            reply = serve(self.codec, msg, on_host=True)
        except (KeyboardInterrupt, SystemExit):
            raise
        except ProtocolError as exc:
            reply = {"raised": describe_exception(ValueError(str(exc)))}
        except Exception as exc:
            reply = {"raised": describe_exception(exc)}
        try:
            write_message(self.write_fd, {"cbre": msg.get("cb"), **reply})
        except (OSError, ValueError) as exc:
            try:
                write_message(self.write_fd, {"cbre": msg.get("cb"), "raised": describe_exception(
                    ValueError(f"the grader cannot send this value ({exc})"))})
            except OSError:
                self.close("the notebook's process is gone")

    def _reply(self, msg: dict, inputs: list | None, host_args) -> Any:
        from stridegrad.course.checks import _TestTimeout

        if msg.get("timeout"):
            raise _TestTimeout()
        if "raised" in msg:
            raise rebuild_exception(msg["raised"])
        if "unreadable" in msg:
            return _Unreadable(str(msg["unreadable"])[:200])
        try:
            value = self.codec.decode(msg.get("value"), inputs=inputs)
            if host_args is not None and "after" in msg:
                after = self.codec.decode(msg["after"], inputs=None)
                if type(after) is list and len(after) == 2:
                    memo: dict = {}
                    _write_back(list(host_args[0]), after[0], memo=memo)
                    _write_back(host_args[1], after[1], memo=memo)
        except ProtocolError as exc:
            return _Unreadable(str(exc)[:200])
        return value


def freed_when_dropped(box: list) -> bool | None:
    """Whether the one object in ``box`` dies as soon as it is taken out of it (the
    caller holds no other reference): no reference cycle keeps it. For a Remote, asked
    of the worker, whose object it is. None when it cannot be weakly referenced."""
    import weakref
    obj = box.pop()
    if isinstance(obj, Remote):
        return dropped(obj)
    try:
        alive = weakref.ref(obj)
    except TypeError:
        return None
    del obj
    return alive() is None


def dropped(remote: Remote) -> bool | None:
    """Drop the worker's last reference to a Remote's object (the judge's handle):
    whether the object died at once (None if it cannot be weakly referenced)."""
    codec = remote._codec
    codec.proxies.pop((remote._tag, remote._number), None)
    return codec.channel.request("drop", target=remote._number)


class _CallTimeout(BaseException):
    """The worker's per-call alarm."""


class _Aborted(BaseException):
    """The judge gave up on the call this callback belongs to."""


class WorkerChannel:
    """The worker's end: answers the judge's requests, asks it about its objects."""

    def __init__(self, read_fd: int, write_fd: int):
        self.reader = LineReader(read_fd)
        self.write_fd = write_fd
        self.codec = Codec("$w")
        self.codec.channel = self
        self.next_cb = 0

    def send(self, payload: dict) -> None:
        write_message(self.write_fd, payload)

    def _drop(self, number) -> bool | None:
        self.codec.local(number)  # a handle it gave
        box = [self.codec.objects.pop(number)]
        self.codec.numbers.pop(id(box[0]), None)
        return freed_when_dropped(box)

    def callback(self, op: str, **fields) -> Any:
        self.next_cb += 1
        ident = self.next_cb
        fields = {k: self.codec.encode(v) if k in ("value", "args", "kwargs") else v
                  for k, v in fields.items()}
        self.send({"cb": ident, "op": op, **fields})
        while True:
            msg = read_message(self.reader)
            if msg.get("cbre") == ident:
                break
        if msg.get("abort"):
            raise _Aborted()
        if "raised" in msg:
            raise rebuild_exception(msg["raised"])
        return self.codec.decode(msg.get("value"))

    def serve_forever(self, namespace: dict) -> None:
        import signal

        def on_alarm(signum, frame):
            raise _CallTimeout()

        while True:
            try:
                msg = read_message(self.reader)
            except ChannelClosed:
                return
            if "cbre" in msg:
                continue  # the answer to a callback of a call that was stopped
            if msg.get("op") == "done":
                return
            ident = msg.get("id")
            timeout = msg.get("timeout")
            if type(msg.get("gc")) is bool and msg["gc"] != gc.isenabled():
                (gc.enable if msg["gc"] else gc.disable)()
            reply: dict
            try:
                signal.signal(signal.SIGALRM, on_alarm)
                if type(timeout) in (int, float) and timeout > 0:
                    signal.setitimer(signal.ITIMER_REAL, float(timeout))
                try:
                    reply = self._serve(msg)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            except _CallTimeout:
                reply = {"timeout": True}
            except _Aborted:
                reply = {"timeout": True}
            except BaseException as exc:  # the learner's code raised (SystemExit too)
                reply = {"raised": describe_exception(exc)}
            try:
                self.send({"re": ident, **reply})
            except (TypeError, ValueError) as exc:
                self.send({"re": ident, "unreadable": str(exc)[:200]})

    def _serve(self, msg: dict) -> dict:
        if msg.get("op") == "drop":
            return {"value": self._drop(msg.get("target"))}
        if msg.get("op") not in ("call", "observe"):
            try:
                return serve(self.codec, msg, on_host=False)
            except ValueError as exc:
                if isinstance(exc, ProtocolError):
                    raise
                return {"unreadable": str(exc)[:200]}
        target = self.codec.local(msg.get("target"))
        record: list = []
        args = self.codec.decode(msg.get("args") or [], record=record)
        kwargs = self.codec.decode(msg.get("kwargs") or {"$d": []}, record=record)
        if type(args) is not list or type(kwargs) is not dict:
            raise ProtocolError("malformed arguments")
        if msg.get("op") == "observe":  # an observation of the function, run here
            value = observation(msg.get("name"))(target, *args, **kwargs)
        else:
            value = target(*args, **kwargs)
        inputs = {id(obj): k for k, obj in enumerate(record) if obj is not None}
        try:
            reply = {"value": self.codec.encode(value, inputs=inputs)}
        except ValueError as exc:
            return {"unreadable": str(exc)[:200]}
        after = self.codec.encode([args, kwargs])
        if json.dumps(after) != json.dumps([msg.get("args") or [],
                                            msg.get("kwargs") or {"$d": []}]):
            reply["after"] = after
        return reply


# --------------------------------------------------------------------------- observations
# Small observations that must run where the function lives (they reach into its
# globals): the judge asks the worker to run them on a handle (op "observe").

def _record_calls(fn, names, args, record=False):
    """Call ``fn(*args)`` and return the positional arguments of every call it makes
    to the functions ``names`` of its own namespace (restored afterwards). A
    NotImplementedError (a stub) passes through; so does any other error.
    ``record``: what ``fn`` returned too, under ``"result"``."""
    scope = inspect.unwrap(fn).__globals__
    calls = {name: [] for name in names}
    saved = {name: scope[name] for name in names if callable(scope.get(name))}

    def recorder(name, real):
        try:
            signature = inspect.signature(real)
        except (TypeError, ValueError):
            signature = None

        @functools.wraps(real)
        def record(*a, **k):
            try:  # keyword arguments in their positional place
                calls[name].append(tuple(signature.bind(*a, **k).arguments.values()))
            except (AttributeError, TypeError):
                calls[name].append(a)
            return real(*a, **k)
        return record

    try:
        for name, real in saved.items():
            scope[name] = recorder(name, real)
        result = fn(*args)
    finally:
        scope.update(saved)
    if record:
        calls["result"] = result
    return calls


def calls_while(fn, names, args, *, record: bool = False) -> dict:
    """:func:`_record_calls` of ``fn``, in the process that holds it: here for one of
    this process's functions, in the worker for the judge's :class:`Remote`."""
    if isinstance(fn, Remote):
        return fn._codec.channel.call(fn._number, (tuple(names), tuple(args)),
                                      {"record": bool(record)}, observation="calls_while")
    return _record_calls(fn, names, args, record)


#: The observations the worker runs on request, besides those of the lessons' modules
#: in :mod:`stridegrad.course.observe`.
OBSERVATIONS = {"calls_while": _record_calls}
_OBSERVE = "stridegrad.course.observe."


def observation(name: Any) -> Callable:
    """The observation the judge names: one of :data:`OBSERVATIONS`, or
    ``"stridegrad.course.observe.<module>:<function>"`` (public test code)."""
    if name in OBSERVATIONS:
        return OBSERVATIONS[name]
    if not isinstance(name, str) or not name.startswith(_OBSERVE) or name.count(":") != 1:
        raise ProtocolError(f"no observation {str(name)[:80]!r}")
    module, function = name.split(":")
    if not module[len(_OBSERVE):].isidentifier() or not function.isidentifier():
        raise ProtocolError(f"no observation {name[:80]!r}")
    found = getattr(importlib.import_module(module), function, None)
    if not callable(found):
        raise ProtocolError(f"no observation {name[:80]!r}")
    return found


def in_its_process(observe: Callable) -> Callable:
    """``observe(fn, ...)`` run where ``fn`` lives: here for a function of this process,
    in the notebook's process for the judge's :class:`Remote` (``observe`` is a function
    of a module of :mod:`stridegrad.course.observe`; what it returns must be plain data)."""
    name = f"{observe.__module__}:{observe.__name__}"
    if not name.startswith(_OBSERVE):
        raise ValueError(f"{name} is not in stridegrad.course.observe")

    @functools.wraps(observe)
    def run(fn, *args, **kwargs):
        if isinstance(fn, Remote):
            return fn._codec.channel.call(fn._number, args, kwargs, observation=name)
        return observe(fn, *args, **kwargs)
    return run
