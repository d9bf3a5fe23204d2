"""``stridegrad grade``: grade a folder of submitted notebooks (nbgrader's layout),
each in a sandbox of its own, into a gradebook that accumulates."""

from __future__ import annotations

from pathlib import Path

__all__ = ["HELP", "add_limit_flags", "configure", "run"]

HELP = ("grade students' notebooks: SUBMITTED/<student>/<assignment>/<assignment>.ipynb -> "
        "OUT/gradebook.csv, OUT/<assignment>/grades.csv + feedback")


def add_limit_flags(p) -> None:
    """The time and memory limits and the extra tests, shared with ``stridegrad check``
    so that it reproduces a student's grade."""
    from stridegrad.course.grader import TEST_TIMEOUT, TIMEOUT

    p.add_argument("--timeout", type=float, default=TIMEOUT, metavar="S",
                   help=f"seconds for all the notebook's cells together; cells after it are "
                        f"not run (default {TIMEOUT:g})")
    p.add_argument("--cell-timeout", type=float, default=None, metavar="S",
                   help="limit per code cell, in seconds; a cell past it is stopped and "
                        "skipped (default half of --timeout)")
    p.add_argument("--test-timeout", type=float, default=TEST_TIMEOUT, metavar="S",
                   help="limit per test, in seconds: a function that loops fails its own "
                        f"tests only, as 'did not finish within S s' (default {TEST_TIMEOUT:g})")
    p.add_argument("--memory", type=int, default=2048, metavar="MB",
                   help="memory (address-space) limit per notebook, in MB (default 2048)")
    p.add_argument("--extra-tests", type=Path, metavar="FILE",
                   help="your own tests, a file in the format of "
                        "stridegrad/course/checkpoints/epNN.py; notebooks never see the file, "
                        "and feedback shows only each test's name and points")
    p.add_argument("--show-extra-tests", action="store_true",
                   help="show the extra tests' calls, expected values and hints in the "
                        "feedback, like the lesson's own tests (default: hidden)")


def configure(p):
    p.add_argument("submitted", type=Path,
                   help="folder with one subfolder per student, each holding "
                        "<assignment>/<assignment>.ipynb (e.g. alice/01_flat_storage/"
                        "01_flat_storage.ipynb); failing that, the student's only notebook "
                        "(any name and depth) or the one defining most of the lesson's "
                        "exercises, never one named after another lesson")
    p.add_argument("--lesson", required=True, metavar="NN",
                   help="the lesson (01 or 01_flat_storage); the assignment is its file stem")
    p.add_argument("--out", required=True, type=Path, metavar="DIR",
                   help="the gradebook folder (outside SUBMITTED): gradebook.csv, "
                        "<assignment>/grades.csv and totals.csv, feedback/<student>/"
                        "<assignment>.html; a run updates only the students and lesson it "
                        "grades")
    p.add_argument("--student", action="append", metavar="NAME",
                   help="grade only this student (repeatable); the others' results stay")
    p.add_argument("--roster", type=Path, metavar="FILE",
                   help="the class list, one student a line: the gradebook shows those "
                        "without a submission with 0 and 'no submission' (kept in "
                        "DIR/roster.txt for later runs)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="notebooks graded at the same time (default 1)")
    add_limit_flags(p)
    p.add_argument("--no-sandbox", dest="sandbox", action="store_false",
                   help="run notebooks with your own rights, outside the sandbox "
                        "(only for code you trust; stated in the summary and the CSVs)")


def run(args) -> int:
    import sys

    from stridegrad.commands import CommandError
    from stridegrad.course.grader import GradeError, grade

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        grade(args.submitted, args.lesson, args.out, timeout=args.timeout, memory=args.memory,
              jobs=args.jobs, extra_tests=args.extra_tests, cell_timeout=args.cell_timeout,
              test_timeout=args.test_timeout, show_extra_tests=args.show_extra_tests,
              students=args.student, roster=args.roster, sandbox=args.sandbox,
              progress=progress)
    except GradeError as exc:
        raise CommandError(str(exc)) from None
    except KeyboardInterrupt:
        print("stridegrad grade: interrupted (the results finished before are written)",
              file=sys.stderr)
        return 130
    return 0
