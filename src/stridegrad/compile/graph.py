"""The IR the compiler's passes run on, and the passes themselves (lesson 11's exercises).

``sg.compile`` traces a function into :mod:`stridegrad.compile.ir` (nodes with shapes,
dtypes, literal arguments, a device), lowers that graph into this one
(:mod:`stridegrad.compile.lowering`), runs the passes of this module on it, and raises
the result back with one generated kernel per ``fused`` op; every compiled call is then
replayed by :func:`run_graph`. The IR is small, so that each pass fits in a screenful
and each test graph can be written by hand:

* an :class:`Op` is one value, ``name = op(arg, ..., key=value)``: ``name`` is a
  string, ``args`` are the names of earlier values, ``attrs`` are keyword
  arguments (numbers, strings, booleans, tuples). Ops are immutable: a pass
  makes new ones. Three ops are special:

  - ``input``: an argument of the function (no args; the caller gives its value);
  - ``const``: a value fixed when the graph is made, ``attrs["value"]`` (a
    number, or nested tuples of numbers for an array);
  - ``fused``: several elementwise ops run as one kernel; ``attrs["body"]`` is
    their text, ``"t = multiply(x, y); z = add(t, b)"``, and ``args`` are the
    values the body reads from outside. It is named after the body's last op.

* a :class:`Graph` is a list of ops in execution order (every name defined once,
  before it is used) and the list of names it returns, ``outputs``.

A graph has a text form, one op per line, that is valid Python::

    x = input()
    y = input()
    b = input()
    t = multiply(x, y)
    z = add(t, b)
    return z

:func:`parse` reads it and ``str(graph)`` writes it (``parse(str(g)) == g``).
Two graphs are equal when their texts are. Op names are the library's
(``add``, ``subtract``, ``multiply``, ``divide``, ``negative``, ``exp``,
``log``, ``tanh``, ``maximum``, ``sum``, ``matmul``, ...;
:mod:`stridegrad.compile.ops`), and :func:`evaluate` runs one op on NumPy with
the library's rule; :func:`from_library` shows a graph traced by ``sg.compile``
in this form.

**On the library's path** (inside :func:`on_backend`, which ``sg.compile`` enters
while it optimizes and replays) values are the backend's own arrays (NumPy, CuPy or
``stridegrad.array``), kept with their dtype and device: :func:`evaluate` runs each op
on that backend and gives back what it gives (a 0-d array stays an array), and an
attribute or ``const`` value that is an array, or cannot be hashed (a slice of an
indexing key), is held in a :class:`Literal`, which hashes and compares like the value
it holds. A pass takes such values as they are: it never needs to look inside.

The exercise functions (``run_graph``, ``eliminate_dead_code``,
``eliminate_common_subexpressions``, ``constant_fold``, ``fuse_elementwise``)
are top-level functions with a docstring stating their contract: the lesson
build copies their source into the solution notebook and turns their bodies
into stubs in the lesson notebook. The library calls them as attributes of this
module (``graph.constant_fold(g)``), so ``stridegrad yours`` can put yours in their
place.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from stridegrad.compile import kernels as _kernels
from stridegrad.compile import ops as _ops

__all__ = [
    "COMMUTATIVE",
    "ELEMENTWISE",
    "Graph",
    "Literal",
    "Op",
    "body_ops",
    "constant_fold",
    "eliminate_common_subexpressions",
    "eliminate_dead_code",
    "evaluate",
    "freeze",
    "from_library",
    "fuse_elementwise",
    "fused_op",
    "on_backend",
    "parse",
    "run_graph",
    "validate",
]

#: ops that work element by element (the library's list): a chain of them can be fused
#: (``astype(x, dtype)`` too: the library's fused kernels cast on the way)
ELEMENTWISE = frozenset(_ops.ELEMENTWISE)
#: ops whose two arguments can swap without changing the value
COMMUTATIVE = frozenset(["add", "multiply", "maximum", "minimum", "equal", "not_equal"])

_SPECIAL = ("input", "const", "fused")


# --------------------------------------------------------------------------- values


_BACKEND: list[Any] = []  # the array namespace of the library's compilation running now


@contextlib.contextmanager
def on_backend(xp: Any) -> Iterator[None]:
    """Within it, values are arrays of the namespace ``xp`` (the library's path).

    ``sg.compile`` enters it while its passes run and while a graph is replayed:
    :func:`evaluate` then runs ops on ``xp`` and keeps their results as they are, and
    :class:`Op` keeps array attributes as :class:`Literal` values instead of tuples.
    """
    _BACKEND.append(xp)
    try:
        yield
    finally:
        _BACKEND.pop()


def freeze(v: Any) -> Any:
    """A hashable key for a literal or attribute value that keeps apart what computes
    differently: a float by its text (``-0.0`` is not ``0.0``: ``1 / x`` differs), a
    number by its type (``1`` is not ``1.0``), an array by its identity. ``TypeError``
    for a value with no key."""
    if isinstance(v, float):
        return ("float", repr(v))
    if isinstance(v, (bool, int, str)) or v is None:
        return (type(v).__name__, v)
    if isinstance(v, (tuple, list)):
        return ("seq", tuple(freeze(x) for x in v))
    if isinstance(v, slice):
        return ("slice", freeze(v.start), freeze(v.stop), freeze(v.step))
    if v is Ellipsis:
        return ("...",)
    if isinstance(v, dict):
        return ("dict", tuple(sorted((k, freeze(x)) for k, x in v.items())))
    if _ops.is_array(v):
        return ("array", id(v))
    hash(v)  # dtypes, kernel programs
    return ("obj", type(v).__name__, v)


class Literal:
    """A value the library puts in an attribute or a ``const`` op that is an array, a
    class (``np.float32``) or cannot be hashed (an indexing key with slices), held so
    that it can be: two literals are equal when :func:`freeze` gives them the same key
    (arrays: the same array). ``.value`` is the value itself; :func:`evaluate` takes it
    out.

    Example:
        >>> Literal((slice(0, 2), None)) == Literal((slice(0, 2), None))
        True
    """

    __slots__ = ("_key", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        try:
            self._key = freeze(value)
        except TypeError:
            self._key = ("id", id(value))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Literal) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        from stridegrad.compile.ir import literal_text

        return literal_text(self.value)


def _library_value(v: Any) -> Any:
    """An attribute value on the library's path: as it is when it is hashable and not
    an array or a class, else in a :class:`Literal`."""
    if isinstance(v, Literal):
        return v
    if _ops.is_array(v) or isinstance(v, type):  # arrays; scalar types such as np.float32
        return Literal(v)
    try:
        hash(v)
    except TypeError:
        return Literal(v)
    return v


def _unwrap(v: Any) -> Any:
    return v.value if type(v) is Literal else v


def _plain(v: Any) -> Any:
    """An attribute value in its canonical, hashable form: NumPy arrays and lists
    become nested tuples, NumPy scalars Python numbers (on the library's path, see
    :func:`on_backend`: :func:`_library_value`)."""
    if _BACKEND:
        return _library_value(v)
    if isinstance(v, (np.ndarray, np.generic)):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return tuple(_plain(x) for x in v)
    return v


def _text(v: Any) -> str:
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, tuple):
        return "(" + ", ".join(_text(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)


# --------------------------------------------------------------------------- Op, Graph


class Op:
    """One value of a graph: ``name = op(*args, **attrs)``. Immutable.

    Example:
        >>> Op("t", "multiply", ("x", "y"))
        Op('t = multiply(x, y)')
        >>> Op("c", "const", (), {"value": 2.0}).attrs["value"]
        2.0
    """

    __slots__ = ("args", "attrs", "name", "op")

    def __init__(self, name: str, op: str, args: Iterable[str] = (),
                 attrs: Mapping[str, Any] | None = None) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"Op: the name must be a Python name, got {name!r}")
        if not isinstance(op, str) or not op.isidentifier():
            raise ValueError(f"Op {name}: the op must be a name like 'add', got {op!r}")
        if isinstance(args, str):
            raise TypeError(f"Op {name}: args is a tuple of names, got the string {args!r}")
        args = tuple(args)
        for a in args:
            if not isinstance(a, str):
                raise TypeError(f"Op {name}: args are value names (strings), got {a!r}")
        plain = {str(k): _plain(v) for k, v in dict(attrs or {}).items()}
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "attrs", MappingProxyType(plain))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"an Op cannot be changed (tried to set .{key}): "
                             "make a new one, Op(name, op, args, attrs)")

    def __str__(self) -> str:
        parts = list(self.args) + [f"{k}={_text(v)}" for k, v in self.attrs.items()]
        return f"{self.name} = {self.op}({', '.join(parts)})"

    def __repr__(self) -> str:
        return f"Op({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Op) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


class Graph:
    """Ops in execution order and the names returned (``outputs``).

    ``Graph(ops, outputs)`` copies both lists. ``graph[name]`` is the op that
    defines ``name``; :meth:`users` says who reads each value; :meth:`cost`
    counts kernels and temporaries.
    """

    def __init__(self, ops: Iterable[Op], outputs: Iterable[str]) -> None:
        self.ops = list(ops)
        if isinstance(outputs, str):
            raise TypeError(f"outputs is a list of names, got the string {outputs!r}")
        self.outputs = list(outputs)

    def __getitem__(self, name: str) -> Op:
        for op in self.ops:
            if op.name == name:
                return op
        raise KeyError(f"no op named {name!r} in the graph")

    def __len__(self) -> int:
        return len(self.ops)

    @property
    def inputs(self) -> list[str]:
        """The names of the ``input`` ops, in order."""
        return [op.name for op in self.ops if op.op == "input"]

    def users(self) -> dict[str, list[str]]:
        """For each value, the names of the ops that read it (each user once, in order;
        being an output does not count)."""
        out: dict[str, list[str]] = {op.name: [] for op in self.ops}
        for op in self.ops:
            for a in dict.fromkeys(op.args):
                out.setdefault(a, []).append(op.name)
        return out

    def cost(self) -> dict[str, int]:
        """``kernels``: ops that run (not ``input`` or ``const``); ``temporaries``: those
        whose value is not returned, written to memory only to be read back once or twice."""
        run = [op for op in self.ops if op.op not in ("input", "const")]
        outs = set(self.outputs)
        return {"ops": len(self.ops), "kernels": len(run),
                "temporaries": sum(op.name not in outs for op in run)}

    def __str__(self) -> str:
        return "\n".join([str(op) for op in self.ops] + ["return " + ", ".join(self.outputs)])

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Graph) and str(self) == str(other)

    __hash__ = None  # a graph's list of ops can change


def _parse_op(src: str) -> Op:
    try:
        tree = ast.parse(src.strip())
    except SyntaxError as exc:
        raise ValueError(f"cannot read {src.strip()!r}: {exc.msg}") from None
    stmt = tree.body[0] if len(tree.body) == 1 else None
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name)):
        raise ValueError(f"cannot read {src.strip()!r}: expected 'name = op(arg, ..., key=value)'")
    call = stmt.value
    args = []
    for a in call.args:
        if not isinstance(a, ast.Name):
            raise ValueError(f"cannot read {src.strip()!r}: arguments are value names "
                             "(write numbers as const ops)")
        args.append(a.id)
    attrs = {}
    for kw in call.keywords:
        try:
            attrs[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:
            raise ValueError(f"cannot read {src.strip()!r}: {kw.arg}= must be a literal") from None
    return Op(stmt.targets[0].id, call.func.id, args, attrs)


def parse(text: str) -> Graph:
    """A graph from its text form: one ``name = op(args, key=value)`` per line and a
    last line ``return name, ...``. Blank lines and ``#`` comments are skipped.

    Example:
        >>> g = parse("x = input()\\nz = exp(x)\\nreturn z")
        >>> g.ops[1]
        Op('z = exp(x)')
    """
    ops, outputs = [], None
    for line in text.split("\n"):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if outputs is not None:
            raise ValueError(f"nothing may follow the return line, got {line!r}")
        if line == "return" or line.startswith("return "):
            names = [n.strip() for n in line[len("return"):].split(",") if n.strip()]
            bad = [n for n in names if not n.isidentifier()]
            if bad:
                raise ValueError(f"return line: {bad[0]!r} is not a value name")
            outputs = names
        else:
            ops.append(_parse_op(line))
    if outputs is None:
        raise ValueError("a graph ends with a line 'return name, ...'")
    return Graph(ops, outputs)


def validate(graph: Graph) -> Graph:
    """Check that ``graph`` is well formed; raise ``ValueError`` naming the first problem.

    Every op is an :class:`Op`, each name is defined once, every argument is
    defined before the op that reads it, ``input`` ops have no arguments,
    ``const`` ops have a value, and every output is defined.
    """
    if not isinstance(graph, Graph):
        raise ValueError(f"expected a Graph, got {type(graph).__name__}")
    defined: set[str] = set()
    for k, op in enumerate(graph.ops):
        if not isinstance(op, Op):
            raise ValueError(f"ops[{k}] is a {type(op).__name__}, not an Op")
        for a in op.args:
            if a not in defined:
                raise ValueError(f"'{op}' reads {a}, which is not defined before it")
        if op.name in defined:
            raise ValueError(f"{op.name} is defined twice")
        if op.op == "input" and op.args:
            raise ValueError(f"'{op}': an input has no arguments")
        if op.op == "const" and "value" not in op.attrs:
            raise ValueError(f"'{op}': a const needs value=...")
        if op.op == "fused" and "body" not in op.attrs:
            raise ValueError(f"'{op}': a fused op needs body=...")
        defined.add(op.name)
    for name in graph.outputs:
        if name not in defined:
            raise ValueError(f"the graph returns {name}, which no op defines")
    return graph


# --------------------------------------------------------------------------- running


def _array(v: Any) -> Any:
    return np.asarray(v) if isinstance(v, (list, tuple)) else v


def _scalar(v: Any) -> Any:
    if isinstance(v, np.generic) or (isinstance(v, np.ndarray) and v.ndim == 0):
        return v.item()
    return v


def body_ops(op: Op) -> list[Op]:
    """The ops inside a ``fused`` op, in order."""
    return [_parse_op(part) for part in op.attrs["body"].split(";") if part.strip()]


def evaluate(op: Op, args: list) -> Any:
    """The value of ``op`` given the values of its ``args`` (in order), on NumPy.

    ``const`` gives its value (an array for a tuple), ``fused`` runs its body,
    every other op runs the library's rule (:func:`stridegrad.compile.ops.evaluate`)
    with ``op.attrs`` as keyword arguments. Scalars come back as Python numbers.
    An ``input`` has no rule: its value comes from the caller (``ValueError``).

    On the library's path (inside :func:`on_backend`) the op runs on that backend
    instead, :class:`Literal` values are taken out of their holders, results come
    back as the backend gives them, and a ``fused`` op the library lowered runs its
    generated kernel (``attrs["program"]``).

    Example:
        >>> evaluate(Op("z", "add", ("x", "y")), [2.0, 3.0])
        5.0
    """
    if _BACKEND:
        return _evaluate_on(_BACKEND[-1], op, args)
    if op.op == "input":
        raise ValueError(f"'{op}' is an input: its value comes from the caller, "
                         "not from evaluate")
    if op.op == "const":
        return _array(op.attrs["value"])
    if len(args) != len(op.args):
        raise ValueError(f"'{op}' has {len(op.args)} arguments, got {len(args)} values")
    if op.op == "fused":
        env = dict(zip(op.args, args))
        value = None
        for inner in body_ops(op):
            value = env[inner.name] = evaluate(inner, [env[a] for a in inner.args])
        return value
    try:
        out = _ops.evaluate(op.op, np, tuple(_array(a) for a in args), dict(op.attrs))
    except AttributeError:
        raise ValueError(f"'{op}': unknown op {op.op!r}") from None
    return _scalar(out)


def _evaluate_on(xp: Any, op: Op, args: list) -> Any:
    """:func:`evaluate` on the library's path: the backend ``xp``, values as they are."""
    kind = op.op
    attrs = op.attrs
    if kind == "const":
        v = attrs["value"]
        return v.value if type(v) is Literal else v
    if kind == "input":
        raise ValueError(f"'{op}' is an input: its value comes from the caller, "
                         "not from evaluate")
    if len(args) != len(op.args):
        raise ValueError(f"'{op}' has {len(op.args)} arguments, got {len(args)} values")
    args = [a.value if type(a) is Literal else a for a in args]  # (a replay has none)
    if kind == "fused":
        program = attrs.get("program")
        if program is not None:
            return _kernels.run_fused(xp, _unwrap(program), args)
        env = dict(zip(op.args, args))
        value = None
        for inner in body_ops(op):
            value = env[inner.name] = _evaluate_on(xp, inner, [env[a] for a in inner.args])
        return value
    if attrs:
        attrs = {k: _unwrap(v) for k, v in attrs.items()}
    return _ops.evaluate(kind, xp, args, attrs)


def fused_op(graph: Graph, members: Iterable[Op | str]) -> Op:
    """One ``fused`` op that computes ``members`` (ops of ``graph``, or their names,
    in any order) in one kernel.

    The body lists the members in graph order; the fused op takes the name of
    the last one, and its args are the values the members read from outside the
    group, in order of first use. Raises ``ValueError`` for fewer than two
    members (a single op stays as it is) or a member that is not elementwise.

    Example:
        >>> g = parse("x = input()\\nt = exp(x)\\nz = negative(t)\\nreturn z")
        >>> fused_op(g, [g["z"], g["t"]])
        Op("z = fused(x, body='t = exp(x); z = negative(t)')")
    """
    where = {op.name: k for k, op in enumerate(graph.ops)}
    chosen = []
    for m in members:
        name = m.name if isinstance(m, Op) else m
        if name not in where:
            raise ValueError(f"fused_op: {name!r} is not an op of the graph")
        chosen.append(graph.ops[where[name]])
    chosen = sorted({op.name: op for op in chosen}.values(), key=lambda op: where[op.name])
    if len(chosen) < 2:
        raise ValueError("fused_op: a group of one op is not fused; keep the op as it is")
    for op in chosen:
        if op.op not in ELEMENTWISE:
            raise ValueError(f"fused_op: '{op}' is not elementwise ({op.op} is not in "
                             "ELEMENTWISE), so it cannot be fused")
    inside = {op.name for op in chosen}
    outside: list[str] = []
    for op in chosen:
        for a in op.args:
            if a not in inside and a not in outside:
                outside.append(a)
    body = "; ".join(str(op) for op in chosen)
    return Op(chosen[-1].name, "fused", outside, {"body": body})


def from_library(graph: Any) -> Graph:
    """The lesson's form of a graph traced by ``sg.compile`` (take it before the passes:
    ``compiled.graph(..., optimized=False)``).

    It is the graph the library's passes get (:func:`stridegrad.compile.lowering.lower`),
    shown with NumPy values: placeholders become ``input`` ops named by their labels,
    constants ``const`` ops, number literals (the ``2.0`` of ``x * 2.0``) ``const`` ops
    of their own; node ``%7`` is named ``v7``. Raises ``ValueError`` for what the text
    form does not carry (other literal arguments such as axes tuples, fused nodes).
    """
    from stridegrad import backend
    from stridegrad.compile import lowering
    from stridegrad.compile.ir import Node

    for n in graph.nodes:
        if n.op == "fused":
            raise ValueError("from_library: the graph is already fused; take the traced graph "
                             "(optimized=False)")
        for a in n.inputs:
            if not isinstance(a, Node) and (isinstance(a, bool) or not isinstance(a, (int, float))):
                raise ValueError(f"from_library: {n.name} = {n.op}(...) has a literal argument "
                                 f"{a!r} that this IR does not carry")
    for o in graph.outputs:
        if not isinstance(o, Node):
            raise ValueError(f"from_library: the graph returns a literal {o!r}")
    lowered, _ = lowering.lower(graph, shown=True)
    ops = []
    for op in lowered.ops:
        attrs = {k: _unwrap(v) for k, v in op.attrs.items()}
        if op.op == "const" and _ops.is_array(attrs["value"]):
            attrs["value"] = backend.to_numpy(attrs["value"], graph.device)
        ops.append(Op(op.name, op.op, op.args, attrs))
    return Graph(ops, lowered.outputs)


# --------------------------------------------------------------------------- exercises


def run_graph(graph, inputs):
    """Run ``graph`` on ``inputs`` (a dict: input name -> value); return the list of
    output values, in the order of ``graph.outputs``.

    Every ``input`` op, read or not, takes its value from ``inputs`` by its name,
    whatever the order of the dict (one missing from it is a ``KeyError``; names the
    graph has no input for are ignored); every other op's value is ``evaluate(op,
    [values of its args])``. ``inputs`` and ``graph`` are left as they were: the
    intermediate values are kept elsewhere.

    The library replays every call of a compiled function with it: the values are
    then the backend's arrays, on any device, and each must be kept as ``evaluate``
    gives it (no conversion), once per op (an op is run once per call).

    Example:
        >>> g = parse("x = input()\\ny = input()\\nz = multiply(x, y)\\nreturn z")
        >>> run_graph(g, {"x": 2.0, "y": 3.0})
        [6.0]
    """
    values = {}
    for op in graph.ops:
        if op.op == "input":
            values[op.name] = inputs[op.name]
        else:
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[name] for name in graph.outputs]


