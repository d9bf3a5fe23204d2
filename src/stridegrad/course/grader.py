"""The instructor's grader: a folder of submitted notebooks in, points and feedback out.

Layout (nbgrader's): ``SUBMITTED/<student>/<assignment>/<assignment>.ipynb``,
where the assignment is the lesson's stem (``01_flat_storage``).

Every notebook is untrusted. It is copied into a temporary folder (the
submission itself is only read) and run by ``python -m
stridegrad.course._worker`` in a process of its own, in its own process group,
with a wall-clock timeout and an address-space limit. Whatever a notebook
does (hang, crash, exhaust memory, fail to parse) costs its own points only,
and the batch goes on. Two integrity checks catch the obvious cheats: the
result must carry a one-time token the parent hands the worker on stdin (a
notebook that writes its own result file gets status "tampered"), and the
worker compares every function and class of stridegrad (and of a few standard
modules) with a snapshot taken before the notebook ran (a notebook that
patches ``expect`` gets "tampered" too). This is robustness, not a security
sandbox: code running in the worker can still read files, use the network or
dig the token out of memory; grade hostile submissions in a container.

Outputs: ``OUT/grades.csv`` (``student, assignment, test, points, max_points,
status, message``, one row per student per test) and
``OUT/feedback/<student>/<assignment>.html``.
"""

from __future__ import annotations

import csv
import html
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from stridegrad.course.checks import (
    Checkpoint,
    Row,
    load_checkpoint,
    load_checkpoint_file,
)
from stridegrad.course.report import rows_html

__all__ = [
    "CSV_COLUMNS",
    "NOTEBOOK_STATUSES",
    "GradeError",
    "StudentGrade",
    "grade",
    "run_notebook",
]

CSV_COLUMNS = ("student", "assignment", "test", "points", "max_points", "status", "message")

#: Statuses of a whole notebook that could not be graded (its rows all get them).
NOTEBOOK_STATUSES = {
    "no-notebook": "no notebook submitted",
    "invalid-notebook": "not a readable notebook",
    "notebook-timeout": "timed out",
    "crashed": "crashed",
    "out-of-memory": "out of memory",
    "tampered": "changed the grader",
}


class GradeError(Exception):
    """The grader itself cannot run (bad arguments, unreadable folder, bad extra tests)."""


@dataclass
class StudentGrade:
    student: str
    assignment: str
    status: str  # "graded" or one of NOTEBOOK_STATUSES
    message: str
    rows: list[Row] = field(default_factory=list)
    cell_errors: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def points(self) -> int:
        return sum(r.points for r in self.rows)

    @property
    def max_points(self) -> int:
        return sum(r.max_points for r in self.rows)


def _worker_env() -> dict:
    env = dict(os.environ)
    env.update({
        "MPLBACKEND": "Agg",  # no GUI, no inline backend: pictures are drawn and dropped
        "PYTHONDONTWRITEBYTECODE": "1",
        # BLAS thread pools reserve address space per thread: keep RLIMIT_AS honest
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    })
    env.pop("NBGRADER_EXECUTION", None)
    return env


