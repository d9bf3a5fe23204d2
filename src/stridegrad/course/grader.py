"""The instructor's grader: a folder of submitted notebooks in, points and feedback out.

Layout (nbgrader's): ``SUBMITTED/<student>/<assignment>/<assignment>.ipynb``,
where the assignment is the lesson's stem (``01_flat_storage``).

Every notebook is untrusted. Each runs in a sandbox of its own
(:mod:`stridegrad.course.sandbox`: unprivileged Linux namespaces, with
bubblewrap or ``unshare``) that shows it only its own copy and the Python
installation, read-only, with no network, and limits its processes, file sizes,
open files and private ``/tmp``. The notebook and the hidden tests reach the
worker (``python -m stridegrad.course._worker``) on its stdin, never as a file.
Each worker has a wall-clock timeout and an address-space limit, so whatever a
notebook does (hang, crash, exhaust memory, fail to parse, attack) costs its
own points only, and the batch goes on. Where no sandbox can start, grading
refuses unless ``sandbox=False`` (``--no-sandbox``), which the summary and
every CSV row then state.

Two integrity checks catch the cheats that remain possible inside the
sandbox: the result must carry a one-time token the parent hands the worker on
stdin (a notebook that prints a result of its own gets status "tampered"), and
the worker compares every function and class of stridegrad (and of a few
standard modules) with a snapshot taken before the notebook ran (a notebook
that patches ``expect`` gets "tampered" too). Code that digs the token or the
hidden tests out of its own process's memory is not stopped (see the README's
threat model).

Outputs (:mod:`stridegrad.course.gradebook`): ``OUT/<assignment>/grades.csv``
(:data:`CSV_COLUMNS`, a row per student per test), ``OUT/<assignment>/totals.csv``
(:data:`TOTALS_COLUMNS`, a row per student), both with the run, time and tests
hash of each result; ``OUT/gradebook.csv`` (a row per student, a column per
lesson, the total); ``OUT/feedback/<student>/<assignment>.html``. A run replaces
only the results of the students it graded, in its own lesson.

Grading semantics: every code cell runs in order, as JupyterLab's Run All
(a cell that fails or runs past its limit is skipped), ``check()`` calls in the
notebook run no tests, and then the checkpoint's tests run once, each with its
own time limit, on the *final* definitions in the notebook's globals.
"""

from __future__ import annotations

import base64
import datetime
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from stridegrad.course.checks import (
    Checkpoint,
    Row,
    load_checkpoint,
    load_checkpoint_file,
    tally,
)
from stridegrad.course.gradebook import (
    EXERCISES_COLUMNS,
    GRADES_COLUMNS,
    ROSTER,
    TOTALS_COLUMNS,
    RecordError,
    build_gradebook,
    check_records,
    merge_rows,
    read_roster,
    read_rows,
    tests_hash,
    write_rows,
)
from stridegrad.course._worker import LOG_PREFIX
from stridegrad.course.feedback import (
    cell_name,
    csv_message,
    exercise_notes,
    exercise_totals,
    feedback_html,
)
from stridegrad.course.kept import executed_notebook, write_kept
from stridegrad.course.points import apply_points, read_points
from stridegrad.course.progress import Progress
from stridegrad.course.shards import parse_shard, shard_of, shard_tag
from stridegrad.course.sandbox import (
    Limits,
    Sandbox,
    SandboxUnavailable,
    find,
    process_limit,
    sandbox_env,
    warm_files,
)

__all__ = [
    "CSV_COLUMNS",
    "TOTALS_COLUMNS",
    "NOTEBOOK_STATUSES",
    "GradeError",
    "StudentGrade",
    "cell_name",
    "find_submission",
    "grade",
    "load_tests",
    "run_notebook",
]

CSV_COLUMNS = GRADES_COLUMNS
DEFAULT_LIMITS = Limits()
#: Defaults of the time limits, in seconds (shown by ``--help``).
TIMEOUT = 120.0
TEST_TIMEOUT = 10.0
#: Time the worker gets past its cells and tests (start-up, diagnosis, the result).
_SLACK = 15.0

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
    graded_at: str = ""
    #: how the notebook was found when it is not <assignment>/<assignment>.ipynb
    picked: str = ""
    #: exercises whose last check() ran on an earlier definition than the one graded
    #: (the worker's ``redefined``; :func:`stridegrad.course.feedback.redefinition_note`)
    redefined: list[dict] = field(default_factory=list)

    @property
    def points(self) -> int:
        """The lesson's points: an optional stretch exercise's are not in the total (as
        in ``check()`` and in nbgrader, where its check cell is not a grade cell)."""
        return tally(self.rows)[0]

    @property
    def max_points(self) -> int:
        return tally(self.rows)[1]

    @property
    def stretch_points(self) -> int:
        """Points of the optional stretch exercises (extra credit, outside the total)."""
        return tally(self.rows, stretch=True)[0]

    @property
    def stretch_max(self) -> int:
        return tally(self.rows, stretch=True)[1]


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


