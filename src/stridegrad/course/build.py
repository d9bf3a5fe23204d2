"""Build ``lessons/`` and ``solutions/`` from ``course/NN_slug.py`` (jupytext percent format).

A course source is an ordinary percent-format script. Code cells may start
with directive lines in Quarto's ``#| key: value`` style, which the build reads
and removes:

``#| setup``
    The lesson's setup cell (the first code cell). The build puts the install
    block in front of it: import stridegrad, or on Colab pip-install it from
    ``stridegrad.course.links.REPO_URL``. The author writes only the imports.
``#| exercise: stridegrad.array.layout.numel``
    An exercise that is a library function. The cell body stays empty: the
    build copies the function's source from the library with
    ``inspect.getsource`` (its body between ``### BEGIN SOLUTION`` and
    ``### END SOLUTION``) into the solution, and writes a stub that keeps the
    signature and docstring and raises ``NotImplementedError(hint)`` into the
    lesson. Outside the markers both hold the same lines (a docstring's "Stands
    for the loop::" section is left out of both), so nbgrader's ClearSolutions
    turns the solution into the lesson. ``module:function`` works too.
``#| exercise: stridegrad.nn.modules.Linear``
    An exercise that is a library class, the same way: the build copies the class's
    source; in the lesson the class line, the class docstring and every method's
    signature and docstring stay, and each method's body becomes the stub. What
    the learner is given stays whole, outside the markers, in both: a leading
    ``super().__init__(...)`` (the base class's set-up, not the exercise) and a
    method whose docstring says ``(Given: not part of the exercise.)``.
``#| exercise: flatten``
    An exercise written in the cell itself (no dot in the name): the code
    between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` becomes the stub.
``#| hint: multiply the sizes``
    The ``NotImplementedError`` message of the exercise's stub: a nudge, to which the
    build adds where the exercise's hint levels are (``hint("01", "numel")``) when
    ``stridegrad.course.hints`` has some. The algorithm belongs in those levels, not
    in the docstring or the stub: the docstring states the contract.
``#| check: numel`` / ``#| check: all``
    A checkpoint cell; the build writes ``check("NN", "numel")`` /
    ``check("NN")``. A per-exercise check is an nbgrader grade cell worth the
    exercise's checkpoint points, except for an optional stretch exercise
    (``Checkpoint.test(..., stretch=True)``), whose check cell is locked but not
    graded: its points are reported apart.
``#| calls-exercise``
    The cell calls an exercise, so it raises in a fresh lesson: tagged
    ``raises-exception`` there (Run All and nbval go on), untagged in the solution.
``#| requires: stridegrad.nn.MLP, stridegrad.optim``
    Keep the cell only if these modules (or module attributes) exist; also as
    cell metadata ``requires="..."`` in a markdown cell's header.

Markdown cells may use ``{{repo_url}}``, ``{{binder_url}}`` and
``{{colab_url}}`` (this lesson's), filled in from ``stridegrad.course.links``.

Besides the notebooks, the build writes ``stridegrad/course/solutions/epNN.py``: the
lesson's exercises as one importable module, the oracle of the checkpoint's contracts
(:meth:`stridegrad.course.checks.Checkpoint.contract`). It holds the setup cell's
imports that the exercises use, an import of each library exercise (the library's own
function, not a copy) and each inline exercise's solution cell without its markers,
in the lesson's order. Like the notebooks, it is written from the course source only.

Outputs are deterministic: cell ids are ``epNN-KKK`` (episode, position),
solutions are executed by nbclient with ``record_timing=False``, and the
notebook metadata carries no Python micro version. A rebuild with the same
sources and library is byte-identical.
"""

from __future__ import annotations

import ast
import builtins
import copy
import hashlib
import importlib
import json
import inspect
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stridegrad.course.checks import load_checkpoint
from stridegrad.course.links import pip_spec
from stridegrad.course.paths import Lesson, find_lessons

__all__ = [
    "DIRECTIVES",
    "MANIFEST",
    "BuildError",
    "BuiltLesson",
    "EditedError",
    "Exercise",
    "build",
    "build_lesson",
    "check_drift",
    "notebook_text",
    "parse_directives",
    "reference_namespace",
    "setup_preamble",
]

DIRECTIVES = ("setup", "exercise", "hint", "check", "calls-exercise", "requires")
_DIRECTIVE = re.compile(r"^#\|\s*([A-Za-z][\w-]*)\s*(?::\s*(.*?))?\s*$")
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}
_KEEP_CELL_METADATA = ("tags", "nbgrader", "editable", "deletable")
_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


class BuildError(Exception):
    """A course source that cannot be built; the message names the file and the cell."""


