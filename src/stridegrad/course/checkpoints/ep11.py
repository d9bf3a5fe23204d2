"""Checkpoint 11 (beyond eager): ``run_graph``, ``eliminate_dead_code``,
``eliminate_common_subexpressions``, ``constant_fold`` and ``fuse_elementwise``.

Every test graph is written by hand in the text form of
:mod:`stridegrad.compile.graph`, and so is every expected result: a pass must
give exactly that graph (same ops, same order, same names). A result that is
not a well-formed graph (a name read before it is defined, an output nobody
defines) is reported as such. Values are checked with a small interpreter of
this module's own, so each exercise is tested alone: the passes do not need
the learner's ``run_graph``.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import numpy as np
from hypothesis import strategies as st

from stridegrad.compile.graph import (Graph, Op, eliminate_common_subexpressions, evaluate,
                                      parse, validate)
from stridegrad.course.checks import CheckFailure, Checkpoint, expect, fail, short_repr
from stridegrad.course.contracts import Call, Invalid

__all__ = ["checkpoint"]

checkpoint = Checkpoint("11_beyond_eager", "beyond eager", reference="stridegrad.compile.graph")


# ------------------------------------------------------------------ helpers


def _g(text: str) -> Graph:
    return parse(text)


def _interpret(graph: Graph, inputs: dict) -> list:
    values = {}
    for op in graph.ops:
        values[op.name] = inputs[op.name] if op.op == "input" else \
            evaluate(op, [values[a] for a in op.args])
    return [values[n] for n in graph.outputs]


def _check_graph(call: str, got, want_text: str) -> None:
    """``got`` must be a well-formed Graph whose text is exactly ``want_text``'s."""
    if not isinstance(got, Graph):
        fail(call, "a Graph", f"a {type(got).__name__}: {got!r}")
    try:
        validate(got)
    except ValueError as exc:
        raise CheckFailure(call, "a well-formed graph", f"a broken one: {exc}") from None
    want = parse(want_text)
    if got == want:
        return
    have, need = str(got).split("\n"), str(want).split("\n")
    for k in range(max(len(have), len(need))):
        h = have[k] if k < len(have) else "(nothing)"
        n = need[k] if k < len(need) else "(nothing)"
        if h != n:
            raise CheckFailure(f"line {k + 1} of {call}", n, h)


def _unchanged(call: str, graph: Graph, text_before: str) -> None:
    if str(graph) != text_before:
        raise CheckFailure(f"the input graph after {call}", "unchanged (build a new Graph)",
                           "it was changed")


def _close(a, b) -> bool:
    try:
        return bool(np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                rtol=1e-9, atol=1e-12))
    except (TypeError, ValueError):
        return False


def _check_values(call: str, got, want: list) -> None:
    if not isinstance(got, list):
        fail(f"type of {call}", "list", type(got).__name__)
    if len(got) != len(want) or not all(_close(g, w) for g, w in zip(got, want)):
        fail(call, want, got)


# ------------------------------------------------------------------ contracts: random graphs
#
# A contract case is a graph in its text form (``parse(text)`` is the Graph), made at
# random by :class:`_Builder` with the habits of real traces and of each pass's traps:
# chains and trees of elementwise ops, reductions with axes, fused ops, constants
# (numbers, arrays), values with several readers or none, repeats, outputs anywhere.
# Every graph can run: each op is tried on the probe inputs while it is made, and one
# that would fail or overflow is replaced. The scenarios run the pass on a fresh
# Graph and observe the graph it returns in a canonical text (each op's attrs in
# sorted order: the order they are written in is not part of the answer).

_UNARY = ("negative", "exp", "tanh", "abs", "square")
_BINARY = ("add", "subtract", "multiply", "divide", "maximum", "minimum")
_SUMS = ({}, {"axis": 0}, {"axis": 1}, {"axis": -1}, {"keepdims": True},
         {"axis": 0, "keepdims": True}, {"keepdims": True, "axis": -1}, {"axis": (0, 1)},
         {"axis": 1, "keepdims": False})
#: attrs whose values are the same without their names, and the same attrs written in
#: another order
_TWINS = (({"axis": 1}, {"keepdims": True}), ({"axis": 0}, {"keepdims": False}),
          ({"axis": 0, "keepdims": True}, {"keepdims": True, "axis": 0}),
          ({"axis": -1, "keepdims": True}, {"keepdims": True, "axis": -1}))
_NUMBERS = (0.0, 1.0, 2.0, 0.5, -1.0, 3.0, 1, 0, 2, -0.0)
_ARRAYS = ((1.0, 2.0, 3.0), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), (-1.0, 0.5, 2.0),
           ((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)), ((1.0, 1.0, 1.0), (1.0, 1.0, 1.0)))
_INPUT_NAMES = ("x", "y", "w", "b")
_OP_NAMES = tuple("acdefghkmnpqrstuvz") + ("t1", "t2", "s2", "out", "o2")

#: how often each kind of step is taken, per pass
_PROFILES = {
    "run": {"unary": 3, "binary": 4, "const": 2, "sum": 1, "fused": 1, "matmul": 1, "input": 1},
    "dce": {"unary": 3, "binary": 4, "const": 2, "sum": 1, "fused": 1, "input": 1},
    "cse": {"unary": 2, "binary": 3, "const": 2, "sum": 1, "repeat": 3, "swap": 2, "echo": 2,
            "twin": 2, "fused": 1},
    "fold": {"unary": 2, "binary": 4, "const": 4, "sum": 1, "fused": 1, "input": 1},
    "fuse": {"unary": 4, "binary": 3, "twice": 1, "const": 1, "sum": 1, "matmul": 1,
             "fused": 1},
    "simplify": {"unary": 1, "binary": 1, "const": 1, "identity": 5},
}


