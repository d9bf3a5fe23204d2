"""Collect's facts reach the gradebook (not placed and why, late, a resubmission taken,
the LMS id), and ``stridegrad grade export`` writes what Canvas and Moodle import.
No notebook runs here: the gradebook folder is written as the grader writes it."""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.course.gradebook import (
    TOTALS_COLUMNS,
    RecordError,
    build_gradebook,
    carry_collected,
    export_lms,
    write_rows,
)

STEM = "01_flat_storage"
GRADED_AT = "2026-10-06T09:00:00+00:00"

#: The header of a Canvas Gradebook export (Grades > Export), the form Canvas's
#: Gradebook import reads back: five identity columns, then "NAME (ASSIGNMENT ID)"
#: per assignment, and a "Points Possible" row.
CANVAS_SAMPLE = ('Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (4567)\n'
                 '    Points Possible,,,,,42\n'
                 '"Smith, John",12345,,,CS101,\n')
#: The header of a Moodle assignment's offline grading worksheet (Grading action >
#: Download grading worksheet), which "Upload grading worksheet" reads back, finding
#: the columns Identifier, Grade and Last modified (grade) by name.
MOODLE_SAMPLE = ('Identifier,"Full name","Email address",Status,Grade,"Maximum Grade",'
                 '"Grade can be changed","Last modified (submission)","Last modified (grade)",'
                 '"Feedback comments"\n'
                 '"Participant 501","John Smith",js@example.org,Submitted,,42.00,Yes,'
                 '"Thursday, 1 October 2026, 10:00 AM",-,\n')


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def _totals(student: str, points: int, status: str = "graded") -> dict:
    return {"student": student, "assignment": STEM, "points": points, "max_points": 42,
            "stretch_points": 0, "stretch_max": 0, "status": status, "sandbox": "off",
            "run_id": "r1", "graded_at": GRADED_AT, "tests_hash": "0" * 16}


