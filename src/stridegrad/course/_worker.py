"""Run one notebook's code and its checkpoint, in a process of its own.

``python -m stridegrad.course._worker --episode NN [--memory MB] [...]``

Used by ``stridegrad grade`` and ``stridegrad check``: the parent starts one
worker per notebook (in the grader's sandbox, :mod:`stridegrad.course.sandbox`,
or without one) with a wall-clock timeout. Everything the worker needs comes
on stdin, as one JSON line read before any notebook code runs: the one-time
token, the notebook's name and bytes, the instructor's hidden tests (their
source, never a file the notebook could open), and files to put in the working
folder first (matplotlib's font cache, so that a sandbox need not rebuild it). The worker writes the notebook
into its working folder, limits its own address space, file size, open files
and (in the sandbox) processes, and closes stdin.

Code cells run in order (:mod:`stridegrad.course._cells`: an in-process IPython
shell, numbered ``In [n]`` as JupyterLab numbers them after Restart Kernel and Run
All); a cell that raises, or runs past the per-cell limit, is skipped and the next
cell runs. Then the checkpoint (with the instructor's points, if the message
carries them) runs on the notebook's globals and the result, with the token, is
written as the last line of the worker's *original* stdout: the notebook's own
prints never reach it. No result line means the process died (crash, out of
memory, killed). With ``keep`` in the message, each cell's outputs (bounded) are
written there too, a JSON line per cell as it finishes, so that a notebook that
dies still leaves the outputs of the cells before.

With ``serve`` in the message (a lesson the grader judges outside the sandbox,
:mod:`stridegrad.course._judge`), the message carries no tests, points or hidden tests,
and the worker loads no checkpoint: after the cells it says what the exercises' names
hold and answers the judge's calls (:class:`stridegrad.course._wire.WorkerChannel`)
until the judge is done.

The worker logs to its stderr, a line per event starting with :data:`LOG_PREFIX`:
the limits, each cell's start (:data:`CELL_STARTED`) and its end with its time or
error, each test's verdict, and each exercise whose ``check()`` ran on another
definition than the one graded (the result's ``redefined``: a later cell replaced
it; the earlier definition's tests are re-run in the time the notebook left
unused, to say what it scored).

With ``milestone`` in the message (``stridegrad grade --yours``, the tests run here), the
lesson's milestone runs after the tests on the exercises that passed them all
(:func:`stridegrad.course._judge.run_milestone_step`), and the result carries what it
did. Where the judge runs the tests, it asks for the milestone through the channel
(:mod:`stridegrad.course.observe.milestone`).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import sys
import time
from pathlib import Path

__all__ = ["CELL_STARTED", "GRADING_ENV", "LOG_PREFIX", "NotebookError", "add_extra_tests",
           "first_line", "main", "parse_code_cells", "read_code_cells"]

#: Set in the worker while the notebook's cells run: ``check()`` then runs no tests
#: (the grader runs them once, after the last cell).
GRADING_ENV = "STRIDEGRAD_GRADING"


class NotebookError(Exception):
    """The file is not a notebook we can read."""


#: The most of a cell's error message, and of its source, that the result carries.
_ERROR_CHARS = 2000


def _cell_error(number: int, run: int, source: str, error: str, line: int | None = None) -> dict:
    """A cell's error as the feedback shows it: ``run`` is the execution count JupyterLab
    shows after Run All on a fresh kernel (``In [run]``), with the cell's first line, and
    ``line`` the line of the cell the error came from (None if unknown)."""
    return {"cell": number, "run": run, "first_line": first_line(source),
            "source": source[:_ERROR_CHARS], "error": error, "line": line}


def first_line(source: str) -> str:
    """A cell's first non-blank line, as a name for it (at most 100 characters)."""
    return next((ln.strip() for ln in source.splitlines() if ln.strip()), "")[:100]


#: The worker's own lines on its stderr start with this (the notebook's stderr goes
#: there too); ``stridegrad grade --keep`` keeps them as the student's worker log.
LOG_PREFIX = "[worker] "
#: The line logged when a cell starts: the grader names the cell a dead notebook was
#: running from the last of them.
CELL_STARTED = "In [{run}] started: {first_line}"


def _log(text: str) -> None:
    stderr = sys.__stderr__
    try:
        stderr.write(f"{LOG_PREFIX}{text}\n")
        stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


class _CellTimeout(BaseException):
    """A cell ran past its time limit (BaseException: not caught by ``except Exception``)."""


