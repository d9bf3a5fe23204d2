"""Checkpoint 11 (beyond eager): the reference passes, known-wrong code fails, the
lesson's teaching IR behaves as documented, and its passes agree with the
library's on real traces (same results, same kernel counts)."""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
from stridegrad.compile import graph as C
from stridegrad.course.build import reference_namespace
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.course.paths import find_lesson

from .conftest import ROOT, define
from .wrong import pairs

WRONG_11 = pairs("11")

CP = load_checkpoint("11")
LESSON = find_lesson(ROOT, "11")
SOURCE = (ROOT / "course" / "11_beyond_eager.py").read_text()
EXERCISES = ["run_graph", "eliminate_dead_code", "eliminate_common_subexpressions",
             "constant_fold", "fuse_elementwise"]


@pytest.fixture(scope="module")
def ref():
    return reference_namespace(LESSON)


def test_exercises_and_standard():
    assert CP.exercises == [*EXERCISES, "simplify_identities"]
    assert CP.stretch_exercises == ["simplify_identities"]
    for ex in CP.exercises:
        tests = [t for t in CP.tests if t.exercise == ex]
        assert len(tests) >= 5 and all(t.hint for t in tests), ex


def test_reference_passes(ref):
    result = run_checkpoint(CP, ref, require_local=False)
    assert [r.test for r in result.rows if not r.passed] == []
    assert result.score == result.max_score == CP.max_points


@pytest.mark.parametrize("exercise", EXERCISES)
def test_each_exercise_is_checked_alone(ref, exercise):
    ns = {k: v for k, v in ref.items() if k == exercise}
    result = run_checkpoint(CP, ns, exercise=exercise, require_local=False)
    assert result.passed and {r.exercise for r in result.rows} == {exercise}


def test_every_exercise_has_wrong_implementations():
    assert sorted(WRONG_11) == sorted(CP.exercises)
    assert all(len(cases) >= 3 for cases in WRONG_11.values())


@pytest.mark.parametrize("exercise, label, source",
                         [(ex, label, src) for ex, cases in WRONG_11.items()
                          for label, src in cases])