class EditedError(BuildError):
    """A built notebook was changed since the build wrote it; the build will not
    overwrite it without ``force=True``. The message names every such file."""


@dataclass
class Exercise:
    """One exercise of a lesson."""

    name: str
    target: str | None  # "module:name" of a library function or class, None for an inline one
    solution: str  # the solution cell's source
    stub: str  # the lesson cell's source


@dataclass
class BuiltLesson:
    lesson: Lesson
    student: Any  # nbformat.NotebookNode
    solution: Any
    exercises: dict[str, Exercise] = field(default_factory=dict)
    setup: str = ""  # the setup cell's body, as the author wrote it

    def solutions_module(self) -> str:
        """The source of ``stridegrad/course/solutions/epNN.py`` (see the module doc)."""
        return solutions_module(self)


def setup_preamble() -> str:
    """The install block every lesson's setup cell starts with."""
    return (
        "# Setup: run this cell first. It works locally, on Binder and on Colab.\n"
        "try:\n"
        "    import stridegrad\n"
        "except ImportError:  # not installed for this kernel: on Colab, install it from GitHub\n"
        "    try:\n"
        "        import google.colab  # noqa: F401\n"
        "    except ImportError:\n"
        "        raise ImportError(\"stridegrad is not installed for this kernel: run \"\n"
        "                          \"`pip install -e .` in your clone of the course, or \"\n"
        f"                          \"`pip install {pip_spec()}`, then restart the kernel\") from None\n"
        "    import subprocess, sys\n"
        f"    subprocess.run([sys.executable, \"-m\", \"pip\", \"install\", \"--quiet\", {pip_spec()!r}],\n"
        "                   check=True)\n"
        "    import stridegrad\n"
    )


def parse_directives(source: str) -> tuple[dict[str, str], str]:
    """Split a code cell's leading ``#| key: value`` lines from its body."""
    lines = source.split("\n")
    found: dict[str, str] = {}
    k = 0
    while k < len(lines):
        m = _DIRECTIVE.match(lines[k])
        if not m:
            break
        key, value = m.group(1), (m.group(2) or "").strip()
        if key not in DIRECTIVES:
            raise ValueError(f"unknown directive '#| {key}' (known: {', '.join(DIRECTIVES)})")
        if key in found:
            raise ValueError(f"directive '#| {key}' given twice")
        found[key] = value
        k += 1
    return found, "\n".join(lines[k:]).strip("\n")


# --------------------------------------------------------------------------- exercises

