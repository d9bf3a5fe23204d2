"""The gradebook accumulates: regrading one student or grading another lesson into the
same ``--out`` keeps every other result; hidden tests stay hidden; a looping function
costs its own tests only; ``stridegrad check`` reproduces a student's grade."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.course.checks import load_checkpoint
from stridegrad.course.gradebook import RecordError, merge_rows, read_roster
from stridegrad.course import grader
from stridegrad.course.grader import GradeError, grade

from .conftest import ROOT
from .test_grader import MODE, STEM, _replace_exercise, _solution, _with_cell

CP = load_checkpoint("01")
FULL = CP.max_points
CP0 = load_checkpoint("00")
STEM0 = CP0.lesson
EXTRA = (
    "from stridegrad.course import Checkpoint, expect\n"
    "checkpoint = Checkpoint('01_flat_storage')\n"
    "@checkpoint.test('numel', points=2, hint='secret hint')\n"
    "def numel_of_an_odd_shape(numel):\n"
    "    expect(numel, (7, 11, 13), returns=1001)\n")
LOOPS = "def numel(shape):\n    while True:\n        pass\n"
# if check() ran the tests while grading, this cell would fail (rows) or be stopped (time)
CHECK_CELL = ("from stridegrad.course import check\n"
              "r = check('01')\n"
              "assert r.rows == [], 'check() ran the tests while grading'")
LIMITS = {"timeout": 60, "cell_timeout": 6, "test_timeout": 1, "sandbox": MODE,
          "log": lambda s: None}


def _write(path: Path, nb: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))
    return path


def _csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("gradebook")
    sub, out = base / "submitted", base / "graded"
    _write(sub / "alice" / STEM / f"{STEM}.ipynb", _solution())
    wrong = _replace_exercise(_solution(), "numel", "def numel(shape):\n    return 0\n")
    bob = _write(sub / "bob" / STEM / f"{STEM}.ipynb", wrong)
    shutil.copy(bob, base / f"{STEM}.ipynb")  # bob's first submission, for `check`
    carol = _with_cell(_replace_exercise(_solution(), "numel", LOOPS), CHECK_CELL, at=-1)
    _write(sub / "carol" / STEM / f"{STEM}.ipynb", carol)
    extra = base / "hidden.py"
    extra.write_text(EXTRA)
    roster = base / "roster.txt"
    roster.write_text("alice\nbob\n# late enrolment\ncarol\ndave\n")

    first = {g.student: g for g in grade(sub, "01", out, jobs=2, extra_tests=extra,
                                         roster=roster, **LIMITS)}
    after_first = {r["student"]: r for r in _csv(out / STEM / "totals.csv")}
    book_first = {r["student"]: r for r in _csv(out / "gradebook.csv")}
    # bob resubmits; only he is regraded
    _write(sub / "bob" / STEM / f"{STEM}.ipynb", _solution())
    logs: list[str] = []
    grade(sub, "01", out, extra_tests=extra, students=["bob"], **{**LIMITS, "log": logs.append})
    after_regrade = {r["student"]: r for r in _csv(out / STEM / "totals.csv")}
    # a second lesson into the same folder, alice only submitted it
    shutil.copy(ROOT / "solutions" / f"{STEM0}.ipynb",
                _write(sub / "alice" / STEM0 / f"{STEM0}.ipynb", {}))
    grade(sub, "00", out, **LIMITS)
    return {"base": base, "sub": sub, "out": out, "extra": extra, "first": first,
            "after_first": after_first, "book_first": book_first,
            "after_regrade": after_regrade, "regrade_log": logs}


def test_first_run_has_the_whole_roster(runs):
    book = runs["book_first"]
    assert list(book) == ["alice", "bob", "carol", "dave"]
    assert book["dave"]["01_flat_storage"] == "0" and book["dave"]["total"] == "0"
    assert book["dave"]["notes"] == f"{STEM}: no submission"
    assert book["alice"]["total"] == book["alice"]["max_total"] == str(FULL + 2)
    assert book["alice"]["notes"] == ""


def test_regrading_one_student_keeps_the_others(runs):
    before, after = runs["after_first"], runs["after_regrade"]
    assert set(after) == {"alice", "bob", "carol"}
    for student in ("alice", "carol"):
        assert after[student] == before[student]  # same points, same run, same time
    assert after["bob"]["run_id"] != before["bob"]["run_id"]
    assert after["bob"]["graded_at"] >= before["bob"]["graded_at"]
    assert int(before["bob"]["points"]) < int(after["bob"]["points"]) == FULL + 2
    tests = _csv(runs["out"] / STEM / "grades.csv")
    assert [r["student"] for r in tests] == sorted(r["student"] for r in tests)
    assert {r["student"] for r in tests} == {"alice", "bob", "carol"}
    assert len(tests) == 3 * (len(CP.tests) + 1)
    assert any("kept 2 earlier results" in line for line in runs["regrade_log"])


def test_a_second_lesson_keeps_the_first(runs):
    out = runs["out"]
    assert {r["student"]: r for r in _csv(out / STEM / "totals.csv")} == runs["after_regrade"]
    book = {r["student"]: r for r in _csv(out / "gradebook.csv")}
    assert list(next(iter(book.values()))) == ["student", "student_id", STEM0, STEM, "total",
                                                "max_total", "stretch", "stretch_max",
                                                "notes"]
    # the stretch exercises are extra credit, summed over the lessons apart from the total
    assert book["alice"]["stretch"] == book["alice"]["stretch_max"] == \
        str(CP0.stretch_points + CP.stretch_points)
    assert book["dave"]["stretch"] == "0"
    assert book["alice"][STEM0] == str(CP0.max_points)
    assert book["alice"]["total"] == str(CP0.max_points + FULL + 2)
    assert book["alice"]["max_total"] == str(CP0.max_points + FULL + 2)
    # bob has a folder but no lesson 00 notebook; dave is only on the roster
    assert book["bob"]["notes"] == f"{STEM0}: no submission"
    assert book["dave"]["notes"] == f"{STEM0}: no submission; {STEM}: no submission"


def test_every_result_records_its_run_and_tests(runs):
    totals = runs["after_regrade"]
    digests = {r["tests_hash"] for r in totals.values()}
    assert len(digests) == 1 and len(digests.pop()) == 16
    assert all(r["graded_at"].endswith("+00:00") for r in totals.values())
    lesson0 = _csv(runs["out"] / STEM0 / "totals.csv")
    assert lesson0[0]["tests_hash"] not in {r["tests_hash"] for r in totals.values()}


def test_a_looping_function_costs_its_own_tests(runs):
    carol = runs["first"]["carol"]
    # the cells that call numel and offset_to_index are stopped, the check() cells are not
    assert carol.status == "graded"
    assert [e["error"] for e in carol.cell_errors] == \
        ["did not finish within 6 s and was stopped"] * 2, carol.cell_errors
    looped = {r.exercise for r in carol.rows if r.status == "timeout"}
    # offset_to_index and the stretch exercise locate call numel
    assert looped == {"numel", "offset_to_index", "locate"}
    assert carol.points == FULL - CP.points_for("numel") - CP.points_for("offset_to_index")
    page = (runs["out"] / "feedback" / "carol" / f"{STEM}.html").read_text()
    assert "numel did not finish within 1 s" in page


def test_hidden_tests_show_name_and_points_only(runs):
    page = (runs["out"] / "feedback" / "bob" / f"{STEM}.html").read_text()
    assert "numel_of_an_odd_shape (hidden test)" in page
    assert runs["first"]["bob"].rows[-1].status == "fail"
    for secret in ("1001", "(7, 11, 13)", "secret hint"):
        assert secret not in page


def test_check_reproduces_the_grade(runs, capsys):
    bob = runs["after_first"]["bob"]
    args = ["check", str(runs["base"] / f"{STEM}.ipynb"), "--extra-tests", str(runs["extra"]),
            "--timeout", "60", "--cell-timeout", "6", "--test-timeout", "1"]
    assert cli(args) == 1
    out = capsys.readouterr().out
    assert f": {bob['points']}/{bob['max_points']} points" in out
    assert "numel_of_an_odd_shape (hidden test)" in out and "1001" not in out
    assert cli([*args, "--show-extra-tests"]) == 1
    assert "1001" in capsys.readouterr().out  # the same test, shown


def test_a_regrade_with_other_tests_is_refused_or_noted_on_the_rows_it_changed(runs, tmp_path):
    """The lesson was graded with hidden tests: a one-student run without them (the
    README's resubmission example, run once hidden tests are in use) is refused before
    any notebook runs, naming both hashes; with --replace-tests it runs, and the note
    goes on the result it changed, not on the others."""
    out = tmp_path / "graded"
    shutil.copytree(runs["out"], out)
    before = (out / STEM / "totals.csv").read_bytes()
    with pytest.raises(GradeError) as refused:
        grade(runs["sub"], "01", out, students=["alice"], **LIMITS)
    message = str(refused.value)
    lesson, mine = re.findall(r"tests ([0-9a-f]{16})", message)
    assert lesson == runs["after_regrade"]["bob"]["tests_hash"] and mine != lesson
    assert "extra tests hidden.py sha256" in message and "no extra tests" in message
    assert "the extra tests differ" in message and "--replace-tests" in message
    assert "\n" not in message
    assert (out / STEM / "totals.csv").read_bytes() == before  # nothing graded, nothing written
    logs: list[str] = []
    grade(runs["sub"], "01", out, students=["alice"], replace_tests=True,
          **{**LIMITS, "log": logs.append})
    book = {r["student"]: r for r in _csv(out / "gradebook.csv")}
    assert f"{STEM}: graded with other tests ({mine}, the lesson's {lesson})" in \
        book["alice"]["notes"]
    assert "graded with other tests" not in book["bob"]["notes"]
    assert "graded with other tests" not in book["carol"]["notes"]
    assert any(line.startswith(f"warning: 1 student of {STEM} were graded with other tests "
                               f"than the lesson's ({lesson}): alice") for line in logs), logs
    # the same hidden tests again: accepted, and alice's note is gone
    grade(runs["sub"], "01", out, students=["alice"], extra_tests=runs["extra"], **LIMITS)
    book = {r["student"]: r for r in _csv(out / "gradebook.csv")}
    assert "graded with other tests" not in book["alice"]["notes"]


@pytest.mark.parametrize("extra, message", [
    (["--out", "{sub}/graded"], "--out {sub}/graded is inside the submissions folder {sub}"),
    (["--out", "{sub}"], "is inside the submissions folder"),
    (["--student", "zed", "--student", "alice"],
     "--student zed: no such student folder in {sub} (its students: alice, bob, carol)"),
    (["--roster", "{base}/dup.txt"], "lists 'bob' twice (lines 1 and 3)"),
    (["--extra-tests", "{base}/typo.py"],
     "lesson 01_flat_storage has no exercise 'nmel' (tests big (nmel)); its exercises are "
     "numel, contiguous_strides, index_to_offset, offset_to_index"),
    (["--test-timeout", "0"], "--test-timeout must be positive, got 0"),
])
def test_bad_input_is_refused_before_grading(runs, tmp_path, capsys, extra, message):
    (runs["base"] / "dup.txt").write_text("bob\nalice\nbob\n")
    (runs["base"] / "typo.py").write_text(EXTRA.replace("'numel', points=2", "'nmel'")
                                          .replace("numel_of_an_odd_shape(numel)", "big(nmel)"))
    names = {"sub": runs["sub"], "base": runs["base"]}
    args = ["grade", str(runs["sub"]), "--lesson", "01", "--out", str(tmp_path / "o"),
            *(a.format(**names) for a in extra)]
    assert cli(args) == 2
    assert message.format(**names) in capsys.readouterr().err
    assert not (tmp_path / "o" / "gradebook.csv").exists()


def test_check_refuses_a_typo_in_the_extra_tests(runs, capsys):
    (runs["base"] / "typo2.py").write_text(EXTRA.replace("'numel', points=2", "'nmel'"))
    assert cli(["check", str(runs["base"] / f"{STEM}.ipynb"), "--extra-tests",
                str(runs["base"] / "typo2.py")]) == 2
    assert "has no exercise 'nmel'" in capsys.readouterr().err


def test_a_foreign_csv_in_out_is_refused(runs, tmp_path):
    (tmp_path / STEM).mkdir()
    (tmp_path / STEM / "totals.csv").write_text("name,score\nalice,3\n")
    with pytest.raises(GradeError, match=r"totals.csv has the columns \['name', 'score'\]"):
        grade(runs["sub"], "01", tmp_path, students=["alice"], **LIMITS)


def test_merge_rows_replaces_only_the_graded():
    old = [{"student": "a", "x": 1}, {"student": "b", "x": 1}, {"student": "b", "x": 2}]
    new = [{"student": "b", "x": 3}, {"student": "c", "x": 4}]
    assert merge_rows(old, new, {"b", "c"}) == [{"student": "a", "x": 1},
                                                 {"student": "b", "x": 3},
                                                 {"student": "c", "x": 4}]


def test_roster_errors(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("\n# nobody\n")
    with pytest.raises(RecordError, match="lists no students"):
        read_roster(path)
    path.write_text("alice\n../etc\n")
    with pytest.raises(RecordError, match=r"line 2: '../etc' is not a student folder name"):
        read_roster(path)
    with pytest.raises(RecordError, match="cannot read the roster"):
        read_roster(tmp_path / "missing.txt")


def test_ctrl_c_stops_every_worker_and_writes_what_finished(tmp_path):
    """Ctrl-C after the first result (raised by the progress callback, as the terminal's
    SIGINT would be in the main thread): the hanging notebook's worker is killed at once
    and the finished result is written."""
    sub = tmp_path / "sub"
    (_write(sub / "amy" / STEM / f"{STEM}.ipynb", {}).write_text("{not json"))
    _write(sub / "zoe" / STEM / f"{STEM}.ipynb", _with_cell(
        _solution(), "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                     "while True:\n    time.sleep(0.01)", at=1))
    lines: list[str] = []
    seen: list = []

    said: list[str] = []

    def interrupt(line):
        said.append(line.last)
        with grader._LIVE_LOCK:
            live = list(grader._LIVE)
        # a tick while both still run (a loaded machine): wait for amy's result; amy's
        # unreadable notebook is refused on the host at once, maybe before zoe's worker
        # has started: wait for it too
        if not line.done or not live:
            return
        lines.append(line)
        seen.extend(live)  # zoe's worker (and the judge beside it), still running
        raise KeyboardInterrupt

    logs: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        grade(sub, "01", tmp_path / "out", jobs=2, timeout=600, cell_timeout=600,
              sandbox=MODE, log=logs.append, progress=interrupt)
    first = lines[0]
    assert (first.done, first.total, first.not_graded) == (1, 2, 1), first
    amy = [t for t in said if t.startswith("amy ")]
    assert amy and amy[0].startswith("amy 0/") and amy[0].endswith("invalid-notebook")
    notebooks = [p for p in seen if not getattr(p, "judge", False)]
    assert len(notebooks) == 1 and all(p.poll() is not None for p in seen)  # none left behind
    assert not grader._LIVE
    assert "interrupted: stopped 1 running notebook; writing the 1 of 2 finished" in logs
    totals = _csv(tmp_path / "out" / STEM / "totals.csv")
    assert [(r["student"], r["status"]) for r in totals] == [("amy", "invalid-notebook")]


def test_ctrl_c_before_any_notebook_finished_writes_nothing_and_raises(tmp_path):
    """Ctrl-C on the first progress tick, while every notebook still runs: the workers
    are killed, KeyboardInterrupt comes out (the CLI's exit 130), and no result is
    invented; before, the summary table's width crashed on the empty list."""
    sub = tmp_path / "sub"
    for student in ("amy", "zoe"):
        _write(sub / student / STEM / f"{STEM}.ipynb", _with_cell(
            _solution(), "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                         "while True:\n    time.sleep(0.01)", at=1))
    seen: list = []
    ticks: list = []

    def interrupt(line):
        ticks.append(line)
        with grader._LIVE_LOCK:
            seen.extend(grader._LIVE)
        raise KeyboardInterrupt

    logs: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        grade(sub, "01", tmp_path / "out", jobs=2, timeout=600, cell_timeout=600,
              sandbox=MODE, log=logs.append, progress=interrupt)
    assert ticks[0].done == 0 and ticks[0].total == 2
    assert seen and all(p.poll() is not None for p in seen)  # killed, not left behind
    assert not grader._LIVE
    assert any(line.startswith("interrupted: stopped 2 running notebooks; writing the 0 of 2")
               for line in logs), logs
    assert _csv(tmp_path / "out" / STEM / "totals.csv") == []


def test_the_notebook_is_found_however_it_is_named(tmp_path):
    """A -Copy1 file, a loose notebook, a folder named otherwise: graded, and the feedback
    says what was picked; two notebooks that fit the lesson equally pick none."""
    sub = tmp_path / "sub"
    solution = _solution()
    _write(sub / "amy" / STEM / f"{STEM}-Copy1.ipynb", solution)
    _write(sub / "bea" / "my work.ipynb", solution)
    _write(sub / "cat" / "week1" / f"{STEM}.ipynb", solution)
    _write(sub / "cat" / "week1" / ".ipynb_checkpoints" / "old.ipynb", {})
    # dee: lesson 00 and lesson 01 side by side: the one defining lesson 01's exercises
    shutil.copy(ROOT / "solutions" / f"{STEM0}.ipynb", _write(sub / "dee" / "a.ipynb", {}))
    _write(sub / "dee" / "b.ipynb", solution)
    _write(sub / "eve" / "x.ipynb", solution)
    _write(sub / "eve" / "y.ipynb", solution)
    _write(sub / "fay" / "02_strides_and_views" / "02_strides_and_views.ipynb", solution)
    logs: list[str] = []
    grades = {g.student: g for g in grade(sub, "01", tmp_path / "out", jobs=2,
                                          **{**LIMITS, "log": logs.append})}
    for student in ("amy", "bea", "cat", "dee"):
        assert (grades[student].status, grades[student].points) == ("graded", FULL), student
    assert grades["amy"].picked == f"graded {STEM}/{STEM}-Copy1.ipynb (the only notebook)"
    assert grades["bea"].picked == "graded my work.ipynb (the only notebook)"
    assert grades["cat"].picked == f"graded week1/{STEM}.ipynb (the only notebook)"
    assert grades["dee"].picked == (f"graded b.ipynb (of 2 notebooks: it defines "
                                    f"{len(CP.exercises)} of the {len(CP.exercises)} exercises)")
    assert grades["eve"].status == "no-notebook"
    assert grades["eve"].message.startswith("2 notebooks fit 01_flat_storage equally "
                                            "(x.ipynb, y.ipynb)")
    assert any(line.startswith("bea") and "my work.ipynb" in line for line in logs)
    # another lesson's notebook is never graded as this one
    assert grades["fay"].message == (f"no notebook of {STEM} in fay/ (found: "
                                     "02_strides_and_views/02_strides_and_views.ipynb)")
    page = (tmp_path / "out" / "feedback" / "dee" / f"{STEM}.html").read_text()
    assert "graded b.ipynb (of 2 notebooks" in page


# ------------------------------------------------------------------ sinks (issue #26, item 5)

#: A function renamed as a formula: the rows' messages start with its name.
FORMULA = '=HYPERLINK("evil.example","click")'
RENAMED = ("def numel(shape):\n    return 0\n"
           f"numel.__name__ = numel.__qualname__ = {FORMULA!r}\n")
#: A cell that redraws the instructor's terminal from its stderr, then kills its process.
REDRAW = ("import os, sys\n"
          "sys.stderr.write('\\x1b[2K\\x1b[1A\\ralice 36/36 graded\\x1b]0;pwned\\x07\\n')\n"
          "sys.stderr.flush()\n"
          "os._exit(1)")


def _cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as f:
        return [c for row in csv.reader(f) for c in row]


def _assert_no_formula(path: Path) -> None:
    """No cell of ``path`` starts as a spreadsheet formula does, unless it is a number."""
    bad = [c for c in _cells(path) if c[:1] in ("=", "+", "-", "@", "\t", "\r")
           and not re.fullmatch(r"[+-]?\d+(\.\d+)?", c)]
    assert not bad, (path, bad)


def test_formula_like_names_are_neutralised_in_every_csv_and_read_back(tmp_path):
    from stridegrad.course.gradebook import GRADES_COLUMNS, read_rows
    from stridegrad.course.shards import merge_gradebooks

    sub, out = tmp_path / "sub", tmp_path / "out"
    student = "@SUM(1+1)"  # a name from the LMS, as collect files it
    _write(sub / student / STEM / f"{STEM}.ipynb",
           _replace_exercise(_solution(), "numel", RENAMED))
    _write(sub / "bob" / STEM / f"{STEM}.ipynb", _solution())
    roster = tmp_path / "roster.txt"
    roster.write_text(f"{student}\nbob\n-2+3+cmd|' calc'!A0\n=1+2\n")
    grade(sub, "01", out, roster=roster, jobs=2, **LIMITS)
    written = sorted(out.rglob("*.csv"))
    assert sorted(p.name for p in written) == ["exercises.csv", "gradebook.csv", "grades.csv",
                                              "totals.csv"]
    for path in written:
        _assert_no_formula(path)
    rows = _csv(out / STEM / "grades.csv")
    assert {r["student"] for r in rows} == {f"'{student}", "bob"}
    assert any(r["message"].startswith(f"'{FORMULA}((2, 3, 4)): expected 24") for r in rows)
    book = {r["student"]: r for r in _csv(out / "gradebook.csv")}
    assert sorted(book) == sorted([f"'{student}", "bob", "'-2+3+cmd|' calc'!A0", "'=1+2"])
    assert book["bob"]["total"] == str(FULL)  # numbers stay numbers
    # the project reads its own files back as they were written
    mine = [r for r in read_rows(out / STEM / "grades.csv", GRADES_COLUMNS)
            if r["student"] == student]
    assert len(mine) == len(CP.tests) and mine[0]["message"].startswith(FORMULA)
    # a regrade of that student replaces their rows (a second copy would be another name)
    grade(sub, "01", out, students=[student], **LIMITS)
    assert [r["student"] for r in _csv(out / STEM / "totals.csv")] == [f"'{student}", "bob"]
    assert len(_csv(out / STEM / "grades.csv")) == 2 * len(CP.tests)
    # and a merge (grade merge) reads and writes them alike
    merge_gradebooks([out], tmp_path / "merged", log=lambda line: None)
    for name in ("grades.csv", "totals.csv", "exercises.csv"):
        assert _csv(tmp_path / "merged" / STEM / name) == _csv(out / STEM / name), name
    for path in (tmp_path / "merged").rglob("*.csv"):
        _assert_no_formula(path)


def test_a_notebooks_escape_sequences_never_reach_the_summary(tmp_path):
    sub = tmp_path / "sub"
    _write(sub / "mallory" / STEM / f"{STEM}.ipynb", _with_cell(_solution(), REDRAW, at=1))
    _write(sub / "bob" / STEM / f"{STEM}.ipynb", _solution())
    logs: list[str] = []
    lines: list[str] = []
    grades = {g.student: g for g in grade(sub, "01", tmp_path / "out", progress=lambda p:
                                          lines.append(p.line()),
                                          **{**LIMITS, "log": logs.append})}
    assert grades["mallory"].status == "crashed", grades["mallory"]
    row = next(line for line in logs if line.startswith("mallory"))
    assert "alice 36/36 graded" in row  # what it wrote is there, as text
    for line in logs + lines:
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", line), repr(line)
