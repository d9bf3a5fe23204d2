"""Checkpoint 07 (two autograd designs): the reference passes, known-wrong code fails,
the lesson's copies of the reference stay in sync, and the memory claims hold."""

from __future__ import annotations

import inspect
import json

import pytest

import stridegrad as sg
from stridegrad.course import designs
from stridegrad.course.build import reference_namespace
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.course.paths import find_lesson

from .conftest import ROOT, define
from .wrong import pairs

WRONG = pairs("07")

CP = load_checkpoint("07")
LESSON = find_lesson(ROOT, "07")
SOURCE = LESSON.source.read_text()
EXERCISES = ["gradient_edge", "var_mul", "count_dependencies", "run_backward",
             "count_cycle_garbage"]


def test_checkpoint_has_five_exercises_with_five_hinted_tests_each():
    assert CP.exercises == [*EXERCISES, "var_div"]
    assert CP.stretch_exercises == ["var_div"]
    for ex in CP.exercises:
        tests = [t for t in CP.tests if t.exercise == ex]
        assert len(tests) >= 5 and all(t.hint for t in tests), ex


def test_the_lesson_reference_passes():
    result = run_checkpoint(CP, reference_namespace(LESSON), require_local=False)
    assert result.score == result.max_score == CP.max_points, result


def test_every_exercise_has_known_wrong_implementations():
    assert set(WRONG) == set(CP.exercises)


@pytest.mark.parametrize("exercise, label, source",
                         [(ex, label, src) for ex, cases in WRONG.items() for label, src in cases])
