"""``stridegrad grade``: grade a folder of submitted notebooks (nbgrader's layout),
each in a sandbox of its own, into a gradebook that accumulates."""

from __future__ import annotations

from pathlib import Path

__all__ = ["EXPORT_HELP", "HELP", "MERGE_HELP", "SCRATCH", "SUBCOMMANDS", "add_limit_flags",
           "configure", "configure_export", "configure_merge", "run", "run_export",
           "run_merge"]

#: Where a run with --keep DIR and no --out writes its gradebook: DIR/scratch-gradebook/.
SCRATCH = "scratch-gradebook"

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
    p.add_argument("--points", type=Path, metavar="FILE",
                   help="your points, overriding the checkpoint's, in a TOML file: "
                        "[tests] NAME = POINTS or \"skip\" (not run, not counted); "
                        "[exercises] NAME = TOTAL (split evenly over its tests), 0 or "
                        "\"skip\"; one key a line under its table, e.g. numel_of_a_scalar = 2 "
                        "under [tests]. Names are those of the checkpoint and --extra-tests; a "
                        "name it lacks is an error listing the valid ones. The points count in "
                        "the tests hash that the gradebook records, so a later grade run into "
                        "the same --out with other points is refused (see --replace-tests).")


def _shard(text: str) -> tuple[int, int]:
    import argparse

    from stridegrad.course.shards import parse_shard

    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def configure(p):
    from stridegrad.course.intake import MAX_DEPTH, MAX_ENTRIES, MAX_NOTEBOOK_MB

    p.epilog = ("stridegrad grade merge OUT1 OUT2 ... --out OUT joins the --out folders of "
                "several runs (shards on several machines): see stridegrad grade merge --help. "
                "stridegrad grade export OUT --lesson NN --lms canvas|moodle writes the file "
                "an LMS imports: see stridegrad grade export --help")
    p.add_argument("submitted", type=Path,
                   help="folder with one subfolder per student, each holding "
                        "<assignment>/<assignment>.ipynb (e.g. alice/01_flat_storage/"
                        "01_flat_storage.ipynb); failing that, the student's only notebook "
                        "(any name and depth) or the one defining most of the lesson's "
                        "exercises, never one named after another lesson. Only real "
                        "folders and regular files with one name, of at most "
                        f"{MAX_NOTEBOOK_MB} MB, are taken, {MAX_DEPTH} folder levels deep "
                        f"and {MAX_ENTRIES:,} files and folders per student at most; no "
                        "link is followed: a student folder or notebook that is a link, or a "
                        "hard-linked or bigger notebook, is graded 0 with status 'refused' "
                        "and the reason")
    p.add_argument("--lesson", required=True, metavar="NN",
                   help="the lesson (01 or 01_flat_storage); the assignment is its file stem")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="the gradebook folder (outside SUBMITTED): gradebook.csv, "
                        "<assignment>/grades.csv, exercises.csv and totals.csv, "
                        "feedback/<student>/"
                        "<assignment>.html; a run updates only the students and lesson it "
                        "grades. It remembers the lesson's tests (<assignment>/tests.json: "
                        "the --extra-tests file's SHA-256 and the --points): a later run with "
                        "other tests is refused, naming both hashes (see --replace-tests). "
                        f"Required, unless --keep is given: then KEEP/{SCRATCH}/, a scratch "
                        "gradebook, and your real one is not touched")
    p.add_argument("--replace-tests", action="store_true",
                   help="grade with other tests than those --out remembers for the lesson: a "
                        "run of every student makes them the lesson's (the results made "
                        "before are noted as made with other tests until regraded); a run "
                        "with --student or --shard keeps the lesson's, and the gradebook notes "
                        "the results it changed")
    p.add_argument("--student", action="append", metavar="NAME",
                   help="grade only this student (repeatable); the others' results stay")
    p.add_argument("--roster", type=Path, metavar="FILE",
                   help="the class list, one student a line: the gradebook shows those "
                        "without a submission with 0 and 'no submission' (kept in "
                        "DIR/roster.txt for later runs)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="notebooks graded at the same time (default 1)")
    p.add_argument("--keep", type=Path, metavar="DIR",
                   help="keep, per student, DIR/<student>/<assignment>.executed.ipynb (the "
                        "notebook with the outputs the grader saw, full tracebacks, opens in "
                        "JupyterLab) and <assignment>.worker.log (each cell's time or error, "
                        "limits, each test, the notebook's stderr); outside SUBMITTED. With "
                        "--out the results also go into that gradebook; without it into the "
                        f"scratch gradebook DIR/{SCRATCH}/ (to look into a notebook without "
                        "touching the real gradebook)")
    p.add_argument("--shard", type=_shard, metavar="I/N",
                   help="grade only shard I of N (counted from 1): the students whose folder "
                        "name falls in it (SHA-256 of the name mod N, + 1: the same on every "
                        "machine, whoever submitted); one run per machine, then stridegrad "
                        "grade merge")
    add_limit_flags(p)
    from stridegrad.course.grader import MILESTONE_TIMEOUT

    p.add_argument("--yours", action="store_true",
                   help="also run the lesson's milestone (the lessons that end with "
                        "milestone(\"NN\"): what the lesson built, e.g. the digits trained "
                        "to 95%%) on each student's own "
                        "functions of the exercises that passed all their tests, the "
                        "reference everywhere else, in the student's sandbox after the tests: "
                        "a 'milestone' column in <assignment>/milestone.csv and gradebook.csv "
                        "('97.2%% (goal 95%%)', 'short: ...', 'stopped: ...') and a paragraph "
                        "of the feedback. Advisory: not points; computed in the student's "
                        "sandbox, so a notebook could forge it. A lesson without a milestone "
                        "is graded without it (one line says so)")
    p.add_argument("--milestone-timeout", type=float, default=MILESTONE_TIMEOUT, metavar="S",
                   help="seconds the milestone may take per student with --yours; past it, "
                        f"the column says 'stopped: ...' (default {MILESTONE_TIMEOUT:g})")
    p.add_argument("--no-sandbox", dest="sandbox", action="store_false",
                   help="run notebooks with your own rights, outside the sandbox "
                        "(only for code you trust; stated in the summary and the CSVs)")


def run(args) -> int:
    import signal
    import sys

    from stridegrad.commands import CommandError
    from stridegrad.course.grader import GradeError, grade
    from stridegrad.course.progress import ProgressLine

    # on a terminal one line updated in place; in a log a line per tenth or 10 s
    progress = ProgressLine(sys.stderr)
    # SIGTERM (Slurm's scancel or time limit, Kubernetes evicting a pod) stops the run as
    # Ctrl-C does: every worker killed, the finished results written; exit 128 + 15
    signals = []

    def on_term(signum, frame):
        signals.append(signum)
        raise KeyboardInterrupt

    out, replace = args.out, args.replace_tests
    if out is None:
        if args.keep is None:
            raise CommandError("give --out DIR (the gradebook folder), or --keep DIR to grade "
                               f"into the scratch gradebook DIR/{SCRATCH}/")
        # a scratch gradebook takes whatever tests each try is given
        out, replace = args.keep / SCRATCH, True
        print(f"stridegrad grade: no --out: grading into the scratch gradebook {out}/",
              file=sys.stderr)
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        grade(args.submitted, args.lesson, out, timeout=args.timeout, memory=args.memory,
              jobs=args.jobs, extra_tests=args.extra_tests, cell_timeout=args.cell_timeout,
              test_timeout=args.test_timeout, show_extra_tests=args.show_extra_tests,
              students=args.student, roster=args.roster, sandbox=args.sandbox,
              progress=progress, shard=args.shard, keep=args.keep, points=args.points,
              replace_tests=replace, yours=args.yours,
              milestone_timeout=args.milestone_timeout)
    except GradeError as exc:
        progress.close()
        raise CommandError(str(exc)) from None
    except KeyboardInterrupt:
        progress.close()
        print("stridegrad grade: interrupted" + (" by SIGTERM" if signals else "") +
              " (the results finished before are written)", file=sys.stderr)
        return 143 if signals else 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


MERGE_HELP = ("merge gradebook folders (the --out of several runs, e.g. one per --shard) "
              "into one, as runs merge: per student and lesson the newest result")


def configure_merge(p):
    p.add_argument("folders", type=Path, nargs="+", metavar="FOLDER",
                   help="the --out folders of stridegrad grade runs")
    p.add_argument("--out", required=True, type=Path, metavar="DIR",
                   help="the merged gradebook folder (may be new, or one of the FOLDERs, or "
                        "a gradebook whose results then take part): gradebook.csv, "
                        "<assignment>/grades.csv, totals.csv and the other per-student CSVs, "
                        "feedback/")
    p.add_argument("--allow-mixed-tests", action="store_true",
                   help="merge results of one lesson made with different tests (tests_hash); "
                        "by default that is an error naming the students and both hashes")


def run_merge(args) -> int:
    from stridegrad.commands import CommandError
    from stridegrad.course.gradebook import RecordError
    from stridegrad.course.shards import merge_gradebooks

    try:
        merge_gradebooks(args.folders, args.out, allow_mixed_tests=args.allow_mixed_tests)
    except RecordError as exc:
        raise CommandError(str(exc)) from None
    return 0


EXPORT_HELP = ("write a lesson's points from a gradebook folder as the CSV file an LMS "
               "imports: Canvas's Gradebook import, Moodle's grading worksheet")


def configure_export(p):
    from stridegrad.course.gradebook import LMS

    p.epilog = ("canvas: Canvas's Gradebook CSV (Grades > Import), the columns of Canvas's "
                "own export: Student, ID (the Canvas user id), SIS User ID, SIS Login ID, "
                "Section, then the assignment column 'NAME (ASSIGNMENT ID)', and a 'Points "
                "Possible' row. moodle: the assignment's offline grading worksheet (Moodle "
                "3.x and 4.x; enable the 'Offline grading worksheet' feedback type, then "
                "Grading action > Upload grading worksheet): Identifier ('Participant ID'), "
                "Full name, Grade, Maximum Grade, Last modified (grade). Students are matched "
                "by the id stridegrad collect found in that LMS's download; the others are "
                "named and left out.")
    p.add_argument("out", type=Path, metavar="OUT",
                   help="the gradebook folder (the --out of stridegrad grade)")
    p.add_argument("--lesson", required=True, metavar="NN",
                   help="the lesson (01 or 01_flat_storage)")
    p.add_argument("--lms", required=True, choices=list(LMS), help="the LMS to import it")
    p.add_argument("--column", metavar="NAME",
                   help="Canvas: the assignment column, as Canvas's export names it: "
                        "'NAME (ASSIGNMENT ID)' (default the lesson's name, which Canvas "
                        "imports as a new assignment)")
    p.add_argument("--file", type=Path, metavar="CSV",
                   help="the file to write (default OUT/<assignment>-<lms>.csv)")


def run_export(args) -> int:
    import sys

    from stridegrad.commands import CommandError
    from stridegrad.course._sinks import terminal_line
    from stridegrad.course.gradebook import RecordError, export_lms

    if args.column is not None and args.lms != "canvas":
        raise CommandError(f"--column is Canvas's assignment column; --lms {args.lms} "
                           "finds its columns by name")
    try:
        path, rows, left_out = export_lms(args.out, args.lesson, args.lms, args.file,
                                          column=args.column)
    except RecordError as exc:
        raise CommandError(str(exc)) from None
    for line in left_out:
        print(f"left out: {terminal_line(line)}", file=sys.stderr)
    students = len(rows) - (args.lms == "canvas")  # Canvas's "Points Possible" row
    print(f"wrote {path}: {students} student{'s' if students != 1 else ''}"
          + (f", {len(left_out)} left out (above)" if left_out else ""))
    return 0


#: ``stridegrad grade merge ...``: chosen by the first argument (see ``stridegrad.cli``).
SUBCOMMANDS = {"merge": (MERGE_HELP, configure_merge, run_merge),
               "export": (EXPORT_HELP, configure_export, run_export)}
