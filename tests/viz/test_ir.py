"""stridegrad.viz.ir: every label stays inside its box, long fused expressions included."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

import stridegrad as sg  # noqa: E402
from stridegrad.viz.ir import draw_ir, fit_label  # noqa: E402


def test_fit_label_wraps_and_bounds_the_lines():
    long = "%5 fused\nt1=((x * 2.0) + 1.0); tanh(t1) * exp((y - x)) * y + t1 * t1\nfloat32[3]"
    text = fit_label(long, width=24, max_lines=4)
    lines = text.splitlines()
    assert 1 < len(lines) <= 4
    assert max(map(len, lines)) <= 24
    assert lines[0] == "%5 fused" and lines[-1] == "float32[3]"  # name and type kept
    assert lines[-2].endswith("…")  # the expression went on: said, not silently dropped
    assert fit_label(long, width=24, max_lines=3).splitlines() == [
        "%5 fused", "t1=((x * 2.0) + 1.0);…", "float32[3]"]
    assert fit_label("x\nfloat32[4]") == "x\nfloat32[4]"  # short labels are left alone


def test_every_label_is_drawn_inside_its_box():
    def messy(x, y):
        t = ((x * 2.0 + 1.0).tanh() * ((y - x).exp() * y) + x * x).sum()
        return t

    x = sg.tensor(np.arange(3.0, dtype=np.float32))
    y = sg.tensor(np.ones(3, dtype=np.float32))
    graph = sg.compile(messy).graph(x, y)
    assert any(n.kind == "fused" and len(n.label) > 30 for n in graph.diagram()[0])
    fig = draw_ir(graph)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    boxes = [p.get_window_extent(renderer) for p in ax.patches if isinstance(p, FancyBboxPatch)]
    texts = [t.get_window_extent(renderer) for t in ax.texts]
    assert len(boxes) == len(texts) > 0
    for box, text in zip(boxes, texts):
        assert box.x0 <= text.x0 + 0.5 and text.x1 <= box.x1 + 0.5, (box, text)
        assert box.y0 <= text.y0 + 0.5 and text.y1 <= box.y1 + 0.5, (box, text)
    plt.close(fig)
