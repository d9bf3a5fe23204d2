"""Grading past one machine: ``--shard I/N`` and ``stridegrad grade merge``.

**Which students a shard grades.** Student ``name`` belongs to shard
``int.from_bytes(sha256(NFC(name).encode("utf-8"))[:8], "big") % N + 1``
(:func:`shard_of`). The rule depends on the name and ``N`` only: not on which
students submitted, not on a roster, not on the order a file system lists
folders, not on the machine or the Python version (Python's ``hash()`` is salted
per process, so it is not used; the name is NFC-normalised, so a folder name
that macOS stores decomposed lands where Linux puts it). A student keeps their
shard when others join or drop out, so a rerun of one shard regrades the same
students. The price is balance: shards are as even as random draws (40 students
in 3 shards: 13 each give or take 3), not exactly even as a round-robin over a
sorted roster would be. A roster-position rule was rejected because it moves
students between shards whenever the roster changes, and needs the same roster
file on every machine.

A shard run marks its results: its ``run_id`` ends in ``-shardIofN``, which
:func:`merge_gradebooks` reads to warn when a shard is missing from a merge.

**Merging.** :func:`merge_gradebooks` merges gradebook folders (each one ``--out``
of ``stridegrad grade``) the way runs merge into one ``--out``: per lesson, per
student, the result graded last (``graded_at``) wins, its per-test rows and its
feedback page with it; ``gradebook.csv`` is rebuilt from the merged ``totals.csv``
files and the union of the rosters; collect's facts (``collected-<lesson>.csv``) per
student, the newest collect's; the lesson's tests record (``<lesson>/tests.json``)
is that of the newest result's tests. Results already in the target folder take
part like any input. The merged results of a lesson must all have been made
with the same tests (``tests_hash``); otherwise the merge refuses, naming the
students, the folders and both hashes, unless ``allow_mixed_tests``.
"""

from __future__ import annotations

import datetime
import hashlib
import re
import shutil
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from stridegrad.course._sinks import DictReader, terminal_log
from stridegrad.course.gradebook import (
    GRADES_COLUMNS,
    ROSTER,
    TESTS_RECORD,
    TOTALS_COLUMNS,
    RecordError,
    build_gradebook,
    read_collected,
    read_roster,
    read_rows,
    read_tests_record,
    record_tests,
    write_collected,
    write_rows,
)

__all__ = ["SHARD_SUFFIX", "merge_gradebooks", "parse_shard", "shard_of"]

#: The end of the ``run_id`` of a shard run: ``-shard2of3``.
SHARD_SUFFIX = re.compile(r"-shard(\d+)of(\d+)$")


def shard_of(student: str, n: int) -> int:
    """The shard, 1 to ``n``, that grades ``student`` (see the module docstring)."""
    if n < 1:
        raise ValueError(f"the number of shards must be at least 1, got {n}")
    name = unicodedata.normalize("NFC", student).encode("utf-8")
    return int.from_bytes(hashlib.sha256(name).digest()[:8], "big") % n + 1


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/3"`` -> ``(2, 3)``; a ValueError that says what is wrong otherwise (for
    ``--shard``, which argparse names in front of it)."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
    if not m:
        raise ValueError(f"expected I/N, shard I of N counted from 1 (e.g. 2/3), got {text!r}")
    i, n = int(m.group(1)), int(m.group(2))
    if n < 1:
        raise ValueError(f"{text}: N (the number of shards) must be at least 1")
    if not 1 <= i <= n:
        raise ValueError(f"{text}: I must be between 1 and {n} (shards are counted "
                         "from 1; a 0-based index such as Kubernetes' JOB_COMPLETION_INDEX "
                         "needs + 1)")
    return i, n


def shard_tag(shard: tuple[int, int]) -> str:
    """What a shard run appends to its ``run_id``."""
    return f"-shard{shard[0]}of{shard[1]}"


# --------------------------------------------------------------------------- merging

