"""stridegrad lessons / lab / doctor, and the Binder configuration."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.commands import doctor
from stridegrad.course import links
from stridegrad.course.paths import PACKAGED_NOTEBOOKS, find_lessons

from .conftest import ROOT


def test_every_lesson_is_shipped_as_package_data():
    shipped = sorted(p.name for p in PACKAGED_NOTEBOOKS.glob("*.ipynb"))
    assert shipped == sorted(f"{l.stem}.ipynb" for l in find_lessons(ROOT))
    assert "00_welcome.ipynb" in shipped


def test_lessons_copies_and_never_overwrites(tmp_path, capsys):
    target = tmp_path / "mine"
    assert cli(["lessons", str(target)]) == 0
    copied = sorted(p.name for p in target.glob("*.ipynb"))
    assert copied == sorted(p.name for p in PACKAGED_NOTEBOOKS.glob("*.ipynb"))
    work = target / "01_flat_storage.ipynb"
    work.write_text("my work")
    assert cli(["lessons", str(target)]) == 0
    assert work.read_text() == "my work"
    capsys.readouterr()
    assert cli(["lessons", str(target), "--force"]) == 0
    assert work.read_text() != "my work"
    # --force asks, and still keeps the learner's version
    assert (target / "01_flat_storage.backup.ipynb").read_text() == "my work"
    assert "01_flat_storage.backup.ipynb" in capsys.readouterr().out


@pytest.fixture
def my_copy(tmp_path, monkeypatch):
    """The learner's copy that `stridegrad lab` opens, moved out of the clone."""
    folder = tmp_path / "my-lessons"
    monkeypatch.setattr("stridegrad.commands.lab.learner_folder", lambda: folder)
    return folder


def test_lab_in_a_clone_opens_the_learners_copy_at_the_welcome(my_copy, capsys):
    assert cli(["lab", "--print-command", "--no-browser", "--port", "8899"]) == 0
    captured = capsys.readouterr()
    out = captured.out.strip().splitlines()[-1]
    assert out.startswith(f"{sys.executable} -m jupyterlab ")
    assert f"--ServerApp.root_dir={my_copy.resolve()}" in out
    assert not my_copy.exists()  # printing the command writes nothing
    assert f"{my_copy} does not exist yet: `stridegrad lab` makes it" in captured.err
    assert "--LabApp.default_url=/lab/tree/00_welcome.ipynb" in out
    assert "--ServerApp.port=8899 --ServerApp.port_retries=0 --no-browser" in out
    assert ("--allow-root" in out) == (os.geteuid() == 0)  # JupyterLab refuses root without it


def test_the_clones_copy_is_my_lessons_and_git_ignores_it():
    from stridegrad.commands.lab import learner_folder

    assert learner_folder() == ROOT / "my-lessons"
    assert "/my-lessons/" in (ROOT / ".gitignore").read_text().splitlines()


