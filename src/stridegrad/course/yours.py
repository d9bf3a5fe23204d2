"""Your library: the library with every exercise you solved swapped in.

``assemble(folder)`` reads your lesson notebooks (``NN_*.ipynb``) as the grader reads
them, each in a worker process of its own with the grader's limits
(:func:`stridegrad.course.grader.run_notebook`), and runs each lesson's checkpoint on
your definitions. An exercise you solved, whose function the library calls, becomes
the library's: ``stridegrad.array.layout.numel = your numel``. An exercise that is
missing, still a stub, or fails one of its checkpoint's tests keeps the reference,
and :meth:`Library.table` says why (``not written yet``, ``fails
`numel_of_a_scalar```, ``passes``).

What is read of a notebook: its *definitions*, in cell order: imports, ``def``,
``class``, assignments of plain values (``EPS = 1e-6``, ``Shape = tuple[int, ...]``:
no call on the right), and a ``try:`` of imports only (the setup cell's). The rest of
a cell (a plot, a training run, a ``check(...)``) is left out, so assembling needs
seconds, not the minutes a lesson's demonstrations take; the last definition of a
name counts, as after Run All. The same definitions are graded in the worker and then
run here, in your own process, so that the library calls your functions directly: a
cell the worker could not run (an error, past its time limit) is not run here either.
A function that reads a global made by a call (``W = make_weights()``) fails its
tests here ("fails `...`: it raised NameError: name 'W' is not defined"); define such
values inside the function. A
verdict is kept (:func:`cache_folder`) for the same definitions of the same lesson
with the same package files, so that only the lessons you changed are read again.

What can be swapped in is what the library calls through a module attribute: the
modules and functions of :data:`CALLED_THROUGH` (the strided array's calls into
``stridegrad.array.layout``, lessons 01-05; ``Value.backward()``'s ``topological_order``
and ``backward`` in ``stridegrad.scalar``; the autograd nodes' ``stridegrad.tensor.rules``
and gradcheck's ``numerical_gradient``; ``nn.Linear`` (lesson 09's class),
``nn.functional``'s ``log_softmax``/``nll_loss`` and the optimizers' ``sgd_step``/
``adam_step``; the backend's ``to_host`` and ``pick_device``; ``sg.compile``'s passes and
replay in ``stridegrad.compile.graph``; ``nn.conv``'s calls into ``stridegrad.nn.im2col``).
A lesson's other exercises are the lesson's own (``whose`` is "lesson", those of a
module of ``stridegrad.course`` included: lesson 06's closures, lesson 07's designs):
README.md's "Your library" lists them and says why. A library function that is an
exercise but that the library does not call (lesson 03's ``sum_axis``: its sums run
``reduce_axis``) is reported as "the library does not call this exercise". Which
module holds each exercise comes from the build's own output, the lesson modules
``stridegrad.course.solutions.epNN``, which import every library exercise from the
module whose function it is.

Installed (``with library:``, :func:`yours`, :func:`use_yours`), each of your
functions runs through a thin wrapper that counts its calls (:attr:`Library.calls`),
adds a note naming your function to an exception raised in it ("raised in your numel
(lesson 01)"), and, with ``call_limit``, stops a call that runs longer than that
many seconds with :class:`YourTimeout` naming the function (SIGALRM: in the main
thread only, elsewhere the limit is not enforced). A class of yours (lesson 09's
``Linear``) cannot be wrapped in a function: it is installed as a subclass of it made
on the fly, whose ``__init__`` is one such call (counted) and whose methods name your
class in their errors.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import hashlib
import importlib
import inspect
import json
import linecache
import os
import re
import signal
import tempfile
import threading
import time
import types
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CALLED_THROUGH", "Lesson", "Library", "Piece", "YourTimeout", "assemble", "cache_folder", "default_folder",
           "definitions", "library_exercises", "time_limit", "use_yours", "yours"]

#: The library's call sites that go through a module attribute: module -> the exercise
#: functions of it that the library's own code calls as ``module.function`` (so that
#: setting the attribute changes what the library runs). Only these can be yours.
#: When the library starts calling another module's exercises this way, add it here
#: (``tests/course/test_yours.py`` proves each name is called and no other is).
CALLED_THROUGH: dict[str, tuple[str, ...]] = {
    # stridegrad.array's modules do `from . import layout` and call layout.numel(...)
    "stridegrad.array.layout": (
        "numel", "contiguous_strides", "index_to_offset", "offset_to_index",
        "permute_layout", "slice_layout", "is_contiguous", "reshape_strides",
        "iter_offsets", "broadcast_shapes", "broadcast_strides",
        "map_unary", "map_binary", "reduce_axis",  # elementwise functions, reductions
        "broadcast_binary",  # an elementwise op stretching an inner axis
        "matmul_2d", "batched_matmul"),  # sa.matmul: lesson 05's kernels
    "stridegrad.gradcheck": ("numerical_gradient",),  # gradcheck's central differences
    "stridegrad.scalar": ("topological_order", "backward"),  # sg.Value's backward()
    # every device's to_numpy (t.numpy(), t.item()); set_default_device(("cuda", "cpu"))
    "stridegrad.backend": ("to_host", "pick_device"),
    "stridegrad.optim": ("sgd_step", "adam_step"),  # SGD/Adam's update of each parameter
    "stridegrad.nn.functional": ("log_softmax", "nll_loss"),  # F.log_softmax, x.log_softmax()
    # a class: nn.MLP builds its layers as modules.Linear(...), and sg.nn.Linear reads
    # modules.Linear at each lookup (the CNN, the lesson 09 milestone)
    "stridegrad.nn.modules": ("Linear",),
    # every backward node calls rules.unbroadcast(...), Sum/Mean/Max/Min/MatMulBackward theirs
    "stridegrad.tensor.rules": ("unbroadcast", "sum_backward", "max_backward", "matmul_backward"),
    # nn.conv: window views laid out by window_layout; on NumPy, conv2d / max_pool2d image by
    # image and their backward (except the fast 3x3 stride-1 path, with none of yours installed)
    "stridegrad.nn.im2col": ("window_layout", "im2col", "conv2d", "col2im", "max_pool2d",
                             "conv2d_input_grad"),
    # sg.compile: compile.passes runs the four passes on the lowered trace, and
    # compile.ir's Graph.run replays every compiled call with run_graph
    "stridegrad.compile.graph": ("run_graph", "eliminate_dead_code",
                                 "eliminate_common_subexpressions", "constant_fold",
                                 "fuse_elementwise"),
}

#: Seconds for the definitions of one notebook, in its worker (they only define).
CELLS_TIMEOUT = 60.0
_SOLUTIONS = "stridegrad.course.solutions"
_NOTEBOOK = re.compile(r"^(\d\d)_[A-Za-z0-9_-]*\.ipynb$")


class YourTimeout(BaseException):
    """One of your functions ran past the call limit (a BaseException, so that no
    ``except Exception`` in the library swallows it)."""

    def __init__(self, piece: Piece, seconds: float):
        super().__init__(f"your {piece.name} (lesson {piece.lesson}) did not return within "
                         f"{seconds:g} s and was stopped (an endless loop?)")
        self.piece, self.seconds = piece, seconds


# --------------------------------------------------------------------------- what is whose

def library_exercises() -> dict[str, dict[str, str]]:
    """Each lesson's library exercises: ``{"01": {"numel": "stridegrad.array.layout:numel",
    ...}, ...}``, read from the build's lesson modules (an exercise whose object there
    comes from another module is that module's function)."""
    import pkgutil

    import stridegrad.course.solutions as solutions

    out: dict[str, dict[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(solutions.__path__), key=lambda i: i.name):
        m = re.fullmatch(r"ep(\d\d)", info.name)
        if m is None:
            continue
        module = importlib.import_module(f"{_SOLUTIONS}.{info.name}")
        found = {}
        for name in module.__all__:
            obj = getattr(module, name)
            home = getattr(obj, "__module__", module.__name__)
            # a home in the course machinery (lesson 06's and 07's designs) is a
            # lesson's own module, not the library's
            if home != module.__name__ and not home.startswith("stridegrad.course."):
                found[name] = f"{home}:{obj.__name__}"
        out[m.group(1)] = found
    return out


def _called(target: str) -> bool:
    module, _, name = target.partition(":")
    return name in CALLED_THROUGH.get(module, ())


@dataclass
class Piece:
    """One exercise of a lesson, and whose version the assembled library runs."""

    lesson: str  # "01"
    name: str  # the exercise's name in the lesson
    target: str | None  # "module:function" of a library exercise; None: the lesson's own
    passed: bool = False  # your definition passes all of its checkpoint's tests
    why: str = "not written yet"
    function: Callable | None = None  # your definition (when it passes)

    @property
    def called(self) -> bool:
        """The library calls this exercise through its module (see :data:`CALLED_THROUGH`)."""
        return self.target is not None and _called(self.target)

    @property
    def yours(self) -> bool:
        return self.passed and self.called and self.function is not None

    @property
    def whose(self) -> str:
        if self.target is None:
            return "lesson"
        return "yours" if self.yours else "reference"

    @property
    def reason(self) -> str:
        if self.target is not None and not self.called:
            return f"{self.why}; the library does not call this exercise"
        return self.why


def _why(rows: list) -> tuple[bool, str]:
    """Whether an exercise's checkpoint rows all pass, and the reason in a few words."""
    if rows and all(r.passed for r in rows):
        return True, "passes"
    if not rows:
        return False, "not written yet"
    statuses = {r.status for r in rows}
    if statuses & {"stub", "missing"}:
        return False, "not written yet"
    for status in ("imported", "delegates"):
        if status in statuses:
            row = next(r for r in rows if r.status == status)
            return False, f"not yours: {row.message}"
    failing = next(r for r in rows if not r.passed)
    if failing.status == "error" and failing.got:  # "raised NameError: name 'W' is ..."
        return False, f"fails `{failing.test}`: it {failing.got[:200]}"
    return False, f"fails `{failing.test}`"


# --------------------------------------------------------------------------- definitions

_KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _calls(node: ast.AST) -> bool:
    """``node`` calls something when it runs (a lambda's body does not run)."""
    if isinstance(node, ast.Lambda):
        return False
    if isinstance(node, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
        return True
    return any(_calls(child) for child in ast.iter_child_nodes(node))


def _names_only(target: ast.AST) -> bool:
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, (ast.Tuple, ast.List)) and all(map(_names_only, target.elts))


def _kept(statement: ast.stmt) -> bool:
    if isinstance(statement, _KEPT):
        return True
    if isinstance(statement, ast.Assign):
        return all(map(_names_only, statement.targets)) and not _calls(statement.value)
    if isinstance(statement, ast.AnnAssign):
        return (isinstance(statement.target, ast.Name) and statement.value is not None
                and not _calls(statement.value))
    if isinstance(statement, ast.Try):  # the setup cell's `try: import stridegrad`
        return all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in statement.body)
    return False