#: The most of the worker's stdout the grader keeps (a notebook may flood it).
_RESULT_BYTES = 16 * 1024 * 1024


#: The workers running now, so that Ctrl-C can stop them all (each is in a session of
#: its own, out of reach of the terminal's SIGINT).
_LIVE: set[subprocess.Popen] = set()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


def _stop_all() -> int:
    """Kill every running worker and start no more; how many were running."""
    _STOPPING.set()
    with _LIVE_LOCK:
        running = list(_LIVE)
    for proc in running:
        _kill(proc)
    return len(running)


def _talk(proc: subprocess.Popen, message: bytes, timeout: float) -> tuple[int | None, bytes]:
    """Send ``message`` on the worker's stdin and collect its stdout, both in threads,
    while waiting at most ``timeout`` seconds; (exit code or None on timeout, stdout)."""
    chunks: list[bytes] = []

    def send():
        try:
            proc.stdin.write(message)
            proc.stdin.close()
        except OSError:
            pass  # the worker died at once; its exit status says why

    def collect():
        kept = 0
        while block := proc.stdout.read1(65536):
            if kept < _RESULT_BYTES:
                chunks.append(block)
                kept += len(block)

    threads = [threading.Thread(target=send, daemon=True),
               threading.Thread(target=collect, daemon=True)]
    for t in threads:
        t.start()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        code = None
    # a process the notebook left behind outside a sandbox may hold stdout open
    threads[1].join(timeout=5)
    return code, b"".join(chunks)


def _last_json(data: bytes):
    line = next((ln for ln in reversed(data.splitlines()) if ln.strip()), b"")
    try:
        return json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def load_tests(episode: str, extra_tests: Path | None = None, *,
               show_extra_tests: bool = False, points: Path | None = None) -> Checkpoint:
    """The checkpoint the worker will run: the lesson's, plus the extra tests (hidden
    unless ``show_extra_tests``), with the points of the ``points`` file
    (:mod:`stridegrad.course.points`); :class:`GradeError` naming what is wrong."""
    checkpoint, overrides = _load_tests(episode, extra_tests, show_extra_tests, points)
    return apply_points(checkpoint, overrides) if overrides else checkpoint


def _load_tests(episode: str, extra_tests: Path | None, show_extra_tests: bool,
                points: Path | None) -> tuple[Checkpoint, dict]:
    """The checkpoint with the extra tests, and the points file's overrides ({} if none)."""
    from stridegrad.course._worker import add_extra_tests

    try:
        checkpoint = load_checkpoint(episode)
        if extra_tests:
            checkpoint = add_extra_tests(checkpoint, load_checkpoint_file(extra_tests),
                                         show=show_extra_tests, name=str(extra_tests))
        overrides = read_points(points, checkpoint) if points else {}
    except Exception as exc:
        raise GradeError(str(exc)) from None
    return checkpoint, overrides


def run_notebook(notebook: Path, episode: str, *, timeout: float = TIMEOUT,
                 memory: int | None = 2048, extra_tests: Path | None = None,
                 cell_timeout: float | None = None, test_timeout: float = TEST_TIMEOUT,
                 show_extra_tests: bool = False, sandbox: Sandbox | None = None,
                 limits: Limits = DEFAULT_LIMITS, points: Path | None = None,
                 keep: bool = False) -> dict:
    """Run ``notebook`` and its checkpoint in a worker process, in ``sandbox`` if given.

    ``timeout`` is for the notebook's cells together (a cell after it is not run),
    ``cell_timeout`` for each cell (default half of ``timeout``), ``test_timeout``
    for each test: a function that loops costs its own tests only. The worker is
    killed when it runs past all of them together (a cell that ignores the alarm).
    The notebook and the hidden tests reach the worker on its stdin only.
    ``points``: the instructor's points file (:mod:`stridegrad.course.points`).
    Returns the worker's JSON (``status == "graded"`` with a ``result``), or a
    dict with ``status`` in :data:`NOTEBOOK_STATUSES` and a ``message``. A notebook
    that died says which cell it was running. With ``keep``, also ``cells`` (code
    cell number -> ``{"run", "seconds", "outputs"}``, the outputs of each cell that
    finished, bounded) and ``log`` (the worker's stderr, bounded), whatever happened.
    """
    if cell_timeout is None:
        cell_timeout = max(1.0, timeout * 0.5)
    checkpoint, overrides = _load_tests(episode, extra_tests, show_extra_tests, points)
    n_tests = len(apply_points(checkpoint, overrides).tests if overrides else checkpoint.tests)
    deadline = timeout + n_tests * test_timeout + _SLACK
    result = _run_worker(notebook, episode, timeout, memory, extra_tests, cell_timeout,
                         test_timeout, show_extra_tests, sandbox, limits, overrides, keep,
                         deadline, n_tests)
    return result


