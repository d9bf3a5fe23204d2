"""``stridegrad lessons DIR``: copy the lesson notebooks into a folder of yours."""

from __future__ import annotations

from pathlib import Path

from stridegrad.commands import CommandError

__all__ = ["HELP", "configure", "copy_lessons", "run", "source_notebooks"]

HELP = ("copy the lesson notebooks into DIR, or bring DIR up to date: new lessons are "
        "added, notebooks you edited are never overwritten")


def configure(p):
    p.add_argument("dir", type=Path, help="your folder of lessons (created if needed)")
    p.add_argument("--force", action="store_true",
                   help="also replace notebooks you edited (each is first moved aside to "
                        "NN_slug.backup.ipynb)")


def source_notebooks() -> list[Path]:
    """The course's lesson notebooks: shipped in the package, else the clone's lessons/."""
    from stridegrad.course.paths import PACKAGED_NOTEBOOKS, repo_root

    found = sorted(PACKAGED_NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if not found and (root := repo_root()) is not None:
        found = sorted((root / "lessons").glob("[0-9][0-9]_*.ipynb"))
    return found


def copy_lessons(target: Path, force: bool = False, log=print):
    """Create or update the learner's copy in ``target`` (see
    :mod:`stridegrad.course.learner_copy`); returns its report."""
    from stridegrad.course.learner_copy import sync

    return sync(source_notebooks(), target, force=force, log=log)


def run(args) -> int:
    try:
        report = copy_lessons(args.dir, args.force)
    except OSError as exc:
        raise CommandError(f"cannot make the lessons in {args.dir}: "
                           f"{exc.strerror or exc}") from exc
    if not (report.copied or report.updated or report.beside or report.backups):
        print(f"{args.dir}: every lesson is there and up to date")
    print(f"open them with: stridegrad lab --dir {args.dir}")
    return 0