class _Builder:
    """A graph made op by op with a seeded random generator; each op is tried on the
    probe values of the inputs, and one that fails, overflows or divides by nearly 0
    becomes ``tanh`` of its first argument."""

    def __init__(self, rng: random.Random, profile: str, inputs: dict) -> None:
        self.rng, self.profile = rng, profile
        self.ops: list[Op] = []
        self.values: dict = {}
        self.from_consts: set = set()  # values that do not depend on an input
        self.repeats: dict = {}  # name -> the earlier op it repeats
        names = list(_OP_NAMES)
        rng.shuffle(names)
        self.free = names
        self.spare_inputs = [n for n in _INPUT_NAMES if n not in inputs]
        self.inputs = inputs  # an input made later joins it
        for name, value in inputs.items():
            self.ops.append(Op(name, "input"))
            self.values[name] = value

    def pick(self, prefer_consts: bool = False) -> str:
        names = list(self.values)
        if prefer_consts and self.from_consts and self.rng.random() < 0.7:
            names = [n for n in names if n in self.from_consts]
        if self.rng.random() < 0.6:  # the latest values: chains
            names = names[-3:]
        return self.rng.choice(names)

    def add(self, op: str, args: tuple, attrs: dict | None = None, name: str | None = None) -> str:
        name = name or self.free.pop()
        made = Op(name, op, args, attrs or {})
        value = self.run(made)
        if value is None:
            made = Op(name, "tanh", args[:1])
            value = self.run(made)
        self.ops.append(made)
        self.values[name] = value
        if all(a in self.from_consts for a in made.args) and made.op != "input":
            self.from_consts.add(name)
        return name

    def run(self, op: Op) -> Any:
        try:
            with np.errstate(all="raise"):
                args = [self.values[a] for a in op.args]
                if op.op == "divide" and np.min(np.abs(np.asarray(args[1], dtype=float))) < 0.25:
                    return None
                value = evaluate(op, args)
        except (ValueError, TypeError, FloatingPointError, IndexError):
            return None
        v = np.asarray(value, dtype=float)
        return value if np.all(np.isfinite(v)) and np.all(np.abs(v) < 1e6) else None

    def const(self, value: Any = None) -> str:
        value = self.rng.choice(_NUMBERS + _ARRAYS) if value is None else value
        # never 1 and 1.0 (or 0.0 and -0.0) in one graph: the library's CSE compares attrs
        # with ==, so it merges them though their values differ in type; until it does
        # not, a right answer that keeps them apart would be refused
        for op in self.ops:
            if op.op == "const" and op.attrs["value"] == value:
                value = op.attrs["value"]
        name = self.add("const", (), {"value": value})
        self.from_consts.add(name)
        return name

    def step(self) -> None:
        weights = _PROFILES[self.profile]
        kind = self.rng.choices(list(weights), list(weights.values()))[0]
        fold = self.profile == "fold"
        earlier = [op for op in self.ops if op.op not in ("input", "const")]
        if kind == "input" and self.spare_inputs:
            name = self.spare_inputs.pop(0)
            self.ops.append(Op(name, "input"))
            self.values[name] = self.inputs[name] = float(self.rng.choice([-1.5, 0.5, 2.0]))
        elif kind == "const" or len(self.values) == 0:
            self.const()
        elif kind == "unary":
            a = self.pick(fold)
            op = self.rng.choice(_UNARY)
            if op == "exp" and np.max(np.abs(np.asarray(self.values[a], dtype=float))) > 20:
                op = "tanh"
            self.add(op, (a,))
        elif kind == "binary":
            self.add(self.rng.choice(_BINARY), (self.pick(fold), self.pick(fold)))
        elif kind == "sum":
            self.add("sum", (self.pick(fold),), dict(self.rng.choice(_SUMS)))
        elif kind == "twice":  # one reader reading a value twice: x * x
            a = self.pick()
            self.add(self.rng.choice(_BINARY), (a, a))
        elif kind == "swap":  # the same op with its two args swapped: a repeat if it commutes
            pairs = [op for op in earlier if len(op.args) == 2 and op.args[0] != op.args[1]]
            if not pairs or self.rng.random() < 0.3:
                self.add(self.rng.choice(("add", "subtract", "multiply", "divide", "maximum")),
                         (self.pick(), self.pick()))
                op = self.ops[-1]
            else:
                op = self.rng.choice(pairs)
            if len(op.args) == 2 and op.args[0] != op.args[1]:
                self.add(op.op, op.args[::-1], dict(op.attrs))
        elif kind == "matmul":
            self.add("matmul", (self.pick(), self.pick()))
        elif kind == "fused":
            self.fused(fold)
        elif kind == "repeat" and earlier:
            op = self.rng.choice(earlier)
            args = op.args[::-1] if len(op.args) == 2 and self.rng.random() < 0.4 else op.args
            attrs = dict(op.attrs)
            if len(attrs) > 1 and self.rng.random() < 0.5:
                attrs = dict(reversed(list(attrs.items())))
            self.repeats[self.add(op.op, args, attrs)] = op.name
        elif kind == "echo" and self.repeats:
            # an op that reads a repeat where an earlier op read the first: a repeat too,
            # once the repeat is renamed
            dup = self.rng.choice(list(self.repeats))
            first = self.repeats[dup]
            readers = [op for op in earlier if first in op.args]
            op = self.rng.choice(readers) if readers else None
            # a fused op's body reads its outer values by name: with its args renamed
            # and its body not, it would read a value it is not given
            if op is not None and op.op != "fused":
                args = tuple(dup if a == first else a for a in op.args)
                self.add(op.op, args, dict(op.attrs))
            else:
                self.add("exp" if self.rng.random() < 0.5 else "negative", (first,))
        elif kind == "twin":
            a = self.pick()
            one, other = self.rng.choice(_TWINS)
            self.add("sum", (a,), dict(one))
            self.add("sum", (a,), dict(other))
        elif kind == "identity":
            self.identity()
        else:
            self.add(self.rng.choice(_UNARY[:3]), (self.pick(),))

    def fused(self, fold: bool) -> None:
        """A fused op of two or three elementwise steps on one or two outer values."""
        outer = [self.pick(fold)] + ([self.pick(fold)] if self.rng.random() < 0.6 else [])
        if self.profile == "cse":
            # a fused op's body reads its outer values by name: it reads the values CSE
            # keeps (a repeat's first), so that renaming its args leaves its body right
            names = list(self.values)
            kept = dict(zip(names, eliminate_common_subexpressions(
                Graph(list(self.ops), names)).outputs))
            outer = [kept[n] for n in outer]
        outer = list(dict.fromkeys(outer))
        name = self.free.pop()
        body, last, steps = [], outer[0], self.rng.choice([2, 3])
        for k in range(steps):
            inner = name if k == steps - 1 else f"{name}_{k}"
            binary = self.rng.choice(("multiply", "add", "subtract", "maximum"))
            if len(outer) == 2 and k == 1:
                body.append(Op(inner, binary, (last, outer[1])))
            elif self.rng.random() < 0.5:
                body.append(Op(inner, self.rng.choice(("tanh", "negative")), (last,)))
            else:
                body.append(Op(inner, binary, (last, outer[0])))
            last = inner
        self.add("fused", tuple(outer), {"body": "; ".join(str(op) for op in body)}, name=name)

    def identity(self) -> None:
        """``a + 0``, ``0 + a``, ``a - 0``, ``0 - a``, ``a * 1``, ``1 * a``, ``a / 1``,
        ``1 / a``, or an op with another constant (2, 0 for *, 1 for +, an array of ones
        or zeros), on a value made earlier or a chain of them."""
        a = self.pick()
        op = self.rng.choice(("add", "subtract", "multiply", "divide"))
        if self.rng.random() < 0.7:
            value = self.rng.choice((0.0, 0, -0.0) if op in ("add", "subtract") else (1.0, 1))
        else:
            value = self.rng.choice((2.0, 0.0, 1.0, -1.0) + _ARRAYS[1:3] + _ARRAYS[5:])
        consts = [o.name for o in self.ops if o.op == "const" and o.attrs["value"] == value
                  and type(o.attrs["value"]) is type(value)]
        c = self.rng.choice(consts) if consts and self.rng.random() < 0.6 else self.const(value)
        self.add(op, (a, c) if self.rng.random() < 0.7 else (c, a))

    def outputs(self, profile: str) -> list[str]:
        names = list(self.values)
        last = names[-1]
        picked = [last] if profile != "dce" or self.rng.random() < 0.6 else []
        for _ in range(self.rng.choice([0, 1, 1, 2])):
            picked.append(self.rng.choice(names))
        if not picked:
            picked = [self.rng.choice(names)]
        if self.rng.random() < 0.9:
            picked = list(dict.fromkeys(picked))
        return picked

    def text(self, outputs: list[str]) -> str:
        return str(Graph(self.ops, outputs))