def _run_worker(notebook, episode, timeout, memory, extra_tests, cell_timeout, test_timeout,
                show_extra_tests, sandbox, limits, overrides, keep, deadline, n_tests) -> dict:
    try:
        raw = Path(notebook).read_bytes()
    except OSError as exc:
        return {"status": "invalid-notebook", "message": f"cannot read the notebook: {exc}",
                **({"log": f"cannot read {notebook}: {exc}\n", "cells": {}} if keep else {})}
    token = secrets.token_hex(16)
    message: dict = {"token": token, "name": Path(notebook).name,
                     "notebook": base64.b64encode(raw).decode("ascii"), "extra_tests": None,
                     "points": overrides or None, "keep": keep}
    if extra_tests:
        message["extra_tests"] = {"name": Path(extra_tests).name, "show": show_extra_tests,
                                  "source": Path(extra_tests).read_text(encoding="utf-8")}
    cmd = [sys.executable, "-m", "stridegrad.course._worker", "--episode", episode,
           "--cell-timeout", f"{cell_timeout:g}", "--cells-timeout", f"{timeout:g}",
           "--test-timeout", f"{test_timeout:g}",
           "--file-size", str(limits.file_size_mb), "--open-files", str(limits.open_files)]
    if memory:
        cmd += ["--memory", str(memory)]
    with tempfile.TemporaryDirectory(prefix="stridegrad-grade-") as tmp:
        work = Path(tmp)
        if sandbox is not None:
            message["files"] = dict(warm_files())
            cmd += ["--processes", str(process_limit(limits.processes))]
            (work / "root").mkdir()
        stderr_path = work / "stderr.txt"
        start = time.monotonic()
        with open(stderr_path, "wb") as stderr:
            pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": stderr,
                     "start_new_session": hasattr(os, "killpg")}
            try:
                if sandbox is not None:
                    proc = sandbox.popen(cmd, work / "root", limits.disk_mb, env=sandbox_env(),
                                         **pipes)
                else:
                    env = _worker_env()
                    env["IPYTHONDIR"] = str(work / ".ipython")
                    proc = subprocess.Popen(cmd, cwd=work, env=env, **pipes)
            except OSError as exc:
                return {"status": "crashed", "seconds": 0.0,
                        "message": f"the grader could not start the notebook's process: {exc}",
                        **({"log": f"{exc}\n", "cells": {}} if keep else {})}
            with _LIVE_LOCK:
                _LIVE.add(proc)
            try:
                code, out = _talk(proc, (json.dumps(message) + "\n").encode(), deadline)
            finally:
                with _LIVE_LOCK:
                    _LIVE.discard(proc)
        seconds = round(time.monotonic() - start, 3)
        result = _verdict(code, out, token, stderr_path, seconds, sandbox, memory, deadline,
                          timeout, n_tests, test_timeout)
        if keep:
            result["cells"] = _cell_outputs(out, token)
            result["log"] = _read_log(stderr_path)
            result["raw"] = raw
            if result["status"] != "graded":
                result["running"] = _last_begun(stderr_path)[0]
        return result


def _verdict(code, out, token, stderr_path, seconds, sandbox, memory, deadline, timeout,
             n_tests, test_timeout) -> dict:
    """The worker's result, or what its exit says (naming the cell it was running)."""
    if code is None:
        return {"status": "notebook-timeout", "seconds": seconds,
                "message": f"the notebook did not finish within {deadline:g} s "
                           f"({timeout:g} s for its cells, {n_tests} tests of "
                           f"{test_timeout:g} s, {_SLACK:g} s to start): a cell that "
                           "ignores the time limit?" + _running(stderr_path)}
    result = _last_json(out)
    if isinstance(result, dict) and result.get("token") == token:
        if "cell" not in result:
            return result
        result = None  # a cell's outputs (--keep), and then the worker died
    if result is not None:
        return {"status": "tampered", "seconds": seconds,
                "message": "the result was not written by the grader "
                           "(the notebook wrote one of its own?); no points"}
    tail = stderr_path.read_bytes()[-4000:].decode("utf-8", "replace")
    last = next((line for line in reversed(tail.strip().splitlines())
                 if line.strip() and not line.startswith(LOG_PREFIX)), "")
    if sandbox is not None and sandbox.launcher == "bwrap" and code > 128:
        code = 128 - code  # bwrap reports a child killed by signal N as 128 + N
    if "MemoryError" in tail or code == -getattr(signal, "SIGKILL", 9):
        return {"status": "out-of-memory", "seconds": seconds,
                "message": f"the notebook ran out of memory (limit {memory} MB)"
                           + (f": {last}" if last else "") + _running(stderr_path)}
    how = f"signal {-code}" if code < 0 else f"exit code {code}"
    return {"status": "crashed", "seconds": seconds,
            "message": f"the notebook's process died ({how})" + (f": {last}" if last else "")
                       + _running(stderr_path)}


