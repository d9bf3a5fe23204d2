"""Checkpoint 06 (scalar autograd): the reference passes, known-wrong code fails,
the lesson's Value is the one in stridegrad.course.designs, and the worked example holds."""

from __future__ import annotations

import contextlib
import inspect
import io

import sys

import pytest

from stridegrad import scalar
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


def test_add_that_ignores_g_is_named_not_told_to_use_plus_equals():
    # the learner wrote a.grad += 1.0: the += hint of add_accumulates was beside the point
    ns = define(dict(WRONG["add"])["forgets the incoming gradient"])
    row = run_checkpoint(CP, ns, exercise="add").row("add_accumulates")
    assert row.status == "fail" and (row.expected, row.got) == ("3.0", "2.0")
    assert "gradient g" in row.diagnosis and row.hint == ""


def test_leaves_reset_too_is_named_in_the_second_backward_row():
    ns = define(dict(WRONG["backward"])["resets the leaves too"])
    row = run_checkpoint(CP, ns, exercise="backward").row(
        "second_backward_accumulates_into_leaves_only")
    assert row.status == "fail" and "leaves must keep accumulating" in row.diagnosis
    assert "order" not in row.hint


def test_tanh_closure_reading_out_is_named():
    ns = define(dict(WRONG["tanh"])["closure captures its output"])
    result = run_checkpoint(CP, ns, exercise="tanh")
    assert [r.test for r in result.rows if not r.passed] == [
        "tanh_closure_does_not_capture_the_output", "tanh_on_generated_inputs"]
    assert "reads out.data" in result.row("tanh_closure_does_not_capture_the_output").diagnosis
    # the contract sees it too, as what it is: the numbers right, the output kept alive
    row = result.row("tanh_on_generated_inputs")
    assert "'freed as soon as dropped': True" in row.expected
    assert "'freed as soon as dropped': False" in row.got and "reads out.data" in row.diagnosis


def test_power_of_zero_has_slope_zero_at_zero():
    """The contract (lesson text, hint, test): a**0 is the constant 1, slope 0 everywhere,
    a = 0 included, as in PyTorch; the bare formula divides by zero there."""
    x = designs.Value(0.0)
    designs.power(x, 0)._backward(1.0)
    assert x.grad == 0.0
    ns = define(dict(WRONG["power"])["formula used at n = 0"])
    row = run_checkpoint(CP, ns, exercise="power").row("power_zero_is_a_constant")
    assert row.status == "error" and row.expected == "0.0"
    assert row.got.startswith("raised ZeroDivisionError")
    assert "a**0 is the constant 1" in SOURCE.replace("`", "")


def _cell(marker):
    return next(c for c in SOURCE.split("\n# %%") if marker in c)


def _run_mul_demo(mul):
    ns = {"__name__": "__main__", "mul": mul}
    exec(_cell("class Value:"), ns)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(_cell('print(f"x * y at x = 3'), ns)
    return out.getvalue().splitlines()


def test_mul_demo_shows_a_mul_that_gives_each_input_its_own_number():
    right = _run_mul_demo(designs.mul)
    assert right == ["x * y at x = 3, y = -2: dz/dx = -2.0 (y), dz/dy = 3.0 (x)",
                     "x * x at x = 3: d(x²)/dx = 6.0 (2x)"]
    own = _run_mul_demo(define(dict(WRONG["mul"])["own data instead of the other's"])["mul"])
    assert own[0] != right[0] and own[1] == right[1]  # x * x alone would not show it


def test_recursive_sort_is_an_error_row_not_a_crash():
    ns = define(dict(WRONG["topological_order"])["recursive (overflows on a 10,000-step chain)"])
    row = run_checkpoint(CP, ns, exercise="topological_order").row("chain_of_ten_thousand")
    assert row.status == "error" and "RecursionError" in row.got


def test_a_chain_in_the_wrong_order_names_its_ends():
    """Every node of the chain holds 1.0: the row says which end came first, in words."""
    ns = define(dict(WRONG["topological_order"])["reversed: root first"])
    row = run_checkpoint(CP, ns, exercise="topological_order").row("chain_of_ten_thousand")
    assert row.status == "fail"
    assert (row.expected, row.got) == ("[the leaf x, ..., the root]", "[the root, ..., the leaf x]")


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
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default, whatever a test before changed
    try:
        with pytest.raises(RecursionError):
            designs.topological_order_recursive(node)
    finally:
        sys.setrecursionlimit(old)
    assert len(scalar.topological_order(node)) == 10_001


def test_lesson_06_meets_the_lesson_standard():
    for heading in ("By the end you can", "Where this is in PyTorch", "Going further",
                    "#| check: all"):
        assert heading in SOURCE
    # 3-6 exercises, and the optional stretch exercise
    assert 3 <= SOURCE.count("#| exercise:") - len(CP.stretch_exercises) <= 6
    assert "draw_graph(" in SOURCE and "plt.show()" in SOURCE
    # the bug is shown before the exercise that fixes it
    assert SOURCE.index("mul_that_overwrites") < SOURCE.index("#| exercise: stridegrad.course.designs.mul")