def _probe_inputs(rng: random.Random, n: int, dtype: Any = np.float64) -> dict:
    """``n`` input values, each a number or an array of shape (3,) or (2, 3), multiples
    of 1/4 in [-2, 2]."""
    out = {}
    for name in _INPUT_NAMES[:n]:
        shape = rng.choice([(), (3,), (2, 3), (2, 3)])
        values = [rng.randint(-8, 8) / 4 for _ in range(int(np.prod(shape)))]
        out[name] = float(values[0]) if shape == () else np.array(values, dtype=dtype).reshape(shape)
    return out


@st.composite
def _graphs(draw, profile: str, with_inputs: bool = False) -> Any:
    """A graph in its text form (and, ``with_inputs``, the inputs it runs on): its size
    and number of inputs drawn by Hypothesis (small ones first), the rest made by a
    generator seeded from the draw."""
    n_inputs = draw(st.integers(0 if profile in ("fold", "dce") else 1, 3))
    n_steps = draw(st.integers(0, 9))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    dtype = np.float32 if with_inputs and rng.random() < 0.25 else np.float64
    inputs = _probe_inputs(rng, n_inputs, dtype)
    builder = _Builder(rng, profile, inputs)
    if not builder.values:
        builder.const()
    for _ in range(n_steps):
        builder.step()
    text = builder.text(builder.outputs(profile))
    return (text, inputs) if with_inputs else text


def _canonical(graph: Any) -> str:
    """A returned graph as text, each op's attrs in sorted order, and what is wrong with
    it: not a Graph, or not well formed."""
    if not isinstance(graph, Graph):
        return f"a {type(graph).__name__}, not a Graph: {short_repr(graph)}"
    lines = []
    for op in graph.ops:
        try:
            lines.append(str(Op(op.name, op.op, op.args, dict(sorted(op.attrs.items())))))
        except Exception:  # noqa: BLE001 - not an Op
            lines.append(f"{short_repr(op)} (a {type(op).__name__}, not an Op)")
    lines.append("return " + ", ".join(str(n) for n in graph.outputs))
    try:
        validate(graph)
    except Exception as exc:  # noqa: BLE001 - validate names what is broken
        lines.append(f"# not a well-formed graph: {exc}")
    return "\n".join(lines)