def _kill(proc: subprocess.Popen) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def run_notebook(notebook: Path, episode: str, *, timeout: float = 120.0,
                 memory: int | None = 2048, extra_tests: Path | None = None) -> dict:
    """Run a copy of ``notebook`` and its checkpoint in a worker process.

    Returns the worker's JSON (``status == "graded"`` with a ``result``), or a
    dict with ``status`` in :data:`NOTEBOOK_STATUSES` and a ``message``.
    """
    # soft limits inside the worker leave time for the checkpoint after a stuck cell
    cell_timeout = max(1.0, timeout * 0.5)
    test_timeout = max(0.5, min(10.0, timeout / 10))
    with tempfile.TemporaryDirectory(prefix="stridegrad-grade-") as tmp:
        work = Path(tmp)
        copy = work / notebook.name
        try:
            shutil.copyfile(notebook, copy)
        except OSError as exc:
            return {"status": "invalid-notebook", "message": f"cannot read the notebook: {exc}"}
        result_path = work / "result.json"
        env = _worker_env()
        env["IPYTHONDIR"] = str(work / ".ipython")
        cmd = [sys.executable, "-m", "stridegrad.course._worker", str(copy), str(result_path),
               "--episode", episode, "--cell-timeout", f"{cell_timeout:g}",
               "--test-timeout", f"{test_timeout:g}", "--token-stdin"]
        token = secrets.token_hex(16)
        if memory:
            cmd += ["--memory", str(memory)]
        if extra_tests:
            cmd += ["--extra-tests", str(Path(extra_tests).resolve())]
        stderr_path = work / "stderr.txt"
        start = time.monotonic()
        with open(stderr_path, "wb") as stderr:
            proc = subprocess.Popen(cmd, cwd=work, env=env, stdin=subprocess.PIPE,
                                    stdout=subprocess.DEVNULL, stderr=stderr,
                                    start_new_session=hasattr(os, "killpg"))
            try:
                proc.stdin.write(f"{token}\n".encode())
                proc.stdin.close()
            except OSError:
                pass  # the worker died at once; its exit status says why
            try:
                code = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill(proc)
                return {"status": "notebook-timeout", "seconds": round(time.monotonic() - start, 3),
                        "message": f"the notebook did not finish within {timeout:g} s "
                                   "(an endless loop, or a very slow cell?)"}
        seconds = round(time.monotonic() - start, 3)
        if result_path.is_file():
            try:
                result = json.loads(result_path.read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                result = None  # a notebook that scribbled over the result: treat as a crash
            if isinstance(result, dict) and result.get("token") == token:
                return result
            if result is not None:
                return {"status": "tampered", "seconds": seconds,
                        "message": "the result file was not written by the grader "
                                   "(the notebook wrote one of its own?); no points"}
        tail = stderr_path.read_bytes()[-4000:].decode("utf-8", "replace")
        last = next((line for line in reversed(tail.strip().splitlines()) if line.strip()), "")
        if "MemoryError" in tail or code == -getattr(signal, "SIGKILL", 9):
            return {"status": "out-of-memory", "seconds": seconds,
                    "message": f"the notebook ran out of memory (limit {memory} MB)"
                               + (f": {last}" if last else "")}
        how = f"signal {-code}" if code < 0 else f"exit code {code}"
        return {"status": "crashed", "seconds": seconds,
                "message": f"the notebook's process died ({how})" + (f": {last}" if last else "")}


def _rows_for_failure(checkpoint: Checkpoint, status: str, message: str) -> list[Row]:
    return [Row(t.name, t.exercise, status, 0, t.points, hint=t.hint, message=message,
                hidden=t.hidden) for t in checkpoint.tests]


def _grade_one(student_dir: Path, assignment: str, checkpoint: Checkpoint, *, timeout, memory,
               extra_tests) -> StudentGrade:
    student = student_dir.name
    expected = student_dir / assignment / f"{assignment}.ipynb"
    if not expected.is_file():
        folder = student_dir / assignment
        found = sorted(p.name for p in folder.glob("*.ipynb")) if folder.is_dir() else []
        message = (f"no {assignment}/{assignment}.ipynb"
                   + (f" (found: {', '.join(found)})" if found else
                      "" if folder.is_dir() else f" (no folder {assignment}/)"))
        return StudentGrade(student, assignment, "no-notebook", message,
                            _rows_for_failure(checkpoint, "no-notebook", message))
    out = run_notebook(expected, checkpoint.episode, timeout=timeout, memory=memory,
                       extra_tests=extra_tests)
    if out["status"] != "graded":
        return StudentGrade(student, assignment, out["status"], out["message"],
                            _rows_for_failure(checkpoint, out["status"], out["message"]),
                            seconds=out.get("seconds", 0.0))
    rows = [Row(**r) for r in out["result"]["rows"]]
    errors = out.get("cell_errors", [])
    message = (f"{len(errors)} of {out['code_cells']} code cells raised an error"
               if errors else f"all {out['code_cells']} code cells ran")
    return StudentGrade(student, assignment, "graded", message, rows, errors,
                        seconds=out.get("seconds", 0.0))


def _csv_message(row: Row) -> str:
    if row.status == "pass":
        return ""
    if row.hidden and row.status in ("fail", "error"):
        return "hidden test failed" if row.status == "fail" else "hidden test raised an error"
    return row.message


def _feedback_html(g: StudentGrade) -> str:
    esc = html.escape
    errors = "".join(f"<li>cell {e['cell']}: <code>{esc(e['error'])}</code></li>"
                     for e in g.cell_errors)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{esc(g.assignment)}: feedback for {esc(g.student)}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:70em;margin:2em auto">
<h1>{esc(g.assignment)}</h1>
<p>Student: <b>{esc(g.student)}</b></p>
<p style="font-size:1.3em">Total: <b>{g.points} / {g.max_points}</b> points</p>
<p>Notebook: {esc(NOTEBOOK_STATUSES.get(g.status, g.status))}: {esc(g.message)}</p>
{f"<p>Cells that raised an error (skipped, as in Run All):</p><ul>{errors}</ul>" if errors else ""}
{rows_html(g.rows)}
</body></html>
"""


def _discover(submitted: Path) -> list[Path]:
    if not submitted.is_dir():
        raise GradeError(f"no folder {submitted} (expected SUBMITTED/<student>/<assignment>/"
                         "<assignment>.ipynb)")
    students = sorted(p for p in submitted.iterdir()
                      if p.is_dir() and not p.name.startswith("."))
    if not students:
        raise GradeError(f"{submitted} has no student folders")
    return students


def grade(submitted: Path, episode: str, out: Path, *, timeout: float = 120.0,
          memory: int | None = 2048, jobs: int = 1, extra_tests: Path | None = None,
          log: Callable[[str], None] = print) -> list[StudentGrade]:
    """Grade every student's notebook of one lesson; write the CSV and feedback files."""
    if timeout <= 0:
        raise GradeError(f"--timeout must be positive, got {timeout}")
    if jobs < 1:
        raise GradeError(f"--jobs must be at least 1, got {jobs}")
    if memory is not None and memory < 64:
        raise GradeError(f"--memory is in MB and must be at least 64, got {memory}")
    try:
        checkpoint = load_checkpoint(episode)
        if extra_tests:
            checkpoint = checkpoint.extend(load_checkpoint_file(extra_tests))
    except Exception as exc:
        raise GradeError(str(exc)) from None
    assignment = checkpoint.lesson
    students = _discover(Path(submitted))
    try:
        (out / "feedback").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GradeError(f"cannot write to {out}: {exc}") from None

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        grades = list(pool.map(
            lambda d: _grade_one(d, assignment, checkpoint, timeout=timeout, memory=memory,
                                 extra_tests=extra_tests), students))
    elapsed = time.monotonic() - start

    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        for g in grades:
            for r in g.rows:
                writer.writerow([g.student, g.assignment, r.test, r.points, r.max_points,
                                 r.status, _csv_message(r)])
    for g in grades:
        folder = out / "feedback" / g.student
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{g.assignment}.html").write_text(_feedback_html(g), encoding="utf-8")

    width = max(len("student"), *(len(g.student) for g in grades))
    log(f"{'student'.ljust(width)}  {'points':>9}  {'notebook':<16}  notes")
    for g in grades:
        score = f"{g.points}/{g.max_points}"
        note = g.message if g.status != "graded" or g.cell_errors else ""
        log(f"{g.student.ljust(width)}  {score:>9}  {g.status:<16}  {note}")
    log(f"graded {len(grades)} notebook{'s' if len(grades) != 1 else ''} of {assignment} in "
        f"{elapsed:.1f} s ({jobs} job{'s' if jobs != 1 else ''}); wrote {out / 'grades.csv'} "
        f"and {out / 'feedback'}/")
    return grades
