"""Checkpoint 04 (broadcasting): the reference passes, known-wrong code fails,
each exercise is checked on its own, and the lesson meets the standard."""

from __future__ import annotations

import pytest

from stridegrad.course.build import reference_namespace
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.course.paths import find_lesson

from .conftest import ROOT, define
from .wrong import pairs

WRONG_04 = pairs("04")

CP = load_checkpoint("04")
LESSON = find_lesson(ROOT, "04")


def test_exercises_and_standard():
    assert CP.exercises == ["broadcast_shapes", "broadcast_strides", "broadcast_binary",
                              "broadcast_where"]
    assert CP.stretch_exercises == ["broadcast_where"]
    for ex in CP.exercises:
        tests = [t for t in CP.tests if t.exercise == ex]
        assert len(tests) >= 5 and all(t.hint for t in tests)


def test_reference_passes():
    result = run_checkpoint(CP, reference_namespace(LESSON), require_local=False)
    assert [r.test for r in result.rows if not r.passed] == []
    assert result.score == result.max_score == CP.max_points


@pytest.mark.parametrize("exercise", CP.exercises)
def test_each_exercise_is_checked_alone(exercise):
    ns = {k: v for k, v in reference_namespace(LESSON).items() if k == exercise}
    result = run_checkpoint(CP, ns, exercise=exercise, require_local=False)
    assert result.passed and {r.exercise for r in result.rows} == {exercise}


@pytest.mark.parametrize("exercise, label, source",
                         [(ex, label, src) for ex, cases in WRONG_04.items()
                          for label, src in cases])
def test_known_wrong_implementation_fails(exercise, label, source):
    result = run_checkpoint(CP, define(source), exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert {r.status for r in result.rows} <= {"pass", "fail", "error"}, result


def test_every_exercise_has_wrong_implementations():
    assert sorted(WRONG_04) == sorted(CP.exercises)


def test_clash_hint_and_message_reach_the_learner():
    ns = define(WRONG_04["broadcast_shapes"][1][1])  # takes the larger size
    row = run_checkpoint(CP, ns).row("clash_raises")
    assert row.status == "fail" and row.expected == "raises ValueError"
    assert row.got == "returned (4,)" and "Only size 1 stretches" in row.hint


def test_lesson_meets_the_standard():
    text = LESSON.source.read_text()
    for needle in ("By the end you can", "Where this is in NumPy and PyTorch", "Going further",
                   "Common mistakes", "(3, 1)", "(3, 4)", "broadcast_explorer", "plt.show()"):
        assert needle in text
    assert 3 <= text.count("#| exercise:") <= 6


def _contract_row(exercise: str, ns: dict):
    from stridegrad.course.checks import Checkpoint, is_contract_test
    sub = Checkpoint(CP.lesson, reference=CP.reference)
    sub.tests = [t for t in CP.tests if t.exercise == exercise and is_contract_test(t.name)]
    return run_checkpoint(sub, ns).rows[0]


def test_broadcasts_written_otherwise_pass_their_contracts():
    """itertools.product over the indices; where's shapes worked out column by column,
    with its own wording of the error (naming the two shapes that clash)."""
    ns = define("""
        import itertools, math

        def broadcast_binary(op, x, x_strides, y, y_strides, shape):
            return [op(x[sum(i * s for i, s in zip(idx, x_strides))],
                       y[sum(i * s for i, s in zip(idx, y_strides))])
                    for idx in itertools.product(*map(range, shape))]

        def broadcast_where(cond, c_shape, x, x_shape, y, y_shape):
            shapes = [tuple(c_shape), tuple(x_shape), tuple(y_shape)]
            n = max(map(len, shapes))
            padded = [(1,) * (n - len(s)) + s for s in shapes]
            out = []
            for col in zip(*padded):
                big = {d for d in col if d != 1}
                if len(big) > 1:
                    a, b = [s for s, p in zip(shapes, padded) if p[len(out)] != 1][:2]
                    raise ValueError(f"{a} and {b} do not broadcast")
                out.append(big.pop() if big else 1)

            def reader(values, p):
                st = [math.prod(p[k + 1:]) if p[k] != 1 else 0 for k in range(n)]
                return lambda idx: values[sum(i * s for i, s in zip(idx, st))]

            c, a, b = (reader(v, p) for v, p in zip((cond, x, y), padded))
            return ([a(i) if c(i) else b(i) for i in itertools.product(*map(range, out))],
                    tuple(out))
    """)
    for exercise in ("broadcast_binary", "broadcast_where"):
        row = _contract_row(exercise, ns)
        assert row.passed, (exercise, row.call, row.expected, row.got)


def test_a_where_that_fails_through_broadcast_shapes_names_it():
    """A broadcast_shapes that names the shape broadcast so far fails its own contract
    (three shapes, two of which clash), and broadcast_where's failure that follows from
    it is put down to broadcast_shapes."""
    from stridegrad.course.misconceptions import for_episode
    from stridegrad.course.misconceptions.ep04 import _where
    mistake = next(m for m in for_episode("04")["broadcast_shapes"]
                   if m.label == "names the shape broadcast so far")
    ns = define(mistake.source + _where().replace("(broadcast_shapes, ", "("))
    result = run_checkpoint(CP, ns)
    assert not result.row("broadcast_shapes_on_generated_inputs").passed
    where = result.row("broadcast_where_on_generated_inputs")
    assert where.status == "fail" and where.cause == "broadcast_shapes"
