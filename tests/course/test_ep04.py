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
