"""The grader's files in ``OUT``, and how a run updates them without losing others.

``OUT/<lesson>/grades.csv`` (:data:`GRADES_COLUMNS`) holds a row per student per
test, ``OUT/<lesson>/exercises.csv`` (:data:`EXERCISES_COLUMNS`) a row per student
per exercise and ``OUT/<lesson>/totals.csv`` (:data:`TOTALS_COLUMNS`) a row per
student; each says, for each result, the run that made it, when, and a hash of the
tests that made it (the checkpoint, the extra tests and the points). A run replaces
the rows of the students it graded in its own lesson and keeps every other row, so
regrading one student, or grading another lesson into the same ``OUT``, loses
nothing.

``OUT/gradebook.csv`` (:data:`gradebook_columns`) is rebuilt from every lesson's
``totals.csv`` after each run: a row per student, a column of points per lesson,
the total, and notes (no submission, a notebook that could not be graded, a result
made with other tests than the lesson's latest). ``OUT/roster.txt``, written from
``--roster``, lists students who appear even when they submitted nothing.

Every cell is written through :func:`stridegrad.course._sinks.csv_cell`: a student's
name, a test's message (which quotes the student's function names and errors) or a
name from the roster that starts like a formula (``=HYPERLINK(...)``, ``@SUM``,
``-2+3``) gets a leading ``'``, so a spreadsheet shows it as text and runs nothing;
numbers, negative ones too, stay numbers. :func:`read_rows` takes the ``'`` off
again, so the grader, ``grade merge`` and a regrade read back exactly what was
written.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from stridegrad.course._sinks import DictReader, DictWriter

__all__ = ["EXERCISES_COLUMNS", "GRADEBOOK", "GRADES_COLUMNS", "ROSTER", "TOTALS_COLUMNS",
           "RecordError", "build_gradebook", "check_records", "merge_rows", "read_rows",
           "read_roster", "tests_hash", "write_rows"]

RUN_COLUMNS = ("sandbox", "run_id", "graded_at", "tests_hash")
GRADES_COLUMNS = ("student", "assignment", "test", "points", "max_points", "status",
                  "message", *RUN_COLUMNS)
#: ``stretch_points``/``stretch_max``: the optional stretch exercises, outside ``points``.
TOTALS_COLUMNS = ("student", "assignment", "points", "max_points", "stretch_points",
                  "stretch_max", "status", *RUN_COLUMNS)
#: ``OUT/<lesson>/exercises.csv``: a row per student per exercise (its subtotal, how many
#: of its tests passed, and a note when a later cell replaced what its check() ran on).
EXERCISES_COLUMNS = ("student", "assignment", "exercise", "points", "max_points", "passed",
                     "tests", "note", *RUN_COLUMNS)
GRADEBOOK = "gradebook.csv"
ROSTER = "roster.txt"


class RecordError(Exception):
    """A file in ``OUT`` or a roster that the grader cannot use as it is."""


def tests_hash(episode: str, extra_source: bytes | None = None,
               points: dict[str, int | None] | None = None) -> str:
    """16 hex digits of SHA-256 over the checkpoint module's source, the extra tests'
    and the points file's overrides (test -> points or None for skipped, as
    :func:`stridegrad.course.points.read_points` resolves them: two files that give
    the same points hash the same, a comment changes nothing)."""
    spec = importlib.util.find_spec(f"stridegrad.course.checkpoints.ep{episode}")
    h = hashlib.sha256(Path(spec.origin).read_bytes())
    if extra_source is not None:
        h.update(b"\0extra-tests\0" + extra_source)
    if points:
        h.update(b"\0points\0" + json.dumps(points, sort_keys=True).encode())
    return h.hexdigest()[:16]


def read_rows(path: Path, columns: tuple[str, ...]) -> list[dict]:
    """The rows of a CSV the grader wrote (none if the file is missing), each value as
    it was before :func:`write_rows` neutralised it."""
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as f:
        reader = DictReader(f)
        if tuple(reader.fieldnames or ()) != columns:
            raise RecordError(
                f"{path} has the columns {list(reader.fieldnames or [])}, not the grader's "
                f"{list(columns)}: it was written by another tool or an older stridegrad; "
                "move it away (or grade into a new --out)")
        return list(reader)


def write_rows(path: Path, columns: Iterable[str], rows: Iterable[dict]) -> None:
    """Write a CSV atomically (a reader never sees half a file), every cell that a
    spreadsheet would take for a formula neutralised
    (:func:`~stridegrad.course._sinks.csv_cell`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            writer = DictWriter(f, fieldnames=list(columns))
            writer.writeheader()
            writer.writerows(rows)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def merge_rows(old: list[dict], new: list[dict], replaced: set[str]) -> list[dict]:
    """``old``'s rows of students not in ``replaced``, then ``new``, by student
    (each student's rows stay in their order)."""
    kept = [r for r in old if r["student"] not in replaced]
    order = sorted({r["student"] for r in kept + new})
    by_student: dict[str, list[dict]] = {s: [] for s in order}
    for r in kept + new:
        by_student[r["student"]].append(r)
    return [r for s in order for r in by_student[s]]


def read_roster(path: Path) -> list[str]:
    """Student names, one a line (blank lines and ``#`` comments skipped)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read the roster {path}: {exc}") from None
    names: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        if "/" in name or "\\" in name or name in (".", ".."):
            raise RecordError(f"{path}, line {number}: {name!r} is not a student folder name")
        if name in names:
            raise RecordError(f"{path} lists {name!r} twice (lines {names[name]} and {number})")
        names[name] = number
    if not names:
        raise RecordError(f"the roster {path} lists no students")
    return list(names)


def check_records(out: Path) -> None:
    """Read every file a run would update (before grading: an unusable one is an
    error before any time is spent)."""
    if not out.is_dir():
        return
    for folder in out.iterdir():
        if folder.is_dir():
            read_rows(folder / "grades.csv", GRADES_COLUMNS)
            read_rows(folder / "totals.csv", TOTALS_COLUMNS)
            read_rows(folder / "exercises.csv", EXERCISES_COLUMNS)
    if (out / ROSTER).is_file():
        read_roster(out / ROSTER)


def build_gradebook(out: Path) -> tuple[Path, list[dict]]:
    """Rebuild ``OUT/gradebook.csv`` from every ``OUT/<lesson>/totals.csv`` and the
    roster; (its path, its rows)."""
    lessons = sorted(p.name for p in out.iterdir()
                     if p.is_dir() and (p / "totals.csv").is_file())
    totals = {lesson: read_rows(out / lesson / "totals.csv", TOTALS_COLUMNS)
              for lesson in lessons}
    roster = read_roster(out / ROSTER) if (out / ROSTER).is_file() else []
    students = sorted(set(roster) | {r["student"] for rows in totals.values() for r in rows})
    # the tests a lesson was last graded with: results made with others are noted
    latest = {lesson: max(rows, key=lambda r: r["graded_at"])["tests_hash"]
              for lesson, rows in totals.items() if rows}
    maxima = {lesson: max((int(r["max_points"]) for r in rows), default=0)
              for lesson, rows in totals.items()}
    stretch_maxima = {lesson: max((int(r["stretch_max"]) for r in rows), default=0)
                      for lesson, rows in totals.items()}
    book = []
    for student in students:
        row = {"student": student}
        notes, total, stretch = [], 0, 0
        for lesson in lessons:
            mine = next((r for r in totals[lesson] if r["student"] == student), None)
            if mine is None:
                row[lesson] = 0
                notes.append(f"{lesson}: no submission")
                continue
            row[lesson] = int(mine["points"])
            total += int(mine["points"])
            stretch += int(mine["stretch_points"])
            if mine["status"] == "no-notebook":
                notes.append(f"{lesson}: no submission")
            elif mine["status"] != "graded":
                notes.append(f"{lesson}: {mine['status']}")
            if mine["tests_hash"] != latest[lesson]:
                notes.append(f"{lesson}: graded with other tests ({mine['tests_hash']}, "
                             f"latest {latest[lesson]})")
        if roster and student not in roster:
            notes.append("not on the roster")
        row.update(total=total, max_total=sum(maxima.values()), stretch=stretch,
                   stretch_max=sum(stretch_maxima.values()), notes="; ".join(notes))
        book.append(row)
    path = out / GRADEBOOK
    write_rows(path, gradebook_columns(lessons), book)
    return path, book


def gradebook_columns(lessons: list[str]) -> tuple[str, ...]:
    """``student``, one column per lesson (its points), ``total``, ``max_total``, then
    ``stretch`` and ``stretch_max`` (the optional stretch exercises' points over all
    lessons: extra credit, kept out of ``total`` so an LMS can weigh them as it likes),
    ``notes``."""
    return ("student", *lessons, "total", "max_total", "stretch", "stretch_max", "notes")