def _python(cell: str) -> str:
    """A cell as Python: IPython's magics (``%matplotlib``) become calls, as in a kernel."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return cell
    try:
        return TransformerManager().transform_cell(cell)
    except Exception:  # what IPython cannot read, ast cannot either: no definitions
        return cell


def _statements(cell: str) -> tuple[list[str], list[ast.stmt]]:
    """The definitions of one code cell: their sources and their trees."""
    source = _python(cell)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return [], []
    lines = source.splitlines()
    texts, nodes = [], []
    for statement in tree.body:
        if _kept(statement):
            first = min([statement.lineno] + [d.lineno for d in getattr(
                statement, "decorator_list", [])])
            texts.append("\n".join(lines[first - 1:statement.end_lineno]))
            nodes.append(statement)
    return texts, nodes


def _imports(node: ast.stmt) -> set[str] | None:
    """The names an import (or the setup cell's ``try:`` of imports) binds; None for
    another statement, or for an import to keep whatever it binds (``*``, ``__future__``)."""
    parts = node.body if isinstance(node, ast.Try) else [node]
    if not all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in parts):
        return None
    names = set()
    for s in parts:
        if isinstance(s, ast.ImportFrom) and s.module == "__future__":
            return None
        for alias in s.names:
            if alias.name == "*":
                return None
            names.add((alias.asname or alias.name).split(".")[0])
    return names


def definitions(cells: list[str]) -> list[str]:
    """The definitions of each code cell of a notebook (see the module docstring), as
    source ("" for a cell with none, or one that is not valid Python). An import that
    no definition of the notebook reads is left out too (matplotlib's, the setup
    cell's ``check``): importing it would cost each worker a second."""
    parsed = [_statements(c) for c in cells]
    read = {n.id for _, nodes in parsed for node in nodes if _imports(node) is None
            for n in ast.walk(node) if isinstance(n, ast.Name)}
    out = []
    for texts, nodes in parsed:
        kept = [t for t, node in zip(texts, nodes)
                if (bound := _imports(node)) is None or bound & read]
        out.append("\n".join(kept))
    return out


def _cells(notebook: Path) -> list[str]:
    from stridegrad.course._worker import read_code_cells

    return read_code_cells(notebook)


def _definitions_notebook(sources: list[str]) -> bytes:
    """A notebook of the definitions ``sources``, one code cell for each of the
    notebook's (empty where a cell defines nothing), so that the worker numbers its
    cells as the notebook's."""
    nb = {"nbformat": 4, "nbformat_minor": 4, "metadata": {},
          "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None,
                     "outputs": [], "source": source} for source in sources]}
    return json.dumps(nb).encode("utf-8")