def eliminate_dead_code(graph):
    """A new graph without the ops no output depends on. ``input`` ops always stay
    (they are the function's arguments); the order of the ops kept is unchanged.

    An op is needed when it is an output, or when a needed op reads it. Graphs of
    any length work, a chain of thousands of ops too: walk the ops once, from the
    last, with no recursion (and without changing ``sys.setrecursionlimit``).
    ``graph`` is not changed, and the result is a new Graph even when nothing is
    dead. (``sg.compile`` runs it on every graph it traces; a training step's graph
    has hundreds of ops.)

    Example:
        >>> g = parse("x = input()\\nd = exp(x)\\nz = negative(x)\\nreturn z")
        >>> print(eliminate_dead_code(g))
        x = input()
        z = negative(x)
        return z
    """
    needed = set(graph.outputs)
    kept = []
    for op in reversed(graph.ops):
        if op.name in needed or op.op == "input":
            kept.append(op)
            needed.update(op.args)
    return Graph(reversed(kept), graph.outputs)


def eliminate_common_subexpressions(graph):
    """A new graph where an op that repeats an earlier one (same op, same arguments,
    same attrs: the same names with the same values, of the same type (``1`` is not
    ``1.0``, ``-0.0`` is not ``0.0``), in whatever order they are written) is dropped and its users read the earlier value instead.

    An op that reads a dropped op reads the kept one instead, so repeats of
    repeats are found too. For ``COMMUTATIVE`` ops the order of the arguments
    does not matter: ``add(y, x)`` repeats ``add(x, y)`` (but ``subtract(y, x)``
    does not repeat ``subtract(x, y)``). ``input`` ops are never merged: two
    arguments are two different values. Outputs are renamed too. Every op kept
    keeps its name, its attrs and its args in their order (renamed); ``graph`` is
    not changed.

    On the library's path attrs and const values may be :class:`Literal` values
    (arrays, indexing keys), which are hashable and equal only to a literal of the same
    value: use them in a key as they are.

    Example:
        >>> g = parse("x = input()\\na = exp(x)\\nb = exp(x)\\nz = add(a, b)\\nreturn z")
        >>> print(eliminate_common_subexpressions(g))
        x = input()
        a = exp(x)
        z = add(a, a)
        return z
    """
    def same(value):
        # a value as a key that keeps apart what computes differently: its type (1 is
        # not 1.0), a float's sign (-0.0 is not 0.0), an array's dtype, shape and bytes
        if isinstance(value, float):
            return ("float", repr(value))
        if isinstance(value, (tuple, list)):
            return (type(value).__name__, tuple(same(v) for v in value))
        if hasattr(value, "tobytes") and hasattr(value, "dtype"):
            return ("array", str(value.dtype), value.shape, value.tobytes())
        return (type(value).__name__, value)

    replace, seen, kept = {}, {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        if op.op == "input":
            kept.append(op)
            continue
        key_args = tuple(sorted(args)) if op.op in COMMUTATIVE else args
        key = (op.op, key_args, tuple(sorted((k, same(v)) for k, v in op.attrs.items())))
        if key in seen:
            replace[op.name] = seen[key]
        else:
            seen[key] = op.name
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(name, name) for name in graph.outputs])


