"""``stridegrad grade``: grade a folder of submitted notebooks (nbgrader's layout)."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["HELP", "configure", "run"]

HELP = "grade students' notebooks: SUBMITTED/<student>/<assignment>/<assignment>.ipynb -> CSV + feedback"


def configure(p):
    p.add_argument("submitted", type=Path, help="folder with one subfolder per student")
    p.add_argument("--lesson", required=True, metavar="NN",
                   help="the lesson (01 or 01_flat_storage); the assignment is its file stem")
    p.add_argument("--out", required=True, type=Path, metavar="DIR",
                   help="where grades.csv and feedback/<student>/<assignment>.html go")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="wall-clock limit per notebook, in seconds (default 120)")
    p.add_argument("--memory", type=int, default=2048, metavar="MB",
                   help="memory (address-space) limit per notebook, in MB (default 2048)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="notebooks graded at the same time (default 1)")
    p.add_argument("--extra-tests", type=Path, metavar="FILE",
                   help="your own (hidden) tests, a file in the format of "
                        "stridegrad/course/checkpoints/epNN.py")


def run(args) -> int:
    from stridegrad.course.grader import GradeError, grade

    try:
        grade(args.submitted, args.lesson, args.out, timeout=args.timeout, memory=args.memory,
              jobs=args.jobs, extra_tests=args.extra_tests)
    except GradeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