# --------------------------------------------------------------------------- reading a lesson

@dataclass
class Lesson:
    """One lesson of your library: its notebook (None if there is none) and its exercises."""

    episode: str
    title: str
    notebook: Path | None
    pieces: list[Piece] = field(default_factory=list)
    problem: str = ""  # why the notebook could not be read, if it could not
    seconds: float = 0.0


def _find_notebooks(folder: Path) -> dict[str, Path]:
    """Your notebook of each lesson in ``folder``: ``NN_slug.ipynb`` (a name with a dot
    more, ``NN_slug.backup.ipynb``, is not one); the course's own name first."""
    from stridegrad.course.paths import PACKAGED_NOTEBOOKS

    shipped = {p.name for p in PACKAGED_NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb"), key=lambda p: (p.name not in shipped,
                                                                      p.name)):
        m = _NOTEBOOK.match(path.name)
        if m and path.is_file():
            found.setdefault(m.group(1), path)
    return found


def cache_folder() -> Path:
    """Where the workers' verdicts are kept: ``$STRIDEGRAD_CACHE/yours``, else
    ``~/.cache/stridegrad/yours`` (``$XDG_CACHE_HOME`` when set)."""
    base = os.environ.get("STRIDEGRAD_CACHE")
    if base:
        return Path(base) / "yours"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "stridegrad" / "yours"