def _running(stderr_path: Path) -> str:
    """`` (it was running In [7]: while True:)``: what the worker's log last began and did
    not finish (a cell, or the tests), or "" when the log says nothing."""
    return _last_begun(stderr_path)[1]


def _last_begun(stderr_path: Path) -> tuple[int | None, str]:
    """(the ``In [n]`` a dead worker was running or None, :func:`_running`'s text)."""
    prefix = LOG_PREFIX.encode()
    last = b""
    try:
        with open(stderr_path, "rb") as f:
            for line in f:  # a notebook may have written much: read it all, keep little
                if line.startswith(prefix):
                    last = line
    except OSError:
        return None, ""
    text = last[len(prefix):].decode("utf-8", "replace").strip()
    m = re.match(r"In \[(\d+)\] started: (.*)", text)
    if m:
        return int(m.group(1)), f" (it was running In [{m.group(1)}]: {m.group(2)})"
    if text.startswith(("tests:", "test ")):
        return None, " (it was running the tests)"
    return None, ""


#: The most of a worker's log that ``--keep`` keeps: its head and its tail.
_LOG_BYTES = 256 * 1024


def _read_log(stderr_path: Path) -> str:
    try:
        size = stderr_path.stat().st_size
        with open(stderr_path, "rb") as f:
            if size <= 2 * _LOG_BYTES:
                data = f.read()
            else:
                head = f.read(_LOG_BYTES)
                f.seek(size - _LOG_BYTES)
                data = (head + f"\n[stridegrad: {size - 2 * _LOG_BYTES} bytes of the log cut "
                        "here]\n".encode() + f.read())
    except OSError as exc:
        return f"[stridegrad: cannot read the worker's log: {exc}]\n"
    return data.decode("utf-8", "replace")


def _cell_outputs(out: bytes, token: str) -> dict[int, dict]:
    """The outputs of each cell that finished, from the worker's lines (``keep``)."""
    cells = {}
    for line in out.splitlines():
        if not line.startswith(b"{"):
            continue
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(item, dict) and item.get("token") == token and \
                isinstance(item.get("cell"), int) and isinstance(item.get("outputs"), list):
            cells[item["cell"]] = {"run": item.get("run"), "seconds": item.get("seconds"),
                                   "outputs": item["outputs"]}
    return cells


def _rows_for_failure(checkpoint: Checkpoint, status: str, message: str) -> list[Row]:
    return [Row(t.name, t.exercise, status, 0, t.points, hint=t.hint, message=message,
                hidden=t.hidden, stretch=t.stretch) for t in checkpoint.tests]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _grade_one(student_dir: Path, assignment: str, checkpoint: Checkpoint,
               keep_dir: Path | None = None, run_id: str = "", **run) -> StudentGrade | None:
    if _STOPPING.is_set():
        return None
    g, out, path = _grade_notebook(student_dir, assignment, checkpoint, keep=bool(keep_dir),
                                   **run)
    g.graded_at = _now()
    if keep_dir is not None:
        _keep(keep_dir / g.student, g, out, path, run_id)
    return g


def _keep(folder: Path, g: StudentGrade, out: dict | None, path: Path | None,
          run_id: str) -> None:
    """Write the student's executed notebook and worker log (``--keep``)."""
    head = [f"stridegrad grade: student {g.student}, {g.assignment}, run {run_id}, "
            f"graded {g.graded_at}",
            f"notebook: {path if path is not None else 'none'}",
            f"result: {g.status}, {g.points}/{g.max_points} points in {g.seconds:.1f} s: "
            f"{g.message}",
            "worker log (lines of the worker start with "
            f"{LOG_PREFIX.strip()!r}; the others are the notebook's stderr):", ""]
    notebook = None
    if out is not None and "raw" in out:
        meta = {"student": g.student, "assignment": g.assignment, "status": g.status,
                "points": g.points, "max_points": g.max_points, "graded_at": g.graded_at,
                "run_id": run_id}
        running = out.get("running")
        cell = next((n for n, c in _runs(out["raw"]).items() if c == running), None) \
            if running else None
        notebook = executed_notebook(out["raw"], out["cells"], g.cell_errors, meta, cell)
    try:
        write_kept(folder, g.assignment, notebook,
                   "\n".join(head) + (out.get("log", "") if out else "no worker ran\n"))
    except OSError as exc:
        g.message += f"; --keep could not write {folder}: {exc}"


def _runs(raw: bytes) -> dict[int, int]:
    """Code cell number -> its ``In [n]`` (empty cells are not run)."""
    from stridegrad.course._worker import NotebookError, parse_code_cells

    try:
        cells = parse_code_cells(raw, "notebook")
    except NotebookError:
        return {}
    runs, n = {}, 0
    for number, source in enumerate(cells):
        if source.strip():
            n += 1
            runs[number] = n
    return runs


