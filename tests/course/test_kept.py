"""One student debuggable (issue #15, item 6): ``--keep`` keeps the executed notebook and
the worker's log, in the sandbox too; the feedback names cells as JupyterLab does, quotes
the failing line, says a whole-notebook problem once, and says when the definition graded
is not the one the notebook's check() ran on; per-exercise subtotals; pills that never wrap."""

from __future__ import annotations

import json
import re

import pytest

from stridegrad.cli import main as cli
from stridegrad.course._cells import STREAM_CHARS
from stridegrad.course.checks import load_checkpoint
from stridegrad.course.feedback import cell_quote, redefinition_note
from stridegrad.course.grader import grade, run_notebook
from stridegrad.course.kept import write_kept

from .test_gradebook import _csv, _write
from .test_grader import MODE, STEM, _replace_exercise, _solution

CP = load_checkpoint("01")
WRONG_NUMEL = "def numel(shape):\n    return 0  # a scratch cell\n"
# appended to ann's solution: one cell of each kind of output, a failing cell whose error
# comes from a function of another cell, an empty cell, and a scratch cell that replaces
# numel after the notebook's check() cells ran on the right one
ANN = ["print('y' * 100_000)",
       "from IPython.display import HTML, display\ndisplay(HTML('<b>shown</b>'))\n6 * 7",
       "quiet = 5\nquiet;",
       "",
       "def helper(x):\n    return 1 / x",
       "a = 1\nb = 2\nhelper(0)\nc = 3",
       WRONG_NUMEL]
CRASH = "import os\nos._exit(3)"


def _cell(source: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": f"c{abs(hash(source))}",
            "metadata": {}, "outputs": [], "source": source}


def _runs(nb: dict) -> dict[int, int]:
    """Cell index -> In [n] after Restart Kernel and Run All (empty cells are not run)."""
    runs, n = {}, 0
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] == "code" and "".join(c["source"]).strip():
            n += 1
            runs[i] = n
    return runs


def _index(nb: dict, source: str) -> int:
    return next(i for i, c in enumerate(nb["cells"]) if "".join(c["source"]) == source)


def _numel_source() -> str:
    nb = _solution()
    return "".join(next(c["source"] for c in nb["cells"]
                        if c["metadata"].get("nbgrader", {}).get("grade_id") == "numel"))


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    base = tmp_path_factory.mktemp("kept")
    sub = base / "submitted"
    ann = _solution()
    ann["cells"] += [_cell(s) for s in ANN]
    _write(sub / "ann" / STEM / f"{STEM}.ipynb", ann)
    _write(sub / "ben" / STEM / f"{STEM}.ipynb", {}).write_text("{not json")
    cat = _solution()
    cat["cells"] += [_cell("print('before the crash')"), _cell(CRASH), _cell("print('after')")]
    _write(sub / "cat" / STEM / f"{STEM}.ipynb", cat)
    # eve's check() ran on a wrong numel; a later cell fixed it: graded right, no note
    eve = _replace_exercise(_solution(), "numel", WRONG_NUMEL)
    eve["cells"].append(_cell(_numel_source()))
    _write(sub / "eve" / STEM / f"{STEM}.ipynb", eve)
    reports: list = []
    grades = grade(sub, "01", base / "out", keep=base / "kept", jobs=2, timeout=60,
                   cell_timeout=10, test_timeout=2, sandbox=MODE, log=lambda s: None,
                   progress=reports.append)
    return {"grades": {g.student: g for g in grades}, "out": base / "out",
            "kept": base / "kept", "ann": ann, "cat": cat, "sub": sub, "base": base,
            "reports": reports}


def _executed(kept, student) -> dict:
    return json.loads((kept["kept"] / student / f"{STEM}.executed.ipynb").read_text())


def _log(kept, student) -> str:
    return (kept["kept"] / student / f"{STEM}.worker.log").read_text()


def test_the_executed_notebook_opens_in_jupyterlab(kept):
    nbformat = pytest.importorskip("nbformat")
    for student in ("ann", "cat", "eve"):
        nb = nbformat.reads(json.dumps(_executed(kept, student)), as_version=4)
        nbformat.validate(nb)  # nbformat 4, as JupyterLab saves it
    nb = _executed(kept, "ann")
    assert nb["metadata"]["stridegrad"]["student"] == "ann"
    assert nb["metadata"]["stridegrad"]["points"] == kept["grades"]["ann"].points
    # the student's cells, in order, numbered as JupyterLab numbers them after Run All
    assert [c["source"] for c in nb["cells"]] == [c["source"] for c in kept["ann"]["cells"]]
    runs = _runs(kept["ann"])
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] == "code":
            assert c["execution_count"] == runs.get(i), (i, c["source"])
    assert nb["cells"][_index(nb, "")]["outputs"] == []