@functools.lru_cache(maxsize=1)
def _package_stamp() -> str:
    """What the verdicts depend on besides the definitions: every file of the package
    (the checkpoints, the judge, the library), by name, size and time of change."""
    root = Path(__file__).resolve().parents[1]
    stamp = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        info = path.stat()
        stamp.update(f"{path.relative_to(root)} {info.st_size} {info.st_mtime_ns}\n".encode())
    return stamp.hexdigest()


def _grade(notebook: Path, episode: str, sources: list[str]) -> dict:
    """The worker's result for the definitions ``sources`` of ``notebook``; the same
    definitions of the same lesson with the same package are read once (the result
    is kept in :func:`cache_folder`, a file per verdict)."""
    from stridegrad.course.grader import run_notebook

    key = hashlib.sha256(json.dumps([episode, notebook.name, sources, _package_stamp()])
                         .encode("utf-8")).hexdigest()
    kept = cache_folder() / f"{key}.json"
    with contextlib.suppress(OSError, ValueError):
        return json.loads(kept.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="stridegrad-yours-") as tmp:
        copy = Path(tmp) / notebook.name
        copy.write_bytes(_definitions_notebook(sources))
        graded = run_notebook(copy, episode, timeout=CELLS_TIMEOUT)
    if graded.get("status") == "graded":  # a crash or a timeout may not happen again
        with contextlib.suppress(OSError):
            kept.parent.mkdir(parents=True, exist_ok=True)
            partial = kept.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps(graded), encoding="utf-8")
            partial.replace(kept)
    return graded


