"""An instructor's points file (issue #15, item 7): ``--points FILE`` overrides the
checkpoint's points per test or per exercise, or skips tests; the overrides are part of the
tests hash; a name the lesson lacks, a bad value or bad TOML is an error naming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.course._worker import add_extra_tests
from stridegrad.course.checks import Checkpoint, expect, load_checkpoint
from stridegrad.course.gradebook import tests_hash as hash_of  # not collected as a test
from stridegrad.course.points import PointsError, apply_points, read_points

from .test_gradebook import _csv
from .test_grader import STEM, _replace_exercise, _solution

CP = load_checkpoint("01")
POINTS = """\
# lesson 01, this term
[tests]
numel_of_a_scalar = 5          # the test most students fail
strides_of_a_matrix = "skip"

[exercises]
offset_to_index = "skip"
index_to_offset = {total}      # split evenly
"""
N_INDEX = sum(t.exercise == "index_to_offset" for t in CP.tests)


def _expected() -> dict[str, int]:
    """Test -> points under POINTS, worked out by hand from the checkpoint."""
    out = {}
    for t in CP.tests:
        if t.name == "strides_of_a_matrix" or t.exercise == "offset_to_index":
            continue
        out[t.name] = 5 if t.name == "numel_of_a_scalar" else \
            3 if t.exercise == "index_to_offset" else t.points
    return out


def _full() -> int:
    """The total under POINTS (an optional stretch exercise's points are not in it)."""
    stretch = {t.name for t in CP.tests if getattr(t, "stretch", False)}
    return sum(p for t, p in _expected().items() if t not in stretch)


def _points_file(tmp_path: Path, text: str = POINTS.format(total=3 * N_INDEX)) -> Path:
    path = tmp_path / "points.toml"
    path.write_text(text)
    return path


def test_read_and_apply(tmp_path):
    before = [(t.name, t.points) for t in CP.tests]
    overrides = read_points(_points_file(tmp_path), CP)
    applied = apply_points(CP, overrides)
    assert {t.name: t.points for t in applied.tests} == _expected()
    assert applied.max_points == _full()
    assert [t.name for t in applied.tests] == [t.name for t in CP.tests if t.name in _expected()]
    assert [(t.name, t.points) for t in CP.tests] == before  # a new checkpoint: CP untouched


def test_the_hash_follows_the_points_not_the_file(tmp_path):
    overrides = read_points(_points_file(tmp_path), CP)
    (tmp_path / "same").mkdir()
    same = read_points(_points_file(tmp_path / "same", (
        f'[exercises]\nindex_to_offset = {3 * N_INDEX}\noffset_to_index = "skip"\n'
        '[tests]\nstrides_of_a_matrix = "skip"\nnumel_of_a_scalar = 5\n')), CP)
    other = read_points(_points_file(tmp_path, "[tests]\nnumel_of_a_scalar = 4\n"), CP)
    assert hash_of("01", None, overrides) == hash_of("01", None, same)
    assert len({hash_of("01"), hash_of("01", None, overrides),
                hash_of("01", None, other)}) == 3


def test_extra_tests_take_points_too(tmp_path):
    extra = Checkpoint(STEM)

    @extra.test("numel", points=2)
    def numel_of_an_odd_shape(numel):
        expect(numel, (7, 11, 13), returns=1001)

    both = add_extra_tests(load_checkpoint("01"), extra)
    n = sum(t.exercise == "numel" for t in both.tests)
    path = _points_file(tmp_path, f"[exercises]\nnumel = {2 * n}\n")
    assert set(read_points(path, both).values()) == {2}
    path.write_text("[tests]\nnumel_of_an_odd_shape = 7\n")
    assert read_points(path, both) == {"numel_of_an_odd_shape": 7}
    with pytest.raises(PointsError, match="has no test 'numel_of_an_odd_shape'"):
        read_points(path, CP)  # without the extra tests, it is not there


_VALID_TESTS = ", ".join(t.name for t in CP.tests)


@pytest.mark.parametrize("text, message", [
    ("[tests]\nnumel_of_a_scalr = 2\n",
     "{path}: [tests] numel_of_a_scalr: lesson 01_flat_storage has no test "
     "'numel_of_a_scalr' (did you mean 'numel_of_a_scalar'?); its tests are " + _VALID_TESTS),
    ("[exercises]\nnmel = 0\n",
     "{path}: [exercises] nmel: lesson 01_flat_storage has no exercise 'nmel' (did you mean "
     "'numel'?); its exercises are " + ", ".join(CP.exercises)),
    ("[tests]\nnumel_of_a_scalar = 2\n\nstrides_of_a_matrix 3\n",
     "{path} is not valid TOML: Expected '=' after a key in a key/value pair (at line 4, "
     "column 21)"),
    ("[tests]\nnumel_of_a_scalar = true\n",
     "{path}: [tests] numel_of_a_scalar = true: give a whole number of points (0 or more) "
     'or "skip"'),
    ("[tests]\nnumel_of_a_scalar = 1.5\n", "numel_of_a_scalar = 1.5: give a whole number"),
    ("[tests]\nnumel_of_a_scalar = -1\n", "numel_of_a_scalar = -1: points must be 0 or more"),
    ("[tests]\nnumel_of_a_scalar = \"none\"\n", "numel_of_a_scalar = 'none': give a whole"),
    ("[exercises]\nnumel = 8\n",
     "{path}: [exercises] numel = 8 does not split evenly over its 7 tests that run"),
    ('[exercises]\nnumel = 13\n[tests]\nnumel_of_a_scalar = "skip"\n',
     "[exercises] numel = 13 does not split evenly over its 6 tests that run"),
    ("[exercises]\nnumel = 12\n[tests]\nnumel_of_a_scalar = 3\n",
     "[exercises] numel = 12 and [tests] numel_of_a_scalar give points to the same tests"),
    ("[test]\nnumel_of_a_scalar = 3\n",
     "{path}: unknown table or key 'test'; a points file has a [tests] table and an "
     "[exercises] table"),
    ("tests = 3\n", "{path}: tests must be a table ([tests]), got 3"),
    ("[exercises]\n" + "".join(f'{ex} = "skip"\n' for ex in CP.exercises),
     "{path}: every test of lesson 01_flat_storage is skipped: nothing to grade"),
])
def test_bad_points_files(tmp_path, text, message):
    path = _points_file(tmp_path, text)
    with pytest.raises(PointsError) as err:
        read_points(path, CP)
    assert message.format(path=path) in str(err.value)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("points")
    sub = base / "submitted"
    for student, nb in (("alice", _solution()), ("bob", _replace_exercise(
            _solution(), "numel", "def numel(shape):\n    return 0\n"))):
        path = sub / student / STEM / f"{STEM}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(nb))
    points = _points_file(base)
    assert cli(["grade", str(sub), "--lesson", "01", "--out", str(base / "out"), "--jobs", "2",
                "--no-sandbox", "--points", str(points), "--timeout", "60",
                "--cell-timeout", "10", "--test-timeout", "2"]) == 0
    return {"base": base, "sub": sub, "out": base / "out", "points": points,
            "bob": sub / "bob" / STEM / f"{STEM}.ipynb"}


def test_grading_uses_the_points(graded):
    rows = _csv(graded["out"] / STEM / "grades.csv")
    expected = _expected()
    for student in ("alice", "bob"):
        mine = {r["test"]: r for r in rows if r["student"] == student}
        assert {t: int(r["max_points"]) for t, r in mine.items()} == expected  # skipped: gone
    bob = {r["test"]: r for r in rows if r["student"] == "bob"}
    assert (bob["numel_of_a_scalar"]["points"], bob["numel_of_a_scalar"]["status"]) == ("0", "fail")
    totals = {r["student"]: r for r in _csv(graded["out"] / STEM / "totals.csv")}
    full = _full()
    assert totals["alice"]["points"] == totals["alice"]["max_points"] == str(full)
    numel = sum(p for t, p in expected.items() if t.startswith("numel"))
    assert int(totals["bob"]["points"]) == full - numel + expected["numel_with_a_zero_size"]
    overrides = read_points(graded["points"], CP)
    assert {r["tests_hash"] for r in totals.values()} == {hash_of("01", None, overrides)}
    assert hash_of("01", None, overrides) != hash_of("01")
    book = {r["student"]: r for r in _csv(graded["out"] / "gradebook.csv")}
    assert book["alice"]["max_total"] == str(full)


def test_check_reproduces_the_grade_with_the_points(graded, capsys):
    bob = {r["student"]: r for r in _csv(graded["out"] / STEM / "totals.csv")}["bob"]
    assert cli(["check", str(graded["bob"]), "--points", str(graded["points"]),
                "--timeout", "60", "--cell-timeout", "10", "--test-timeout", "2"]) == 1
    assert f": {bob['points']}/{bob['max_points']} points" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["grade", "check"])
