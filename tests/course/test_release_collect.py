"""stridegrad release (hand the lessons out), stridegrad collect (file an LMS download
into the grading layout, then grade it), and the stated grading environment (the
``grade`` extra and grading/Dockerfile)."""

from __future__ import annotations

import ast
import csv
import hashlib
import os
import re
import sys
import time
import zipfile
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.commands.lessons import source_notebooks
from stridegrad.course.checks import load_checkpoint

from .conftest import ROOT

STEM = "01_flat_storage"
SOLUTION = (ROOT / "solutions" / f"{STEM}.ipynb").read_bytes()
LESSON = (ROOT / "lessons" / f"{STEM}.ipynb").read_bytes()
OTHER = (ROOT / "lessons" / "02_strides_and_views.ipynb").read_bytes()
FULL = load_checkpoint("01").max_points


def _digest(path: Path) -> dict:
    if path.is_file():
        return {path.name: hashlib.sha256(path.read_bytes()).hexdigest()}
    return {str(p.relative_to(path)): (hashlib.sha256(p.read_bytes()).hexdigest(),
                                       p.stat().st_mtime)
            for p in sorted(path.rglob("*")) if p.is_file() and not p.is_symlink()}


def _placed(submitted: Path) -> dict[str, bytes]:
    return {p.parts[-3]: p.read_bytes()
            for p in sorted(submitted.glob(f"*/{STEM}/{STEM}.ipynb"))}


# ------------------------------------------------------------------------------ release

def test_release_writes_the_chosen_lessons_and_a_readme(tmp_path, capsys):
    out = tmp_path / "handout"
    assert cli(["release", str(out), "--lessons", "1", "strides-and-views",
                "03_elementwise_and_reductions"]) == 0
    sources = {p.name: p.read_bytes() for p in source_notebooks()}
    names = sorted(p.name for p in out.iterdir())
    assert names == ["01_flat_storage.ipynb", "02_strides_and_views.ipynb",
                     "03_elementwise_and_reductions.ipynb", "README.md"]
    for name in names[:-1]:
        assert (out / name).read_bytes() == sources[name]  # the student versions, as built
    readme = (out / "README.md").read_text()
    assert re.findall(r"^\| (\d\d) · .* \| `(\S+)` \|$", readme, re.MULTILINE) == [
        ("01", "01_flat_storage.ipynb"), ("02", "02_strides_and_views.ipynb"),
        ("03", "03_elementwise_and_reductions.ipynb")]
    assert 'pip install "stridegrad[course] @ git+' in readme
    assert "stridegrad check 01_flat_storage.ipynb" in readme
    assert "Any file name is accepted" in readme and "Restart Kernel and Run All" in readme
    assert "released 3 lessons" in capsys.readouterr().out


def test_release_all_lessons_in_nbgrader_layout(tmp_path):
    out = tmp_path / "release"
    assert cli(["release", str(out), "--layout", "nbgrader"]) == 0
    stems = [p.stem for p in source_notebooks()]
    assert len(stems) >= 13
    for stem in stems:
        assert (out / stem / f"{stem}.ipynb").is_file()
    assert f"`{STEM}/{STEM}.ipynb`" in (out / "README.md").read_text()


def test_release_never_overwrites_a_different_file_without_force(tmp_path, capsys):
    out = tmp_path / "handout"
    assert cli(["release", str(out), "--lessons", "01"]) == 0
    edited = out / f"{STEM}.ipynb"
    edited.write_text("my notes")
    capsys.readouterr()
    assert cli(["release", str(out), "--lessons", "01", "02"]) == 2
    err = capsys.readouterr().err
    assert f"stridegrad release: error: 1 file already there with other contents: {edited}" \
        in err and "--force" in err
    assert edited.read_text() == "my notes"
    assert not (out / "02_strides_and_views.ipynb").exists()  # all or nothing
    assert cli(["release", str(out), "--lessons", "01", "02", "--force"]) == 0
    assert edited.read_bytes() == next(p for p in source_notebooks() if p.stem == STEM).read_bytes()
    assert (out / "02_strides_and_views.ipynb").is_file()


def test_a_later_release_adds_to_the_readme_unless_it_was_edited(tmp_path, capsys):
    out = tmp_path / "handout"
    assert cli(["release", str(out), "--lessons", "01"]) == 0
    assert cli(["release", str(out), "--lessons", "02"]) == 0  # README: ours, brought up to date
    readme = (out / "README.md").read_text()
    assert "`01_flat_storage.ipynb`" in readme and "`02_strides_and_views.ipynb`" in readme
    (out / "README.md").write_text(readme + "\nOffice hours: Tuesday\n")
    capsys.readouterr()
    assert cli(["release", str(out), "--lessons", "03"]) == 2
    assert str(out / "README.md") in capsys.readouterr().err
    assert "Office hours" in (out / "README.md").read_text()


def test_release_unknown_lesson(tmp_path, capsys):
    assert cli(["release", str(tmp_path / "o"), "--lessons", "01", "99"]) == 2
    err = capsys.readouterr().err
    assert "stridegrad release: error: no lesson '99'; the lessons are 00_welcome, " \
           "01_flat_storage," in err
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------------------ collect

