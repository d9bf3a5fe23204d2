"""The graph IR: a ``Graph`` is a list of ``Node``s in execution order, plus outputs.

Every node is one value (static single assignment): ``op`` names what computes it
(see :mod:`stridegrad.compile.ops`), ``inputs`` are earlier nodes or literals
(Python numbers, shapes, dtypes), ``attrs`` are keyword arguments, and ``shape``
and ``dtype`` are what tracing saw. Two ops are special:

* ``placeholder``: a value read on each call: a tensor argument's data, or the
  data or gradient of a tensor the function captured (a model parameter).
  ``attrs["source"]`` says which: ``("arg", i, "data")``, ``("cap", k, "data")``
  or ``("cap", k, "grad")``.
* ``constant``: an array fixed at trace time (``attrs["value"]``).

``graph.outputs`` lists the values the function returns and the values it writes
back into tensors (parameter updates, gradients); ``graph.meta`` says how to
rebuild them and is carried unchanged through every pass.

>>> print(g)                                          # doctest: +SKIP
graph on cpu: 2 inputs, 3 ops, 1 output
  %0  placeholder  x                  float32[4]
  %1  placeholder  y                  float32[4]
  %2  multiply     %0, %1             float32[4]
  %3  add          %2, 1.0            float32[4]
  return %3
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from stridegrad.compile import kernels as _kernels
from stridegrad.compile import ops as _ops

__all__ = ["VIEW_OPS", "Graph", "Node", "dtype_name", "literal_text"]

# ops that make a view (no new array, no pass over the data) on NumPy
VIEW_OPS = frozenset(["reshape", "permute_dims", "mT", "T", "getitem", "broadcast_to",
                      "expand_dims"])


def dtype_name(dtype: Any) -> str:
    """``float32`` for a dtype of any namespace."""
    name = getattr(dtype, "name", None)
    return name if isinstance(name, str) else str(dtype).rsplit(".", 1)[-1]


class Node:
    """One value of a graph: ``op(*inputs, **attrs)`` with a static shape and dtype."""

    __slots__ = ("attrs", "dtype", "inputs", "name", "op", "shape")

    def __init__(self, op: str, inputs: tuple, attrs: dict, shape: tuple, dtype: Any,
                 name: str) -> None:
        self.op = op
        self.inputs = tuple(inputs)
        self.attrs = dict(attrs)
        self.shape = tuple(shape)
        self.dtype = dtype
        self.name = name

    @property
    def is_compute(self) -> bool:
        """Whether running it does work (not a placeholder or a constant)."""
        return self.op not in ("placeholder", "constant")

    def __repr__(self) -> str:
        return f"<Node {self.name} = {self.op} {dtype_name(self.dtype)}{list(self.shape)}>"


def literal_text(v: Any) -> str:
    """How a table shows a literal argument: ``2.0``, ``0:2``, ``...``, ``array[3]``."""
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, slice):
        parts = ["" if p is None else str(p) for p in (v.start, v.stop, v.step)]
        return ":".join(parts[:2]) + (f":{parts[2]}" if v.step is not None else "")
    if v is Ellipsis:
        return "..."
    if isinstance(v, tuple):
        return "(" + ", ".join(literal_text(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if _ops.is_array(v):
        return f"array{list(v.shape)}"
    if isinstance(v, (type, np.dtype)):
        return dtype_name(v)
    return repr(v)


@dataclass(frozen=True)
class DiagramNode:
    """One node of :meth:`Graph.diagram`: its text, kind (placeholder / constant /
    fused / op), column (longest distance from the inputs) and whether it is an output."""

    label: str
    kind: str
    column: int
    output: bool


def _diagram_label(node: Node) -> str:
    """``name op`` (a placeholder's label; a fused kernel's expression) over ``dtype[shape]``."""
    ty = f"{dtype_name(node.dtype)}{list(node.shape)}"
    if node.op == "placeholder":
        head = node.attrs.get("label", node.name)
    elif node.op == "fused":
        expr = _kernels.expression(node.attrs["program"],
                                  [getattr(a, "name", repr(a)) for a in node.inputs])
        head = f"{node.name} fused\n{expr if len(expr) <= 28 else expr[:25] + '...'}"
    else:
        head = f"{node.name} {node.op}"
    return f"{head}\n{ty}"


class Graph:
    """Nodes in execution order, the ``outputs`` list, and the namespace they run on."""

    def __init__(self, xp: Any, device: str, meta: dict | None = None) -> None:
        self.xp = xp
        self.device = device
        self.nodes: list[Node] = []
        self.outputs: list[Any] = []  # Nodes (or literals)
        self.meta: dict = dict(meta or {})
        self._plan = None

    # ---- building
    def add(self, op: str, inputs: tuple = (), attrs: dict | None = None, shape: tuple = (),
            dtype: Any = None, name: str | None = None) -> Node:
        """Append a node (its inputs must already be in the graph) and return it."""
        node = Node(op, inputs, attrs or {}, shape, dtype, name or f"%{len(self.nodes)}")
        self.nodes.append(node)
        self._plan = None
        return node

    def empty_like(self) -> Graph:
        """A graph with no nodes on the same device, with the same ``meta``."""
        return Graph(self.xp, self.device, self.meta)

    # ---- looking
    @property
    def placeholders(self) -> list[Node]:
        return [n for n in self.nodes if n.op == "placeholder"]

    def users(self) -> dict[Node, list[Node]]:
        """For each node, the nodes that take it as an input (graph outputs not included)."""
        out: dict[Node, list[Node]] = {n: [] for n in self.nodes}
        for n in self.nodes:
            for a in n.inputs:
                if isinstance(a, Node):
                    out[a].append(n)
        return out

    def count(self, op: str | None = None) -> int:
        """Number of compute nodes, or of nodes with ``op``."""
        if op is None:
            return sum(n.is_compute for n in self.nodes)
        return sum(n.op == op for n in self.nodes)

    def cost(self) -> dict[str, int]:
        """``kernels``: passes over data (views excluded); ``temporaries``: arrays that are
        made and thrown away within one call (a fused node counts its scratch buffers)."""
        from stridegrad.compile import kernels

        outs = {id(o) for o in self.outputs}
        n_kernels = temps = 0
        for n in self.nodes:
            if not n.is_compute or n.op in VIEW_OPS:
                continue
            n_kernels += 1
            if id(n) not in outs:
                temps += 1
            if n.op == "fused":
                temps += kernels.scratch_buffers(n.attrs["program"])
        return {"nodes": len(self.nodes), "kernels": n_kernels, "temporaries": temps}

    def _args_text(self, n: Node) -> str:
        if n.op == "placeholder":
            return n.attrs.get("label", "?")
        if n.op == "constant":
            v = n.attrs["value"]
            size = int(np.prod(n.shape)) if n.shape else 1
            if size <= 4:
                from stridegrad import backend

                host = backend.to_numpy(v, self.device)
                if not n.shape:
                    return repr(host.item())
                return np.array2string(host.reshape(-1), separator=",")
            return f"array{list(n.shape)}"
        if n.op == "fused":
            from stridegrad.compile import kernels

            return kernels.expression(n.attrs["program"], [self._ref(a) for a in n.inputs])
        parts = [self._ref(a) for a in n.inputs]
        parts += [f"{k}={literal_text(v)}" for k, v in n.attrs.items()]
        return ", ".join(parts)

    @staticmethod
    def _ref(a: Any) -> str:
        return a.name if isinstance(a, Node) else literal_text(a)

    def table(self) -> str:
        """The graph as a readable table, one node per line."""
        n_in = len(self.placeholders)
        head = (f"graph on {self.device}: {n_in} input{'s' * (n_in != 1)}, "
                f"{self.count()} op{'s' * (self.count() != 1)}, "
                f"{len(self.outputs)} output{'s' * (len(self.outputs) != 1)}")
        lines = [head]
        width = max([len(n.op) for n in self.nodes] + [6])
        nw = max([len(n.name) for n in self.nodes] + [4])
        for n in self.nodes:
            args = self._args_text(n)
            if len(args) > 60:
                args = args[:57] + "..."
            ty = f"{dtype_name(n.dtype)}{list(n.shape)}"
            lines.append(f"  {n.name:<{nw}}  {n.op:<{width}}  {args:<40} {ty}")
        labels = self.meta.get("output_labels") or [None] * len(self.outputs)
        outs = []
        for o, label in zip(self.outputs, labels):
            ref = self._ref(o)
            outs.append(ref if not label or label == "return" else f"{label} <- {ref}")
        lines.append("  return " + ", ".join(outs))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return f"<Graph on {self.device}: {len(self.nodes)} nodes, {len(self.outputs)} outputs>"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # IPython shows the table
        p.text(self.table())

    def diagram(self) -> tuple[list[DiagramNode], list[tuple[int, int]]]:
        """The graph as data for a picture: one :class:`DiagramNode` per node (in graph
        order) and the edges ``(input index, user index)``. A node's column is its
        longest distance from the inputs; :func:`stridegrad.viz.ir.draw_ir` draws it.
        """
        index = {id(n): i for i, n in enumerate(self.nodes)}
        outs = {id(o) for o in self.outputs if isinstance(o, Node)}
        col: list[int] = []
        edges: list[tuple[int, int]] = []
        boxes = []
        for i, n in enumerate(self.nodes):
            ins = [index[id(a)] for a in n.inputs if isinstance(a, Node)]
            edges += [(j, i) for j in ins]
            col.append(1 + max((col[j] for j in ins), default=-1) if n.is_compute else 0)
            kind = n.op if n.op in ("placeholder", "constant", "fused") else "op"
            boxes.append(DiagramNode(_diagram_label(n), kind, col[i], id(n) in outs))
        return boxes, edges

    def draw(self, ax: Any = None):
        """A picture of the graph (matplotlib Figure): :func:`stridegrad.viz.ir.draw_ir`
        drawing :meth:`diagram`. Only calling it loads ``stridegrad.viz``."""
        from stridegrad.viz.ir import draw_ir

        return draw_ir(self, ax=ax)

    # ---- running
    def _make_plan(self) -> tuple:
        from stridegrad.compile import lowering

        ops, _ = lowering.lower(self)
        copies = tuple(k for k, o in enumerate(self.outputs)
                       if isinstance(o, Node) and o.op == "constant")
        return ops, tuple(ops.inputs), copies

    def run(self, inputs: list) -> list:
        """Evaluate the graph on real arrays (one per placeholder, in order); return outputs.

        The graph is lowered once into the pass IR (:mod:`stridegrad.compile.lowering`)
        and replayed by :func:`stridegrad.compile.graph.run_graph` on this graph's
        backend, called through its module (lesson 11's exercise). Constant outputs are
        copied (callers may write to them).
        """
        from stridegrad.compile import graph as pass_ir

        if self._plan is None:
            self._plan = self._make_plan()
        ops, names, copies = self._plan
        if len(inputs) != len(names):
            raise ValueError(f"the graph has {len(names)} placeholders, got {len(inputs)} inputs")
        with pass_ir.on_backend(self.xp):
            result = list(pass_ir.run_graph(ops, dict(zip(names, inputs))))
        for k in copies:
            result[k] = self.xp.asarray(result[k], copy=True)
        return result
