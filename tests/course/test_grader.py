"""The grader: full marks for the solutions, zero for the untouched lessons, and
every kind of broken notebook costs its own points only."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.course.checks import load_checkpoint
from stridegrad.course import sandbox
from stridegrad.course.grader import (
    CSV_COLUMNS,
    TOTALS_COLUMNS,
    GradeError,
    grade,
    run_notebook,
)

from .conftest import ROOT


def _sandbox_or_off():
    """The grader's tests run in the sandbox where this machine has one (the sandbox's
    own tests, in test_sandbox.py, skip where it has none)."""
    try:
        return sandbox.find().launcher
    except sandbox.SandboxUnavailable:
        return False


MODE = _sandbox_or_off()
#: the cell limit of the graded class below: what an honest cell never needs, even on a
#: loaded 2-core machine
CELL_LIMIT = 20
NUMEL_TESTS = [t for t in load_checkpoint("01").tests if t.exercise == "numel"]

STEM = "01_flat_storage"
CP = load_checkpoint("01")
FULL = CP.max_points
PER_EXERCISE = {ex: CP.points_for(ex) for ex in CP.exercises}


def _solution() -> dict:
    return json.loads((ROOT / "solutions" / f"{STEM}.ipynb").read_text())


def _with_cell(nb: dict, source: str, at: int = 2) -> dict:
    nb["cells"].insert(at, {"cell_type": "code", "execution_count": None, "id": f"x{at}",
                            "metadata": {}, "outputs": [], "source": source})
    return nb


def _replace_exercise(nb: dict, name: str, source: str) -> dict:
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == name:
            cell["source"] = source
    return nb


def _imports_instead(nb: dict) -> dict:
    for ex in CP.exercises:
        _replace_exercise(nb, ex, f"from stridegrad.array.layout import {ex}")
    return nb


# student -> (notebook JSON text or None for "no notebook", expected points, expected status)
def submissions() -> dict:
    lesson = (ROOT / "lessons" / f"{STEM}.ipynb").read_text()
    dump = json.dumps
    return {
        "alice_solution": (dump(_solution()), FULL, "graded"),
        "bob_untouched": (lesson, 0, "graded"),
        "carol_stuck_cell": (dump(_with_cell(_solution(), "while True:\n    pass")), FULL, "graded"),
        "erin_syntax_error": (dump(_replace_exercise(_solution(), "numel",
                                                     "def numel(shape)\n    return 1")),
                              # her offset_to_index calls her (missing) numel
                              FULL - PER_EXERCISE["numel"] - PER_EXERCISE["offset_to_index"],
                              "graded"),
        "frank_invalid_json": (lesson[: len(lesson) // 2], 0, "invalid-notebook"),
        "grace_memory_hog": (dump(_with_cell(_solution(), "hog = bytearray(3 * 1024**3)")),
                             FULL, "graded"),
        "heidi_crash": (dump(_with_cell(_solution(), "import os\nos._exit(3)", at=-1)), 0, "crashed"),
        "ivan_missing": (None, 0, "no-notebook"),
        "judy_imports": (dump(_imports_instead(_solution())), 0, "graded"),
        # cheats: a forged result (on every file descriptor), and a patched grader. The
        # lesson's tests run in the judge, outside the notebook's process: a forged line
        # is no answer to any call, and what the notebook patches is not what runs
        "mallory_forges_result": (dump(_with_cell(json.loads(lesson), (
            "import json, os\n"
            "forged = json.dumps({'status': 'graded', 'code_cells': 1, 'cell_errors': [],\n"
            "                     'result': {'rows': []}})\n"
            "for fd in range(3, 64):\n"
            "    try:\n"
            "        os.write(fd, ('\\n' + forged + '\\n').encode())\n"
            "    except OSError:\n"
            "        pass\n"
            "os._exit(0)"))), 0, "crashed"),
        "oscar_patches_expect": (dump(_with_cell(json.loads(lesson), (
            "import stridegrad.course.checks as c\n"
            "c.expect = lambda fn, *a, returns=None, **k: returns"))), 0, "graded"),
        # the checkpoint's own tests, replaced (the list) or rewritten (a test's code, a
        # helper's code): tampered, with or without extra tests
        "peggy_replaces_tests": (dump(_with_cell(json.loads(lesson), (
            "import dataclasses\n"
            "from stridegrad.course.checks import load_checkpoint\n"
            "cp = load_checkpoint('01')\n"
            "cp.tests[:] = [dataclasses.replace(t, func=lambda fn: None) for t in cp.tests]"))),
            0, "graded"),
        "trent_rewrites_code": (dump(_with_cell(json.loads(lesson), (
            "from stridegrad.course.checks import load_checkpoint\n"
            "import stridegrad.course.checks as c\n"
            "for t in load_checkpoint('01').tests:\n"
            "    try:\n"
            "        t.func.__code__ = (lambda fn: None).__code__\n"
            "    except ValueError:\n"
            "        pass  # a contract's test is a closure: another code cannot go in\n"
            "c._equal.__code__ = (lambda got, expected: True).__code__"))), 0, "graded"),
    }


def _digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("grading")
    submitted = base / "submitted"
    expected = submissions()
    for student, (text, _, _) in expected.items():
        folder = submitted / student / STEM
        folder.mkdir(parents=True)
        if text is not None:
            (folder / f"{STEM}.ipynb").write_text(text)
    (submitted / "ivan_missing" / STEM / "notes.txt").write_text("no notebook here")
    extra = base / "hidden.py"
    extra.write_text(
        "from stridegrad.course import Checkpoint, expect\n"
        "checkpoint = Checkpoint('01_flat_storage', hidden=True)\n"
        "@checkpoint.test('numel', points=2, hint='secret hint')\n"
        "def numel_of_a_big_shape(numel):\n"
        "    expect(numel, (10, 10, 10), returns=1000)\n")
    before = _digest(submitted)
    logs: list[str] = []
    # generous limits: an honest notebook's cells finish well inside CELL_LIMIT on a
    # loaded machine (a 3 s limit failed there); the stuck cell is stopped by it, and
    # hangs are timed by their own test
    grades = grade(submitted, "01", base / "out", timeout=240, cell_timeout=CELL_LIMIT,
                   memory=768,
                   jobs=2, extra_tests=extra, sandbox=MODE, log=logs.append)
    return {"grades": {g.student: g for g in grades}, "expected": expected, "out": base / "out",
            "submitted": submitted, "before": before, "logs": logs}


def test_each_student_gets_their_own_points(graded):
    for student, (_, points, status) in graded["expected"].items():
        g = graded["grades"][student]
        hidden = 2 if status == "graded" and points == FULL else 0
        if student == "erin_syntax_error":
            hidden = 0  # her numel is missing
        assert (g.status, g.points) == (status, points + hidden), (student, g.message)
        assert g.max_points == FULL + 2


def test_failure_reasons_are_named(graded):
    g = graded["grades"]
    assert "not valid JSON" in g["frank_invalid_json"].message
    assert "exit code 3" in g["heidi_crash"].message
    assert g["ivan_missing"].message == \
        f"no notebook of {STEM} in ivan_missing/ (found: {STEM}/notes.txt)"
    # the reference library has the lesson's exercises; the stretch exercise is not in it
    judy = g["judy_imports"].rows
    assert {r.status for r in judy if not r.stretch} == {"imported"}
    assert {r.status for r in judy if r.stretch} == {"missing"}
    assert {r.status for r in g["bob_untouched"].rows} == {"stub"}
    assert "exit code 0" in g["mallory_forges_result"].message, \
        g["mallory_forges_result"].message
    for cheat in ("oscar_patches_expect", "peggy_replaces_tests", "trent_rewrites_code"):
        # what they patched runs in their own process only: their stubs are graded
        assert {r.status for r in g[cheat].rows if r.exercise == "numel"} == {"stub"}, cheat
    assert {r.status for r in g["erin_syntax_error"].rows if r.exercise == "numel"} == {"missing"}
    stuck = g["carol_stuck_cell"].cell_errors
    assert len(stuck) == 1 and f"did not finish within {CELL_LIMIT} s" in stuck[0]["error"]
    hog = g["grace_memory_hog"].cell_errors
    assert len(hog) == 1 and hog[0]["error"].startswith("MemoryError")


def test_csv(graded):
    with open(graded["out"] / STEM / "grades.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == CSV_COLUMNS
    body = rows[1:]
    n_tests = len(CP.tests) + 1
    assert len(body) == len(graded["expected"]) * n_tests
    alice = [r for r in body if r[0] == "alice_solution"]
    # grades.csv has every test, the optional stretch exercise's included
    assert sum(int(r[3]) for r in alice) == sum(int(r[4]) for r in alice) == \
        FULL + 2 + CP.stretch_points
    assert {r[1] for r in body} == {STEM}
    missing = [r for r in body if r[0] == "ivan_missing"]
    assert {r[5] for r in missing} == {"no-notebook"} and all(r[3] == "0" for r in missing)
    # a failed hidden test does not leak its expected value or hint
    bob_hidden = next(r for r in body if r[0] == "bob_untouched" and r[2] == "numel_of_a_big_shape")
    assert bob_hidden[5] == "stub"
    assert "secret" not in (graded["out"] / STEM / "grades.csv").read_text()
    assert {r[7] for r in body} == {MODE or "off"}
    assert len({r[8] for r in body}) == 1 and len({r[10] for r in body}) == 1  # one run


def test_totals_csv(graded):
    with open(graded["out"] / STEM / "totals.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == TOTALS_COLUMNS
    totals = {r[0]: r for r in rows[1:]}
    assert set(totals) == set(graded["expected"])
    for student, g in graded["grades"].items():
        assert totals[student][1:8] == [STEM, str(g.points), str(g.max_points),
                                        str(g.stretch_points), str(g.stretch_max), g.status,
                                        MODE or "off"]
        assert totals[student][9] == g.graded_at
    # the stretch exercise is extra credit: apart from points and max_points
    assert CP.stretch_points > 0
    assert totals["alice_solution"][2:6] == [str(FULL + 2)] * 2 + [str(CP.stretch_points)] * 2
    assert totals["bob_untouched"][4:6] == ["0", str(CP.stretch_points)]


def test_a_hanging_notebook_times_out(tmp_path):
    """A notebook that ignores the cell alarm never finishes: a short limit times it
    out however loaded the machine is."""
    nb = _with_cell(_solution(), "import signal, time\n"
                                 "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                                 "while True:\n    time.sleep(0.01)")
    path = tmp_path / f"{STEM}.ipynb"
    path.write_text(json.dumps(nb))
    out = run_notebook(path, "01", timeout=8, cell_timeout=8, test_timeout=0.1)
    limit = 8 + len(CP.tests) * 0.1 + 15
    assert out["status"] == "notebook-timeout", out
    assert f"did not finish within {limit:g} s (8 s for its cells" in out["message"]


def test_feedback_pages(graded):
    for student in graded["expected"]:
        page = (graded["out"] / "feedback" / student / f"{STEM}.html").read_text()
        assert page.startswith("<!DOCTYPE html>") and student in page
    alice = (graded["out"] / "feedback" / "alice_solution" / f"{STEM}.html").read_text()
    assert f"<b>{FULL + 2} / {FULL + 2}</b>" in alice
    assert "numel_of_a_big_shape (hidden test)" in alice and "secret hint" not in alice
    erin = (graded["out"] / "feedback" / "erin_syntax_error" / f"{STEM}.html").read_text()
    assert "SyntaxError" in erin
    carol = (graded["out"] / "feedback" / "carol_stuck_cell" / f"{STEM}.html").read_text()
    # named as JupyterLab numbers it after Run All: the non-empty code cells up to it
    run = sum(c["cell_type"] == "code" and bool("".join(c["source"]).strip())
              for c in _with_cell(_solution(), "while True:\n    pass")["cells"][:3])
    assert (f"<b>In [{run}]</b> <code>while True:</code>: <code>did not finish within {CELL_LIMIT} s"
            in carol), carol
    # a whole-notebook problem is said once, at the top, with what to do
    frank = (graded["out"] / "feedback" / "frank_invalid_json" / f"{STEM}.html").read_text()
    assert frank.count("not valid JSON") == 1 and "re-save it in JupyterLab" in frank


def test_submissions_are_never_modified(graded):
    assert _digest(graded["submitted"]) == graded["before"]


def test_summary_table(graded):
    logs = graded["logs"]
    assert logs[0].split() == ["student", "points", "notebook", "notes"]
    assert any(line.startswith("alice_solution") and f"{FULL + 2}/{FULL + 2}" in line
               for line in logs)
    # ivan_missing's folder has no notebook: "graded N" counts the notebooks there were
    n = len(graded["expected"])
    none = sum(status == "no-notebook" for _, _, status in graded["expected"].values())
    assert none == 1
    assert logs[-1].startswith(f"graded {n - none} notebooks of {STEM} ({none} of the {n} "
                               "student folders have none) in "), logs[-1]
    assert logs[-2].startswith(f"sandbox: {MODE}" if MODE else "sandbox: OFF")


def test_untouched_lessons_score_zero_and_solutions_full(tmp_path):
    """Every lesson: the untouched notebook gets 0, the solution full marks."""
    from stridegrad.course.paths import find_lessons

    for lesson in find_lessons(ROOT):
        for name, path in (("solution", lesson.solution_path), ("untouched", lesson.lesson_path)):
            folder = tmp_path / lesson.stem / name / lesson.stem
            folder.mkdir(parents=True)
            (folder / f"{lesson.stem}.ipynb").write_bytes(path.read_bytes())
        grades = {g.student: g for g in grade(tmp_path / lesson.stem, lesson.episode,
                                              tmp_path / f"out{lesson.episode}", jobs=2,
                                              sandbox=MODE, log=lambda s: None)}
        assert grades["solution"].points == grades["solution"].max_points > 0
        assert grades["untouched"].points == 0 and grades["untouched"].status == "graded"


def test_out_of_memory_death_is_named(tmp_path):
    nb = _with_cell(_solution(), "import os, sys\nsys.stderr.write('MemoryError\\n')\n"
                                 "sys.stderr.flush()\nos._exit(1)")
    path = tmp_path / f"{STEM}.ipynb"
    path.write_text(json.dumps(nb))
    out = run_notebook(path, "01", timeout=30, memory=512)
    assert out["status"] == "out-of-memory" and "limit 512 MB" in out["message"]


@pytest.mark.parametrize("args, message", [
    (["grade", "{tmp}/nowhere", "--lesson", "01", "--out", "{tmp}/o"], "no folder"),
    (["grade", "{tmp}/sub", "--lesson", "42", "--out", "{tmp}/o"], "lesson 42 has no checkpoint"),
    (["grade", "{tmp}/sub", "--lesson", "01", "--out", "{tmp}/o", "--extra-tests", "{tmp}/bad.py"],
     "syntax error on line 1"),
    (["grade", "{tmp}/sub", "--lesson", "01", "--out", "{tmp}/o", "--jobs", "0"],
     "--jobs must be at least 1, got 0"),
    (["grade", "{tmp}/empty", "--lesson", "01", "--out", "{tmp}/o"], "has no student folders"),
    (["grade", "{tmp}/sub", "--lesson", "01", "--out", "{tmp}/o"],
     "no notebook in {tmp}/sub looks like 01_flat_storage (none is named after it or defines "
     "one of its exercises numel, contiguous_strides, index_to_offset, offset_to_index, locate; "
     "found alice/02.ipynb): wrong --lesson?"),
    (["grade", "{tmp}/alice", "--lesson", "01", "--out", "{tmp}/o"],
     "{tmp}/alice holds a folder 01_flat_storage/: it looks like one student's folder"),
    (["grade", "{tmp}/nothing", "--lesson", "01", "--out", "{tmp}/o"],
     "none of the 1 student folders in {tmp}/nothing holds a notebook"),
    (["grade", "{tmp}/sub", "--lesson", "01", "--out", "{tmp}/o", "--cell-timeout", "0"],
     "--cell-timeout must be positive, got 0"),
])
def test_tool_errors_exit_2(tmp_path, capsys, args, message):
    (tmp_path / "sub" / "alice").mkdir(parents=True)
    (tmp_path / "empty").mkdir()
    (tmp_path / "sub" / "alice" / "02.ipynb").write_text("{}")  # another lesson's
    (tmp_path / "alice" / STEM).mkdir(parents=True)
    (tmp_path / "alice" / STEM / f"{STEM}.ipynb").write_text("{}")
    (tmp_path / "nothing" / "bob").mkdir(parents=True)
    (tmp_path / "nothing" / "bob" / "notes.txt").write_text("")
    (tmp_path / "bad.py").write_text("def (:\n")
    assert cli([a.format(tmp=tmp_path) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stridegrad grade: error: ")
    assert message.format(tmp=tmp_path) in err


def test_grade_validates_arguments(tmp_path):
    with pytest.raises(GradeError, match="--memory is in MB"):
        grade(tmp_path, "01", tmp_path / "o", memory=8)


def test_check_refuses_a_file_that_is_not_a_notebook(tmp_path, capsys):
    """`stridegrad check runs/digits/model.npz` says it is no notebook (before, it said
    "episode must be a number", about a name the user never meant as an episode)."""
    model = tmp_path / "model.npz"
    model.write_bytes(b"PK\x03\x04")
    assert cli(["check", str(model)]) == 2
    err = capsys.readouterr().err
    assert f"stridegrad check: error: {model} is not a notebook (a .ipynb file)" in err
    assert "a lesson is a number" not in err and len(err.strip().splitlines()) == 1


def test_check_command(capsys):
    assert cli(["check", str(ROOT / "solutions" / f"{STEM}.ipynb")]) == 0
    assert f"{FULL}/{FULL} points, all passed" in capsys.readouterr().out
    assert cli(["check", str(ROOT / "lessons" / f"{STEM}.ipynb")]) == 1
    out = capsys.readouterr().out
    assert f"0/{FULL} points" in out and f"numel ({len(NUMEL_TESTS)} tests)" in out
    # cells named as JupyterLab numbers them after Run All, with their first line
    assert re.search(r"^In \[5\]: numel\(\(2, 3, 4\)\).*\n    raised NotImplementedError.*"
                     r"\(line 1\)\n----> 1 numel\(\(2, 3, 4\)\)", out, re.MULTILINE), out
    assert cli(["check", "nowhere.ipynb"]) == 2