def pass_scenario(graph_pass, text: str) -> str:
    """``graph_pass(parse(text))``, observed: the graph it returns in its canonical text,
    with a note when the graph passed in was changed, when that graph itself is
    returned (not a new Graph), or when the pass changed the recursion limit (it runs
    with the default room for recursion, 1000 frames, whatever the process's limit)."""
    graph = parse(text)
    before, outside = str(graph), sys.getrecursionlimit()
    # the pass runs with Python's default room (1000 frames) above this one, whatever
    # the process's limit now is: a recursive walk meets the same limit in every run
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    limit = depth + 1000
    sys.setrecursionlimit(limit)
    try:
        got = graph_pass(graph)
    finally:
        raised_limit = sys.getrecursionlimit() != limit
        sys.setrecursionlimit(outside)
    seen = _canonical(got)
    if str(graph) != before:
        seen += "\n# the graph passed in was changed"
    if got is graph:
        seen += "\n# the graph passed in itself, not a new Graph"
    if raised_limit:
        seen += "\n# sys.setrecursionlimit was changed (walk the ops, do not recurse)"
    return seen


def run_scenario(run_graph, text: str, inputs: dict) -> Any:
    """``run_graph(parse(text), inputs)``, observed: what it returns (and a note when the
    graph passed in was changed; the inputs dict is an argument, checked as one)."""
    graph = parse(text)
    before = str(graph)
    got = run_graph(graph, inputs)
    return got if str(graph) == before else {"returned": got,
                                             "note": "the graph passed in was changed"}


_GRAPH_HINT = ("This row tries random graphs, shown in their text form (parse(text) gives "
               "the Graph), made like real traces and full of the traps of this pass, and "
               "shows the smallest one your function gets wrong: the graph it returned "
               "(each op's attrs in sorted order), as text.")


# ------------------------------------------------------------------ run_graph

XYB = """
x = input()
y = input()
b = input()
t = multiply(x, y)
z = add(t, b)
return z
"""


@checkpoint.test("run_graph", hint="Keep a dict name -> value: inputs come from the inputs "
                                   "dict, every other op is evaluate(op, [values[a] for a in "
                                   "op.args]).")
def runs_x_times_y_plus_b(run_graph):
    got = run_graph(_g(XYB), {"x": 2.0, "y": 3.0, "b": 1.0})
    _check_values("run_graph(z = x*y + b, x=2, y=3, b=1)", got, [7.0])


@checkpoint.test("run_graph", hint="Return a list with one value per name in graph.outputs, "
                                   "in that order (an output may be an input itself).")
def returns_every_output_in_order(run_graph):
    g = _g("""
    x = input()
    y = input()
    s = subtract(x, y)
    p = multiply(x, y)
    return p, x, s
    """)
    got = run_graph(g, {"x": 5.0, "y": 2.0})
    _check_values("run_graph(return p=x*y, x, s=x-y; x=5, y=2)", got, [10.0, 5.0, 3.0])


@checkpoint.test("run_graph", hint="A const op is not an input: evaluate(op, []) gives its "
                                   "value.",
                 hint_for=("treats const ops as inputs",))
def evaluates_constants(run_graph):
    g = _g("""
    x = input()
    two = const(value=2.0)
    z = divide(x, two)
    return z
    """)
    _check_values("run_graph(z = x / const 2, x=9)", run_graph(g, {"x": 9.0}), [4.5])


@checkpoint.test("run_graph", hint="Pass the args' values in the op's own order: "
                                   "subtract(y, x) is y - x.",
                 hint_for=("args in sorted order",))
def keeps_argument_order(run_graph):
    g = _g("""
    x = input()
    y = input()
    d = subtract(y, x)
    q = divide(d, x)
    return q
    """)
    _check_values("run_graph(q = (y - x) / x, x=2, y=10)", run_graph(g, {"x": 2.0, "y": 10.0}),
                  [4.0])


@checkpoint.test("run_graph", hint="evaluate handles every op, fused and sum(axis=...) "
                                   "included: do not special-case them.")
def runs_arrays_reductions_and_fused_ops(run_graph):
    g = _g("""
    x = input()
    c = const(value=1.0)
    e = fused(x, c, body='m = multiply(x, x); e = add(m, c)')
    s = sum(e, axis=0)
    return s, e
    """)
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    got = run_graph(g, {"x": x})
    _check_values("run_graph(e = x*x + 1 fused, s = sum(e, axis=0))", got,
                  [np.array([12.0, 22.0]), x * x + 1.0])


@checkpoint.test("run_graph", hint="An input missing from the dict is a KeyError "
                                   "(inputs[op.name] raises it for you).")
def missing_input_is_a_key_error(run_graph):
    expect(run_graph, _g(XYB), {"x": 2.0, "y": 3.0}, raises=KeyError)


@checkpoint.test("run_graph", hint="Only read the graph and the inputs dict: do not add the "
                                   "intermediate values to it.",
                 hint_for=("writes the values into the inputs dict",))
def leaves_inputs_alone(run_graph):
    inputs = {"x": 2.0, "y": 3.0, "b": 1.0}
    g = _g(XYB)
    run_graph(g, inputs)
    if inputs != {"x": 2.0, "y": 3.0, "b": 1.0}:
        fail("the inputs dict after run_graph", {"x": 2.0, "y": 3.0, "b": 1.0}, inputs)
    _unchanged("run_graph", g, str(_g(XYB)))



