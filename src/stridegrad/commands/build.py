"""``stridegrad build``: make ``lessons/`` and ``solutions/`` from ``course/``."""

from __future__ import annotations

import sys

from stridegrad.commands import CommandError

__all__ = ["HELP", "configure", "run"]

HELP = "rebuild lessons/ and solutions/ from course/ (--check: fail if they drifted)"


def configure(p):
    p.add_argument("lessons", nargs="*", metavar="NN",
                   help="lessons to build, by episode (01) or stem (01_flat_storage); default all")
    p.add_argument("--check", action="store_true",
                   help="build in memory and exit 1, naming the files, if the committed "
                        "notebooks differ (pictures are compared by presence, not pixels)")
    p.add_argument("--no-verify", action="store_true",
                   help="skip running each fresh lesson to check that only the cells marked "
                        "'#| calls-exercise' raise")
    p.add_argument("--force", action="store_true",
                   help="overwrite notebooks that were changed by hand since the last build "
                        "(without it the build stops and names them)")


def run(args) -> int:
    from stridegrad.course.build import BuildError, EditedError, build, check_drift
    from stridegrad.course.paths import repo_root

    root = repo_root()
    if root is None:
        raise CommandError("stridegrad build works in a clone of the repository (no course/ "
                           "folder found next to the package or above the working directory)")
    try:
        if args.check:
            drift = check_drift(root, args.lessons or None)
            if drift:
                print("these notebooks differ from what course/ and src/ build "
                      "(run `stridegrad build`):", file=sys.stderr)
                for d in drift:
                    print(f"  {d}", file=sys.stderr)
                return 1
            print("lessons/ and solutions/ are up to date")
            return 0
        build(root, args.lessons or None, verify=not args.no_verify, force=args.force)
        return 0
    except EditedError as exc:
        raise CommandError(str(exc), code=1) from exc
    except (BuildError, LookupError) as exc:
        raise CommandError(str(exc)) from exc