def test_outputs_are_those_the_grader_saw(kept):
    nb = _executed(kept, "ann")

    def outputs(source):
        return nb["cells"][_index(nb, source)]["outputs"]

    printed = outputs(ANN[0])
    assert printed[0]["name"] == "stdout" and set(printed[0]["text"]) == {"y"}
    assert len(printed[0]["text"]) <= STREAM_CHARS  # a huge output is cut, with a note
    assert re.fullmatch(r"\n\[stridegrad: \d+ more characters of stdout cut\]\n",
                        printed[-1]["text"])
    n = int(re.search(r"\d+", printed[-1]["text"]).group())
    assert len(printed[0]["text"]) + n == 100_001
    shown = outputs(ANN[1])
    assert [o["output_type"] for o in shown] == ["display_data", "execute_result"]
    assert shown[0]["data"]["text/html"] == "<b>shown</b>"
    assert shown[1]["data"]["text/plain"] == "42"
    assert shown[1]["execution_count"] == _runs(kept["ann"])[_index(nb, ANN[1])]
    assert outputs(ANN[2]) == []  # a trailing ; shows nothing, as in JupyterLab
    error = outputs(ANN[5])[-1]
    assert (error["output_type"], error["ename"]) == ("error", "ZeroDivisionError")
    trace = "\n".join(error["traceback"])
    run = _runs(kept["ann"])[_index(nb, ANN[5])]
    helper = _runs(kept["ann"])[_index(nb, ANN[4])]
    # the full traceback: the failing cell's line, and the line in the other cell
    assert f"Cell In[{run}], line 3" in trace and f"Cell In[{helper}], line 2, in helper" in trace


def test_the_worker_log(kept):
    log = _log(kept, "ann")
    assert log.startswith("stridegrad grade: student ann, 01_flat_storage, run ")
    runs = _runs(kept["ann"])
    last = max(runs.values())
    for n in range(1, last + 1):
        assert f"[worker] In [{n}] started: " in log
    assert re.search(r"^\[worker\] In \[1\] ok in \d+\.\d{3} s$", log, re.MULTILINE)
    assert re.search(rf"^\[worker\] In \[{runs[_index(kept['ann'], ANN[5])]}\] failed after "
                     r"\d+\.\d{3} s \(line 3\): ZeroDivisionError", log, re.MULTILINE)
    assert "MB of memory; limits: cell 10 s, all cells 60 s, test 2 s" in log
    for t in CP.tests:  # lesson 01 is judged outside the sandbox: the judge's verdicts
        assert f"[judge] test {t.name} ({t.exercise}): " in log
    # an unreadable notebook has no executed copy, and its log says why
    assert not (kept["kept"] / "ben" / f"{STEM}.executed.ipynb").exists()
    assert "not valid JSON" in _log(kept, "ben")


def test_a_dead_notebook_keeps_the_cells_before_and_names_the_one_it_ran(kept):
    cat = kept["grades"]["cat"]
    crash = _runs(kept["cat"])[_index(kept["cat"], CRASH)]
    assert cat.status == "crashed"
    assert cat.message.startswith(f"the notebook's process died (exit code 3) (it was running "
                                  f"In [{crash}]: import os)"), cat.message
    nb = _executed(kept, "cat")
    before = nb["cells"][_index(nb, "print('before the crash')")]
    assert before["outputs"][0]["text"] == "before the crash\n"
    died = nb["cells"][_index(nb, CRASH)]
    assert died["execution_count"] is None
    assert died["outputs"][0]["text"] == \
        "[stridegrad: the notebook was stopped while this cell ran]\n"
    assert nb["cells"][_index(nb, "print('after')")]["outputs"] == []
    # the feedback says it once, at the top, with the cell
    page = (kept["out"] / "feedback" / "cat" / f"{STEM}.html").read_text()
    assert page.count(f"it was running In [{crash}]: import os") == 1