def _resolve(target: str) -> tuple[str, str, Callable]:
    """The module, name and object of a library exercise: a function, or a class
    defined in that module."""
    module_name, _, name = target.replace(":", ".").rpartition(".")
    if not module_name:
        raise ValueError(f"exercise target {target!r} must be 'package.module.function'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"exercise target {target!r}: cannot import {module_name} ({exc})") from None
    fn = getattr(module, name, None)
    if not (inspect.isfunction(fn) or inspect.isclass(fn) and fn.__module__ == module_name):
        raise ValueError(f"exercise target {target!r}: {module_name} has no function or "
                         f"class {name!r}")
    return module_name, name, fn


def _strip_answer(lines: list[str]) -> list[str]:
    """Drop a docstring's "Stands for the loop::" section (the loop *is* the answer)
    from a stub: the paragraph ending in ``::`` and the indented block after it."""
    out: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.strip().startswith("Stands for"):
            # the paragraph may wrap: it ends at the first line ending in "::"
            end = k
            while end < len(lines) and lines[end].strip() and not lines[end].rstrip().endswith("::"):
                end += 1
            if end == len(lines) or not lines[end].strip():
                out.append(line)  # a paragraph that mentions the phrase, no loop after it
                k += 1
                continue
            base = len(line) - len(line.lstrip())
            k = end + 1
            while k < len(lines) and (not lines[k].strip()
                                      or len(lines[k]) - len(lines[k].lstrip()) > base):
                if lines[k].strip().endswith(('"""', "'''")) and \
                        len(lines[k]) - len(lines[k].lstrip()) <= base:
                    break
                k += 1
            continue
        out.append(line)
        k += 1
    return out


def _with_pointer(hint: str, episode: str, target: str) -> str:
    """A stub's message: the ``#| hint`` nudge, and where the hint levels are when the
    exercise has some (``stridegrad.course.hints``)."""
    from stridegrad.course.hints import for_episode, pointer

    name = target.replace(":", ".").rpartition(".")[2]
    if name not in for_episode(episode):
        return hint
    more = f"hints in levels: {pointer(episode, name)}"
    return f"{hint} ({more})" if hint else more


def _stub_line(indent: str, hint: str) -> list[str]:
    return [f"{indent}# YOUR CODE HERE", f"{indent}raise NotImplementedError({hint!r})"]


def _docstring_of(body: list[ast.stmt]) -> str | None:
    first = body[0]
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return first.value.value
    return None


def _is_super_init(statement: ast.stmt) -> bool:
    """``super().__init__(...)``: the base class's set-up, which a stub keeps."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == "__init__" and isinstance(call.func.value, ast.Call)
            and isinstance(call.func.value.func, ast.Name) and call.func.value.func.id == "super")


def _split_body(lines: list[str], fdef: ast.AST, what: str, keep_super: bool = False,
                ) -> tuple[int, int, str] | None:
    """Where a function's given head ends and its body to write ends (line numbers, of
    ``lines``, 1-based as ``ast``'s) and the body's indent; None when there is nothing
    to write (a docstring only, or a ``super().__init__()`` only, when it is kept)."""
    body = fdef.body
    if body[0].lineno == fdef.lineno:
        raise ValueError(f"{what}: put the body of {fdef.name} on its own lines")
    skip = 1 if _docstring_of(body) is not None else 0
    if keep_super and len(body) > skip and _is_super_init(body[skip]):
        skip += 1
    if skip == len(body):
        return None
    first = body[skip]
    head_end = body[skip - 1].end_lineno if skip else first.lineno - 1
    indent = re.match(r"\s*", lines[first.lineno - 1]).group(0)
    return head_end, fdef.end_lineno, indent


def library_exercise(target: str, hint: str) -> Exercise:
    """Solution and stub of a library function or class, from its source."""
    module_name, name, fn = _resolve(target)
    if inspect.isclass(fn):
        return _library_class(target, module_name, name, fn, hint)
    source = inspect.getsource(fn)
    if source[:1].isspace():
        raise ValueError(f"exercise target {target!r} is not a top-level function")
    lines = source.rstrip("\n").split("\n")
    fdef = ast.parse(source).body[0]
    split = _split_body(lines, fdef, target)
    if split is None:
        raise ValueError(f"{target}: {name} has only a docstring, nothing to write")
    head_end, _, indent = split
    head, rest = lines[:head_end], lines[head_end:]
    # the lesson's head in both: outside the markers the solution holds only what the
    # learner is given, so nbgrader's ClearSolutions turns it into the lesson's cell
    stub_head = _strip_answer(head) if _docstring_of(fdef.body) is not None else head
    solution = "\n".join(stub_head + [f"{indent}{BEGIN}"] + rest + [f"{indent}{END}"])
    stub = "\n".join(stub_head + _stub_line(indent, hint or f"write the body of {name}"))
    return Exercise(name, f"{module_name}:{name}", solution, stub)


#: A method of a library class exercise whose docstring says this is given whole, in
#: the lesson as in the solution.
GIVEN = "(Given: not part of the exercise.)"


def _library_class(target: str, module_name: str, name: str, cls: type,
                   hint: str) -> Exercise:
    """Solution and stub of a library class: each method's body to write between the
    markers, the rest as it is (see the module doc)."""
    source = inspect.getsource(cls)
    if source[:1].isspace():
        raise ValueError(f"exercise target {target!r} is not a top-level class")
    lines = source.rstrip("\n").split("\n")
    cdef = ast.parse(source).body[0]
    solution: list[str] = []
    stub: list[str] = []
    done = 0  # lines[:done] are written
    for node in cdef.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if GIVEN in " ".join((_docstring_of(node.body) or "").split()):
            continue  # copied whole with the lines around it
        split = _split_body(lines, node, target, keep_super=node.name == "__init__")
        if split is None:
            continue
        head_end, end, indent = split
        given = _strip_answer(lines[done:head_end])
        solution += given + [f"{indent}{BEGIN}"] + lines[head_end:end] + [f"{indent}{END}"]
        stub += given + _stub_line(indent, hint or f"write {name}.{node.name}")
        done = end
    if not done:
        raise ValueError(f"{target}: {name} has no method to write")
    rest = _strip_answer(lines[done:])
    return Exercise(name, f"{module_name}:{name}", "\n".join(solution + rest),
                    "\n".join(stub + rest))


def inline_exercise(name: str, body: str, hint: str) -> Exercise:
    """Solution and stub of an exercise written in the cell, between the markers."""
    out: list[str] = []
    inside = False
    regions = 0
    for line in body.split("\n"):
        if "BEGIN SOLUTION" in line:
            if inside:
                raise ValueError(f"exercise {name}: nested {BEGIN}")
            inside = True
            regions += 1
            out += _stub_line(re.match(r"\s*", line).group(0), hint or f"write {name}")
        elif "END SOLUTION" in line:
            if not inside:
                raise ValueError(f"exercise {name}: {END} without {BEGIN}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"exercise {name}: {BEGIN} without {END}")
    if not regions:
        raise ValueError(f"exercise {name}: no {BEGIN} / {END} region in the cell")
    return Exercise(name, None, body, "\n".join(out))


def _top_level_names(source: str) -> set[str]:
    """Names a cell binds at top level (IPython magics ignored)."""
    text = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.split("\n"))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _names_read(fdef: ast.AST) -> set[str]:
    """Global names a function or class definition reads (annotations included)."""
    # parameters of the function and of any nested function or lambda are local
    loads, local = set(), {a.arg for a in ast.walk(fdef) if isinstance(a, ast.arg)}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else local).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node is not fdef:
            local.add(node.name)
        elif isinstance(node, ast.alias):
            local.add((node.asname or node.name).split(".")[0])
    return loads - local - set(dir(builtins)) - {fdef.name}


def _free_names(source: str) -> set[str]:
    """Global names a function's source reads (annotations included)."""
    return _names_read(ast.parse(source).body[0])


# --------------------------------------------------------------------------- notebooks

def _nbformat():
    import nbformat
    return nbformat


def _cell_id(episode: str, index: int) -> str:
    return f"ep{episode}-{index:03d}"


def _nbgrader(grade_id: str, *, solution=False, grade=False, locked=False,
              points: int | None = None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked,
            "schema_version": 3, "solution": solution}
    if grade:
        meta["points"] = points
    return meta


def _requires_ok(spec: str) -> bool:
    """Whether every ``package.module`` or ``package.module.attribute`` in ``spec``
    (comma-separated) is really there; an empty namespace package does not count."""
    for name in (s.strip() for s in spec.split(",") if s.strip()):
        try:
            module = importlib.import_module(name)
            if getattr(module, "__file__", None) is None and hasattr(module, "__path__"):
                return False  # a bare folder (namespace package), not a module yet
        except ImportError:
            parent, _, attr = name.rpartition(".")
            try:
                if not parent or not hasattr(importlib.import_module(parent), attr):
                    return False
            except Exception:
                return False
        except Exception:
            return False
    return True


def _substitute(text: str, lesson: Lesson) -> str:
    """Fill the link placeholders of a markdown cell from ``stridegrad.course.links``."""
    from stridegrad.course import links

    for key, value in (("{{repo_url}}", links.REPO_URL), ("{{binder_url}}", links.binder_url()),
                       ("{{colab_url}}", links.colab_url(lesson.stem))):
        text = text.replace(key, value)
    return text


def _clean_metadata(meta: dict) -> dict:
    out = {k: copy.deepcopy(meta[k]) for k in _KEEP_CELL_METADATA if k in meta}
    if "tags" in out:
        out["tags"] = list(dict.fromkeys(out["tags"]))
        if not out["tags"]:
            del out["tags"]
    return out


def build_lesson(lesson: Lesson, *, execute: bool = True, verify: bool = False,
                 timeout: int = 300) -> BuiltLesson:
    """Read ``course/<stem>.py`` and make the lesson and solution notebooks (in memory).

    Args:
        execute: run the solution with nbclient and store its outputs.
        verify: also run the lesson and check that exactly the cells tagged
            ``raises-exception`` raise, each with ``NotImplementedError``.
    """
    import jupytext

    nbf = _nbformat()
    where = str(lesson.source)
    if not lesson.source.is_file():
        raise BuildError(f"no course source {where}")
    try:
        source_nb = jupytext.read(lesson.source, fmt="py:percent")
    except Exception as exc:
        raise BuildError(f"{where}: jupytext cannot read it: {exc}") from exc
    try:
        checkpoint = load_checkpoint(lesson.episode)
    except LookupError:
        checkpoint = None

    student_cells, solution_cells = [], []
    exercises: dict[str, Exercise] = {}
    checked: set[str] = set()
    bound: set[str] = set()
    library_sources: list[tuple[str, str]] = []
    seen_setup = False
    setup_body = ""

    for number, cell in enumerate(source_nb.cells, 1):
        here = f"{where}, cell {number}"
        meta = dict(cell.metadata)
        requires = meta.pop("requires", None)
        if cell.cell_type != "code":
            if requires and not _requires_ok(requires):
                continue
            md = nbf.v4.new_markdown_cell(_substitute(cell.source, lesson),
                                          metadata=_clean_metadata(meta))
            student_cells.append(md)
            solution_cells.append(copy.deepcopy(md))
            continue
        try:
            directives, body = parse_directives(cell.source)
        except ValueError as exc:
            raise BuildError(f"{here}: {exc}") from None
        requires = directives.get("requires", requires)
        if requires and not _requires_ok(requires):
            continue
        tags = list(meta.get("tags", []))
        student_src = solution_src = body
        student_meta = _clean_metadata(meta)
        solution_meta = _clean_metadata(meta)

        if "hint" in directives and "exercise" not in directives:
            raise BuildError(f"{here}: '#| hint' belongs to an '#| exercise' cell")
        if (BEGIN in body or END in body) and "exercise" not in directives:
            raise BuildError(f"{here}: solution markers in a cell without '#| exercise: NAME'")

        if "setup" in directives:
            if seen_setup or student_cells and any(c.cell_type == "code" for c in student_cells):
                raise BuildError(f"{here}: the '#| setup' cell must be the first code cell")
            seen_setup = True
            setup_body = body
            student_src = solution_src = setup_preamble() + ("\n" + body if body else "")
        elif not seen_setup:
            raise BuildError(f"{here}: the first code cell must be the '#| setup' cell")

        if "exercise" in directives:
            target = directives["exercise"]
            hint = _with_pointer(directives.get("hint", ""), lesson.episode, target)
            try:
                if "." in target or ":" in target:
                    if body:
                        raise ValueError("a library exercise cell has no body: the build "
                                         f"copies {target} from the library")
                    ex = library_exercise(target, hint)
                    library_sources.append((ex.name, ex.solution))
                else:
                    ex = inline_exercise(target, body, hint)
            except ValueError as exc:
                raise BuildError(f"{here}: {exc}") from None
            if ex.name in exercises:
                raise BuildError(f"{here}: exercise {ex.name} defined twice")
            if checkpoint is not None and ex.name not in checkpoint.exercises:
                raise BuildError(f"{here}: exercise {ex.name} has no tests in checkpoint "
                                 f"{checkpoint.lesson} (exercises: {checkpoint.exercises})")
            exercises[ex.name] = ex
            student_src, solution_src = ex.stub, ex.solution
            grading = _nbgrader(ex.name, solution=True)
            student_meta["nbgrader"] = solution_meta["nbgrader"] = grading
            tags.append("exercise")

        if "check" in directives:
            what = directives["check"] or "all"
            if body:
                raise BuildError(f"{here}: a '#| check' cell has no body (the build writes it)")
            if checkpoint is None:
                raise BuildError(f"{here}: no checkpoint module for episode {lesson.episode} "
                                 f"(stridegrad/course/checkpoints/ep{lesson.episode}.py)")
            if what == "all":
                student_src = f'check("{lesson.episode}")'
                grading = _nbgrader(f"checkpoint_{lesson.episode}", locked=True)
            else:
                if what not in checkpoint.exercises:
                    raise BuildError(f"{here}: '#| check: {what}': checkpoint "
                                     f"{checkpoint.lesson} has no exercise {what!r}")
                if what not in exercises:
                    raise BuildError(f"{here}: '#| check: {what}' comes before the "
                                     f"exercise cell of {what}")
                checked.add(what)
                student_src = f'check("{lesson.episode}", "{what}")'
                if what in checkpoint.stretch_exercises:  # optional: not in nbgrader's total
                    grading = _nbgrader(f"check_{what}", locked=True)
                else:
                    grading = _nbgrader(f"check_{what}", grade=True, locked=True,
                                        points=checkpoint.points_for(what))
            solution_src = student_src
            for m in (student_meta, solution_meta):
                m.update(nbgrader=grading, editable=False, deletable=False)
            tags.append("checkpoint")

        solution_tags = list(tags)
        if "calls-exercise" in directives:
            tags.append("raises-exception")
        bound |= _top_level_names(solution_src)
        for m, t in ((student_meta, tags), (solution_meta, solution_tags)):
            if t:
                m["tags"] = list(dict.fromkeys(t))
        student_cells.append(nbf.v4.new_code_cell(student_src, metadata=student_meta))
        solution_cells.append(nbf.v4.new_code_cell(solution_src, metadata=solution_meta))

    if not seen_setup:
        raise BuildError(f"{where}: no '#| setup' cell")
    if checkpoint is not None:
        # a lesson may leave out an optional stretch exercise, never one of its own
        missing = [e for e in checkpoint.exercises
                   if e not in exercises and e not in checkpoint.stretch_exercises]
        if missing:
            raise BuildError(f"{where}: checkpoint {checkpoint.lesson} tests {missing}, but the "
                             "lesson has no '#| exercise' cell for them")
    for name, src in library_sources:
        unbound = sorted(_free_names(src) - bound)
        if unbound:
            raise BuildError(f"{where}: exercise {name} uses {', '.join(unbound)}, which the "
                             "lesson never defines or imports (import them in the setup cell)")

    def finish(cells):
        nb = nbf.v4.new_notebook()
        nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": copy.deepcopy(LANGUAGE_INFO)}
        for k, c in enumerate(cells):
            c.id = _cell_id(lesson.episode, k)
        nb.cells = cells
        return nb

    student, solution = finish(student_cells), finish(solution_cells)
    if execute:
        _execute(solution, lesson.solution_path.parent, where, timeout)
    if verify:
        _verify_lesson(student, lesson, timeout)
    for nb in (student, solution):
        nbf.validate(nb)
    built = BuiltLesson(lesson, student, solution, exercises, setup_body)
    try:
        built.solutions_module()
    except ValueError as exc:
        raise BuildError(f"{where}: {exc}") from None
    return built


_GENERATED = (
    '''"""The solutions of lesson {episode}'s exercises ({stem}), in one module.

Written by ``stridegrad build {episode}`` from ``course/{stem}.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint {episode} judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""

''')


def _unbound_names(source: str) -> list[str]:
    """Global names that the functions and classes of a module read but the module
    never binds (nor builtins do): what an exercise needs from a cell left out."""
    bound = _top_level_names(source)
    missing: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            missing |= _names_read(node) - bound
    return sorted(missing)


def _marker_free(solution: str) -> str:
    """A solution cell without its ``### BEGIN/END SOLUTION`` lines."""
    return "\n".join(line for line in solution.split("\n")
                     if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line)


def solutions_module(built: BuiltLesson) -> str:
    """The importable module of a lesson's exercises (see this module's doc); raises
    ValueError naming what an exercise uses that the module would not define."""
    lesson = built.lesson
    parts = [_GENERATED.format(episode=lesson.episode, stem=lesson.stem).rstrip("\n")]
    inline = "\n\n\n".join(_marker_free(ex.solution).strip("\n")
                            for ex in built.exercises.values() if not ex.target)
    needed = set(_unbound_names(inline)) if inline else set()
    imports = []
    if built.setup:  # the setup cell's imports that the inline exercises read
        for node in ast.parse(built.setup).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = {(a.asname or a.name).split(".")[0] for a in node.names}
                if names & needed:
                    imports.append(ast.get_source_segment(built.setup, node))
    library = []
    for name, ex in built.exercises.items():
        if ex.target:
            module, _, func = ex.target.replace(":", ".").rpartition(".")
            library.append(f"from {module} import {func}" + (f" as {name}" if func != name else ""))
    head = "\n".join(imports + library)
    if head:
        parts.append(head)
    if inline:
        parts.append(inline)
    names = ", ".join(repr(n) for n in built.exercises)
    parts.append(f"__all__ = [{names}]")
    text = "\n\n\n".join(parts) + "\n"
    unbound = _unbound_names(text)
    if unbound:
        raise ValueError(f"the exercises use {', '.join(unbound)}, which no import of the "
                         "setup cell and no exercise defines (import them in the setup cell)")
    return text


def _client(nb, cwd: Path, timeout: int, allow_errors: bool):
    from nbclient import NotebookClient

    return NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=allow_errors,
                          record_timing=False, store_widget_state=False,
                          resources={"metadata": {"path": str(cwd)}})