def _run_here(lesson: Lesson, sources: list[str], failed: set[int],
              call_limit: float) -> dict:
    """Run the definitions of the cells the worker ran without an error, in a module of
    their own in this process; its namespace."""
    module = types.ModuleType(f"stridegrad_yours.lesson{lesson.episode}",
                              f"your definitions of {lesson.notebook}")
    namespace = vars(module)
    namespace["__builtins__"] = __builtins__
    for number, source in enumerate(sources):
        if not source or number in failed:
            continue
        filename = f"<{lesson.notebook.name}, code cell {number + 1}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        with contextlib.suppress(Exception), time_limit(call_limit, TimeoutError):
            exec(compile(source, filename, "exec"), namespace)
    return namespace


def read_lesson(episode: str, notebook: Path | None, targets: dict[str, str],
                graded: dict | None) -> Lesson:
    """A lesson of your library from the worker's result ``graded`` of its notebook."""
    from stridegrad.course.checks import CheckResult, load_checkpoint

    checkpoint = load_checkpoint(episode)
    lesson = Lesson(episode, checkpoint.title, notebook)
    pieces = {name: Piece(episode, name, targets.get(name)) for name in checkpoint.exercises}
    lesson.pieces = list(pieces.values())
    if notebook is None:
        for p in lesson.pieces:
            p.why = "not written yet (no notebook of this lesson)"
        return lesson
    if graded is None:  # not read: none of its exercises is called by the library
        for p in lesson.pieces:
            p.why = "not read"
        return lesson
    lesson.seconds = float(graded.get("seconds") or 0.0)
    if graded.get("status") != "graded":
        lesson.problem = str(graded.get("message") or graded.get("status"))
        for p in lesson.pieces:
            p.why = f"the notebook could not be read: {lesson.problem}"
        return lesson
    result = CheckResult.from_dict(graded["result"])
    for p in lesson.pieces:
        p.passed, p.why = _why([r for r in result.rows if r.exercise == p.name])
    if any(p.passed and p.called for p in lesson.pieces):
        failed = {e["cell"] for e in graded.get("cell_errors", [])}
        namespace = _run_here(lesson, graded["_sources"], failed, CELLS_TIMEOUT)
        for p in lesson.pieces:
            if p.passed and p.called:
                fn = namespace.get(p.name)
                if callable(fn):
                    p.function = fn
                else:
                    p.passed, p.why = False, "passes in the worker, but its cell fails here"
    return lesson


def default_folder() -> Path:
    """Where your notebooks are: the working directory when it holds lesson notebooks
    (a notebook's kernel runs in your copy of the lessons), else the copy
    ``stridegrad lab`` makes (``my-lessons/`` in a clone)."""
    from stridegrad.commands.lab import learner_folder

    here = Path.cwd()
    return here if _find_notebooks(here) else learner_folder()


