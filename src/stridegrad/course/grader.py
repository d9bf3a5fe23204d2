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

The judge (:mod:`stridegrad.course._judge`): a second process of the grader's, outside
the sandbox, runs the lesson's tests. The worker runs the notebook's cells, then only
answers calls with plain data (:mod:`stridegrad.course._wire`); tests that need the
notebook's live objects (graphs of thousands of nodes, its garbage collector, Tensors)
ask it to run public observation code (:mod:`stridegrad.course.observe`) that returns
plain data. The tests, expected values, hidden tests, points and token never enter the
sandbox, whose Python shows the course's checkpoints, solutions and misconceptions
empty. ``STRIDEGRAD_JUDGE=inside`` runs the tests in the worker instead, to compare:
there two integrity checks catch only the naive cheats (a one-time token the parent
hands the worker on stdin, and a snapshot of stridegrad's functions taken before the
notebook ran); code that digs the token out of that process's memory is not stopped
(see the README's threat model).

What comes back from the worker is data, read within limits
(:mod:`stridegrad.course._limits`) and checked against the trusted checkpoint: a
result line nested too deep or too big, with a field of the wrong type, a test or
exercise the checkpoint does not have, a status no test can have, or points other
than the checkpoint's, is no result of the worker's ("tampered", no points). Points,
maximum points and which tests are hidden come from the checkpoint (with the
``--points`` file), never from the worker; texts are capped and made safe to write.
Any exception while grading one student becomes that student's row ("grader-error",
with the reason), never the run's.

Intake (:mod:`stridegrad.course.intake`): the grader takes real folders and regular
files with one name, of at most :data:`~stridegrad.course.intake.MAX_NOTEBOOK_MB`
MB, walks a student's folder without recursion and at most
:data:`~stridegrad.course.intake.MAX_DEPTH` levels deep, never follows a link, and
opens each file without following one. A student folder that is a link, or a
notebook that is a link, a hard link or too big, gets status "refused" with the
reason. A notebook is parsed on the host within
:data:`~stridegrad.course.intake.NOTEBOOK_JSON`'s limits before any worker starts.

Outputs (:mod:`stridegrad.course.gradebook`): ``OUT/<assignment>/grades.csv``
(:data:`CSV_COLUMNS`, a row per student per test), ``OUT/<assignment>/totals.csv``
(:data:`TOTALS_COLUMNS`, a row per student), both with the run, time and tests
hash of each result; ``OUT/gradebook.csv`` (a row per student, a column per
lesson, the total); ``OUT/feedback/<student>/<assignment>.html``. A run replaces
only the results of the students it graded, in its own lesson.

``--yours`` (``grade(yours=True)``): after the tests, the lesson's milestone
(:mod:`stridegrad.course.milestones`) runs in the student's sandbox, in the same worker,
on the notebook's own final definitions of the lesson's exercises that passed every one
of their tests in this grade (the judge knows the verdicts and asks the worker for it:
:func:`stridegrad.course._judge.run_milestone_step`), the reference everywhere else,
within a limit of its own (``milestone_timeout``; a hang or a crash is the column's
"stopped: ...", and grading goes on). The answer is plain data; the goal, whether it is
met and why an exercise ran the reference's are the grader's own
(:func:`milestone_summary`). It goes into ``OUT/<assignment>/milestone.csv``, a column of
``gradebook.csv`` and the feedback page, never into the points: it is computed where the
notebook's code runs, so a notebook could forge it.

