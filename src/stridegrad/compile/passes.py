"""Graph passes: each is a pure function ``Graph -> Graph`` (the input is left as it was).

==================================  =================================================
pass                                what it does
==================================  =================================================
``constant_fold``                   computes, once, every node whose inputs are all
                                    constants (``2 * 3``, ``zeros(...)``), and keeps
                                    the result as a constant
``eliminate_common_subexpressions`` two nodes with the same op, inputs and attributes
                                    compute the same value: keep the first
``eliminate_dead_code``             drops nodes that no output depends on
``fuse_elementwise``                merges a chain of elementwise ops into one
                                    ``fused`` node: one kernel, no temporaries
==================================  =================================================

``optimize(graph)`` runs them in that order (:data:`DEFAULT_PASSES`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stridegrad.compile import kernels as _kernels
from stridegrad.compile import ops as _ops
from stridegrad.compile.ir import Graph, Node

__all__ = [
    "DEFAULT_PASSES",
    "constant_fold",
    "eliminate_common_subexpressions",
    "eliminate_dead_code",
    "fuse_elementwise",
    "optimize",
]


def _inputs(n: Node, env: dict[int, Node]) -> tuple:
    return tuple(env[id(a)] if isinstance(a, Node) else a for a in n.inputs)


def _copy(new: Graph, n: Node, env: dict[int, Node]) -> Node:
    name = n.name if n.op == "placeholder" else None
    return new.add(n.op, _inputs(n, env), n.attrs, n.shape, n.dtype, name=name)


def _finish(old: Graph, new: Graph, env: dict[int, Node]) -> Graph:
    new.outputs = [env[id(o)] if isinstance(o, Node) else o for o in old.outputs]
    return new


# --------------------------------------------------------------------------- DCE


def eliminate_dead_code(graph: Graph) -> Graph:
    """Keep only the nodes some output depends on (placeholders always stay: they are
    the function's inputs)."""
    live: set[int] = set()
    stack = [o for o in graph.outputs if isinstance(o, Node)]
    while stack:
        n = stack.pop()
        if id(n) in live:
            continue
        live.add(id(n))
        stack.extend(a for a in n.inputs if isinstance(a, Node))
    new, env = graph.empty_like(), {}
    for n in graph.nodes:
        if id(n) in live or n.op == "placeholder":
            env[id(n)] = _copy(new, n, env)
    return _finish(graph, new, env)


# --------------------------------------------------------------------------- CSE


def _freeze(v: Any) -> Any:
    """A hashable key for a literal or attribute value; ``TypeError`` if there is none."""
    if isinstance(v, float):  # by its text: -0.0 is not 0.0 (1 / x differs)
        return ("float", repr(v))
    if isinstance(v, (bool, int, str)) or v is None:
        return (type(v).__name__, v)
    if isinstance(v, (tuple, list)):
        return ("seq", tuple(_freeze(x) for x in v))
    if isinstance(v, slice):
        return ("slice", _freeze(v.start), _freeze(v.stop), _freeze(v.step))
    if v is Ellipsis:
        return ("...",)
    if isinstance(v, dict):
        return ("dict", tuple(sorted((k, _freeze(x)) for k, x in v.items())))
    if _ops.is_array(v):
        return ("array", id(v))
    hash(v)  # dtypes, Programs
    return ("obj", type(v).__name__, v)


def eliminate_common_subexpressions(graph: Graph) -> Graph:
    """Replace a node by an earlier one with the same op, inputs and attributes."""
    new, env = graph.empty_like(), {}
    seen: dict[Any, Node] = {}
    for n in graph.nodes:
        inputs = _inputs(n, env)
        key = None
        if n.op != "placeholder":
            try:
                key = (n.op,
                       tuple(("node", id(a)) if isinstance(a, Node) else _freeze(a)
                             for a in inputs),
                       _freeze(n.attrs))
            except TypeError:
                key = None
        if key is not None and key in seen:
            env[id(n)] = seen[key]
            continue
        env[id(n)] = m = _copy(new, n, env)
        if key is not None:
            seen[key] = m
    return _finish(graph, new, env)


# --------------------------------------------------------------------------- folding


_SHAPE_ONLY = {"zeros_like": "zeros", "ones_like": "ones"}


def constant_fold(graph: Graph) -> Graph:
    """Compute every node whose array inputs are all constants (or whose value depends
    only on shapes, like ``ones_like(x)``) and keep the result as a constant."""
    new, env = graph.empty_like(), {}
    for n in graph.nodes:
        inputs = _inputs(n, env)
        if n.op in _SHAPE_ONLY:  # the value depends on the input's shape only
            value = getattr(graph.xp, _SHAPE_ONLY[n.op])(n.shape, dtype=n.dtype)
            env[id(n)] = new.add("constant", (), {"value": value}, n.shape, n.dtype)
        elif n.is_compute and all(a.op == "constant" for a in inputs if isinstance(a, Node)):
            args = tuple(a.attrs["value"] if isinstance(a, Node) else a for a in inputs)
            value = _ops.evaluate(n.op, graph.xp, args, n.attrs)
            env[id(n)] = new.add("constant", (), {"value": value}, n.shape, n.dtype)
        else:
            env[id(n)] = _copy(new, n, env)
    return _finish(graph, new, env)


# --------------------------------------------------------------------------- fusion


def _fusible(n: Node, xp: Any) -> bool:
    if n.op not in _ops.ELEMENTWISE:
        return False
    if getattr(xp, "__name__", "") == "stridegrad.array":
        # the scalar loop reproduces the python backend's float arithmetic exactly;
        # integer and boolean arithmetic keep their own rules, so they stay unfused
        kind = getattr(n.dtype, "kind", "")
        return kind == "f" or n.op in _ops.COMPARISONS or (n.op == "astype" and kind == "b")
    return True


def fuse_elementwise(graph: Graph) -> Graph:
    """Merge chains of elementwise nodes into ``fused`` nodes.

    Grouping, walking from the outputs back: an elementwise node joins the group of
    its users when all its users are in one group (and it is not an output), so
    its value is needed only inside that group and never has to be stored. The
    group's last node becomes one ``fused`` node whose program lists the steps.
    """
    users = graph.users()
    outs = {id(o) for o in graph.outputs if isinstance(o, Node)}
    group_of: dict[int, int] = {}
    groups: list[list[Node]] = []
    for n in reversed(graph.nodes):
        if not _fusible(n, graph.xp):
            continue
        us = users[n]
        gids = {group_of.get(id(u)) for u in us}
        if us and id(n) not in outs and len(gids) == 1 and None not in gids:
            gid = gids.pop()
            groups[gid].append(n)
        else:
            gid = len(groups)
            groups.append([n])
        group_of[id(n)] = gid
    order = {id(n): i for i, n in enumerate(graph.nodes)}
    new, env = graph.empty_like(), {}
    for n in graph.nodes:
        gid = group_of.get(id(n))
        members = groups[gid] if gid is not None else None
        if members is None or len(members) == 1:
            env[id(n)] = _copy(new, n, env)
            continue
        if n is not members[0]:
            continue  # used only inside its group: computed by the fused kernel
        members = sorted(members, key=lambda m: order[id(m)])
        step_of = {id(m): j for j, m in enumerate(members)}
        ext: list[Node] = []
        ext_index: dict[int, int] = {}
        steps = []
        for m in members:
            args = []
            inputs = m.inputs[:1] if m.op == "astype" else m.inputs
            for a in inputs:
                if isinstance(a, Node) and id(a) in step_of:
                    args.append(("s", step_of[id(a)]))
                elif isinstance(a, Node):
                    if id(a) not in ext_index:
                        ext_index[id(a)] = len(ext)
                        ext.append(env[id(a)])
                    args.append(("in", ext_index[id(a)]))
                else:
                    args.append(("lit", a))
            steps.append((m.op, tuple(args), tuple(sorted(m.attrs.items())), m.shape, m.dtype))
        program = _kernels.Program(tuple(steps), len(ext))
        env[id(n)] = new.add("fused", tuple(ext), {"program": program}, n.shape, n.dtype)
    return _finish(graph, new, env)


DEFAULT_PASSES: tuple[Callable[[Graph], Graph], ...] = (
    constant_fold,
    eliminate_common_subexpressions,
    eliminate_dead_code,
    fuse_elementwise,
)


def optimize(graph: Graph, passes: tuple = DEFAULT_PASSES) -> Graph:
    """Run ``passes`` in order; each gets the previous one's graph."""
    for p in passes:
        graph = p(graph)
    return graph