def _notebooks(student_dir: Path) -> list[Path]:
    """Every notebook in a student's folder, at any depth (not Jupyter's checkpoints)."""
    return sorted(p for p in student_dir.rglob("*.ipynb") if p.is_file() and not any(
        part.startswith(".") for part in p.relative_to(student_dir).parts))


def _match_score(path: Path, assignment: str, checkpoint: Checkpoint) -> tuple[int, int]:
    """(exercises the notebook defines with ``def``/``class``, how well its name fits)."""
    from stridegrad.course._worker import NotebookError, read_code_cells

    try:
        code = "\n".join(read_code_cells(path))
    except NotebookError:
        code = ""
    defined = sum(bool(re.search(rf"^\s*(def|class)\s+{re.escape(ex)}\b", code, re.MULTILINE))
                  for ex in checkpoint.exercises)
    name = 3 if path.name == f"{assignment}.ipynb" else 2 if path.stem.startswith(
        assignment) else 1 if path.stem.startswith(checkpoint.episode) else 0
    return defined, name


def find_submission(student_dir: Path, assignment: str,
                    checkpoint: Checkpoint) -> tuple[Path | None, str]:
    """The notebook to grade in a student's folder and why it was picked, or None and why
    none was: ``<assignment>/<assignment>.ipynb``; else the only notebook in the folder
    (any name, any depth); else the one that defines the most of the lesson's exercises
    (then the one whose name fits the lesson best); a tie picks none."""
    expected = student_dir / assignment / f"{assignment}.ipynb"
    if expected.is_file():
        return expected, ""
    # a notebook in a folder, or with a name, of another lesson (02_...) is that lesson's
    found = [p for p in _notebooks(student_dir) if not any(
        (m := re.match(r"(\d\d)_", part)) and m.group(1) != checkpoint.episode
        for part in p.relative_to(student_dir).parts)]
    if not found:
        others = sorted(str(p.relative_to(student_dir)) for p in student_dir.rglob("*")
                        if p.is_file())
        return None, (f"no notebook of {assignment} in {student_dir.name}/"
                      + (f" (found: {', '.join(others[:5])})" if others else " (empty)"))
    rel = {p: str(p.relative_to(student_dir)) for p in found}
    if len(found) == 1:
        return found[0], f"graded {rel[found[0]]} (the only notebook)"
    scores = {p: _match_score(p, assignment, checkpoint) for p in found}
    ranked = sorted(found, key=lambda p: scores[p], reverse=True)
    best = ranked[0]
    if scores[ranked[1]] == scores[best]:
        tied = [rel[p] for p in ranked if scores[p] == scores[best]]
        return None, (f"{len(tied)} notebooks fit {assignment} equally ({', '.join(tied)}): "
                      f"keep one, or name it {assignment}/{assignment}.ipynb")
    return best, (f"graded {rel[best]} (of {len(found)} notebooks: it defines "
                  f"{scores[best][0]} of the {len(checkpoint.exercises)} exercises)")


def _grade_notebook(student_dir: Path, assignment: str, checkpoint: Checkpoint,
                    **run) -> tuple[StudentGrade, dict | None, Path | None]:
    """(the grade, the worker's result or None, the notebook graded or None)."""
    student = student_dir.name
    path, picked = find_submission(student_dir, assignment, checkpoint)
    if path is None:
        return StudentGrade(student, assignment, "no-notebook", picked,
                            _rows_for_failure(checkpoint, "no-notebook", picked)), None, None
    out = run_notebook(path, checkpoint.episode, **run)
    if out["status"] != "graded":
        message = out["message"] + (f"; {picked}" if picked else "")
        return StudentGrade(student, assignment, out["status"], message,
                            _rows_for_failure(checkpoint, out["status"], out["message"]),
                            seconds=out.get("seconds", 0.0)), out, path
    rows = [Row(**r) for r in out["result"]["rows"]]
    errors = out.get("cell_errors", [])
    message = (f"{len(errors)} of {out['code_cells']} code cells raised an error"
               if errors else f"all {out['code_cells']} code cells ran")
    return StudentGrade(student, assignment, "graded",
                        message + (f"; {picked}" if picked else ""), rows, errors,
                        seconds=out.get("seconds", 0.0), picked=picked,
                        redefined=out.get("redefined", [])), out, path


def _feedback_html(g: StudentGrade, run_id: str, digest: str) -> str:
    return feedback_html(g, run_id, digest, NOTEBOOK_STATUSES)


