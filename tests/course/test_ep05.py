"""Checkpoint 05 (matmul and a loss): the reference passes, known-wrong code fails,
each exercise is checked on its own, and the lesson meets the standard."""

from __future__ import annotations

import json

import pytest

from stridegrad.course.build import reference_namespace
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.course.paths import find_lesson

from .conftest import ROOT, define
from .wrong import pairs

WRONG_05 = pairs("05")

CP = load_checkpoint("05")
LESSON = find_lesson(ROOT, "05")


def test_exercises_and_standard():
    assert CP.exercises == ["matmul_2d", "batched_matmul", "mse", "line_grads", "linear_model"]
    assert CP.stretch_exercises == ["linear_model"]
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
                         [(ex, label, src) for ex, cases in WRONG_05.items()
                          for label, src in cases])
def test_known_wrong_implementation_fails(exercise, label, source):
    result = run_checkpoint(CP, define(source), exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert {r.status for r in result.rows} <= {"pass", "fail", "error"}, result


def test_every_exercise_has_wrong_implementations():
    assert sorted(WRONG_05) == sorted(CP.exercises)


def test_sign_error_is_named_in_the_row():
    ns = define(WRONG_05["line_grads"][0][1])
    row = run_checkpoint(CP, ns).row("one_point_below")
    assert row.status == "fail" and row.expected == "(-4.0, -4.0)" and row.got == "(4.0, 4.0)"
    assert "prediction minus target" in row.hint


def test_untransposed_b_fails_the_transposed_test_only_where_it_should():
    ns = define(WRONG_05["matmul_2d"][0][1])
    result = run_checkpoint(CP, ns, exercise="matmul_2d")
    assert result.row("contiguous_product").passed
    assert result.row("transposed_b").status == "fail"


def test_lesson_meets_the_standard():
    text = LESSON.source.read_text()
    for needle in ("By the end you can", "Where this is in NumPy and PyTorch", "Going further",
                   "Why autograd", "plt.show()", "np.polyfit"):
        assert needle in text
    assert 3 <= text.count("#| exercise:") <= 6


def test_timing_cell_output_is_not_compared():
    for folder in ("solutions", "lessons"):
        nb = json.loads((ROOT / folder / f"{LESSON.stem}.ipynb").read_text())
        timing = [c for c in nb["cells"] if "best_time" in "".join(c["source"])
                  and c["cell_type"] == "code"]
        assert len(timing) == 1
        assert "nbval-ignore-output" in timing[0]["metadata"]["tags"]


def test_an_mse_of_nothing_that_returns_0_is_told_why():
    """mse([], []) == 0.0 gets its own diagnosis (the mean of no numbers is undefined),
    not the general nudge about squaring; a 0 that no known mistake gives gets the
    test's own hint, which is about the empty lists."""
    ns = define("""
        def mse(pred, target):
            if len(pred) != len(target):
                raise ValueError(f"{len(pred)} predictions but {len(target)} targets")
            total = 0.0
            for p, t in zip(pred, target):
                total += (p - t) ** 2
            return total / max(len(pred), 1)
    """)
    result = run_checkpoint(CP, ns, exercise="mse")
    assert [r.test for r in result.rows if not r.passed] == ["empty_is_an_error",
                                                             "mse_on_generated_inputs"]
    assert result.row("mse_on_generated_inputs").call == "mse([], [])"
    row = result.row("empty_is_an_error")
    assert row.got == "returned 0.0"
    assert "undefined (0 / 0)" in row.diagnosis and "ValueError" in row.diagnosis
    text = " ".join(str(result).split())
    assert "Square each difference" not in text and "undefined (0 / 0)" in text
    ns = define("""
        def mse(pred, target):
            if len(pred) != len(target):
                raise ValueError("lengths differ")
            if len(pred) == 0:
                return 0
            return sum((p - t) ** 2 for p, t in zip(pred, target)) / len(pred)
    """)
    row = run_checkpoint(CP, ns, exercise="mse").row("empty_is_an_error")
    assert not row.passed and not row.diagnosis
    assert row.hint.startswith("The mean of no values is undefined (0 / 0): raise ValueError")