@dataclass
class _Source:
    """One gradebook folder taking part in a merge."""

    path: Path
    label: str
    #: lesson -> student -> (totals row, {file: that student's rows}) for totals.csv and
    #: the per-test (grades.csv) and other per-student files (exercises.csv...)
    results: dict[str, dict[str, tuple[dict, dict[str, list[dict]]]]] = field(
        default_factory=dict)
    #: lesson -> file -> its columns
    columns: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    roster: list[str] = field(default_factory=list)


def _read_source(path: Path, label: str) -> _Source:
    if not path.is_dir():
        raise RecordError(f"{label}: no such folder (give the --out folders of the runs "
                          "to merge)")
    source = _Source(path, label)
    lessons = sorted(p for p in path.iterdir() if p.is_dir() and (p / "totals.csv").is_file())
    for folder in lessons:
        totals = read_rows(folder / "totals.csv", TOTALS_COLUMNS)
        files = {"grades.csv": (GRADES_COLUMNS, read_rows(folder / "grades.csv", GRADES_COLUMNS))}
        for other in sorted(folder.glob("*.csv")):
            if other.name not in ("totals.csv", "grades.csv"):
                files[other.name] = _read_any(other)
        source.columns[folder.name] = {name: cols for name, (cols, _) in files.items()}
        per_file: dict[str, dict[str, list[dict]]] = {}
        for name, (_, rows) in files.items():
            for row in rows:
                per_file.setdefault(row["student"], {}).setdefault(name, []).append(row)
        results: dict[str, tuple[dict, dict[str, list[dict]]]] = {}
        for row in totals:
            student = row["student"]
            if student in results:
                raise RecordError(f"{folder / 'totals.csv'} has two rows of {student}: "
                                  "not a file the grader wrote")
            rows = per_file.get(student, {})
            if not rows.get("grades.csv"):
                rows["grades.csv"] = []
            for name, mine in rows.items():
                if (name == "grades.csv" and not mine) or any(
                        r["run_id"] != row["run_id"] for r in mine):
                    raise RecordError(
                        f"{folder / name} does not hold {student}'s rows of run "
                        f"{row['run_id']} that {folder / 'totals.csv'} records: the two files "
                        "disagree (edited by hand?); regrade the student into that folder")
            results[student] = (row, rows)
        source.results[folder.name] = results
    if (path / ROSTER).is_file():
        source.roster = read_roster(path / ROSTER)
    if not source.results and not source.roster:
        raise RecordError(f"{label} holds no results (no <lesson>/totals.csv): it is not "
                          "the --out folder of a `stridegrad grade` run")
    return source


