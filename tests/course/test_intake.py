"""What the grader takes in, and what it takes back: a student's files only as regular
files with one name, within limits, never through a link; a notebook and a worker's
result as data, parsed within limits and checked against the trusted checkpoint.
Whatever one student's folder or notebook holds costs that student's points only,
with a row that says why, and an honest student beside it keeps full marks."""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from stridegrad.course import grader, intake
from stridegrad.course._limits import (
    JSONLimits,
    UntrustedJSONError,
    clean_text,
    loads,
    printable,
)
from stridegrad.course.checks import load_checkpoint
from stridegrad.course.gradebook import build_gradebook, check_records, read_rows
from stridegrad.course.gradebook import TOTALS_COLUMNS
from stridegrad.course.grader import find_submission, grade

from .conftest import ROOT
from .test_grader import CELL_LIMIT, MODE, _with_cell

NOTEBOOK = intake.NOTEBOOK_JSON

STEM = "01_flat_storage"
CP = load_checkpoint("01")
FULL = CP.max_points
LESSON = (ROOT / "lessons" / f"{STEM}.ipynb").read_text()
SOLUTION = (ROOT / "solutions" / f"{STEM}.ipynb").read_text()


@contextmanager
def _deadline(seconds: int):
    """Fail instead of hanging (a read of /proc/kmsg blocks forever, even SIGTERM)."""
    def on_alarm(signum, frame):
        raise TimeoutError(f"did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _notebook(folder: Path, text: str = SOLUTION, name: str = f"{STEM}.ipynb") -> Path:
    path = folder / STEM / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _deep_tree(top: Path, levels: int, notebook: str | None = None) -> None:
    """``top/d/d/.../d`` ``levels`` deep (with ``x.ipynb`` at the bottom): made through
    directory descriptors, as its path would be too long to name."""
    top.mkdir(parents=True, exist_ok=True)
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        if notebook is not None:
            out = os.open("x.ipynb", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(out, notebook.encode())
            os.close(out)
    finally:
        os.close(fd)


def _remove_deep_tree(top: Path) -> None:
    """Remove :func:`_deep_tree`'s folders without recursion (``shutil.rmtree`` recurses,
    past Python's limit here): lift ``d/d`` up and remove the emptied ``d``, repeatedly."""
    chain = top / "d"
    while chain.is_dir():
        for p in chain.iterdir():
            if p.name != "d":
                p.unlink()
        if (chain / "d").is_dir():
            (chain / "d").rename(top / "next")
            chain.rmdir()
            (top / "next").rename(chain)
        else:
            chain.rmdir()


# ------------------------------------------------------------------ bounded JSON

@pytest.mark.parametrize("text, message", [
    ("[" * 100_000, "nested 100,000 levels deep, more than the limit of 64"),
    ("[" * 100_000 + "]" * 100_000, "nested 100,000 levels deep"),
    ('{"a": ' * 70 + "1" + "}" * 70, "nested 70 levels deep"),
    ("[" + ",".join(["[]"] * 2_000_001) + "]", "holds more than 2,000,000 JSON values"),
    ("1" * 5000, "holds a value Python cannot read"),
    ('{"cells": [', "is not valid JSON (line 1, column 12"),
])
def test_json_over_a_limit_is_refused_before_it_is_parsed(text, message):
    with pytest.raises(UntrustedJSONError, match=message.replace("(", r"\(")) as info:
        loads(text, NOTEBOOK, "nb.ipynb")
    assert str(info.value).startswith("nb.ipynb ")
    assert info.value.over_limit == ("valid JSON" not in message)


def test_json_within_the_limits_parses():
    assert loads('{"a": [[["x[{,"]]], "b": "\\"[[["}', NOTEBOOK) == \
        {"a": [[["x[{,"]]], "b": '"[[['}
    deep = "[" * 64 + "]" * 64  # as deep as allowed
    assert loads(deep, NOTEBOOK) is not None
    assert loads(SOLUTION.encode(), NOTEBOOK)["nbformat"] == 4
    with pytest.raises(UntrustedJSONError, match="MB, over the limit of"):
        loads(b"[" + b"0," * 1000 + b"0]", JSONLimits(1048, 8, 10_000))
    with pytest.raises(UntrustedJSONError, match="not UTF-8") as info:
        loads(b'"\xff"', NOTEBOOK)
    assert not info.value.over_limit


def test_brackets_in_strings_do_not_count():
    text = json.dumps({"source": ["[" * 10_000, "{" * 10_000, '\\"[' * 1000]})
    assert loads(text, NOTEBOOK)["source"][0] == "[" * 10_000


@pytest.mark.parametrize("text", [
    '"\\' * 5_000_000,        # a quadratic case of a plain regex for strings
    '"' + "a" * 5_000_000,   # a string never closed
    "[" * 5_000_000,
])
def test_hostile_json_costs_linear_time(text):
    start = time.perf_counter()
    with pytest.raises(UntrustedJSONError):
        loads(text, NOTEBOOK)
    assert time.perf_counter() - start < 10


def test_clean_text_and_printable():
    assert clean_text("a\x1b[2Jb\x00c\td\ne\ud800", 100) == "a[2Jbc\td\ne\ufffd"
    assert clean_text("x" * 50, 20) == "x" * 14 + " [cut]"
    clean_text("\udcff", 10).encode("utf-8")
    assert printable("ali\nce") == "ali\\x0ace"
    assert printable(os.fsdecode(b"al\xffice")) == "al\\xffice"
    assert printable("alice") == "alice"


# ------------------------------------------------------------------ intake

def test_a_folder_that_is_a_link_is_refused_and_never_entered(tmp_path):
    _notebook(tmp_path / "alice")
    (tmp_path / "carol").symlink_to(tmp_path / "alice")
    (tmp_path / "root").symlink_to("/")
    assert intake.student_folders(tmp_path) == ["alice", "carol", "root"]
    for name in ("carol", "root"):
        listing = intake.list_folder(tmp_path / name)
        assert (listing.problem, listing.files) == ("a symbolic link", [])
    assert intake.list_folder(tmp_path / "alice").files == [
        intake.Entry((STEM, f"{STEM}.ipynb"))]


def test_links_hard_links_fifos_and_big_files_are_listed_not_taken(tmp_path):
    folder = tmp_path / "bob" / STEM
    folder.mkdir(parents=True)
    (folder / "shadow.ipynb").symlink_to("/etc/shadow")
    (folder / "kmsg.ipynb").symlink_to("/proc/kmsg")
    (folder / "up").symlink_to("/")
    _notebook(tmp_path / "alice")
    os.link(tmp_path / "alice" / STEM / f"{STEM}.ipynb", folder / "copy.ipynb")
    os.mkfifo(folder / "pipe.ipynb")
    with open(folder / "big.ipynb", "wb") as f:
        f.truncate(21 * 2**20)  # sparse: 21 MB that take no disk
    (folder / "fine.ipynb").write_text(SOLUTION)
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / ".ipynb_checkpoints" / "old.ipynb").write_text(SOLUTION)
    problems = {e.parts[-1]: e.problem for e in intake.list_folder(tmp_path / "bob").files}
    assert problems == {
        "big.ipynb": "21.0 MB, over the limit of 20 MB",
        "copy.ipynb": "hard-linked (2 names for one file)",
        "fine.ipynb": "",
        "kmsg.ipynb": "a symbolic link",
        "pipe.ipynb": "not a regular file (a FIFO)",
        "shadow.ipynb": "a symbolic link",
        "up": "a symbolic link",
    }


def test_read_file_never_follows_waits_on_or_reads_past_the_cap(tmp_path):
    """read_file checks on the open descriptor what the walk saw: a file swapped for a
    link, a FIFO, a hard link or a bigger one after the walk is refused."""
    folder = tmp_path / "bob"
    (folder / STEM).mkdir(parents=True)
    (folder / STEM / "kmsg.ipynb").symlink_to("/proc/kmsg")
    (folder / STEM / "shadow.ipynb").symlink_to("/etc/shadow")
    os.mkfifo(folder / STEM / "pipe.ipynb")
    (folder / "away").symlink_to(ROOT / "solutions")
    (folder / STEM / "ok.ipynb").write_text("{}")
    os.link(folder / STEM / "ok.ipynb", folder / STEM / "linked.ipynb")
    (folder / STEM / "small.ipynb").write_text("{}")
    with _deadline(20):
        for name, why in (("kmsg.ipynb", "a symbolic link"), ("shadow.ipynb", "a symbolic link"),
                          ("pipe.ipynb", "not a regular file (a FIFO)"),
                          ("ok.ipynb", "hard-linked (2 names for one file)")):
            with pytest.raises(intake.Refused, match=f"^{re.escape(why)}$"):
                intake.read_file(folder, (STEM, name))
        with pytest.raises(intake.Refused, match=r"^in away/, which is a symbolic link$"):
            intake.read_file(folder, ("away", f"{STEM}.ipynb"))
        with pytest.raises(intake.Refused, match="over the limit"):
            intake.read_file(folder, (STEM, "small.ipynb"), max_bytes=1)
        assert intake.read_file(folder, (STEM, "small.ipynb")) == b"{}"
        (tmp_path / "carol").symlink_to(folder)
        with pytest.raises(intake.Refused, match="^a symbolic link$"):
            intake.read_file(tmp_path / "carol", (STEM, "small.ipynb"))


def test_the_walk_has_a_depth_cap_and_no_recursion(tmp_path):
    top = tmp_path / "ivan"
    _deep_tree(top, 1200, SOLUTION)
    try:
        _notebook(top)
        listing = intake.list_folder(top)
        assert listing.files == [intake.Entry((STEM, f"{STEM}.ipynb"))]
        assert listing.cut == "has folders more than 32 levels deep: those were not looked into"
        shallow = intake.list_folder(top, max_depth=2000)
        assert shallow.cut == "" and len(shallow.files) == 2  # 1,200 levels, no RecursionError
    finally:
        _remove_deep_tree(top)


def test_the_walk_has_an_entry_cap(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for k in range(30):
        (folder / f"f{k:02d}.txt").write_text("")
    listing = intake.list_folder(folder, max_entries=10)
    assert len(listing.files) == 10 and "more than 10 files and folders" in listing.cut


def test_find_submission_refuses_what_intake_does_not_take(tmp_path):
    alice = _notebook(tmp_path / "alice")
    (tmp_path / "bob" / STEM).mkdir(parents=True)
    (tmp_path / "bob" / STEM / f"{STEM}.ipynb").symlink_to(alice)
    (tmp_path / "carol").symlink_to(tmp_path / "alice")
    _notebook(tmp_path / "dave", name="mine.ipynb")
    os.link(tmp_path / "dave" / STEM / "mine.ipynb", tmp_path / "erin.ipynb")
    _notebook(tmp_path / "frank", name="mine.ipynb")
    (tmp_path / "frank" / STEM / "linked.ipynb").symlink_to(alice)
    (tmp_path / "gina").mkdir()
    (tmp_path / "gina" / STEM).symlink_to(ROOT / "solutions")
    (tmp_path / "gina" / "notes.txt").symlink_to("/etc/shadow")
    assert find_submission(tmp_path / "alice", STEM, CP) == (alice, "")
    path, why = find_submission(tmp_path / "bob", STEM, CP)
    assert path is None and why.startswith(
        f"bob/{STEM}/{STEM}.ipynb is a symbolic link: not graded (the grader takes real "
        "folders and regular files with one name, of at most 20 MB, and follows no link)")
    path, why = find_submission(tmp_path / "carol", STEM, CP)
    assert path is None and why.startswith("the folder carol/ is a symbolic link: not graded")
    path, why = find_submission(tmp_path / "dave", STEM, CP)
    assert path is None and "hard-linked" in why
    path, why = find_submission(tmp_path / "gina", STEM, CP)
    assert path is None and why.startswith(f"gina/{STEM} is a symbolic link: not graded")
    # a link beside a notebook of their own: theirs is graded, the link noted
    path, why = find_submission(tmp_path / "frank", STEM, CP)
    assert path == tmp_path / "frank" / STEM / "mine.ipynb"
    assert why == (f"graded {STEM}/mine.ipynb (the only notebook); not taken: "
                   f"frank/{STEM}/linked.ipynb is a symbolic link")


# ------------------------------------------------------------------ the worker's result

def _honest(cells: list[str], **changes) -> dict:
    """A result as the worker writes it for a notebook that passes every test."""
    rows = [{"test": t.name, "exercise": t.exercise, "status": "pass", "points": t.points,
             "max_points": t.points, "expected": "", "got": "", "hint": t.hint,
             "message": "", "hidden": t.hidden, "call": "", "diagnosis": "", "cause": "",
             "stretch": t.stretch} for t in CP.tests]
    result = {"status": "graded", "code_cells": len(cells), "cell_errors": [],
              "limits": "limited to 2048 MB of memory",
              "result": {"lesson": CP.lesson, "title": CP.title, "exercise": None,
                         "score": 0, "max_score": 0, "rows": rows},
              "redefined": [], "seconds": 1.5, "token": "t"}
    result.update(changes)
    return result


CELLS = ["import numpy as np", "", "def numel(shape):\n    return 1\n", "raise ValueError('x')"]


def _row(result: dict, name: str) -> dict:
    return next(r for r in result["result"]["rows"] if r["test"] == name)


def test_an_honest_result_is_taken_with_the_checkpoints_points():
    got = grader._checked(_honest(CELLS), CP, CELLS)
    assert got["status"] == "graded"
    assert sum(r["points"] for r in got["result"]["rows"]) == FULL + CP.stretch_points
    assert [r["test"] for r in got["result"]["rows"]] == [t.name for t in CP.tests]
    # points and max points may be left out: they are the checkpoint's anyway
    honest = _honest(CELLS)
    for r in honest["result"]["rows"]:
        del r["points"], r["max_points"], r["hidden"], r["stretch"]
    assert grader._checked(honest, CP, CELLS)["result"] == got["result"]


def _forge(change) -> dict:
    result = _honest(CELLS)
    change(result)
    return result


FIRST = CP.tests[0].name


@pytest.mark.parametrize("change, reason", [
    (lambda r: _row(r, FIRST).update(points=1_000_000, max_points=1_000_000),
     f"the row of test {FIRST}: points 1000000 where the checkpoint gives 1"),
    (lambda r: _row(r, FIRST).update(points=0.5),
     f"the row of test {FIRST}: points 0.5 where the checkpoint gives 1"),
    (lambda r: _row(r, FIRST).update(status="fail", points=1),
     f"the row of test {FIRST}: points 1 where the checkpoint gives 0"),
    (lambda r: _row(r, FIRST).update(hidden=True), "hidden True where the checkpoint gives"),
    (lambda r: _row(r, FIRST).update(test="no_such_test"),
     "row 1: 'no_such_test' is no test of 01_flat_storage"),
    (lambda r: _row(r, FIRST).update(exercise="locate"), "exercise 'locate' where"),
    (lambda r: _row(r, FIRST).update(status="tampered"), "status 'tampered' is none a test"),
    (lambda r: _row(r, FIRST).update(status=5), "status is of type int, not str"),
    (lambda r: _row(r, FIRST).update(message=["x"]), "message is of type list, not str"),
    (lambda r: _row(r, FIRST).update(cause="os.system"), "cause 'os.system' is no exercise"),
    (lambda r: r["result"]["rows"].pop(), f"rows for the {len(CP.tests)} tests"),
    (lambda r: r["result"]["rows"].append(r["result"]["rows"][0]), "rows for the"),
    (lambda r: r["result"]["rows"].__setitem__(1, r["result"]["rows"][0]),
     f"row 2: a second row of test {FIRST}"),
    (lambda r: r["result"].__setitem__("rows", [[1, 2]] * len(CP.tests)),
     "row 1 is a list, not a dict"),
    (lambda r: r.update(result=[]), "result is of type list, not dict"),
    (lambda r: r.update(status="graded!"), "status 'graded!' is none the worker writes"),
    (lambda r: r.update(code_cells=99), "code_cells is 99, not from 4 to 4"),
    (lambda r: r.update(seconds=float("nan")), "seconds is nan"),
    (lambda r: r.update(cell_errors=[{"cell": 1, "run": 2, "error": "x"}]),
     "the error of code cell 1: that cell is empty"),
    (lambda r: r.update(cell_errors=[{"cell": 3, "run": 9, "error": "x"}]),
     "run is 9, not from 3 to 3"),
    (lambda r: r.update(cell_errors=[{"cell": 3, "run": 3, "error": "x"}] * 2),
     "cell is 3, not from 4 to 3"),
    (lambda r: r.update(redefined=[{"exercise": "os"}]), "a redefinition of 'os'"),
    (lambda r: r.update(redefined=[{"exercise": "numel", "earlier_points": 999}]),
     "earlier_points is 999"),
])
def test_a_result_that_does_not_fit_the_checkpoint_is_forged(change, reason):
    with pytest.raises(grader._Forged) as info:
        grader._checked(_forge(change), CP, CELLS)
    assert reason in str(info.value), str(info.value)


def test_texts_of_a_result_are_capped_and_safe_to_write():
    result = _honest(CELLS, cell_errors=[{"cell": 3, "run": 3, "error": "E\x1b[31m\ud800" * 5000,
                                          "line": 1, "source": "forged", "first_line": "f"}])
    _row(result, FIRST).update(status="fail", points=0, message="=1+1\x00" + "x" * 10**6)
    got = grader._checked(result, CP, CELLS)
    error = got["cell_errors"][0]
    assert error["source"] == CELLS[3] and error["first_line"] == "raise ValueError('x')"
    assert len(error["error"]) == grader._TEXT_CHARS and "\x1b" not in error["error"]
    error["error"].encode("utf-8")
    message = _row(got, FIRST)["message"]
    assert len(message) == grader._TEXT_CHARS and "\x00" not in message


def _verdict(out: bytes, tmp_path: Path) -> dict:
    (tmp_path / "stderr.txt").write_bytes(b"")
    return grader._verdict(0, out, "t", tmp_path / "stderr.txt", 1.0, None, 2048, 100, 60,
                           len(CP.tests), 10, CP, CELLS)


@pytest.mark.parametrize("line, reason", [
    (b"[" * 100_000, "nested 100,000 levels deep, more than the limit of 8"),
    (b'{"token": "t", "x": ' + b"[" * 50 + b"]" * 50 + b"}", "nested 51 levels deep"),
    (json.dumps(_honest(CELLS, limits="x" * 9_000_000)).encode(), "over the limit of 8 MB"),
])
def test_a_result_line_over_the_limits_is_tampering(tmp_path, line, reason):
    got = _verdict(b"\n" + line + b"\n", tmp_path)
    assert got["status"] == "tampered" and reason in got["message"], got["message"]


def test_a_result_line_is_checked_against_the_checkpoint(tmp_path):
    honest = _verdict(b"\n" + json.dumps(_honest(CELLS)).encode() + b"\n", tmp_path)
    assert honest["status"] == "graded"
    forged = _honest(CELLS)
    _row(forged, FIRST)["points"] = 1_000_000
    got = _verdict(b"\n" + json.dumps(forged).encode() + b"\n", tmp_path)
    assert got["status"] == "tampered"
    assert "points 1000000 where the checkpoint gives 1" in got["message"]


def test_cell_output_lines_are_parsed_within_limits():
    good = {"token": "t", "cell": 0, "run": 1, "seconds": 0.1,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": "hi\n"}]}
    lines = [json.dumps(good).encode(), b"{" + b'"a":[' * 100_000,
             json.dumps({**good, "cell": 99}).encode(),
             json.dumps({**good, "cell": 2, "outputs": [{"output_type": "x"}]}).encode(),
             json.dumps({**good, "cell": 3, "token": "other"}).encode()]
    assert grader._cell_outputs(b"\n".join(lines), "t", len(CELLS)) == {
        0: {"run": 1, "seconds": 0.1, "outputs": good["outputs"]}}


# ------------------------------------------------------------------ one student's failure

def test_an_exception_grading_one_student_is_their_row(tmp_path, monkeypatch):
    """A bug of the grader's met on one notebook (here a TypeError, as a malformed row
    once raised) is that student's row; the others are graded, the gradebook stays
    readable, and a later run into it works."""
    for student in ("alice", "zed"):
        _notebook(tmp_path / "sub" / student)
    def run(raw, name, episode, **kwargs):
        if b"zed was here" in raw:
            raise TypeError("Row() argument after ** must be a mapping, not list")
        return grader._checked(_honest(grader._code_cells(raw, name)), CP,
                               grader._code_cells(raw, name))

    monkeypatch.setattr(grader, "_run_raw", run)
    (tmp_path / "sub" / "zed" / STEM / f"{STEM}.ipynb").write_text(
        json.dumps(_with_cell(json.loads(SOLUTION), "# zed was here")))
    logs: list[str] = []
    grades = {g.student: g for g in grade(tmp_path / "sub", "01", tmp_path / "out",
                                          sandbox=False, log=logs.append)}
    assert (grades["alice"].status, grades["alice"].points) == ("graded", FULL)
    zed = grades["zed"]
    assert (zed.status, zed.points, zed.max_points) == ("grader-error", 0, FULL)
    assert zed.message.startswith("the grader failed on this notebook (TypeError: Row() "
                                  "argument after ** must be a mapping, not list); no points")
    check_records(tmp_path / "out")
    _, book = build_gradebook(tmp_path / "out")
    assert {r["student"]: (r["total"], r["max_total"]) for r in book} == {
        "alice": (FULL, FULL), "zed": (0, FULL)}
    assert "zed" in (tmp_path / "out" / "feedback" / "zed" / f"{STEM}.html").read_text()
    totals = read_rows(tmp_path / "out" / STEM / "totals.csv", TOTALS_COLUMNS)
    assert all(int(r["points"]) >= 0 and int(r["max_points"]) == FULL for r in totals)


# ------------------------------------------------------------------ a class, graded

def _forger(line: str, checkpoint=CP, stem: str = STEM) -> str:
    """A cell that finds the worker's result writer among all objects (``gc``), takes
    the token and the result's descriptor from its closure, and writes the Python
    expression ``line`` (bytes; ``token``, ``cells``, the notebook's number of code
    cells, and ``rows``, a full-marks row per test, in scope) as the result line, then
    exits: the forgery of the issue's "forging the result" class."""
    tests = {t.name: [t.exercise, t.points, t.hidden, t.stretch] for t in checkpoint.tests}
    return (
        "import gc, json, os\n"
        "write = next(o for o in gc.get_objects() if callable(o) and\n"
        "             {'token', 'result_fd'} <= set(getattr(getattr(o, '__code__', None),\n"
        "                                                   'co_freevars', ())))\n"
        "env = dict(zip(write.__code__.co_freevars,\n"
        "               (c.cell_contents for c in write.__closure__)))\n"
        "token, fd = env['token'], env['result_fd']\n"
        f"nb = json.load(open({stem + '.ipynb'!r}))\n"
        "cells = sum(c['cell_type'] == 'code' for c in nb['cells'])\n"
        f"tests = json.loads({json.dumps(json.dumps(tests))})\n"
        "rows = [{'test': t, 'exercise': e, 'status': 'pass', 'points': p, 'max_points': p,\n"
        "         'hidden': h, 'stretch': s} for t, (e, p, h, s) in tests.items()]\n"
        "def result(**changes):\n"
        "    r = {'status': 'graded', 'code_cells': cells, 'cell_errors': [],\n"
        "         'result': {'rows': rows}, 'redefined': [], 'token': token}\n"
        "    r.update(changes)\n"
        "    return json.dumps(r).encode()\n"
        f"line = {line}\n"
        "os.write(fd, b'\\n' + line + b'\\n')\n"
        "os._exit(0)\n")


def _lesson_with(cell: str) -> str:
    return json.dumps(_with_cell(json.loads(LESSON), cell))


#: student -> (expected status, points, a part of the message)
EXPECTED = {
    "alice": ("graded", FULL, ""),
    "bob_links_alices_notebook": ("refused", 0, "is a symbolic link: not graded"),
    "carol_links_alices_folder": ("refused", 0, "the folder carol_links_alices_folder/ is a "
                                                "symbolic link"),
    "dave_hard_link": ("refused", 0, "hard-linked (3 names for one file)"),
    "erin_hard_link": ("refused", 0, "hard-linked (3 names for one file)"),
    "frank_shadow": ("refused", 0, "is a symbolic link"),
    "gina_kmsg": ("refused", 0, "is a symbolic link"),
    "hank_too_big": ("refused", 0, "is 21.0 MB, over the limit of 20 MB"),
    "ivan_too_deep": ("refused", 0, "has folders more than 32 levels deep"),
    "jack_deep_beside": ("graded", FULL, "has folders more than 32 levels deep"),
    "judy_deep_json": ("invalid-notebook", 0, "nested 100,000 levels deep"),
    "olaf_links_root": ("refused", 0, "the folder olaf_links_root/ is a symbolic link"),
    "sol_links_solutions": ("refused", 0, "is a symbolic link"),
    # lesson 01's tests run in the judge, outside the sandbox: a result line the notebook
    # writes goes to the judge, which reads no result from the notebook at all (the
    # same forgeries with the tests run in the worker, STRIDEGRAD_JUDGE=inside:
    # test_forged_results_inside)
    "kim_forges_points": ("crashed", 0, "exit code 0"),
    "leo_forges_a_test": ("crashed", 0, "exit code 0"),
    "mia_forges_types": ("crashed", 0, "exit code 0"),
    "ned_deep_result": ("crashed", 0, "exit code 0"),
    "olga_big_result": ("crashed", 0, "exit code 0"),
    "pia_malformed_rows": ("crashed", 0, "exit code 0"),
}


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    sub = base / "submitted"
    alice = _notebook(sub / "alice")
    (sub / "bob_links_alices_notebook" / STEM).mkdir(parents=True)
    (sub / "bob_links_alices_notebook" / STEM / f"{STEM}.ipynb").symlink_to(alice)
    (sub / "carol_links_alices_folder").symlink_to(sub / "alice")
    shared = _notebook(base / "elsewhere")
    for student in ("dave_hard_link", "erin_hard_link"):
        (sub / student / STEM).mkdir(parents=True)
        os.link(shared, sub / student / STEM / f"{STEM}.ipynb")
    for student, target in (("frank_shadow", "/etc/shadow"), ("gina_kmsg", "/proc/kmsg"),
                            ("sol_links_solutions", ROOT / "solutions" / f"{STEM}.ipynb")):
        (sub / student / STEM).mkdir(parents=True)
        (sub / student / STEM / f"{STEM}.ipynb").symlink_to(target)
    with open(_notebook(sub / "hank_too_big", ""), "wb") as f:
        f.truncate(21 * 2**20)
    _deep_tree(sub / "ivan_too_deep", 1200, SOLUTION)
    _notebook(sub / "jack_deep_beside")
    _deep_tree(sub / "jack_deep_beside" / "scratch", 1200)
    _notebook(sub / "judy_deep_json", "[" * 100_000 + "]" * 100_000)
    (sub / "olaf_links_root").symlink_to("/")
    forgers = {
        "kim_forges_points": "result(result={'rows': [dict(r, points=1_000_000, "
                             "max_points=1_000_000) for r in rows]})",
        "leo_forges_a_test": "result(result={'rows': rows[:-1] + [dict(rows[-1], "
                             "test='full_marks')]})",
        "mia_forges_types": "result(result={'rows': [dict(r, status=5) for r in rows]})",
        "ned_deep_result": "b'[' * 100_000",
        "olga_big_result": "result(limits='x' * 9_000_000)",
        "pia_malformed_rows": "result(result={'rows': [[1, 2]] * len(rows)})",
    }
    for student, line in forgers.items():
        _notebook(sub / student, _lesson_with(_forger(line)))
    logs: list[str] = []
    try:
        with _deadline(600):
            grades = grade(sub, "01", base / "out", timeout=120, cell_timeout=CELL_LIMIT,
                           jobs=2, sandbox=MODE, log=logs.append)
    finally:
        _remove_deep_tree(sub / "ivan_too_deep")
        _remove_deep_tree(sub / "jack_deep_beside" / "scratch")
    return {"grades": {g.student: g for g in grades}, "out": base / "out", "logs": logs}


def test_forged_results_inside(tmp_path, monkeypatch):
    """With the tests run in the worker, inside the sandbox (``STRIDEGRAD_JUDGE=inside``,
    the way to compare), a notebook that digs the token out of its own memory can write
    a result line, which the grader checks against the trusted checkpoint and refuses
    (status "tampered", no points)."""
    monkeypatch.setenv("STRIDEGRAD_JUDGE", "inside")
    six = load_checkpoint("07")
    assert not grader.judged_outside("07")
    lesson = json.loads((ROOT / "lessons" / f"{six.lesson}.ipynb").read_text())
    forged = _forger("result(result={'rows': [dict(r, points=1_000_000, max_points=1_000_000)"
                     " for r in rows]})", six, six.lesson)
    path = tmp_path / "sub" / "kim" / six.lesson / f"{six.lesson}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_with_cell(lesson, forged)))
    g, = grade(tmp_path / "sub", "07", tmp_path / "out", timeout=120, cell_timeout=CELL_LIMIT,
               jobs=1, sandbox=MODE, log=lambda s: None)
    assert (g.status, g.points) == ("tampered", 0), g.message
    assert "points 1000000 where the checkpoint gives" in g.message


def test_each_hostile_student_gets_a_row_with_the_reason(hostile_class):
    grades = hostile_class["grades"]
    assert set(grades) == set(EXPECTED)
    for student, (status, points, reason) in EXPECTED.items():
        g = grades[student]
        assert (g.status, g.points, g.max_points) == (status, points, FULL), \
            (student, g.message)
        assert reason in g.message, (student, g.message)


def test_the_gradebook_of_a_hostile_class_is_readable(hostile_class):
    out = hostile_class["out"]
    check_records(out)
    _, book = build_gradebook(out)
    rows = {r["student"]: r for r in book}
    assert set(rows) == set(EXPECTED)
    assert all(int(r["max_total"]) == FULL for r in book)  # never the forgers' 1,000,000
    assert int(rows["alice"]["total"]) == FULL
    assert "01_flat_storage: refused" in rows["carol_links_alices_folder"]["notes"]
    with open(out / STEM / "grades.csv", newline="", encoding="utf-8") as f:
        messages = {r["student"]: r["message"] for r in csv.DictReader(f)}
    assert "is a symbolic link" in messages["frank_shadow"]
    text = (out / STEM / "grades.csv").read_text() + "".join(
        p.read_text() for p in (out / "feedback").rglob("*.html"))
    assert "root:" not in text  # nothing of /etc/shadow