def assemble(folder: Path | str | None = None, *, lessons: Iterable[str] | None = None,
             library_only: bool = False, jobs: int | None = None) -> Library:
    """Your library from the notebooks in ``folder`` (default :func:`default_folder`).

    Args:
        lessons: only these episodes (``"01"``); default: every lesson.
        library_only: read only the lessons with an exercise the library calls (enough
            to run the library: the others' exercises keep the reference anyway).
        jobs: workers at a time (default: the number of CPUs, at most 4).

    Raises:
        FileNotFoundError: naming ``folder`` when it is not a folder.
    """
    folder = Path(folder) if folder is not None else default_folder()
    if not folder.is_dir():
        raise FileNotFoundError(f"no folder {folder}: make your copy of the lessons with "
                                f"`stridegrad lessons {folder}` (or `stridegrad lab`)")
    start = time.monotonic()
    targets = library_exercises()
    episodes = sorted(targets) if lessons is None else [f"{int(e):02d}" for e in lessons]
    read = [e for e in episodes if not library_only
            or any(map(_called, targets.get(e, {}).values()))]
    notebooks = _find_notebooks(folder)

    def work(episode: str) -> dict | None:
        path = notebooks.get(episode)
        if path is None or episode not in read:
            return None
        try:
            sources = definitions(_cells(path))
        except Exception as exc:  # NotebookError: not JSON, not a notebook
            return {"status": "invalid-notebook", "message": str(exc)}
        graded = _grade(path, episode, sources)
        graded["_sources"] = sources
        return graded

    jobs = jobs or min(4, os.cpu_count() or 1)
    # the lessons with the most tests first, so that no long one starts last
    from stridegrad.course.checks import load_checkpoint

    longest_first = sorted(episodes, key=lambda e: -len(load_checkpoint(e).tests))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = dict(zip(longest_first, pool.map(work, longest_first)))
    graded = [done[e] for e in episodes]
    # your definitions run here one lesson after the other, in the main thread (where a
    # time limit can stop them)
    found = [read_lesson(e, notebooks.get(e), targets.get(e, {}), g)
             for e, g in zip(episodes, graded)]
    return Library(folder, found, time.monotonic() - start)


# --------------------------------------------------------------------------- running it

@contextlib.contextmanager
def time_limit(seconds: float | None, error: Callable[[], BaseException]):
    """Raise ``error()`` in this thread if the block runs past ``seconds`` (again at its
    end, if the block caught it); an outer limit that ends sooner stays as it is, and a
    later one keeps running after. No limit outside the main thread or without
    ``signal.setitimer``; a block that catches the error and loops on is not stopped."""
    if not seconds or not hasattr(signal, "setitimer") \
            or threading.current_thread() is not threading.main_thread():
        yield
        return
    outer, _ = signal.getitimer(signal.ITIMER_REAL)
    if outer and outer <= seconds:
        yield
        return
    start = time.monotonic()
    fired = []

    def on_alarm(signum, frame):
        fired.append(True)
        raise error()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 1e-3))
    if fired:  # the block caught the error (a bare `except:`) and went on: still late
        raise error()


