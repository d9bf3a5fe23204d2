"""Between the traced IR and the pass IR: :func:`lower` and :func:`raise_graph`.

A trace gives a :class:`stridegrad.compile.ir.Graph`: nodes with shapes, dtypes,
literal arguments and a device. The passes (lesson 11's exercises, in
:mod:`stridegrad.compile.graph`) run on the smaller IR of that module, where every
argument is the name of a value. :func:`lower` turns the first into the second:

* a placeholder becomes an ``input`` op named by its label (``model.0.weight`` ->
  ``model_0_weight``), a constant a ``const`` op holding the array itself, node
  ``%7`` an op named ``v7``;
* every literal argument (the ``2.0`` of ``x * 2.0``, the ``(1, 0)`` of a
  transpose, the dtype of ``astype``) and every literal output becomes a ``const`` op
  of its own (one per distinct value);
* ``ones_like(x)`` and ``zeros_like(x)``, whose value depends on the shape of ``x``
  only, become ``ones(shape, dtype=...)`` and ``zeros(...)``: ops with only constant
  arguments, which constant folding computes once;
* a ``fused`` node (of a graph that was optimized already) keeps its kernel program.

It also gives, for every name, the node it came from (its shape and dtype, a
placeholder's source). :func:`raise_graph` goes back: ``const`` ops that hold no
array become literal arguments again, and each ``fused`` op's body becomes a
:class:`stridegrad.compile.kernels.Program`, the code the kernels are generated from.
"""

from __future__ import annotations

import re
from typing import Any

from stridegrad.compile import graph as G
from stridegrad.compile import kernels as _kernels
from stridegrad.compile import ops as _ops
from stridegrad.compile.ir import Graph, Node

__all__ = ["lower", "raise_graph"]

# ops whose value depends only on the shape and dtype of their input
_SHAPE_ONLY = {"zeros_like": "zeros", "ones_like": "ones"}


class _Inline:
    """A value that goes back into its users as a literal argument (not a node)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def lower(graph: Graph, *, shown: bool = False) -> tuple[G.Graph, dict[str, Node]]:
    """``graph`` in the pass IR, and the node each name came from (literals: none).

    Placeholders keep their order, so ``ops.inputs`` lists the values
    :meth:`Graph.run` takes, in its order. ``shown=True`` gives the form
    :func:`stridegrad.compile.graph.from_library` shows a learner: every literal a
    ``const`` op of its own, ``ones_like`` and ``zeros_like`` as they are.
    """
    ops: list[G.Op] = []
    names: dict[int, str] = {}
    origin: dict[str, Node] = {}
    taken: set[str] = set()
    literals: dict[Any, str] = {}

    def fresh(base: str) -> str:
        base = re.sub(r"\W", "_", base).strip("_") or "v"
        if base[0].isdigit():
            base = "v" + base
        name, k = base, 1
        while name in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name)
        return name

    def literal(value: Any) -> str:
        try:
            key = G.freeze(value)
        except TypeError:
            key = ("id", id(value))
        name = None if shown else literals.get(key)
        if name is None:
            name = literals[key] = fresh(f"c{len(ops)}")
            ops.append(G.Op(name, "const", (), {"value": value}))
        return name

    with G.on_backend(graph.xp):
        for n in graph.nodes:
            if n.op == "placeholder":
                op = G.Op(fresh(n.attrs.get("label", n.name)), "input")
            elif n.op == "constant":
                op = G.Op(fresh(n.name.replace("%", "v")), "const", (),
                          {"value": n.attrs["value"]})
            elif n.op in _SHAPE_ONLY and not shown:
                op = G.Op(fresh(n.name.replace("%", "v")), _SHAPE_ONLY[n.op],
                          (literal(n.shape),), {"dtype": n.dtype})
            else:
                args = [names[id(a)] if isinstance(a, Node) else literal(a) for a in n.inputs]
                attrs = n.attrs
                if n.op == "fused":
                    program = n.attrs["program"]
                    attrs = {"body": _kernels.expression(program, args), "program": program}
                op = G.Op(fresh(n.name.replace("%", "v")), n.op, args, attrs)
            names[id(n)] = op.name
            origin[op.name] = n
            ops.append(op)
        outputs = [names[id(o)] if isinstance(o, Node) else literal(o) for o in graph.outputs]
        return G.Graph(ops, outputs), origin


def _node_of(origin: dict[str, Node], name: str) -> Node:
    node = origin.get(name)
    if node is None:
        raise ValueError(f"a pass made a value named {name!r} that the traced graph has no "
                         "shape or dtype for: a pass keeps the names of the ops it keeps")
    return node


def _ref(env: dict[str, Any], name: str) -> Any:
    """What an op's argument ``name`` is in the traced IR: its node, or the literal."""
    v = env[name]
    return v.value if isinstance(v, _Inline) else v


