"""Lesson 07's test graphs and garbage builds, and the scenarios that observe a function
on them.

Public code with no answers in it: the checkpoint (``checkpoints/ep07.py``) calls these
through :func:`stridegrad.course._wire.in_its_process`, so when the grader's judge holds
a stand-in of the learner's function they run in the notebook's own process: the Vars
and nodes are built from a plain description where the learner's function lives (a
chain of 10,000 nodes is walked there, not through the wire), the garbage a build makes
is made and collected in that process, and only plain data (names, numbers, counts,
flags) comes back. The judge runs the same scenarios on the lesson's own functions and
compares; the hand-written tests' expected values stay in the checkpoint.

The graphs are built from the node classes the lesson imports
(``stridegrad.course.designs``: ``Var``, ``AccumulateGrad``, ``AddBackward``,
``MulBackward``, ``TanhBackward``).
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from stridegrad.course.checks import freed_when_dropped, short_repr
from stridegrad.course.designs import (
    AccumulateGrad,
    AddBackward,
    MulBackward,
    TanhBackward,
    Var,
    grad_accumulator,
)
from stridegrad.course.observe.ep06 import _at_the_default_recursion_limit, _with_gc_off


def _leaf(data, label):
    return Var(data, requires_grad=True, label=label)



# ------------------------------------------------------------------ contract scenarios
#
# Each contract builds its Vars and nodes from the plain description a case holds
# (``"Var(2.0, requires_grad=True)"``, ``"n1 = MulBackward(x, None)"``, ...), runs the
# learner's function on them and returns what it saw as plain data: numbers, and nodes
# and Vars by the names the case gives them. The lesson's own function, run through
# the same scenario, gives what is expected.

_VAR = re.compile(r"Var\((?P<data>[-+.\deE]+)(?P<rg>, requires_grad=True)?"
                  r"(?:, grad_fn=<(?P<node>\w+)>, output_nr=(?P<nr>\d+))?\)$")


def _var(text: str) -> tuple[Var, Any]:
    """A Var as ``text`` writes it: a leaf that requires grad, a constant, or a Var made
    by a node (``grad_fn=<MulBackward>``, whose own edges lead to a leaf of its own);
    ``"... used by a node"``: a leaf whose accumulator a node already holds. Returns the
    Var and what keeps its history alive."""
    used = text.endswith(" used by a node")
    match = _VAR.match(text.removesuffix(" used by a node"))
    data = float(match["data"])
    if match["node"]:
        other = _leaf(1.0, "")
        node = {"AddBackward": lambda: AddBackward(((grad_accumulator(other), 0),
                                                    (None, 0))),
                "MulBackward": lambda: MulBackward(((grad_accumulator(other), 0),
                                                    (None, 0)), 1.0, data),
                "TanhBackward": lambda: TanhBackward(((grad_accumulator(other), 0),),
                                                     0.5)}[match["node"]]()
        return Var(data, grad_fn=node, output_nr=int(match["nr"])), node
    var = Var(data, requires_grad=bool(match["rg"]))
    keep = AddBackward(((grad_accumulator(var), 0), (None, 0))) if used else None
    return var, keep


def _what(node: Any, named: dict) -> str:
    """A node as seen from the Vars ``named`` (name -> Var): the grad_fn of one, the
    accumulator grad_accumulator(var) gives for one, or another AccumulateGrad of one."""
    if node is None:
        return "None"
    for name, var in named.items():
        if node is var.grad_fn:
            return f"{name}.grad_fn"
    if isinstance(node, AccumulateGrad):
        for name, var in named.items():
            if node.variable is var:
                return (f"grad_accumulator({name})" if node is grad_accumulator(var)
                        else f"another AccumulateGrad of {name}")
        return "an AccumulateGrad of another Var"
    return f"a {type(node).__name__}"


def _edge(edge: Any, named: dict) -> Any:
    """An edge as plain data: its type, the node it leads to and its input_nr."""
    if not isinstance(edge, (tuple, list)) or len(edge) != 2:
        return f"{type(edge).__name__} {short_repr(edge, 60)}"
    return [type(edge).__name__, _what(edge[0], named), edge[1]]


def _freed(make: Callable[[], Any]) -> bool:
    """Whether what ``make()`` returns dies as soon as it is dropped (no cycle)."""
    was = gc.isenabled()
    gc.disable()
    try:
        return bool(freed_when_dropped([make()]))
    finally:
        if was:
            gc.enable()


def _edge_scenario(gradient_edge: Callable, var: str, *, calls: int = 1) -> dict:
    """``gradient_edge(var)``, ``calls`` times: each edge, whether every call gave the
    accumulator grad_accumulator(var) gives (a leaf that requires grad), and whether the
    Var is freed once it and its edges are dropped."""
    seen: dict = {}

    def run():
        v, keep = _var(var)
        edges = [gradient_edge(v) for _ in range(calls)]
        seen["edges"] = [_edge(e, {"var": v}) for e in edges]
        del edges, keep
        return v

    seen["var freed once dropped"] = _freed(run)
    return seen



def _binary_scenario(fn: Callable, a: str, b: str, *, apply_with: tuple = (1.0,)) -> dict:
    """``fn(a, b)`` for the Vars written (``b='a'``: a itself): the output's type, data,
    requires_grad, output_nr and grad_fn; the node's edges (seen from a and b), what its
    apply returns for each g of ``apply_with``, and the Vars it holds."""
    x, keep_x = _var(a)
    y, keep_y = (x, None) if b == "a" else _var(b)
    named = {"a": x, "b": y} if b != "a" else {"a": x}
    out = fn(x, y)
    seen: dict = {"type": type(out).__name__, "data": out.data,
                  "requires_grad": out.requires_grad, "output_nr": out.output_nr}
    node = out.grad_fn
    seen["grad_fn"] = None if node is None else type(node).__name__
    if node is not None:
        seen["next_functions"] = [_edge(e, named) for e in node.next_functions]
        seen["apply(g) for each g"] = [list(node.apply(g)) for g in apply_with]
        seen["Vars the node holds"] = sorted(k for k, v in vars(node).items()
                                             if isinstance(v, Var))
    return seen



class _Counted:
    """A node of a contract's graph: it notes each gradient its apply is called with, by
    the node's name, and the recursion limit each time its edges are read (so that a
    function that raises the limit while it runs, and puts it back, is seen doing so)."""

    def apply(self, grad):
        self.calls.setdefault(self.name_in_case, []).append(grad)
        return super().apply(grad)

    @property
    def next_functions(self):
        limits = self.__dict__.get("limits")
        if limits is not None:
            limits.add(sys.getrecursionlimit())
        return self.__dict__["next_functions"]

    @next_functions.setter
    def next_functions(self, edges):
        self.__dict__["next_functions"] = edges


class _CountedAcc(_Counted, AccumulateGrad):
    pass


class _CountedAdd(_Counted, AddBackward):
    pass


class _CountedMul(_Counted, MulBackward):
    pass


class _CountedTanh(_Counted, TanhBackward):
    pass


def _nodes(lines: tuple, chain: int, calls: dict) -> tuple[dict, dict, Any, set]:
    """The Vars and nodes of a graph written as lines: ``"x = Var(2.0, requires_grad=True)"``
    (a leaf), ``"c = Var(3.0)"`` (a constant), ``"n1 = x * y"``, ``"n2 = n1 + c"``,
    ``"n3 = tanh(n2)"``; the last line's node is the root's, with ``chain`` tanh nodes
    (at 0, each passing its gradient on as it is) on top of it. Returns the Vars and
    the nodes by name (a leaf's node is its accumulator), the root's node, and the set
    the nodes note the recursion limit in when their edges are read."""
    vars_: dict = {}
    nodes: dict = {}

    def edge(name):
        var = vars_[name]
        if var.grad_fn is not None:
            return (var.grad_fn, 0)
        return (nodes[name], 0) if var.requires_grad else (None, 0)

    limits: set = set()

    def named(node, name):
        node.name_in_case, node.calls, node.limits = name, calls, limits
        nodes[name] = node
        return node

    for line in lines:
        name, _, expr = line.partition(" = ")
        parts = expr.split()
        if expr.startswith("Var("):
            var = Var(float(_VAR.match(expr)["data"]), requires_grad="requires_grad" in expr)
            if var.requires_grad:
                named(_CountedAcc(var), name)
        elif expr.startswith("tanh("):
            a = vars_[expr[5:-1]]
            t = math.tanh(a.data)
            var = Var(t, grad_fn=named(_CountedTanh((edge(expr[5:-1]),), t), name))
        elif parts[1] == "+":
            a, b = vars_[parts[0]], vars_[parts[2]]
            var = Var(a.data + b.data, grad_fn=named(
                _CountedAdd((edge(parts[0]), edge(parts[2]))), name))
        else:
            a, b = vars_[parts[0]], vars_[parts[2]]
            var = Var(a.data * b.data, grad_fn=named(
                _CountedMul((edge(parts[0]), edge(parts[2])), a.data, b.data), name))
        vars_[name] = var
    root = vars_[name].grad_fn
    for _ in range(chain):
        root = _CountedTanh(((root, 0),), 0.0)
        root.name_in_case, root.calls, root.limits = "chain", calls, limits
    return vars_, nodes, root, limits


def _dependencies_scenario(count_dependencies: Callable, lines: tuple, *,
                           chain: int = 0) -> dict:
    """``count_dependencies`` of the root's node: the counts by node name (a leaf's
    accumulator by the leaf's name; the chain's nodes as how many there are and their
    counts), and whether it ran at another recursion limit than the default one."""
    def run():
        _, nodes, root, limits = _nodes(lines, chain, {})
        names = {id(node): name for name, node in nodes.items()}
        got, raised = _at_the_default_recursion_limit(lambda: count_dependencies(root),
                                                      limits)
        counts = {}
        chained = []
        for node, count in got.items():
            if getattr(node, "name_in_case", "") == "chain":
                chained.append(count)
            else:
                counts[names.get(id(node), "None" if node is None
                                 else f"a {type(node).__name__}")] = count
        if chain:
            counts["chain"] = [len(chained), sorted(set(map(repr, chained)))]
        return {"type": type(got).__name__, "counts": counts,
                "recursion limit raised": raised}
    return _with_gc_off(run)


def _backward_scenario(run_backward: Callable, lines: tuple, *,
                       grads_before: dict | None = None, chain: int = 0) -> dict:
    """``run_backward`` of the last line's Var (with ``chain`` tanh nodes on top): every
    Var's grad after it (the leaves' with ``grads_before`` added to), the gradients each
    node's apply was called with (the chain's together), and whether it ran at another
    recursion limit than the default one."""
    def run():
        calls: dict = {}
        vars_, _, root, limits = _nodes(lines, chain, calls)
        for name, grad in (grads_before or {}).items():
            vars_[name].grad = grad
        top = vars_[lines[-1].partition(" = ")[0]]
        if chain:
            top = Var(top.data, grad_fn=root)
        _, raised = _at_the_default_recursion_limit(lambda: run_backward(top), limits)
        if chain:
            chained = calls.pop("chain", [])
            calls["chain"] = [len(chained), sorted(set(chained))]
        return {"grads": {name: var.grad for name, var in vars_.items()},
                "apply calls": calls, "recursion limit raised": raised}
    return _with_gc_off(run)



def product_apply(fn: Callable, a: float, b: float, g: float) -> dict:
    """``fn(a, b)`` of two leaves that require grad, built here: what its grad_fn's
    ``apply(g)`` returns (``"apply"``), or what ``fn`` returned when that is not a Var
    (``"not a Var"``). A node that saved the Vars themselves fails here as it does in
    the notebook, multiplying a gradient by a Var."""
    out = fn(_leaf(a, "a"), _leaf(b, "b"))
    if not isinstance(out, Var):
        return {"not a Var": out}
    return {"apply": out.grad_fn.apply(g)}


def long_chain_counts(count_dependencies: Callable, n: int) -> Any:
    """``count_dependencies`` of a chain of ``n + 1`` tanh nodes on top of a leaf's
    accumulator: how many entries it has, the count of the chain's first node and the
    root's (what it returned instead, when that is not a dict)."""
    node = TanhBackward(((AccumulateGrad(_leaf(1.0, "x")), 0),), 0.0)
    first = node
    for _ in range(n):
        node = TanhBackward(((node, 0),), 0.0)
    got = count_dependencies(node)
    if not isinstance(got, dict):
        return got
    return [len(got), got.get(first), got.get(node)]