class _Calls:
    """Your functions as the library calls them: counted, named in errors, limited."""

    def __init__(self, limit: float | None = None):
        self.limit = limit
        self.counts: Counter = Counter()
        self.stack: list[tuple[Piece, float]] = []
        self.record: dict[str, list] | None = None  # name -> [(args, kwargs, result)]

    def _culprit(self) -> Piece:
        """The function that hung: the innermost one running for most of the limit."""
        now = time.monotonic()
        for piece, started in reversed(self.stack):
            if now - started >= 0.5 * self.limit:
                return piece
        return self.stack[0][0]

    def call(self, piece: Piece, fn: Callable, args: tuple, kwargs: dict,
             count: bool = True):
        if count:
            self.counts[piece.name] += 1
        outer = not self.stack
        self.stack.append((piece, time.monotonic()))
        limit = self.limit if outer else None
        kept = self._keep(piece, args, kwargs)
        seen = copy.deepcopy((args, kwargs)) if kept is not None else None
        try:
            with time_limit(limit, lambda: YourTimeout(self._culprit(), self.limit)):
                result = fn(*args, **kwargs)
        except (YourTimeout, StopIteration, GeneratorExit, KeyboardInterrupt):
            raise
        except BaseException as exc:
            note = f"raised in your {piece.name} (lesson {piece.lesson})"
            if not any(n.startswith("raised in your ") for n in getattr(exc, "__notes__", [])):
                exc.add_note(note)
            raise
        finally:
            self.stack.pop()
        if kept is not None:
            kept.append((*seen, result))
        if inspect.isgenerator(result):
            return self._generator(piece, result)
        return result

    def _keep(self, piece: Piece, args: tuple, kwargs: dict) -> list | None:
        """Where to record this call (small arguments only, the first 100 calls; not
        a class's: what it makes is a new object, never equal to the library's)."""
        if self.record is None or inspect.isclass(piece.function):
            return None
        calls = self.record.setdefault(piece.name, [])
        if len(calls) >= 100 or len(repr((args, kwargs))) > 300:
            return None
        return calls

    def _generator(self, piece: Piece, gen):
        while True:
            try:
                value = self.call(piece, next, (gen,), {})
            except StopIteration:
                return
            yield value


