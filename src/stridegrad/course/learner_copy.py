"""The learner's own copy of the lessons, kept in step with the course without
ever overwriting their work.

``stridegrad lab`` and ``stridegrad lessons DIR`` both call :func:`sync`. The copy
holds a small manifest, ``.stridegrad-lessons.json``, with the SHA-256 of each
lesson notebook as it was last copied from the course (its *base*). That is how
an edit is told apart from an update:

========================================  =========================================
what is found                             what ``sync`` does
========================================  =========================================
no file in the copy                       copies the lesson (a new lesson, or one the
                                          learner deleted)
the file equals the course's version      nothing
the file equals its base (not edited),    replaces it with the new version
and the course changed
the file was edited, the course did not   nothing: it is the learner's work
the file was edited and the course        keeps the learner's file and writes the
changed                                   new version beside it as
                                          ``NN_slug.updated.ipynb``, naming both
========================================  =========================================

No file the learner changed is ever overwritten or deleted. ``force=True``
(``stridegrad lessons DIR --force``) replaces edited notebooks too, after moving
each one aside to ``NN_slug.backup.ipynb`` (or ``.backup-2`` ... if taken).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["MANIFEST", "SyncReport", "file_sha256", "sync"]

MANIFEST = ".stridegrad-lessons.json"


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class SyncReport:
    """What :func:`sync` did, notebook by notebook (paths in the copy)."""

    copied: list[Path] = field(default_factory=list)      # new (or deleted) lessons
    updated: list[Path] = field(default_factory=list)     # unedited, replaced by a newer version
    kept: list[Path] = field(default_factory=list)        # edited by the learner, left alone
    beside: list[tuple[Path, Path]] = field(default_factory=list)  # (theirs, the new version)
    backups: list[tuple[Path, Path]] = field(default_factory=list)  # --force: (replaced, backup)

    def lines(self) -> list[str]:
        out = [f"copied   {p}" for p in self.copied]
        out += [f"updated  {p} (a newer version; you had not changed it)" for p in self.updated]
        out += [f"replaced {p} (--force; your version is in {b})" for p, b in self.backups]
        if self.beside:
            out.append("these lessons changed in the course since you started them; your "
                       "notebooks are untouched and the new versions are beside them:")
            out += [f"  {theirs.name}: new version in {new}" for theirs, new in self.beside]
        return out


def _read_manifest(folder: Path) -> dict[str, str]:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    bases = data.get("base", {}) if isinstance(data, dict) else {}
    return {k: v for k, v in bases.items() if isinstance(k, str) and isinstance(v, str)}


def _write_manifest(folder: Path, bases: dict[str, str]) -> None:
    text = json.dumps({"about": "stridegrad: the course's version of each lesson when it "
                                "was last copied here; lets updates leave your edits alone",
                       "base": dict(sorted(bases.items()))}, indent=1)
    (folder / MANIFEST).write_text(text + "\n", encoding="utf-8")


def _free_name(folder: Path, stem: str, tag: str) -> Path:
    path = folder / f"{stem}.{tag}.ipynb"
    n = 2
    while path.exists():
        path = folder / f"{stem}.{tag}-{n}.ipynb"
        n += 1
    return path


def sync(sources: list[Path], folder: Path, *, force: bool = False,
         log: Callable[[str], None] | None = print) -> SyncReport:
    """Bring ``folder`` (the learner's copy) up to date with ``sources`` (the
    course's lesson notebooks) without losing an edit; see the module docstring."""
    if not sources:
        raise FileNotFoundError("no lesson notebooks to copy from (the package's "
                                "stridegrad/course/notebooks/ and the clone's lessons/ are empty)")
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"{folder} exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    bases = _read_manifest(folder)
    report = SyncReport()
    for src in sources:
        name, dest = src.name, folder / src.name
        new = file_sha256(src)
        if not dest.exists():
            shutil.copyfile(src, dest)
            report.copied.append(dest)
        else:
            have = file_sha256(dest)
            if have == new:
                pass
            elif have == bases.get(name):
                shutil.copyfile(src, dest)
                report.updated.append(dest)
            elif force:
                backup = _free_name(folder, src.stem, "backup")
                dest.rename(backup)
                shutil.copyfile(src, dest)
                report.backups.append((dest, backup))
            elif bases.get(name) == new:
                report.kept.append(dest)  # edited; the course has not changed since
            else:
                # edited, and the course changed since it was copied (or the copy has no
                # record of its base): the new version goes beside, under a free name
                beside = folder / f"{src.stem}.updated.ipynb"
                if beside.exists() and file_sha256(beside) != new:
                    beside = _free_name(folder, src.stem, "updated")
                if not beside.exists():
                    shutil.copyfile(src, beside)
                report.kept.append(dest)
                report.beside.append((dest, beside))
        bases[name] = new
    _write_manifest(folder, bases)
    if log is not None:
        for line in report.lines():
            log(line)
    return report
