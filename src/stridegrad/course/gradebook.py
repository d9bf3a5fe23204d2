"""The grader's files in ``OUT``, and how a run updates them without losing others.

``OUT/<lesson>/grades.csv`` (:data:`GRADES_COLUMNS`) holds a row per student per
test, ``OUT/<lesson>/exercises.csv`` (:data:`EXERCISES_COLUMNS`) a row per student
per exercise and ``OUT/<lesson>/totals.csv`` (:data:`TOTALS_COLUMNS`) a row per
student; each says, for each result, the run that made it, when, and a hash of the
tests that made it (the checkpoint, the extra tests and the points). A run replaces
the rows of the students it graded in its own lesson and keeps every other row, so
regrading one student, or grading another lesson into the same ``OUT``, loses
nothing.

``OUT/<lesson>/milestone.csv`` (:data:`MILESTONE_COLUMNS`), written only by ``stridegrad
grade --yours``, holds a row per student graded so: the lesson's milestone run on the
student's own functions ("97.2% (goal 95%)", "short: ...", "stopped: ...", "not run:
..."), and whose functions it called. It is advisory and never points: it is computed in
the student's sandbox, where the notebook could forge it. A student regraded without
``--yours`` loses their row; the file goes when no row is left.

``OUT/gradebook.csv`` (:data:`gradebook_columns`) is rebuilt from every lesson's
``totals.csv`` after each run: a row per student, their LMS id where collect found
one, a column of points per lesson, the total, and notes (no submission, submitted
but not placed by collect and why, late, a resubmission taken, a notebook that could
not be graded, a result made with other tests than the lesson's). ``OUT/roster.txt``,
written from ``--roster``, lists students who appear even when they submitted
nothing.

The lesson's tests. ``OUT/<lesson>/tests.json`` (:func:`claim_tests`) records the
tests a lesson is graded with: the tests hash, the checkpoint's, the extra tests'
file name and SHA-256, and the points file's overrides themselves. A later run with
other tests (no ``--extra-tests`` where the lesson had some, another points file, a
new checkpoint) is refused before any notebook runs, naming both hashes, unless it
says ``--replace-tests``. Then a run of the whole lesson makes its tests the
lesson's (every result made before is noted as made with other tests until it is
regraded); a run of some students (``--student``, ``--shard``) leaves the lesson's
tests as they are, and only the results it changed are noted.

Collect's facts. ``OUT/collected-<lesson>.csv`` (:data:`COLLECTED_COLUMNS`,
:func:`carry_collected`) holds, for the students a run grades, what
``stridegrad collect`` recorded in ``SUBMITTED/collected-<lesson>.csv``: their LMS id,
the rule that named them, whether the upload was late, which of several files was
taken, and, for a student whose files were all left out (a PDF, another lesson's
notebook, a tie), why. The gradebook's ``student_id`` and notes come from it, and
:func:`export_lms` writes the file an LMS imports.

Every cell is written through :func:`stridegrad.course._sinks.csv_cell`: a student's
name, a test's message (which quotes the student's function names and errors) or a
name from the roster that starts like a formula (``=HYPERLINK(...)``, ``@SUM``,
``-2+3``) gets a leading ``'``, so a spreadsheet shows it as text and runs nothing;
numbers, negative ones too, stay numbers. :func:`read_rows` takes the ``'`` off
again, so the grader, ``grade merge`` and a regrade read back exactly what was
written.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from stridegrad.course._sinks import DictReader, DictWriter

__all__ = ["COLLECTED_COLUMNS", "EXERCISES_COLUMNS", "GRADEBOOK", "GRADES_COLUMNS", "LMS",
           "MILESTONE_COLUMNS", "MILESTONE_FILE", "ROSTER", "TESTS_RECORD", "TOTALS_COLUMNS", "RecordError", "build_gradebook",
           "carry_collected", "check_records", "claim_tests", "export_lms", "lesson_tests",
           "merge_rows", "read_collected", "read_rows", "read_roster", "read_tests_record",
           "record_tests", "tests_hash", "write_collected", "write_rows"]

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
#: ``OUT/<lesson>/milestone.csv`` (``--yours``): a row per student, the lesson's milestone
#: on the student's own functions (``milestone``: advisory, not points; computed in the
#: student's sandbox, so a notebook can forge it), and the exercises whose functions it
#: called, the student's (``yours``) and the reference's (``reference``), space-separated.
MILESTONE_COLUMNS = ("student", "assignment", "milestone", "yours", "reference", *RUN_COLUMNS)
MILESTONE_FILE = "milestone.csv"
GRADEBOOK = "gradebook.csv"
ROSTER = "roster.txt"
#: ``OUT/<lesson>/tests.json``: the tests the lesson is graded with (:func:`claim_tests`).
TESTS_RECORD = "tests.json"
#: ``OUT/collected-<lesson>.csv``: collect's facts of the students graded
#: (:func:`carry_collected`); the columns of collect's own record that the gradebook uses.
COLLECTED_COLUMNS = ("student", "student_id", "rule", "late", "taken", "not_placed", "source",
                     "collected_at")


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


def _describe(record: dict) -> str:
    """``tests 0123456789abcdef (checkpoint 89ab..., extra tests hidden.py sha256 12ab...,
    points {"big": 3})``: what a tests record says, in one line."""
    extra = record.get("extra_tests")
    points = record.get("points")
    parts = [f"checkpoint {record['checkpoint']}" if record.get("checkpoint") else "",
             f"extra tests {extra['file']} sha256 {extra['sha256']}" if extra
             else "no extra tests",
             (f"points of {record.get('points_file') or 'a points file'} "
              f"{json.dumps(points, sort_keys=True)}") if points else "no points file"]
    if record.get("inferred"):
        parts = ["as its totals.csv records; no tests.json"]
    return f"tests {record['tests_hash']} ({', '.join(p for p in parts if p)})"


def read_tests_record(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RecordError(f"{path} cannot be read ({exc}): move it away, or grade with "
                          "--replace-tests to write it anew") from None
    if not (isinstance(record, dict) and isinstance(record.get("tests_hash"), str)):
        raise RecordError(f"{path} is not a tests record the grader wrote (no tests_hash): "
                          "move it away, or grade with --replace-tests to write it anew")
    return record


def lesson_tests(folder: Path) -> str | None:
    """The tests hash a lesson folder ``OUT/<lesson>/`` is graded with: its tests.json's,
    or (a folder of an older stridegrad) the newest result's; None if it has neither."""
    record = read_tests_record(folder / TESTS_RECORD)
    if record is not None:
        return record["tests_hash"]
    rows = read_rows(folder / "totals.csv", TOTALS_COLUMNS)
    return max(rows, key=lambda r: r["graded_at"])["tests_hash"] if rows else None