def _execute(nb, cwd: Path, where: str, timeout: int) -> None:
    from nbclient.exceptions import CellExecutionError

    cwd.mkdir(parents=True, exist_ok=True)
    try:
        _client(nb, cwd, timeout, allow_errors=False).execute(stderr=subprocess.DEVNULL)
    except CellExecutionError as exc:
        raise BuildError(f"{where}: the solution fails to run:\n{exc}") from None
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": copy.deepcopy(LANGUAGE_INFO)}
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if "outputs" in cell:
            cell["outputs"] = coalesce_streams(cell["outputs"])
        for out in cell.get("outputs", []):
            # widget views point at models that are not saved: keep the text fallback only
            if "data" in out:
                out["data"].pop(_WIDGET_VIEW, None)


def _verify_lesson(student, lesson: Lesson, timeout: int) -> None:
    run = copy.deepcopy(student)
    lesson.lesson_path.parent.mkdir(parents=True, exist_ok=True)
    _client(run, lesson.lesson_path.parent, timeout, allow_errors=True).execute(stderr=subprocess.DEVNULL)
    problems = []
    for k, cell in enumerate(run.cells):
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        first = cell.source.split("\n", 1)[0]
        if errors and not tagged:
            problems.append(f"cell {k} ({first!r}) raises {errors[0].ename}: {errors[0].evalue} "
                            "in the fresh lesson but is not marked '#| calls-exercise'")
        elif tagged and not errors:
            problems.append(f"cell {k} ({first!r}) is marked '#| calls-exercise' but does not "
                            "raise in the fresh lesson")
        elif errors and errors[0].ename != "NotImplementedError":
            problems.append(f"cell {k} ({first!r}) raises {errors[0].ename}: {errors[0].evalue}, "
                            "not the stub's NotImplementedError")
    if problems:
        raise BuildError(f"{lesson.source}: the fresh lesson does not run through:\n  "
                         + "\n  ".join(problems))


