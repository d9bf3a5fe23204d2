"""Computation-graph pictures in pure matplotlib (episodes 06-08): no graphviz needed.

``draw_graph(root)`` draws the graph that produced ``root``, inputs on the left
and ``root`` on the right, and returns the matplotlib Figure. Two kinds of graph
are understood, by what the root looks like:

* **values** (``stridegrad.Value``, the lessons' ``Value``, anything with
  ``data``, ``grad`` and ``_prev``): a box per value showing its label, data
  and grad, and a small circle per operation (``_op``) between a value and its
  inputs;
* **backward nodes** (``stridegrad.Tensor``, the node/edge ``Var`` of episode
  07, anything with ``grad_fn`` whose nodes have ``next_functions``): a box
  for the root handle, one per backward node (its class name), and one per
  leaf reached through an ``AccumulateGrad`` (its shape, or data and grad).

The layout is layered and deterministic: a node's column is its longest
distance from the root, and within a column nodes are ordered by the mean
height of the nodes they feed, ties broken by the order of discovery.
:func:`graph_layout` returns that layout without drawing, for tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["GraphLayout", "GraphNode", "draw_graph", "graph_layout"]

# geometry, in data units
_COL = 3.4  # from one value column to the next
_OP_DX = 1.6  # from a value to its operation circle
_ROW = 1.4  # between rows
_BOX_W, _BOX_H = 1.9, 1.1
_OP_R = 0.3
_INCH = 0.5  # inches per data unit when draw_graph makes the figure

_COLOURS = {"leaf": "#dbe9f6", "value": "#f3f3f3", "root": "#fde2b8", "op": "#ffffff",
            "node": "#e6f2dc", "accumulate": "#dbe9f6"}


@dataclass
class GraphNode:
    """One drawn node: ``kind`` is leaf / value / root / op (value graphs) or
    root / node / accumulate (backward-node graphs)."""

    kind: str
    text: str
    obj: Any
    column: int  # 0 is the root's; inputs have larger columns
    x: float = 0.0
    y: float = 0.0


@dataclass
class GraphLayout:
    """Nodes and edges ``(source index, target index)``, edges pointing forward
    (from an input to what uses it)."""

    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[tuple[int, int]] = field(default_factory=list)

    def count(self, *kinds: str) -> int:
        return sum(n.kind in kinds for n in self.nodes) if kinds else len(self.nodes)


def _num(x: Any) -> str:
    try:
        return f"{float(x):.4g}"
    except (TypeError, ValueError):
        return str(x)


def _label_of(obj: Any, labels: Mapping | None) -> str:
    if labels:
        try:
            if obj in labels:
                return str(labels[obj])
        except TypeError:
            pass
        if id(obj) in labels:
            return str(labels[id(obj)])
    label = getattr(obj, "label", "")
    return label if isinstance(label, str) else ""


def _value_text(v: Any, labels) -> str:
    lines = []
    label = _label_of(v, labels)
    if label:
        lines.append(label)
    lines.append(f"data {_num(v.data)}")
    grad = getattr(v, "grad", None)
    lines.append("grad –" if grad is None else f"grad {_num(grad)}")
    return "\n".join(lines)


def _handle_text(t: Any, labels) -> str:
    """A tensor shows its shape; a scalar handle its data and grad."""
    shape = getattr(t, "shape", None)
    label = _label_of(t, labels)
    if shape is not None and not isinstance(shape, (int, float)):
        lines = ([label] if label else []) + [f"shape {tuple(shape)}"]
        if getattr(t, "grad", None) is not None:
            lines.append("grad ✓")
        return "\n".join(lines)
    return _value_text(t, labels)


def _value_graph(root: Any, labels) -> tuple[list, list[tuple[int, int]]]:
    """Nodes as (kind, text, obj, parents-of-op) and forward edges, values and ops."""
    index: dict[int, int] = {}
    nodes: list[list] = []  # [kind, text, obj]
    edges: list[tuple[int, int]] = []
    op_of: dict[int, int] = {}

    def value_node(v):
        k = index.get(id(v))
        if k is None:
            k = index[id(v)] = len(nodes)
            kind = "root" if v is root else ("value" if getattr(v, "_prev", ()) else "leaf")
            nodes.append([kind, _value_text(v, labels), v])
        return k

    queue = [root]
    value_node(root)
    done: set[int] = set()
    head = 0
    while head < len(queue):  # breadth first: discovery order is reproducible
        v = queue[head]
        head += 1
        if id(v) in done:
            continue
        done.add(id(v))
        prev = tuple(getattr(v, "_prev", ()) or ())
        if not prev:
            continue
        op = len(nodes)
        nodes.append(["op", str(getattr(v, "_op", "") or "?"), None])
        op_of[index[id(v)]] = op
        edges.append((op, index[id(v)]))
        for child in prev:
            edges.append((value_node(child), op))
            queue.append(child)
    return nodes, edges


def _node_graph(root: Any, labels) -> tuple[list, list[tuple[int, int]]]:
    """Backward nodes of a handle with ``grad_fn`` (Tensor, Var), leaves through AccumulateGrad."""
    nodes: list[list] = [["root", _handle_text(root, labels), root]]
    edges: list[tuple[int, int]] = []
    index: dict[int, int] = {}
    fn = getattr(root, "grad_fn", None)
    if fn is None:
        return nodes, edges

    def node_index(n):
        var = getattr(n, "variable", None)
        # one box per leaf, even where the engine made an AccumulateGrad per use
        key = id(var) if var is not None else id(n)
        k = index.get(key)
        if k is None:
            k = index[key] = len(nodes)
            if var is not None:  # AccumulateGrad: draw the leaf it feeds
                nodes.append(["accumulate", _handle_text(var, labels), n])
            else:
                name = n.name() if callable(getattr(n, "name", None)) else type(n).__name__
                nodes.append(["node", str(name), n])
        return k

    edges.append((node_index(fn), 0))
    queue, head, done = [fn], 0, set()
    while head < len(queue):
        n = queue[head]
        head += 1
        if id(n) in done:
            continue
        done.add(id(n))
        for nxt, _ in getattr(n, "next_functions", ()) or ():
            if nxt is None:
                continue
            edges.append((node_index(nxt), node_index(n)))
            queue.append(nxt)
    return nodes, edges


def graph_layout(root: Any, *, labels: Mapping | None = None) -> GraphLayout:
    """The nodes, edges and positions :func:`draw_graph` draws, without drawing."""
    if hasattr(root, "_prev"):
        raw, edges = _value_graph(root, labels)
    elif hasattr(root, "grad_fn"):
        raw, edges = _node_graph(root, labels)
    else:
        raise TypeError(f"draw_graph needs a Value (with _prev) or a Tensor (with grad_fn), "
                        f"got {type(root).__name__}")
    n = len(raw)
    users: list[list[int]] = [[] for _ in range(n)]
    inputs: list[list[int]] = [[] for _ in range(n)]
    for s, t in edges:
        users[s].append(t)
        inputs[t].append(s)
    # depth: longest path to the root, in steps; a topological order of the
    # reversed graph (Kahn) avoids recursion and handles shared inputs
    pending = [len(set(u)) for u in users]
    depth = [0] * n
    ready = [k for k in range(n) if pending[k] == 0]
    seen_edges: set[tuple[int, int]] = set()
    while ready:
        k = ready.pop(0)
        for s in inputs[k]:
            if (s, k) in seen_edges:
                continue
            seen_edges.add((s, k))
            depth[s] = max(depth[s], depth[k] + 1)
            pending[s] -= 1
            if pending[s] == 0:
                ready.append(s)
    value_graph = hasattr(root, "_prev")
    layout = GraphLayout(edges=list(edges))
    for k, (kind, text, obj) in enumerate(raw):
        layout.nodes.append(GraphNode(kind, text, obj, depth[k]))
    # x: values at even depths; an op sits between its value and its inputs
    for node in layout.nodes:
        if value_graph:
            half = node.column // 2
            node.x = -half * _COL - (_OP_DX if node.kind == "op" else 0.0) \
                - (node.column % 2 and node.kind != "op") * _OP_DX
        else:
            node.x = -node.column * (_COL * 0.75)
    # y: column by column from the root, ordered by the mean height of the users
    columns: dict[int, list[int]] = {}
    for k, node in enumerate(layout.nodes):
        columns.setdefault(node.column, []).append(k)
    for c in sorted(columns):
        members = columns[c]
        want = {}
        for k in members:
            ys = [layout.nodes[u].y for u in users[k]]
            want[k] = sum(ys) / len(ys) if ys else 0.0
        members.sort(key=lambda k: (-want[k], k))
        # each node as close to the height of its users as the row spacing allows:
        # place top-down at least _ROW apart, then shift the column so that its
        # mean height is the mean wanted height
        ys = []
        for k in members:
            ys.append(want[k] if not ys else min(want[k], ys[-1] - _ROW))
        shift = (sum(want.values()) - sum(ys)) / len(ys)
        for k, y in zip(members, ys):
            layout.nodes[k].y = round(y + shift, 6)
    return layout


def _edge_point(node: GraphNode, toward: tuple[float, float]) -> tuple[float, float]:
    """Where an edge leaves or enters ``node``'s shape, heading for ``toward``."""
    dx, dy = toward[0] - node.x, toward[1] - node.y
    if node.kind == "op":
        d = max((dx * dx + dy * dy) ** 0.5, 1e-9)
        return node.x + _OP_R * dx / d, node.y + _OP_R * dy / d
    w, h = _BOX_W / 2, _BOX_H / 2
    sx = w / abs(dx) if dx else float("inf")
    sy = h / abs(dy) if dy else float("inf")
    s = min(sx, sy, 1.0)
    return node.x + dx * s, node.y + dy * s


