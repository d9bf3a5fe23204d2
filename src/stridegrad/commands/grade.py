"""``stridegrad grade``: grade a folder of submitted notebooks (nbgrader's layout),
each in a sandbox of its own."""

from __future__ import annotations

from pathlib import Path

__all__ = ["HELP", "configure", "run"]

HELP = "grade students' notebooks: SUBMITTED/<student>/<assignment>/<assignment>.ipynb -> CSV + feedback"


def configure(p):
    p.add_argument("submitted", type=Path,
                   help="folder with one subfolder per student, each holding "
                        "<assignment>/<assignment>.ipynb (e.g. alice/01_flat_storage/"
                        "01_flat_storage.ipynb)")
    p.add_argument("--lesson", required=True, metavar="NN",
                   help="the lesson (01 or 01_flat_storage); the assignment is its file stem")
    p.add_argument("--out", required=True, type=Path, metavar="DIR",
                   help="where grades.csv, totals.csv and feedback/<student>/<assignment>.html go")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="wall-clock limit per notebook, in seconds (default 120)")
    p.add_argument("--memory", type=int, default=2048, metavar="MB",
                   help="memory (address-space) limit per notebook, in MB (default 2048)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="notebooks graded at the same time (default 1)")
    p.add_argument("--cell-timeout", type=float, default=None, metavar="S",
                   help="limit per code cell, in seconds; a cell past it is skipped "
                        "(default half of --timeout)")
    p.add_argument("--extra-tests", type=Path, metavar="FILE",
                   help="your own (hidden) tests, a file in the format of "
                        "stridegrad/course/checkpoints/epNN.py; notebooks never see the file")
    p.add_argument("--no-sandbox", dest="sandbox", action="store_false",
                   help="run notebooks with your own rights, outside the sandbox "
                        "(only for code you trust; stated in the summary and the CSVs)")


def run(args) -> int:
    from stridegrad.commands import CommandError
    from stridegrad.course.grader import GradeError, grade

    try:
        grade(args.submitted, args.lesson, args.out, timeout=args.timeout, memory=args.memory,
              jobs=args.jobs, extra_tests=args.extra_tests, cell_timeout=args.cell_timeout,
              sandbox=args.sandbox)
    except GradeError as exc:
        raise CommandError(str(exc)) from None
    return 0