def long_chain_grad(run_backward: Callable, n: int) -> Any:
    """``run_backward`` of a chain of ``n + 1`` tanh nodes at 0 (each passing its gradient
    on as it is) on top of a leaf x's accumulator: x's grad afterwards."""
    x = _leaf(0.0, "x")
    node = TanhBackward(((AccumulateGrad(x), 0),), 0.0)
    for _ in range(n):
        node = TanhBackward(((node, 0),), 0.0)
    run_backward(Var(0.0, grad_fn=node))
    return x.grad


# ------------------------------------------------------------------ garbage builds

def _pairs(n):
    """``n`` cycles of 2 lists (each holding the other), returned."""
    out = []
    for _ in range(n):
        a = []
        b = [a]
        a.append(b)
        out.append(a)
    return out


def _drop_pairs(n):
    """``n`` cycles of 2 lists, each dropped at once: garbage while the build runs."""
    for _ in range(n):
        a = []
        b = [a]
        a.append(b)


@contextlib.contextmanager
def _only_new_objects() -> Iterator[None]:
    """The objects alive now kept out of the collector's sight for the time of the
    ``with`` (``gc.freeze``): a collection walks only what the code tested makes (quick,
    however big the notebook's heap), and garbage from before is not seen. Unfrozen
    afterwards, unless something had frozen objects before."""
    frozen_before = gc.get_freeze_count()
    gc.freeze()
    try:
        yield
    finally:
        if not frozen_before:
            gc.unfreeze()