def test_a_bad_points_file_stops_before_grading(graded, tmp_path, capsys, command):
    bad = _points_file(tmp_path, "[tests]\nnumel_of_a_scalr = 2\n")
    args = ([command, str(graded["sub"]), "--lesson", "01", "--out", str(tmp_path / "o"),
             "--no-sandbox"] if command == "grade" else [command, str(graded["bob"])])
    assert cli([*args, "--points", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"stridegrad {command}: error: {bad}: [tests] numel_of_a_scalr: lesson " in err
    assert "did you mean 'numel_of_a_scalar'?" in err
    assert not (tmp_path / "o" / "gradebook.csv").exists()


def test_the_documented_examples_are_valid(tmp_path):
    """The TOML in README.md and in stridegrad.course.points works as written."""
    from stridegrad.course import points

    from .conftest import ROOT

    readme = (ROOT / "README.md").read_text()
    block = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    doc = []
    for line in points.__doc__.split("::\n\n", 1)[1].splitlines():
        if line.strip() and not line.startswith("    "):
            break
        doc.append(line[4:])
    for text in (block, "\n".join(doc)):
        overrides = read_points(_points_file(tmp_path, text), CP)
        assert overrides["numel_of_a_scalar"] == 2
        assert overrides["strides_with_a_zero_size"] is None
        assert {overrides[t.name] for t in CP.tests if t.exercise == "offset_to_index"} == {0}
        assert sum(overrides[t.name] for t in CP.tests if t.exercise == "index_to_offset") == 16