def _discover(submitted: Path, checkpoint: Checkpoint) -> list[Path]:
    assignment = checkpoint.lesson
    layout = (f"{submitted}/<student>/{assignment}/{assignment}.ipynb, or any one "
              "notebook per student folder")
    if not submitted.is_dir():
        raise GradeError(f"no folder {submitted} (expected {layout})")
    students = sorted(p for p in submitted.iterdir()
                      if p.is_dir() and not p.name.startswith("."))
    if not students:
        raise GradeError(f"{submitted} has no student folders (expected {layout})")
    if any(s.name == assignment for s in students):
        raise GradeError(f"{submitted} holds a folder {assignment}/: it looks like one "
                         "student's folder; give the folder that holds the student folders "
                         f"({submitted.resolve().parent}?), or --student NAME to grade one")
    found = [p for s in students for p in _notebooks(s)]
    if not found:
        raise GradeError(
            f"none of the {len(students)} student folders in {submitted} holds a notebook "
            f"(expected {layout}): wrong folder?")
    if not any((s / assignment / f"{assignment}.ipynb").is_file() for s in students) and \
            not any(any(_match_score(p, assignment, checkpoint)) for p in found):
        names = sorted(str(p.relative_to(submitted)) for p in found)
        raise GradeError(
            f"no notebook in {submitted} looks like {assignment} (none is named after it or "
            f"defines one of its exercises {', '.join(checkpoint.exercises)}; found "
            f"{', '.join(names[:5])}{', ...' if len(names) > 5 else ''}): wrong --lesson?")
    return students


def _sandbox_for(sandbox: bool | str | Sandbox) -> Sandbox | None:
    if sandbox is False:
        return None
    if isinstance(sandbox, Sandbox):
        return sandbox
    try:
        return find(None if sandbox is True else sandbox)
    except (SandboxUnavailable, ValueError) as exc:
        raise GradeError(f"the sandbox cannot start here: {exc}. Grade on a Linux machine "
                         "that allows unprivileged user namespaces (`stridegrad doctor` says "
                         "whether this one does), or pass --no-sandbox to run every notebook "
                         "with your own rights (only for code you trust)") from None


def _out_inside(out: Path, submitted: Path) -> bool:
    out, submitted = out.resolve(), submitted.resolve()
    return out == submitted or submitted in out.parents


def _select(students: list[Path], names: list[str] | None, submitted: Path) -> list[Path]:
    if not names:
        return students
    by_name = {s.name: s for s in students}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        shown = ", ".join(sorted(by_name)[:10]) + (", ..." if len(by_name) > 10 else "")
        raise GradeError(f"--student {', '.join(unknown)}: no such student folder in "
                         f"{submitted} (its students: {shown})")
    return [by_name[n] for n in dict.fromkeys(names)]


def _write_results(out: Path, assignment: str, grades: list[StudentGrade], *, mode: str,
                   run_id: str, digest: str) -> list[dict]:
    """Merge this run's results into ``OUT/<assignment>/``; the lesson's totals rows."""
    folder = out / assignment
    run = {"sandbox": mode, "run_id": run_id, "tests_hash": digest}
    graded = {g.student for g in grades}
    notes = {g.student: exercise_notes(g.redefined) for g in grades}
    tests = [{"student": g.student, "assignment": g.assignment, "test": r.test,
              "points": r.points, "max_points": r.max_points, "status": r.status,
              "message": csv_message(r, notes[g.student]), "graded_at": g.graded_at, **run}
             for g in grades for r in g.rows]
    exercises = [{"student": g.student, "assignment": g.assignment, "graded_at": g.graded_at,
                  **{k: v for k, v in t.items() if k != "stretch"}, **run,
                  "note": "; ".join(filter(None, (
                      "optional stretch exercise, not in the total" if t["stretch"] else "",
                      t["note"])))}
                 for g in grades for t in exercise_totals(g.rows, notes[g.student])]
    totals = [{"student": g.student, "assignment": g.assignment, "points": g.points,
               "max_points": g.max_points, "stretch_points": g.stretch_points,
               "stretch_max": g.stretch_max, "status": g.status, "graded_at": g.graded_at,
               **run} for g in grades]
    try:
        old_tests = read_rows(folder / "grades.csv", GRADES_COLUMNS)
        old_totals = read_rows(folder / "totals.csv", TOTALS_COLUMNS)
        old_exercises = read_rows(folder / "exercises.csv", EXERCISES_COLUMNS)
    except RecordError as exc:
        raise GradeError(str(exc)) from None
    write_rows(folder / "grades.csv", GRADES_COLUMNS, merge_rows(old_tests, tests, graded))
    write_rows(folder / "exercises.csv", EXERCISES_COLUMNS,
               merge_rows(old_exercises, exercises, graded))
    merged = merge_rows(old_totals, totals, graded)
    write_rows(folder / "totals.csv", TOTALS_COLUMNS, merged)
    return merged