class _BuildFailed(ValueError):
    """What a build that raises raises."""


def _raise():
    raise _BuildFailed("build failed")


#: what a contract case's build does, by its description; n is the case's number
_BUILDS = {
    "returns n cycles of 2 lists": lambda n: _pairs(n),
    "makes and drops n cycles of 2 lists while it runs": lambda n: _drop_pairs(n),
    "returns n lists, no cycles": lambda n: [[k] for k in range(n)],
    "raises ValueError": lambda n: _raise(),
}

#: the builds the hand-written tests use besides those (the tests' calls show them)
_TEST_BUILDS = {
    "returns n lists of 2 numbers, no cycles": lambda n: [[k, k + 1] for k in range(n)],
    "returns None": lambda n: None,
}


def _garbage_scenario(count_cycle_garbage: Callable, build: str, n: int, *,
                      collector_on: bool = True, older_garbage: int = 0) -> dict:
    """``count_cycle_garbage(build)`` with the automatic collector on or off before, and
    ``older_garbage`` cycles of 2 lists dropped before the call: what it returns (or that
    build's error came through), and whether the collector is on afterwards."""
    make = {**_BUILDS, **_TEST_BUILDS}[build]
    was = gc.isenabled()
    gc.disable()
    try:
        with _only_new_objects():
            _pairs(older_garbage)  # dropped at once: garbage from before the call
            (gc.enable if collector_on else gc.disable)()
            try:
                outcome: Any = count_cycle_garbage(lambda: make(n))
            except _BuildFailed as exc:
                outcome = f"raised {type(exc).__base__.__name__}: {exc}"
            return {"returned": outcome, "collector on after": gc.isenabled()}
    finally:
        (gc.enable if was else gc.disable)()
