"""Where things are: the clone (if any), its course sources and built notebooks,
and the lesson notebooks shipped inside the package."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "PACKAGED_NOTEBOOKS",
    "Lesson",
    "find_lesson",
    "find_lessons",
    "lesson_stem_re",
    "repo_root",
]

#: Lesson notebooks shipped as package data (a copy of ``lessons/`` made by the build).
PACKAGED_NOTEBOOKS = Path(__file__).resolve().parent / "notebooks"

lesson_stem_re = re.compile(r"^(\d\d)_[a-z0-9_]+$")


def repo_root(start: Path | None = None) -> Path | None:
    """The root of a stridegrad clone: the package's own checkout (editable install),
    else a parent of ``start`` (default: the working directory); None if neither."""
    candidates = [Path(__file__).resolve().parents[3]]
    here = (start or Path.cwd()).resolve()
    candidates += [here, *here.parents]
    for c in candidates:
        if (c / "course").is_dir() and (c / "src" / "stridegrad").is_dir() \
                and (c / "pyproject.toml").is_file():
            return c
    return None


@dataclass(frozen=True)
class Lesson:
    """One lesson: ``course/NN_slug.py`` and what the build makes of it."""

    stem: str
    root: Path

    @property
    def episode(self) -> str:
        return self.stem[:2]

    @property
    def source(self) -> Path:
        return self.root / "course" / f"{self.stem}.py"

    @property
    def lesson_path(self) -> Path:
        return self.root / "lessons" / f"{self.stem}.ipynb"

    @property
    def solution_path(self) -> Path:
        return self.root / "solutions" / f"{self.stem}.ipynb"

    @property
    def packaged_path(self) -> Path:
        return self.root / "src" / "stridegrad" / "course" / "notebooks" / f"{self.stem}.ipynb"


def find_lessons(root: Path) -> list[Lesson]:
    """Every ``course/NN_slug.py`` of a clone, in episode order."""
    out = [Lesson(p.stem, root) for p in sorted((root / "course").glob("*.py"))
           if lesson_stem_re.match(p.stem)]
    return out


def find_lesson(root: Path, which: str) -> Lesson:
    """The lesson named by its episode (``1``, ``"01"``) or its stem."""
    lessons = find_lessons(root)
    text = str(which).strip()
    for lesson in lessons:
        if text == lesson.stem or (text.isdigit() and int(text) == int(lesson.episode)):
            return lesson
    raise LookupError(f"no lesson {which!r} in {root / 'course'}; lessons: "
                      f"{', '.join(l.stem for l in lessons) or 'none'}")