@st.composite
def _runs(draw, missing: bool = False) -> Call:
    """A graph and its inputs, in another order than the graph's, now and then with a
    name the graph does not have; ``missing``: one of its inputs left out (one that is
    read, or one that is not)."""
    text, inputs = draw(_graphs("run", with_inputs=True))
    rng = random.Random(draw(st.integers(0, 2**16)))
    names = list(inputs)
    rng.shuffle(names)
    if missing:
        names.remove(rng.choice(names))
    given = {n: inputs[n] for n in names}
    if rng.random() < 0.2:
        given["unused"] = 1.0
    return Call((text, given))


# the list returns the inputs' own values where an output is an input, as evaluate does
checkpoint.contract(
    "run_graph", valid=_runs(), scenario=run_scenario, may_alias=True,
    hint="This row tries random graphs, shown in their text form (parse(text) gives the "
         "Graph), with inputs given in any order, and shows the smallest one your function "
         "gets wrong.",
    invalid=[Invalid(_runs(missing=True), KeyError, "inputs dicts without one of the inputs")])

# ------------------------------------------------------------------ eliminate_dead_code


@checkpoint.test("eliminate_dead_code", hint="Start from the outputs: an op is needed when an "
                                             "output or a needed op reads it; drop the rest.")
def drops_an_unused_op(eliminate_dead_code):
    g = _g("""
    x = input()
    d = exp(x)
    z = negative(x)
    return z
    """)
    _check_graph("eliminate_dead_code(d = exp(x) unused)", eliminate_dead_code(g), """
    x = input()
    z = negative(x)
    return z
    """)


@checkpoint.test("eliminate_dead_code", hint="A dead op keeps the ops it reads busy: t1 and t2 "
                                             "are read only by dead ops, so they are dead too. "
                                             "Removing the ops nobody reads, once, is not "
                                             "enough: walk back from the outputs.",
                 hint_for=("one round: drops only ops nobody reads (keeps ops read only by "
                           "dead ops)",))
def drops_a_whole_dead_chain(eliminate_dead_code):
    g = _g("""
    x = input()
    t1 = multiply(x, x)
    t2 = exp(t1)
    t3 = add(t2, x)
    z = tanh(x)
    return z
    """)
    _check_graph("eliminate_dead_code(t1 -> t2 -> t3 dead)", eliminate_dead_code(g), """
    x = input()
    z = tanh(x)
    return z
    """)


@checkpoint.test("eliminate_dead_code", hint="input ops always stay, even unused: they are "
                                             "the function's arguments.",
                 hint_for=("drops unused inputs",))
def keeps_unused_inputs(eliminate_dead_code):
    g = _g("""
    x = input()
    y = input()
    z = exp(x)
    return z
    """)
    _check_graph("eliminate_dead_code(y unused)", eliminate_dead_code(g), """
    x = input()
    y = input()
    z = exp(x)
    return z
    """)


@checkpoint.test("eliminate_dead_code", hint="An op read by a dead op AND by a live one is "
                                             "live; keep the order of the ops you keep.")
def keeps_what_a_live_op_reads(eliminate_dead_code):
    g = _g("""
    x = input()
    c = const(value=3.0)
    t = multiply(x, c)
    dead = exp(t)
    k = const(value=9.0)
    z = add(t, x)
    return z
    """)
    _check_graph("eliminate_dead_code(t read by dead and by z)", eliminate_dead_code(g), """
    x = input()
    c = const(value=3.0)
    t = multiply(x, c)
    z = add(t, x)
    return z
    """)


@checkpoint.test("eliminate_dead_code", hint="Every output is a root, and an output may be an "
                                             "input itself; outputs stay as they are.")
def several_outputs(eliminate_dead_code):
    g = _g("""
    x = input()
    y = input()
    a = exp(y)
    b = log(x)
    c = add(a, x)
    return x, c
    """)
    _check_graph("eliminate_dead_code(return x, c)", eliminate_dead_code(g), """
    x = input()
    y = input()
    a = exp(y)
    c = add(a, x)
    return x, c
    """)


@checkpoint.test("eliminate_dead_code", hint="A graph with nothing dead comes back equal.")
def nothing_dead(eliminate_dead_code):
    _check_graph("eliminate_dead_code(z = x*y + b)", eliminate_dead_code(_g(XYB)), XYB)


@checkpoint.test("eliminate_dead_code", hint="Build a new Graph(kept_ops, graph.outputs); "
                                             "do not remove ops from graph.ops itself.",
                 hint_for=("removes in place and returns the same graph",))
def dce_leaves_its_input_alone(eliminate_dead_code):
    g = _g("""
    x = input()
    d = exp(x)
    z = negative(x)
    return z
    """)
    before = str(g)
    eliminate_dead_code(g)
    _unchanged("eliminate_dead_code", g, before)



#: a chain longer than Python's recursion limit, with a dead op: a walk that recurses
#: from the outputs cannot finish it
_CHAIN = "\n".join(["x = input()", "d = exp(x)", "t0 = negative(x)"]
                   + [f"t{k} = negative(t{k - 1})" for k in range(1, 1200)] + ["return t1199"])

checkpoint.contract(
    "eliminate_dead_code", scenario=pass_scenario, hint=_GRAPH_HINT,
    valid=st.integers(0, 15).flatmap(
        lambda k: st.just(Call((_CHAIN,))) if k == 0 else _graphs("dce").map(lambda t: Call((t,)))))

# ------------------------------------------------------------------ eliminate_common_subexpressions


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Key each op by (op.op, args, attrs); the second op with a key seen "
                      "before is dropped and its users read the first one.")