def _wrap_class(calls: _Calls, piece: Piece, cls: type) -> type:
    """Your class as the library builds it: a subclass of it, of the same name, whose
    ``__init__`` runs yours as one counted, limited call, and whose methods run yours
    with your name on their errors (a class cannot be wrapped in a function: the
    library subclasses it, checks ``isinstance`` against it, and your methods call
    ``super()``). ``__wrapped__`` is your class."""

    def __init__(self, *args, **kwargs):
        calls.call(piece, cls.__init__, (self, *args), kwargs)

    def method(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def yours(self, *args, **kwargs):
            return calls.call(piece, fn, (self, *args), kwargs, count=False)
        return yours

    namespace = {name: method(attr) for name, attr in vars(cls).items()
                 if inspect.isfunction(attr) and name != "__init__"}
    namespace.update(__init__=functools.wraps(cls.__init__)(__init__), __wrapped__=cls,
                     __module__=cls.__module__, __qualname__=cls.__qualname__,
                     __doc__=cls.__doc__)
    return type(cls.__name__, (cls,), namespace)


class Library:
    """Your library: each lesson's exercises, and whose the library runs.

    ``with library:`` installs your functions (see the module docstring) and puts the
    library's own back at the end; :meth:`install` and :meth:`restore` do it by hand.
    """

    def __init__(self, folder: Path, lessons: list[Lesson], seconds: float = 0.0):
        self.folder, self.lessons, self.seconds = folder, lessons, seconds
        self._originals: dict[tuple[str, str], Callable] = {}
        self._calls = _Calls()

    @property
    def pieces(self) -> list[Piece]:
        return [p for lesson in self.lessons for p in lesson.pieces]

    @property
    def library_pieces(self) -> list[Piece]:
        return [p for p in self.pieces if p.target is not None]

    @property
    def mine(self) -> list[Piece]:
        """The exercises of yours that the library runs."""
        return [p for p in self.pieces if p.yours]

    @property
    def calls(self) -> Counter:
        """How many times the library called each of your functions while installed."""
        return self._calls.counts

    def reference(self, piece: Piece) -> Callable:
        """The library's own function of a library exercise."""
        module_name, _, name = piece.target.partition(":")
        saved = self._originals.get((module_name, name))
        return saved if saved is not None else getattr(importlib.import_module(module_name),
                                                       name)

    def install(self, only: Iterable[str] | None = None, call_limit: float | None = None,
                ) -> Library:
        """Put your functions (or only those named in ``only``) into the library."""
        if self._originals:
            raise RuntimeError("your library is installed already: restore() it first")
        wanted = None if only is None else set(only)
        self._calls.limit = call_limit
        for piece in self.mine:
            if wanted is not None and piece.name not in wanted:
                continue
            module_name, _, name = piece.target.partition(":")
            module = importlib.import_module(module_name)
            self._originals[(module_name, name)] = getattr(module, name)
            setattr(module, name, self._wrap(piece))
        return self

    def _wrap(self, piece: Piece) -> Callable:
        calls, fn = self._calls, piece.function
        if inspect.isclass(fn):
            return _wrap_class(calls, piece, fn)

        @functools.wraps(fn)
        def yours(*args, **kwargs):
            return calls.call(piece, fn, args, kwargs)

        return yours

    def restore(self) -> None:
        """Put the library's own functions back."""
        for (module_name, name), original in self._originals.items():
            setattr(importlib.import_module(module_name), name, original)
        self._originals.clear()

    def __enter__(self) -> Library:
        return self.install()

    def __exit__(self, *exc) -> None:
        self.restore()

    # ------------------------------------------------------------------ reports

    def summary(self) -> str:
        """One line: how many library exercises are yours, and which are not and why."""
        pieces = self.library_pieces
        mine = [p.name for p in pieces if p.yours]
        groups: dict[str, list[str]] = {}
        for p in pieces:
            if p.yours:
                continue
            if not p.called:
                key = "the library does not call these exercises"
            elif p.why.startswith("fails"):
                key = "fails its checkpoint"
            else:
                key = p.why.split(" (")[0].split(":")[0]
            groups.setdefault(key, []).append(p.name)
        line = f"{len(mine)} of {len(pieces)} library exercises yours"
        if groups:
            line += "; reference for: " + "; ".join(
                f"{', '.join(names)} ({key})" for key, names in groups.items())
        return line

    def table(self) -> str:
        """A table per lesson: each exercise, yours or the reference's, and why."""
        out = [f"your library, from {self.folder} (yours: the library runs your function; "
               "reference: the library's own; lesson: the lesson's exercise, not a library "
               "function)"]
        for lesson in self.lessons:
            where = lesson.notebook.name if lesson.notebook else "no notebook"
            out.append(f"\nlesson {lesson.episode} ({lesson.title}): {where}")
            width = max(len(p.name) for p in lesson.pieces) if lesson.pieces else 0
            for p in lesson.pieces:
                out.append(f"  {p.name:<{width}}  {p.whose:<9}  {p.reason}")
        out.append("\n" + self.summary())
        return "\n".join(out)

    def __repr__(self) -> str:
        return f"<your library from {self.folder}: {self.summary()}>"


# --------------------------------------------------------------------------- in a notebook

_ASSEMBLED: dict[tuple, Library] = {}


def _cached(folder: Path | str | None) -> Library:
    """Your library from ``folder``, assembled again only when a notebook changed."""
    folder = Path(folder) if folder is not None else default_folder()
    stamp = tuple(sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size)
                         for p in _find_notebooks(folder).values())) if folder.is_dir() else ()
    key = (str(folder.resolve()), stamp)
    if key not in _ASSEMBLED:
        _ASSEMBLED.clear()
        _ASSEMBLED[key] = assemble(folder, library_only=True)
    return _ASSEMBLED[key]


@contextlib.contextmanager
def yours(folder: Path | str | None = None, *, quiet: bool = False):
    """Run the cells inside on your library: ``with yours(): ...`` (your saved
    notebooks in ``folder``, default :func:`default_folder`); says which pieces are
    yours first, unless ``quiet``."""
    library = _cached(folder)
    if not quiet:
        print(library.summary())
    with library:
        yield library


def use_yours(folder: Path | str | None = None, *, quiet: bool = False) -> Library:
    """Run the rest of this session on your library (``.restore()`` ends it)."""
    library = _cached(folder)
    if not quiet:
        print(library.summary())
    return library.install()
