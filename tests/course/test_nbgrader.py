"""An nbgrader round trip (nbgrader 0.9.6, the dev extra): the solutions hold the
answers between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` and nowhere else, so
nbgrader's ``generate_assignment`` makes the lessons of them; the check cells give
nbgrader numeric partial credit; and nbgrader's autograde totals equal
``stridegrad grade``'s for a full, a blank and a partial submission.

The one difference by design: nbgrader's stub is ``raise NotImplementedError()``,
the lessons' stubs say what to do (``raise NotImplementedError("... hint(...)")``);
nbgrader has one stub for every cell (``ClearSolutions.code_stub``), so the
comparison reads a stub's message as equal.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from nbgrader.preprocessors import ClearSolutions

from stridegrad.course.build import build_lesson, library_exercise
from stridegrad.course.checks import load_checkpoint
from stridegrad.course.grader import grade
from stridegrad.course.paths import find_lessons

from .conftest import ROOT

LESSONS = find_lessons(ROOT)
NUMEL_POINTS = load_checkpoint("01").points_for("numel")
STEM = "01_flat_storage"
_STUB = re.compile(r"^(\s*)raise NotImplementedError\(.*\)$")


def _code(cell) -> str:
    """A code cell's source with the stub's message left out (see the module docstring)."""
    lines = cell.source.split("\n")
    return "\n".join(_STUB.sub(r"\1raise NotImplementedError()", line)
                     if k and lines[k - 1].strip() == "# YOUR CODE HERE" else line
                     for k, line in enumerate(lines))


def _grading(cell) -> dict:
    meta = cell.metadata.get("nbgrader", {})
    return {k: meta.get(k) for k in ("grade_id", "grade", "solution", "locked", "points")}


def _cells(nb) -> list[tuple]:
    return [(c.cell_type, _code(c) if c.cell_type == "code" else c.source, _grading(c))
            for c in nb.cells]


def _clear(nb):
    """``nb`` as nbgrader's ClearSolutions leaves it (its metadata checks on)."""
    nb = copy.deepcopy(nb)
    ClearSolutions().preprocess(nb, {})
    return nb


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda l: l.episode)
def test_nbgrader_clears_the_solution_into_the_lesson(lesson):
    """Outside the markers a solution holds exactly what its lesson holds: no answer
    leaks (a docstring's loop, a comment), and nothing the learner writes is outside."""
    built = build_lesson(lesson, execute=False)
    assert _cells(_clear(built.solution)) == _cells(built.student)
    exercises = [c for c in built.solution.cells if _grading(c)["solution"]]
    assert len(exercises) == len(built.exercises)
    for cell in exercises:
        assert cell.source.count("### BEGIN SOLUTION") == cell.source.count("### END SOLUTION") >= 1