def grade(submitted: Path, episode: str, out: Path, *, timeout: float = TIMEOUT,
          memory: int | None = 2048, jobs: int = 1, extra_tests: Path | None = None,
          cell_timeout: float | None = None, test_timeout: float = TEST_TIMEOUT,
          show_extra_tests: bool = False, students: list[str] | None = None,
          roster: Path | None = None, sandbox: bool | str | Sandbox = True,
          limits: Limits = DEFAULT_LIMITS, log: Callable[[str], None] = print,
          progress: Callable[[Progress], None] | None = None,
          shard: tuple[int, int] | None = None, keep: Path | None = None,
          points: Path | None = None) -> list[StudentGrade]:
    """Grade the students' notebooks of one lesson; merge the results into ``out``.

    ``students``: grade only these (folder names); the others' results stay.
    ``shard``: ``(i, n)`` grades only the students of shard ``i`` of ``n`` (1-based;
    :func:`stridegrad.course.shards.shard_of`), for one machine of several; their
    run id ends in ``-shardIofN``; ``stridegrad grade merge`` joins the folders.
    ``roster``: a file of student names, one a line, kept as ``OUT/roster.txt``:
    the gradebook lists them all, with 0 and "no submission" where they have no result.
    ``sandbox``: True (the default) runs each notebook in the first sandbox that
    works here and refuses to grade if none does; ``"bwrap"`` or ``"unshare"``
    picks one (or a :class:`~stridegrad.course.sandbox.Sandbox`, as is); False runs the
    notebooks with the caller's rights, and says so.
    ``progress``: called with a :class:`~stridegrad.course.progress.Progress` as each
    notebook finishes, about once a second while it waits, and once at the end
    (``final``). Ctrl-C (KeyboardInterrupt, also from ``progress``) stops every
    worker, writes the results finished so far, and raises again.
    ``keep``: a folder for each student's executed notebook and worker log
    (:mod:`stridegrad.course.kept`), outside ``submitted``.
    ``points``: the instructor's points file (:mod:`stridegrad.course.points`); its
    overrides are part of the tests hash.
    """
    submitted, out = Path(submitted), Path(out)
    for flag, value in (("--timeout", timeout), ("--cell-timeout", cell_timeout),
                        ("--test-timeout", test_timeout)):
        if value is not None and value <= 0:
            raise GradeError(f"{flag} must be positive, got {value}")
    if jobs < 1:
        raise GradeError(f"--jobs must be at least 1, got {jobs}")
    if shard is not None:
        if students:
            raise GradeError(f"--shard {shard[0]}/{shard[1]} and --student "
                             f"{', '.join(students)}: give one (a shard grades the students "
                             "the shard rule gives it)")
        try:
            shard = parse_shard(f"{shard[0]}/{shard[1]}")
        except ValueError as exc:
            raise GradeError(f"--shard {exc}") from None
    if memory is not None and memory < 64:
        raise GradeError(f"--memory is in MB and must be at least 64, got {memory}")
    if _out_inside(out, submitted):
        raise GradeError(f"--out {out} is inside the submissions folder {submitted}: the "
                         "grader's files would be graded as a student's; put --out elsewhere "
                         f"(e.g. {submitted.resolve().parent / 'graded'})")
    if keep is not None:
        keep = Path(keep)
        if _out_inside(keep, submitted):
            raise GradeError(f"--keep {keep} is inside the submissions folder {submitted}: "
                             "it would be graded as a student's; put it elsewhere (e.g. "
                             f"{out / 'kept'})")
        if keep.resolve() == out.resolve():
            raise GradeError(f"--keep {keep} is the --out folder: give it a folder of its "
                             f"own (e.g. {out / 'kept'})")
        if keep.exists() and not keep.is_dir():
            raise GradeError(f"--keep {keep} is a file, not a folder")
    base, overrides = _load_tests(episode, extra_tests, show_extra_tests, points)
    checkpoint = apply_points(base, overrides) if overrides else base
    try:
        names = read_roster(roster) if roster else None
        check_records(out)
    except RecordError as exc:
        raise GradeError(str(exc)) from None
    assignment = checkpoint.lesson
    folders = _select(_discover(submitted, checkpoint), students, submitted)
    if shard is not None:
        mine = [f for f in folders if shard_of(f.name, shard[1]) == shard[0]]
        log(f"shard {shard[0]}/{shard[1]}: {len(mine)} of the {len(folders)} student folders")
        folders = mine
    box = _sandbox_for(sandbox)
    mode = box.launcher if box else "off"
    try:
        (out / "feedback").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GradeError(f"cannot write to {out}: {exc}") from None
    if keep is not None:
        try:
            keep.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GradeError(f"cannot write to --keep {keep}: {exc}") from None
    digest = tests_hash(checkpoint.episode,
                        Path(extra_tests).read_bytes() if extra_tests else None, overrides)
    run_id = (datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
              + "-" + secrets.token_hex(2) + (shard_tag(shard) if shard else ""))

    start = time.monotonic()
    run = {"timeout": timeout, "memory": memory, "extra_tests": extra_tests,
           "cell_timeout": cell_timeout, "test_timeout": test_timeout,
           "show_extra_tests": show_extra_tests, "sandbox": box, "limits": limits,
           "points": points, "keep_dir": keep, "run_id": run_id}
    grades, interrupted = _grade_all(folders, assignment, checkpoint, jobs, run, progress)
    elapsed = time.monotonic() - start
    if progress is not None:
        try:
            progress(_progress(grades, len(folders), elapsed, final=True))
        except KeyboardInterrupt:  # a second Ctrl-C: still write what finished
            interrupted = interrupted or 0
    if interrupted is not None:
        log(f"interrupted: stopped {interrupted} running notebook"
            f"{'s' if interrupted != 1 else ''}; writing the {len(grades)} of {len(folders)} "
            "finished")

    totals = _write_results(out, assignment, grades, mode=mode, run_id=run_id, digest=digest)
    if names is not None:
        (out / ROSTER).write_text("".join(f"{n}\n" for n in names), encoding="utf-8")
    try:
        book_path, book = build_gradebook(out)
    except RecordError as exc:
        raise GradeError(str(exc)) from None
    for g in grades:
        folder = out / "feedback" / g.student
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{g.assignment}.html").write_text(_feedback_html(g, run_id, digest),
                                                     encoding="utf-8")

    unsafe = "" if box else "  [no sandbox]"
    # max() of a list: an empty shard (or a Ctrl-C before the first notebook finished)
    # has no grades, and its table is the header alone
    width = max([len("student"), *(len(g.student) for g in grades)])
    log(f"{'student'.ljust(width)}  {'points':>9}  {'notebook':<16}  notes")
    for g in grades:
        score = f"{g.points}/{g.max_points}"
        note = g.message if g.status != "graded" or g.cell_errors or g.picked else ""
        log(f"{g.student.ljust(width)}  {score:>9}  {g.status:<16}  {note}{unsafe}".rstrip())
    stale = sorted(r["student"] for r in totals if r["tests_hash"] != digest)
    if stale:
        log(f"warning: {len(stale)} student{'s' if len(stale) != 1 else ''} of {assignment} "
            f"were graded with other tests than this run's ({digest}): "
            f"{', '.join(stale[:10])}{', ...' if len(stale) > 10 else ''}; "
            "the gradebook notes them (grade without --student to regrade all)")
    absent = [row["student"] for row in book if "no submission" in row["notes"]]
    if absent:
        log(f"no submission: {', '.join(absent[:10])}{', ...' if len(absent) > 10 else ''}")
    log(f"sandbox: {box.launcher} (namespaces: user, mount, pid, net, ipc; "
        f"{limits.processes} processes, {limits.disk_mb} MB of /tmp)" if box else
        "sandbox: OFF (--no-sandbox): every notebook ran with your rights")
    kept = len(totals) - len(grades)
    if not grades:
        if interrupted is not None:
            raise KeyboardInterrupt
        return grades
    log(f"graded {len(grades)} notebook{'s' if len(grades) != 1 else ''} of {assignment} in "
        f"{elapsed:.1f} s ({jobs} job{'s' if jobs != 1 else ''}, run {run_id}"
        + (f"; kept {kept} earlier result{'s' if kept != 1 else ''}" if kept else "")
        + f"); wrote {out / assignment}/grades.csv, exercises.csv and totals.csv, {book_path} "
        f"({len(book)} students) and {out / 'feedback'}/"
        + (f"; kept executed notebooks and logs in {keep}/" if keep is not None else ""))
    if interrupted is not None:
        raise KeyboardInterrupt
    return grades


