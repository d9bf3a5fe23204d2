"""The broadcasting explorer, driven headlessly: change a box, read the state."""

from __future__ import annotations

import pytest

from stridegrad.array.layout import broadcast_shapes
from stridegrad.viz import broadcast_explorer
from stridegrad.viz.broadcasting import (
    CLASH,
    MATCH,
    MISSING,
    STRETCH,
    BroadcastExplorer,
    Column,
    align,
    parse_shape,
)


def test_default_is_the_lesson_example():
    w = broadcast_explorer()
    assert isinstance(w, BroadcastExplorer)
    assert (w.text_a.value, w.text_b.value) == ("3, 1", "3, 4")
    assert w.shape_a == (3, 1) and w.shape_b == (3, 4)
    assert w.result == (3, 4) and w.error is None
    assert w.columns == [Column(3, 3, 3, MATCH, MATCH), Column(1, 4, 4, STRETCH, MATCH)]
    assert "result shape: <b>(3, 4)</b>" in w.html_text
    assert "strides (1, 0)" in w.html_text  # (3, 1) read as (3, 4): stride 0 where it stretches
    assert "strides (4, 1)" in w.html_text


def test_changing_a_box_updates_result_and_picture():
    w = broadcast_explorer()
    w.text_b.value = "2, 3, 4"
    assert w.result == (2, 3, 4)
    assert [c.status_a for c in w.columns] == [MISSING, MATCH, STRETCH]
    assert "result shape: <b>(2, 3, 4)</b>" in w.html_text
    assert "strides (0, 1, 0)" in w.html_text
    w.text_a.value = "()"
    assert w.shape_a == () and w.result == (2, 3, 4)
    assert [c.status_a for c in w.columns] == [MISSING] * 3


@pytest.mark.parametrize("a, b", [((3,), (4,)), ((3, 1), (2, 4)), ((2, 3), (3, 2)),
                                  ((5, 2), (2, 3))])
def test_error_is_the_exact_broadcast_shapes_message(a, b):
    with pytest.raises(ValueError) as info:
        broadcast_shapes(a, b)
    w = broadcast_explorer(a, b)
    assert w.result is None
    assert w.error == str(info.value)
    assert "ValueError: " + str(info.value) in w.html_text
    assert CLASH in {c.status_a for c in w.columns}
    assert "result shape" not in w.html_text


def test_error_clears_when_the_shapes_are_fixed():
    w = broadcast_explorer((3,), (4,))
    assert w.error.startswith("operands could not be broadcast together")
    w.text_a.value = "1"
    assert w.error is None and w.result == (4,)
    assert "could not be broadcast" not in w.html_text


@pytest.mark.parametrize("text, message", [
    ("3,x", "'x' is not a size"),
    ("3, -2", "'-2' is negative"),
    ("3,,1", "empty size"),
    ("1.5", "'1.5' is not a size"),
    ("three", "'three' is not a size"),
])
def test_bad_text_gives_a_friendly_message_not_a_traceback(text, message):
    w = broadcast_explorer()
    w.text_a.value = text  # must not raise
    assert w.result is None and w.columns == []
    assert w.error.startswith("shape a: ") and message in w.error
    assert "Traceback" not in w.html_text and "Cannot read the shapes" in w.html_text
    w.text_b.value = "oops"
    assert "shape a: " in w.error and "shape b: 'oops' is not a size" in w.error


@pytest.mark.parametrize("text, shape", [
    ("3, 1", (3, 1)), ("(3, 1)", (3, 1)), ("[2,3]", (2, 3)), ("4", (4,)), ("4,", (4,)),
    ("", ()), ("()", ()), (" 2 , 0 ", (2, 0)),
])
def test_parse_shape(text, shape):
    assert parse_shape(text) == shape


def test_align_marks_missing_stretched_and_clashing_dims():
    assert align((5, 1), (4, 1, 3)) == [
        Column(None, 4, 4, MISSING, MATCH),
        Column(5, 1, 5, MATCH, STRETCH),
        Column(1, 3, 3, STRETCH, MATCH),
    ]
    assert align((2,), (3,)) == [Column(2, 3, None, CLASH, CLASH)]
    assert align((1,), (1,)) == [Column(1, 1, 1, MATCH, MATCH)]  # nothing stretches


def test_widget_tree_and_html_escape():
    w = broadcast_explorer("<b>", (2,))
    assert "&lt;b&gt;" in w.html_text and "'<b>'" not in w.html_text  # shown escaped
    assert w.children[0].children == (w.text_a, w.text_b)
    assert w.children[1] is w.output