def merges_a_repeat(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    y = input()
    a = multiply(x, y)
    b = multiply(x, y)
    z = add(a, b)
    return z
    """)
    _check_graph("eliminate_common_subexpressions(a = b = x*y)",
                 eliminate_common_subexpressions(g), """
    x = input()
    y = input()
    a = multiply(x, y)
    z = add(a, a)
    return z
    """)


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Two input ops have the same op, no args and no attrs, but they are two "
                      "different arguments: never merge inputs.",
                 hint_for=("merges input ops",))
def never_merges_inputs(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    y = input()
    z = subtract(x, y)
    return z
    """)
    _check_graph("eliminate_common_subexpressions(x, y inputs)",
                 eliminate_common_subexpressions(g), """
    x = input()
    y = input()
    z = subtract(x, y)
    return z
    """)


@checkpoint.test("eliminate_common_subexpressions",
                 hint="The attrs are part of the key: sum(x, axis=0) and sum(x, axis=1) are "
                      "different values, and so are const 1.0 and const 2.0.",
                 hint_for=("ignores attrs (merges sum axis=0 with axis=1)",))
def attributes_are_part_of_the_key(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    r = sum(x, axis=0)
    c = sum(x, axis=1)
    one = const(value=1.0)
    two = const(value=2.0)
    a = multiply(r, one)
    b = multiply(c, two)
    return a, b
    """)
    _check_graph("eliminate_common_subexpressions(sum axis 0 vs 1)",
                 eliminate_common_subexpressions(g), str(g))


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Sort the args of COMMUTATIVE ops only: add(y, x) repeats add(x, y), but "
                      "subtract(y, x) is minus subtract(x, y). Keep the kept op's own args.",
                 hint_for=("sorts the args of every op (merges subtract(x, y) with "
                           "subtract(y, x))",))
def commutative_ops_only(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    y = input()
    a = add(x, y)
    b = add(y, x)
    s = subtract(x, y)
    t = subtract(y, x)
    z = multiply(a, b)
    w = divide(s, t)
    return z, w
    """)
    _check_graph("eliminate_common_subexpressions(add(x, y), add(y, x), subtract both ways)",
                 eliminate_common_subexpressions(g), """
    x = input()
    y = input()
    a = add(x, y)
    s = subtract(x, y)
    t = subtract(y, x)
    z = multiply(a, a)
    w = divide(s, t)
    return z, w
    """)


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Rename an op's args through the replacements BEFORE making its key: "
                      "once c2 became c1, add(x, c2) is add(x, c1), a repeat too.",
                 hint_for=("keys on the original args (misses repeats of repeats)",))
def repeats_of_repeats(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    c1 = const(value=1.0)
    a = add(x, c1)
    c2 = const(value=1.0)
    b = add(x, c2)
    e1 = exp(a)
    e2 = exp(b)
    z = subtract(e1, e2)
    return z
    """)
    _check_graph("eliminate_common_subexpressions(exp(x + 1) twice)",
                 eliminate_common_subexpressions(g), """
    x = input()
    c1 = const(value=1.0)
    a = add(x, c1)
    e1 = exp(a)
    z = subtract(e1, e1)
    return z
    """)


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Outputs are names too: rename them through the replacements.",
                 hint_for=("forgets to rename the outputs",))
def renames_outputs(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    a = tanh(x)
    b = tanh(x)
    return a, b
    """)
    _check_graph("eliminate_common_subexpressions(return tanh(x), tanh(x))",
                 eliminate_common_subexpressions(g), """
    x = input()
    a = tanh(x)
    return a, a
    """)


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Make new Ops with the renamed args (Op(op.name, op.op, args, op.attrs)) "
                      "in a new Graph; the input graph must not change.")