def test_feedback_names_and_quotes_the_failing_cell(kept):
    page = (kept["out"] / "feedback" / "ann" / f"{STEM}.html").read_text()
    run = _runs(kept["ann"])[_index(kept["ann"], ANN[5])]
    assert (f"<b>In [{run}]</b> <code>a = 1</code>: <code>ZeroDivisionError: division by "
            "zero</code> (line 3)") in page
    assert ("      1 a = 1\n      2 b = 2\n----&gt; 3 helper(0)\n"
            "      ... (1 more line)") in page
    # a whole-notebook problem: once, at the top, with what to do; not on the rows
    ben = (kept["out"] / "feedback" / "ben" / f"{STEM}.html").read_text()
    assert ben.count("not valid JSON") == 1 and ben.count("re-save it in JupyterLab") == 1
    assert ben.index("re-save it in JupyterLab") < ben.index("<h2")


def test_cell_quote_marks_the_line_or_shows_the_start():
    e = {"source": "\n".join(f"line{k}" for k in range(1, 11)), "line": 7}
    assert cell_quote(e) == ("      ... (3 lines above)\n      4 line4\n      5 line5\n"
                             "      6 line6\n----> 7 line7\n      ... (3 more lines)")
    assert cell_quote({**e, "line": 10}).splitlines()[-2:] == ["      9 line9",
                                                                "----> 10 line10"]
    assert cell_quote({**e, "line": None}).splitlines()[0] == "      1 line1"
    assert cell_quote({**e, "line": 99}).splitlines()[-1] == "      ... (6 more lines)"


def test_the_redefinition_is_named_on_its_exercise(kept):
    ann = kept["grades"]["ann"]
    nb = kept["ann"]
    runs = _runs(nb)
    graded_in = runs[_index(nb, WRONG_NUMEL)]
    check_all = runs[_index(nb, 'check("01")')]
    defined = runs[next(i for i, c in enumerate(nb["cells"])
                        if c["metadata"].get("nbgrader", {}).get("grade_id") == "numel")]
    numel = CP.points_for("numel")
    graded = sum(r.points for r in ann.rows if r.exercise == "numel")
    assert graded < numel
    assert ann.redefined == [{
        "exercise": "numel", "graded_in": graded_in, "check_in": check_all,
        "earlier_in": defined, "points": graded, "max_points": numel,
        "earlier_points": numel, "earlier_passed": True}]
    note = (f"graded the definition from In [{graded_in}]; check() in In [{check_all}] ran "
            f"on the earlier one from In [{defined}], which scores {numel}/{numel} (the graded "
            f"one: {graded}/{numel})")
    page = (kept["out"] / "feedback" / "ann" / f"{STEM}.html").read_text()
    section = page[page.index('<h2 id="ex-numel"'):page.index('<h2 id="ex-contiguous_strides"')]
    assert note in section and page.count(note) == 1
    rows = [r for r in _csv(kept["out"] / STEM / "grades.csv") if r["student"] == "ann"]
    assert all(note in r["message"] for r in rows if r["test"].startswith("numel"))
    assert not any("note:" in r["message"] for r in rows if not r["test"].startswith("numel"))
    # eve fixed a wrong numel after its check(): graded on the fix, nothing to say
    eve = kept["grades"]["eve"]
    assert eve.redefined == [] and eve.points == kept["grades"]["eve"].max_points


def test_per_exercise_subtotals(kept):
    ann = kept["grades"]["ann"]
    rows = {(r["student"], r["exercise"]): r for r in _csv(kept["out"] / STEM / "exercises.csv")}
    assert {s for s, _ in rows} == {"ann", "ben", "cat", "eve"}
    for ex in CP.exercises:
        mine = [r for r in ann.rows if r.exercise == ex]
        row = rows[("ann", ex)]
        assert (int(row["points"]), int(row["max_points"]), int(row["passed"]),
                int(row["tests"])) == (sum(r.points for r in mine), CP.points_for(ex),
                                       sum(r.passed for r in mine), len(mine))
    assert rows[("ann", "numel")]["note"].startswith("graded the definition from In [")
    assert rows[("ann", "index_to_offset")]["note"] == ""
    # the subtotals add up to the total (an optional stretch exercise is not in it)
    stretch = {r.exercise for r in ann.rows if getattr(r, "stretch", False)}
    assert sum(int(r["points"]) for (s, ex), r in rows.items()
               if s == "ann" and ex not in stretch) == ann.points
    for ex in stretch:
        assert rows[("ann", ex)]["note"] == "optional stretch exercise, not in the total"
    page = (kept["out"] / "feedback" / "ann" / f"{STEM}.html").read_text()
    for ex in CP.exercises:
        got = sum(r.points for r in ann.rows if r.exercise == ex)
        assert re.search(rf'<h2 id="ex-{ex}"[^>]*><code>{ex}</code> <span [^>]*>'
                         rf"{got}/{CP.points_for(ex)}</span>", page), ex


