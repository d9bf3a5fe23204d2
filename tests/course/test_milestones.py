"""Milestones (lessons 04, 08, 09, 12): a lesson's result, run on the learner's library;
and the issue's "done when": a learner who solved the lessons trains the digits on
their own library, with lesson 03 left blank."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from stridegrad.array import layout
from stridegrad.cli import main as cli
from stridegrad.course.milestones import MILESTONES, milestone, run_milestone
from stridegrad.course.yours import assemble, library_exercises

from .conftest import ROOT

#: the workers' verdicts of this module in a folder of its own (conftest.verdicts)
pytestmark = pytest.mark.usefixtures("verdicts")


@pytest.fixture(scope="module")
def solved(tmp_path_factory) -> Path:
    """Every lesson solved (the course's solutions) but lesson 03, left as it is given."""
    folder = tmp_path_factory.mktemp("my-lessons")
    for notebook in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        shutil.copy(notebook, folder / notebook.name)
    shutil.copy(next((ROOT / "lessons").glob("03_*.ipynb")),
                folder / next((ROOT / "solutions").glob("03_*.ipynb")).name)
    return folder


@pytest.fixture(scope="module")
def library(solved):
    return assemble(solved, library_only=True)


def test_every_solved_exercise_the_library_calls_is_yours_and_lesson_03_the_reference(library):
    for piece in library.library_pieces:
        if not piece.called:
            continue
        if piece.lesson == "03":
            assert not piece.yours and piece.why == "not written yet", piece
        else:
            assert piece.yours, piece


def test_each_milestone_meets_its_goal_on_the_learners_functions(library):
    for lesson in MILESTONES:
        result = run_milestone(lesson, library)
        assert result.met, result.report()
        assert result.yours, result.report()  # their functions did the work
        mine = {p.name for p in library.mine}
        assert set(result.yours) <= mine
        for name, why in result.reference.items():  # only lesson 03's are the reference
            assert name in library_exercises()["03"] and why == "not written yet", name
    assert layout.numel.__module__ == "stridegrad.array.layout"  # all put back


def test_lesson_04s_milestone_names_the_blank_lesson_and_its_reason(library):
    result = run_milestone("04", library)
    assert "iter_offsets" in result.reference
    assert set(result.reference) <= set(library_exercises()["03"])
    report = result.report()
    blank = ", ".join(result.reference)
    assert f"the reference's, called by this run: {blank} (not written yet)" in report
    assert "broadcast_shapes" in result.yours and "numel" in result.yours


def test_a_wrong_function_that_passed_its_checkpoint_misses_the_milestone(library, monkeypatch):
    """A wrong broadcast_strides (the last axis keeps stride 1 when it is stretched),
    installed as if it had passed its checkpoint: the milestone misses its goal, and
    the function is among the learner's that it ran."""
    piece = next(p for p in library.pieces if p.name == "broadcast_strides")
    good = piece.function

    def broadcast_strides(shape, strides, target):  # forgets the 0 of a stretched axis
        return good(shape, strides, target)[:-1] + (1,) if len(target) > 1 else \
            good(shape, strides, target)

    monkeypatch.setattr(piece, "function", broadcast_strides)
    result = run_milestone("04", library)
    assert not result.met
    assert "short of the goal" in result.report() or "it stopped" in result.report()
    assert "broadcast_strides" in result.yours


def test_an_error_in_a_function_of_yours_stops_the_milestone_and_is_named(library, monkeypatch):
    piece = next(p for p in library.pieces if p.name == "nll_loss")

    def nll_loss(logp, targets):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(piece, "function", nll_loss)
    result = run_milestone("09", library)
    assert not result.met
    assert result.problem.startswith("ZeroDivisionError: division by zero")
    assert "your nll_loss (lesson 09)" in result.problem


def test_a_lesson_without_a_milestone_is_a_clear_error(solved):
    with pytest.raises(ValueError, match="lesson 05 has no milestone; lessons with one: "
                                         "04, 08, 09, 12"):
        milestone("05", solved)


def test_milestone_prints_its_report(solved, capsys):
    result = milestone("08", solved)
    out = capsys.readouterr().out
    assert out.startswith("lesson 08's milestone, on your library:")
    assert result.met and "sg.gradcheck" in out


def test_train_digits_on_your_library_reaches_95_percent(solved, library, tmp_path, capsys):
    assert cli(["train", "digits", "--no-progress", "--out", str(tmp_path),
                "--yours", str(solved)]) == 0
    out = capsys.readouterr().out
    accuracy = float(out.split("test accuracy: ")[-1].split()[0])
    assert accuracy >= 0.95, out
    called_03 = [p.name for p in library.library_pieces if p.lesson == "03" and p.called]
    assert f"reference for: {', '.join(called_03)} (not written yet)" in out


def test_no_milestone_runs_while_a_notebook_is_graded(solved, monkeypatch, capsys):
    monkeypatch.setenv("STRIDEGRAD_GRADING", "1")
    assert milestone("09", solved) is None
    assert "not run while the notebook is graded" in capsys.readouterr().out