def draw_graph(root: Any, ax: Any = None, *, labels: Mapping | None = None,
               title: str | None = None, fontsize: float = 8.0):
    """Draw the computation graph that produced ``root``; returns the Figure.

    Args:
        root: a Value-like (``data``, ``grad``, ``_prev``, ``_op``) or a
            Tensor-like (``grad_fn`` with ``next_functions``) output.
        ax: the matplotlib Axes to draw into; a new figure sized to the graph if None.
        labels: names to show, keyed by the value objects (or their ``id``); a
            value's own ``label`` attribute is used otherwise.
        title: a title for the axes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch

    layout = graph_layout(root, labels=labels)
    xs = [n.x for n in layout.nodes]
    ys = [n.y for n in layout.nodes]
    x0, x1 = min(xs) - _BOX_W / 2 - 0.3, max(xs) + _BOX_W / 2 + 0.3
    y0, y1 = min(ys) - _BOX_H / 2 - 0.3, max(ys) + _BOX_H / 2 + 0.3
    if ax is None:
        height = max(1.2, (y1 - y0) * _INCH) + (0.35 if title else 0.0)
        fig, ax = plt.subplots(figsize=(max(2.5, (x1 - x0) * _INCH), height))
        fig.subplots_adjust(left=0.0, right=1.0, bottom=0.0,
                            top=1.0 - (0.35 / height if title else 0.0))
    else:
        fig = ax.figure
    for node in layout.nodes:
        if node.kind == "op":
            ax.add_patch(Circle((node.x, node.y), _OP_R, facecolor=_COLOURS["op"],
                                edgecolor="#555555", linewidth=1.0, zorder=2))
            ax.text(node.x, node.y, node.text, ha="center", va="center", fontsize=fontsize,
                    fontweight="bold", zorder=3)
        else:
            rounded = node.kind in ("node",)
            ax.add_patch(FancyBboxPatch(
                (node.x - _BOX_W / 2, node.y - _BOX_H / 2), _BOX_W, _BOX_H,
                boxstyle="round,pad=0,rounding_size=0.15" if rounded else "square,pad=0",
                facecolor=_COLOURS[node.kind], edgecolor="#555555", linewidth=1.0, zorder=2))
            ax.text(node.x, node.y, node.text, ha="center", va="center",
                    fontsize=fontsize - (1 if node.kind == "node" else 0),
                    family="monospace", zorder=3, linespacing=1.25)
    many: dict[tuple[int, int], int] = {}
    for e in layout.edges:
        many[e] = many.get(e, 0) + 1
    seen: dict[tuple[int, int], int] = {}
    for s, t in layout.edges:
        a, b = layout.nodes[s], layout.nodes[t]
        repeat = seen.get((s, t), 0)
        seen[(s, t)] = repeat + 1
        start = _edge_point(a, (b.x, b.y))
        end = _edge_point(b, (a.x, a.y))
        # parallel edges (x * x uses x twice) side by side, not on top of each other
        dy = (repeat - (many[(s, t)] - 1) / 2) * 0.2
        ax.add_patch(FancyArrowPatch((start[0], start[1] + dy), (end[0], end[1] + dy),
                                     arrowstyle="-|>", mutation_scale=9, color="#444444",
                                     linewidth=1.0, shrinkA=0, shrinkB=0, zorder=1))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=fontsize + 2)
    return fig
