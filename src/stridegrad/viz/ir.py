"""A picture of a compiled graph's IR (episode 11): inputs left, outputs right.

``draw_ir(graph)`` draws one box per node: placeholders (blue), constants
(grey), ops (white), fused kernels (orange, with their expression), and the
outputs (bold edge). A node's column is its longest distance from the inputs,
so a chain of ops reads left to right and a fused chain visibly collapses.
:func:`ir_layout` gives the positions without drawing, for tests.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

__all__ = ["IRBox", "draw_ir", "fit_label", "ir_layout"]

_COL, _ROW = 3.0, 1.2
_BOX_W, _BOX_H = 2.6, 0.9
_INCH = 0.55
_COLOURS = {"placeholder": "#dbe9f6", "constant": "#eeeeee", "fused": "#fde2b8", "op": "#ffffff"}


@dataclass
class IRBox:
    """One drawn node: its text, kind (placeholder / constant / fused / op), position."""

    text: str
    kind: str
    column: int
    x: float
    y: float
    output: bool


def ir_layout(graph: Any) -> tuple[list[IRBox], list[tuple[int, int]]]:
    """Boxes (in graph order) and edges ``(input index, user index)``.

    The graph gives the data (:meth:`stridegrad.compile.Graph.diagram`: labels, kinds,
    columns, edges); this places each box in its column, top to bottom.
    """
    nodes, edges = graph.diagram()
    rows: dict[int, int] = {}
    boxes = []
    for n in nodes:
        r = rows.get(n.column, 0)
        rows[n.column] = r + 1
        boxes.append(IRBox(n.label, n.kind, n.column, n.column * _COL, -r * _ROW, n.output))
    return boxes, edges


def fit_label(text: str, width: int = 24, max_lines: int = 4) -> str:
    """``text`` fitted to ``width`` characters a line and ``max_lines`` lines.

    A node's label is its name, then (for a fused kernel) its expression, then its
    type. The first and last lines are kept; the lines between are wrapped into
    the room left, the last of them ending in an ellipsis if the expression goes
    on: a fused kernel's long expression stays inside its box.
    """
    width, max_lines = max(4, width), max(1, max_lines)

    def clip(line: str) -> str:
        return line if len(line) <= width else line[: width - 1] + "…"

    given = text.splitlines() or [""]
    if len(given) < 3:
        wrapped = [w for line in given for w in (textwrap.wrap(line, width) or [""])]
        return "\n".join(clip(w) for w in wrapped[:max_lines])
    head, middle, tail = clip(given[0]), given[1:-1], clip(given[-1])
    room = max_lines - 2
    body = [w for line in middle
            for w in (textwrap.wrap(line, width, break_on_hyphens=False) or [""])]
    if room <= 0:
        return "\n".join([head, tail][:max_lines])
    if len(body) > room:
        body = body[:room]
        body[-1] = body[-1][: width - 1].rstrip(". ") + "…"
    return "\n".join([head, *body, tail])


def draw_ir(graph: Any, ax: Any = None, *, title: str | None = None, fontsize: float = 7.0):
    """Draw ``graph`` (a :class:`stridegrad.compile.Graph`); returns the Figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    boxes, edges = ir_layout(graph)
    if not boxes:
        fig, ax = (plt.subplots(figsize=(2, 1)) if ax is None else (ax.figure, ax))
        ax.text(0.5, 0.5, "empty graph", ha="center", va="center")
        ax.axis("off")
        return fig
    xs = [b.x for b in boxes]
    ys = [b.y for b in boxes]
    x0, x1 = min(xs) - _BOX_W / 2 - 0.2, max(xs) + _BOX_W / 2 + 0.2
    y0, y1 = min(ys) - _BOX_H / 2 - 0.2, max(ys) + _BOX_H / 2 + 0.2
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(3.0, (x1 - x0) * _INCH),
                                        max(1.5, (y1 - y0) * _INCH + (0.3 if title else 0))))
    else:
        fig = ax.figure
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.apply_aspect()
    # how many monospace characters (about 0.6 em wide) and lines fit in a box, as drawn
    (px0, py0), (px1, py1) = ax.transData.transform([(0, 0), (_BOX_W, _BOX_H)])
    points = 72 / fig.dpi
    chars = int((px1 - px0) * points * 0.92 / (0.6 * fontsize))
    lines = int((py1 - py0) * points * 0.92 / (1.2 * fontsize))
    for b in boxes:
        ax.add_patch(FancyBboxPatch(
            (b.x - _BOX_W / 2, b.y - _BOX_H / 2), _BOX_W, _BOX_H,
            boxstyle="round,pad=0,rounding_size=0.12", facecolor=_COLOURS[b.kind],
            edgecolor="#222222" if b.output else "#777777",
            linewidth=2.0 if b.output else 0.8, zorder=2))
        ax.text(b.x, b.y, fit_label(b.text, chars, lines), ha="center", va="center",
                fontsize=fontsize, family="monospace", zorder=3)
    for s, t in edges:
        a, b = boxes[s], boxes[t]
        ax.add_patch(FancyArrowPatch((a.x + _BOX_W / 2, a.y), (b.x - _BOX_W / 2, b.y),
                                     arrowstyle="-|>", mutation_scale=8, color="#555555",
                                     linewidth=0.8, shrinkA=0, shrinkB=0, zorder=1))
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=fontsize + 2)
    return fig
