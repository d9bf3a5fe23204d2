"""``compile(fn)``: trace on the first call, optimize, replay on later calls.

The cache is keyed by a *signature* of the call: each tensor argument's shape,
dtype, device and ``requires_grad``, plus whether grad mode is on. A new
signature traces again (a retrace). Each cached graph also carries *guards* on
the tensors the function captured (parameters): their shapes and dtypes, whether
their ``.grad`` was set, and their ``requires_grad``; a failed guard retraces
too. A function that cannot be captured runs eagerly, with one warning naming
the reason, for that signature from then on.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

from stridegrad.compile import passes as _passes
from stridegrad.compile import trace as _trace
from stridegrad.compile.ir import Graph
from stridegrad.tensor import Tensor, _wrap, is_grad_enabled

__all__ = ["CompileWarning", "CompiledFunction", "compile"]


class CompileWarning(UserWarning):
    """A compiled function fell back to eager mode (the message says why)."""


_EAGER = "eager"


def _reachable(fn: Callable) -> tuple[dict[int, str], list[Any]]:
    """Readable names for tensors ``fn`` can reach (module parameters, optimizer params and
    plain tensors in its closure, the globals it names, and ``self``), and the optimizers."""
    from stridegrad.nn import Module
    from stridegrad.optim import Optimizer

    found: list[tuple[str, Any]] = []
    target = inspect.unwrap(fn)
    if hasattr(target, "__self__"):
        found.append(("self", target.__self__))
        target = target.__func__
    code = getattr(target, "__code__", None)
    if code is not None:
        for name, cell in zip(code.co_freevars, target.__closure__ or ()):
            try:
                found.append((name, cell.cell_contents))
            except ValueError:  # an empty cell
                pass
        g = getattr(target, "__globals__", {})
        found += [(n, g[n]) for n in code.co_names if n in g]
    names: dict[int, str] = {}
    optimizers = []
    for name, obj in found:
        if isinstance(obj, Module):
            for pname, p in obj.named_parameters():
                names.setdefault(id(p), f"{name}.{pname}")
        elif isinstance(obj, Optimizer):
            optimizers.append(obj)
            for i, p in enumerate(obj.params):
                names.setdefault(id(p), f"{name}.p{i}")
        elif isinstance(obj, Tensor):
            names.setdefault(id(obj), name)
    return names, optimizers


@contextlib.contextmanager
def _optimizer_state(optimizers: list[Any]):
    """Undo what a trace did to optimizers' Python state; refuse state holding arrays.

    Momentum and Adam keep arrays in ``opt.state``, a plain dict the graph cannot
    see: a trace would store tracers there (and bake the old buffers in as
    constants), so such steps run eagerly.
    """
    saved = [(opt, opt.steps, {k: dict(v) for k, v in opt.state.items()})
             for opt in optimizers]
    try:
        yield
        for opt in optimizers:
            for st in opt.state.values():
                if any(isinstance(v, _trace.Tracer) for v in st.values()):
                    raise _trace.GraphBreak(
                        f"{type(opt).__name__} keeps arrays in its state (momentum or Adam "
                        "buffers), which the graph cannot carry between calls; compile the "
                        "forward and backward and call opt.step() outside")
    finally:
        for opt, steps, state in saved:
            opt.steps = steps
            opt.state.clear()
            opt.state.update(state)


class _Entry:
    """One cached compilation: the traced and optimized graphs and how to replay them."""

    def __init__(self, traced: Graph, graph: Graph, result: _trace.TraceResult) -> None:
        self.traced = traced
        self.graph = graph
        self.captured = result.captured
        self.spec = result.spec
        self.effects = result.effects
        self.sources = [n.attrs["source"] for n in graph.placeholders]
        self.checks = [(n.attrs["source"], n.shape, n.dtype) for n in graph.placeholders]
        self.guards = result.guards
        self.value_checks = result.value_checks
        self.n_returns = len(graph.outputs) - len(result.effects)

    def _obj(self, slot: tuple, args: list[Tensor]) -> Tensor:
        return args[slot[1]] if slot[0] == "arg" else self.captured[slot[1]]

    def guards_hold(self, args: list[Tensor]) -> bool:
        for slot, what, expected in self.guards:
            t = self._obj(slot, args)
            if what == "requires_grad" and t.requires_grad != expected:
                return False
            if what == "grad_is_none" and (t.grad is None) != expected:
                return False
        for (kind, i, field), shape, dtype in self.checks:
            t = args[i] if kind == "arg" else self.captured[i]
            a = t._data if field == "data" else t._grad._data
            if tuple(a.shape) != shape or a.dtype != dtype:
                return False
        return True

    def _array(self, source: tuple, args: list[Tensor]) -> Any:
        kind, i, field = source
        t = args[i] if kind == "arg" else self.captured[i]
        return t._data if field == "data" else t._grad._data

    def run(self, args: list[Tensor]) -> Any:
        for source, check in self.value_checks:  # e.g. labels in range: raise before any write
            check(self._array(source, args))
        inputs = [self._array(source, args) for source in self.sources]
        values = self.graph.run(inputs)
        for (slot, field, _), v in zip(self.effects, values[self.n_returns:]):
            t = self._obj(slot, args)
            if field == "data":
                t._data = v
            elif field == "grad_data":
                t._grad._data = v
            else:
                t._grad = None if v is None else _wrap(v, t._device, t._xp, None)
        return self._build(self.spec, values, args)

    def _build(self, spec: Any, values: list, args: list[Tensor]) -> Any:
        kind = spec[0]
        if kind == "out":
            ref = args[0] if args else (self.captured[0] if self.captured else None)
            device = ref._device if ref is not None else "cpu"
            return _wrap(values[spec[1]], device, self.graph.xp, None)
        if kind == "ext":
            return self._obj(spec[1], args)
        if kind == "lit":
            return spec[1]
        if kind is dict:
            return {k: self._build(s, values, args) for k, s in zip(spec[1], spec[2])}
        items = [self._build(s, values, args) for s in spec[1]]
        return kind(items) if kind in (list, tuple) else kind(*items)


class CompiledFunction:
    """``fn``, traced once per call signature and replayed as an optimized graph.

    Attributes for looking inside: ``traces`` (how many times it traced),
    ``fallbacks`` (signatures that run eagerly), ``cache_size`` (graphs kept),
    :meth:`graph` (the IR for given arguments).
    """

    def __init__(self, fn: Callable, passes: tuple | None = None, cache_limit: int = 8) -> None:
        if not callable(fn):
            raise TypeError(f"compile expects a callable, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.passes = _passes.DEFAULT_PASSES if passes is None else tuple(passes)
        self.cache_limit = cache_limit
        self.traces = 0
        self.fallbacks = 0
        self._cache: dict[tuple, Any] = {}
        self._reasons: dict[tuple, str] = {}
        try:
            self._sig = inspect.signature(fn)
        except (TypeError, ValueError):
            self._sig = None

    @property
    def cache_size(self) -> int:
        """Number of compiled graphs kept (eager fallbacks not counted)."""
        return sum(len(v) for v in self._cache.values() if v != _EAGER)

    def _name(self) -> str:
        return getattr(self.fn, "__qualname__", None) or repr(self.fn)

    def _flatten_args(self, args: tuple, kwargs: dict) -> tuple[list[Tensor], list[str]]:
        names: list[str] = []
        if self._sig is not None:
            try:
                bound = self._sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{self._name()}: {exc}") from None
            items = []
            for pname, value in bound.arguments.items():
                kind = self._sig.parameters[pname].kind
                if kind is inspect.Parameter.VAR_POSITIONAL:
                    items += [(f"{pname}[{i}]", v) for i, v in enumerate(value)]
                elif kind is inspect.Parameter.VAR_KEYWORD:
                    items += list(value.items())
                else:
                    items.append((pname, value))
        else:
            items = [(f"arg{i}", v) for i, v in enumerate(args)] + list(kwargs.items())
        flat = []
        for pname, value in items:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"{self._name()}: argument {pname!r} is a {type(value).__name__}, not a "
                    "Tensor; a compiled function takes Tensor arguments (bind other values "
                    "with functools.partial or a closure)"
                )
            flat.append(value)
            names.append(pname)
        if len({id(t) for t in flat}) != len(flat):
            raise ValueError(f"{self._name()}: the same tensor is passed twice; pass it once")
        return flat, names

    @staticmethod
    def _key(flat: list[Tensor], names: list[str]) -> tuple:
        return (is_grad_enabled(), tuple(names),
                tuple((t.shape, t.dtype.name, t.device, t.requires_grad) for t in flat))

    def _lookup(self, args: tuple, kwargs: dict, trace_only: bool = False):
        flat, names = self._flatten_args(args, kwargs)
        key = self._key(flat, names)
        entries = self._cache.get(key)
        if entries == _EAGER:
            return key, flat, _EAGER
        for e in entries or ():
            if e.guards_hold(flat):
                return key, flat, e
        if entries is not None and len(entries) >= self.cache_limit:
            self._fallback(key, f"more than {self.cache_limit} graphs for one signature "
                                "(captured tensors keep changing shape)")
            return key, flat, _EAGER
        tensor_names, optimizers = _reachable(self.fn)
        try:
            with _optimizer_state(optimizers):
                traced, result = _trace.trace(
                    self.fn, flat, names, tensor_names, call=lambda: self.fn(*args, **kwargs))
        except _trace.GraphBreak as gb:
            self._fallback(key, str(gb))
            return key, flat, _EAGER
        except Exception as exc:  # noqa: BLE001 - decided by running eagerly, see __call__
            return key, flat, exc
        finally:
            self.traces += 1
        entry = _Entry(traced, _passes.optimize(traced, self.passes), result)
        self._cache.setdefault(key, []).append(entry)
        return key, flat, entry

    def _fallback(self, key: tuple, reason: str, stacklevel: int = 4) -> None:
        self._cache[key] = _EAGER
        self._reasons[key] = reason
        self.fallbacks += 1
        warnings.warn(f"compile({self._name()}) runs eagerly: {reason}", CompileWarning,
                      stacklevel=stacklevel)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _trace.is_tracing():  # inside another compiled function's trace: inline
            return self.fn(*args, **kwargs)
        key, flat, entry = self._lookup(args, kwargs)
        if isinstance(entry, Exception):
            # the trace failed: eager mode either raises the same error (a bug in the
            # caller's code, which the caller should see as is) or works (something the
            # tracer does not handle, which becomes an eager fallback)
            out = self.fn(*args, **kwargs)
            self._fallback(key, f"could not trace ({type(entry).__name__}: {entry})", 3)
            return out
        if entry == _EAGER:
            return self.fn(*args, **kwargs)
        return entry.run(flat)

    def graph(self, *args: Any, optimized: bool = True, **kwargs: Any) -> Graph:
        """The IR for these arguments (traced now if not cached; nothing is run).

        ``optimized=False`` gives the graph as traced, before the passes.
        """
        key, _, entry = self._lookup(args, kwargs)
        if isinstance(entry, Exception):
            raise entry
        if entry == _EAGER:
            raise RuntimeError(
                f"{self._name()} is not captured for these arguments: {self._reasons[key]}")
        return entry.graph if optimized else entry.traced

    def explain(self) -> dict[str, str]:
        """For each signature that runs eagerly, why."""
        return {repr(k): v for k, v in self._reasons.items()}

    def __repr__(self) -> str:
        return (f"<compiled {self._name()}: traces={self.traces}, cache_size={self.cache_size}, "
                f"fallbacks={self.fallbacks}>")


def compile(fn: Callable | None = None, *, passes: tuple | None = None,
            cache_limit: int = 8) -> Any:
    """Compile ``fn`` (a function of Tensors): trace on first call, replay an optimized graph.

    Usable as ``compile(fn)``, ``@compile`` or ``@compile(passes=(...))``. ``passes``
    replaces :data:`~stridegrad.compile.passes.DEFAULT_PASSES` (``()`` replays the
    graph as traced).
    """
    if fn is None:
        return lambda f: CompiledFunction(f, passes=passes, cache_limit=cache_limit)
    return CompiledFunction(fn, passes=passes, cache_limit=cache_limit)