def _add_op(new: Graph, op: G.Op, node: Node, env: dict[str, Any]) -> Node:
    """The traced node of the pass IR's op ``op``, with ``node``'s shape and dtype."""
    attrs = {k: G._unwrap(v) for k, v in op.attrs.items()}
    return new.add(op.op, tuple(_ref(env, a) for a in op.args), attrs, node.shape, node.dtype)


def raise_graph(ops: G.Graph, origin: dict[str, Node], like: Graph) -> Graph:
    """The graph ``ops`` (lowered from ``like``, then rewritten by passes) in the traced
    IR again, on ``like``'s device with its ``meta``; fused ops get their programs."""
    new = like.empty_like()
    env: dict[str, Any] = {}  # name -> Node or _Inline

    for op in ops.ops:
        if op.op == "input":
            n = _node_of(origin, op.name)
            env[op.name] = new.add("placeholder", (), n.attrs, n.shape, n.dtype, name=n.name)
        elif op.op == "const":
            value = G._unwrap(op.attrs["value"])
            if _ops.is_array(value):
                env[op.name] = new.add("constant", (), {"value": value}, tuple(value.shape),
                                       value.dtype)
            else:
                env[op.name] = _Inline(value)
        elif op.op == "fused":
            _raise_fused(new, op, origin, env)
        else:
            env[op.name] = _add_op(new, op, _node_of(origin, op.name), env)
    new.outputs = [_ref(env, name) for name in ops.outputs]
    return new


def _raise_fused(new: Graph, op: G.Op, origin: dict[str, Node], env: dict[str, Any]) -> None:
    """Add the node of one fused op: its program from the body, or the one it kept.

    A body with a step the backend's kernels cannot run
    (:func:`stridegrad.compile.kernels.generates`) goes back as its ops, one by one.
    """
    n = _node_of(origin, op.name)
    program = op.attrs.get("program")
    if program is not None:
        env[op.name] = new.add("fused", tuple(env[a] for a in op.args),
                               {"program": G._unwrap(program)}, n.shape, n.dtype)
        return
    members = G.body_ops(op)
    nodes = [_node_of(origin, m.name) for m in members]
    if not all(_kernels.generates(m.op, node.dtype, new.xp) for m, node in zip(members, nodes)):
        for m, node in zip(members, nodes):
            env[m.name] = _add_op(new, m, node, env)
        return
    step_of: dict[str, int] = {}
    ext: list[Node] = []
    ext_index: dict[str, int] = {}
    steps = []
    for j, (m, node) in enumerate(zip(members, nodes)):
        args = []
        for a in (m.args[:1] if m.op == "astype" else m.args):  # astype: its dtype is the step's
            if a in step_of:
                args.append(("s", step_of[a]))
                continue
            v = env[a]
            if isinstance(v, _Inline):
                args.append(("lit", v.value))
            else:
                if a not in ext_index:
                    ext_index[a] = len(ext)
                    ext.append(v)
                args.append(("in", ext_index[a]))
        steps.append((m.op, tuple(args), tuple(sorted(m.attrs.items())), node.shape,
                      node.dtype))
        step_of[m.name] = j
    program = _kernels.Program(tuple(steps), len(ext))
    env[op.name] = new.add("fused", tuple(ext), {"program": program}, n.shape, n.dtype)
