"""A regrade keeps the lesson's tests, ``--keep`` without ``--out`` leaves the gradebook
alone, and the summary counts the lesson graded only. One small class, graded twice."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.course.gradebook import TOTALS_COLUMNS, write_rows

from .test_grader import MODE, STEM, _solution

STEM0 = "00_welcome"
EXTRA = (
    "from stridegrad.course import Checkpoint, expect\n"
    "checkpoint = Checkpoint('01_flat_storage')\n"
    "@checkpoint.test('numel', points=2)\n"
    "def numel_of_an_odd_shape(numel):\n"
    "    expect(numel, (7, 11, 13), returns=1001)\n")
#: generous limits: what an honest notebook never needs, even on a loaded machine
LIMITS = ["--timeout", "300", "--cell-timeout", "120", "--test-timeout", "30",
          *([] if MODE else ["--no-sandbox"])]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    base = tmp_path_factory.mktemp("regrade")
    sub, out = base / "submitted", base / "graded"
    nb = sub / "alice" / STEM / f"{STEM}.ipynb"
    nb.parent.mkdir(parents=True)
    nb.write_text(json.dumps(_solution()))
    (sub / "bob").mkdir()  # bob submitted nothing for lesson 01
    (base / "hidden.py").write_text(EXTRA)
    (base / "roster.txt").write_text("alice\nbob\n")
    # lesson 00 was graded before: bob only, so alice has a lesson-00 gap
    write_rows(out / STEM0 / "totals.csv", TOTALS_COLUMNS, [{
        "student": "bob", "assignment": STEM0, "points": 5, "max_points": 5,
        "stretch_points": 0, "stretch_max": 0, "status": "graded", "sandbox": "off",
        "run_id": "r0", "graded_at": "2026-10-01T00:00:00+00:00", "tests_hash": "0" * 16}])
    return {"base": base, "sub": sub, "out": out}


@pytest.fixture(scope="module")
def first(klass):
    """The first run: the whole class with hidden tests; (exit code, its stdout)."""
    import contextlib
    import io

    args = ["grade", str(klass["sub"]), "--lesson", "01", "--out", str(klass["out"]),
            "--roster", str(klass["base"] / "roster.txt"),
            "--extra-tests", str(klass["base"] / "hidden.py"), *LIMITS]
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        code = cli(args)
    return code, captured.getvalue()


def test_the_summary_counts_the_lesson_graded_only(first):
    code, out = first
    assert code == 0, out
    # bob's folder has no lesson-01 notebook: one notebook was graded, not two
    assert f"graded 1 notebook of {STEM} (1 of the 2 student folders have none) in " in out, out
    # alice's gap is in lesson 00, not in the lesson graded: she is not listed
    assert re.search(r"^no submission: bob$", out, re.MULTILINE), out


def test_a_regrade_without_the_lesson_tests_is_refused(klass, first, capsys):
    before = _snapshot(klass["out"])
    code = cli(["grade", str(klass["sub"]), "--lesson", "01", "--out", str(klass["out"]),
                "--student", "alice", *LIMITS])
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("stridegrad grade: error: "), err
    assert len(set(re.findall(r"tests ([0-9a-f]{16})", err))) == 2, err
    assert "--replace-tests" in err and "hidden.py" in err
    assert _snapshot(klass["out"]) == before


def test_keep_without_out_grades_into_a_scratch_gradebook(klass, first, capsys):
    before = _snapshot(klass["out"])
    keep = klass["base"] / "debug"
    # other tests than the gradebook's (none): a scratch gradebook takes them
    code = cli(["grade", str(klass["sub"]), "--lesson", "01", "--student", "alice",
                "--keep", str(keep), *LIMITS])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert f"scratch gradebook {keep / 'scratch-gradebook'}/" in captured.err
    assert _snapshot(klass["out"]) == before  # the real gradebook is untouched
    assert (keep / "alice" / f"{STEM}.executed.ipynb").is_file()
    assert (keep / "scratch-gradebook" / "gradebook.csv").is_file()
    assert (keep / "scratch-gradebook" / STEM / "tests.json").is_file()


def test_grade_needs_out_or_keep(klass, capsys):
    assert cli(["grade", str(klass["sub"]), "--lesson", "01"]) == 2
    assert "give --out DIR (the gradebook folder), or --keep DIR" in capsys.readouterr().err


def test_the_readmes_extra_tests_example_loads_and_passes_on_the_solution(tmp_path):
    """The README's complete --extra-tests file is a file the grader takes, and its tests
    pass on the lesson's solution (and fail on a wrong numel)."""
    import stridegrad.array.layout as layout
    from stridegrad.course._worker import add_extra_tests
    from stridegrad.course.checks import load_checkpoint, load_checkpoint_file, run_checkpoint

    from .conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    source = re.search(r"```python\n(# hidden\.py.*?)```", readme, re.S).group(1)
    (tmp_path / "hidden.py").write_text(source)
    extra = load_checkpoint_file(tmp_path / "hidden.py")
    checkpoint = add_extra_tests(load_checkpoint("01"), extra)
    names = [t.name for t in extra.tests]
    assert len(names) == 3
    solution = {ex: getattr(layout, ex) for ex in checkpoint.exercises if hasattr(layout, ex)}
    rows = {r.test: r for r in run_checkpoint(checkpoint, solution, require_local=False).rows}
    assert all(rows[n].passed and rows[n].hidden for n in names), [rows[n] for n in names]
    wrong = {**solution, "numel": lambda shape: 0}
    rows = {r.test: r for r in run_checkpoint(checkpoint, wrong, require_local=False).rows}
    assert not rows[names[0]].passed
