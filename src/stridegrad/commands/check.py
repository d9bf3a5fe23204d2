"""``stridegrad check NOTEBOOK|NN``: run a notebook and print its checkpoint table."""

from __future__ import annotations

import re
from pathlib import Path

from stridegrad.commands import CommandError

__all__ = ["HELP", "configure", "find_notebook", "run"]

HELP = "run a lesson notebook and print its checkpoint table (what passes, what to fix)"


def configure(p):
    p.add_argument("notebook", metavar="NOTEBOOK|NN",
                   help="a notebook file, or an episode number (01) or stem (01_flat_storage) "
                        "to check your own copy of that lesson")
    p.add_argument("--lesson", metavar="NN",
                   help="which checkpoint (default: from the file name, NN_slug.ipynb)")
    from stridegrad.commands.grade import add_limit_flags

    # the grader's limits and extra tests, with its defaults: the same flags as given
    # to `stridegrad grade` reproduce a student's grade
    add_limit_flags(p)


def find_notebook(which: str) -> Path:
    """A notebook path as given, or the learner's notebook of an episode: ``01`` or
    ``01_flat_storage`` looks for ``01_*.ipynb`` in the working directory, then in
    the learner's copy that ``stridegrad lab`` opens."""
    from stridegrad.commands.lab import learner_folder

    path = Path(which)
    if path.suffix == ".ipynb" or path.is_file():
        if not path.is_file():
            raise CommandError(f"no notebook {path}")
        if path.suffix != ".ipynb":  # a model.npz, a .py: not "episode must be a number"
            raise CommandError(f"{path} is not a notebook (a .ipynb file): give a lesson "
                               "notebook, or an episode like 01 to check your copy of it")
        return path
    m = re.fullmatch(r"(\d{1,2})(_[a-z0-9_]+)?", which.strip())
    if m is None:
        raise CommandError(f"{which!r} is neither a notebook file nor an episode like 01")
    episode = f"{int(m.group(1)):02d}"
    pattern = f"{episode}{m.group(2) or '_*'}.ipynb"
    places = list(dict.fromkeys([Path("."), learner_folder()]))
    for folder in places:
        found = sorted(p for p in folder.glob(pattern) if p.stem.count(".") == 0)
        if found:
            return found[0]
    raise CommandError(f"no notebook {pattern} in {' or '.join(str(p) for p in places)}; "
                       "`stridegrad lab` makes your copy of the lessons, or give the path")


def run(args) -> int:
    from stridegrad.course.checks import CheckResult, load_checkpoint
    from stridegrad.course.feedback import cell_quote, redefinition_note
    from stridegrad.course.grader import GradeError, cell_name, load_tests, run_notebook

    path = find_notebook(args.notebook)
    episode = args.lesson or path.stem.split("_", 1)[0]
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
    for e in out.get("cell_errors", []):
        print(f"{cell_name(e)}\n    raised {e['error']}"
              + (f" (line {e['line']})" if e.get("line") else ""))
        print(cell_quote(e))
    result = CheckResult.from_dict(out["result"])
    print(result)
    for r in out.get("redefined", []):
        print(f"note: {r['exercise']}: {redefinition_note(r)}")
    return 0 if result.passed else 1
