"""Checkpoint 06 (scalar autograd): the reference passes, known-wrong code fails,
the lesson's Value is the one in stridegrad.course.designs, and the worked example holds."""

from __future__ import annotations

import inspect

import pytest

from stridegrad.course import designs
from stridegrad.course.build import reference_namespace
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.course.paths import find_lesson

from .conftest import ROOT, define
from .wrong import pairs

WRONG = pairs("06")

CP = load_checkpoint("06")
SOURCE = (ROOT / "course" / "06_scalar_autograd.py").read_text()
EXERCISES = ["add", "mul", "tanh", "topological_order", "backward", "central_difference"]


def test_checkpoint_has_six_exercises_with_five_hinted_tests_each():
    assert CP.exercises == [*EXERCISES, "power"]
    assert CP.stretch_exercises == ["power"]
    for ex in CP.exercises:
        tests = [t for t in CP.tests if t.exercise == ex]
        assert len(tests) >= 5 and all(t.hint for t in tests), ex


def test_the_lesson_reference_passes():
    ns = reference_namespace(find_lesson(ROOT, "06"))
    result = run_checkpoint(CP, ns, require_local=False)
    assert result.score == result.max_score == CP.max_points, result


def test_every_exercise_has_known_wrong_implementations():
    assert set(WRONG) == set(CP.exercises)


@pytest.mark.parametrize("exercise, label, source",
                         [(ex, label, src) for ex, cases in WRONG.items() for label, src in cases])
def test_checkpoint_fails_known_wrong_implementation(exercise, label, source):
    result = run_checkpoint(CP, define(source), exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert {r.status for r in result.rows} <= {"pass", "fail", "error", "timeout"}, result


def test_overwriting_gradient_is_named_in_the_row():
    ns = define(dict(WRONG["mul"])["= instead of +="])
    row = run_checkpoint(CP, ns, exercise="mul").row("mul_square")
    assert row.status == "fail" and row.expected == "6.0" and row.got == "3.0"
    # its diagnosis names the mistake; the hint about it (hint_for) gives way to it
    assert "(+=)" in row.diagnosis and "half its gradient" in row.diagnosis and row.hint == ""


def test_recursive_sort_is_an_error_row_not_a_crash():
    ns = define(dict(WRONG["topological_order"])["recursive (overflows on a 10,000-step chain)"])
    row = run_checkpoint(CP, ns, exercise="topological_order").row("chain_of_ten_thousand")
    assert row.status == "error" and "RecursionError" in row.got


def test_lesson_value_is_the_designs_value():
    """The notebook defines Value and as_value itself (so that its operators call the
    learner's functions); the copy must not drift from the reference module."""
    for obj in (designs.Value, designs.as_value):
        assert inspect.getsource(obj) in SOURCE, obj.__name__


def test_worked_example():
    V = designs.Value
    w = [V(0.5), V(-1.0), V(2.0)]
    b = V(0.5)
    p = w[0] * 4.0 + w[1] * 3.0 + w[2] * 2.0 + b
    d = p - 2.5
    loss = d * d
    loss.backward()
    assert (p.data, loss.data, b.grad) == (3.5, 1.0, 2.0)
    assert [wi.grad for wi in w] == [8.0, 6.0, 4.0]


def test_reference_gradients_match_central_differences():
    def f(xs):
        a, b, c = (designs.Value(x) for x in xs)
        return ((a * b + c).tanh() * a - b).data

    xs = [0.3, -0.7, 0.2]
    leaves = [designs.Value(x) for x in xs]
    a, b, c = leaves
    ((a * b + c).tanh() * a - b).backward()
    for i, leaf in enumerate(leaves):
        assert leaf.grad == pytest.approx(designs.central_difference(f, xs, i), abs=1e-7)


def test_recursive_sort_really_overflows_and_the_iterative_one_does_not():
    node = designs.Value(1.0)
    for _ in range(10_000):
        node = designs.Value(node.data, (node,), "copy")
    with pytest.raises(RecursionError):
        designs.topological_order_recursive(node)
    assert len(designs.topological_order(node)) == 10_001


def test_lesson_06_meets_the_lesson_standard():
    for heading in ("By the end you can", "Where this is in PyTorch", "Going further",
                    "#| check: all"):
        assert heading in SOURCE
    # 3-6 exercises, and the optional stretch exercise
    assert 3 <= SOURCE.count("#| exercise:") - len(CP.stretch_exercises) <= 6
    assert "draw_graph(" in SOURCE and "plt.show()" in SOURCE
    # the bug is shown before the exercise that fixes it
    assert SOURCE.index("mul_that_overwrites") < SOURCE.index("#| exercise: stridegrad.course.designs.mul")