Grading semantics: every code cell runs in order, as JupyterLab's Run All
(a cell that fails or runs past its limit is skipped), ``check()`` calls in the
notebook run no tests, and then the checkpoint's tests run once, each with its
own time limit, on the *final* definitions in the notebook's globals.
"""

from __future__ import annotations

import base64
import datetime
import json
import math
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
    STATUSES,
    Checkpoint,
    CheckResult,
    Row,
    load_checkpoint,
    load_checkpoint_file,
    tally,
)
from stridegrad.course.gradebook import (
    EXERCISES_COLUMNS,
    GRADES_COLUMNS,
    MILESTONE_COLUMNS,
    MILESTONE_FILE,
    ROSTER,
    TOTALS_COLUMNS,
    RecordError,
    build_gradebook,
    carry_collected,
    check_records,
    claim_tests,
    merge_rows,
    read_roster,
    read_rows,
    tests_hash,
    write_rows,
)
from stridegrad.course._sinks import terminal_line, terminal_log
from stridegrad.course._worker import LOG_PREFIX
from stridegrad.course.feedback import (
    cell_name,
    csv_message,
    exercise_notes,
    exercise_totals,
    feedback_html,
)
from stridegrad.course.kept import executed_notebook, write_kept
from stridegrad.course import intake
from stridegrad.course._limits import JSONLimits, UntrustedJSONError, clean_text, loads, printable
from stridegrad.course.points import apply_points, read_points
from stridegrad.course.progress import Progress
from stridegrad.course.shards import parse_shard, shard_of, shard_tag
from stridegrad.course.sandbox import (
    Limits,
    Sandbox,
    SandboxUnavailable,
    find,
    hidden_course_paths,
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
#: Seconds the lesson's milestone may take in the notebook's process (``--yours``).
MILESTONE_TIMEOUT = 60.0
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
    # intake: a student folder or notebook that is a link, hard-linked or too big
    "refused": "not taken by the grader",
    # the grader failed on this notebook (a bug of the grader's): the reason is kept
    "grader-error": "grader error",
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
    #: ``--yours``: the lesson's milestone on the student's own functions, in a few words
    #: ("97.2% (goal 95%)", "short: ...", "stopped: ...", "not run: ..."); "" without
    #: --yours. Advisory, never points: it is computed in the student's sandbox, where
    #: the notebook's code could forge it (:func:`milestone_summary`).
    milestone: str = ""
    #: ``--yours``: the milestone's report for the feedback page (whose functions it ran)
    milestone_report: str = ""
    #: ``--yours``: the exercises whose function the milestone called, the student's own
    #: and the reference's
    milestone_yours: list[str] = field(default_factory=list)
    milestone_reference: list[str] = field(default_factory=list)

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
    return sum(not getattr(proc, "judge", False) for proc in running)  # the notebooks


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


#: The worker's last line, its result: nested 3 deep (the result, its rows, a row) and
#: some 10 KB to 1 MB long (a row per test, an error per failing cell); room to 8 and
#: 8 MB (half the output kept, so that a longer line is refused, never cut).
_RESULT_JSON = JSONLimits(_RESULT_BYTES // 2, 8, 200_000)
#: A line of one cell's outputs (``keep``): nested as a notebook's outputs may be.
_CELL_JSON = JSONLimits(_RESULT_BYTES, intake.NOTEBOOK_JSON.max_depth,
                        intake.NOTEBOOK_JSON.max_values)


class _Forged(ValueError):
    """What the worker sent is not what the worker writes: the notebook wrote it (or the
    worker has a bug); the message says what does not fit."""


def _last_json(data: bytes):
    """The worker's last non-blank line, parsed within :data:`_RESULT_JSON`'s limits;
    None if it is not JSON; :class:`_Forged` if it is over a limit."""
    line = next((ln for ln in reversed(data.splitlines()) if ln.strip()), b"")
    try:
        return loads(line, _RESULT_JSON, "the result line")
    except UntrustedJSONError as exc:
        if exc.over_limit:
            raise _Forged(str(exc)) from None
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
                 keep: bool = False, milestone: dict | None = None) -> dict:
    """Run ``notebook`` and its checkpoint in a worker process, in ``sandbox`` if given.

    ``timeout`` is for the notebook's cells together (a cell after it is not run),
    ``cell_timeout`` for each cell (default half of ``timeout``), ``test_timeout``
    for each test: a function that loops costs its own tests only. The worker is
    killed when it runs past all of them together (a cell that ignores the alarm).
    The notebook and the hidden tests reach the worker on its stdin only.
    ``points``: the instructor's points file (:mod:`stridegrad.course.points`).
    ``milestone``: ``{"lesson": "09", "timeout": S}`` runs the lesson's milestone after the
    tests, in the notebook's process, on its exercises that passed every test
    (``stridegrad grade --yours``; the result's ``milestone``, :func:`milestone_summary`).
    Returns the worker's result, checked against the checkpoint (``status ==
    "graded"`` with a ``result`` whose rows carry the checkpoint's points), or a
    dict with ``status`` in :data:`NOTEBOOK_STATUSES` and a ``message``. A notebook
    that died says which cell it was running. With ``keep``, also ``cells`` (code
    cell number -> ``{"run", "seconds", "outputs"}``, the outputs of each cell that
    finished, bounded) and ``log`` (the worker's stderr, bounded), whatever happened.

    ``notebook`` is the caller's own file (``stridegrad check``): a link to it is
    followed; it must be a regular file of at most
    :data:`~stridegrad.course.intake.MAX_NOTEBOOK_MB` MB, and is parsed within
    :data:`~stridegrad.course.intake.NOTEBOOK_JSON`'s limits before a worker starts.
    ``stridegrad grade`` reads students' files itself (:mod:`stridegrad.course.intake`).
    """
    try:
        raw = intake.read_path(Path(notebook))
    except intake.Refused as exc:
        why = f"cannot read the notebook: {Path(notebook).name} is {exc}"
        return {"status": "invalid-notebook", "message": why, "seconds": 0.0,
                **({"log": why + "\n", "cells": {}} if keep else {})}
    return _run_raw(raw, Path(notebook).name, episode, timeout=timeout, memory=memory,
                    extra_tests=extra_tests, cell_timeout=cell_timeout,
                    test_timeout=test_timeout, show_extra_tests=show_extra_tests,
                    sandbox=sandbox, limits=limits, points=points, keep=keep,
                    milestone=milestone)


def _code_cells(raw: bytes, name: str) -> list[str]:
    """The code cells of the notebook ``raw`` (the file ``name``), parsed within
    :data:`~stridegrad.course.intake.NOTEBOOK_JSON`'s limits; NotebookError saying
    what is wrong (over a limit, not JSON, not a notebook)."""
    from stridegrad.course._worker import NotebookError, parse_code_cells

    try:
        loads(raw, intake.NOTEBOOK_JSON, name)
    except UntrustedJSONError as exc:
        raise NotebookError(str(exc)) from None
    return parse_code_cells(raw, name)  # within the limits just checked


def _run_raw(raw: bytes, name: str, episode: str, *, timeout: float = TIMEOUT,
             memory: int | None = 2048, extra_tests: Path | None = None,
             cell_timeout: float | None = None, test_timeout: float = TEST_TIMEOUT,
             show_extra_tests: bool = False, sandbox: Sandbox | None = None,
             limits: Limits = DEFAULT_LIMITS, points: Path | None = None,
             keep: bool = False, milestone: dict | None = None) -> dict:
    """:func:`run_notebook` of the notebook's bytes ``raw`` (the file ``name``); a
    notebook that is not one (over a limit, not JSON) is said so without a worker."""
    from stridegrad.course._worker import NotebookError

    if cell_timeout is None:
        cell_timeout = max(1.0, timeout * 0.5)
    checkpoint, overrides = _load_tests(episode, extra_tests, show_extra_tests, points)
    trusted = apply_points(checkpoint, overrides) if overrides else checkpoint
    try:
        cells = _code_cells(raw, name)
    except NotebookError as exc:
        return {"status": "invalid-notebook", "message": clean_text(str(exc), _TEXT_CHARS),
                "seconds": 0.0,
                **({"log": f"not graded: {exc}\n", "cells": {}, "raw": raw} if keep else {})}
    n_tests = len(trusted.tests)
    deadline = timeout + n_tests * test_timeout + _SLACK
    if milestone:  # its own limit, after the tests
        deadline += float(milestone["timeout"])
    return _run_worker(raw, name, cells, trusted, episode, timeout, memory, extra_tests,
                       cell_timeout, test_timeout, show_extra_tests, sandbox, limits,
                       overrides, keep, deadline, milestone)


def judged_outside(episode: str) -> bool:
    """Whether lesson ``episode``'s tests run in the judge, outside the sandbox: every
    lesson's do. ``STRIDEGRAD_JUDGE=inside`` runs them in the worker instead, the way
    they ran before the judge existed, to compare (``benchmarks/bench_grade_class.py``
    grades a class both ways); that path trusts the notebook's process (see the
    README's threat model)."""
    return os.environ.get("STRIDEGRAD_JUDGE") != "inside"


def _run_worker(raw, name, cells, trusted, episode, timeout, memory, extra_tests,
                cell_timeout, test_timeout, show_extra_tests, sandbox, limits, overrides,
                keep, deadline, milestone=None) -> dict:
    n_tests = len(trusted.tests)
    token = secrets.token_hex(16)
    message: dict = {"token": token, "name": name,
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
        judge_path = work / "judge.txt"
        start = time.monotonic()
        judged = judged_outside(episode)
        if judged:  # the worker talks to the judge only, on two pipes of its own
            worker_in, judge_out = os.pipe()
            judge_in, worker_out = os.pipe()
            message = {k: v for k, v in message.items()
                       if k not in ("token", "extra_tests", "points")}
        elif milestone:  # the worker runs the tests, and then the milestone
            message["milestone"] = milestone
        with open(stderr_path, "wb") as stderr, open(judge_path, "wb") as judge_log:
            pipes = {"stdin": worker_in if judged else subprocess.PIPE,
                     "stdout": worker_out if judged else subprocess.PIPE, "stderr": stderr,
                     "start_new_session": hasattr(os, "killpg")}
            try:
                if sandbox is not None:
                    # where cgroup v2 is delegated, the sandbox's memory (its /tmp
                    # included) and processes are limited together (sandbox.cgroups)
                    proc = sandbox.popen(cmd, work / "root", limits.disk_mb, memory_mb=memory,
                                         processes=process_limit(limits.processes),
                                         hidden=hidden_course_paths() if judged else (),
                                         env=sandbox_env(),
                                         **pipes)
                else:
                    env = _worker_env()
                    env["IPYTHONDIR"] = str(work / ".ipython")
                    proc = subprocess.Popen(cmd, cwd=work, env=env, **pipes)
            except OSError as exc:
                return {"status": "crashed", "seconds": 0.0,
                        "message": f"the grader could not start the notebook's process: {exc}",
                        **({"log": f"{exc}\n", "cells": {}} if keep else {})}
            judge = None
            if judged:
                os.close(worker_in)
                os.close(worker_out)
                try:
                    judge = subprocess.Popen(
                        [sys.executable, "-m", "stridegrad.course._judge", "--read-fd",
                         str(judge_in), "--write-fd", str(judge_out)],
                        pass_fds=(judge_in, judge_out), stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, stderr=judge_log, env=_worker_env(),
                        start_new_session=hasattr(os, "killpg"))
                    judge.judge = True  # not counted as a notebook by Ctrl-C's message
                except OSError as exc:
                    _kill(proc)
                    raise GradeError(f"cannot start the judge: {exc}") from None
                finally:
                    os.close(judge_in)
                    os.close(judge_out)
            with _LIVE_LOCK:
                _LIVE.update(p for p in (proc, judge) if p is not None)
                # a Ctrl-C that came while this worker was starting, after _stop_all
                # took its list: stop it here, not after its notebook's whole timeout
                stopping = _STOPPING.is_set()
            if stopping:
                for p in (proc, judge):
                    if p is not None:
                        _kill(p)
            try:
                if judge is None:
                    code, out = _talk(proc, (json.dumps(message) + "\n").encode(), deadline)
                else:
                    config = {"worker": message, "episode": episode, "token": token,
                              "extra_tests": str(extra_tests) if extra_tests else None,
                              "show_extra_tests": show_extra_tests, "points": overrides or None,
                              "test_timeout": test_timeout, "cells_timeout": timeout,
                              "cells": cells, "milestone": milestone}
                    code, out = _talk(judge, (json.dumps(config) + "\n").encode(), deadline)
                    if code is None:
                        _kill(proc)
                    else:  # the judge is done: the worker exits after "done", or now
                        try:
                            proc.wait(timeout=5)
                        except subprocess.TimeoutExpired:
                            _kill(proc)
                    if code == 3:  # the worker died during its cells: its exit says why
                        code = proc.returncode
                    elif code != 0 and code is not None:
                        judge_log.flush()
                        why = _tail(judge_path, 4000).decode("utf-8", "replace").strip()
                        if os.environ.get("STRIDEGRAD_JUDGE_LOG"):
                            Path(os.environ["STRIDEGRAD_JUDGE_LOG"]).write_text(why)
                        raise GradeError("the judge failed: " + clean_text(
                            (why.splitlines() or [f"exit code {code}"])[-1], 400))
            finally:
                with _LIVE_LOCK:
                    _LIVE.discard(proc)
                    _LIVE.discard(judge)
        seconds = round(time.monotonic() - start, 3)
        result = _verdict(code, out, token, stderr_path, seconds, sandbox, memory, deadline,
                          timeout, n_tests, test_timeout, trusted, cells, milestone)
        if keep:
            result["cells"] = _cell_outputs(out, token, len(cells))
            result["log"] = _read_log(stderr_path) + (
                _read_log(judge_path) if judged else "")  # the judge's verdicts, after
            result["raw"] = raw
            if result["status"] != "graded":
                result["running"] = _last_begun(stderr_path)[0]
        return result


def _verdict(code, out, token, stderr_path, seconds, sandbox, memory, deadline, timeout,
             n_tests, test_timeout, trusted: Checkpoint, cells: list[str],
             milestone: dict | None = None) -> dict:
    """The worker's result checked against the ``trusted`` checkpoint and the notebook's
    code ``cells`` (:func:`_checked`), or what its exit says (naming the cell it was
    running)."""
    if code is None:
        return {"status": "notebook-timeout", "seconds": seconds,
                "message": f"the notebook did not finish within {deadline:g} s "
                           f"({timeout:g} s for its cells, {n_tests} tests of "
                           f"{test_timeout:g} s, {_SLACK:g} s to start"
                           + (f", {float(milestone['timeout']):g} s for the milestone"
                              if milestone else "")
                           + "): a cell that ignores the time limit?" + _running(stderr_path)}
    try:
        result = _last_json(out)
        if isinstance(result, dict) and result.get("token") == token:
            if "cell" not in result:
                return _checked(result, trusted, cells, bool(milestone))
            result = None  # a cell's outputs (--keep), and then the worker died
    except _Forged as exc:
        return {"status": "tampered", "seconds": seconds,
                "message": "the result is not one the grader's worker writes "
                           f"({clean_text(str(exc), 300)}): the notebook wrote it?; no points"}
    if result is not None:
        return {"status": "tampered", "seconds": seconds,
                "message": "the result was not written by the grader "
                           "(the notebook wrote one of its own?); no points"}
    tail = _tail(stderr_path, 4000).decode("utf-8", "replace")
    last = next((line for line in reversed(tail.strip().splitlines())
                 if line.strip() and not line.startswith(LOG_PREFIX)), "")
    if sandbox is not None and sandbox.launcher == "bwrap" and code > 128:
        code = 128 - code  # bwrap reports a child killed by signal N as 128 + N
    if "MemoryError" in tail or code == -getattr(signal, "SIGKILL", 9):
        return {"status": "out-of-memory", "seconds": seconds,
                "message": f"the notebook ran out of memory (limit {memory} MB)"
                           + (f": {last}" if last else "") + _running(stderr_path)}
    if code == 0:  # it ended on its own before its cells were done
        return {"status": "crashed", "seconds": seconds,
                "message": "the notebook's process ended (exit code 0) before the grader "
                           "could test it: does a cell call os._exit() or exit()?"
                           + _running(stderr_path)}
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


def _tail(path: Path, size: int) -> bytes:
    """The last ``size`` bytes of the file ``path`` (b"" if it cannot be read)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - size))
            return f.read(size)
    except OSError:
        return b""


def _cell_outputs(out: bytes, token: str, n_cells: int) -> dict[int, dict]:
    """The outputs of each cell that finished, from the worker's lines (``keep``), each
    line parsed within :data:`_CELL_JSON`'s limits; a line that does not fit (another
    token, a cell the notebook does not have, outputs that are not nbformat's) is
    left out."""
    cells = {}
    for line in out.splitlines():
        if not line.startswith(b"{"):
            continue
        try:
            item = loads(line, _CELL_JSON, "a cell's outputs")
        except UntrustedJSONError:
            continue
        if not (isinstance(item, dict) and item.get("token") == token):
            continue
        cell, run, outputs = item.get("cell"), item.get("run"), item.get("outputs")
        seconds = item.get("seconds")
        if type(cell) is int and 0 <= cell < n_cells and type(run) is int and \
                type(seconds) in (int, float) and type(outputs) is list and all(
                    type(o) is dict and o.get("output_type") in _OUTPUT_TYPES
                    for o in outputs):
            cells[cell] = {"run": run, "seconds": seconds, "outputs": outputs}
    return cells


# ------------------------------------------------------------ the worker's result, checked

#: The most characters of one text of a worker's result that the grader keeps (a row's
#: message or values, a cell's error): the worker's own are at most about 2,000.
_TEXT_CHARS = 4000
#: The most of a failing cell's source that a cell error quotes (as the worker cuts it).
_SOURCE_CHARS = 2000
#: Statuses a test's row can have: those of ``check()``, not a whole notebook's.
_ROW_STATUSES = frozenset(STATUSES) - frozenset(NOTEBOOK_STATUSES)
_OUTPUT_TYPES = frozenset({"stream", "display_data", "execute_result", "error"})
_NONE = type(None)
_MISSING = object()


def _get(d: dict, key: str, kinds: tuple, where: str, default=_MISSING):
    """``d[key]``, which must be exactly of one of ``kinds`` (a bool is no int here), or
    ``default`` where the key is missing and there is one; :class:`_Forged` otherwise."""
    if key not in d:
        if default is _MISSING:
            raise _Forged(f"{where} has no {key}")
        return default
    value = d[key]
    if type(value) not in kinds:
        raise _Forged(f"{where}: {key} is of type {type(value).__name__}, not "
                      + " or ".join("None" if k is _NONE else k.__name__ for k in kinds))
    return value


def _count(d: dict, key: str, where: str, low: int, high: int, *, none: bool = False,
           default=_MISSING) -> int | None:
    """``d[key]``, an int from ``low`` to ``high`` (or None where ``none``)."""
    value = _get(d, key, (int, _NONE) if none else (int,), where, default)
    if value is not None and not low <= value <= high:
        raise _Forged(f"{where}: {key} is {value}, not from {low} to {high}")
    return value


def _text(d: dict, key: str, where: str, default: str = "") -> str:
    """``d[key]``, a str, capped and made safe to write (:func:`clean_text`)."""
    return clean_text(_get(d, key, (str,), where, default), _TEXT_CHARS)


def _shown(value) -> str:
    """A value from the worker, quoted in a reason (short, safe to write)."""
    return clean_text(repr(value)[:60], 60)


def _checked(result: dict, trusted: Checkpoint, cells: list[str],
             milestone: bool = False) -> dict:
    """The worker's ``result`` (it carries the token), rebuilt from what fits the
    ``trusted`` checkpoint (its points applied) and the notebook's code ``cells``
    (parsed by the grader); :class:`_Forged` naming what does not fit.

    A row per test of the checkpoint, each once, with a status a test can have; the
    points are the checkpoint's (a passing test's, or 0), and points, ``max_points``,
    ``hidden`` or ``stretch`` the worker sends other than the checkpoint's are a
    forgery. Cell errors name cells the notebook has, in order, with the ``In [n]``
    each gets; their first line and source are the grader's own copy. Every text is
    capped (:data:`_TEXT_CHARS`) and safe to write (:func:`clean_text`). Keys the
    checkpoint has no use for are dropped; so is a ``milestone`` unless one was asked for
    (``milestone``: :func:`_checked_milestone`)."""
    where = "the result"
    seconds = _get(result, "seconds", (int, float), where, 0.0)
    if not (math.isfinite(seconds) and seconds >= 0):
        raise _Forged(f"{where}: seconds is {seconds}")
    status = result.get("status")
    if status in ("invalid-notebook", "tampered"):
        return {"status": status, "seconds": seconds, "message": _text(result, "message", where)}
    if status != "graded":
        raise _Forged(f"{where}: status {_shown(status)} is none the worker writes")
    _count(result, "code_cells", where, len(cells), len(cells))
    body = _get(result, "result", (dict,), where)
    rows = _checked_rows(_get(body, "rows", (list,), "the result's tests"), trusted)
    runs = _run_numbers(cells)
    errors, last = [], -1
    for e in _get(result, "cell_errors", (list,), where, []):
        errors.append(_checked_error(e, cells, runs, last))
        last = errors[-1]["cell"]
    redefined, seen = [], set()
    for r in _get(result, "redefined", (list,), where, []):
        redefined.append(_checked_redefinition(r, trusted, rows, len(runs), seen))
    checked = {"status": "graded", "seconds": seconds, "code_cells": len(cells),
               "cell_errors": errors, "redefined": redefined,
               "limits": _text(result, "limits", where),
               "result": CheckResult(trusted.lesson, trusted.title, rows).to_dict()}
    if milestone and "milestone" in result:
        checked["milestone"] = _checked_milestone(result["milestone"], trusted)
    return checked


def _checked_milestone(m, trusted: Checkpoint) -> dict:
    """The result's ``milestone`` (:func:`stridegrad.course._judge.run_milestone_step`'s
    answer): its fields of the right types, a finite value, texts capped and safe, and
    only names of library exercises of the lessons up to this one."""
    from stridegrad.course.observe.milestone import library_plan

    where = "the milestone"
    if type(m) is not dict:
        raise _Forged(f"{where} is a {type(m).__name__}, not a dict")
    value = _get(m, "value", (int, float, _NONE), where, None)
    if value is not None and not math.isfinite(value):
        raise _Forged(f"{where}: value is {value}")
    seconds = _get(m, "seconds", (int, float), where, 0.0)
    names = {name for _, name, _, _ in library_plan(trusted.episode, set())}
    lists = {}
    for key in ("yours", "reference"):
        listed = _get(m, key, (list,), where, [])
        if any(type(x) is not str for x in listed):
            raise _Forged(f"{where}: {key} holds something other than names")
        lists[key] = [x for x in dict.fromkeys(listed) if x in names]
    return {"ran": _get(m, "ran", (bool,), where), "value": value,
            "seconds": seconds if math.isfinite(seconds) else 0.0,
            "what": clean_text(_get(m, "what", (str,), where, ""), 600),
            "problem": clean_text(_get(m, "problem", (str,), where, ""), 600), **lists}


def _checked_rows(rows: list, trusted: Checkpoint) -> list[Row]:
    """The rows of :func:`_checked`, in the checkpoint's order."""
    tests = {t.name: t for t in trusted.tests}
    if len(rows) != len(tests):
        raise _Forged(f"{len(rows)} rows for the {len(tests)} tests of {trusted.lesson}")
    found: dict[str, Row] = {}
    for number, r in enumerate(rows, 1):
        if type(r) is not dict:
            raise _Forged(f"row {number} is a {type(r).__name__}, not a dict")
        name = _get(r, "test", (str,), f"row {number}")
        test = tests.get(name)
        if test is None:
            raise _Forged(f"row {number}: {_shown(name)} is no test of {trusted.lesson}")
        if name in found:
            raise _Forged(f"row {number}: a second row of test {name}")
        where = f"the row of test {name}"
        status = _get(r, "status", (str,), where)
        if status not in _ROW_STATUSES:
            raise _Forged(f"{where}: status {_shown(status)} is none a test can have")
        points = test.points if status == "pass" else 0
        for key, value in (("exercise", test.exercise), ("points", points),
                           ("max_points", test.points), ("hidden", test.hidden),
                           ("stretch", test.stretch)):
            if key in r and (type(r[key]) is not type(value) or r[key] != value):
                raise _Forged(f"{where}: {key} {_shown(r[key])} where the checkpoint "
                              f"gives {value!r}")
        cause = _text(r, "cause", where)
        if cause and cause not in trusted.exercises:
            raise _Forged(f"{where}: cause {_shown(cause)} is no exercise of "
                          f"{trusted.lesson}")
        found[name] = Row(test.name, test.exercise, status, points, test.points,
                          expected=_text(r, "expected", where), got=_text(r, "got", where),
                          hint=_text(r, "hint", where), message=_text(r, "message", where),
                          hidden=test.hidden, call=_text(r, "call", where),
                          diagnosis=_text(r, "diagnosis", where), cause=cause,
                          stretch=test.stretch)
    return [found[t.name] for t in trusted.tests]


def _run_numbers(cells: list[str]) -> dict[int, int]:
    """Code cell number -> its ``In [n]`` (empty cells are not run)."""
    runs, n = {}, 0
    for number, source in enumerate(cells):
        if source.strip():
            n += 1
            runs[number] = n
    return runs


def _checked_error(e, cells: list[str], runs: dict[int, int], after: int) -> dict:
    """A cell error of :func:`_checked`: a cell after ``after``, that runs."""
    from stridegrad.course._worker import first_line

    if type(e) is not dict:
        raise _Forged(f"a cell error is a {type(e).__name__}, not a dict")
    cell = _count(e, "cell", "a cell error", after + 1, len(cells) - 1)
    where = f"the error of code cell {cell}"
    if cell not in runs:
        raise _Forged(f"{where}: that cell is empty, and never runs")
    _count(e, "run", where, runs[cell], runs[cell])
    source = cells[cell]
    return {"cell": cell, "run": runs[cell], "first_line": first_line(source),
            "source": source[:_SOURCE_CHARS], "error": _text(e, "error", where),
            "line": _count(e, "line", where, 1, max(1, source.count("\n") + 1), none=True,
                           default=None)}


def _checked_redefinition(r, trusted: Checkpoint, rows: list[Row], last_run: int,
                          seen: set[str]) -> dict:
    """An entry of the result's ``redefined`` (:func:`_checked`): an exercise of the
    checkpoint, once, in cells that run; its points are the rows'."""
    if type(r) is not dict:
        raise _Forged(f"a redefinition is a {type(r).__name__}, not a dict")
    exercise = _get(r, "exercise", (str,), "a redefinition")
    if exercise not in trusted.exercises or exercise in seen:
        raise _Forged(f"a redefinition of {_shown(exercise)}: no exercise of "
                      f"{trusted.lesson}, or a second one")
    seen.add(exercise)
    where = f"the redefinition of {exercise}"
    mine = [row for row in rows if row.exercise == exercise]
    max_points = sum(row.max_points for row in mine)
    cells = {key: _count(r, key, where, 1, last_run, none=True, default=None)
             for key in ("graded_in", "check_in", "earlier_in")}
    return {"exercise": exercise, **cells, "points": sum(row.points for row in mine),
            "max_points": max_points,
            "earlier_points": _count(r, "earlier_points", where, 0, max_points, none=True,
                                     default=None),
            "earlier_passed": _get(r, "earlier_passed", (bool, _NONE), where, None)}


def _rows_for_failure(checkpoint: Checkpoint, status: str, message: str) -> list[Row]:
    return [Row(t.name, t.exercise, status, 0, t.points, hint=t.hint, message=message,
                hidden=t.hidden, stretch=t.stretch) for t in checkpoint.tests]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _grade_one(student_dir: Path, assignment: str, checkpoint: Checkpoint,
               keep_dir: Path | None = None, run_id: str = "", **run) -> StudentGrade | None:
    """Grade one student's folder; whatever goes wrong in it is this student's row."""
    if _STOPPING.is_set():
        return None
    try:
        g, out, path = _grade_notebook(student_dir, assignment, checkpoint,
                                       keep=bool(keep_dir), **run)
    except Exception as exc:  # a bug of the grader's, met on this notebook
        g, out, path = _grader_error(printable(student_dir.name), assignment, checkpoint,
                                     exc), None, None
    g.graded_at = _now()
    if keep_dir is not None:
        try:
            _keep(keep_dir / g.student, g, out, path, run_id)
        except Exception as exc:
            g.message += f"; --keep could not write its files: {clean_text(str(exc), 300)}"
    return g


def _grader_error(student: str, assignment: str, checkpoint: Checkpoint,
                  exc: Exception) -> StudentGrade:
    """The row of a student whose grading raised ``exc``: no points, and the reason."""
    why = clean_text(f"the grader failed on this notebook ({type(exc).__name__}: {exc}); "
                     "no points: please report it to the course's maintainers", 1000)
    return StudentGrade(student, assignment, "grader-error", why,
                        _rows_for_failure(checkpoint, "grader-error", why))


def _keep(folder: Path, g: StudentGrade, out: dict | None, path: Path | None,
          run_id: str) -> None:
    """Write the student's executed notebook and worker log (``--keep``)."""
    head = [f"stridegrad grade: student {g.student}, {g.assignment}, run {run_id}, "
            f"graded {g.graded_at}",
            f"notebook: {printable(str(path)) if path is not None else 'none'}",
            f"result: {g.status}, {g.points}/{g.max_points} points in {g.seconds:.1f} s: "
            f"{g.message}",
            *([f"milestone (--yours, advisory): {g.milestone}"] if g.milestone else []),
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
    from stridegrad.course._worker import NotebookError

    try:
        return _run_numbers(_code_cells(raw, "notebook"))
    except NotebookError:
        return {}


def _ipynbs(listing: intake.Listing) -> list[intake.Entry]:
    """The notebooks of a student's folder, at any depth the walk reached (a hidden
    folder, such as Jupyter's checkpoints, is never walked), taken or not."""
    return [e for e in listing.files if e.parts[-1].endswith(".ipynb")]


def _match_score(raw: bytes | None, name: str, assignment: str,
                 checkpoint: Checkpoint) -> tuple[int, int]:
    """(exercises the notebook ``raw`` defines with ``def``/``class``, how well its file
    ``name`` fits the lesson); a notebook that cannot be read or parsed defines none."""
    from stridegrad.course._worker import NotebookError

    try:
        code = "\n".join(_code_cells(raw, name)) if raw is not None else ""
    except NotebookError:
        code = ""
    defined = sum(bool(re.search(rf"^\s*(def|class)\s+{re.escape(ex)}\b", code, re.MULTILINE))
                  for ex in checkpoint.exercises)
    stem = name.removesuffix(".ipynb")
    fit = 3 if name == f"{assignment}.ipynb" else 2 if stem.startswith(
        assignment) else 1 if stem.startswith(checkpoint.episode) else 0
    return defined, fit


#: The most notebooks of one student compared to pick one (each is read and parsed).
_MAX_CANDIDATES = 50


@dataclass
class _Found:
    """What :func:`_find` found in a student's folder: the notebook to grade (its path
    and bytes) and why it was picked, or why none was (``status`` "no-notebook" or
    "refused")."""

    path: Path | None
    raw: bytes | None
    why: str
    status: str = ""


def _read(student_dir: Path, entry: intake.Entry) -> bytes | None:
    try:
        return intake.read_file(student_dir, entry.parts)
    except intake.Refused:
        return None


def _find(student_dir: Path, assignment: str, checkpoint: Checkpoint) -> _Found:
    """:func:`find_submission`, with the notebook's bytes, read as
    :mod:`stridegrad.course.intake` reads (never through a link)."""
    student = printable(student_dir.name)
    listing = intake.list_folder(student_dir)
    if listing.problem:
        return _Found(None, None, f"the folder {student}/ is {listing.problem}: not graded "
                                  f"({intake.TAKES})", "refused")
    layout = next((e for e in listing.files if e.parts == (assignment, f"{assignment}.ipynb")),
                  None)
    # a notebook in a folder, or with a name, of another lesson (02_...) is that lesson's
    candidates = [layout] if layout is not None else [
        e for e in _ipynbs(listing) if not any(
            (m := re.match(r"(\d\d)_", part)) and m.group(1) != checkpoint.episode
            for part in e.parts)]
    # the layout's folder as a link (to another student's, to solutions/) is refused too
    candidates += [e for e in listing.files if e.parts == (assignment,) and e.problem]
    usable = [e for e in candidates if not e.problem]
    refused = [f"{student}/{e.shown} is {e.problem}" for e in candidates if e.problem]
    notes = ([f"not taken: {'; '.join(refused[:5])}"] if refused else []) + (
        [f"{student}/ {listing.cut}"] if listing.cut else [])
    if not usable:
        if refused:
            return _Found(None, None, "; ".join(refused[:5]) + f": not graded ({intake.TAKES})",
                          "refused")
        others = [e.shown + (f" ({e.problem})" if e.problem else "") for e in listing.files]
        why = (f"no notebook of {assignment} in {student}/"
               + (f" (found: {', '.join(others[:5])})" if others else " (empty)"))
        if listing.cut:
            return _Found(None, None, f"{why}; {student}/ {listing.cut}", "refused")
        return _Found(None, None, why, "no-notebook")
    if len(usable) > _MAX_CANDIDATES:
        return _Found(None, None, f"{student}/ holds {len(usable)} notebooks, more than the "
                                  f"{_MAX_CANDIDATES} the grader compares: keep one, or name "
                                  f"it {assignment}/{assignment}.ipynb", "refused")
    if len(usable) == 1:
        best = usable[0]
        why = "" if best is layout else f"graded {best.shown} (the only notebook)"
    else:
        scores = {e: _match_score(_read(student_dir, e), e.parts[-1], assignment, checkpoint)
                  for e in usable}
        ranked = sorted(usable, key=lambda e: scores[e], reverse=True)
        best = ranked[0]
        if scores[ranked[1]] == scores[best]:
            tied = [e.shown for e in ranked if scores[e] == scores[best]]
            return _Found(None, None, f"{len(tied)} notebooks fit {assignment} equally "
                                      f"({', '.join(tied)}): keep one, or name it "
                                      f"{assignment}/{assignment}.ipynb", "no-notebook")
        why = (f"graded {best.shown} (of {len(usable)} notebooks: it defines "
               f"{scores[best][0]} of the {len(checkpoint.exercises)} exercises)")
    try:
        raw = intake.read_file(student_dir, best.parts)
    except intake.Refused as exc:  # it changed since the walk
        return _Found(None, None, f"{student}/{best.shown} is {exc}: not graded "
                                  f"({intake.TAKES})", "refused")
    return _Found(student_dir.joinpath(*best.parts), raw, "; ".join(filter(None, [why, *notes])))


def find_submission(student_dir: Path, assignment: str,
                    checkpoint: Checkpoint) -> tuple[Path | None, str]:
    """The notebook to grade in a student's folder and why it was picked, or None and why
    none was: ``<assignment>/<assignment>.ipynb``; else the only notebook in the folder
    (any name, any depth); else the one that defines the most of the lesson's exercises
    (then the one whose name fits the lesson best); a tie picks none. Only what
    :mod:`stridegrad.course.intake` takes counts: a folder or notebook that is a link,
    a hard link or too big is refused (None, and why), never followed or read."""
    found = _find(Path(student_dir), assignment, checkpoint)
    return found.path, found.why


def _grade_notebook(student_dir: Path, assignment: str, checkpoint: Checkpoint,
                    **run) -> tuple[StudentGrade, dict | None, Path | None]:
    """(the grade, the worker's result or None, the notebook graded or None)."""
    student = printable(student_dir.name)
    found = _find(student_dir, assignment, checkpoint)
    picked = found.why
    if found.raw is None:
        return StudentGrade(student, assignment, found.status, picked,
                            _rows_for_failure(checkpoint, found.status, picked)), None, None
    out = _run_raw(found.raw, found.path.name, checkpoint.episode, **run)
    if out["status"] != "graded":
        why = clean_text(out["message"], _TEXT_CHARS)
        return StudentGrade(student, assignment, out["status"],
                            why + (f"; {picked}" if picked else ""),
                            _rows_for_failure(checkpoint, out["status"], why),
                            seconds=out.get("seconds", 0.0)), out, found.path
    rows = [Row(**r) for r in out["result"]["rows"]]  # checked: the checkpoint's tests, points
    errors = out["cell_errors"]
    message = (f"{len(errors)} of {out['code_cells']} code cells raised an error"
               if errors else f"all {out['code_cells']} code cells ran")
    g = StudentGrade(student, assignment, "graded", message + (f"; {picked}" if picked else ""),
                     rows, errors, seconds=out["seconds"], picked=picked,
                     redefined=out["redefined"])
    if "milestone" in out:
        g.milestone, g.milestone_report = milestone_summary(out["milestone"],
                                                            checkpoint.episode, rows)
        g.milestone_yours = list(out["milestone"]["yours"])
        g.milestone_reference = list(out["milestone"]["reference"])
    return g, out, found.path


def _measure(stone, value: float | None) -> str:
    """A milestone's value against its goal: ``97.2% (goal 95%)``; a yes-or-no milestone
    (goal 1, value 0 or 1: lesson 08's gradients agree) as ``goal met``."""
    if value is None:
        return f"no value (goal {stone.goal:g})"
    if stone.higher_is_better and stone.goal == 1 and value in (0, 1):
        return "goal met" if value == 1 else "goal not met"
    if stone.higher_is_better and 0 < stone.goal < 1:
        return f"{value:.1%} (goal {stone.goal:.0%})"
    if not stone.higher_is_better:
        return f"error {value:.2g} (goal: at most {stone.goal:g})"
    return f"{value:g} (goal {stone.goal:g})"


def _not_yours(exercise: str, rows: list[Row]) -> str:
    """Why the milestone ran the reference's ``exercise`` for this notebook, in a few
    words (a hidden test is named, never its values)."""
    mine = [r for r in rows if r.exercise == exercise]
    statuses = {r.status for r in mine}
    if not mine or statuses & {"stub", "missing"}:
        return "not written yet"
    if statuses & {"imported", "delegates"}:
        return "not yours"
    failing = next((r for r in mine if not r.passed), None)
    if failing is None:
        return "passes, but is not a function of the notebook's"
    return f"fails `{failing.test}`" + (" (hidden test)" if failing.hidden else "")


def milestone_summary(m: dict, episode: str, rows: list[Row]) -> tuple[str, str]:
    """``--yours``: the gradebook's ``milestone`` text and the feedback page's report of
    the milestone answer ``m`` (:func:`_checked_milestone`) of lesson ``episode``, whose
    graded ``rows`` say why an exercise was the reference's. The goal, whether it is met,
    and every reason are the grader's own; the value and what the run did come from the
    student's sandbox and are advisory: a notebook can forge them (no points)."""
    from stridegrad.course.milestones import MILESTONES, MilestoneResult
    from stridegrad.course.observe.milestone import library_plan

    stone = MILESTONES[episode]
    plan = library_plan(episode, set())
    lesson = [name for e, name, _, _ in plan if e == episode]
    if not m["ran"]:
        why = "; ".join(f"{name}: {_not_yours(name, rows)}" for name in lesson)
        column = ("not run: none of this lesson's functions that the library calls passed "
                  "all its tests" + (f" ({why})" if why else ""))
        return clean_text(" ".join(column.split()), 600), clean_text(
            f"lesson {episode}'s milestone, on your library: not run: none of your "
            f"functions of this lesson that the library calls passed all its tests"
            + (f" ({why})" if why else ""), _TEXT_CHARS)
    met = not m["problem"] and m["value"] is not None and stone.met(m["value"])
    if m["problem"]:
        column = f"stopped: {m['problem']}"
    else:
        column = ("" if met else "short: ") + _measure(stone, m["value"])
    earlier = {name: e for e, name, _, _ in plan if e != episode}
    reference = {name: (f"lesson {earlier[name]}'s, not graded here" if name in earlier
                        else _not_yours(name, rows)) for name in m["reference"]}
    result = MilestoneResult(episode, m["what"], m["value"] if m["value"] is not None else 0.0,
                             stone.goal, met, yours=list(m["yours"]), reference=reference,
                             problem=m["problem"])
    report = result.report() + ("\n  (advisory: computed in your notebook's sandbox, "
                                "not part of your points)")
    return clean_text(" ".join(column.split()), 600), clean_text(report, _TEXT_CHARS)


def _write_feedback(folder: Path, g: StudentGrade, run_id: str, digest: str,
                    log: Callable[[str], None]) -> None:
    """Write ``g``'s feedback page into ``folder``; a page that cannot be made (a bug
    of the grader's, met on this student's result) is replaced by a short one that
    says so, and the run goes on."""
    import html

    try:
        page = feedback_html(g, run_id, digest, NOTEBOOK_STATUSES)
    except Exception as exc:
        why = clean_text(f"{type(exc).__name__}: {exc}", 300)
        log(f"{g.student}: the feedback page could not be made ({why}); wrote a short one")
        page = (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>"
                f"<p>{html.escape(g.assignment)}, {html.escape(g.student)}: "
                f"{g.points} / {g.max_points} points ({html.escape(g.status)}). The grader "
                f"could not make this page: {html.escape(why)}.</p></body></html>\n")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{g.assignment}.html").write_text(page, encoding="utf-8", errors="replace")


def _discover(submitted: Path, checkpoint: Checkpoint) -> list[Path]:
    assignment = checkpoint.lesson
    layout = (f"{submitted}/<student>/{assignment}/{assignment}.ipynb, or any one "
              "notebook per student folder")
    if not submitted.is_dir():
        raise GradeError(f"no folder {submitted} (expected {layout})")
    if not intake.SUPPORTED:
        raise GradeError("this system cannot open a file without following links (openat): "
                         "grade on Linux or macOS")
    try:
        students = [submitted / name for name in intake.student_folders(submitted)]
    except OSError as exc:
        raise GradeError(f"cannot read {submitted}: {exc.strerror or exc}") from None
    if not students:
        raise GradeError(f"{submitted} has no student folders (expected {layout})")
    if any(s.name == assignment for s in students):
        raise GradeError(f"{submitted} holds a folder {assignment}/: it looks like one "
                         "student's folder; give the folder that holds the student folders "
                         f"({submitted.resolve().parent}?), or --student NAME to grade one")
    listings = {s: intake.list_folder(s) for s in students}
    found = [(s, e) for s, listing in listings.items() for e in _ipynbs(listing)]
    if not found:
        links = sum(bool(listing.problem) for listing in listings.values())
        raise GradeError(
            f"none of the {len(students)} student folders in {submitted} holds a notebook"
            + (f" ({links} of them are links, which the grader does not follow)"
               if links else "") + f" (expected {layout}): wrong folder?")
    layout_parts = (assignment, f"{assignment}.ipynb")
    if not any(e.parts == layout_parts for _, e in found) and not any(
            any(_match_score(_read(s, e), e.parts[-1], assignment, checkpoint))
            for s, e in found):
        names = sorted(f"{printable(s.name)}/{e.shown}" for s, e in found)
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
                   run_id: str, digest: str, yours: bool = False) -> list[dict]:
    """Merge this run's results into ``OUT/<assignment>/``; the lesson's totals rows.
    ``milestone.csv`` (``--yours``) gets this run's rows of its students when ``yours``;
    a student regraded without it loses the row of before (it was another run's)."""
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
    milestones = [{"student": g.student, "assignment": g.assignment, "milestone": g.milestone,
                   "yours": " ".join(g.milestone_yours),
                   "reference": " ".join(g.milestone_reference),
                   "graded_at": g.graded_at, **run} for g in grades] if yours else []
    path = folder / MILESTONE_FILE
    try:
        old_milestones = read_rows(path, MILESTONE_COLUMNS)
    except RecordError as exc:
        raise GradeError(str(exc)) from None
    kept = merge_rows(old_milestones, milestones, graded)
    if kept:
        write_rows(path, MILESTONE_COLUMNS, kept)
    else:
        path.unlink(missing_ok=True)
    return merged


def grade(submitted: Path, episode: str, out: Path, *, timeout: float = TIMEOUT,
          memory: int | None = 2048, jobs: int = 1, extra_tests: Path | None = None,
          cell_timeout: float | None = None, test_timeout: float = TEST_TIMEOUT,
          show_extra_tests: bool = False, students: list[str] | None = None,
          roster: Path | None = None, sandbox: bool | str | Sandbox = True,
          limits: Limits = DEFAULT_LIMITS, log: Callable[[str], None] = print,
          progress: Callable[[Progress], None] | None = None,
          shard: tuple[int, int] | None = None, keep: Path | None = None,
          points: Path | None = None, replace_tests: bool = False, yours: bool = False,
          milestone_timeout: float = MILESTONE_TIMEOUT) -> list[StudentGrade]:
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
    ``replace_tests``: grade with other tests than those ``out`` records for the lesson
    (:func:`stridegrad.course.gradebook.claim_tests`; refused otherwise).
    ``yours``: also run the lesson's milestone (:mod:`stridegrad.course.milestones`) on
    each student's own functions of the exercises that passed all their tests, the
    reference everywhere else, in the student's sandbox after the tests, within
    ``milestone_timeout`` seconds: a ``milestone`` column (``OUT/<lesson>/milestone.csv``
    and ``gradebook.csv``) and a paragraph of the feedback page. Advisory, never points:
    it is computed in the student's sandbox, where the notebook could forge it. A lesson
    without a milestone says so in one line and is graded without it.
    """
    # every line names students and quotes notebooks: no escape sequence reaches a terminal
    log = terminal_log(log)
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
    if milestone_timeout is not None and milestone_timeout <= 0:
        raise GradeError(f"--milestone-timeout must be positive, got {milestone_timeout}")
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
    if yours:
        from stridegrad.course.milestones import MILESTONES

        if checkpoint.episode not in MILESTONES:
            log(f"--yours: lesson {checkpoint.episode} has no milestone (lessons with one: "
                f"{', '.join(sorted(MILESTONES))}); grading without the milestone column")
            yours = False
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
    try:  # the lesson's tests (refused if others), and collect's facts of these students
        lesson_tests = claim_tests(out / assignment, digest, checkpoint.episode,
                                   extra_tests=extra_tests, points=overrides, points_file=points,
                                   replace=replace_tests, whole=not students and shard is None,
                                   run_id=run_id)
        carry_collected(submitted, out, assignment, students=students, shard=shard)
    except RecordError as exc:
        raise GradeError(str(exc)) from None

    start = time.monotonic()
    run = {"timeout": timeout, "memory": memory, "extra_tests": extra_tests,
           "cell_timeout": cell_timeout, "test_timeout": test_timeout,
           "show_extra_tests": show_extra_tests, "sandbox": box, "limits": limits,
           "points": points, "keep_dir": keep, "run_id": run_id,
           "milestone": {"lesson": checkpoint.episode, "timeout": float(milestone_timeout)}
           if yours else None}
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

    if yours:
        for g in grades:
            if not g.milestone:
                g.milestone = ("not run: the notebook was not graded "
                               f"({NOTEBOOK_STATUSES.get(g.status, g.status)})")
    totals = _write_results(out, assignment, grades, mode=mode, run_id=run_id, digest=digest,
                            yours=yours)
    if names is not None:
        (out / ROSTER).write_text("".join(f"{n}\n" for n in names), encoding="utf-8")
    try:
        book_path, book = build_gradebook(out)
    except RecordError as exc:
        raise GradeError(str(exc)) from None
    for g in grades:
        _write_feedback(out / "feedback" / g.student, g, run_id, digest, log)

    unsafe = "" if box else "  [no sandbox]"
    # max() of a list: an empty shard (or a Ctrl-C before the first notebook finished)
    # has no grades, and its table is the header alone
    width = max([len("student"), *(len(terminal_line(g.student)) for g in grades)])
    log(f"{'student'.ljust(width)}  {'points':>9}  {'notebook':<16}  notes")
    for g in grades:
        score = f"{g.points}/{g.max_points}"
        note = g.message if g.status != "graded" or g.cell_errors or g.picked else ""
        name = terminal_line(g.student).ljust(width)
        log(f"{name}  {score:>9}  {g.status:<16}  {note}{unsafe}".rstrip())
    if yours:
        log(f"milestone {checkpoint.episode} on each student's own functions (--yours; "
            "advisory, not points: computed in the student's sandbox):")
        for g in grades:
            log(f"  {terminal_line(g.student).ljust(width)}  {g.milestone}")
    stale = sorted(r["student"] for r in totals if r["tests_hash"] != lesson_tests)
    if stale:
        log(f"warning: {len(stale)} student{'s' if len(stale) != 1 else ''} of {assignment} "
            f"were graded with other tests than the lesson's ({lesson_tests}): "
            f"{', '.join(stale[:10])}{', ...' if len(stale) > 10 else ''}; "
            "the gradebook notes them (grade without --student to regrade all)")
    absent = [row["student"] for row in book if f"{assignment}: no submission" in row["notes"]]
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
    found = sum(g.status != "no-notebook" for g in grades)  # a folder without one: none
    log(f"graded {found} notebook{'s' if found != 1 else ''} of {assignment}"
        + (f" ({len(grades) - found} of the {len(grades)} student folders have none)"
           if found != len(grades) else "") + " in "
        f"{elapsed:.1f} s ({jobs} job{'s' if jobs != 1 else ''}, run {run_id}"
        + (f"; kept {kept} earlier result{'s' if kept != 1 else ''}" if kept else "")
        + f"); wrote {out / assignment}/grades.csv, exercises.csv and totals.csv, {book_path} "
        f"({len(book)} student{'s' if len(book) != 1 else ''}) and {out / 'feedback'}/"
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