def notebook_text(nb) -> str:
    """The bytes written for a notebook (nbformat's layout, one trailing newline)."""
    text = _nbformat().writes(nb)
    return text if text.endswith("\n") else text + "\n"


def coalesce_streams(outputs: list) -> list:
    """Merge adjacent stream outputs of the same stream (stdout, stderr) into one.

    The kernel may split one ``print`` into several chunks, at random points that
    differ from run to run; merged, the stored outputs are the same on every build.
    """
    merged: list = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (out.get("output_type") == "stream" and prev is not None
                and prev.get("output_type") == "stream" and prev.get("name") == out.get("name")):
            prev["text"] = "".join(prev["text"]) + "".join(out["text"])
            continue
        merged.append(out)
    return merged


def _comparable(text: str, solution: bool) -> str:
    """What ``build --check`` compares. Lessons: the bytes. Solutions: the bytes,
    except image data (PNG bytes depend on the FreeType/matplotlib build; nbval
    skips them too) and the outputs of cells tagged ``nbval-ignore-output``
    (declared volatile, e.g. float32 training losses that vary across CPUs)."""
    if not solution:
        return text

    try:
        nb = json.loads(text)
    except json.JSONDecodeError:
        return text
    for cell in nb.get("cells", []):
        if "nbval-ignore-output" in cell.get("metadata", {}).get("tags", []):
            cell["outputs"] = []
        if "outputs" in cell:
            cell["outputs"] = coalesce_streams(cell["outputs"])
        for out in cell.get("outputs", []):
            for key in list(out.get("data", {})):
                if key.startswith("image/"):
                    out["data"][key] = "<image>"
    return json.dumps(nb, sort_keys=True, indent=1)


