"""The lesson's tests, remembered in ``OUT/<lesson>/tests.json``: which runs are refused,
which replace them, and how a merge carries them and collect's facts. No notebook
runs here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from stridegrad.course import gradebook
from stridegrad.course.gradebook import (
    COLLECTED_COLUMNS,
    GRADES_COLUMNS,
    TESTS_RECORD,
    TOTALS_COLUMNS,
    RecordError,
    claim_tests,
    read_collected,
    write_rows,
)
from stridegrad.course.shards import merge_gradebooks

STEM = "01_flat_storage"
POINTS = {"numel_of_a_scalar": 2}


@pytest.fixture
def hidden(tmp_path) -> Path:
    path = tmp_path / "hidden.py"
    path.write_text("# the instructor's tests\n")
    return path


def _claim(folder: Path, extra: Path | None = None, points: dict | None = None, **kw) -> str:
    digest = gradebook.tests_hash("01", extra.read_bytes() if extra else None, points)
    return claim_tests(folder, digest, "01", extra_tests=extra, points=points,
                       points_file=Path("points.toml") if points else None, **kw)


def _record(folder: Path) -> dict:
    return json.loads((folder / TESTS_RECORD).read_text())


def test_the_first_run_records_its_tests_and_the_same_tests_pass(tmp_path, hidden):
    folder = tmp_path / "out" / STEM
    digest = _claim(folder, hidden, POINTS)
    record = _record(folder)
    assert record["tests_hash"] == digest
    assert record["extra_tests"]["file"] == "hidden.py" and len(
        record["extra_tests"]["sha256"]) == 16
    assert record["points"] == POINTS and record["points_file"] == "points.toml"
    assert _claim(folder, hidden, POINTS, whole=False) == digest


@pytest.mark.parametrize("change, what", [
    ({"extra": None}, "the extra tests differ"),
    ({"points": {"numel_of_a_scalar": 3}}, "the points differ"),
    ({"points": None}, "the points differ"),
])
def test_other_tests_are_refused_naming_both_hashes(tmp_path, hidden, change, what):
    folder = tmp_path / "out" / STEM
    lesson = _claim(folder, hidden, POINTS)
    args = {"extra": hidden, "points": POINTS, **change}
    with pytest.raises(RecordError) as refused:
        _claim(folder, **args)
    message = str(refused.value)
    assert re.findall(r"tests ([0-9a-f]{16})", message)[0] == lesson
    mine = gradebook.tests_hash("01", args["extra"].read_bytes() if args["extra"] else None,
                      args["points"])
    assert f"this run has tests {mine}" in message
    assert what in message and "--replace-tests" in message and "\n" not in message
    assert _record(folder)["tests_hash"] == lesson  # unchanged


def test_replace_tests_records_them_only_for_a_run_of_the_whole_lesson(tmp_path, hidden):
    folder = tmp_path / "out" / STEM
    lesson = _claim(folder, hidden)
    # --student/--shard: its results are the ones noted; the lesson's tests stay
    assert _claim(folder, replace=True, whole=False) == lesson
    assert _record(folder)["tests_hash"] == lesson
    # every student: these become the lesson's
    mine = _claim(folder, replace=True, whole=True)
    assert mine != lesson and _record(folder)["tests_hash"] == mine
    assert _record(folder)["extra_tests"] is None


def _totals(student: str, digest: str, when: str, run: str) -> dict:
    return {"student": student, "assignment": STEM, "points": 1, "max_points": 2,
            "stretch_points": 0, "stretch_max": 0, "status": "graded", "sandbox": "off",
            "run_id": run, "graded_at": when, "tests_hash": digest}


def _grades(student: str, digest: str, when: str, run: str) -> dict:
    return {"student": student, "assignment": STEM, "test": "t", "points": 1,
            "max_points": 2, "status": "pass", "message": "", "sandbox": "off",
            "run_id": run, "graded_at": when, "tests_hash": digest}


def test_an_older_gradebook_without_a_record_is_held_to_its_newest_results_tests(tmp_path):
    folder = tmp_path / "out" / STEM
    write_rows(folder / "totals.csv", TOTALS_COLUMNS,
               [_totals("alice", "a" * 16, "2026-10-01T00:00:00+00:00", "r1"),
                _totals("bob", "b" * 16, "2026-10-02T00:00:00+00:00", "r2")])
    with pytest.raises(RecordError, match=f"graded with tests {'b' * 16} "
                                          r"\(as its totals.csv records"):
        _claim(folder)
    assert not (folder / TESTS_RECORD).exists()


def test_a_merge_carries_the_tests_record_and_collects_facts(tmp_path):
    digest = gradebook.tests_hash("01")
    for i, (student, when) in enumerate([("alice", "2026-10-01T00:00:00+00:00"),
                                         ("bob", "2026-10-02T00:00:00+00:00")], 1):
        out = tmp_path / f"s{i}"
        write_rows(out / STEM / "totals.csv", TOTALS_COLUMNS, [_totals(student, digest, when,
                                                                       f"r{i}")])
        write_rows(out / STEM / "grades.csv", GRADES_COLUMNS, [_grades(student, digest, when,
                                                                       f"r{i}")])
        _claim(out / STEM)
        write_rows(out / f"collected-{STEM}.csv", COLLECTED_COLUMNS, [
            {"student": student, "student_id": str(100 + i), "rule": "Canvas",
             "late": "late" if i == 2 else "", "collected_at": when}])
    merge_gradebooks([tmp_path / "s1", tmp_path / "s2"], tmp_path / "m", log=lambda s: None)
    facts = read_collected(tmp_path / "m", STEM)
    assert {s: (r["student_id"], r["late"]) for s, r in facts.items()} == {
        "alice": ("101", ""), "bob": ("102", "late")}
    assert _record(tmp_path / "m" / STEM)["tests_hash"] == digest
    # and a run into the merged folder with other tests is refused
    with pytest.raises(RecordError, match=f"graded with tests {digest}"):
        _claim(tmp_path / "m" / STEM, points=POINTS)