def record_tests(folder: Path, record: dict) -> None:
    """Write ``OUT/<lesson>/tests.json`` (atomically)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{TESTS_RECORD}.", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, folder / TESTS_RECORD)


def claim_tests(folder: Path, digest: str, episode: str, *, extra_tests: Path | None = None,
                points: dict[str, int | None] | None = None, points_file: Path | None = None,
                replace: bool = False, whole: bool = True, run_id: str = "") -> str:
    """Check a run's tests (``digest``, :func:`tests_hash` of the checkpoint of
    ``episode``, the file ``extra_tests`` and the ``points`` overrides of
    ``points_file``) against those the lesson folder ``folder`` (``OUT/<lesson>/``)
    is graded with; the tests hash the lesson is graded with after this run.

    The first run of a lesson records its tests. A run with other tests is a
    :class:`RecordError` (one line, naming both hashes and what each holds) unless
    ``replace``: then a run of ``whole`` lesson records its own, and a run of some
    students leaves the record as it is (its results are the ones noted)."""
    spec = importlib.util.find_spec(f"stridegrad.course.checkpoints.ep{episode}")
    mine = {"tests_hash": digest,
            "checkpoint": hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest()[:16],
            "extra_tests": {"file": Path(extra_tests).name,
                            "sha256": hashlib.sha256(Path(extra_tests).read_bytes())
                            .hexdigest()[:16]} if extra_tests else None,
            "points": points or None,
            "points_file": Path(points_file).name if points and points_file else None,
            "run_id": run_id}
    record = read_tests_record(folder / TESTS_RECORD)
    before = record
    if before is None and (lesson := lesson_tests(folder)) is not None:
        before = {"tests_hash": lesson, "inferred": True}
    if before is not None and before["tests_hash"] != digest:
        if not replace:
            what = [name for key, name in (("checkpoint", "the checkpoint (another stridegrad "
                                                          "version?)"),
                                           ("extra_tests", "the extra tests"),
                                           ("points", "the points"))
                    if not before.get("inferred") and before.get(key) != mine[key]]
            raise RecordError(
                f"{folder.name} in {folder.parent} is graded with {_describe(before)}, this "
                f"run has {_describe(mine)}" + (f": {' and '.join(what)} differ" if what else "")
                + ". Give the same --extra-tests and --points as the runs before, or "
                "--replace-tests to grade with these (to try notebooks without touching this "
                "gradebook, give --keep DIR and no --out)")
        if not whole:
            return before["tests_hash"]
    if record is None or record["tests_hash"] != digest:
        record_tests(folder, mine)
    return digest


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


def _collected_path(out: Path, assignment: str) -> Path:
    return out / f"collected-{assignment}.csv"


def read_collected(out: Path, assignment: str) -> dict[str, dict]:
    """``OUT/collected-<assignment>.csv``: student -> collect's facts of them
    (:data:`COLLECTED_COLUMNS`); none if the file is missing."""
    return {r["student"]: r for r in read_rows(_collected_path(out, assignment),
                                               COLLECTED_COLUMNS)}


def write_collected(out: Path, assignment: str, rows: Iterable[dict]) -> None:
    """Write ``OUT/collected-<assignment>.csv`` (removed when there are no rows)."""
    rows = sorted(rows, key=lambda r: r["student"])
    path = _collected_path(out, assignment)
    if rows:
        write_rows(path, COLLECTED_COLUMNS, rows)
    else:
        path.unlink(missing_ok=True)


def carry_collected(submitted: Path, out: Path, assignment: str, *,
                    students: list[str] | None = None,
                    shard: tuple[int, int] | None = None) -> None:
    """Carry collect's record ``SUBMITTED/collected-<assignment>.csv`` into
    ``OUT/collected-<assignment>.csv`` for the students a run grades: those named
    (``--student``), else those of the shard (``--shard``), else every student (and
    then the rows of a record that is gone go too). The other students' rows stay,
    as their results do."""
    from stridegrad.course.shards import shard_of

    def graded(name: str) -> bool:
        if students:
            return name in students
        return shard is None or shard_of(name, shard[1]) == shard[0]

    path = Path(submitted) / f"collected-{assignment}.csv"
    record = []
    if path.is_file():
        try:
            with open(path, newline="", encoding="utf-8") as f:
                record = [{c: r.get(c) or "" for c in COLLECTED_COLUMNS}
                          for r in DictReader(f) if r.get("student")]
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise RecordError(f"cannot read collect's record {path}: {exc}") from None
    old = read_collected(out, assignment)
    kept = [r for name, r in old.items() if not graded(name)]
    write_collected(out, assignment, kept + [r for r in record if graded(r["student"])])


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
            read_rows(folder / MILESTONE_FILE, MILESTONE_COLUMNS)
            read_tests_record(folder / TESTS_RECORD)
    for path in out.glob("collected-*.csv"):
        read_rows(path, COLLECTED_COLUMNS)
    if (out / ROSTER).is_file():
        read_roster(out / ROSTER)


def _collect_notes(lesson: str, fact: dict | None, graded: bool) -> list[str]:
    """The gradebook's notes of one student and lesson from collect's ``fact``
    (``graded``: the grader has a notebook of theirs)."""
    if not fact:
        return []
    notes = []
    if fact["not_placed"]:
        if graded:  # an earlier collect's notebook is graded; this upload's was not placed
            notes.append(f"{lesson}: a later upload was not placed: {fact['not_placed']}")
        else:
            notes.append(f"{lesson}: submitted, not placed by collect: {fact['not_placed']}")
    if fact["late"]:
        notes.append(f"{lesson}: late")
    if fact["taken"]:
        kind = "resubmission taken" if fact["taken"].startswith("newest") else "several files"
        notes.append(f"{lesson}: {kind}: {fact['taken']}")
    return notes


def build_gradebook(out: Path) -> tuple[Path, list[dict]]:
    """Rebuild ``OUT/gradebook.csv`` from every ``OUT/<lesson>/totals.csv`` and the
    roster; (its path, its rows)."""
    lessons = sorted(p.name for p in out.iterdir()
                     if p.is_dir() and (p / "totals.csv").is_file())
    totals = {lesson: read_rows(out / lesson / "totals.csv", TOTALS_COLUMNS)
              for lesson in lessons}
    facts = {lesson: read_collected(out, lesson) for lesson in lessons}
    milestones = {lesson: {r["student"]: r["milestone"] for r in
                           read_rows(out / lesson / MILESTONE_FILE, MILESTONE_COLUMNS)}
                  for lesson in lessons}
    milestones = {lesson: rows for lesson, rows in milestones.items() if rows}
    roster = read_roster(out / ROSTER) if (out / ROSTER).is_file() else []
    students = sorted(set(roster) | {r["student"] for rows in totals.values() for r in rows}
                      | {s for rows in facts.values() for s in rows})
    # the tests a lesson is graded with (tests.json): results made with others are noted
    latest = {lesson: lesson_tests(out / lesson) for lesson, rows in totals.items() if rows}
    maxima = {lesson: max((int(r["max_points"]) for r in rows), default=0)
              for lesson, rows in totals.items()}
    stretch_maxima = {lesson: max((int(r["stretch_max"]) for r in rows), default=0)
                      for lesson, rows in totals.items()}
    book = []
    for student in students:
        ids = {lesson: facts[lesson][student]["student_id"] for lesson in lessons
               if facts[lesson].get(student, {}).get("student_id")}
        row = {"student": student, "student_id": next(iter(ids.values()), "")}
        notes, total, stretch = [], 0, 0
        if len(set(ids.values())) > 1:
            notes.append("LMS ids differ: " + ", ".join(f"{lesson} {i}"
                                                        for lesson, i in ids.items()))
        for lesson in lessons:
            mine = next((r for r in totals[lesson] if r["student"] == student), None)
            fact = facts[lesson].get(student)
            absent = mine is None or mine["status"] == "no-notebook"
            collected = _collect_notes(lesson, fact, not absent)
            if absent and not (fact and fact["not_placed"]):
                notes.append(f"{lesson}: no submission")
            notes += collected
            if mine is None:
                row[lesson] = 0
                continue
            row[lesson] = int(mine["points"])
            total += int(mine["points"])
            stretch += int(mine["stretch_points"])
            if mine["status"] not in ("graded", "no-notebook"):
                notes.append(f"{lesson}: {mine['status']}")
            if mine["tests_hash"] != latest[lesson]:
                notes.append(f"{lesson}: graded with other tests ({mine['tests_hash']}, "
                             f"the lesson's {latest[lesson]})")
        if roster and student not in roster:
            notes.append("not on the roster")
        row.update(total=total, max_total=sum(maxima.values()), stretch=stretch,
                   stretch_max=sum(stretch_maxima.values()), notes="; ".join(notes))
        for lesson, rows in milestones.items():
            row[f"{lesson} milestone"] = rows.get(student, "")
        book.append(row)
    path = out / GRADEBOOK
    write_rows(path, gradebook_columns(lessons, list(milestones)), book)
    return path, book


def gradebook_columns(lessons: list[str], milestones: list[str] = ()) -> tuple[str, ...]:
    """``student``, ``student_id`` (the LMS's id of the student where collect found one:
    Canvas's user id, Moodle's participant id, Blackboard's user name, GitHub
    Classroom's login; else empty), one column per lesson (its points), ``total``,
    ``max_total``, then ``stretch`` and ``stretch_max`` (the optional stretch
    exercises' points over all lessons: extra credit, kept out of ``total`` so an LMS
    can weigh them as it likes), ``<lesson> milestone`` for each lesson of ``milestones``
    (those with a ``milestone.csv``, from ``stridegrad grade --yours``: advisory text, not
    points), ``notes``."""
    return ("student", "student_id", *lessons, "total", "max_total", "stretch",
            "stretch_max", *(f"{lesson} milestone" for lesson in milestones), "notes")


# ------------------------------------------------------------------------- LMS export

#: The LMSs :func:`export_lms` writes for, and the collect rules whose ids they take.
LMS = {"canvas": "Canvas", "moodle": "Moodle"}
#: Canvas's Gradebook import (Grades > Import), in the columns of Canvas's own
#: Gradebook export; the assignment column is ``NAME (ASSIGNMENT ID)``, or a new
#: name (Canvas then creates the assignment), and a "Points Possible" row follows the
#: header as in Canvas's export.
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
#: Moodle's assignment grading worksheet (the assignment's "Offline grading
#: worksheet" feedback type: Grading action > Upload grading worksheet): Moodle
#: finds the columns by name and needs these three of them.
MOODLE_COLUMNS = ("Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)")


def export_lms(out: Path, lesson: str, lms: str, path: Path | None = None, *,
               column: str | None = None) -> tuple[Path, list[dict], list[str]]:
    """Write the points of ``lesson`` (``01`` or ``01_flat_storage``) in the gradebook
    folder ``out`` as the file ``lms`` (``canvas`` or ``moodle``) imports; (its path,
    default ``OUT/<lesson>-<lms>.csv``, its student rows, a line per student left
    out and why).

    A student is matched by the id collect found in that LMS's download (Canvas's user
    id, Moodle's participant id, in ``OUT/collected-<lesson>.csv``); a student
    without one (collected from another LMS, a folder, or not collected) is left out,
    and named. ``column``: Canvas's assignment column, ``NAME (ID)`` of the
    assignment in Canvas (default the lesson's name: a new assignment). Only the
    lesson's points go out; the optional stretch exercises' stay in the gradebook.
    Every cell is written through :func:`~stridegrad.course._sinks.csv_cell`."""
    if lms not in LMS:
        raise RecordError(f"--lms {lms!r}: expected one of {', '.join(LMS)}")
    out = Path(out)
    lessons = sorted(p.name for p in out.iterdir()
                     if p.is_dir() and (p / "totals.csv").is_file()) if out.is_dir() else []
    found = [name for name in lessons if name == lesson or name.split("_", 1)[0] == lesson]
    if len(found) != 1:
        raise RecordError(f"{out} has no results of lesson {lesson!r} (its lessons: "
                          f"{', '.join(lessons) or 'none'}): grade it into {out} first")
    assignment = found[0]
    totals = read_rows(out / assignment / "totals.csv", TOTALS_COLUMNS)
    facts = read_collected(out, assignment)
    rule = LMS[lms]
    rows, left_out, maximum = [], [], 0
    for total in totals:
        student, fact = total["student"], facts.get(total["student"])
        maximum = max(maximum, int(total["max_points"]))
        if not (fact and fact["student_id"] and fact["rule"].startswith(rule)):
            how = (f"collected by the rule {fact['rule']!r}, not from {rule}'s download"
                   if fact and fact["rule"] else "no LMS id: not collected from "
                   f"{rule}'s download (stridegrad collect records it)")
            left_out.append(f"{student}: {how}")
            continue
        rows.append((student, fact["student_id"], int(total["points"]), total["graded_at"]))
    if not rows:
        raise RecordError(f"no student of {assignment} in {out} has a {rule} id ("
                          + "; ".join(left_out[:3]) + (", ..." if len(left_out) > 3 else "")
                          + f"): collect {rule}'s download with stridegrad collect, then grade")
    path = Path(path) if path else out / f"{assignment}-{lms}.csv"
    if lms == "canvas":
        name = column or assignment
        columns = (*CANVAS_COLUMNS, name)
        table = [{"Student": "Points Possible", name: maximum}] + [
            {"Student": student, "ID": ident, name: points}
            for student, ident, points, _ in rows]
    else:
        columns = MOODLE_COLUMNS
        table = [{"Identifier": f"Participant {ident}", "Full name": student,
                  "Grade": points, "Maximum Grade": maximum,
                  "Last modified (grade)": graded_at}
                 for student, ident, points, graded_at in rows]
    write_rows(path, columns, table)
    return path, table, left_out
