"""draw_graph, headless: what is drawn (nodes, edges, labels) and where."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch  # noqa: E402

import stridegrad as sg  # noqa: E402
from stridegrad.course import designs  # noqa: E402
from stridegrad.viz import draw_graph  # noqa: E402
from stridegrad.viz.graph import graph_layout  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _xyb(V=sg.Value):
    x, y, b = V(2.0), V(-3.0), V(10.0)
    return x, y, b, x * y + b


def _artists(fig):
    ax = fig.axes[0]
    boxes = [p for p in ax.patches if isinstance(p, FancyBboxPatch)]
    circles = [p for p in ax.patches if isinstance(p, Circle)]
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    return boxes, circles, arrows, [t.get_text() for t in ax.texts]


def test_z_equals_x_times_y_plus_b_counts():
    x, y, b, z = _xyb()
    fig = draw_graph(z)
    assert isinstance(fig, Figure)
    boxes, circles, arrows, texts = _artists(fig)
    assert len(boxes) == 5  # x, y, b, x*y, z
    assert len(circles) == 2  # *, +
    assert len(arrows) == 6  # x, y -> *; * -> xy; xy, b -> +; + -> z
    assert sorted(t for t in texts if len(t) == 1) == ["*", "+"]


def test_labels_show_data_and_grad_after_backward():
    x, y, b, z = _xyb()
    z.backward()
    fig = draw_graph(z, labels={x: "x", y: "y", b: "b", z: "z"})
    texts = _artists(fig)[3]
    assert "x\ndata 2\ngrad -3" in texts
    assert "y\ndata -3\ngrad 2" in texts
    assert "b\ndata 10\ngrad 1" in texts
    assert "z\ndata 4\ngrad 1" in texts
    assert "data -6\ngrad 1" in texts


def test_before_backward_grads_are_zero():
    *_, z = _xyb()
    texts = _artists(draw_graph(z))[3]
    assert all(t.endswith("grad 0") for t in texts if "data" in t)


def test_layout_is_layered_and_deterministic():
    x, y, b, z = _xyb()
    lay = graph_layout(z)
    again = graph_layout(z)
    assert [(n.kind, n.x, n.y, n.text) for n in lay.nodes] == \
        [(n.kind, n.x, n.y, n.text) for n in again.nodes]
    root = lay.nodes[0]
    assert root.kind == "root" and root.column == 0
    assert all(n.x < root.x for n in lay.nodes[1:])  # inputs to the left
    for s, t in lay.edges:  # every edge points right
        assert lay.nodes[s].x < lay.nodes[t].x
    assert lay.count("leaf") == 3 and lay.count("op") == 2 and len(lay.edges) == 6


def test_lesson_value_with_labels_and_a_value_used_twice():
    x = designs.Value(3.0, label="x")
    y = x * x
    y.backward()
    lay = graph_layout(y)
    assert lay.count("leaf") == 1 and lay.count("op") == 1
    assert sum(1 for s, t in lay.edges if lay.nodes[s].kind == "leaf") == 2
    fig = draw_graph(y)
    assert len(_artists(fig)[2]) == 3  # two parallel arrows x -> *, one * -> y
    assert "x\ndata 3\ngrad 6" in _artists(fig)[3]


def test_draws_into_a_given_axes():
    *_, z = _xyb()
    fig, ax = plt.subplots()
    assert draw_graph(z, ax=ax, title="t") is fig
    assert ax.get_title() == "t" and len(ax.patches) > 0


def test_deep_chain_needs_no_recursion():
    v = sg.Value(1.0)
    for _ in range(3000):
        v = v * 1.0
    lay = graph_layout(v)
    assert lay.count("op") == 3000


def test_node_edge_graph_of_design_b():
    x = designs.Var(2.0, requires_grad=True, label="x")
    y = designs.Var(-3.0, requires_grad=True, label="y")
    z = designs.var_add(designs.var_mul(x, y), designs.Var(1.0))
    designs.run_backward(z)
    lay = graph_layout(z)
    assert [n.kind for n in lay.nodes].count("node") == 2  # AddBackward, MulBackward
    assert lay.count("accumulate") == 2 and len(lay.edges) == 4
    texts = _artists(draw_graph(z))[3]
    assert "AddBackward" in texts and "MulBackward" in texts
    assert "x\ndata 2\ngrad -3" in texts


def test_tensor_graph_shows_shapes_and_one_box_per_leaf():
    t = sg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    u = (t * t).sum()
    u.backward()
    lay = graph_layout(u)
    assert lay.count("accumulate") == 1  # t used twice: one box, two edges
    texts = [n.text for n in lay.nodes]
    assert any("shape (2, 2)" in s for s in texts) and "shape ()" in texts[0]
    assert sum(1 for s, t_ in lay.edges if lay.nodes[s].kind == "accumulate") == 2


def test_rejects_other_objects():
    with pytest.raises(TypeError, match="needs a Value"):
        draw_graph(3.0)