def _when(y, mo, d, h=10):
    return (y, mo, d, h, 0, 0)


def _messy_zip(path: Path) -> Path:
    """An LMS download as instructors get them: every naming scheme at once, in a
    wrapper folder, with clutter."""
    w = "Lab 1 Download/"
    members = [
        # Canvas: the name is smithjohn, not the user id 12345; -1: a resubmission
        (f"{w}smithjohn_12345_67890_{STEM}-1.ipynb", SOLUTION, _when(2026, 10, 1)),
        (f"{w}doejane_LATE_22222_67891_{STEM}.ipynb", LESSON, _when(2026, 10, 2)),
        # Blackboard: two attempts; the newest attempt wins although its file is older
        (f"{w}Lab 1_jsmith_attempt_2026-10-01-10-00-00_01.ipynb", LESSON, _when(2026, 10, 5)),
        (f"{w}Lab 1_jsmith_attempt_2026-10-03-10-00-00_{STEM}.ipynb", SOLUTION,
         _when(2026, 10, 3)),
        (f"{w}Lab 1_jsmith_attempt_2026-10-03-10-00-00.txt", b"receipt", _when(2026, 10, 3)),
        # Moodle: a folder per student, and a file named the old way
        (f"{w}John Smith_501_assignsubmission_file_/{STEM}.ipynb", SOLUTION, _when(2026, 10, 1)),
        (f"{w}Ann Lee_502_assignsubmission_onlinetext_/onlinetext.html", b"<p>hi</p>",
         _when(2026, 10, 1)),
        (f"{w}Ben Ng_503_assignsubmission_file_{STEM}.ipynb", LESSON, _when(2026, 10, 1)),
        # plain: <student>.ipynb, <student>/<anything>.ipynb (with another lesson's notebook)
        (f"{w}alice.ipynb", SOLUTION, _when(2026, 10, 1)),
        (f"{w}bob/work/whatever-Copy1.ipynb", LESSON, _when(2026, 10, 1)),
        (f"{w}bob/02_strides_and_views.ipynb", OTHER, _when(2026, 10, 4)),
        (f"{w}{STEM}-carol (1).ipynb", SOLUTION[:200], _when(2026, 10, 1)),  # broken JSON
        # whose? and clutter
        (f"{w}{STEM}.ipynb", LESSON, _when(2026, 10, 1)),
        (f"{w}__MACOSX/._alice.ipynb", b"\0\0", _when(2026, 10, 1)),
        (f"{w}.DS_Store", b"\0", _when(2026, 10, 1)),
        (f"{w}dan_33333_67892_{STEM}.zip", b"PK", _when(2026, 10, 1)),
    ]
    with zipfile.ZipFile(path, "w") as z:
        for name, data, when in members:
            z.writestr(zipfile.ZipInfo(name, date_time=when), data)
    return path


EXPECTED = {  # student -> (file it came from, what it holds)
    "smithjohn": (f"smithjohn_12345_67890_{STEM}-1.ipynb", SOLUTION),
    "doejane": (f"doejane_LATE_22222_67891_{STEM}.ipynb", LESSON),
    "jsmith": (f"Lab 1_jsmith_attempt_2026-10-03-10-00-00_{STEM}.ipynb", SOLUTION),
    "John Smith": (f"John Smith_501_assignsubmission_file_/{STEM}.ipynb", SOLUTION),
    "Ben Ng": (f"Ben Ng_503_assignsubmission_file_{STEM}.ipynb", LESSON),
    "alice": ("alice.ipynb", SOLUTION),
    "bob": ("bob/work/whatever-Copy1.ipynb", LESSON),
    "carol": (f"{STEM}-carol (1).ipynb", SOLUTION[:200]),
}


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    base = tmp_path_factory.mktemp("collect")
    download = _messy_zip(base / "download.zip")
    before = _digest(download)
    lines: list[str] = []
    from stridegrad.course.collect import collect

    report = collect(download, base / "submitted", "01", log=lines.append)
    return {"base": base, "download": download, "before": before, "report": report,
            "out": "\n".join(lines), "submitted": base / "submitted"}


def test_collect_tells_every_lms_naming_apart(collected):
    placed = _placed(collected["submitted"])
    assert sorted(placed) == sorted(EXPECTED)
    for student, (source, data) in EXPECTED.items():
        assert placed[student] == data, student
        assert collected["report"].placed[student].file.path == source
    # a wrong rule would file Canvas under its user id or Moodle under the folder name
    assert not any(re.search(r"\d{5}|assignsubmission|attempt", s) for s in placed)


def test_collect_takes_the_newest_attempt_and_reports_the_others(collected):
    out = collected["out"]
    assert re.search(r"^jsmith +<- Lab 1_jsmith_attempt_2026-10-03-10-00-00_01_flat_storage"
                     r"\.ipynb +\[Blackboard; newest of 2; not taken: Lab 1_jsmith_attempt_"
                     r"2026-10-01-10-00-00_01\.ipynb\]$", out, re.MULTILINE), out
    assert re.search(r"^doejane +<- .*\[Canvas; LATE\]$", out, re.MULTILINE)
    # the collected file keeps its modification time (2026-10-03 10:00, local)
    path = collected["submitted"] / "jsmith" / STEM / f"{STEM}.ipynb"
    assert time.localtime(path.stat().st_mtime)[:4] == (2026, 10, 3, 10)