# --------------------------------------------------------------------------- driver

def _targets(root: Path, which: list[str] | None) -> list[Lesson]:
    from stridegrad.course.paths import find_lesson

    if which:
        return [find_lesson(root, w) for w in which]
    lessons = find_lessons(root)
    if not lessons:
        raise BuildError(f"no lessons in {root / 'course'} (expected files like 01_flat_storage.py)")
    return lessons


#: What the last build wrote: the SHA-256 of every file it made, by path relative to
#: the clone. A file whose bytes no longer match was changed by hand (a learner's
#: work, say), and the build will not overwrite it without ``force``.
MANIFEST = Path("course") / "build-manifest.json"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_manifest(root: Path) -> dict[str, str]:
    try:
        data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files", {}) if isinstance(data, dict) else {}
    return {k: v for k, v in files.items() if isinstance(v, str)}


def _write_manifest(root: Path, files: dict[str, str]) -> None:
    data = {"about": "written by `stridegrad build`: the SHA-256 of each notebook it wrote. "
                     "The build refuses to overwrite a notebook whose bytes differ (--force "
                     "does); `stridegrad build --check` fails if this file is stale.",
            "files": dict(sorted(files.items()))}
    (root / MANIFEST).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _outputs(lesson: Lesson) -> tuple[Path, Path, Path]:
    return lesson.lesson_path, lesson.solution_path, lesson.packaged_path


