"""``stridegrad yours [DIR] [--test]``: your library, assembled from your notebooks.

Reads each lesson notebook in DIR (default: your copy of the lessons, ``my-lessons/``
in a clone, as ``stridegrad lab`` makes it) the way the grader does, and prints a
table per lesson: each exercise, yours or the reference's, and why. With ``--test``,
runs the library's own checks on your library (:mod:`stridegrad.course.yours_battery`)
and names the function of yours behind each failure. See :mod:`stridegrad.course.yours`.
"""

from __future__ import annotations

from pathlib import Path

from stridegrad.commands import CommandError

__all__ = ["HELP", "configure", "folder_of", "run"]

HELP = ("your library: which exercises of your notebooks the library runs, and why not "
        "the others; --test runs the library's own checks on it")


def configure(p):
    from stridegrad.course.yours_battery import CALL_LIMIT

    p.add_argument("dir", nargs="?", type=Path, metavar="DIR",
                   help="your folder of lesson notebooks (default: your copy of the lessons, "
                        "my-lessons/ in a clone)")
    p.add_argument("--test", action="store_true",
                   help="run the library's own checks on your library; exit 1 when one fails")
    p.add_argument("--call-timeout", type=float, default=CALL_LIMIT, metavar="SECONDS",
                   help=f"with --test: the longest one call of one of your functions may "
                        f"take (default: {CALL_LIMIT:g})")
    p.add_argument("--jobs", type=int, default=None,
                   help="notebooks read at a time (default: the number of CPUs, at most 4)")


def folder_of(given: Path | None) -> Path:
    """The folder of notebooks: ``given``, else the learner's copy of the lessons."""
    from stridegrad.commands.lab import learner_folder

    folder = given if given is not None else learner_folder()
    if not folder.is_dir():
        raise CommandError(f"no folder {folder}: make your copy of the lessons with "
                           f"`stridegrad lessons {folder}` (or `stridegrad lab`)")
    return folder


def run(args) -> int:
    from stridegrad.course.yours import assemble

    if args.call_timeout <= 0:
        raise CommandError(f"--call-timeout must be a positive number of seconds, got "
                           f"{args.call_timeout:g}")
    if args.jobs is not None and args.jobs < 1:
        raise CommandError(f"--jobs must be at least 1, got {args.jobs}")
    folder = folder_of(args.dir)
    print(f"reading your notebooks in {folder} ...", flush=True)
    library = assemble(folder, jobs=args.jobs)
    print(library.table())
    print(f"(read in {library.seconds:.1f} s)")
    if not args.test:
        return 0
    from stridegrad.course.yours_battery import run_battery

    print(f"\nthe library's own checks, on your library ({len(library.mine)} of your "
          f"functions in it; each call limited to {args.call_timeout:g} s):", flush=True)
    outcomes = run_battery(library, call_limit=args.call_timeout,
                           log=lambda line: print(line, flush=True))
    failures = [f for o in outcomes for f in o.failures]
    if not failures:
        print(f"all {len(outcomes)} checks pass on your library")
        return 0
    names = sorted({n for f in failures for n in f.exercises})
    print(f"{sum(not o.passed for o in outcomes)} of {len(outcomes)} checks fail"
          + (f"; yours to fix: {', '.join(names)}" if names else ""))
    return 1
