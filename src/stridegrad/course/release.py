"""Hand the lessons out: the students' notebooks and a README on installing,
checking and submitting (``stridegrad release OUT``).

The notebooks are the course's built student versions (``lessons/`` in a clone,
the copy shipped in the package otherwise: the ones ``stridegrad lessons``
copies), byte for byte. Two layouts:

``flat`` (the default)
    ``OUT/01_flat_storage.ipynb`` ... and ``OUT/README.md``: a folder to zip, or to
    upload to an LMS, as is.
``nbgrader``
    ``OUT/01_flat_storage/01_flat_storage.ipynb`` ... and ``OUT/README.md``: the
    layout of an nbgrader course's ``release/`` folder (one folder per assignment,
    named like the notebook), so ``OUT`` can be that folder.

Submissions come back in any layout: ``stridegrad collect`` files an LMS
download into the grading layout whatever the students named their files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from stridegrad.course._output import WriteReport, write_files

__all__ = ["LAYOUTS", "README", "ReleaseError", "lesson_title", "release", "select_lessons",
           "student_readme"]

LAYOUTS = ("flat", "nbgrader")
README = "README.md"


class ReleaseError(ValueError):
    """A lesson that does not exist, or a release that would overwrite files."""


def select_lessons(notebooks: list[Path], which: list[str] | None) -> list[Path]:
    """The notebooks named by ``which``, in course order: each an episode number
    (``1``, ``01``), a stem (``01_flat_storage``) or a slug (``flat_storage``,
    ``flat-storage``); all of them when ``which`` is empty."""
    if not which:
        return list(notebooks)
    picked = []
    for text in which:
        key = text.strip().lower().replace("-", "_")
        if key.endswith(".ipynb"):
            key = key[:-len(".ipynb")]
        found = [p for p in notebooks if key in (p.stem, p.stem[3:])
                 or (key.isdigit() and int(key) == int(p.stem[:2]))]
        if not found:
            raise ReleaseError(f"no lesson {text!r}; the lessons are "
                               f"{', '.join(p.stem for p in notebooks) or 'none'}")
        picked += found
    return sorted(set(picked), key=lambda p: p.stem)


def lesson_title(notebook: bytes, stem: str) -> str:
    """The first ``# `` heading of the notebook (``01 · Flat storage``), else the stem."""
    try:
        cells = json.loads(notebook.decode("utf-8"))["cells"]
    except (ValueError, KeyError, TypeError):
        return stem
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            text = "".join(cell.get("source", ""))
            m = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
            if m:
                return m.group(1).strip()
    return stem


def student_readme(lessons: list[tuple[str, str]]) -> str:
    """The README handed out with the notebooks; ``lessons`` is [(file in OUT, title)]."""
    from stridegrad.course.links import BRANCH, REPO_URL

    rows = "\n".join(f"| {title} | `{path}` |" for path, title in lessons)
    first = lessons[0][0] if lessons else "01_flat_storage.ipynb"
    return f"""# stridegrad: your lesson notebooks

Each notebook teaches one step of building a deep-learning library from the bytes
up and asks you to write a few small functions (the exercises). Work in them, check
them, and hand each one in.

| lesson | notebook |
|---|---|
{rows}

## 1. Install (once)

You need Python 3.10 or newer. In a terminal, in this folder:

```bash
python -m venv .venv
.venv/bin/pip install "stridegrad[course] @ git+{REPO_URL}@{BRANCH}"
```

(on Windows `.venv\\Scripts\\pip` instead of `.venv/bin/pip`). If you have a clone of
the course repository, its Quickstart (`make lab`) installs the same. On Google Colab or
Binder there is nothing to install: upload the notebook (File > Upload notebook) and
run its first cell, which installs stridegrad when it is missing.

## 2. Open

```bash
.venv/bin/jupyter lab
```

opens JupyterLab here. Open a lesson and run its first cell (the setup) before the others.

## 3. Check your work

Below each exercise is a `check(...)` cell: run it after you have written the
function, and it prints a table of tests, each pass or fail, with what was expected,
what your function gave, and a hint. From a terminal in this folder,

```bash
.venv/bin/stridegrad check {first}
```

runs the whole notebook the way the grader does and prints the same table with your
points. Before you hand in, run Kernel > Restart Kernel and Run All Cells: the grade is
what your notebook defines when every cell has run in order, so a later cell that
redefines a function replaces the one that passed its check.

## 4. Hand in

- Hand in the notebook file itself (`.ipynb`): not a PDF, HTML or `.py` export, and
  not a zip. Save it first (Ctrl-S / Cmd-S).
- One file per lesson, to that lesson's assignment. Any file name is accepted (the
  grader finds your work by what the notebook defines), but keeping the name it has,
  `{first.split("/")[-1]}`, is the safest; never give it another lesson's number.
- Handing in again replaces your earlier file: the newest one is graded.
"""


@dataclass
class ReleaseReport:
    lessons: list[Path]   # the notebooks released (sources)
    files: WriteReport


def release(out: Path, notebooks: list[Path], *, layout: str = "flat", force: bool = False,
            catalogue: list[Path] | None = None) -> ReleaseReport:
    """Write ``notebooks`` and the students' README into ``out`` in ``layout``;
    :class:`~stridegrad.course._output.Conflict` (nothing written) if a file there
    differs and ``force`` is false. The README lists every lesson in ``out`` (earlier
    releases' too), titled from ``catalogue`` (the course's notebooks; default
    ``notebooks``), so an edited notebook in ``out`` does not change it."""
    if layout not in LAYOUTS:
        raise ReleaseError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    if not notebooks:
        raise ReleaseError("no lesson notebooks to release (the package ships none and "
                           "there is no lessons/ folder of a clone here)")
    out = Path(out)
    titles = {nb.stem: lesson_title(nb.read_bytes(), nb.stem)
              for nb in [*(catalogue or []), *notebooks]}
    files = {out / _place(nb.stem, layout): nb.read_bytes() for nb in notebooks}
    # a README that is still the one an earlier release wrote is brought up to date;
    # an edited one is not (without force)
    before = _released(out, layout)
    after = before | {nb.stem for nb in notebooks}
    readme = out / README
    files[readme] = _readme_for(after, layout, titles)
    ours = {readme} if readme.is_file() and readme.read_bytes() == _readme_for(
        before, layout, titles) else set()
    return ReleaseReport(list(notebooks), write_files(files, force=force, replaceable=ours))


def _place(stem: str, layout: str) -> str:
    return f"{stem}/{stem}.ipynb" if layout == "nbgrader" else f"{stem}.ipynb"


def _released(out: Path, layout: str) -> set[str]:
    """The stems of the lesson notebooks already in ``out``."""
    pattern = "[0-9][0-9]_*/[0-9][0-9]_*.ipynb" if layout == "nbgrader" else "[0-9][0-9]_*.ipynb"
    return {p.stem for p in out.glob(pattern)
            if p.is_file() and (layout != "nbgrader" or p.parent.name == p.stem)}


def _readme_for(stems: set[str], layout: str, titles: dict[str, str]) -> bytes:
    listed = [(_place(stem, layout), titles.get(stem) or
               f"{stem[:2]} · {stem[3:].replace('_', ' ')}") for stem in sorted(stems)]
    return student_readme(listed).encode("utf-8")