def constant_fold(graph):
    """A new graph where every op whose arguments are all constants (after folding
    the ops before it) is replaced by a ``const`` op of the same name holding its
    value, computed now with ``evaluate``. ``input`` ops are never folded, nor is
    anything that reads one. Everything else stays as it is, in place (the
    constants that are no longer read are left for dead-code elimination).
    ``fused`` ops and reductions fold too; ``graph`` is not changed.

    On the library's path the consts hold the backend's arrays (or
    :class:`Literal` values): hand them to ``evaluate`` as they are, and keep what it
    returns as the new const's value, so that dtypes and devices stay as they were.

    Example:
        >>> g = parse("x = input()\\na = const(value=2.0)\\nb = const(value=3.0)\\n"
        ...           "c = multiply(a, b)\\nz = add(x, c)\\nreturn z")
        >>> print(constant_fold(g))
        x = input()
        a = const(value=2.0)
        b = const(value=3.0)
        c = const(value=6.0)
        z = add(x, c)
        return z
    """
    known, kept = {}, []
    for op in graph.ops:
        if op.op == "const":
            known[op.name] = op.attrs["value"]
            kept.append(op)
        elif op.op != "input" and all(a in known for a in op.args):
            value = evaluate(op, [known[a] for a in op.args])
            known[op.name] = value
            kept.append(Op(op.name, "const", (), {"value": value}))
        else:
            kept.append(op)
    return Graph(kept, graph.outputs)