def cse_leaves_its_input_alone(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    a = exp(x)
    b = exp(x)
    z = add(a, b)
    return z
    """)
    before = str(g)
    eliminate_common_subexpressions(g)
    _unchanged("eliminate_common_subexpressions", g, before)



checkpoint.contract("eliminate_common_subexpressions", scenario=pass_scenario, hint=_GRAPH_HINT,
                    valid=_graphs("cse").map(lambda t: Call((t,))))

# ------------------------------------------------------------------ constant_fold


@checkpoint.test("constant_fold", hint="An op whose args are all const values becomes "
                                       "Op(op.name, 'const', (), {'value': evaluate(op, "
                                       "[their values])}); keep everything else as it is.")
def folds_a_product_of_constants(constant_fold):
    g = _g("""
    x = input()
    a = const(value=2.0)
    b = const(value=3.0)
    c = multiply(a, b)
    z = add(x, c)
    return z
    """)
    _check_graph("constant_fold(c = 2 * 3, z = x + c)", constant_fold(g), """
    x = input()
    a = const(value=2.0)
    b = const(value=3.0)
    c = const(value=6.0)
    z = add(x, c)
    return z
    """)


@checkpoint.test("constant_fold", hint="Remember the values of the ops you fold: d reads c, "
                                       "which was folded just before, so d folds too. Look "
                                       "at your new constants, not at the input graph's ops.",
                 hint_for=("no cascade: looks only at the input graph's const ops",))
def folding_cascades(constant_fold):
    g = _g("""
    x = input()
    a = const(value=2.0)
    b = const(value=3.0)
    c = multiply(a, b)
    d = subtract(c, a)
    e = exp(d)
    z = multiply(x, d)
    return z, e
    """)
    _check_graph("constant_fold(c = 2*3, d = c - 2, e = exp(d))", constant_fold(g), """
    x = input()
    a = const(value=2.0)
    b = const(value=3.0)
    c = const(value=6.0)
    d = const(value=4.0)
    e = const(value=54.598150033144236)
    z = multiply(x, d)
    return z, e
    """)


@checkpoint.test("constant_fold", hint="ALL args must be constants: an op that reads an input "
                                       "(or anything computed from one) has no value until "
                                       "the function is called.",
                 hint_for=("folds an op with an input among its args (any instead of all)",))
def an_input_blocks_folding(constant_fold):
    g = _g("""
    x = input()
    two = const(value=2.0)
    t = multiply(x, two)
    u = add(t, two)
    return u
    """)
    _check_graph("constant_fold(t = x * 2, u = t + 2)", constant_fold(g), str(g))


@checkpoint.test("constant_fold", hint="Inputs are never folded, and neither are const ops "
                                       "themselves changed: they keep their names and values.")
def inputs_and_constants_stay(constant_fold):
    g = _g("""
    x = input()
    y = input()
    c = const(value=(1.0, 2.0, 3.0))
    z = multiply(x, y)
    return z, c
    """)
    _check_graph("constant_fold(no op to fold)", constant_fold(g), str(g))


@checkpoint.test("constant_fold", hint="evaluate works on arrays too: sum of const (1, 2, 3) "
                                       "is 6.0, a product of two arrays is an array.")
def folds_arrays_and_reductions(constant_fold):
    g = _g("""
    x = input()
    v = const(value=(1.0, 2.0, 3.0))
    s = sum(v)
    w = multiply(v, v)
    z = add(x, s)
    return z, w
    """)
    _check_graph("constant_fold(s = sum(1, 2, 3), w = v * v)", constant_fold(g), """
    x = input()
    v = const(value=(1.0, 2.0, 3.0))
    s = const(value=6.0)
    w = const(value=(1.0, 4.0, 9.0))
    z = add(x, s)
    return z, w
    """)


@checkpoint.test("constant_fold", hint="Keep the folded op's name, so that the ops reading it "
                                       "and the outputs need no change.",
                 hint_for=("renames the folded op",))
def folded_output_keeps_its_name(constant_fold):
    g = _g("""
    n = const(value=1.0)
    d = const(value=3.0)
    q = divide(n, d)
    return q
    """)
    _check_graph("constant_fold(q = 1 / 3)", constant_fold(g), """
    n = const(value=1.0)
    d = const(value=3.0)
    q = const(value=0.3333333333333333)
    return q
    """)


@checkpoint.test("constant_fold", hint="Build a new Graph; the input graph must not change.")
def folding_leaves_its_input_alone(constant_fold):
    g = _g("""
    a = const(value=2.0)
    b = multiply(a, a)
    return b
    """)
    before = str(g)
    constant_fold(g)
    _unchanged("constant_fold", g, before)



checkpoint.contract("constant_fold", scenario=pass_scenario, hint=_GRAPH_HINT,
                    valid=_graphs("fold").map(lambda t: Call((t,))))

# ------------------------------------------------------------------ fuse_elementwise


@checkpoint.test("fuse_elementwise", hint="t is read only by z, and z is elementwise: t joins "
                                          "z's group, and the group becomes "
                                          "fused_op(graph, [t, z]), named z.")
def fuses_x_times_y_plus_b(fuse_elementwise):
    _check_graph("fuse_elementwise(z = x*y + b)", fuse_elementwise(_g(XYB)), """
    x = input()
    y = input()
    b = input()
    z = fused(x, y, b, body='t = multiply(x, y); z = add(t, b)')
    return z
    """)


@checkpoint.test("fuse_elementwise", hint="A group grows along the chain: the group waiting on "
                                          "an op's arg joins that op's group.")
def fuses_a_long_chain(fuse_elementwise):
    g = _g("""
    x = input()
    c = const(value=0.5)
    a = multiply(x, c)
    b = exp(a)
    d = negative(b)
    e = tanh(d)
    return e
    """)
    _check_graph("fuse_elementwise(tanh(-exp(x * 0.5)))", fuse_elementwise(g), """
    x = input()
    c = const(value=0.5)
    e = fused(x, c, body='a = multiply(x, c); b = exp(a); d = negative(b); e = tanh(d)')
    return e
    """)


@checkpoint.test("fuse_elementwise", hint="A reduction (sum) is not elementwise: the op before "
                                          "it cannot be absorbed by it, and the chain after it "
                                          "starts a new group.",
                 hint_for=("fuses into a reduction's input (ignores the reader's kind)",))
def stops_at_a_reduction(fuse_elementwise):
    g = _g("""
    x = input()
    m = multiply(x, x)
    e = exp(m)
    s = sum(e)
    n = negative(s)
    l = log(n)
    return l
    """)
    _check_graph("fuse_elementwise(log(-sum(exp(x * x))))", fuse_elementwise(g), """
    x = input()
    e = fused(x, body='m = multiply(x, x); e = exp(m)')
    s = sum(e)
    l = fused(s, body='n = negative(s); l = log(n)')
    return l
    """)


@checkpoint.test("fuse_elementwise", hint="A value read by two ops must be stored for both: "
                                          "absorb an op only when exactly one op reads it "
                                          "(graph.users()).",
                 hint_for=("fuses a value that has two readers",))
def a_value_with_two_readers_is_stored(fuse_elementwise):
    g = _g("""
    x = input()
    t = exp(x)
    a = negative(t)
    b = tanh(t)
    return a, b
    """)
    _check_graph("fuse_elementwise(t = exp(x) read by a and b)", fuse_elementwise(g), str(g))


@checkpoint.test("fuse_elementwise", hint="An output must be stored: never absorb an op that "
                                          "the graph returns.",
                 hint_for=("absorbs an output",))
def an_output_is_not_absorbed(fuse_elementwise):
    g = _g("""
    x = input()
    t = exp(x)
    u = negative(t)
    v = tanh(u)
    return t, v
    """)
    _check_graph("fuse_elementwise(return t = exp(x), v = tanh(-t))", fuse_elementwise(g), """
    x = input()
    t = exp(x)
    v = fused(t, body='u = negative(t); v = tanh(u)')
    return t, v
    """)


@checkpoint.test("fuse_elementwise", hint="One op that reads a value twice is still its only "
                                          "reader: users() lists each reader once.",
                 hint_for=("counts a reader twice when it reads the value twice",))
def one_reader_reading_twice(fuse_elementwise):
    g = _g("""
    x = input()
    y = input()
    t = exp(x)
    u = multiply(t, t)
    w = add(u, y)
    m = matmul(w, y)
    return m
    """)
    _check_graph("fuse_elementwise(exp(x) * exp(x) + y, then matmul)", fuse_elementwise(g), """
    x = input()
    y = input()
    w = fused(x, y, body='t = exp(x); u = multiply(t, t); w = add(u, y)')
    m = matmul(w, y)
    return m
    """)


@checkpoint.test("fuse_elementwise", hint="Two chains meeting in one op (a tree) are one group: "
                                          "collect the groups waiting on every arg. Results "
                                          "must not change.")
def fuses_a_tree_and_keeps_values(fuse_elementwise):
    g = _g("""
    x = input()
    y = input()
    a = exp(x)
    b = tanh(y)
    c = subtract(a, b)
    s = sum(c, axis=0)
    return s
    """)
    want = """
    x = input()
    y = input()
    c = fused(x, y, body='a = exp(x); b = tanh(y); c = subtract(a, b)')
    s = sum(c, axis=0)
    return s
    """
    before = str(g)
    got = fuse_elementwise(g)
    _check_graph("fuse_elementwise(sum(exp(x) - tanh(y), axis=0))", got, want)
    _unchanged("fuse_elementwise", g, before)
    rng = np.random.default_rng(11)
    inputs = {"x": rng.standard_normal((3, 2)), "y": rng.standard_normal((3, 2))}
    if not all(_close(a, b) for a, b in zip(_interpret(got, inputs), _interpret(g, inputs))):
        fail("values of the fused graph", "the same as before fusion", "different")



checkpoint.contract("fuse_elementwise", scenario=pass_scenario, hint=_GRAPH_HINT,
                    valid=_graphs("fuse").map(lambda t: Call((t,))))

# ------------------------------------------------------------------ stretch: simplify_identities

@checkpoint.test("simplify_identities", hint="x * 1 is x: drop y and let its reader read x.",
                 stretch=True)
def drops_a_multiply_by_one(simplify_identities):
    g = _g("""
    x = input()
    one = const(value=1.0)
    y = multiply(x, one)
    z = exp(y)
    return z
    """)
    _check_graph("simplify_identities(y = x * 1)", simplify_identities(g), """
    x = input()
    one = const(value=1.0)
    z = exp(x)
    return z
    """)


@checkpoint.test("simplify_identities", hint="0 + x and 1 * x are identities too: add and "
                                             "multiply work both ways round.", stretch=True,
                 hint_for=("identities on the right only",))
def identities_on_the_left(simplify_identities):
    g = _g("""
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    a = add(zero, x)
    b = multiply(one, a)
    z = negative(b)
    return z
    """)
    _check_graph("simplify_identities(a = 0 + x, b = 1 * a)", simplify_identities(g), """
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    z = negative(x)
    return z
    """)


@checkpoint.test("simplify_identities", hint="0 - x is -x and 1 / x is a reciprocal: only "
                                             "x - 0 and x / 1 give x back.", stretch=True,
                 hint_for=("0 - x and 1 / x taken for x",))
def subtract_and_divide_only_on_the_right(simplify_identities):
    text = """
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    a = subtract(zero, x)
    b = divide(one, a)
    c = subtract(b, zero)
    d = divide(c, one)
    return d
    """
    _check_graph("simplify_identities(0 - x, 1 / a, b - 0, c / 1)", simplify_identities(_g(text)),
                 """
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    a = subtract(zero, x)
    b = divide(one, a)
    return b
    """)


@checkpoint.test("simplify_identities", hint="x * 0 is not x, nor is x + 1: only the constants 0 "
                                             "(for + and -) and 1 (for * and /) vanish.",
                 stretch=True)
def other_constants_stay(simplify_identities):
    text = """
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    a = multiply(x, zero)
    b = add(x, one)
    c = add(a, b)
    return c
    """
    _check_graph("simplify_identities(x * 0, x + 1)", simplify_identities(_g(text)), text)


@checkpoint.test("simplify_identities", hint="Rename an op's args through the ops dropped so "
                                             "far before you test it: then w = y * 1 with y = x + "
                                             "0 goes too, and so do the outputs.", stretch=True,
                 hint_for=("tests the args before renaming them", "outputs not renamed"))
def chains_and_outputs(simplify_identities):
    g = _g("""
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    y = add(x, zero)
    w = multiply(y, one)
    e = exp(w)
    return w, e
    """)
    _check_graph("simplify_identities(y = x + 0, w = y * 1, return w, e)",
                 simplify_identities(g), """
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    e = exp(x)
    return x, e
    """)


@checkpoint.test("simplify_identities", hint="Build a new Graph; the one you were given must not "
                                             "change.", stretch=True)
def leaves_the_graph_alone(simplify_identities):
    g = _g("""
    x = input()
    one = const(value=1.0)
    y = multiply(x, one)
    z = exp(y)
    return z
    """)
    before = str(g)
    simplify_identities(g)
    _unchanged("simplify_identities(g)", g, before)



checkpoint.contract("simplify_identities", scenario=pass_scenario, hint=_GRAPH_HINT, stretch=True,
                    valid=_graphs("simplify").map(lambda t: Call((t,))))
