"""The broadcasting explorer (episode 04): two shapes in, the aligned dims out.

``broadcast_explorer((3, 1), (3, 4))`` returns a widget with two text boxes.
Type a shape in each (``3, 1`` or ``(3, 1)``); the widget shows the two
shapes aligned from the right, which dimensions stretch (size 1, or missing
and so treated as 1), the strides that read each operand as the result
without copying (stride 0 where it stretches), and the result shape, or the
exact error that :func:`stridegrad.array.layout.broadcast_shapes` raises.

Everything the widget shows is also an attribute (``result``, ``error``,
``columns``, ``html_text``), so tests drive it headlessly::

    w = broadcast_explorer()
    w.text_b.value = "4"
    w.error   # 'operands could not be broadcast together with shapes (3, 1) and (4,)'
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import ipywidgets as widgets

from stridegrad.array.layout import (
    Shape,
    broadcast_shapes,
    broadcast_strides,
    contiguous_strides,
)

__all__ = ["BroadcastExplorer", "Column", "broadcast_explorer", "parse_shape", "align"]

# status of one operand's size in one aligned column
MATCH, STRETCH, MISSING, CLASH = "match", "stretch", "missing", "clash"

_COLOURS = {
    MATCH: "#e8e8e8",
    STRETCH: "#ffd79a",
    MISSING: "#fff1d6",
    CLASH: "#ff9c9c",
}
_LEGEND = {
    MATCH: "same size as the result",
    STRETCH: "size 1, stretched (stride 0)",
    MISSING: "missing: counts as size 1, stretched",
    CLASH: "sizes clash",
}


def parse_shape(text: str) -> Shape:
    """A shape from text like ``"3, 1"``, ``"(3, 1)"``, ``"4"`` or ``"()"``.

    Raises:
        ValueError: with a message a learner can act on (never a traceback in
            the widget), e.g. for ``"3, x"`` or ``"-2"``.
    """
    if not isinstance(text, str):
        raise ValueError(f"a shape is text like '3, 1', got {type(text).__name__}")
    inner = text.strip()
    if inner[:1] in "([" and inner[-1:] in ")]" and inner:
        inner = inner[1:-1]
    parts = [p.strip() for p in inner.split(",")]
    if parts and parts[-1] == "":
        parts.pop()  # "3," is the 1-D shape (3,), "" and "()" the scalar shape ()
    sizes = []
    for p in parts:
        if p.isdigit() and p.isascii():
            sizes.append(int(p))
        elif p == "":
            raise ValueError(f"{text.strip()!r} has an empty size between two commas")
        elif p.lstrip("-").isdigit() and p.isascii():
            raise ValueError(f"{p!r} is negative: sizes are whole numbers 0, 1, 2, ...")
        else:
            raise ValueError(f"{p!r} is not a size: write whole numbers separated by "
                             "commas, like 3, 1")
    return tuple(sizes)


@dataclass(frozen=True)
class Column:
    """One aligned dimension (columns are listed left to right, aligned on the right)."""

    a: int | None  # the first shape's size here, None if it has no such dimension
    b: int | None
    out: int | None  # the result's size, None if the sizes clash
    status_a: str  # one of "match", "stretch", "missing", "clash"
    status_b: str


def align(shape_a: Shape, shape_b: Shape) -> list[Column]:
    """The dimensions of two shapes aligned from the right, with what happens to each."""
    ndim = max(len(shape_a), len(shape_b))
    pad_a = (None,) * (ndim - len(shape_a)) + tuple(shape_a)
    pad_b = (None,) * (ndim - len(shape_b)) + tuple(shape_b)
    columns = []
    for a, b in zip(pad_a, pad_b):
        ea, eb = 1 if a is None else a, 1 if b is None else b
        out = ea if eb == 1 else eb if ea in (1, eb) else None

        def status(size, effective, out=out):
            if out is None:
                return MISSING if size is None else (STRETCH if size == 1 else CLASH)
            if size is None:
                return MISSING
            return STRETCH if effective != out else MATCH

        columns.append(Column(a, b, out, status(a, ea), status(b, eb)))
    return columns


def _cell(size, status, *, bold=False) -> str:
    text = "·" if size is None else str(size)
    weight = "font-weight:bold;" if bold else ""
    return (f'<td style="background:{_COLOURS.get(status, "#ffffff")};{weight}'
            f'min-width:2.4em;text-align:center;padding:3px 6px;'
            f'border:1px solid #999">{text}</td>')


def _row(label: str, cells: list[str], note: str = "") -> str:
    return (f'<tr><th style="text-align:right;padding-right:8px">{html.escape(label)}</th>'
            + "".join(cells) + f'<td style="padding-left:10px;color:#555">{html.escape(note)}'
            "</td></tr>")


class BroadcastExplorer(widgets.VBox):
    """Two shape boxes and an HTML picture of how they broadcast.

    Attributes tests can read:
        text_a, text_b: the ``Text`` widgets holding the shapes.
        shape_a, shape_b: the parsed shapes (None while a box does not parse).
        result: the broadcast shape, or None.
        error: the message shown instead of a result (a parse error, or the
            exact ``broadcast_shapes`` error), or None.
        columns: the aligned dimensions (:class:`Column`), [] on a parse error.
        html_text: the HTML shown (``self.output.value``).
    """

    def __init__(self, shape_a: Shape | str = (3, 1), shape_b: Shape | str = (3, 4)):
        self.text_a = widgets.Text(value=_as_text(shape_a), description="shape a",
                                   continuous_update=True)
        self.text_b = widgets.Text(value=_as_text(shape_b), description="shape b",
                                   continuous_update=True)
        self.output = widgets.HTML()
        self.shape_a = self.shape_b = self.result = self.error = None
        self.columns: list[Column] = []
        super().__init__(children=[widgets.HBox([self.text_a, self.text_b]), self.output])
        self.text_a.observe(self._update, names="value")
        self.text_b.observe(self._update, names="value")
        self._update()

    @property
    def html_text(self) -> str:
        return self.output.value

    def __repr__(self) -> str:
        # the text a notebook shows where the widget cannot render (a static page,
        # a closed kernel): the two shapes and the verdict, never a cut widget tree
        a, b = self.text_a.value, self.text_b.value
        verdict = f"-> {self.result}" if self.error is None else f"-> error: {self.error}"
        return f"BroadcastExplorer(shape a: {a!r}, shape b: {b!r} {verdict})"

    def _update(self, change=None) -> None:
        self.shape_a = self.shape_b = self.result = self.error = None
        self.columns = []
        problems = []
        for name, box in (("a", self.text_a), ("b", self.text_b)):
            try:
                setattr(self, f"shape_{name}", parse_shape(box.value))
            except ValueError as exc:
                problems.append(f"shape {name}: {exc}")
        if problems:
            self.error = "; ".join(problems)
            self.output.value = _error_html("Cannot read the shapes", self.error)
            return
        self.columns = align(self.shape_a, self.shape_b)
        try:
            self.result = broadcast_shapes(self.shape_a, self.shape_b)
        except ValueError as exc:
            self.error = str(exc)
        self.output.value = self._picture()

    def _picture(self) -> str:
        cols = self.columns
        rows = [
            _row(f"a {self.shape_a}", [_cell(c.a, c.status_a) for c in cols],
                 self._strides_note(self.shape_a)),
            _row(f"b {self.shape_b}", [_cell(c.b, c.status_b) for c in cols],
                 self._strides_note(self.shape_b)),
            _row("result", [_cell(c.out, MATCH if c.out is not None else CLASH, bold=True)
                            for c in cols]),
        ]
        table = ('<table style="border-collapse:collapse;font-family:monospace;'
                 'margin:6px 0">' + "".join(rows) + "</table>")
        if self.error is None:
            verdict = (f'<div style="font-family:monospace">result shape: '
                       f"<b>{html.escape(str(self.result))}</b></div>")
        else:
            verdict = (f'<div style="color:#b00000;font-family:monospace">ValueError: '
                       f"{html.escape(self.error)}</div>")
        used = [s for s in (MATCH, STRETCH, MISSING, CLASH)
                if any(s in (c.status_a, c.status_b) for c in cols)]
        legend = " ".join(
            f'<span style="background:{_COLOURS[s]};border:1px solid #999;padding:0 6px;'
            f'margin-right:4px">{html.escape(_LEGEND[s])}</span>' for s in used)
        return (f'<div><div style="color:#555">aligned from the right:</div>{table}'
                f'{verdict}<div style="margin-top:4px;font-size:90%">{legend}</div></div>')

    def _strides_note(self, shape: Shape) -> str:
        if self.result is None:
            return ""
        strides = broadcast_strides(shape, contiguous_strides(shape), self.result)
        return f"read as {self.result} with strides {strides}"


def _as_text(shape: Shape | str) -> str:
    if isinstance(shape, str):
        return shape
    shape = tuple(shape)
    return ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")


def _error_html(title: str, message: str) -> str:
    return (f'<div style="color:#b00000;font-family:monospace">{html.escape(title)}: '
            f"{html.escape(message)}</div>")


def broadcast_explorer(shape_a: Shape | str = (3, 1),
                       shape_b: Shape | str = (3, 4)) -> BroadcastExplorer:
    """A widget: type two shapes, see them aligned from the right, which dims
    stretch, and the result shape or the exact error of ``broadcast_shapes``."""
    return BroadcastExplorer(shape_a, shape_b)