def test_collect_reports_what_it_could_not_place_and_why(collected):
    out = collected["out"]
    for path, why in [
            ("Lab 1_jsmith_attempt_2026-10-03-10-00-00.txt", "not a notebook (.txt)"),
            ("Ann Lee_502_assignsubmission_onlinetext_/onlinetext.html", "not a notebook (.html)"),
            ("bob/02_strides_and_views.ipynb", "bob: another lesson's notebook (its name) that "
                                               f"defines none of {STEM}'s exercises"),
            (f"{STEM}.ipynb", "cannot tell whose notebook it is"),
            (f"dan_33333_67892_{STEM}.zip",
             "not a notebook (.zip): a zip inside the download; unpack it")]:
        assert f"  {path}: {why}" in out, (path, out)
    assert "not placed (5):" in out
    assert re.search(r"^carol +<- .*not a readable notebook: the grader will ask for a "
                     r"re-save\]$", out, re.MULTILINE)
    assert "note: looked inside Lab 1 Download/ (it wraps the whole download)" in out
    assert "2 LMS or OS files and folders ignored" in out  # __MACOSX/._alice, .DS_Store


def test_collect_never_modifies_its_input_and_records_the_sources(collected):
    assert _digest(collected["download"]) == collected["before"]
    with open(collected["submitted"] / f"collected-{STEM}.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    placed = {s for s, r in rows.items() if r["source"]}
    assert sorted(placed) == sorted(EXPECTED)
    # students who submitted and had nothing placed are recorded, with why (the grader
    # carries it into the gradebook); a loose file of nobody's is not
    assert {s: r["not_placed"] for s, r in rows.items() if s not in placed} == {
        "Ann Lee": "Ann Lee_502_assignsubmission_onlinetext_/onlinetext.html: not a notebook "
                   "(.html)",
        "dan": f"dan_33333_67892_{STEM}.zip: not a notebook (.zip): a zip inside the "
               "download; unpack it and collect the folder"}
    assert rows["dan"]["student_id"] == "33333" and rows["Ann Lee"]["student_id"] == "502"
    assert all(rows[s]["not_placed"] == "" for s in placed)
    assert rows["jsmith"]["taken"] == "newest of 2" and rows["alice"]["taken"] == ""
    assert rows["jsmith"]["source"] == (f"download.zip:Lab 1 Download/Lab 1_jsmith_attempt_"
                                        f"2026-10-03-10-00-00_{STEM}.ipynb")
    assert rows["jsmith"]["not_taken"].endswith("Lab 1_jsmith_attempt_2026-10-01-10-00-00_01.ipynb")
    assert rows["doejane"]["late"] == "late" and rows["alice"]["late"] == ""


def test_collect_then_grade(collected, capsys):
    """The collected layout is what `stridegrad grade` reads: each student gets the
    points of the notebook collect picked (jsmith: the newest attempt, the solution)."""
    out = collected["base"] / "grades"
    assert cli(["grade", str(collected["submitted"]), "--lesson", "01", "--out", str(out),
                "--no-sandbox", "--timeout", "60", "--jobs", "2"]) == 0
    with open(out / STEM / "totals.csv", newline="") as f:
        totals = {r["student"]: (int(r["points"]), r["status"]) for r in csv.DictReader(f)}
    assert totals == {
        "smithjohn": (FULL, "graded"), "jsmith": (FULL, "graded"),
        "John Smith": (FULL, "graded"), "alice": (FULL, "graded"),
        "doejane": (0, "graded"), "Ben Ng": (0, "graded"), "bob": (0, "graded"),
        "carol": (0, "invalid-notebook")}
    assert "collected" not in capsys.readouterr().out  # the record is not a student
    # what collect knew is in the gradebook: the LMS ids, late, the resubmission taken,
    # and who submitted but had nothing placed (not "no submission")
    with open(out / "gradebook.csv", newline="") as f:
        book = {r["student"]: r for r in csv.DictReader(f)}
    assert book["smithjohn"]["student_id"] == "12345" and book["alice"]["student_id"] == ""
    assert book["doejane"]["notes"] == f"{STEM}: late"
    assert book["jsmith"]["notes"] == f"{STEM}: resubmission taken: newest of 2"
    assert book["Ann Lee"]["notes"] == (
        f"{STEM}: submitted, not placed by collect: Ann Lee_502_assignsubmission_onlinetext_/"
        "onlinetext.html: not a notebook (.html)")
    assert book["dan"][STEM] == "0" and "no submission" not in book["dan"]["notes"]


def test_collect_again_is_a_no_op_and_never_overwrites_a_different_file(tmp_path, capsys):
    download = _messy_zip(tmp_path / "download.zip")
    submitted = tmp_path / "submitted"
    assert cli(["collect", str(download), str(submitted), "--lesson", "01"]) == 0
    assert cli(["collect", str(download), str(submitted), "--lesson", "01"]) == 0
    assert "(0 new, 0 replaced, 8 unchanged;" in capsys.readouterr().out
    by_hand = submitted / "alice" / STEM / f"{STEM}.ipynb"
    by_hand.write_text("{}")
    (submitted / "bob" / STEM / f"{STEM}.ipynb").unlink()
    before = _digest(submitted)
    assert cli(["collect", str(download), str(submitted), "--lesson", "01"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"stridegrad collect: error: 1 file already there with other "
                          f"contents: {by_hand}; ")
    assert "Nothing was written; --force replaces them" in err
    assert _digest(submitted) == before  # bob's notebook was not put back either
    assert cli(["collect", str(download), str(submitted), "--lesson", "01", "--force"]) == 0
    assert by_hand.read_bytes() == SOLUTION
    assert "(1 new, 1 replaced, 6 unchanged;" in capsys.readouterr().out


def test_collect_refuses_a_zip_slip_archive(tmp_path, capsys):
    for bad in ("../../evil.ipynb", "/etc/evil.ipynb", "sub\\..\\..\\evil.ipynb"):
        path = tmp_path / "slip.zip"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("alice.ipynb", SOLUTION)
            z.writestr(bad, SOLUTION)
        assert cli(["collect", str(path), str(tmp_path / "submitted"), "--lesson", "01"]) == 2
        err = capsys.readouterr().err
        assert "points outside it" in err and "refusing the whole archive" in err, bad
        assert not (tmp_path / "submitted").exists()
        assert not (tmp_path.parent / "evil.ipynb").exists()


def test_collect_size_limit_and_bad_archives(tmp_path, capsys):
    path = tmp_path / "d.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("alice.ipynb", SOLUTION)
        z.writestr("bob.ipynb", b" " * (3 * 2**20))  # compresses to almost nothing
    assert cli(["collect", str(path), str(tmp_path / "s"), "--lesson", "01",
                "--max-mb", "2"]) == 0
    assert "  bob.ipynb: 3 MB, over the 2 MB limit (--max-mb)" in capsys.readouterr().out
    assert sorted(_placed(tmp_path / "s")) == ["alice"]
    (tmp_path / "not.zip").write_text("hello")
    assert cli(["collect", str(tmp_path / "not.zip"), str(tmp_path / "s2"), "--lesson", "01"]) == 2
    assert "not.zip is not a zip archive" in capsys.readouterr().err


def test_the_read_limit_holds_when_a_header_lies(tmp_path):
    from stridegrad.course.collect import _zip_files

    path = tmp_path / "d.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bob.ipynb", b"x" * 10_000)
    files, _, _ = _zip_files(path)
    assert len(files[0].read(100)) == 100


@pytest.mark.parametrize("args, message", [
    (["--lesson", "42"], "lesson 42 has no checkpoint; lessons with checkpoints: 00, 01"),
    (["--lesson", "01"], "nothing in {download} could be filed as a notebook of "
                         "01_flat_storage (2 files, none placed: see above)"),
])
def test_collect_errors(tmp_path, capsys, args, message):
    download = tmp_path / "download"
    download.mkdir()
    (download / "alice.pdf").write_bytes(b"%PDF")
    (download / "bob.py").write_text("print()")
    assert cli(["collect", str(download), str(tmp_path / "s"), *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("stridegrad collect: error: ")
    assert message.format(download=download) in captured.err
    if args[1] == "01":
        assert "  alice.pdf: not a notebook (.pdf)" in captured.out
    assert not (tmp_path / "s").exists()


def test_collect_wrong_lesson_and_overlapping_folders(tmp_path, capsys):
    download = tmp_path / "download"
    (download / "alice").mkdir(parents=True)
    (download / "alice" / "work.ipynb").write_bytes(LESSON)
    assert cli(["collect", str(download), str(tmp_path / "s"), "--lesson", "05"]) == 2
    assert "is named after 05_matmul_and_a_loss or defines one of its exercises (matmul_2d" \
        in capsys.readouterr().err
    assert cli(["collect", str(download), str(download / "submitted"), "--lesson", "01"]) == 2
    assert "overlap" in capsys.readouterr().err
    assert cli(["collect", str(tmp_path / "nowhere"), str(tmp_path / "s"), "--lesson", "01"]) == 2
    assert "no file or folder" in capsys.readouterr().err


def test_collect_github_classroom_folders(tmp_path, capsys):
    download = tmp_path / "01-flat-storage-submissions"
    for login, data in (("jsmith", SOLUTION), ("ann-lee", LESSON)):
        repo = download / f"01-flat-storage-{login}"
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (repo / f"{STEM}.ipynb").write_bytes(data)
        (repo / "02_strides_and_views.ipynb").write_bytes(OTHER)  # the repo holds all lessons
        (repo / ".ipynb_checkpoints").mkdir()
        (repo / ".ipynb_checkpoints" / f"{STEM}-checkpoint.ipynb").write_bytes(LESSON)
    if hasattr(os, "symlink"):
        os.symlink("/etc/passwd", download / "01-flat-storage-jsmith" / "evil.ipynb")
    before = _digest(tmp_path)
    assert cli(["collect", str(tmp_path), str(tmp_path.parent / f"{tmp_path.name}-s"),
                "--lesson", "01"]) == 0
    out = capsys.readouterr().out
    assert _placed(tmp_path.parent / f"{tmp_path.name}-s") == {"jsmith": SOLUTION,
                                                                "ann-lee": LESSON}
    assert "[GitHub Classroom folder]" in out
    if hasattr(os, "symlink"):
        assert "  01-flat-storage-jsmith/evil.ipynb: a link: not followed" in out
    assert _digest(tmp_path) == before


def test_collect_map_renames_skips_and_names_unused_rows(tmp_path, capsys):
    download = _messy_zip(tmp_path / "download.zip")
    mapping = tmp_path / "map.csv"
    mapping.write_text("pattern,student\n"
                       "smithjohn,john.smith\n"           # a derived name -> the roster's
                       f"{STEM}.ipynb,erin\n"               # a file the rules cannot place
                       "bob,-\n"                            # a folder to skip
                       "nobody*,x\n")
    assert cli(["collect", str(download), str(tmp_path / "s"), "--lesson", "01",
                "--map", str(mapping)]) == 0
    out = capsys.readouterr().out
    placed = _placed(tmp_path / "s")
    assert placed["john.smith"] == SOLUTION and "smithjohn" not in placed
    assert placed["erin"] == LESSON and "bob" not in placed
    assert "  bob/work/whatever-Copy1.ipynb: skipped by --map" in out
    assert "note: --map row nobody*,x matched nothing" in out
    mapping.write_text("just-one-column\n")
    assert cli(["collect", str(download), str(tmp_path / "s"), "--lesson", "01",
                "--map", str(mapping)]) == 2
    assert "line 1: expected 'pattern,student'" in capsys.readouterr().err


def test_two_users_of_one_name_and_ties(tmp_path, capsys):
    path = tmp_path / "d.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"smithjohn_111_5_{STEM}.ipynb", SOLUTION)
        z.writestr(f"smithjohn_222_6_{STEM}.ipynb", LESSON)
        # one student, two notebooks alike in every way the rules look at
        z.writestr(zipfile.ZipInfo("erin/a.ipynb", date_time=_when(2026, 10, 1)), LESSON)
        z.writestr(zipfile.ZipInfo("erin/b.ipynb", date_time=_when(2026, 10, 1)), LESSON)
    assert cli(["collect", str(path), str(tmp_path / "s"), "--lesson", "01"]) == 0
    out = capsys.readouterr().out
    assert _placed(tmp_path / "s") == {"smithjohn_111": SOLUTION, "smithjohn_222": LESSON}
    assert "2 users are named smithjohn (ids 111, 222)" in out
    assert "  erin/a.ipynb, erin/b.ipynb: erin: 2 notebooks and no way to tell which is " \
           "the newest" in out


@pytest.mark.parametrize("name, student", [
    ("jsmith.ipynb", "jsmith"),
    (f"{STEM}-jsmith (1).ipynb", "jsmith"),
    ("jsmith_01_flat_storage-Copy1.ipynb", "jsmith"),
    ("flat-storage jane doe.ipynb", "jane doe"),
    (f"{STEM}.ipynb", ""),
    (f"{STEM} (2).ipynb", ""),
])
def test_student_from_a_plain_file_name(name, student):
    from stridegrad.course.collect import _student_from_file

    assert _student_from_file(Path(name).stem, STEM) == student


# ------------------------------------------------------------- identities (issue #26, item 6)

def _zip(path: Path, members: list[tuple[str, bytes, tuple]]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data, when in members:
            z.writestr(zipfile.ZipInfo(name, date_time=when), data)
    return path


def _collect(download: Path, submitted: Path, **kw) -> tuple[object, str]:
    from stridegrad.course.collect import collect

    lines: list[str] = []
    report = collect(download, submitted, "01", log=lines.append, **kw)
    return report, "\n".join(lines)


def _record(submitted: Path) -> dict[str, dict]:
    with open(submitted / f"collected-{STEM}.csv", newline="", encoding="utf-8") as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def test_the_lms_id_is_kept_in_the_record(collected):
    rows = _record(collected["submitted"])
    assert {s: r["student_id"] for s, r in rows.items()} == {
        "smithjohn": "12345", "doejane": "22222",       # Canvas: the user id
        "John Smith": "501", "Ben Ng": "503",           # Moodle: the participant id
        "jsmith": "jsmith",                             # Blackboard: the user name
        "alice": "", "bob": "", "carol": "",            # no id in the download
        "Ann Lee": "502", "dan": "33333"}               # submitted, nothing placed


def test_a_look_alike_name_is_refused_naming_both(tmp_path, capsys):
    cyrillic_a = "\u0410lice"     # 'А' is Cyrillic, 'lice' Latin: it reads "Alice"
    all_cyrillic = "\u0430\u04cf\u0456\u0441\u0435"  # аӏісе: every letter a look-alike
    download = _zip(tmp_path / "d.zip", [
        ("alice.ipynb", SOLUTION, _when(2026, 10, 1)),
        (f"{cyrillic_a}.ipynb", LESSON, _when(2026, 10, 2)),
        (f"{all_cyrillic}.ipynb", LESSON, _when(2026, 10, 2)),
        ("B\u03bfb.ipynb", LESSON, _when(2026, 10, 2)),            # Greek omicron, alone
        ("\uff42\uff45\uff4e.ipynb", SOLUTION, _when(2026, 10, 2)),  # fullwidth: ben
    ])
    _, out = _collect(download, tmp_path / "s")
    assert _placed(tmp_path / "s") == {"alice": SOLUTION, "ben": SOLUTION}
    assert (f"  {cyrillic_a}.ipynb: '{cyrillic_a}' looks like 'alice', another name in this "
            "download ('\u0410' is CYRILLIC CAPITAL LETTER A): not filed") in out, out
    assert f"'{all_cyrillic}' looks like 'alice'" in out
    assert ("  B\u03bfb.ipynb: 'B\u03bfb' mixes Latin and Greek letters ('\u03bf' is GREEK "
            "SMALL LETTER OMICRON): not filed; name the student in --map") in out, out
    # later, only the look-alike: the folder of the real alice, and the roster, name her
    later = _zip(tmp_path / "later.zip", [(f"{all_cyrillic}.ipynb", LESSON, _when(2026, 10, 3)),
                                          ("bob.ipynb", LESSON, _when(2026, 10, 3))])
    _, out = _collect(later, tmp_path / "s")
    assert f"'{all_cyrillic}' looks like 'alice' (a student folder in {tmp_path / 's'})" in out
    roster = tmp_path / "roster.txt"
    roster.write_text("Alice\nbob\n")
    assert cli(["collect", str(later), str(tmp_path / "s2"), "--lesson", "01",
                "--roster", str(roster)]) == 0
    assert _placed(tmp_path / "s2") == {"bob": LESSON}
    assert f"'{all_cyrillic}' looks like 'Alice' (on the roster)" in capsys.readouterr().out
    # the instructor, who knows who it is, names the student
    _collect(later, tmp_path / "s2", mapping=[(f"{all_cyrillic}.ipynb", "anna")])
    assert _placed(tmp_path / "s2") == {"bob": LESSON, "anna": LESSON}


def test_reserved_names_are_refused(tmp_path, capsys):
    download = _zip(tmp_path / "d.zip", [
        (f"{STEM}_901_assignsubmission_file_/{STEM}.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("02_strides_and_views_902_assignsubmission_file_/work.ipynb", SOLUTION,
         _when(2026, 10, 1)),
        ("con_903_77_work.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("alice\u202eexe.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("x.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("y.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("z.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("bob.ipynb", LESSON, _when(2026, 10, 1)),
    ])
    mapping = tmp_path / "map.csv"
    mapping.write_text("x.ipynb,..\ny.ipynb,a/b\nz.ipynb,.hidden\n")
    assert cli(["collect", str(download), str(tmp_path / "s"), "--lesson", "01",
                "--map", str(mapping)]) == 0
    out = capsys.readouterr().out
    assert _placed(tmp_path / "s") == {"bob": LESSON}
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["bob", f"collected-{STEM}.csv"]
    for path, why in [
            (f"{STEM}_901_assignsubmission_file_/{STEM}.ipynb",
             f"'{STEM}' is a lesson's name: SUBMITTED/{STEM}/ would be taken for the lesson's "
             "folder, not a student's: not filed"),
            ("02_strides_and_views_902_assignsubmission_file_/work.ipynb",
             "'02_strides_and_views' is a lesson's name"),
            ("con_903_77_work.ipynb", "'con' is a device name of Windows"),
            ("alice\u202eexe.ipynb".replace("\u202e", ""),
             "holds control or invisible characters (U+202E RIGHT-TO-LEFT OVERRIDE)"),
            ("x.ipynb", "'..' is not a folder name"),
            ("y.ipynb", "'a/b' holds a path separator"),
            ("z.ipynb", "'.hidden' starts with '.' (a hidden folder, which the grader skips)")]:
        assert f"  {path}: " in out and why in out, (path, why, out)
    assert "\u202e" not in out  # the name is reported, not shown backwards


def test_a_file_named_like_another_students_resubmission_is_not_theirs(tmp_path):
    """Canvas names the file after its uploader; a name the uploader chose that looks
    like another LMS's (Blackboard's ``alice_attempt_<time>``) or like a copy of
    alice's is still the uploader's. Without ids, ``alice (1).ipynb`` beside
    ``alice.ipynb`` is not taken as her resubmission."""
    canvas = _zip(tmp_path / "canvas.zip", [
        (f"alice_111_500_{STEM}.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("mallory_999_501_alice_attempt_2099-01-01-00-00-00_alice (1).ipynb", LESSON,
         _when(2026, 10, 2)),
        ("eve_888_502_alice (1).ipynb", LESSON, _when(2026, 10, 3)),
    ])
    _, out = _collect(canvas, tmp_path / "s")
    assert _placed(tmp_path / "s") == {"alice": SOLUTION, "mallory": LESSON, "eve": LESSON}, out
    assert {s: r["student_id"] for s, r in _record(tmp_path / "s").items()} == {
        "alice": "111", "mallory": "999", "eve": "888"}
    plain = _zip(tmp_path / "plain.zip", [
        ("alice.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("alice (1).ipynb", LESSON, _when(2026, 10, 2)),
        ("alice-1.ipynb", LESSON, _when(2026, 10, 3)),
        ("bob (1).ipynb", LESSON, _when(2026, 10, 2)),  # a copy alone is bob's
    ])
    _, out = _collect(plain, tmp_path / "p")
    assert _placed(tmp_path / "p") == {"alice": SOLUTION, "bob": LESSON}
    for copy in ("alice (1).ipynb", "alice-1.ipynb"):
        assert (f"  {copy}: alice: named like a copy of alice.ipynb, and no LMS id says who "
                "uploaded it: not taken as alice's resubmission") in out, out


def test_a_file_of_another_id_than_the_record_is_not_filed_as_theirs(tmp_path):
    submitted = tmp_path / "s"
    _collect(_zip(tmp_path / "first.zip", [
        (f"alice_111_500_{STEM}.ipynb", SOLUTION, _when(2026, 10, 1))]), submitted)
    report, out = _collect(_zip(tmp_path / "late.zip", [
        (f"alice_222_600_{STEM}.ipynb", LESSON, _when(2026, 10, 5)),
        (f"bob_333_601_{STEM}.ipynb", LESSON, _when(2026, 10, 5))]), submitted)
    assert _placed(submitted) == {"alice": SOLUTION, "bob": LESSON}
    assert (f"  alice_222_600_{STEM}.ipynb: alice: the LMS id of this file is 222, but alice "
            f"was collected before as id 111 (collected-{STEM}.csv)") in out, out
    assert {s: r["student_id"] for s, r in _record(submitted).items()} == {
        "alice": "111", "bob": "333"}


def test_collect_neither_prints_escapes_nor_writes_formulas(tmp_path):
    formula = '=HYPERLINK("evil.example","x")'
    download = _zip(tmp_path / "d.zip", [
        (f"{formula}_901_assignsubmission_file_/{STEM}.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("\x1b[2K\rbob 36 of 36\x1b[8m.ipynb", LESSON, _when(2026, 10, 1)),
        ("+alice.ipynb", LESSON, _when(2026, 10, 1)),
    ])
    _, out = _collect(download, tmp_path / "s")
    assert "\x1b" not in out and "\r" not in out, repr(out)
    # reported, its escapes stripped, and the name refused
    assert ("  bob 36 of 36.ipynb: '\\x1b[2K\\rbob 36 of 36\\x1b[8m' holds control or "
            "invisible characters (U+001B, U+000D)") in out, out
    assert sorted(_placed(tmp_path / "s")) == sorted([formula, "+alice"])
    with open(tmp_path / "s" / f"collected-{STEM}.csv", newline="", encoding="utf-8") as f:
        cells = [c for row in csv.reader(f) for c in row]
    assert f"'{formula}" in cells and "'+alice" in cells
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], cells
    # a later collect keeps the earlier rows, read back as they were (not quoted twice)
    _collect(_zip(tmp_path / "d2.zip", [("carol.ipynb", LESSON, _when(2026, 10, 2))]),
             tmp_path / "s")
    with open(tmp_path / "s" / f"collected-{STEM}.csv", newline="", encoding="utf-8") as f:
        students = [row[0] for row in csv.reader(f)][1:]
    assert students == sorted([f"'{formula}", "'+alice", "carol"]), students


def test_one_layout_in_readme_help_grader_and_collect(tmp_path):
    from stridegrad.commands import grade as grade_command
    from stridegrad.course import collect, grader

    layout = "SUBMITTED/<student>/<assignment>/<assignment>.ipynb"
    assert layout in grade_command.HELP
    assert layout.replace("SUBMITTED", "``SUBMITTED") in grader.__doc__
    assert layout in (ROOT / "README.md").read_text()
    assert collect._target(tmp_path, "alice", STEM) == tmp_path / "alice" / STEM / f"{STEM}.ipynb"


# ------------------------------------------------------------------------ environment

def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _dist(spec: str) -> str:
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", spec).group(0)).lower()


#: Where a module is not installed here (CuPy), its distribution.
_NOT_INSTALLED = {"cupy": "cupy-cuda12x", "cupyx": "cupy-cuda12x"}
#: Imported only to tell which environment a notebook runs in (Colab's own module).
_ENVIRONMENT_PROBES = {"google"}
#: Code that grading never runs: the CLI's other commands, the build, the pytest plugin.
_NOT_GRADING = ("commands/", "course/build.py", "course/pytest_plugin.py", "train.py")


def _imports(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(top-level modules imported unconditionally, those imported under an if or a
    try: only when a GPU is there, only on Colab)."""
    always, maybe = set(), set()

    def visit(node, guarded):
        for child in ast.iter_child_nodes(node):
            g = guarded or isinstance(node, (ast.If, ast.Try))
            names = ([a.name for a in child.names] if isinstance(child, ast.Import) else
                     [child.module] if isinstance(child, ast.ImportFrom) and not child.level
                     and child.module else [])
            for n in names:
                (maybe if g else always).add(n.split(".")[0])
            visit(child, g)

    visit(tree, False)
    return always, maybe - always


def _third_party(modules: set[str]) -> set[str]:
    return {m for m in modules if m not in sys.stdlib_module_names and m != "stridegrad"}


def _distribution(module: str) -> str:
    from importlib.metadata import packages_distributions

    found = packages_distributions().get(module)
    return _dist(found[0]) if found else _NOT_INSTALLED.get(module, _dist(module))


def test_the_grade_extra_covers_every_import_of_the_lessons_and_the_grader():
    project = _pyproject()["project"]
    extras = project["optional-dependencies"]
    grading = {_dist(s) for s in project["dependencies"] + extras["grade"]}
    any_extra = {_dist(s) for specs in extras.values() for s in specs}
    required, optional, seen = {}, {}, 0
    for nb in source_notebooks():
        from stridegrad.course._worker import read_code_cells

        for source in read_code_cells(nb):
            code = "\n".join(ln for ln in source.splitlines()
                             if not ln.lstrip().startswith(("%", "!")))
            always, maybe = _imports(ast.parse(code))
            for m in _third_party(always):
                required.setdefault(m, nb.stem)
            for m in _third_party(maybe):
                optional.setdefault(m, nb.stem)
        seen += 1
    # what the lessons run of stridegrad (lazily imported, so every module of it that
    # grading can reach counts, imports in functions included: a widget's ipywidgets)
    src = ROOT / "src" / "stridegrad"
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).as_posix()
        if rel.startswith(_NOT_GRADING):
            continue
        always, maybe = _imports(ast.parse(path.read_text(encoding="utf-8")))
        for m in _third_party(always | maybe) - set(_NOT_INSTALLED):
            required.setdefault(m, f"src/stridegrad/{rel}")
        for m in _third_party(maybe) & set(_NOT_INSTALLED):
            optional.setdefault(m, f"src/stridegrad/{rel}")
    assert seen >= 13 and {"matplotlib", "IPython", "ipywidgets", "array_api_strict"} <= \
        set(required)
    missing = {m: where for m, where in required.items() if _distribution(m) not in grading}
    assert not missing, (f"imported where grading runs but not in the grade extra or the "
                         f"dependencies (module: where): {missing}")
    stray = {m: where for m, where in optional.items()
             if m not in _ENVIRONMENT_PROBES and _distribution(m) not in any_extra | grading}
    assert not stray, f"optional imports that no extra installs: {stray}"
    assert "jupyterlab" not in {_dist(s) for s in extras["grade"]}  # grading needs no UI


def test_the_grading_dockerfile_refers_to_what_exists():
    dockerfile = (ROOT / "grading" / "Dockerfile").read_text()
    instructions = re.findall(r"^([A-Z]+) (.+)$", dockerfile, re.MULTILINE)
    assert instructions[0] == ("FROM", "python:3.11-slim")
    copied = []
    for op, arg in instructions:
        if op == "COPY":
            *sources, _ = arg.split()
            copied += sources
    assert copied and all((ROOT / s).exists() for s in copied), copied
    # the build context's ignore file lets exactly those through
    ignore = (ROOT / "grading" / "Dockerfile.dockerignore").read_text().split("\n")
    allowed = {ln[1:].rstrip("/") for ln in ignore if ln.startswith("!")}
    assert {s.rstrip("/") for s in copied} <= allowed, (copied, allowed)
    extras = _pyproject()["project"]["optional-dependencies"]
    for extra in re.findall(r'"/src\[([a-z,]+)\]"', dockerfile)[0].split(","):
        assert extra in extras
    assert "apt-get install -y --no-install-recommends bubblewrap" in dockerfile
    user = re.findall(r"^USER (\S+)$", dockerfile, re.MULTILINE)
    assert user and user[-1] not in ("root", "0")
    assert re.search(r'^ENTRYPOINT \["stridegrad"\]$', dockerfile, re.MULTILINE)
    assert "stridegrad" in _pyproject()["project"]["scripts"]
    # the README's line to grade a folder in it, with the image the Dockerfile builds
    readme = (ROOT / "README.md").read_text()
    assert "docker build -f grading/Dockerfile -t stridegrad-grade ." in readme
    assert re.search(r"stridegrad-grade grade /work/submitted --lesson 01 --out /work/out",
                     readme)


def test_the_reason_a_file_was_taken_is_the_rule_that_decided(tmp_path):
    """"newest of 2" only where the newest file was taken: an older file named after the
    lesson beats a newer one named otherwise, and says so."""
    download = _zip(tmp_path / "d.zip", [
        (f"alice/{STEM}.ipynb", SOLUTION, _when(2026, 10, 1)),
        ("alice/scratch.ipynb", SOLUTION, _when(2026, 10, 5)),
        ("bob/a.ipynb", LESSON, _when(2026, 10, 1)),
        ("bob/b.ipynb", SOLUTION, _when(2026, 10, 2)),
    ])
    report, out = _collect(download, tmp_path / "s")
    assert report.placed["alice"].file.path == f"alice/{STEM}.ipynb"
    assert re.search(r"^alice +<- .*\[folder; named after the lesson \(of 2\); not taken: "
                     r"alice/scratch\.ipynb\]$", out, re.MULTILINE), out
    assert re.search(r"^bob +<- bob/b\.ipynb +\[folder; newest of 2; not taken: bob/a\.ipynb\]$",
                     out, re.MULTILINE), out
    rows = _record(tmp_path / "s")
    assert rows["alice"]["taken"] == "named after the lesson (of 2)"
    assert rows["bob"]["taken"] == "newest of 2"
