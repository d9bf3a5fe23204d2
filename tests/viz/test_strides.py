"""stridegrad.viz.strides: the storage picture and the stride explorer, driven headlessly."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pytest

from stridegrad import viz
from stridegrad.viz.strides import (
    DEFAULT_VIEWS,
    StrideExplorer,
    storage_picture,
    stride_explorer,
    view_text,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _numpy_positions(expression: str) -> list[int]:
    """Storage positions a view of x = arange(12).reshape(3, 4) reads, by NumPy itself."""
    x = np.arange(12).reshape(3, 4)
    y = x.reshape(2, 3, 2)
    env = {"x": x, "y": y}
    expression = expression.replace(".permute(", ".transpose(")
    if expression.startswith("y = "):
        expression = "y"
    return np.asarray(eval(expression, env)).ravel().tolist()  # values are positions


def test_lazy_exports():
    assert viz.stride_explorer is stride_explorer
    assert viz.storage_picture is storage_picture


@pytest.mark.parametrize("name", list(DEFAULT_VIEWS))
def test_default_views_read_what_numpy_reads(name):
    e = stride_explorer(name)
    assert e.offsets == _numpy_positions(name)
    assert e.expression == name.split(" = ")[0]


def test_explorer_is_a_widget_with_controls_and_an_html_child():
    e = stride_explorer()
    assert isinstance(e, widgets.VBox) and isinstance(e, StrideExplorer)
    assert isinstance(e.view, widgets.Dropdown) and isinstance(e.html, widgets.HTML)
    assert e.html in e.children
    assert e.view.value == "x.T"
    assert e.offsets == [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    assert e.text == "x.T: shape (4, 3)  strides (1, 4)  offset 0  (not contiguous)"
    assert repr(e) == f"StrideExplorer({e.text})"
    state = e.html.get_state()
    assert state["_model_name"] == "HTMLModel" and e.text in state["value"]


def test_changing_the_dropdown_redraws():
    e = stride_explorer("x")
    before_html, before_text = e.html.value, e.text
    assert e.offsets == list(range(12))
    e.view.value = "x[::-1]"
    assert e.offsets == [8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]
    assert (e.shape, e.strides, e.offset) == ((3, 4), (-4, 1), 8)
    assert e.text == "x[::-1]: shape (3, 4)  strides (-4, 1)  offset 8  (not contiguous)"
    assert e.html.value != before_html and e.text != before_text
    assert "#0" in e.html.value and "strides (-4, 1)" in e.html.value


def test_changing_the_view_fires_observers_of_the_html():
    e = stride_explorer("x")
    seen = []
    e.html.observe(lambda change: seen.append(change["new"]), names="value")
    e.view.value = "x[1]"
    assert len(seen) == 1 and "offset 4" in seen[0]
    assert e.offsets == [4, 5, 6, 7]


def test_start_and_step_slice_the_last_axis():
    e = stride_explorer("x")
    e.step.value = -1
    assert e.expression == "x[:, ::-1]"
    assert e.offsets == [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8]
    assert (e.strides, e.offset) == ((4, -1), 3)
    e.start.value = 0  # a backwards slice starting at 0 keeps one element per row
    assert e.expression == "x[:, 0::-1]"
    assert e.offsets == [0, 4, 8] and e.shape == (3, 1)
    e.view.value = "x[1]"
    e.start.value, e.step.value = 1, 2
    assert e.expression == "x[1][1::2]" and e.offsets == [5, 7]
    assert e.offsets == np.arange(12).reshape(3, 4)[1][1::2].tolist()
    e.start.value, e.step.value = None, 1
    assert e.expression == "x[1]" and e.offsets == [4, 5, 6, 7]


def test_start_past_the_end_shows_an_empty_view():
    e = stride_explorer("x[:, ::2]", start=3)
    assert e.shape == (3, 0) and e.offsets == []
    assert "shape (3, 0)" in e.text and "contiguous" in e.text


def test_html_marks_touched_cells_in_visiting_order():
    e = stride_explorer("x[:, ::2]")
    html = e.html.value
    assert html.count("<td") == 12
    for k, p in enumerate([0, 2, 4, 6, 8, 10]):
        assert f'title="storage[{p}] is visit {k}"' in html
    assert 'title="storage[1]' not in html


def test_custom_views_and_storage_size():
    e = stride_explorer("diag", views={"diag": ((3,), (4,), 0), "row": ((4,), (1,), 8)})
    assert e.storage_size == 12 and e.offsets == [0, 4, 8]
    e.view.value = "row"
    assert e.offsets == [8, 9, 10, 11]


def test_bad_arguments_name_what_was_wrong():
    with pytest.raises(ValueError, match="unknown view 'x.H'"):
        stride_explorer("x.H")
    with pytest.raises(ValueError, match="step=0"):
        stride_explorer("x", step=0)


def test_view_text():
    assert view_text("x", (3, 4), (4, 1), 0) == "x: shape (3, 4)  strides (4, 1)  offset 0  (contiguous)"
    with pytest.raises(ValueError, match="different lengths"):
        view_text("x", (3, 4), (1,), 0)


def test_storage_picture_highlights_and_numbers_the_visits():
    ax = storage_picture((4, 3), (1, 4), 0, storage_size=12)
    # every storage cell is drawn and labelled with its position, its visit number above
    assert len(ax.patches) == 12
    cell_labels = [t.get_text() for t in ax.texts if t.get_position()[1] < 1][:12]
    assert cell_labels == [str(p) for p in range(12)]
    visit_labels = [t.get_text() for t in ax.texts if t.get_position()[1] > 1]
    assert visit_labels[:12] == ["0", "3", "6", "9", "1", "4", "7", "10", "2", "5", "8", "11"]
    assert ax.get_title() == "shape (4, 3)   strides (1, 4)   offset 0"


def test_storage_picture_greys_untouched_cells_and_lists_repeats():
    ax = storage_picture((2, 3), (0, 2), 1, storage_size=8, title="stride 0")
    grey = [p for p in ax.patches if matplotlib.colors.to_hex(p.get_facecolor()) == "#dddddd"]
    assert len(ax.patches) == 8 and len(grey) == 5  # cells 1, 3, 5 are read
    visit_labels = [t.get_text() for t in ax.texts if t.get_position()[1] > 1 and t.get_text() != "visit"]
    assert visit_labels == ["0,3", "1,4", "2,5"]
    assert ax.get_title() == "stride 0"


def test_storage_picture_default_size_and_errors():
    ax = storage_picture((3,), (2,), 1)
    assert len(ax.patches) == 6  # up to the last cell read, position 5
    with pytest.raises(ValueError, match="outside a storage of 4 cells"):
        storage_picture((3,), (2,), 1, storage_size=4)
    _, (a1, a2) = plt.subplots(2, 1)
    assert storage_picture((2,), (1,), ax=a2) is a2 and not a1.patches