def solutions_path(lesson: Lesson) -> Path:
    """Where the build writes the lesson's exercises as a module (see this module's doc)."""
    return (lesson.root / "src" / "stridegrad" / "course" / "solutions"
            / f"ep{lesson.episode}.py")


def edited_since_build(root: Path, lessons: list[Lesson]) -> list[Path]:
    """The built notebooks of ``lessons`` whose bytes differ from what the last build
    wrote (a notebook with no record counts as edited if it exists)."""
    manifest = read_manifest(root)
    edited = []
    for lesson in lessons:
        for path in _outputs(lesson):
            if path.is_file():
                rel = path.relative_to(root).as_posix()
                if manifest.get(rel) != _sha256(path.read_text(encoding="utf-8")):
                    edited.append(path)
    return edited


def build(root: Path, which: list[str] | None = None, *, verify: bool = True,
          force: bool = False, log: Callable[[str], None] = print) -> list[Path]:
    """Write ``lessons/``, ``solutions/`` and the packaged copy of the lessons.

    Refuses (:class:`EditedError`, before building anything) if one of the notebooks
    it would write was changed since the last build, unless ``force``."""
    lessons = _targets(root, which)
    edited = [] if force else edited_since_build(root, lessons)
    if edited:
        names = "\n  ".join(str(p.relative_to(root)) for p in edited)
        raise EditedError(
            f"these notebooks were changed since the last build, and building would "
            f"overwrite the changes:\n  {names}\nKeep your work elsewhere (`stridegrad lab` "
            f"and `stridegrad lessons DIR` make a copy of your own), or pass --force to "
            f"overwrite them.")
    manifest = read_manifest(root)
    written = []
    for lesson in lessons:
        start = time.perf_counter()
        # the lesson module first: the solution's check cells run the contracts, whose
        # oracles it holds, so the notebook must run against the module it ships with
        _write_solutions_module(lesson, build_lesson(lesson, execute=False), root,
                                written, log)
        built = build_lesson(lesson, verify=verify)
        for path, nb in zip(_outputs(lesson), (built.student, built.solution, built.student)):
            path.parent.mkdir(parents=True, exist_ok=True)
            text = notebook_text(nb)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                written.append(path)
                log(f"wrote {path.relative_to(root)}")
            manifest[path.relative_to(root).as_posix()] = _sha256(text)
        # after each lesson, so that an interrupted build leaves a true record
        _write_manifest(root, manifest)
        log(f"built {lesson.stem} in {time.perf_counter() - start:.1f} s")
    return written


