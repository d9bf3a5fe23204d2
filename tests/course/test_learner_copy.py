"""The learner's copy of the lessons: made once, updated without losing an edit."""

from __future__ import annotations

import json

import pytest

from stridegrad.cli import main as cli
from stridegrad.course.learner_copy import MANIFEST, sync


def _course(folder, **notebooks):
    folder.mkdir(parents=True, exist_ok=True)
    for stem, text in notebooks.items():
        (folder / f"{stem}.ipynb").write_text(text)
    return sorted(folder.glob("*.ipynb"))


@pytest.fixture
def course_v1(tmp_path):
    return _course(tmp_path / "course", **{"00_welcome": "welcome v1", "01_flat": "flat v1"})


def test_first_sync_copies_everything(tmp_path, course_v1):
    mine = tmp_path / "mine"
    report = sync(course_v1, mine, log=None)
    assert [p.name for p in report.copied] == ["00_welcome.ipynb", "01_flat.ipynb"]
    assert (mine / "01_flat.ipynb").read_text() == "flat v1"
    assert set(json.loads((mine / MANIFEST).read_text())["base"]) == {"00_welcome.ipynb",
                                                                      "01_flat.ipynb"}


def test_an_edit_survives_when_the_course_did_not_change(tmp_path, course_v1):
    mine = tmp_path / "mine"
    sync(course_v1, mine, log=None)
    (mine / "01_flat.ipynb").write_text("my answers")
    report = sync(course_v1, mine, log=None)
    assert (mine / "01_flat.ipynb").read_text() == "my answers"
    assert report.kept == [mine / "01_flat.ipynb"] and not report.beside
    assert sorted(p.name for p in mine.glob("*.ipynb")) == ["00_welcome.ipynb", "01_flat.ipynb"]


def test_an_update_adds_new_lessons_refreshes_untouched_ones_and_puts_edited_ones_beside(
        tmp_path, course_v1):
    mine = tmp_path / "mine"
    sync(course_v1, mine, log=None)
    (mine / "01_flat.ipynb").write_text("my answers")
    v2 = _course(tmp_path / "course2", **{"00_welcome": "welcome v2", "01_flat": "flat v2",
                                          "02_views": "views v1"})
    lines = []
    report = sync(v2, mine, log=lines.append)
    assert (mine / "00_welcome.ipynb").read_text() == "welcome v2"     # not edited: updated
    assert (mine / "02_views.ipynb").read_text() == "views v1"         # new lesson: added
    assert (mine / "01_flat.ipynb").read_text() == "my answers"        # edited: untouched
    assert (mine / "01_flat.updated.ipynb").read_text() == "flat v2"   # ...the new one beside
    assert report.updated == [mine / "00_welcome.ipynb"]
    assert report.copied == [mine / "02_views.ipynb"]
    text = "\n".join(lines)
    assert "01_flat.ipynb: new version in" in text and "01_flat.updated.ipynb" in text
    # a second run says nothing new and writes nothing new
    again = sync(v2, mine, log=None)
    assert not (again.copied or again.updated or again.beside)
    assert (mine / "01_flat.ipynb").read_text() == "my answers"


def test_a_beside_file_the_learner_edited_is_not_overwritten_either(tmp_path, course_v1):
    mine = tmp_path / "mine"
    sync(course_v1, mine, log=None)
    (mine / "01_flat.ipynb").write_text("my answers")
    (mine / "01_flat.updated.ipynb").write_text("notes of mine")
    v2 = _course(tmp_path / "course2", **{"00_welcome": "welcome v1", "01_flat": "flat v2"})
    report = sync(v2, mine, log=None)
    assert (mine / "01_flat.updated.ipynb").read_text() == "notes of mine"
    assert report.beside == [(mine / "01_flat.ipynb", mine / "01_flat.updated-2.ipynb")]
    assert (mine / "01_flat.updated-2.ipynb").read_text() == "flat v2"


def test_a_copy_without_a_manifest_counts_every_difference_as_an_edit(tmp_path, course_v1):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "01_flat.ipynb").write_text("old work, made before manifests")
    sync(course_v1, mine, log=None)
    assert (mine / "01_flat.ipynb").read_text() == "old work, made before manifests"
    assert (mine / "01_flat.updated.ipynb").read_text() == "flat v1"


def test_a_deleted_lesson_comes_back(tmp_path, course_v1):
    mine = tmp_path / "mine"
    sync(course_v1, mine, log=None)
    (mine / "00_welcome.ipynb").unlink()
    assert sync(course_v1, mine, log=None).copied == [mine / "00_welcome.ipynb"]