def test_lab_outside_a_clone_makes_a_copy_first(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("stridegrad.course.paths.repo_root", lambda start=None: None)
    assert cli(["lab", "--print-command"]) == 0
    out = capsys.readouterr().out
    assert f"--ServerApp.root_dir={(tmp_path / 'stridegrad-lessons').resolve()}" in out
    assert not (tmp_path / "stridegrad-lessons").exists()
    # what lab itself does first: the copy, made before the server starts
    from stridegrad.commands.lab import lessons_dir
    logs = []
    assert lessons_dir(None, log=logs.append) == Path("stridegrad-lessons")
    assert "making your copy of the lessons in stridegrad-lessons" in logs
    assert (tmp_path / "stridegrad-lessons" / "00_welcome.ipynb").is_file()


@pytest.mark.slow
def test_lab_prints_the_address_to_open_last(my_copy, tmp_path):
    """The real server: the URL is the last thing printed, and it opens the lesson; the
    lab is the learner's (no nbgrader or jupytext, no news pop-up); a log per run."""
    pytest.importorskip("jupyterlab")
    import importlib.util
    import json
    import shutil
    import socket
    import subprocess
    import urllib.error
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"), "TMPDIR": str(tmp_path)}
    shutil.copytree(ROOT / "lessons", my_copy)
    proc = subprocess.Popen([sys.executable, "-m", "stridegrad", "lab", "--dir", str(my_copy),
                             "--no-browser", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line.rstrip())
            if line.strip().startswith("http://"):
                break
        text = "\n".join(lines)
        url = lines[-1].strip()
        assert re.fullmatch(rf"http://localhost:{port}/lab/tree/00_welcome\.ipynb\?token=\w+",
                            url), text
        assert "Ctrl-C here stops it" in text
        with urllib.request.urlopen(url, timeout=30) as r:
            assert r.status == 200
            page = r.read().decode()
        token = url.rpartition("token=")[2]
        config = json.loads(re.search(r'id="jupyter-config-data"[^>]*>(.*?)</script>', page,
                                      re.S).group(1))
        installed = {e["name"] for e in config["federated_extensions"]}
        for name in ("@jupyter/nbgrader", "jupyterlab-jupytext"):
            if name in installed:  # the dev install has both; a learner's has neither
                assert name in config["disabledExtensions"], name
        news = f"http://localhost:{port}/lab/api/settings/@jupyterlab/apputils-extension:notification"
        with urllib.request.urlopen(f"{news}?token={token}", timeout=30) as r:
            defaults = json.loads(r.read())["schema"]["properties"]  # with the overrides
        assert defaults["fetchNews"]["default"] == "false"  # JupyterLab's own: "none" (ask)
        assert defaults["checkForUpdates"]["default"] is False
        if importlib.util.find_spec("nbgrader") is not None:
            with pytest.raises(urllib.error.HTTPError, match="404"):
                urllib.request.urlopen(f"http://localhost:{port}/formgrader?token={token}",
                                       timeout=30)
        # this run's own log, named in the first line
        log = Path(re.search(r"its log: (\S+)\)", lines[0]).group(1))
        assert log.is_file() and log.parent.name.startswith(f"stridegrad-lab-{port}-")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    # stopping `stridegrad lab` stops the server it started: nothing answers on the port
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://localhost:{port}/api/status", timeout=5)


def test_doctor_reports_everything(capsys):
    assert cli(["doctor"]) == 0
    out = capsys.readouterr().out
    for key in ("Python", "NumPy", "CuPy", "GPU", "JupyterLab", "ipywidgets",
                "widgets will render", "lesson notebooks"):
        assert re.search(rf"^{key}\s", out, re.MULTILINE), key


@pytest.mark.parametrize("args, verdict", [
    (("8.1.9", "3.0.17", "4.6.6", True), "yes"),
    ((None, None, "4.6.6", False), "no: ipywidgets is not installed"),
    (("8.1.9", None, "4.6.6", False), "no: the JupyterLab extension is missing"),
    (("8.1.9", "1.1.0", "4.6.6", True), "no: ipywidgets 8.1.9 needs jupyterlab_widgets 3.x"),
    (("8.1.9", None, None, False), "no JupyterLab here"),
])
def test_widgets_verdict(args, verdict):
    assert doctor.widgets_verdict(*args).startswith(verdict)


def test_gpu_report_without_cupy(monkeypatch):
    monkeypatch.setattr(doctor, "_version", lambda name: None)
    monkeypatch.setattr(doctor.md, "distributions", list)
    monkeypatch.setattr(doctor.shutil, "which", lambda name: None)
    cupy, gpu = doctor.gpu_report()
    assert cupy.startswith("not installed") and gpu.startswith("none found")


def test_links():
    assert links.binder_url("01_flat_storage") == (
        "https://mybinder.org/v2/gh/stridegrad/stridegrad/main"
        "?urlpath=lab/tree/lessons/01_flat_storage.ipynb")
    assert links.colab_url("00_welcome") == (
        "https://colab.research.google.com/github/stridegrad/stridegrad/blob/main/"
        "lessons/00_welcome.ipynb")


def test_binder_config():
    binder = ROOT / "binder"
    assert re.fullmatch(r"python-3\.1[0-9]\n", (binder / "runtime.txt").read_text())
    assert not (binder / "environment.yml").exists()  # it would silently win over requirements
    assert not (ROOT / ".binder").exists()
    pins = {}
    for line in (binder / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"unpinned {line!r}"
            pins[name.lower().replace("_", "-")] = version
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for dep in project["dependencies"]:
        name = re.split(r"[<>=!~ \[]", dep)[0].lower().replace("_", "-")
        assert name in pins, f"binder/requirements.txt lacks the runtime dependency {name}"
    assert {"matplotlib", "ipywidgets"} <= set(pins)
    post = (binder / "postBuild").read_text()
    assert post.startswith("#!/bin/bash\n") and "set -e" in post
    assert "pip install --no-cache-dir --no-deps -e ." in post
    assert (binder / "postBuild").stat().st_mode & 0o111


def test_check_finds_the_lesson_of_a_renamed_notebook_in_its_cells(tmp_path, capsys):
    """`stridegrad check final.ipynb`: the file name has no lesson number, the notebook's
    cells (ids ep01-..., a check("01") cell) say which lesson it is."""
    from stridegrad.commands.check import lesson_of_notebook

    final = tmp_path / "final.ipynb"
    final.write_bytes((ROOT / "lessons" / "01_flat_storage.ipynb").read_bytes())
    assert lesson_of_notebook(final) == "01"
    other = tmp_path / "notes.ipynb"
    other.write_text('{"cells": [{"cell_type": "code", "id": "abc", "source": "1 + 1"}], '
                     '"nbformat": 4, "nbformat_minor": 5, "metadata": {}}')
    assert lesson_of_notebook(other) is None
    assert cli(["check", str(other)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stridegrad check: error: notes.ipynb: which lesson is it?")
    assert "pass --lesson NN" in err and len(err.strip().splitlines()) == 1
    broken = tmp_path / "broken.ipynb"
    broken.write_text("[" * 100_000)
    assert lesson_of_notebook(broken) is None


def test_check_says_what_the_n_of_in_n_is(tmp_path, capsys):
    """The cells `stridegrad check` names are `In [n]`, n the execution count JupyterLab
    shows after Restart Kernel and Run All (the empty cell gets none): said once."""
    from stridegrad.commands.check import IN_N

    cells = [{"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# notes"},
             {"cell_type": "code", "id": "a", "metadata": {}, "source": "x = 1",
              "outputs": [], "execution_count": None},
             {"cell_type": "code", "id": "b", "metadata": {}, "source": "",
              "outputs": [], "execution_count": None},
             {"cell_type": "code", "id": "c", "metadata": {}, "source": "1 / 0",
              "outputs": [], "execution_count": None}]
    notebook = tmp_path / "mine.ipynb"
    notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                    "nbformat_minor": 5}))
    assert cli(["check", str(notebook), "--lesson", "00", "--timeout", "60"]) == 1
    out = capsys.readouterr().out
    assert out.count(IN_N) == 1 and "execution count" in IN_N
    assert out.index(IN_N) < out.index("In [2]: 1 / 0\n    raised ZeroDivisionError"), out
