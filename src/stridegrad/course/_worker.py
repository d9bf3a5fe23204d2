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

Code cells run in order in an in-process IPython shell (magics, ``display`` and
``__main__`` semantics as in a kernel, without a kernel's start-up cost and
ZeroMQ sockets); a cell that raises, or runs past the per-cell limit, is
skipped like an error in JupyterLab's Run All, and the next cell runs. Then the
checkpoint runs on the notebook's globals and the result, with the token, is
written as the last line of the worker's *original* stdout: the notebook's own
prints go to /dev/null. No result line means the process died (crash, out of
memory, killed).
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

__all__ = ["GRADING_ENV", "NotebookError", "add_extra_tests", "main", "parse_code_cells",
           "read_code_cells"]

#: Set in the worker while the notebook's cells run: ``check()`` then runs no tests
#: (the grader runs them once, after the last cell).
GRADING_ENV = "STRIDEGRAD_GRADING"


class NotebookError(Exception):
    """The file is not a notebook we can read."""


#: The most of a cell's error message, and of its source, that the result carries.
_ERROR_CHARS = 2000


def _cell_error(number: int, run: int, source: str, error: str) -> dict:
    """A cell's error as the feedback shows it: ``run`` is the execution count JupyterLab
    shows after Run All on a fresh kernel (``[run]``), with the cell's first line."""
    first = next((ln.strip() for ln in source.splitlines() if ln.strip()), "")
    return {"cell": number, "run": run, "first_line": first[:100],
            "source": source[:_ERROR_CHARS], "error": error}


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


class _Runner:
    """Runs cells one after the other; IPython when installed, else plain exec."""

    def __init__(self):
        try:
            from IPython.core.interactiveshell import InteractiveShell
            from traitlets.config import Config
        except ImportError:
            self.shell = None
            self.namespace = {"__name__": "__main__", "__builtins__": __builtins__}
            return
        config = Config()
        config.HistoryManager.enabled = False
        config.InteractiveShell.colors = "nocolor"
        self.shell = InteractiveShell.instance(config=config)
        self.namespace = self.shell.user_ns

    def run(self, source: str, number: int) -> str | None:
        """Run one cell; the error's one-line description, or None."""
        if self.shell is not None:
            result = self.shell.run_cell(source, store_history=False, silent=False)
            err = result.error_before_exec or result.error_in_exec
            if err is None:
                return None
            return f"{type(err).__name__}: {str(err)[:_ERROR_CHARS]}"
        try:
            code = compile(source, f"<cell {number}>", "exec")
            exec(code, self.namespace)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            return f"{type(exc).__name__}: {str(exc)[:_ERROR_CHARS]}"
        return None


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
    sys.stdin.close()
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    message = json.loads(line)
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
        os.write(result_fd, b"\n" + json.dumps(payload).encode() + b"\n")
        sys.stderr.flush()
        os._exit(0)  # no atexit handler of the notebook's may write after the result

    from stridegrad.course.checks import load_checkpoint, run_checkpoint

    checkpoint = _load_hidden(message.get("extra_tests"), load_checkpoint(args.episode))
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
        return write({"status": "invalid-notebook", "message": str(exc), "limits": limits})

    os.environ[GRADING_ENV] = "1"  # check() in a cell runs no tests: they run once, below
    runner = _Runner()
    snapshot = _snapshot()
    # the tests that run are those loaded now, whatever the notebook does to the
    # checkpoint object it can reach; a change to them or their code is tampering
    reachable = load_checkpoint(args.episode)
    frozen, codes, loaded = _freeze_tests(checkpoint)
    reachable_tests = list(reachable.tests)
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
            errors.append(_cell_error(number, run, source, "not run: the cells before it "
                                      f"used up the notebook's {args.cells_timeout:g} s"))
            continue
        limit = min(x for x in (args.cell_timeout, left) if x) if (args.cell_timeout or left) \
            else None
        _alarm(limit)
        try:
            problem = runner.run(source, number)
        except _CellTimeout:
            problem = "_CellTimeout"
        finally:
            _disarm()
        if problem is not None:
            if problem.startswith("_CellTimeout"):
                problem = (f"did not finish within {args.cell_timeout:g} s and was stopped"
                           if limit == args.cell_timeout else
                           f"was stopped: the cells used up the notebook's "
                           f"{args.cells_timeout:g} s")
            errors.append(_cell_error(number, run, source, problem))

    changed = list(dict.fromkeys(
        _tampered(snapshot) + _tests_changed(checkpoint, frozen, codes, loaded)
        + _tests_changed(reachable, frozen, codes, reachable_tests)))
    result = None if changed else run_checkpoint(frozen, runner.namespace,
                                                 require_local=True, timeout=args.test_timeout)
    changed = changed or _tampered(snapshot)
    if changed:
        return write({"status": "tampered", "limits": limits,
                      "message": "the notebook replaced parts of the grader or of Python "
                                 f"itself ({', '.join(changed[:5])}); no points"})
    return write({"status": "graded", "code_cells": len(cells), "cell_errors": errors,
                  "limits": limits, "result": result.to_dict()})


if __name__ == "__main__":
    sys.exit(main())
