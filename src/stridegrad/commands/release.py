"""``stridegrad release OUT``: the students' notebooks and a README, ready to hand out."""

from __future__ import annotations

from pathlib import Path

from stridegrad.commands import CommandError

__all__ = ["HELP", "configure", "run"]

HELP = ("write the students' lesson notebooks and a README (install, check, hand in) "
        "into OUT, to hand out")


def configure(p):
    from stridegrad.course.release import LAYOUTS

    p.add_argument("out", type=Path, metavar="OUT", help="the folder to write (created if needed)")
    p.add_argument("--lessons", nargs="+", metavar="NN",
                   help="the lessons to release: numbers (01 2), stems (01_flat_storage) or "
                        "slugs (flat_storage) (default: all)")
    p.add_argument("--layout", choices=LAYOUTS, default="flat",
                   help="flat: OUT/NN_slug.ipynb; nbgrader: OUT/NN_slug/NN_slug.ipynb, the "
                        "layout of an nbgrader course's release/ folder (default: flat)")
    p.add_argument("--force", action="store_true",
                   help="replace files in OUT that differ from what would be written "
                        "(without it such files stop the release, named, and nothing is written)")


def run(args) -> int:
    from stridegrad.commands.lessons import source_notebooks
    from stridegrad.course._output import Conflict
    from stridegrad.course.release import ReleaseError, release, select_lessons

    try:
        course = source_notebooks()
        notebooks = select_lessons(course, args.lessons)
        report = release(args.out, notebooks, layout=args.layout, force=args.force,
                         catalogue=course)
    except ReleaseError as exc:
        raise CommandError(str(exc)) from None
    except Conflict as exc:
        raise CommandError(f"{exc}; nothing was written (--force replaces them)") from None
    files = report.files
    for path in files.written:
        print(f"wrote    {path}")
    for path in files.updated:
        print(f"updated  {path}")
    for path in files.replaced:
        print(f"replaced {path} (--force)")
    print(f"released {len(report.lessons)} lesson{'s' if len(report.lessons) != 1 else ''} "
          f"into {args.out} ({len(files.written)} new, {len(files.updated) + len(files.replaced)} "
          f"replaced, "
          f"{len(files.unchanged)} unchanged): hand out the folder; {args.out / 'README.md'} "
          "tells students how to install, check and hand in")
    return 0
