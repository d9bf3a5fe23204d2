"""``stridegrad check NOTEBOOK|NN``: run a notebook and print its checkpoint table."""

from __future__ import annotations

import re
from pathlib import Path

from stridegrad.commands import CommandError

__all__ = ["HELP", "IN_N", "configure", "find_notebook", "lesson_of_notebook", "run"]

HELP = "run a lesson notebook and print its checkpoint table (what passes, what to fix)"

#: Printed once before the first line that names a cell ``In [n]``: what the n is.
IN_N = ("(In [n] names a code cell by its execution count: the number JupyterLab shows\n"
        " beside it after Kernel > Restart Kernel and Run All Cells, which counts the code\n"
        " cells from 1 in order, empty ones skipped)")


def configure(p):
    p.add_argument("notebook", metavar="NOTEBOOK|NN",
                   help="a notebook file, or a lesson number (01) or name (01_flat_storage) "
                        "to check your own copy of that lesson")
    p.add_argument("--lesson", metavar="NN",
                   help="which lesson's checkpoint (default: from the file name, "
                        "NN_slug.ipynb, else from the notebook's own cells)")
    from stridegrad.commands.grade import add_limit_flags

    # the grader's limits and extra tests, with its defaults: the same flags as given
    # to `stridegrad grade` reproduce a student's grade
    add_limit_flags(p)


def find_notebook(which: str) -> Path:
    """A notebook path as given, or the learner's notebook of a lesson: ``01`` or
    ``01_flat_storage`` looks for ``01_*.ipynb`` in the working directory, then in
    the learner's copy that ``stridegrad lab`` opens."""
    from stridegrad.commands.lab import learner_folder

    path = Path(which)
    if path.suffix == ".ipynb" or path.is_file():
        if not path.is_file():
            raise CommandError(f"no notebook {path}")
        if path.suffix != ".ipynb":  # a model.npz, a .py: not "episode must be a number"
            raise CommandError(f"{path} is not a notebook (a .ipynb file): give a lesson "
                               "notebook, or a lesson number like 01 to check your copy of it")
        return path
    m = re.fullmatch(r"(\d{1,2})(_[a-z0-9_]+)?", which.strip())
    if m is None:
        raise CommandError(f"{which!r} is neither a notebook file nor a lesson number like 01")
    episode = f"{int(m.group(1)):02d}"
    pattern = f"{episode}{m.group(2) or '_*'}.ipynb"
    places = list(dict.fromkeys([Path("."), learner_folder()]))
    for folder in places:
        found = sorted(p for p in folder.glob(pattern) if p.stem.count(".") == 0)
        if found:
            return found[0]
    raise CommandError(f"no notebook {pattern} in {' or '.join(str(p) for p in places)}; "
                       "`stridegrad lab` makes your copy of the lessons, or give the path")


def _lesson_in_name(path: Path) -> str | None:
    m = re.match(r"(\d{1,2})_", path.name)
    return f"{int(m.group(1)):02d}" if m else None


#: The most of a notebook ``lesson_of_notebook`` reads (a lesson notebook is < 1 MB).
_MOST = 50 * 1024 * 1024


def lesson_of_notebook(path: Path) -> str | None:
    """The lesson a notebook was made from, whatever its file name (``final.ipynb``): the
    build names every cell ``epNN-KKK``, and a check cell calls ``check("NN")``; None
    when neither is there (or the file is not a readable notebook)."""
    import json

    try:
        with path.open("rb") as f:
            nb = json.loads(f.read(_MOST))
        cells = [c for c in nb.get("cells", []) if isinstance(c, dict)]
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    found = []
    for cell in cells:
        m = re.fullmatch(r"ep(\d\d)-\d{3}", str(cell.get("id", "")))
        if m:
            found.append(m.group(1))
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        found += re.findall(r"""\bcheck\(\s*["'](\d\d)["']""", source)
    # the lesson most of its cells say (a learner may paste a cell of another lesson)
    return max(sorted(set(found)), key=found.count) if found else None


def run(args) -> int:
    from stridegrad.course.checks import CheckResult, load_checkpoint
    from stridegrad.course.feedback import cell_quote, redefinition_note
    from stridegrad.course.grader import GradeError, cell_name, load_tests, run_notebook

    path = find_notebook(args.notebook)
    episode = args.lesson or _lesson_in_name(path) or lesson_of_notebook(path)
    if episode is None:
        raise CommandError(f"{path.name}: which lesson is it? Its name does not start with a "
                           "lesson number (01_...) and none of its cells comes from a lesson; "
                           "pass --lesson NN")
    try:
        checkpoint = load_checkpoint(episode)
    except (LookupError, ValueError) as exc:
        raise CommandError(f"{exc} (pass --lesson NN)") from exc
    try:
        load_tests(checkpoint.episode, args.extra_tests, points=args.points)
    except GradeError as exc:
        raise CommandError(str(exc)) from None
    print(f"checking {path}", flush=True)
    out = run_notebook(path, checkpoint.episode, timeout=args.timeout, memory=args.memory,
                       extra_tests=args.extra_tests, cell_timeout=args.cell_timeout,
                       test_timeout=args.test_timeout, show_extra_tests=args.show_extra_tests,
                       points=args.points)
    if out["status"] != "graded":
        raise CommandError(f"{path}: {out['message']}", code=1)
    from stridegrad.course._sinks import terminal_text

    if out.get("cell_errors") or out.get("redefined"):
        print(IN_N)
    for e in out.get("cell_errors", []):  # the notebook's own text: no escape sequences
        print(terminal_text(f"{cell_name(e)}\n    raised {e['error']}"
                            + (f" (line {e['line']})" if e.get("line") else "")))
        print(terminal_text(cell_quote(e)))
    result = CheckResult.from_dict(out["result"])
    print(result)
    for r in out.get("redefined", []):
        print(f"note: {r['exercise']}: {redefinition_note(r)}")
    return 0 if result.passed else 1
