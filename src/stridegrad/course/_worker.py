"""Run one notebook's code and its checkpoint, in a process of its own.

``python -m stridegrad.course._worker NOTEBOOK RESULT --episode NN [...]``

Used by ``stridegrad grade`` and ``stridegrad check``: the parent starts one
worker per notebook with a wall-clock timeout, and this process limits its own
address space (``RLIMIT_AS``) before touching the notebook. Code cells run in
order in an in-process IPython shell (magics, ``display`` and ``__main__``
semantics as in a kernel, without a kernel's start-up cost and ZeroMQ
sockets); a cell that raises, or runs past the per-cell limit, is skipped like
an error in JupyterLab's Run All, and the next cell runs. Then the checkpoint
runs on the notebook's globals and the result is written to RESULT as JSON.
No RESULT file means the process died (crash, out of memory, killed).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

__all__ = ["NotebookError", "main", "read_code_cells"]


class NotebookError(Exception):
    """The file is not a notebook we can read."""


class _CellTimeout(BaseException):
    """A cell ran past its time limit (BaseException: not caught by ``except Exception``)."""


def read_code_cells(path: Path) -> list[str]:
    """The code cells' sources of an nbformat 4 notebook, with plain ``json``."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise NotebookError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    try:
        nb = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise NotebookError(f"{path.name} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise NotebookError(f"{path.name} is not valid JSON (line {exc.lineno}, column "
                            f"{exc.colno}: {exc.msg})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError(f"{path.name} is JSON but not a Jupyter notebook (no 'cells' list)")
    if nb.get("nbformat") != 4:
        raise NotebookError(f"{path.name} has nbformat {nb.get('nbformat')!r}; save it with "
                            "JupyterLab (nbformat 4)")
    sources = []
    for cell in nb["cells"]:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            src = cell.get("source", "")
            sources.append("".join(src) if isinstance(src, list) else str(src))
    return sources


def _limit_memory(megabytes: int | None) -> str:
    if not megabytes:
        return "no memory limit"
    try:
        import resource
    except ImportError:  # Windows
        return "no memory limit (the resource module is missing on this platform)"
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return f"memory limited to {megabytes} MB"


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
            return f"{type(err).__name__}: {str(err)[:200]}"
        try:
            code = compile(source, f"<cell {number}>", "exec")
            exec(code, self.namespace)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            return f"{type(exc).__name__}: {str(exc)[:200]}"
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


def _read_token() -> str:
    """The parent's one-time token, read from stdin before any notebook code runs.

    The result file carries it back, so a notebook that writes a result file of its
    own (and then exits) cannot pass it off as the grader's. stdin is closed after.
    """
    token = sys.stdin.readline().strip()
    sys.stdin.close()
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    return token


def _callables(owner) -> dict:
    return {k: v for k, v in vars(owner).items() if callable(v) or isinstance(v, property)}


def _snapshot() -> dict:
    """Every function and class (and each class's methods) of the modules the grading
    path uses, by identity: what a notebook would have to replace to fake a pass."""
    snap = {}
    for name, module in list(sys.modules.items()):
        if not (name == "stridegrad" or name.startswith("stridegrad.")
                or name in ("builtins", "json", "os", "signal", "math", "operator")):
            continue
        for key, value in _callables(module).items():
            snap[(name, key)] = value
            if isinstance(value, type) and value.__module__ == name:
                for attr, member in _callables(value).items():
                    snap[(name, f"{key}.{attr}")] = member
    return snap


def _tampered(snap: dict) -> list[str]:
    """The names in ``snap`` that now point to something else."""
    changed = []
    for (module_name, key), value in snap.items():
        module = sys.modules.get(module_name)
        owner, _, attr = key.partition(".")
        current = vars(module).get(owner) if module is not None else None
        if attr:
            current = vars(current).get(attr) if isinstance(current, type) else None
        if current is not value:
            changed.append(f"{module_name}.{key}")
    return changed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m stridegrad.course._worker")
    p.add_argument("notebook", type=Path)
    p.add_argument("result", type=Path)
    p.add_argument("--episode", required=True)
    p.add_argument("--extra-tests", type=Path)
    p.add_argument("--memory", type=int, default=None, help="address-space limit in MB")
    p.add_argument("--cell-timeout", type=float, default=None)
    p.add_argument("--test-timeout", type=float, default=10.0)
    p.add_argument("--token-stdin", action="store_true",
                   help="read a one-time token from stdin and put it in the result")
    args = p.parse_args(argv)
    started = time.monotonic()
    token = _read_token() if args.token_stdin else None

    def write(payload: dict) -> int:
        payload["seconds"] = round(time.monotonic() - started, 3)
        if token is not None:
            payload["token"] = token
        tmp = args.result.with_suffix(".partial")
        tmp.write_text(json.dumps(payload), encoding="utf-8")
        os.replace(tmp, args.result)
        return 0

    from stridegrad.course.checks import load_checkpoint, load_checkpoint_file, run_checkpoint

    checkpoint = load_checkpoint(args.episode)
    if args.extra_tests:
        checkpoint = checkpoint.extend(load_checkpoint_file(args.extra_tests))
    memory_note = _limit_memory(args.memory)

    try:
        cells = read_code_cells(args.notebook)
    except NotebookError as exc:
        return write({"status": "invalid-notebook", "message": str(exc), "memory": memory_note})

    runner = _Runner()
    snapshot = _snapshot()
    errors = []
    for number, source in enumerate(cells):
        if not source.strip():
            continue
        _alarm(args.cell_timeout)
        try:
            problem = runner.run(source, number)
        except _CellTimeout:
            problem = "_CellTimeout"
        finally:
            _disarm()
        if problem is not None:
            if problem.startswith("_CellTimeout"):
                problem = f"did not finish within {args.cell_timeout:g} s and was stopped"
            errors.append({"cell": number, "error": problem})

    changed = _tampered(snapshot)
    result = None if changed else run_checkpoint(checkpoint, runner.namespace,
                                                 require_local=True, timeout=args.test_timeout)
    changed = changed or _tampered(snapshot)
    if changed:
        return write({"status": "tampered", "memory": memory_note,
                      "message": "the notebook replaced parts of the grader or of Python "
                                 f"itself ({', '.join(changed[:5])}); no points"})
    return write({"status": "graded", "code_cells": len(cells), "cell_errors": errors,
                  "memory": memory_note, "result": result.to_dict()})


if __name__ == "__main__":
    sys.exit(main())