def test_checkpoint_fails_known_wrong_implementation(exercise, label, source):
    result = run_checkpoint(CP, define(source), exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert {r.status for r in result.rows} <= {"pass", "fail", "error", "timeout"}, result


def test_forgotten_edge_fails_the_edge_test():
    ns = define(dict(WRONG["var_mul"])["forgets an edge"])
    row = run_checkpoint(CP, ns, exercise="var_mul").row("var_mul_has_an_edge_per_input")
    assert row.status == "fail" and "Forget one" in row.hint


def test_a_root_without_grad_fn_row_says_what_was_expected_and_hints():
    # a run_backward with no check crashes on None.apply: the row names the expected error
    source = dict(WRONG["run_backward"])["no check for a missing grad_fn"].replace(
        "    if root.grad_fn is None:\n        return\n", "")
    row = run_checkpoint(CP, define(source), exercise="run_backward").row("leaf_root_raises")
    assert row.status == "error" and row.expected == "raises RuntimeError"
    assert row.got.startswith("raised AttributeError") and "RuntimeError" in row.hint


def test_interior_var_sent_to_an_accumulator_is_named():
    ns = define(dict(WRONG["gradient_edge"])["asks requires_grad before grad_fn"])
    result = run_checkpoint(CP, ns, exercise="gradient_edge")
    failing = [r for r in result.rows if not r.passed]
    assert [r.test for r in failing] == ["edge_of_an_interior_var", "edge_keeps_the_output_number",
                                         "gradient_edge_on_generated_inputs"]
    assert all("ask grad_fn first" in r.diagnosis for r in failing)
    # the lesson says so where it introduces Var
    prose = " ".join(SOURCE.replace("\n#", "\n").split())
    assert "A `Var` with a `grad_fn` requires grad" in prose


def test_lesson_copies_are_the_reference():
    for fn in (designs.var_add, designs.var_tanh):
        assert inspect.getsource(fn) in SOURCE, fn.__name__


def _graph(make, n=50):
    b = make(0.1)
    total = make(0.0)
    for i in range(n):
        total = total + (make(0.01 * i) * make(1.0 + i) + b).tanh()
    total.backward()
    return total


def test_only_the_capturing_closure_leaves_cycles():
    count = designs.count_cycle_garbage
    assert count(lambda: _graph(designs.CapturingValue)) > 4 * 50  # at least one per op
    assert count(lambda: _graph(designs.Value)) == 0
    assert count(lambda: _graph(sg.Value)) == 0

    def design_b():
        leaf = lambda v: designs.Var(v, requires_grad=True)
        total = leaf(0.0)
        for i in range(50):
            unit = designs.var_tanh(designs.var_add(designs.var_mul(leaf(0.01 * i), leaf(1.0)),
                                                    leaf(0.1)))
            total = designs.var_add(total, unit)
        designs.run_backward(total)
        return total
    assert count(design_b) == 0


def test_design_b_worked_example_and_no_interior_grads():
    V, add, mul = designs.Var, designs.var_add, designs.var_mul
    w = [V(v, requires_grad=True) for v in (0.5, -1.0, 2.0)]
    b = V(0.5, requires_grad=True)
    p = b
    for wi, xi in zip(w, (4.0, 3.0, 2.0)):
        p = add(p, mul(wi, V(xi)))
    d = add(p, V(-2.5))
    loss = mul(d, d)
    designs.run_backward(loss)
    assert (p.data, loss.data, b.grad) == (3.5, 1.0, 2.0)
    assert [wi.grad for wi in w] == [8.0, 6.0, 4.0]
    assert p.grad is None and d.grad is None


def test_detach_and_shared_history():
    x = designs.Var(2.0, requires_grad=True)
    y = designs.Var(-3.0, requires_grad=True)
    z = designs.var_mul(x, y)
    zd = z.detach()
    assert zd.grad_fn is None and not zd.requires_grad and zd.data == z.data
    alias = designs.Var(z.data, grad_fn=z.grad_fn)
    designs.run_backward(designs.var_add(z, alias))
    assert (x.grad, y.grad) == (-6.0, 4.0)


def test_timing_cell_is_not_output_compared():
    nb = json.loads(LESSON.solution_path.read_text())
    timing = [c for c in nb["cells"] if c["cell_type"] == "code" and "perf_counter" in "".join(c["source"])]
    assert len(timing) == 1
    assert "nbval-ignore-output" in timing[0]["metadata"]["tags"]


def test_lesson_07_meets_the_lesson_standard():
    for heading in ("By the end you can", "Where this is in PyTorch", "Going further",
                    "#| check: all", "next_functions", "tracemalloc", "gc.disable"):
        assert heading in SOURCE
    assert 3 <= SOURCE.count("#| exercise:") - len(CP.stretch_exercises) <= 6


def test_counting_none_edges_is_named_and_rows_use_the_node_names():
    # the lone-node row's hint was about the root, while the mistake was None: 2 in the result
    ns = define(dict(WRONG["count_dependencies"])["counts edges to None"])
    result = run_checkpoint(CP, ns, exercise="count_dependencies")
    failing = [r for r in result.rows if not r.passed]
    assert [r.test for r in failing] == ["dependencies_of_a_lone_node", "none_edges_are_skipped",
                                         "count_dependencies_on_generated_inputs"]
    assert all("edges to None" in r.diagnosis for r in failing)
    lone, skipped, generated = failing
    assert "'None': 1" in generated.got and "None" not in generated.expected
    assert (lone.expected, lone.got) == ("{root: 0}", "{root: 0, None: 2}")
    assert (skipped.expected, skipped.got) == ("{AddBackward: 0, x: 1}",
                                               "{AddBackward: 0, None: 1, x: 1}")


def test_run_backward_rows_read_plainly():
    ns = define(dict(WRONG["run_backward"])["runs a node on every arriving gradient"])
    row = run_checkpoint(CP, ns, exercise="run_backward").row(
        "shared_node_waits_for_all_its_gradients")
    assert row.call.startswith("the gradients n1.apply was called with")
    assert row.status == "fail" and row.expected == "[1.75]"
    # the first row says what it checks, not the engine's recipe
    hint = next(t for t in CP.tests if t.name == "run_backward_of_x_times_y_plus_b").hint
    assert "x.grad = y = -3" in hint and "{root.grad_fn: 1.0}" not in hint


def test_lesson_07_text_matches_what_it_shows():
    markdown = [c for c in SOURCE.split("\n# %%") if c.startswith(" [markdown]")]
    prose = " ".join("\n".join(markdown).replace("\n#", "\n").split())
    assert "exactly `(None, 0)`" in prose  # a constant's edge, before the exercise
    assert "nbval" not in prose  # a course-internal detail
    assert 'loss.label = "loss"' in SOURCE and "orange: `loss`" in prose
    assert "about three quarters of A's" not in prose and "0.75 to 0.9" in prose


RIGHT_OTHERWISE = """
    import gc
    from collections import deque
    from stridegrad.course.designs import Var, Node, AccumulateGrad, MulBackward, grad_accumulator

    def gradient_edge(var):
        if var.grad_fn:
            return var.grad_fn, var.output_nr
        return (grad_accumulator(var), 0) if var.requires_grad else (None, 0)

    def var_mul(a, b):
        data = a.data * b.data
        if a.requires_grad or b.requires_grad:
            return Var(data, requires_grad=True,
                       grad_fn=MulBackward([gradient_edge(a), gradient_edge(b)], a.data, b.data))
        return Var(data)

    def count_dependencies(root):
        counts = {root: 0}
        queue = deque([root]); done = set()
        while queue:
            node = queue.popleft()
            if node in done:
                continue
            done.add(node)
            for nxt, _ in node.next_functions:
                if nxt is not None:
                    counts[nxt] = counts.get(nxt, 0) + 1
                    queue.append(nxt)
        return counts

    def run_backward(root):
        if root.grad_fn is None:
            raise RuntimeError("cannot run backward from a Var with no grad_fn")
        deps = count_dependencies(root.grad_fn)
        grads = {root.grad_fn: 1.0}
        queue = deque([root.grad_fn])
        while queue:
            node = queue.popleft()
            g = grads.pop(node)
            outs = node.apply(g)
            for k, (nxt, _) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                grads[nxt] = grads.get(nxt, 0.0) + outs[k]
                deps[nxt] -= 1
                if not deps[nxt]:
                    queue.append(nxt)

    def count_cycle_garbage(build):
        on = gc.isenabled()
        gc.collect()
        gc.disable()
        try:
            build()
            found = gc.collect()
        finally:
            if on:
                gc.enable()
        return found

    class DivBackward(Node):
        def __init__(self, next_functions, a, b):
            super().__init__(next_functions)
            self.inv_b, self.q = 1.0 / b, a / b
        def apply(self, grad):
            return [grad * self.inv_b, -grad * self.q * self.inv_b]

    def var_div(a, b):
        if not (a.requires_grad or b.requires_grad):
            return Var(a.data / b.data)
        return Var(a.data / b.data, grad_fn=DivBackward((gradient_edge(a), gradient_edge(b)), a.data, b.data))
"""


def test_right_answers_written_otherwise_pass_every_row():
    """Other algorithms and styles than the lesson's (a breadth-first count and engine (deque), a list of edges, apply returning a list, gc.collect() before gc.disable(), a DivBackward that saves 1/b and a/b): every
    row passes, the contracts' too (they compare what the docstrings promise, not how)."""
    ns = define(RIGHT_OTHERWISE)
    result = run_checkpoint(CP, ns, require_local=False)
    assert result.passed and result.stretch_score == result.stretch_max_score, [
        (r.test, r.call, r.expected, r.got) for r in result.rows if not r.passed]
    assert {r.exercise for r in result.rows if r.test.endswith("_on_generated_inputs")} == \
        set(EXERCISES + ["var_div"])


def test_the_hand_written_tests_observations_give_plain_data():
    """The observations of the hand-written tests on big graphs give plain data, judged
    in the checkpoint (what they may import: test_judge.py)."""
    from stridegrad.course.observe import ep07 as observe

    assert observe.long_chain_grad(designs.run_backward, 10_000) == 1.0
    assert observe.long_chain_counts(designs.count_dependencies, 10_000) == [10_002, 1, 0]