def _collect(tmp_path: Path) -> Path:
    """A Canvas download: a resubmission, a late one, a PDF only, another lesson's
    notebook only, and a tie; filed by the real collect."""
    from stridegrad.course.collect import collect

    from .test_release_collect import LESSON, OTHER, SOLUTION, _when

    members = [
        (f"smithjohn_12345_67890_{STEM}.ipynb", LESSON, _when(2026, 10, 1)),
        (f"smithjohn_12345_67899_{STEM}-1.ipynb", SOLUTION, _when(2026, 10, 2)),
        (f"doejane_LATE_22222_67891_{STEM}.ipynb", SOLUTION, _when(2026, 10, 2)),
        ("leeann_33333_67892_report.pdf", b"%PDF-1.4", _when(2026, 10, 1)),
        ("ngben_44444_67893_02_strides_and_views.ipynb", OTHER, _when(2026, 10, 1)),
        (f"kimsue_55555_67894_{STEM}.ipynb", SOLUTION, _when(2026, 10, 1)),
        (f"kimsue_55555_67895_{STEM} copy.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("notes.pdf", b"%PDF-1.4", _when(2026, 10, 1)),  # nobody's
    ]
    download = tmp_path / "canvas.zip"
    with zipfile.ZipFile(download, "w") as z:
        for name, data, when in members:
            z.writestr(zipfile.ZipInfo(name, date_time=when), data)
    submitted = tmp_path / "submitted"
    collect(download, submitted, "01", log=lambda line: None)
    return submitted


@pytest.fixture
def graded(tmp_path):
    """OUT as a run of lesson 01 over the collected folder leaves it."""
    submitted = _collect(tmp_path)
    out = tmp_path / "out"
    write_rows(out / STEM / "totals.csv", TOTALS_COLUMNS,
               [_totals("doejane", 40), _totals("smithjohn", 36)])
    (out / "roster.txt").write_text("doejane\nsmithjohn\nleeann\nngben\nkimsue\nzoe\n")
    carry_collected(submitted, out, STEM)
    build_gradebook(out)
    return out


def _book(out: Path) -> dict[str, dict]:
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def test_collects_facts_are_in_the_gradebook(graded):
    book = _book(graded)
    assert list(next(iter(book.values())))[:3] == ["student", "student_id", STEM]
    assert {s: r["student_id"] for s, r in book.items()} == {
        "doejane": "22222", "smithjohn": "12345", "leeann": "33333", "ngben": "44444",
        "kimsue": "55555", "zoe": ""}
    # they submitted: not "no submission", and why nothing was placed
    assert book["leeann"]["notes"] == (f"{STEM}: submitted, not placed by collect: "
                                       "leeann_33333_67892_report.pdf: not a notebook (.pdf)")
    assert book["ngben"]["notes"].startswith(
        f"{STEM}: submitted, not placed by collect: ngben_44444_67893_02_strides_and_views"
        ".ipynb: another lesson's notebook")
    assert "2 notebooks and no way to tell which is the newest" in book["kimsue"]["notes"]
    assert "no submission" not in book["kimsue"]["notes"]
    assert book["zoe"]["notes"] == f"{STEM}: no submission"  # on the roster, nothing at all
    assert book["doejane"]["notes"] == f"{STEM}: late"
    assert book["smithjohn"]["notes"] == f"{STEM}: resubmission taken: newest of 2"
    assert "notes" not in book  # the loose notes.pdf is nobody's


def test_a_regrade_of_one_student_carries_only_their_facts(graded, tmp_path):
    submitted = tmp_path / "submitted"
    record = submitted / f"collected-{STEM}.csv"
    text = record.read_text(encoding="utf-8")
    record.write_text(text.replace("22222", "99999").replace("12345", "88888"),
                      encoding="utf-8")
    carry_collected(submitted, graded, STEM, students=["doejane"])
    build_gradebook(graded)
    book = _book(graded)
    assert book["doejane"]["student_id"] == "99999"
    assert book["smithjohn"]["student_id"] == "12345"  # not regraded: as before


def test_canvas_export_has_the_columns_of_canvas_own_export(graded):
    path, rows, left_out = export_lms(graded, "01", "canvas", column="Lab 1 (4567)")
    assert path == graded / f"{STEM}-canvas.csv"
    written = _rows(path)
    sample = list(csv.reader(CANVAS_SAMPLE.splitlines()))
    assert written[0] == sample[0]
    assert written[1][0].strip() == sample[1][0].strip() == "Points Possible"
    assert written[1][5] == "42"
    assert written[2:] == [["doejane", "22222", "", "", "", "40"],
                           ["smithjohn", "12345", "", "", "", "36"]]
    assert left_out == []  # every student with a result has a Canvas id


def test_moodle_export_has_the_worksheet_columns_moodle_reads(graded, tmp_path):
    from stridegrad.course.collect import collect

    from .test_release_collect import SOLUTION, _when

    download = tmp_path / "moodle.zip"
    with zipfile.ZipFile(download, "w") as z:
        z.writestr(zipfile.ZipInfo(f"John Smith_501_assignsubmission_file_/{STEM}.ipynb",
                                   date_time=_when(2026, 10, 1)), SOLUTION)
    submitted = tmp_path / "moodle-submitted"
    collect(download, submitted, "01", log=lambda line: None)
    write_rows(graded / STEM / "totals.csv", TOTALS_COLUMNS,
               [_totals("John Smith", 42), _totals("doejane", 40)])
    carry_collected(submitted, graded, STEM, students=["John Smith"])
    path, _, left_out = export_lms(graded, STEM, "moodle")
    written = _rows(path)
    sample = next(csv.reader(MOODLE_SAMPLE.splitlines()))
    # Moodle's importer needs these three columns, found by name
    for name in ("Identifier", "Grade", "Last modified (grade)"):
        assert name in written[0] and name in sample
    assert set(written[0]) <= set(sample)
    row = dict(zip(written[0], written[1]))
    assert row == {"Identifier": "Participant 501", "Full name": "John Smith", "Grade": "42",
                   "Maximum Grade": "42", "Last modified (grade)": GRADED_AT}
    assert len(written) == 2
    # doejane came from Canvas: a Canvas id is no Moodle participant, so she is named
    assert left_out == ["doejane: collected by the rule 'Canvas', not from Moodle's download"]


def test_export_refuses_what_it_cannot_match(graded, tmp_path):
    with pytest.raises(RecordError, match=r"has no results of lesson '02' \(its lessons: "
                                          rf"{STEM}\)"):
        export_lms(graded, "02", "canvas")
    with pytest.raises(RecordError, match="no student of .* has a Moodle id"):
        export_lms(graded, "01", "moodle")
    with pytest.raises(RecordError, match="--lms 'blackboard': expected one of canvas, moodle"):
        export_lms(graded, "01", "blackboard")


def test_export_cells_are_neutralised_for_spreadsheets(graded):
    write_rows(graded / STEM / "totals.csv", TOTALS_COLUMNS, [_totals("=cmd|x", 3)])
    write_rows(graded / f"collected-{STEM}.csv",
               ("student", "student_id", "rule", "late", "taken", "not_placed", "source",
                "collected_at"),
               [{"student": "=cmd|x", "student_id": "7", "rule": "Canvas",
                 "collected_at": GRADED_AT}])
    path, _, _ = export_lms(graded, "01", "canvas")
    assert _rows(path)[2][0] == "'=cmd|x"


def test_export_command(graded, capsys):
    assert cli(["grade", "export", str(graded), "--lesson", "01", "--lms", "canvas",
                "--column", "Lab 1 (4567)", "--file", str(graded / "c.csv")]) == 0
    assert capsys.readouterr().out == f"wrote {graded / 'c.csv'}: 2 students\n"
    assert _rows(graded / "c.csv")[0][-1] == "Lab 1 (4567)"
    assert cli(["grade", "export", str(graded), "--lesson", "01", "--lms", "moodle",
                "--column", "x"]) == 2
    assert "--column is Canvas's assignment column" in capsys.readouterr().err


def test_an_id_that_differs_between_lessons_is_noted(graded):
    stem2 = "02_strides_and_views"
    write_rows(graded / stem2 / "totals.csv", TOTALS_COLUMNS,
               [{**_totals("doejane", 7), "assignment": stem2}])
    write_rows(graded / f"collected-{stem2}.csv",
               ("student", "student_id", "rule", "late", "taken", "not_placed", "source",
                "collected_at"),
               [{"student": "doejane", "student_id": "77777", "rule": "Canvas",
                 "collected_at": GRADED_AT}])
    build_gradebook(graded)
    book = _book(graded)
    assert book["doejane"]["student_id"] == "22222"  # the first lesson's
    assert book["doejane"]["notes"].startswith(
        f"LMS ids differ: {STEM} 22222, {stem2} 77777; ")
    assert book["smithjohn"]["student_id"] == "12345"
    assert "LMS ids differ" not in book["smithjohn"]["notes"]
