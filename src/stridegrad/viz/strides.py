"""Pictures of strided views: which storage cells a view touches, and in what order.

``storage_picture`` draws one storage row with matplotlib (for static figures
in a lesson); ``stride_explorer`` is an ipywidgets widget that redraws the same
idea as HTML whenever a control changes (episode 02). Both read the layout
with ``stridegrad.array.layout`` only: a view is ``(shape, strides, offset)``
over a flat storage.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from stridegrad.array.layout import (
    Shape,
    Strides,
    is_contiguous,
    iter_offsets,
    slice_layout,
)

# StrideExplorer (the widget class) is made on first use, so importing this module
# needs no ipywidgets: `from stridegrad.viz.strides import StrideExplorer` still works.
__all__ = ["DEFAULT_VIEWS", "storage_picture", "stride_explorer", "view_text"]

# A 12-cell storage holding 0..11, seen as x = (3, 4) and as y = x.reshape(2, 3, 2).
STORAGE_SIZE = 12
DEFAULT_VIEWS: dict[str, tuple[Shape, Strides, int]] = {
    "x": ((3, 4), (4, 1), 0),
    "x.T": ((4, 3), (1, 4), 0),
    "x[:, ::2]": ((3, 2), (4, 2), 0),
    "x[::-1]": ((3, 4), (-4, 1), 8),
    "x[1]": ((4,), (1,), 4),
    "x[1:, 1:3]": ((2, 2), (4, 1), 5),
    "x[::-1, ::-1]": ((3, 4), (-4, -1), 11),
    "y = x.reshape(2, 3, 2)": ((2, 3, 2), (6, 2, 1), 0),
    "y.permute(2, 0, 1)": ((2, 2, 3), (1, 6, 2), 0),
}
STEPS = (-2, -1, 1, 2, 3)
STARTS = (None, 0, 1, 2, 3)


def _check_layout(shape: Shape, strides: Strides) -> tuple[Shape, Strides]:
    shape, strides = tuple(shape), tuple(strides)
    if len(shape) != len(strides):
        raise ValueError(f"shape {shape} and strides {strides} have different lengths")
    return shape, strides


def _visits(offsets: list[int]) -> dict[int, list[int]]:
    """Storage position -> the visit numbers (0-based) that read it."""
    seen: dict[int, list[int]] = {}
    for k, p in enumerate(offsets):
        seen.setdefault(p, []).append(k)
    return seen


def storage_picture(shape: Shape, strides: Strides, offset: int = 0, *,
                    storage_size: int | None = None, title: str | None = None, ax: Any = None):
    """Draw a storage row, highlighting the cells a view reads, numbered in visiting order.

    Each box is a storage position (its number inside); the cells the view
    ``(shape, strides, offset)`` touches are coloured by when they are visited
    (row-major order of the view's indices) and carry that visit number above
    them; untouched cells are grey.

    Args:
        shape, strides, offset: the view's layout (strides in elements).
        storage_size: how many cells to draw (default: up to the last one touched).
        title: text above the row (default: the layout).
        ax: a matplotlib Axes to draw into (default: a new figure).

    Returns:
        The Axes.

    Raises:
        ValueError: if the view touches a position outside ``range(storage_size)``.
    """
    import matplotlib.pyplot as plt

    shape, strides = _check_layout(shape, strides)
    offsets = iter_offsets(shape, strides, offset)
    if storage_size is None:
        storage_size = max(offsets, default=offset) + 1
    bad = [p for p in offsets if not 0 <= p < storage_size]
    if bad:
        raise ValueError(f"view shape={shape} strides={strides} offset={offset} reads position "
                         f"{bad[0]}, outside a storage of {storage_size} cells")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 0.55 * storage_size), 1.3))
    visits = _visits(offsets)
    n = max(len(offsets), 1)
    for p in range(storage_size):
        touched = p in visits
        colour = plt.cm.viridis(0.15 + 0.7 * visits[p][0] / n) if touched else "#dddddd"
        ax.add_patch(plt.Rectangle((p, 0), 0.92, 0.92, color=colour))
        ax.text(p + 0.46, 0.46, str(p), ha="center", va="center", fontsize=9,
                color="white" if touched else "#777777")
        if touched:
            ax.text(p + 0.46, 1.2, ",".join(str(k) for k in visits[p]), ha="center",
                    va="center", fontsize=8, color="black")
    ax.text(-0.3, 1.2, "visit", ha="right", va="center", fontsize=8, color="black")
    ax.text(-0.3, 0.46, "storage", ha="right", va="center", fontsize=8, color="#777777")
    ax.set_title(title if title is not None else
                 f"shape {shape}   strides {strides}   offset {offset}", fontsize=10)
    ax.set_xlim(-0.2, storage_size + 0.1)
    ax.set_ylim(-0.2, 1.6)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def view_text(name: str, shape: Shape, strides: Strides, offset: int) -> str:
    """One line describing a view: its expression, layout and contiguity."""
    shape, strides = _check_layout(shape, strides)
    kind = "contiguous" if is_contiguous(shape, strides) else "not contiguous"
    return f"{name}: shape {shape}  strides {strides}  offset {offset}  ({kind})"


def _nest(values: list, shape: Shape):
    if not shape:
        return values[0]
    if len(shape) == 1:
        return list(values)
    step = len(values) // shape[0] if shape[0] else 0
    return [_nest(values[k * step:(k + 1) * step], shape[1:]) for k in range(shape[0])]


def _html(text: str, offsets: list[int], shape: Shape, storage_size: int) -> str:
    visits = _visits(offsets)
    n = max(len(offsets), 1)
    cells = []
    for p in range(storage_size):
        if p in visits:
            first = visits[p][0]
            hue = int(260 - 200 * first / n)
            order = ",".join(str(k) for k in visits[p])
            cells.append(
                f'<td style="background:hsl({hue},70%,45%);color:white;text-align:center;'
                f'width:2.2em;height:2.2em;border:1px solid white" '
                f'title="storage[{p}] is visit {order}">'
                f'<div style="font-size:70%">#{order}</div><b>{p}</b></td>')
        else:
            cells.append(f'<td style="background:#e6e6e6;color:#888;text-align:center;'
                         f'width:2.2em;height:2.2em;border:1px solid white">'
                         f'<div style="font-size:70%">&nbsp;</div>{p}</td>')
    values = _nest(offsets, shape) if offsets or shape else offsets
    return (
        '<div class="stride-explorer" style="font-family:monospace">'
        f"<p>{html.escape(text)}</p>"
        f'<table style="border-collapse:collapse"><tr>{"".join(cells)}</tr></table>'
        f"<p>visiting order (storage positions): {html.escape(str(offsets))}</p>"
        f"<p>the view's values: {html.escape(str(values))}</p>"
        "</div>"
    )


def _make_class():
    # ipywidgets is imported on first use: storage_picture needs only matplotlib
    import ipywidgets as w

    class StrideExplorer(w.VBox):
        """Pick a view of a 12-cell storage; see the cells it touches and in what order.

        Controls: ``view`` (a Dropdown of named layouts), and ``start`` / ``step``
        (Dropdowns) that slice the view's last axis as ``view[..., start::step]``.
        The ``html`` child is redrawn on every change. State that tests can read:
        ``expression``, ``shape``, ``strides``, ``offset``, ``offsets`` (storage
        positions in visiting order) and ``text`` (the one-line description).
        """

        def __init__(self, views: Mapping[str, tuple[Shape, Strides, int]], storage_size: int,
                     view: str, start, step: int):
            self.views = dict(views)
            self.storage_size = storage_size
            self.view = w.Dropdown(options=list(self.views), value=view, description="view")
            self.start = w.Dropdown(options=[("none" if s is None else str(s), s) for s in STARTS],
                                    value=start, description="start")
            self.step = w.Dropdown(options=[(str(s), s) for s in STEPS], value=step,
                                   description="step")
            self.html = w.HTML()
            controls = w.HBox([self.view, self.start, self.step])
            super().__init__(children=[controls, self.html])
            for control in (self.view, self.start, self.step):
                control.observe(self._redraw, names="value")
            self._redraw()

        def _redraw(self, change=None) -> None:
            shape, strides, offset = self.views[self.view.value]
            shape, strides = _check_layout(shape, strides)
            start, step = self.start.value, self.step.value
            name = self.view.value.split(" = ")[0]
            if shape and (start is not None or step != 1):
                delta, size, stride = slice_layout(shape[-1], strides[-1], slice(start, None, step))
                shape, strides, offset = shape[:-1] + (size,), strides[:-1] + (stride,), offset + delta
                lead = ":, " * (len(self.views[self.view.value][0]) - 1)
                name = f"{name}[{lead}{'' if start is None else start}::{step}]"
            self.expression = name
            self.shape, self.strides, self.offset = shape, strides, offset
            self.offsets = iter_offsets(shape, strides, offset)
            self.text = view_text(name, shape, strides, offset)
            self.html.value = _html(self.text, self.offsets, shape, self.storage_size)

        def __repr__(self) -> str:
            return f"StrideExplorer({self.text})"

    return StrideExplorer


_CLASS = None


def __getattr__(name: str):
    if name == "StrideExplorer":
        return _explorer_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _explorer_class():
    global _CLASS
    if _CLASS is None:
        _CLASS = _make_class()
    return _CLASS


def stride_explorer(view: str = "x.T", *, views: Mapping[str, tuple[Shape, Strides, int]] | None = None,
                    storage_size: int | None = None, start: int | None = None, step: int = 1):
    """A widget: pick a view, see which storage cells it touches and in what order.

    Args:
        view: the view selected first (a key of ``views``).
        views: name -> ``(shape, strides, offset)``; default ``DEFAULT_VIEWS``,
            views of a 12-cell storage seen as ``x`` of shape (3, 4).
        storage_size: cells drawn (default 12 for the default views, else up
            to the last cell any view touches).
        start, step: the slice applied to the view's last axis
            (``view[..., start::step]``); ``start`` is None or 0-3, ``step`` one
            of -2, -1, 1, 2, 3.

    Returns:
        A ``StrideExplorer`` (an ``ipywidgets.VBox``).

    Raises:
        ValueError: for an unknown ``view``, or a start/step not offered.
    """
    views = dict(DEFAULT_VIEWS if views is None else views)
    if view not in views:
        raise ValueError(f"unknown view {view!r}; the views are {list(views)}")
    if start not in STARTS or step not in STEPS:
        raise ValueError(f"start must be one of {STARTS} and step one of {STEPS}, "
                         f"got start={start!r}, step={step!r}")
    if storage_size is None:
        if views is DEFAULT_VIEWS or views == DEFAULT_VIEWS:
            storage_size = STORAGE_SIZE
        else:
            storage_size = 1 + max((p for s, st, o in views.values()
                                    for p in iter_offsets(s, st, o)), default=0)
    return _explorer_class()(views, storage_size, view, start, step)