def _write_solutions_module(lesson: Lesson, built: BuiltLesson, root: Path,
                            written: list[Path], log: Callable[[str], None]) -> None:
    """Write ``stridegrad/course/solutions/epNN.py`` if its text changed."""
    module, text = solutions_path(lesson), built.solutions_module()
    if not module.is_file() or module.read_text(encoding="utf-8") != text:
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text(text, encoding="utf-8")
        written.append(module)
        log(f"wrote {module.relative_to(root)}")


def check_drift(root: Path, which: list[str] | None = None,
                log: Callable[[str], None] = print) -> list[str]:
    """Files that differ from what the sources would build (empty: no drift)."""
    drift = []
    lessons = _targets(root, which)
    manifest = read_manifest(root)
    for lesson in lessons:
        built = build_lesson(lesson, verify=False)
        for path, nb, solution in ((lesson.lesson_path, built.student, False),
                                   (lesson.solution_path, built.solution, True),
                                   (lesson.packaged_path, built.student, False)):
            rel = str(path.relative_to(root))
            if not path.is_file():
                drift.append(f"{rel} (missing)")
                continue
            text = path.read_text(encoding="utf-8")
            want = _comparable(notebook_text(nb), solution)
            have = _comparable(text, solution)
            if want != have:
                drift.append(f"{rel} (differs from {lesson.source.relative_to(root)})")
            elif manifest.get(Path(rel).as_posix()) != _sha256(text):
                drift.append(f"{rel} (not what {MANIFEST.as_posix()} records: run "
                             f"`stridegrad build {lesson.episode}`)")
        module = solutions_path(lesson)
        rel = str(module.relative_to(root))
        if not module.is_file():
            drift.append(f"{rel} (missing)")
        elif module.read_text(encoding="utf-8") != built.solutions_module():
            drift.append(f"{rel} (differs from {lesson.source.relative_to(root)})")
        log(f"checked {lesson.stem}")
    if not which:  # notebooks whose source is gone
        stems = {l.stem for l in lessons}
        for folder in (root / "lessons", root / "solutions",
                       root / "src" / "stridegrad" / "course" / "notebooks"):
            for path in sorted(folder.glob("*.ipynb")):
                if path.stem not in stems:
                    drift.append(f"{path.relative_to(root)} (no course/{path.stem}.py)")
        episodes = {l.episode for l in lessons}
        for path in sorted((root / "src" / "stridegrad" / "course" / "solutions").glob("ep*.py")):
            if path.stem[2:] not in episodes:
                drift.append(f"{path.relative_to(root)} (no lesson {path.stem[2:]})")
    return drift


def reference_namespace(lesson: Lesson) -> dict[str, Any]:
    """The reference implementation of every exercise of a lesson, by name: the lesson's
    solutions module (:func:`solutions_module`, the library function for a library
    exercise, the solution cell for an inline one, with the setup cell's imports), made
    from the course source as it is now, not from the module the last build wrote, and
    run in ``__main__`` as a notebook's cells are."""
    built = build_lesson(lesson, execute=False)
    # run as a notebook runs its cells (in ``__main__``): the inline exercises are then
    # the learner's own to check(), as a notebook's definitions are
    scope: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(built.solutions_module(), f"<{lesson.stem}: solutions>", "exec"), scope)
    return {name: scope[name] for name in built.exercises}