def _progress(done: list[StudentGrade], total: int, elapsed: float, last: str = "",
              final: bool = False) -> Progress:
    slowest = max(done, key=lambda g: g.seconds, default=None)
    return Progress(len(done), total, sum(g.status != "graded" for g in done), elapsed,
                    (slowest.student, slowest.seconds) if slowest else None, last, final)


#: How often ``progress`` hears from a batch while no notebook finishes (seconds).
_TICK = 1.0


def _grade_all(folders: list[Path], assignment: str, checkpoint: Checkpoint, jobs: int,
               run: dict, progress: Callable[[Progress], None] | None
               ) -> tuple[list[StudentGrade], int | None]:
    """Grade ``folders`` ``jobs`` at a time; (the grades in folder order, None or on
    Ctrl-C the number of workers it stopped)."""
    _STOPPING.clear()
    done: dict[str, StudentGrade] = {}
    start = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=jobs)
    futures = [pool.submit(_grade_one, d, assignment, checkpoint, **run) for d in folders]
    interrupted = None
    try:
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=_TICK, return_when=FIRST_COMPLETED)
            for future in finished:
                g = future.result()
                if g is None:
                    continue
                done[g.student] = g
                if progress is not None:
                    progress(_progress(list(done.values()), len(folders),
                                       time.monotonic() - start,
                                       f"{g.student} {g.points}/{g.max_points} {g.status}"))
            if not finished and progress is not None:
                progress(_progress(list(done.values()), len(folders), time.monotonic() - start))
    except KeyboardInterrupt:
        for future in futures:
            future.cancel()
        interrupted = _stop_all()  # a notebook killed now never reaches ``done``
    finally:
        pool.shutdown(wait=True)
        _STOPPING.clear()
    return [done[d.name] for d in folders if d.name in done], interrupted