def fuse_elementwise(graph):
    """A new graph where each chain of ``ELEMENTWISE`` ops becomes one ``fused`` op.

    An elementwise op is *absorbed* by its user when that user is the only op
    that reads it, the user is elementwise too, and the op is not an output: its
    value is then needed only inside the kernel and never stored. Each op that
    is not absorbed, with all the ops it absorbs (directly or through them),
    becomes one ``fused_op(graph, group)`` in its place (where that op, the
    group's last, was), or stays the op itself when it absorbs none. Other ops
    (``sum``, ``matmul``, inputs, consts, ``fused`` ops already there) are kept as
    they are: a reduction mixes elements, so the chain stops there. ``graph`` is
    not changed.

    The library generates one kernel from each fused op's body (a NumPy plan that
    reuses buffers, a Python scalar loop, a CUDA kernel), so each fused op must be made
    with ``fused_op`` and list its members in graph order.

    Example:
        >>> g = parse("x = input()\\ny = input()\\nb = input()\\n"
        ...           "t = multiply(x, y)\\nz = add(t, b)\\nreturn z")
        >>> print(fuse_elementwise(g))
        x = input()
        y = input()
        b = input()
        z = fused(x, y, b, body='t = multiply(x, y); z = add(t, b)')
        return z
    """
    users = graph.users()
    kind = {op.name: op.op for op in graph.ops}
    outputs = set(graph.outputs)
    waiting, kept = {}, []
    for op in graph.ops:
        if op.op not in ELEMENTWISE:
            kept.append(op)
            continue
        group = [m for a in op.args for m in waiting.pop(a, [])] + [op]
        readers = users[op.name]
        if len(readers) == 1 and kind[readers[0]] in ELEMENTWISE and op.name not in outputs:
            waiting[op.name] = group
        elif len(group) == 1:
            kept.append(op)
        else:
            kept.append(fused_op(graph, group))
    return Graph(kept, graph.outputs)