def test_force_moves_the_learners_version_aside_first(tmp_path, course_v1):
    mine = tmp_path / "mine"
    sync(course_v1, mine, log=None)
    (mine / "01_flat.ipynb").write_text("answers 1")
    sync(course_v1, mine, force=True, log=None)
    (mine / "01_flat.ipynb").write_text("answers 2")
    sync(course_v1, mine, force=True, log=None)
    assert (mine / "01_flat.ipynb").read_text() == "flat v1"
    assert (mine / "01_flat.backup.ipynb").read_text() == "answers 1"
    assert (mine / "01_flat.backup-2.ipynb").read_text() == "answers 2"


def test_a_corrupt_manifest_loses_nothing(tmp_path, course_v1):
    mine = tmp_path / "mine"
    sync(course_v1, mine, log=None)
    (mine / "01_flat.ipynb").write_text("my answers")
    (mine / MANIFEST).write_text("{not json")
    sync(course_v1, mine, log=None)
    assert (mine / "01_flat.ipynb").read_text() == "my answers"


def test_bad_targets_are_named(tmp_path, course_v1):
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(NotADirectoryError, match="afile"):
        sync(course_v1, afile, log=None)
    with pytest.raises(FileNotFoundError, match="no lesson notebooks"):
        sync([], tmp_path / "x", log=None)


@pytest.mark.parametrize("argv,command,message", [
    (["lessons", "/proc/nope"], "lessons", "/proc/nope"),
    (["lab", "--dir", "/no/such/folder", "--print-command"], "lab", "no folder /no/such/folder"),
    (["check", "99"], "check", "no notebook 99_*.ipynb"),
    (["check", "missing.ipynb"], "check", "no notebook missing.ipynb"),
    (["check", "not a lesson"], "check", "neither a notebook file nor a lesson number"),
])
def test_cli_errors_have_one_style_and_no_traceback(argv, command, message, capsys, tmp_path,
                                                    monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("stridegrad.commands.lab.learner_folder", lambda: tmp_path / "my-lessons")
    assert cli(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"stridegrad {command}: error: "), err
    assert message in err and "Traceback" not in err


def test_check_finds_the_learners_notebook_by_episode(tmp_path, monkeypatch):
    from stridegrad.commands.check import find_notebook

    mine = tmp_path / "my-lessons"
    monkeypatch.setattr("stridegrad.commands.lab.learner_folder", lambda: mine)
    monkeypatch.chdir(tmp_path)
    _course(mine, **{"01_flat_storage": "{}", "01_flat_storage.updated": "{}"})
    assert find_notebook("01") == mine / "01_flat_storage.ipynb"
    assert find_notebook("1") == mine / "01_flat_storage.ipynb"
    assert find_notebook("01_flat_storage") == mine / "01_flat_storage.ipynb"
    (tmp_path / "01_flat_storage.ipynb").write_text("{}")  # the working directory comes first
    assert find_notebook("01").resolve() == (tmp_path / "01_flat_storage.ipynb").resolve()


def test_a_learner_who_followed_the_readme_can_git_pull_and_keeps_their_work(tmp_path):
    """Upstream changes a lesson the learner is working on; `git pull` is clean and the
    next `stridegrad lab` keeps their answers and puts the new version beside them."""
    import shutil
    import subprocess

    from .conftest import ROOT

    if shutil.which("git") is None:
        pytest.skip("git is not installed")

    def git(cwd, *args):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                              cwd=cwd, check=True, capture_output=True, text=True).stdout

    upstream = tmp_path / "upstream"
    _course(upstream / "lessons", **{"00_welcome": "welcome v1", "01_flat": "flat v1"})
    shutil.copyfile(ROOT / ".gitignore", upstream / ".gitignore")
    git(upstream, "init", "-q", "-b", "main")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "v1")
    learner = tmp_path / "learner"
    git(tmp_path, "clone", "-q", str(upstream), str(learner))

    def lab():  # what `stridegrad lab` does before it starts JupyterLab
        return sync(sorted((learner / "lessons").glob("*.ipynb")), learner / "my-lessons", log=None)

    lab()
    (learner / "my-lessons" / "01_flat.ipynb").write_text("my answers")
    assert git(learner, "status", "--porcelain") == ""  # the copy is invisible to git
    _course(upstream / "lessons", **{"01_flat": "flat v2", "02_views": "views v1"})
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "v2")
    git(learner, "pull", "-q", "--ff-only")
    report = lab()
    mine = learner / "my-lessons"
    assert (mine / "01_flat.ipynb").read_text() == "my answers"
    assert (mine / "01_flat.updated.ipynb").read_text() == "flat v2"
    assert (mine / "02_views.ipynb").read_text() == "views v1"
    assert report.beside == [(mine / "01_flat.ipynb", mine / "01_flat.updated.ipynb")]
    assert git(learner, "status", "--porcelain") == ""
