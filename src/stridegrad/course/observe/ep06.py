"""Lesson 06's test graphs, and the scenarios that observe a function on them.

Public code with no answers in it: the checkpoint (``checkpoints/ep06.py``) builds its
nodes with these, and the grader's worker runs the scenarios in the notebook's own
process when the judge asks (:func:`stridegrad.course._wire.in_its_process`), so a
graph of thousands of nodes is walked where the learner's function lives and only
plain data (names, numbers, counts) comes back. The judge runs the same scenarios on
the lesson's own functions, outside, and compares.

The tests build their graphs from a tiny node class (``_Node``, with the attributes
the lesson's ``Value`` has: ``data``, ``grad``, ``_prev``, ``_op``, ``_backward``).
"""

from __future__ import annotations

import gc
import math
import sys
from collections.abc import Callable
from typing import Any


class _Node:
    """A stand-in for the lesson's Value: what the exercises may read and write."""

    def __init__(self, data, children=(), op="", backward=None, name=""):
        self.data = float(data)
        self.grad = 0.0
        self._prev = tuple(children)
        self._op = op
        self._backward = backward
        self.name = name

    def __repr__(self):
        return self.name or f"node({self.data:g})"


def _leaf(data, name=""):
    return _Node(data, name=name)


def _plus(a, b):
    def back(g):
        a.grad += g
        b.grad += g
    return _Node(a.data + b.data, (a, b), "+", back, f"({a!r} + {b!r})")


def _times(a, b):
    def back(g):
        a.grad += b.data * g
        b.grad += a.data * g
    return _Node(a.data * b.data, (a, b), "*", back, f"({a!r} * {b!r})")


def _name_of(node: Any, names: dict) -> str:
    """A node by the name the scenario gave it; anything else by its type."""
    return names.get(id(node), f"a {type(node).__name__}")


def _with_gc_off(run: Callable[[], Any]) -> Any:
    was = gc.isenabled()
    gc.disable()
    try:
        return run()
    finally:
        if was:
            gc.enable()


def _copy(a, calls: dict | None = None):
    """One step of a chain: the same number, the gradient passed on as it is (each call
    counted in ``calls["chain"]``)."""
    def back(g):
        a.grad += g
        if calls is not None:
            calls["chain"] = calls.get("chain", 0) + 1
    return _Node(a.data, (a,), "copy", back)


def _tanh_of(a):
    t = math.tanh(a.data)

    def back(g):
        a.grad += (1.0 - t * t) * g
    return _Node(t, (a,), "tanh", back)


def _graph(lines: tuple, chain: int, calls: dict | None = None) -> tuple[dict, Any]:
    """The nodes of a graph written as lines ``"x = 2.0"``, ``"n1 = x * y"``, ``"n2 =
    tanh(n1)"`` (the last line is the root), with ``chain`` copies on top of it (each
    ``"chainK"`` made from the one before; the last is then the root). Every closure
    counts its calls in ``calls``, by name (the chain's together)."""
    nodes: dict = {}
    for line in lines:
        name, _, expr = line.partition(" = ")
        parts = expr.split()
        if expr.startswith("tanh("):
            node = _tanh_of(nodes[expr[5:-1]])
        elif len(parts) == 3:
            node = (_plus if parts[1] == "+" else _times)(nodes[parts[0]], nodes[parts[2]])
        else:
            node = _leaf(float(expr))
        node.name = name
        nodes[name] = node
    if calls is not None:
        for node in nodes.values():
            if node._backward is not None:
                node._backward = _counted(node._backward, node.name, calls)
    root = node
    for k in range(chain):
        root = _copy(root, calls)
        root.name = f"chain{k + 1}"
    _watched([*nodes.values(), *_chain_nodes(root, chain)], set())
    return nodes, root


def _chain_nodes(root: Any, chain: int) -> list:
    out = []
    for _ in range(chain):
        out.append(root)
        root = root._prev[0]
    return out


def _counted(back: Callable, name: str, calls: dict) -> Callable:
    def counted(g):
        calls[name] = calls.get(name, 0) + 1
        back(g)
    return counted


def _depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


class _Watched(_Node):
    """A node of a contract's graph: it notes the recursion limit each time its inputs
    are read, so that a function that raises the limit while it runs (and puts it back)
    is seen doing so."""

    @property
    def _prev(self):
        self.limits.add(sys.getrecursionlimit())
        return self.__dict__["_prev"]