def test_topological_order_rows_show_the_nodes_as_a_set_with_counts():
    # a sorted list of node names read like a root-first order, right after the lesson
    # says the root comes last: the row says "in any order" and counts repeats instead
    ns = define(dict(WRONG["topological_order"])["no visited set: shared nodes twice"])
    row = run_checkpoint(CP, ns, exercise="topological_order").row("shared_input_is_listed_once")
    assert row.status == "fail" and "as a set" in row.call
    assert row.expected == ("each node once, in any order: "
                            "{a, (a * a), (a + (a * a)), ((a * a) + (a + (a * a)))}")
    assert row.got == "{a x5, (a * a) x2, (a + (a * a)), ((a * a) + (a + (a * a)))}"
    ns = define(dict(WRONG["topological_order"])["leaves left out"])
    row = run_checkpoint(CP, ns, exercise="topological_order").row("order_of_x_times_y_plus_b")
    assert row.got == "{(x * y), ((x * y) + b)}; missing: x, y, b"


def test_backward_first_row_says_what_it_checks_not_the_recipe():
    ns = define("def backward(root):\n    root.grad = 1.0\n")
    row = run_checkpoint(CP, ns, exercise="backward").row("backward_of_x_times_y_plus_b")
    assert row.status == "fail" and "x.grad = y = -3" in row.hint
    assert "reversed(" not in row.hint and "_backward(node.grad)" not in row.hint


def test_central_difference_that_nudges_xs_and_restores_it_is_named():
    """The contract (docstring, lesson): f gets copies, xs never changes during the call."""
    ns = define(dict(WRONG["central_difference"])["nudges xs in place, then restores it"])
    result = run_checkpoint(CP, ns, exercise="central_difference")
    assert [r.test for r in result.rows if not r.passed] == [
        "f_gets_copies_and_xs_never_changes", "central_difference_on_generated_inputs"]
    assert "('xs itself', 'xs changed')" in result.row(
        "central_difference_on_generated_inputs").got
    row = result.row("f_gets_copies_and_xs_never_changes")
    assert row.got == "f(xs itself) while xs = [1.5, 2.0]; f(xs itself) while xs = [0.5, 2.0]"
    assert "puts the number back" in row.diagnosis
    assert "`xs` must be as it was not only after" in " ".join(
        SOURCE.replace("\n#", "\n").split())  # the prose, however its lines are wrapped


def test_power_closure_that_captures_out_fails_only_the_cycle_test():
    ns = define(dict(WRONG["power"])["closure captures its output"])
    result = run_checkpoint(CP, ns, exercise="power")
    assert [r.test for r in result.rows if not r.passed] == [
        "power_closure_does_not_capture_the_output", "power_on_generated_inputs"]
    assert "'freed as soon as dropped': False" in result.row("power_on_generated_inputs").got
    assert "out._prev" in result.row("power_closure_does_not_capture_the_output").diagnosis


RIGHT_OTHERWISE = """
    import math
    from collections import deque
    from stridegrad.course.designs import Value

    def add(a, b):
        out = Value(a.data + b.data, (a, b), "+")
        def _backward(g):
            for v in (a, b):
                v.grad += 1.0 * g
        out._backward = _backward
        return out

    def mul(a, b):
        ad, bd = a.data, b.data
        out = Value(ad * bd, [a, b], "*")
        def _backward(g):
            a.grad += g * bd
            b.grad += g * ad
        out._backward = _backward
        return out

    def tanh(a):
        out = Value(math.tanh(a.data), (a,), "tanh")
        t = out.data
        def _backward(g):
            a.grad += g * (1 - t ** 2)
        out._backward = _backward
        return out

    def power(a, n):
        out = Value(math.pow(a.data, n) if n == int(n) or a.data > 0 else a.data ** n, (a,), f"**{n}")
        def _backward(g):
            if n == 0:
                return
            a.grad += g * n * a.data ** (n - 1)
        out._backward = _backward
        return out

    def topological_order(root):
        # Kahn's algorithm on the reversed graph
        nodes, stack, seen = [], [root], {id(root)}
        while stack:
            n = stack.pop()
            nodes.append(n)
            for c in n._prev:
                if id(c) not in seen:
                    seen.add(id(c)); stack.append(c)
        users = {id(n): 0 for n in nodes}
        for n in nodes:
            for c in set(map(id, n._prev)):
                users[c] += 1
        ready = deque([root]); out = []
        while ready:
            n = ready.popleft(); out.append(n)
            for c in {id(c): c for c in n._prev}.values():
                users[id(c)] -= 1
                if users[id(c)] == 0:
                    ready.append(c)
        return out[::-1]

    def backward(root):
        order = topological_order(root)
        for v in order:
            if v._backward:
                v.grad = 0.0
        root.grad = 1.0
        for v in order[::-1]:
            if v._backward:
                v._backward(v.grad)

    def central_difference(f, xs, i, h=1e-6):
        hi = xs[:]
        lo = xs[:]
        hi[i] = xs[i] + h
        lo[i] = xs[i] - h
        return (f(hi) - f(lo)) / h / 2
"""


def test_right_answers_written_otherwise_pass_every_row():
    """Other algorithms and styles than the lesson's (a closure that reads the numbers it captured, a topological order by Kahn's algorithm (another valid order), copies made by slicing, dividing by h then by 2): every
    row passes, the contracts' too (they compare what the docstrings promise, not how)."""
    ns = define(RIGHT_OTHERWISE)
    result = run_checkpoint(CP, ns, require_local=False)
    assert result.passed and result.stretch_score == result.stretch_max_score, [
        (r.test, r.call, r.expected, r.got) for r in result.rows if not r.passed]
    assert {r.exercise for r in result.rows if r.test.endswith("_on_generated_inputs")} == \
        set(EXERCISES + ["power"])
