"""``stridegrad lessons DIR``: copy the lesson notebooks into a folder of yours."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

__all__ = ["HELP", "configure", "copy_lessons", "run", "source_notebooks"]

HELP = "copy the lesson notebooks into DIR (your own working copy; never overwrites your work)"


def configure(p):
    p.add_argument("dir", type=Path, help="where to put the notebooks (created if needed)")
    p.add_argument("--force", action="store_true",
                   help="overwrite notebooks that are already there (your changes are lost)")


def source_notebooks() -> list[Path]:
    """The lesson notebooks: shipped in the package, else the clone's lessons/."""
    from stridegrad.course.paths import PACKAGED_NOTEBOOKS, repo_root

    found = sorted(PACKAGED_NOTEBOOKS.glob("*.ipynb"))
    if not found and (root := repo_root()) is not None:
        found = sorted((root / "lessons").glob("*.ipynb"))
    return found


def copy_lessons(target: Path, force: bool = False, log=print) -> list[Path]:
    notebooks = source_notebooks()
    if not notebooks:
        raise FileNotFoundError("no lesson notebooks in this installation (package data "
                                "stridegrad/course/notebooks/ is empty)")
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for nb in notebooks:
        dest = target / nb.name
        if dest.exists() and not force:
            log(f"kept    {dest} (already there; --force replaces it)")
            continue
        shutil.copyfile(nb, dest)
        copied.append(dest)
        log(f"copied  {dest}")
    return copied


def run(args) -> int:
    try:
        copy_lessons(args.dir, args.force)
    except (FileNotFoundError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"open them with: stridegrad lab --dir {args.dir}")
    return 0