def _watched(nodes: list, limits: set) -> None:
    for node in nodes:
        node.__class__, node.limits = _Watched, limits


def _at_the_default_recursion_limit(run: Callable[[], Any], limits: set) -> tuple[Any, bool]:
    """``run()`` at Python's default recursion limit, 1,000 frames (more only when the
    caller is already that deep); also whether the limit was another one while the
    nodes were read (``limits``, which the watched nodes fill) or after ``run``."""
    old = sys.getrecursionlimit()
    limit = max(1000, _depth() + 200)
    sys.setrecursionlimit(limit)
    try:
        limits.clear()
        result = run()
        return result, limits | {sys.getrecursionlimit()} != {limit}
    finally:
        sys.setrecursionlimit(old)


def _state(nodes: dict, root: Any, chain: int) -> dict:
    """Every node's (data, grad), by name; the chain's as one entry (its distinct
    values)."""
    out = {name: (n.data, n.grad) for name, n in nodes.items()}
    if chain:
        out["chain1 ... chain" + str(chain)] = sorted({(n.data, n.grad)
                                                      for n in _chain_nodes(root, chain)})
    return out


def _topological_scenario(fn: Callable, lines: tuple, *, chain: int = 0) -> dict:
    return _with_gc_off(lambda: _topological(fn, lines, chain))


def _topological(fn: Callable, lines: tuple, chain: int) -> dict:
    """Call ``fn(root)`` on the graph; what it listed (the graph's nodes by name, the
    chain's as a count), whether the root is last, the nodes listed before one of their
    inputs, whether any node's data or grad changed, and whether it ran at another
    recursion limit than the default one. Any order that lists each node after all its inputs is right: the
    order itself is not compared."""
    nodes, root = _graph(lines, chain)
    names = {id(n): name for name, n in nodes.items()}
    names.update({id(n): n.name for n in _chain_nodes(root, chain)})
    before = _state(nodes, root, chain)
    order, raised_limit = _at_the_default_recursion_limit(lambda: fn(root), root.limits)
    items = list(order)
    listed = [_name_of(n, names) for n in items]
    where: dict = {}
    for k, n in enumerate(items):
        where.setdefault(id(n), k)
    early = [f"{_name_of(n, names)} before its input {_name_of(p, names)}"
             for n in items for p in getattr(n, "_prev", ())
             if where.get(id(p), -1) > where[id(n)]]
    return {"type": type(order).__name__,
            "listed": sorted(name for name in listed if not name.startswith("chain"))
            + ([f"{sum(name.startswith('chain') for name in listed)} chain nodes"]
               if chain else []),
            "root last": bool(items) and items[-1] is root,
            "listed before an input": early[:3],
            "graph unchanged": _state(nodes, root, chain) == before,
            "recursion limit raised": raised_limit}


def _backward_scenario(fn: Callable, lines: tuple, *, grads_before: dict | None = None,
                       calls: int = 1, chain: int = 0) -> dict:
    return _with_gc_off(lambda: _backward(fn, lines, grads_before, calls, chain))


def _backward(fn: Callable, lines: tuple, grads_before: dict | None, calls: int,
              chain: int) -> dict:
    """Set the grads of ``grads_before`` (a leaf's, or an interior node's left over),
    call ``fn(root)`` ``calls`` times; every node's (data, grad) after each call, how
    many times each closure ran, and whether it ran at another recursion limit than the
    default one."""
    ran: dict = {}
    nodes, root = _graph(lines, chain, ran)
    for name, grad in (grads_before or {}).items():
        nodes[name].grad = grad
    seen: dict = {"after each call": [], "closure calls": ran,
                  "recursion limit raised": False}
    for _ in range(calls):
        _, raised = _at_the_default_recursion_limit(lambda: fn(root), root.limits)
        seen["after each call"].append(_state(nodes, root, chain))
        seen["recursion limit raised"] |= raised
    return seen


def long_chain_grad(backward: Callable, n: int) -> float:
    """``backward`` of ``x * 1 * 1 * ...`` (``n`` products), the cycle collector off
    (``2n`` new nodes would make it walk the heap): x's grad afterwards."""
    def run():
        x = _leaf(1.0, "x")
        node = x
        for _ in range(n):
            node = _times(node, _leaf(1.0))
            node.name = "x * 1 * ..."  # a short name: each product's name holds its inputs'
        backward(node)
        return x.grad
    return _with_gc_off(run)