def test_an_answer_in_a_docstring_stays_out_of_the_solution(tmp_path, monkeypatch):
    """A library docstring that spells out the loop: the lesson never shows it, and
    neither does the solution outside its markers (so nbgrader's release does not)."""
    (tmp_path / "leaky_module.py").write_text(textwrap.dedent('''
        def total(xs):
            """The sum of ``xs``.

            Stands for the loop::

                s = 0
                for x in xs:
                    s += x

            Example:
                >>> total([1, 2])
                3
            """
            s = 0
            for x in xs:
                s += x
            return s
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    ex = library_exercise("leaky_module.total", "add them up")
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"language": "python", "name": "python3",
                                                           "display_name": "Python 3"}})
    nb.cells = [nbformat.v4.new_code_cell(ex.solution, metadata={"nbgrader": {
        "grade": False, "solution": True, "locked": False, "grade_id": "total",
        "schema_version": 3}})]
    cleared = _clear(nb).cells[0]
    assert "s += x" not in cleared.source and "Stands for" not in cleared.source
    assert "s += x" in ex.solution  # between the markers
    assert _code(cleared) == _code(nbformat.v4.new_code_cell(ex.stub))


# --------------------------------------------------------------------- the round trip

def _nbgrader(course: Path, *args: str) -> str:
    """Run nbgrader's command line in the course folder; its log."""
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(course / ".jupyter"),  # no user config
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("STRIDEGRAD_GRADING", None)
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"nbgrader {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


def _partial() -> dict:
    """The lesson as released with numel and index_to_offset solved, contiguous_strides
    right for some shapes only (all strides 1), offset_to_index untouched."""
    lesson = json.loads((ROOT / "lessons" / f"{STEM}.ipynb").read_text())
    solution = json.loads((ROOT / "solutions" / f"{STEM}.ipynb").read_text())
    answers = {c["metadata"]["nbgrader"]["grade_id"]: c["source"] for c in solution["cells"]
               if c["metadata"].get("nbgrader", {}).get("solution")}
    for cell in lesson["cells"]:
        name = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if name in ("numel", "index_to_offset"):
            cell["source"] = answers[name]
        elif name == "contiguous_strides":
            cell["source"] = "def contiguous_strides(shape):\n    return tuple(1 for _ in shape)\n"
    return lesson


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory):
    base = tmp_path_factory.mktemp("nbgrader")
    course = base / "course"
    (course / "source" / STEM).mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'stridegrad'\n")
    (course / "source" / STEM / f"{STEM}.ipynb").write_bytes(
        (ROOT / "solutions" / f"{STEM}.ipynb").read_bytes())
    submissions = {
        "full": (ROOT / "solutions" / f"{STEM}.ipynb").read_text(),
        "blank": (ROOT / "lessons" / f"{STEM}.ipynb").read_text(),
        "partial": json.dumps(_partial()),
    }
    for student, text in submissions.items():
        for root in (course / "submitted", base / "stridegrad"):
            folder = root / student / STEM
            folder.mkdir(parents=True)
            (folder / f"{STEM}.ipynb").write_text(text)

    generate = _nbgrader(course, "generate_assignment", STEM)
    autograde = _nbgrader(course, "autograde", STEM)
    _nbgrader(course, "export", "--to", str(base / "nbgrader.csv"))
    with open(base / "nbgrader.csv", newline="") as f:
        totals = {r["student_id"]: r for r in csv.DictReader(f)}
    cells = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in submissions:
            nb = gb.find_submission_notebook(STEM, STEM, student)
            cells[student] = {g.name: (g.score, g.max_score) for g in nb.grades}

    grade(base / "stridegrad", "01", base / "graded", sandbox=False, log=lambda s: None)
    return {"base": base, "course": course, "generate": generate, "autograde": autograde,
            "nbgrader": totals, "cells": cells, "students": list(submissions)}


def test_generate_assignment_gives_the_lesson(round_trip):
    released = nbformat.read(round_trip["course"] / "release" / STEM / f"{STEM}.ipynb",
                             as_version=4)
    lesson = nbformat.read(ROOT / "lessons" / f"{STEM}.ipynb", as_version=4)
    assert _cells(released) == _cells(lesson)
    assert all(not c.get("outputs") for c in released.cells if c.cell_type == "code")
    assert "WARNING" not in round_trip["generate"]


def _stridegrad(base: Path) -> tuple[dict, dict]:
    """stridegrad's totals by student, and points by student and exercise."""
    with open(base / "graded" / STEM / "totals.csv", newline="") as f:
        totals = {r["student"]: r for r in csv.DictReader(f)}
    per_exercise: dict[str, dict[str, int]] = {}
    tests = {t.name: t.exercise for t in load_checkpoint("01").tests}
    with open(base / "graded" / STEM / "grades.csv", newline="") as f:
        for r in csv.DictReader(f):
            mine = per_exercise.setdefault(r["student"], {})
            exercise = tests[r["test"]]
            mine[exercise] = mine.get(exercise, 0) + int(r["points"])
    return totals, per_exercise


def test_nbgrader_and_stridegrad_give_equal_totals(round_trip):
    totals, _ = _stridegrad(round_trip["base"])
    nbgrader = round_trip["nbgrader"]
    got = {s: (float(nbgrader[s]["score"]), float(nbgrader[s]["max_score"]))
           for s in round_trip["students"]}
    want = {s: (float(totals[s]["points"]), float(totals[s]["max_points"]))
            for s in round_trip["students"]}
    assert got == want
    full = load_checkpoint("01").max_points
    assert want["full"] == (full, full) and want["blank"] == (0, full)
    assert 0 < want["partial"][0] < full


def test_each_check_cell_scores_its_exercise_with_partial_credit(round_trip):
    _, per_exercise = _stridegrad(round_trip["base"])
    cp = load_checkpoint("01")
    graded = [ex for ex in cp.exercises if ex not in cp.stretch_exercises]
    for student in round_trip["students"]:
        cells = round_trip["cells"][student]
        assert set(cells) == {f"check_{ex}" for ex in graded}
        for ex in graded:
            assert cells[f"check_{ex}"] == (per_exercise[student][ex], cp.points_for(ex)), \
                (student, ex)
    score, top = round_trip["cells"]["partial"]["check_contiguous_strides"]
    assert 0 < score < top  # partial credit inside one cell, not all or nothing


def test_autograde_reads_every_check_cell_without_a_warning(round_trip):
    log = round_trip["autograde"]
    assert "cannot be converted" not in log and "Cell output is" not in log, log
    assert not [line for line in log.splitlines() if "[AutogradeApp | WARNING]" in line
                or "[AutogradeApp | ERROR]" in line]


def test_a_check_cell_shows_the_table_and_is_worth_its_points(tmp_path):
    """In a kernel: the table is displayed (HTML for JupyterLab, text for text-only
    frontends), and the cell's value is the points, which nbgrader's own
    ``determine_grade`` reads as partial credit; what the function writes to stderr
    does not cost the cell its grade under nbgrader."""
    from nbclient import NotebookClient
    from nbgrader.utils import determine_grade

    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "language": "python", "display_name": "Python 3"}})
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import os, sys\nos.environ['NBGRADER_EXECUTION'] = 'autograde'\n"
            "from stridegrad.course import check\n"
            "def numel(shape):  # right for most shapes, wrong for the empty one\n"
            "    print('a warning', file=sys.stderr)\n"
            "    n = 1 if shape else 0\n"
            "    for d in shape:\n"
            "        n *= d\n"
            "    return n"),
        nbformat.v4.new_code_cell('check("01", "numel")', metadata={"nbgrader": {
            "grade": True, "solution": False, "locked": True, "grade_id": "check_numel",
            "points": NUMEL_POINTS, "schema_version": 3}}),
    ]
    env = {k: v for k, v in os.environ.items() if k != "STRIDEGRAD_GRADING"}
    client = NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.km = client.create_kernel_manager()
    with client.setup_kernel(env=env):
        for k, cell in enumerate(nb.cells):
            client.execute_cell(cell, k)
    outputs = nb.cells[1].outputs
    kinds = [o.output_type for o in outputs]
    assert "error" not in kinds and not any(o.get("name") == "stderr" for o in outputs), kinds
    table = next(o for o in outputs if o.output_type == "display_data")
    assert "<table" in table.data["text/html"]
    assert table.data["text/plain"].startswith("lesson 01 (flat storage), exercise numel: ")
    value = next(o for o in outputs if o.output_type == "execute_result")
    points = float(value.data["text/plain"])
    assert 0 < points < NUMEL_POINTS
    assert f"numel: {points:g}/{NUMEL_POINTS} points" in value.data["text/html"]
    assert determine_grade(nb.cells[1]) == (points, float(NUMEL_POINTS))