def test_pills_never_wrap(kept):
    page = (kept["out"] / "feedback" / "ann" / f"{STEM}.html").read_text()
    pills = re.findall(r'<span style="([^"]*background[^"]*)">', page)
    assert len(pills) > len(CP.tests)  # a badge per row, a subtotal per exercise
    assert all("white-space:nowrap" in style for style in pills), pills
    points = re.findall(r'<td style="([^"]*)">\d+/\d+</td>', page)
    assert points and all(style.endswith("white-space:nowrap") for style in points)


def test_progress_reports(kept):
    reports = kept["reports"]
    final = reports[-1]
    assert final.final and (final.done, final.total, final.not_graded) == (4, 4, 2)
    grades = kept["grades"].values()
    slowest = max(grades, key=lambda g: g.seconds)
    assert final.slowest == (slowest.student, slowest.seconds)
    done = [r.done for r in reports]
    assert done == sorted(done) and [r for r in reports if r.last][-1].done == 4


def test_write_kept_removes_a_stale_executed_notebook(tmp_path):
    write_kept(tmp_path, STEM, {"cells": []}, "first\n")
    assert (tmp_path / f"{STEM}.executed.ipynb").exists()
    write_kept(tmp_path, STEM, None, "not a notebook now\n")
    assert not (tmp_path / f"{STEM}.executed.ipynb").exists()
    assert (tmp_path / f"{STEM}.worker.log").read_text() == "not a notebook now\n"


def test_a_note_without_the_rerun():
    r = {"exercise": "numel", "graded_in": 9, "check_in": 7, "earlier_in": 5, "points": 1,
         "max_points": 6, "earlier_points": None, "earlier_passed": None}
    assert redefinition_note(r) == ("graded the definition from In [9]; check() in In [7] ran "
                                    "on the earlier one from In [5] (not re-run: the notebook "
                                    "used up its time)")


@pytest.mark.parametrize("keep, message", [
    ("{sub}/kept", "--keep {sub}/kept is inside the submissions folder {sub}"),
    ("{sub}/ann", "--keep {sub}/ann is inside the submissions folder"),
    ("{out}", "--keep {out} is the --out folder: give it a folder of its own"),
    ("{base}/file.txt", "--keep {base}/file.txt is a file, not a folder"),
])
def test_a_bad_keep_folder_is_refused(kept, tmp_path, capsys, keep, message):
    (kept["base"] / "file.txt").write_text("")
    names = {"sub": kept["sub"], "out": tmp_path / "o", "base": kept["base"]}
    args = ["grade", str(kept["sub"]), "--lesson", "01", "--out", str(tmp_path / "o"),
            "--keep", keep.format(**names), "--no-sandbox"]
    assert cli(args) == 2
    assert message.format(**names) in capsys.readouterr().err
    assert not (tmp_path / "o" / "gradebook.csv").exists()
    assert not (kept["sub"] / "kept").exists()


def test_a_stopped_cell_shows_where_it_was(tmp_path):
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [_cell("x = 1"), _cell("def spin():\n    while True:\n        x = 1\n"),
                    _cell("print('spinning')\nspin()"), _cell("print('next')")]}
    path = _write(tmp_path / f"{STEM}.ipynb", nb)
    out = run_notebook(path, "01", timeout=20, cell_timeout=1, test_timeout=0.5, keep=True)
    assert out["status"] == "graded"
    stopped = out["cells"][2]["outputs"]
    assert stopped[0]["text"] == "spinning\n"
    error = stopped[-1]
    assert (error["ename"], error["evalue"]) == ("TimeoutError", "the cell did not finish "
                                                 "within 1 s and was stopped")
    trace = "\n".join(error["traceback"])
    assert "Cell In[2], line 2, in spin" in trace and "Cell In[3], line 2" in trace
    assert trace.endswith("TimeoutError: the cell did not finish within 1 s and was stopped")
    assert out["cells"][3]["outputs"] == [{"output_type": "stream", "name": "stdout",
                                           "text": "next\n"}]
    assert [e["line"] for e in out["cell_errors"]] == [2]
    assert "[worker] In [3] failed after 1." in out["log"]