def test_known_wrong_implementation_fails(exercise, label, source):
    result = run_checkpoint(CP, define(source), exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert {r.status for r in result.rows} <= {"pass", "fail", "error"}, result


def test_a_broken_graph_is_named_in_the_row():
    """Fusing into a reduction's input loses a value: the row says which."""
    ns = define(dict(WRONG_11["fuse_elementwise"])[
        "fuses into a reduction's input (ignores the reader's kind)"])
    row = run_checkpoint(CP, ns, exercise="fuse_elementwise").row("stops_at_a_reduction")
    assert row.status == "fail" and "reads e, which is not defined" in row.got


def test_a_wrong_line_is_shown_with_its_number():
    ns = define(dict(WRONG_11["eliminate_common_subexpressions"])[
        "sorts the args of every op (merges subtract(x, y) with subtract(y, x))"])
    row = run_checkpoint(CP, ns, exercise="eliminate_common_subexpressions") \
        .row("commutative_ops_only")
    assert row.status == "fail" and row.expected == "t = subtract(y, x)"
    assert "line 5 of" in row.message


# ------------------------------------------------------------------ the teaching IR


def test_text_form_round_trips_and_ops_are_immutable():
    text = ("x = input()\nc = const(value=(1.0, 2.0))\ns = sum(x, axis=0, keepdims=True)\n"
            "z = fused(x, c, body='m = multiply(x, c); z = exp(m)')\nreturn z, s")
    g = C.parse(text)
    assert str(g) == text and C.parse(str(g)) == g
    with pytest.raises(AttributeError, match="cannot be changed"):
        g.ops[0].name = "y"
    with pytest.raises(TypeError):
        g.ops[1].attrs["value"] = 3.0
    assert C.Op("c", "const", (), {"value": np.array([1.0, 2.0])}) == g.ops[1]
    assert hash(g.ops[0]) == hash(C.Op("x", "input"))


@pytest.mark.parametrize("text, problem", [
    ("x = input()\nz = add(x, y)\nreturn z", "reads y, which is not defined"),
    ("x = input()\nx = exp(x)\nreturn x", "x is defined twice"),
    ("x = input()\nreturn z", "returns z, which no op defines"),
    ("c = const()\nreturn c", "needs value"),
])
def test_validate_names_the_problem(text, problem):
    with pytest.raises(ValueError, match=problem):
        C.validate(C.parse(text))


@pytest.mark.parametrize("text, problem", [
    ("z = add(x, 1.0)\nreturn z", "write numbers as const ops"),
    ("x = input()", "return"),
    ("x = input()\nreturn x\ny = input()", "nothing may follow"),
    ("z = x + y\nreturn z", "expected 'name = op"),
])
def test_parse_names_the_problem(text, problem):
    with pytest.raises(ValueError, match=problem):
        C.parse(text)


def test_users_cost_and_fused_op():
    g = C.parse("x = input()\nt = exp(x)\nu = multiply(t, t)\nv = add(u, x)\nreturn v")
    assert g.users() == {"x": ["t", "v"], "t": ["u"], "u": ["v"], "v": []}
    assert g.cost() == {"ops": 4, "kernels": 3, "temporaries": 2}
    f = C.fused_op(g, ["v", "t", "u"])
    assert str(f) == "v = fused(x, body='t = exp(x); u = multiply(t, t); v = add(u, x)')"
    with pytest.raises(ValueError, match="group of one"):
        C.fused_op(g, ["t"])
    s = C.parse("x = input()\nt = exp(x)\ns = sum(t)\nreturn s")
    with pytest.raises(ValueError, match="not elementwise"):
        C.fused_op(s, ["t", "s"])


def test_evaluate_follows_the_library():
    assert C.evaluate(C.Op("z", "subtract", ("a", "b")), [5.0, 2.0]) == 3.0
    assert C.evaluate(C.Op("c", "const", (), {"value": (1.0, 2.0)}), []).tolist() == [1.0, 2.0]
    s = C.evaluate(C.Op("s", "sum", ("x",), {"axis": 1}), [np.ones((2, 3))])
    assert s.tolist() == [3.0, 3.0]
    assert isinstance(C.evaluate(C.Op("e", "exp", ("x",)), [0.0]), float)
    with pytest.raises(ValueError, match="input"):
        C.evaluate(C.Op("x", "input"), [])
    with pytest.raises(ValueError, match="unknown op"):
        C.evaluate(C.Op("z", "frobnicate", ("x",)), [1.0])


def _messy(x, y):
    a = x * 2.0 + 1.0
    b = x * 2.0 + 1.0
    unused = (y * 3.0).exp()  # noqa: F841 - dead on purpose
    k = sg.tensor(2.0) * sg.tensor(0.25)
    return ((a * b) * k).tanh().sum(), (y - x).exp() * y


def test_lesson_passes_on_a_real_trace_agree_with_the_library():
    x, y = sg.randn(5), sg.randn(5)
    f = sg.compile(_messy)
    g = C.from_library(f.graph(x, y, optimized=False))
    ours = g
    for p in (C.constant_fold, C.eliminate_common_subexpressions, C.eliminate_dead_code,
              C.fuse_elementwise):
        ours = p(ours)
        C.validate(ours)
    lib = f.graph(x, y).cost()
    assert (ours.cost()["kernels"], ours.cost()["temporaries"]) == \
        (lib["kernels"], lib["temporaries"])
    inputs = {"x": x.numpy(), "y": y.numpy()}
    for got, want in zip(C.run_graph(ours, inputs), [t.numpy() for t in _messy(x, y)]):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_passes_preserve_values_on_random_graphs():
    rng = np.random.default_rng(0)
    unary, binary = ["exp", "tanh", "negative"], ["add", "subtract", "multiply", "maximum"]
    for _ in range(60):
        lines = ["x = input()", "y = input()", "c = const(value=0.5)", "d = const(value=1.5)"]
        names = ["x", "y", "c", "d"]
        for k in range(int(rng.integers(3, 12))):
            if rng.random() < 0.35:
                op, args = str(rng.choice(unary)), [str(rng.choice(names))]
            elif rng.random() < 0.1:
                op, args = "sum", [str(rng.choice(names))]
            else:
                op, args = str(rng.choice(binary)), [str(a) for a in rng.choice(names, 2)]
            lines.append(f"v{k} = {op}({', '.join(args)})")
            names.append(f"v{k}")
        outs = sorted({str(o) for o in rng.choice(names[2:], 2)})
        g = C.parse("\n".join(lines + ["return " + ", ".join(outs)]))
        inputs = {"x": rng.standard_normal(3) * 0.5, "y": rng.standard_normal(3) * 0.5}
        want = C.run_graph(g, inputs)
        h = g
        for p in (C.constant_fold, C.eliminate_common_subexpressions, C.eliminate_dead_code,
                  C.fuse_elementwise):
            h = C.validate(p(h))
            for a, b in zip(C.run_graph(h, inputs), want):
                np.testing.assert_allclose(a, b, rtol=1e-12, err_msg=f"{p.__name__}\n{g}")
        assert h.cost()["kernels"] <= g.cost()["kernels"]


# ------------------------------------------------------------------ the lesson


def test_lesson_11_meets_the_lesson_standard():
    for heading in ("By the end you can", "Where this is in PyTorch", "Going further",
                    "#| check: all", "nbval-ignore-output", "traces"):
        assert heading in SOURCE
    assert 4 <= SOURCE.count("#| exercise:") - len(CP.stretch_exercises) <= 6
    assert ".draw()" in SOURCE and "plt.show()" in SOURCE
    for system in ("TorchDynamo", "TensorFlow 1", "tf.function", "jax.jit"):
        assert system in SOURCE, system


def test_cse_keeps_apart_constants_of_another_type_or_sign():
    """const(1) and const(1.0) differ in dtype, const(0.0) and const(-0.0) in 1 / x:
    merging either changes a result, so the lesson's pass keeps them apart."""
    from stridegrad.compile.graph import eliminate_common_subexpressions, parse

    g = parse("x = input()\na = const(value=1)\nb = const(value=1.0)\nc = const(value=-0.0)\n"
              "d = const(value=0.0)\ne = const(value=1)\nz = add(a, b)\nw = add(c, d)\n"
              "v = add(a, e)\nreturn z, w, v")
    out = str(eliminate_common_subexpressions(g))
    assert "b = const(value=1.0)" in out and "d = const(value=0.0)" in out
    assert "e = const" not in out and "v = add(a, a)" in out  # a true repeat still goes


def test_a_lesson_11_copied_before_the_move_still_imports_its_ir():
    """A learner's copy of lesson 11 made before the IR moved into the library imports it
    from stridegrad.course.compiler: the same objects are still there (no second copy)."""
    import sys

    namespace: dict = {}
    exec("from stridegrad.course.compiler import (COMMUTATIVE, ELEMENTWISE, Graph, Op, "
         "evaluate,\n    from_library, fused_op, parse, validate)", namespace)
    graph = sys.modules["stridegrad.compile.graph"]
    for name in ("COMMUTATIVE", "ELEMENTWISE", "Graph", "Op", "evaluate", "from_library",
                 "fused_op", "parse", "validate"):
        assert namespace[name] is getattr(graph, name), name
