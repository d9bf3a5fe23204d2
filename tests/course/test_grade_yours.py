"""``stridegrad grade --yours``: the lesson's milestone on each student's own functions, an
advisory column of the gradebook (never points), run in the student's sandbox.

A class of lesson 04: an honest student (the solution), one whose ``broadcast_strides``
fails its tests (so the milestone runs the reference's), one whose ``broadcast_shapes``
passes its tests but hangs on the milestone's (40, 6) table (the milestone is stopped at
its own limit) and one whose function ends its process there; grading goes on.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.course import sandbox

from .conftest import ROOT

STEM = "04_broadcasting"
#: the milestone's own limit in this class: the hanging student costs this much
LIMIT = 4


def _mode() -> list[str]:
    try:
        sandbox.find()
        return []
    except sandbox.SandboxUnavailable:
        return ["--no-sandbox"]


def _solution() -> dict:
    return json.loads((ROOT / "solutions" / f"{STEM}.ipynb").read_text())


def _exercise_cell(nb: dict, name: str) -> dict:
    return next(c for c in nb["cells"]
                if c["metadata"].get("nbgrader", {}).get("grade_id") == name)


def _broken() -> dict:
    nb = _solution()
    _exercise_cell(nb, "broadcast_strides")["source"] = (
        "def broadcast_strides(shape, strides, target_shape):\n"
        "    return tuple(strides)  # forgets the new and stretched axes\n")
    return nb


def _in_the_milestone(does: str) -> dict:
    """The solution, with a broadcast_shapes that passes its tests and ``does`` (a
    statement) on the milestone's (40, 6) table, which no test uses."""
    nb = _solution()
    cell = _exercise_cell(nb, "broadcast_shapes")
    source = "".join(cell["source"])
    head = "def broadcast_shapes(*shapes: Shape) -> Shape:\n"
    assert head in source
    cell["source"] = source.replace(
        head, head + f"    if any(40 in tuple(s) for s in shapes):\n        {does}\n", 1)
    return nb


def _write(folder: Path, students: dict[str, dict | str]) -> Path:
    for student, nb in students.items():
        path = folder / student / STEM / f"{STEM}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(nb if isinstance(nb, str) else json.dumps(nb))
    return folder


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("yours")
    submitted = _write(base / "submitted", {
        "alice": _solution(), "bob": _broken(),
        "carol": _in_the_milestone("while True: pass"),
        "dan": _in_the_milestone("import os; os._exit(7)")})
    out = base / "out"
    assert cli(["grade", str(submitted), "--lesson", "04", "--out", str(out), "--yours",
                "--milestone-timeout", str(LIMIT), "--jobs", "2", "--cell-timeout", "30",
                *_mode()]) == 0
    return {"base": base, "submitted": submitted, "out": out,
            "milestone": {r["student"]: r for r in _rows(out / STEM / "milestone.csv")},
            "totals": {r["student"]: r for r in _rows(out / STEM / "totals.csv")}}


def test_the_column_says_what_each_students_library_did(graded):
    m = graded["milestone"]
    assert set(m) == {"alice", "bob", "carol", "dan"}
    # alice: every function of lesson 04 that the milestone called is hers, and it meets
    # its goal
    assert m["alice"]["milestone"] == "error 0 (goal: at most 1e-12)", m["alice"]
    assert set(m["alice"]["yours"].split()) == {"broadcast_shapes", "broadcast_strides",
                                                "broadcast_binary"}
    # bob's broadcast_strides fails its tests: the reference's ran, and the goal is met
    assert m["bob"]["milestone"] == "error 0 (goal: at most 1e-12)", m["bob"]
    assert set(m["bob"]["yours"].split()) == {"broadcast_shapes", "broadcast_binary"}
    assert "broadcast_strides" in m["bob"]["reference"].split()
    # carol's function hangs in the milestone only: stopped at its own limit, and graded
    assert m["carol"]["milestone"] == \
        f"stopped: it did not finish within {LIMIT:g} s and was stopped", m["carol"]
    # dan's ends the notebook's process there: stopped too, and graded
    assert m["dan"]["milestone"] == \
        "stopped: the notebook's process ended (the other side closed the channel)", m["dan"]
    totals = graded["totals"]
    for student in ("carol", "dan"):
        assert totals[student]["status"] == "graded"
        assert totals[student]["points"] == totals[student]["max_points"] == \
            totals["alice"]["points"]
    assert int(totals["bob"]["points"]) < int(totals["bob"]["max_points"])


