"""``stridegrad collect DOWNLOAD SUBMITTED --lesson NN``: file an LMS download into
the grading layout (see :mod:`stridegrad.course.collect` for the naming rules)."""

from __future__ import annotations

from pathlib import Path

from stridegrad.commands import CommandError

__all__ = ["HELP", "configure", "run"]

HELP = ("file an LMS download (zip or folder, any file names) into "
        "SUBMITTED/<student>/<assignment>/<assignment>.ipynb for stridegrad grade")


def configure(p):
    from stridegrad.course.collect import MAX_MB

    p.add_argument("download", type=Path, metavar="ARCHIVE_OR_FOLDER",
                   help="the LMS's download of one assignment: a .zip or a folder (only read). "
                        "Students are told apart by Canvas, Moodle, Blackboard and GitHub "
                        "Classroom names, else <student>/<anything>.ipynb or <student>.ipynb")
    p.add_argument("submitted", type=Path, metavar="SUBMITTED",
                   help="the grading folder to file into (created if needed); also gets "
                        "collected-<assignment>.csv: where each notebook came from, the "
                        "student's LMS id, late, which of several files was taken, and why "
                        "a student who submitted had nothing placed (stridegrad grade carries "
                        "it into the gradebook)")
    p.add_argument("--lesson", required=True, metavar="NN",
                   help="the lesson (01 or 01_flat_storage); the assignment is its file stem")
    p.add_argument("--map", type=Path, metavar="CSV",
                   help="rows 'pattern,student': files or folders matching the glob pattern "
                        "(or a student name as derived) are filed as that student; '-' skips "
                        "them")
    p.add_argument("--roster", type=Path, metavar="FILE",
                   help="the class list, one student a line (as for stridegrad grade): a "
                        "name that only looks like one of it (a Cyrillic 'А' for a Latin "
                        "'A', another case) is refused, naming both, and a name of it may "
                        "mix scripts. Names are also checked against the student folders "
                        "in SUBMITTED and the earlier collects' record")
    p.add_argument("--max-mb", type=float, default=MAX_MB, metavar="MB",
                   help=f"largest notebook taken, in MB (default {MAX_MB})")
    p.add_argument("--force", action="store_true",
                   help="replace notebooks in SUBMITTED that differ from those filed now "
                        "(without it such files stop the collect, named, and nothing is "
                        "written)")


def run(args) -> int:
    from stridegrad.course._sinks import terminal_text
    from stridegrad.course.collect import CollectError, collect, read_map
    from stridegrad.course.gradebook import RecordError, read_roster

    if args.max_mb <= 0:
        raise CommandError(f"--max-mb must be positive, got {args.max_mb:g}")
    try:
        mapping = read_map(args.map) if args.map else None
        roster = read_roster(args.roster) if args.roster else None
        collect(args.download, args.submitted, args.lesson, force=args.force,
                mapping=mapping, max_mb=args.max_mb, roster=roster)
    except (CollectError, RecordError) as exc:
        # the message may name files of the download, as its students named them
        raise CommandError(terminal_text(exc)) from None
    return 0