def read_code_cells(path: Path) -> list[str]:
    """The code cells' sources of an nbformat 4 notebook, with plain ``json``."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise NotebookError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    return parse_code_cells(raw, path.name)


def parse_code_cells(raw: bytes, name: str) -> list[str]:
    """The code cells' sources of the nbformat 4 notebook ``raw`` (the file ``name``)."""
    try:
        nb = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise NotebookError(f"{name} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise NotebookError(f"{name} is not valid JSON (line {exc.lineno}, column "
                            f"{exc.colno}: {exc.msg})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError(f"{name} is JSON but not a Jupyter notebook (no 'cells' list)")
    if nb.get("nbformat") != 4:
        raise NotebookError(f"{name} has nbformat {nb.get('nbformat')!r}; save it with "
                            "JupyterLab (nbformat 4)")
    sources = []
    for cell in nb["cells"]:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            src = cell.get("source", "")
            sources.append("".join(src) if isinstance(src, list) else str(src))
    return sources


def _limit(memory: int | None, processes: int | None, file_size: int | None,
           open_files: int | None) -> str:
    """Set this process's resource limits (inherited by anything it starts); a note."""
    try:
        import resource
    except ImportError:  # Windows
        return "no limits (the resource module is missing on this platform)"
    notes = []
    for rlimit, value, scale, what in (
            ("RLIMIT_NPROC", processes, 1, "processes"),
            ("RLIMIT_FSIZE", file_size, 1024 * 1024, "MB per file"),
            ("RLIMIT_NOFILE", open_files, 1, "open files"),
            ("RLIMIT_AS", memory, 1024 * 1024, "MB of memory")):
        if value:
            resource.setrlimit(getattr(resource, rlimit), (value * scale, value * scale))
            notes.append(f"{value} {what}")
    return "limited to " + ", ".join(notes) if notes else "no limits"


def _alarm(seconds: float | None):
    if not seconds or not hasattr(signal, "setitimer"):
        return

    def on_alarm(signum, frame):
        raise _CellTimeout()

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)


def _disarm():
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _read_message() -> dict:
    """The parent's one JSON line on stdin, read before any notebook code runs; stdin
    is closed after. It carries the one-time token (the result line carries it back,
    so a notebook that prints a result of its own cannot pass it off as the grader's),
    the notebook and the hidden tests."""
    line = sys.stdin.buffer.readline()
    message = json.loads(line)
    if isinstance(message, dict) and message.get("serve"):
        # the judge's requests come on this pipe after the cells: a private copy of it
        message["request_fd"] = os.dup(0)
    sys.stdin.close()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    if not isinstance(message, dict) or not isinstance(message.get("token"), str):
        raise SystemExit("stridegrad worker: stdin must start with the grader's JSON message")
    return message


def _take_stdout() -> int:
    """A private copy of stdout for the result; fd 1 itself then goes to /dev/null."""
    sys.stdout.flush()
    result_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    return result_fd


def add_extra_tests(checkpoint, extra, *, show: bool = False, name: str = "the extra tests"):
    """``checkpoint`` with the instructor's ``extra`` tests after its own.

    Extra tests are hidden (feedback shows their name and points only) unless
    ``show``. A test of an exercise the lesson does not have is an error naming it
    and the exercises that exist, never a silent 0 for every student.
    """
    import dataclasses

    unknown = sorted({t.exercise for t in extra.tests} - set(checkpoint.exercises))
    if unknown:
        tests = ", ".join(f"{t.name} ({t.exercise})" for t in extra.tests
                          if t.exercise in unknown)
        raise ValueError(f"{name}: lesson {checkpoint.lesson} has no exercise "
                         f"{', '.join(map(repr, unknown))} (tests {tests}); its exercises are "
                         f"{', '.join(checkpoint.exercises)}")
    if not show:
        extra.tests = [dataclasses.replace(t, hidden=True) for t in extra.tests]
    return checkpoint.extend(extra)


def _load_hidden(extra: dict | None, checkpoint):
    """Add the instructor's tests, sent as source: written to a private file only for
    the time it takes to import them, then removed before the notebook runs."""
    if not extra:
        return checkpoint
    import shutil
    import tempfile

    from stridegrad.course.checks import load_checkpoint_file

    folder = tempfile.mkdtemp(prefix=".hidden-")
    try:
        path = Path(folder) / Path(extra["name"]).name
        path.write_text(extra["source"], encoding="utf-8")
        return add_extra_tests(checkpoint, load_checkpoint_file(path),
                               show=bool(extra.get("show")), name=extra["name"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _callables(owner) -> dict:
    return {k: v for k, v in vars(owner).items() if callable(v) or isinstance(v, property)}


def _snapshot() -> dict:
    """Every function and class (and each class's methods) of the modules the grading
    path uses, by identity: what a notebook would have to replace to fake a pass."""
    snap = _Snapshot()
    for name, module in list(sys.modules.items()):
        if not (name == "stridegrad" or name.startswith("stridegrad.")
                or name in ("builtins", "json", "os", "signal", "math", "operator")):
            continue
        for key, value in _callables(module).items():
            snap[(name, key)] = value
            if isinstance(value, type) and value.__module__ == name:
                for attr, member in _callables(value).items():
                    snap[(name, f"{key}.{attr}")] = member
    snap.codes = {k: _code_of(v) for k, v in snap.items()}
    return snap


def _code_of(value) -> tuple:
    """What a function runs: its code, defaults and closure (a notebook can swap the
    code of a function while the name still points to the same object)."""
    return (getattr(value, "__code__", None), getattr(value, "__defaults__", None),
            getattr(value, "__kwdefaults__", None), getattr(value, "__closure__", None))


def _same_code(a: tuple, b: tuple) -> bool:
    return all(x is y for x, y in zip(a, b))


def _tampered(snap: dict) -> list[str]:
    """The names in ``snap`` that now point to something else, or run other code."""
    changed = []
    for (module_name, key), value in snap.items():
        module = sys.modules.get(module_name)
        owner, _, attr = key.partition(".")
        current = vars(module).get(owner) if module is not None else None
        if attr:
            current = vars(current).get(attr) if isinstance(current, type) else None
        if current is not value or not _same_code(_code_of(value), snap.codes[(module_name,
                                                                                 key)]):
            changed.append(f"{module_name}.{key}")
    return changed


class _Snapshot(dict):
    """:func:`_snapshot`'s names -> objects, with each object's code (``codes``)."""

    codes: dict


def _freeze_tests(checkpoint):
    """The checkpoint's tests as loaded, apart from the object the notebook can reach
    (``stridegrad.course.checkpoints.epNN.checkpoint``), and what each runs."""
    from stridegrad.course.checks import Checkpoint

    frozen = Checkpoint(checkpoint.lesson, checkpoint.title, reference=checkpoint.reference)
    frozen.tests = list(checkpoint.tests)
    codes = {t.name: _code_of(t.func) for t in frozen.tests}
    return frozen, codes, list(checkpoint.tests)


def _tests_changed(checkpoint, frozen, codes: dict, loaded: list) -> list[str]:
    """What the notebook changed of the tests: the list it can reach, or a test's code."""
    changed = [f"test {t.name}" for t in frozen.tests
               if not _same_code(_code_of(t.func), codes[t.name])]
    if list(checkpoint.tests) != loaded or any(
            a is not b for a, b in zip(checkpoint.tests, loaded)):
        changed.insert(0, f"the tests of checkpoint {checkpoint.lesson}")
    return changed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m stridegrad.course._worker")
    p.add_argument("--episode", required=True)
    p.add_argument("--memory", type=int, default=None, help="address-space limit in MB")
    p.add_argument("--processes", type=int, default=None,
                   help="RLIMIT_NPROC (only in the sandbox: it counts per user namespace)")
    p.add_argument("--file-size", type=int, default=None, help="largest file it may write, MB")
    p.add_argument("--open-files", type=int, default=None)
    p.add_argument("--cell-timeout", type=float, default=None)
    p.add_argument("--cells-timeout", type=float, default=None,
                   help="seconds for all the cells together; cells after it are not run")
    p.add_argument("--test-timeout", type=float, default=10.0)
    args = p.parse_args(argv)
    started = time.monotonic()
    message = _read_message()
    token = message["token"]
    result_fd = _take_stdout()

    def write(payload: dict) -> int:
        payload["seconds"] = round(time.monotonic() - started, 3)
        payload["token"] = token
        _emit(result_fd, payload)
        sys.stderr.flush()
        os._exit(0)  # no atexit handler of the notebook's may write after the result

    name = Path(str(message.get("name") or "notebook.ipynb")).name
    raw = base64.b64decode(message.get("notebook", ""))
    limits = _limit(args.memory, args.processes, args.file_size, args.open_files)
    for relative, text in (message.get("files") or {}).items():  # warm caches (matplotlib's)
        path = Path(relative)
        if not path.is_absolute() and ".." not in path.parts:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    try:
        Path(name).write_bytes(raw)  # the notebook's own copy, in its working folder
        cells = parse_code_cells(raw, name)
    except (NotebookError, OSError) as exc:
        _log(f"not graded: {exc}")
        return write({"status": "invalid-notebook", "message": str(exc), "limits": limits})
    if message.get("serve"):
        return _serve(args, message, name, cells, limits, result_fd, token, write)

    from stridegrad.course.checks import load_checkpoint, run_checkpoint

    checkpoint = _load_hidden(message.get("extra_tests"), load_checkpoint(args.episode))
    if message.get("points"):  # the instructor's points file, resolved by the grader
        from stridegrad.course.points import apply_points

        checkpoint = apply_points(checkpoint, message["points"])
    os.environ[GRADING_ENV] = "1"  # check() in a cell runs no tests: they run once, below
    snapshot = _snapshot()
    # the tests that run are those loaded now, whatever the notebook does to the
    # checkpoint object it can reach; a change to them or their code is tampering
    reachable = load_checkpoint(args.episode)
    frozen, codes, loaded = _freeze_tests(checkpoint)
    reachable_tests = list(reachable.tests)
    runner, errors, definitions, cells_seconds = _run_cells(
        args, name, cells, limits, bool(message.get("keep")), result_fd, token,
        frozen.exercises, checkpoint.lesson)

    changed = list(dict.fromkeys(
        _tampered(snapshot) + _tests_changed(checkpoint, frozen, codes, loaded)
        + _tests_changed(reachable, frozen, codes, reachable_tests)))
    _log(f"tests: {len(frozen.tests)} tests of {len(frozen.exercises)} exercises"
         + (" not run: the notebook changed the grader" if changed else ""))
    tests_start = time.monotonic()
    result = None if changed else run_checkpoint(frozen, runner.namespace,
                                                 require_local=True, timeout=args.test_timeout)
    changed = changed or _tampered(snapshot)
    if changed:
        return write({"status": "tampered", "limits": limits,
                      "message": "the notebook replaced parts of the grader or of Python "
                                 f"itself ({', '.join(changed[:5])}); no points"})
    tests_seconds = time.monotonic() - tests_start
    for row in result.rows:
        _log(f"test {row.test} ({row.exercise}): {row.status} {row.points}/{row.max_points}"
             + (f": {row.message}"[:200] if row.message and not row.hidden else ""))
    _log(f"tests done in {tests_seconds:.3f} s: {result.score}/{result.max_score} points")
    # time the notebook left unused of its allowance, for re-running earlier definitions
    budget = ((args.cells_timeout or 0) - cells_seconds
              + len(frozen.tests) * args.test_timeout - tests_seconds - 2.0)
    redefined = definitions.compare(frozen, result, args.test_timeout, budget)
    for r in redefined:
        _log(f"{r['exercise']}: graded the definition from In [{r['graded_in']}]; check() in "
             f"In [{r['check_in']}] ran on the one from In [{r['earlier_in']}] "
             f"(earlier: {r['earlier_points']}, graded: {r['points']} of {r['max_points']})")
    milestone = None
    if isinstance(message.get("milestone"), dict):  # --yours, on the notebook's functions
        from stridegrad.course._judge import run_milestone_step

        milestone = run_milestone_step(message["milestone"], result, runner.namespace,
                                       remote=False)
    return write({"status": "graded", "code_cells": len(cells), "cell_errors": errors,
                  "limits": limits, "result": result.to_dict(), "redefined": redefined,
                  **({"milestone": milestone} if milestone is not None else {})})


def _serve(args, message: dict, name: str, cells: list[str], limits: str, result_fd: int,
           token: str, write) -> int:
    """The judge's worker (``serve`` in the message): no checkpoint, tests or points
    here. Run the cells, say what the exercises' names hold, then answer the judge's
    calls (:class:`stridegrad.course._wire.WorkerChannel`) until it is done."""
    from stridegrad.course import checks
    from stridegrad.course._wire import WorkerChannel

    exercises = [str(e) for e in message.get("exercises") or []]
    lesson = str(message.get("lesson") or args.episode)
    checks.GRADING_EXERCISES[_lesson_key(lesson)] = (lesson, exercises)
    runner, errors, definitions, cells_seconds = _run_cells(
        args, name, cells, limits, bool(message.get("keep")), result_fd, token, exercises,
        lesson)
    channel = WorkerChannel(message["request_fd"], result_fd)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the calls' prints
    names = {}
    for ex in exercises:
        if ex in runner.namespace:
            try:
                names[ex] = channel.codec.encode(runner.namespace[ex])
            except ValueError as exc:
                names[ex] = {"$t": [f"a value the grader cannot read ({exc})"]}
    origins = {}  # where each exercise's object says it comes from (advisory)
    for ex in names:
        try:
            value = runner.namespace[ex]
            origins[ex] = checks._origin(value) if callable(value) else None
        except Exception:
            origins[ex] = None
    earlier = definitions.candidates()
    channel.send({"token": token, "ready": True, "code_cells": len(cells),
                  "cell_errors": errors, "limits": limits, "names": names,
                  "origins": origins,
                  "cells_seconds": round(cells_seconds, 3),
                  "earlier": [{**e, "definition": channel.codec.encode(e["definition"])}
                              for e in earlier]})
    channel.serve_forever(runner.namespace)
    _log("the judge is done")
    sys.__stderr__.flush()
    os._exit(0)


def _lesson_key(lesson: str) -> str:
    head = lesson.split("_", 1)[0]
    return f"{int(head):02d}" if head.isdigit() else lesson


def _run_cells(args, name: str, cells: list[str], limits: str, keep: bool, result_fd: int,
               token: str, exercises: list[str], lesson: str):
    """Run the notebook's code cells in order (see the module's text); the runner (its
    globals), the cells' errors, the definitions seen, and the seconds it took."""
    os.environ[GRADING_ENV] = "1"  # check() in a cell runs no tests: they run once, after
    from stridegrad.course import checks
    from stridegrad.course._cells import CellRunner, Outputs

    outputs = Outputs()
    runner = CellRunner(outputs)
    real_stdout, real_stderr = sys.stdout, sys.stderr
    _log(f"{name}: {len(cells)} code cells; {limits}; limits: "
         + ", ".join(f"{what} {value:g} s" for what, value in (
             ("cell", args.cell_timeout), ("all cells", args.cells_timeout),
             ("test", args.test_timeout)) if value))
    definitions = _Definitions(exercises, runner.namespace, checks.GRADING_CALLS, lesson)
    errors = []
    cells_start = time.monotonic()
    run = 0
    for number, source in enumerate(cells):
        if not source.strip():
            continue
        run += 1
        left = (args.cells_timeout - (time.monotonic() - cells_start)
                if args.cells_timeout else None)
        if left is not None and left <= 0:
            why = f"not run: the cells before it used up the notebook's {args.cells_timeout:g} s"
            errors.append(_cell_error(number, run, source, why))
            _log(f"In [{run}] {why}")
            continue
        limit = min(x for x in (args.cell_timeout, left) if x) if (args.cell_timeout or left) \
            else None
        _log(CELL_STARTED.format(run=run, first_line=first_line(source)))
        cell_start = time.monotonic()
        _alarm(limit)
        try:
            problem = runner.run(source, run)
        except _CellTimeout:
            problem = {"error": "_CellTimeout", "line": None}
        finally:
            _disarm()
        seconds = time.monotonic() - cell_start
        runner.restore(real_stdout, real_stderr)
        cell_outputs = outputs.end()
        if problem is not None:
            error = problem["error"]
            if error.startswith("_CellTimeout"):
                error = (f"did not finish within {args.cell_timeout:g} s and was stopped"
                         if limit == args.cell_timeout else
                         f"was stopped: the cells used up the notebook's "
                         f"{args.cells_timeout:g} s")
                _as_timeout(cell_outputs, error)
            errors.append(_cell_error(number, run, source, error, problem["line"]))
            _log(f"In [{run}] failed after {seconds:.3f} s"
                 + (f" (line {problem['line']})" if problem["line"] else "")
                 + f": {error.splitlines()[0] if error else ''}"[:300])
        else:
            _log(f"In [{run}] ok in {seconds:.3f} s")
        definitions.after_cell(run)
        if keep:
            _emit(result_fd, {"token": token, "cell": number, "run": run,
                              "seconds": round(seconds, 3), "outputs": cell_outputs})
    cells_seconds = time.monotonic() - cells_start
    return runner, errors, definitions, cells_seconds


def _emit(fd: int, payload: dict) -> None:
    """Write one JSON line to the parent (a cell's outputs, or the result), whole."""
    data = b"\n" + json.dumps(payload).encode() + b"\n"
    while data:
        data = data[os.write(fd, data):]


def _as_timeout(cell_outputs: list[dict], error: str) -> None:
    """The error output of a stopped cell says so (its traceback shows where it was)."""
    for out in cell_outputs:
        if out["output_type"] == "error" and out["ename"] == "_CellTimeout":
            out["ename"], out["evalue"] = "TimeoutError", f"the cell {error}"
            if out["traceback"]:
                out["traceback"][-1] = f"TimeoutError: the cell {error}"
            return
    cell_outputs.append({"output_type": "error", "ename": "TimeoutError",
                         "evalue": f"the cell {error}", "traceback": []})


class _Definitions:
    """Which cell defined each exercise, and what each ``check()`` call would have
    tested: a scratch cell that redefines a function after its check() passed is
    graded on the redefinition (the final definitions count), and the feedback says so."""

    def __init__(self, exercises: list[str], namespace: dict, calls: list, lesson: str):
        self.exercises, self.namespace, self.calls, self.lesson = \
            exercises, namespace, calls, lesson
        self.current = {ex: namespace.get(ex) for ex in exercises}
        self.bound: dict[str, list[tuple[int, object]]] = {ex: [] for ex in exercises}
        self.checked: list[tuple[int, dict]] = []
        self.seen_calls = len(calls)

    def after_cell(self, run: int) -> None:
        for ex in self.exercises:
            value = self.namespace.get(ex)
            if value is not self.current[ex]:
                self.current[ex] = value
                self.bound[ex].append((run, value))
        new = self.calls[self.seen_calls:]
        self.seen_calls = len(self.calls)
        self.checked += [(run, seen) for lesson, seen in new if lesson == self.lesson]

    def _cell_of(self, ex: str, value, before: int | None = None) -> int | None:
        runs = [r for r, v in self.bound[ex] if v is value and (before is None or r <= before)]
        return runs[-1] if runs else None

    def candidates(self) -> list[dict]:
        """Each exercise whose last check() ran on another definition than the final one:
        the cells, and that definition (for the judge to re-run its tests)."""
        found = []
        for ex in self.exercises:
            final = self.namespace.get(ex)
            last = next(((run, seen) for run, seen in reversed(self.checked) if ex in seen),
                        None)
            if last is None or final is None:
                continue
            check_in, seen = last
            earlier = seen[ex]
            if earlier is None or earlier is final or not callable(earlier):
                continue
            found.append({"exercise": ex, "graded_in": self._cell_of(ex, final),
                          "check_in": check_in,
                          "earlier_in": self._cell_of(ex, earlier, check_in),
                          "definition": earlier})
        return found

    def compare(self, checkpoint, result, test_timeout: float, budget: float) -> list[dict]:
        """:func:`rescore` of :meth:`candidates`, in the notebook's own globals."""
        return rescore(checkpoint, result, self.candidates(), test_timeout, budget,
                       namespace=self.namespace, require_local=True)


def rescore(checkpoint, result, candidates: list[dict], test_timeout: float, budget: float,
            *, namespace: dict, require_local: bool) -> list[dict]:
    """For each of :meth:`_Definitions.candidates` (an exercise whose last check() ran on
    another definition than the one graded) that passed all its tests or scored more:
    the cells, and both scores (the earlier one's tests re-run while ``budget`` seconds
    last; else None)."""
    from stridegrad.course.checks import run_checkpoint

    found = []
    deadline = time.monotonic() + budget
    for c in candidates:
        ex = c["exercise"]
        rows = [r for r in result.rows if r.exercise == ex]
        entry = {"exercise": ex, "graded_in": c["graded_in"], "check_in": c["check_in"],
                 "earlier_in": c["earlier_in"],
                 "points": sum(r.points for r in rows),
                 "max_points": sum(r.max_points for r in rows),
                 "earlier_points": None, "earlier_passed": None}
        n = sum(t.exercise == ex for t in checkpoint.tests)
        left = deadline - time.monotonic()
        if n and left > 0.5:
            again = run_checkpoint(checkpoint, {**namespace, ex: c["definition"]}, exercise=ex,
                                   require_local=require_local, diagnose=False,
                                   timeout=min(test_timeout, left / n)).rows
            entry["earlier_points"] = sum(r.points for r in again)
            entry["earlier_passed"] = all(r.passed for r in again)
        if entry["earlier_points"] is None or entry["earlier_passed"] or \
                entry["earlier_points"] > entry["points"]:
            found.append(entry)
    return found

if __name__ == "__main__":
    sys.exit(main())