def _read_any(path: Path) -> tuple[tuple[str, ...], list[dict]]:
    """Another per-student CSV of a lesson folder (``exercises.csv``...): its columns must
    name the student and the run, as the grader's files do; its values as written (the
    ``'`` that neutralised a formula-like cell taken off, as :func:`read_rows` does)."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = DictReader(f)
        rows = list(reader)
        columns = tuple(reader.fieldnames or ())
    if not {"student", "run_id"} <= set(columns):
        raise RecordError(f"{path} has the columns {list(columns)}, with no student and run_id: "
                          "not a file the grader wrote; move it away")
    return columns, rows


def _when(row: dict) -> datetime.datetime:
    try:
        when = datetime.datetime.fromisoformat(row["graded_at"])
    except ValueError:
        raise RecordError(f"{row['student']}: graded_at {row['graded_at']!r} is not a "
                          "time the grader wrote") from None
    return when if when.tzinfo else when.replace(tzinfo=datetime.timezone.utc)


def merge_gradebooks(inputs: list[Path], out: Path, *, allow_mixed_tests: bool = False,
                     log: Callable[[str], None] = print) -> tuple[Path, list[dict]]:
    """Merge the gradebook folders ``inputs`` (and what ``out`` holds already) into
    ``out``; (the path of ``out``'s gradebook.csv, its rows).

    Nothing is written when a folder cannot be read or the tests conflict
    (:class:`~stridegrad.course.gradebook.RecordError`, naming the folder, the file,
    or the students, lessons and tests hashes).
    """
    log = terminal_log(log)  # the lines name students, as their folders are named
    out = Path(out)
    if not inputs:
        raise RecordError("give at least one gradebook folder to merge")
    seen: dict[Path, str] = {}
    for path in map(Path, inputs):
        key = path.resolve()
        if key in seen:
            raise RecordError(f"{path} is given twice (also as {seen[key]})")
        seen[key] = str(path)
    sources = [_read_source(Path(p), str(p)) for p in inputs]
    if out.resolve() not in seen and out.is_dir() and any(
            (p / "totals.csv").is_file() for p in out.iterdir() if p.is_dir()):
        # results already in the target take part, as in a run into the same --out
        sources.append(_read_source(out, f"{out} (the --out folder)"))

    lessons = sorted({lesson for s in sources for lesson in s.results})
    merged: dict[str, dict[str, tuple[_Source, dict, dict[str, list[dict]]]]] = {}
    superseded: list[str] = []
    for lesson in lessons:
        kept: dict[str, tuple[_Source, dict, dict[str, list[dict]]]] = {}
        for source in sources:
            for student, (total, rows) in source.results.get(lesson, {}).items():
                before = kept.get(student)
                if before is None:
                    kept[student] = (source, total, rows)
                    continue
                if before[1]["run_id"] == total["run_id"] and \
                        before[1]["graded_at"] == total["graded_at"]:
                    continue  # the same result, in two folders
                # the newest wins; at the same second, the folder named later
                newer = _when(total) >= _when(before[1])
                win, lose = ((source, total), before[:2]) if newer else (before[:2],
                                                                         (source, total))
                superseded.append(
                    f"{student}, {lesson}: graded in {lose[0].label} ({lose[1]['graded_at']}) "
                    f"and in {win[0].label} ({win[1]['graded_at']}): kept the newest, "
                    f"{win[0].label}'s")
                if newer:
                    kept[student] = (source, total, rows)
        merged[lesson] = dict(sorted(kept.items()))

    columns = {lesson: _file_columns(lesson, sources) for lesson in lessons}
    conflicts = [_tests_conflict(lesson, kept) for lesson, kept in merged.items()]
    conflicts = [c for c in conflicts if c]
    if conflicts and not allow_mixed_tests:
        raise RecordError(
            "results made with different tests (tests_hash) would be merged: "
            + "; ".join(conflicts) + ". Regrade with the same checkpoint and extra tests, or "
            "pass --allow-mixed-tests to merge them anyway (the gradebook's notes then name "
            "each result made with other tests than the lesson's latest)")

    for line in superseded:
        log(line)
    for conflict in conflicts:
        log(f"warning (--allow-mixed-tests): {conflict}")
    roster: list[str] = []
    for source in sources:
        roster += [n for n in source.roster if n not in roster]
    if len({tuple(s.roster) for s in sources if s.roster}) > 1:
        log(f"the rosters differ: the gradebook lists the {len(roster)} students of all "
            "of them")

    out.mkdir(parents=True, exist_ok=True)
    for lesson, kept in merged.items():
        folder = out / lesson
        for name, cols in columns[lesson].items():
            write_rows(folder / name, cols,
                       [r for _, _, rows in kept.values() for r in rows.get(name, [])])
        write_rows(folder / "totals.csv", TOTALS_COLUMNS,
                   [total for _, total, _ in kept.values()])
        for student, (source, _, _) in kept.items():
            page = Path("feedback") / student / f"{lesson}.html"
            target = out / page
            if source.path.resolve() == out.resolve():
                continue
            if (source.path / page).is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source.path / page, target)
            else:  # an older page would describe another result
                target.unlink(missing_ok=True)
    for lesson, kept in merged.items():
        _merge_facts(lesson, kept, sources, out)
    if roster:
        (out / ROSTER).write_text("".join(f"{n}\n" for n in roster), encoding="utf-8")
    book_path, book = build_gradebook(out)

    for lesson, kept in merged.items():
        missing = _missing_shards(kept)
        if missing:
            log(f"warning: {lesson}: no results of shard {', '.join(missing)} in these folders: "
                "if that shard graded anyone, merge its --out folder too")
    names = ", ".join(s.label for s in sources)
    per_lesson = "; ".join(f"{lesson}: {len(kept)} student{'s' if len(kept) != 1 else ''}"
                           for lesson, kept in merged.items())
    log(f"merged {len(sources)} gradebook folder{'s' if len(sources) != 1 else ''} ({names}) "
        f"into {out}: {per_lesson or 'no results'}; wrote {book_path} ({len(book)} student{'s' if len(book) != 1 else ''})")
    return book_path, book


def _merge_facts(lesson: str, kept: dict[str, tuple[_Source, dict, dict]],
                 sources: list[_Source], out: Path) -> None:
    """The merged lesson's collect facts (``collected-<lesson>.csv``: per student, the
    newest collect's) and tests record (``<lesson>/tests.json``: that of the tests the
    newest result was made with, which every result shares unless mixed tests were
    allowed)."""
    facts: dict[str, dict] = {}
    for source in sources:
        for student, row in read_collected(source.path, lesson).items():
            if student not in facts or row["collected_at"] >= facts[student]["collected_at"]:
                facts[student] = row
    write_collected(out, lesson, facts.values())
    if not kept:
        return
    newest = max((total for _, total, _ in kept.values()), key=_when)["tests_hash"]
    records = [read_tests_record(s.path / lesson / TESTS_RECORD) for s in sources]
    record = next((r for r in records if r and r["tests_hash"] == newest), None)
    record_tests(out / lesson, record or {"tests_hash": newest})


def _file_columns(lesson: str, sources: list[_Source]) -> dict[str, tuple[str, ...]]:
    """The per-student files of ``lesson`` and their columns, the same in every folder."""
    found: dict[str, tuple[tuple[str, ...], str]] = {}
    for source in sources:
        for name, cols in source.columns.get(lesson, {}).items():
            first = found.setdefault(name, (cols, source.label))
            if first[0] != cols:
                raise RecordError(
                    f"{source.label}/{lesson}/{name} has the columns {list(cols)} but "
                    f"{first[1]}/{lesson}/{name} has {list(first[0])}: written by different "
                    "versions of stridegrad; regrade one of them with this version")
    return {name: cols for name, (cols, _) in found.items()}


def _tests_conflict(lesson: str, kept: dict[str, tuple[_Source, dict, dict]]) -> str:
    """'' if every kept result of ``lesson`` was made with one set of tests, else a
    sentence naming a student of each set, their folder and the hashes."""
    by_hash: dict[str, tuple[str, str]] = {}
    for student, (source, total, _) in kept.items():
        by_hash.setdefault(total["tests_hash"], (student, source.label))
    if len(by_hash) < 2:
        return ""
    shown = [f"{student} (in {label}) with tests {digest}"
             for digest, (student, label) in by_hash.items()]
    counts = {}
    for _, total, _ in kept.values():
        counts[total["tests_hash"]] = counts.get(total["tests_hash"], 0) + 1
    return (f"{lesson}: " + " but ".join(shown)
            + f" ({', '.join(f'{n} graded with {h}' for h, n in counts.items())})")


def _missing_shards(kept: dict[str, tuple[_Source, dict, dict]]) -> list[str]:
    """Shards I/N of which some were merged and others not, as "I/N"."""
    present: dict[int, set[int]] = {}
    for _, total, _ in kept.values():
        m = SHARD_SUFFIX.search(total["run_id"])
        if m:
            present.setdefault(int(m.group(2)), set()).add(int(m.group(1)))
    return [f"{i}/{n}" for n, got in sorted(present.items())
            for i in range(1, n + 1) if i not in got]