def test_the_gradebook_and_feedback_show_it_apart_from_the_points(graded):
    out = graded["out"]
    book = {r["student"]: r for r in _rows(out / "gradebook.csv")}
    column = f"{STEM} milestone"
    assert book["carol"][column].startswith("stopped: ")
    assert book["alice"][column] == graded["milestone"]["alice"]["milestone"]
    assert book["alice"]["total"] == graded["totals"]["alice"]["points"]  # not in the points
    page = (out / "feedback" / "bob" / f"{STEM}.html").read_text()
    assert "Milestone" in page and "advisory, not" in page
    assert "broadcast_strides (fails `" in page  # the reason the reference's ran


def test_merge_keeps_the_column_and_a_run_without_yours_has_none(graded, tmp_path):
    # alice again, without --yours, into a gradebook of its own: no column there
    plain = tmp_path / "plain"
    assert cli(["grade", str(graded["submitted"]), "--lesson", "04", "--out", str(plain),
                "--student", "alice", "--cell-timeout", "30", *_mode()]) == 0
    assert not (plain / STEM / "milestone.csv").exists()
    assert not any("milestone" in c for c in _rows(plain / "gradebook.csv")[0])
    # merged: alice's newer result (no milestone) wins; the others' rows stay
    merged = tmp_path / "merged"
    assert cli(["grade", "merge", str(graded["out"]), str(plain), "--out", str(merged)]) == 0
    rows = {r["student"]: r for r in _rows(merged / STEM / "milestone.csv")}
    assert set(rows) == {"bob", "carol", "dan"}
    book = {r["student"]: r for r in _rows(merged / "gradebook.csv")}
    assert book["alice"][f"{STEM} milestone"] == ""
    assert book["bob"][f"{STEM} milestone"] == graded["milestone"]["bob"]["milestone"]


def test_a_lesson_without_a_milestone_says_so_and_grades_on(tmp_path, capsys):
    stem = "01_flat_storage"
    path = tmp_path / "submitted" / "dave" / stem / f"{stem}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text("{}")  # no notebook to run: the note is the point here
    assert cli(["grade", str(tmp_path / "submitted"), "--lesson", "01", "--out",
                str(tmp_path / "out"), "--yours", *_mode()]) == 0
    said = capsys.readouterr().out
    assert ("--yours: lesson 01 has no milestone (lessons with one: 04, 08, 09, 12); "
            "grading without the milestone column") in said
    assert not (tmp_path / "out" / stem / "milestone.csv").exists()
    assert (tmp_path / "out" / stem / "totals.csv").is_file()


def test_the_column_and_report_of_a_training_milestone():
    """Lesson 09's column from an answer of the notebook's process: the goal, whether it
    is met and why a function was the reference's are the grader's own."""
    from stridegrad.course.checks import Row
    from stridegrad.course.grader import milestone_summary

    rows = [Row("a", "log_softmax", "pass", 1, 1), Row("b", "nll_loss", "fail", 0, 1),
            Row("c", "adam_step", "fail", 0, 1, hidden=True)]
    answer = {"ran": True, "value": 0.91, "what": "train an MLP to 91.0% test accuracy",
              "yours": ["log_softmax"], "reference": ["nll_loss", "adam_step"],
              "problem": "", "seconds": 1.5}
    column, report = milestone_summary(answer, "09", rows)
    assert column == "short: 91.0% (goal 95%)"
    assert "nll_loss (fails `b`)" in report and "adam_step (fails `c` (hidden test))" in report
    assert "advisory" in report
    assert milestone_summary({**answer, "value": 0.972}, "09", rows)[0] == "97.2% (goal 95%)"
    stopped = milestone_summary({**answer, "problem": "ZeroDivisionError: x\n(raised in "
                                 "your nll_loss (lesson 09))"}, "09", rows)[0]
    assert stopped == "stopped: ZeroDivisionError: x (raised in your nll_loss (lesson 09))"
    none = milestone_summary({**answer, "ran": False}, "09", rows)[0]
    assert none.startswith("not run: none of this lesson's functions") and \
        "nll_loss: fails `b`" in none
