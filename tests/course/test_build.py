"""The lesson build: one source, two notebooks, nothing drifts."""

from __future__ import annotations

import inspect
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from stridegrad.array import layout
from stridegrad.cli import main as cli
from stridegrad.course import links
from stridegrad.course.build import (
    BEGIN,
    END,
    EditedError,
    BuildError,
    build,
    build_lesson,
    solutions_path,
    check_drift,
    inline_exercise,
    library_exercise,
    parse_directives,
    setup_preamble,
)
from stridegrad.course.checks import load_checkpoint
from stridegrad.course.paths import Lesson, find_lessons

from .conftest import ROOT

LESSONS = find_lessons(ROOT)


# ------------------------------------------------------------------ directives and exercises

def test_parse_directives():
    found, body = parse_directives("#| exercise: numel\n#| hint: go\nx = 1\n#| not a directive")
    assert found == {"exercise": "numel", "hint": "go"}
    assert body == "x = 1\n#| not a directive"
    with pytest.raises(ValueError, match="unknown directive '#| exercize'"):
        parse_directives("#| exercize: numel")
    with pytest.raises(ValueError, match="given twice"):
        parse_directives("#| hint: a\n#| hint: b")


def test_library_exercise_pulls_the_source_and_stubs_it():
    ex = library_exercise("stridegrad.array.layout.offset_to_index", "peel off the last axis")
    source = inspect.getsource(layout.offset_to_index).rstrip("\n")
    # the solution is the library's source with the body between nbgrader's markers
    assert re.sub(r"\n *### (BEGIN|END) SOLUTION", "", ex.solution) == source
    assert "    ### BEGIN SOLUTION\n    n = numel(shape)" in ex.solution
    # the stub keeps signature and docstring, drops the loop that gives the answer
    assert ex.stub.startswith("def offset_to_index(offset: int, shape: Shape) -> Index:\n")
    assert "Raises:" in ex.stub and "Stands for the loop" not in ex.stub
    assert "offset //= shape[k]" not in ex.stub and "divmod" not in ex.stub
    assert ex.stub.endswith("    # YOUR CODE HERE\n    raise NotImplementedError('peel off the last axis')")
    ns = {"Shape": tuple, "Index": tuple}
    exec(ex.stub, ns)
    with pytest.raises(NotImplementedError, match="peel off"):
        ns["offset_to_index"](0, (1,))
    assert ex.target == "stridegrad.array.layout:offset_to_index"
    assert library_exercise("stridegrad.array.layout:numel", "").name == "numel"


def test_library_class_exercise_stubs_each_method_and_keeps_what_is_given():
    from stridegrad.nn import modules

    ex = library_exercise("stridegrad.nn.modules.Linear", "two Parameters")
    assert ex.name == "Linear" and ex.target == "stridegrad.nn.modules:Linear"
    source = inspect.getsource(modules.Linear).rstrip("\n")
    # the solution is the library's class with each method's body between the markers
    assert re.sub(r"\n *### (BEGIN|END) SOLUTION", "", ex.solution) == source
    assert ex.solution.count(BEGIN) == ex.solution.count(END) == 2  # __init__, forward
    # the stub: class line, docstring, signatures; super().__init__() and the method
    # given whole (extra_repr) stay; the bodies to write become the stub
    assert ex.stub.startswith('class Linear(Module):\n    """``y = x @ weight.T + bias``')
    assert "bias=False" in ex.stub and "F.linear" not in ex.stub and "sg.rand(" not in ex.stub
    stub = ("    def __init__(self, in_features, out_features, bias=True, device=None, "
            "dtype=None):\n        super().__init__()\n        # YOUR CODE HERE\n"
            "        raise NotImplementedError('two Parameters')\n\n"
            "    def forward(self, x):\n        # YOUR CODE HERE\n"
            "        raise NotImplementedError('two Parameters')\n")
    assert stub in ex.stub
    assert inspect.getsource(modules.Linear.extra_repr).rstrip("\n") in ex.stub
    # ClearSolutions of the solution is the stub
    cleared = re.sub(r"( *)### BEGIN SOLUTION\n.*?### END SOLUTION",
                     lambda m: f"{m.group(1)}# YOUR CODE HERE\n{m.group(1)}raise "
                               "NotImplementedError('two Parameters')", ex.solution, flags=re.S)
    assert cleared == ex.stub
    import stridegrad as sg

    ns = {"Module": modules.Module}
    exec(ex.stub, ns)
    with pytest.raises(NotImplementedError, match="two Parameters"):
        ns["Linear"](3, 2)
    ns = {"Module": modules.Module, "Parameter": modules.Parameter, "math": __import__("math"),
          "sg": sg, "F": sg.nn.functional}
    exec(ex.solution, ns)
    assert repr(ns["Linear"](3, 2, bias=False)) == \
        "Linear(in_features=3, out_features=2, bias=False)"


def test_the_lesson_module_imports_a_library_class_exercise():
    built = build_lesson(find_lesson_09(), execute=False)
    text = built.solutions_module()
    assert "from stridegrad.nn.modules import Linear\n" in text
    assert "class Linear" not in text


def find_lesson_09():
    return next(lesson for lesson in LESSONS if lesson.episode == "09")


@pytest.mark.parametrize("target, message", [
    ("numel", "must be 'package.module.function'"),
    ("stridegrad.nope.numel", "cannot import stridegrad.nope"),
    ("stridegrad.array.layout.Shape", "has no function or class 'Shape'"),
    ("stridegrad.nn.Linear", "has no function or class 'Linear'"),  # not defined there
])
def test_library_exercise_errors(target, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        library_exercise(target, "")


def test_inline_exercise():
    body = "def f(x):\n    y = 1\n    ### BEGIN SOLUTION\n    return x + y\n    ### END SOLUTION"
    ex = inline_exercise("f", body, "add")
    assert ex.solution == body
    assert ex.stub == "def f(x):\n    y = 1\n    # YOUR CODE HERE\n    raise NotImplementedError('add')"
    for bad, message in [("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "nested"),
                         ("### BEGIN SOLUTION\nx", "without ### END"),
                         ("### END SOLUTION", "without ### BEGIN"),
                         ("x = 1", "no ### BEGIN")]:
        with pytest.raises(ValueError, match=message):
            inline_exercise("f", bad, "")


# ------------------------------------------------------------------ building a small course

TINY = '''\
# %% [markdown]
# # Tiny · see {{binder_url}}

# %%
#| setup
from stridegrad.course import check

# %%
#| exercise: flatten
#| hint: recurse
def flatten(data):
    """Flat."""
    ### BEGIN SOLUTION
    if isinstance(data, (list, tuple)):
        return [x for item in data for x in flatten(item)]
    return [data]
    ### END SOLUTION

# %%
#| calls-exercise
flatten([[1], [2]])

# %%
#| requires: stridegrad.no_such_module
print("never")

# %% [markdown] requires="stridegrad.no_such_module"
# never either

# %%
#| check: flatten

# %%
#| exercise: shape_of
def shape_of(data):
    """Shape."""
    ### BEGIN SOLUTION
    if not isinstance(data, list):
        return ()
    shapes = [shape_of(item) for item in data]
    if any(s != shapes[0] for s in shapes):
        raise ValueError(f"ragged: {shapes[0]} and {[s for s in shapes if s != shapes[0]][0]}")
    return (len(data),) + (shapes[0] if shapes else ())
    ### END SOLUTION

# %%
#| check: shape_of

# %%
#| exercise: dtype_of
def dtype_of(flat):
    """Dtype."""
    ### BEGIN SOLUTION
    rank = {bool: 0, int: 1, float: 2}
    for v in flat:
        if type(v) not in rank:
            raise TypeError(f"{v!r} of type {type(v).__name__}")
    return ("bool", "int64", "float64")[max((rank[type(v)] for v in flat), default=2)]
    ### END SOLUTION

# %%
#| check: dtype_of

# %%
#| exercise: to_bytes
def to_bytes(flat, dtype):
    """Bytes."""
    ### BEGIN SOLUTION
    import struct
    formats = {"bool": "?", "int64": "q", "float64": "d"}
    if dtype not in formats:
        raise ValueError(f"{dtype!r}: not bool, int64 or float64")
    return struct.pack(f"<{len(flat)}{formats[dtype]}", *flat)
    ### END SOLUTION

# %%
#| check: to_bytes

# %%
#| check: all
'''


def tiny_root(tmp_path: Path, source: str = TINY, stem: str = "00_tiny") -> Lesson:
    (tmp_path / "course").mkdir()
    (tmp_path / "src" / "stridegrad").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "course" / f"{stem}.py").write_text(source)
    return Lesson(stem, tmp_path)


def test_build_lesson_structure(tmp_path):
    lesson = tiny_root(tmp_path)
    built = build_lesson(lesson, execute=False)
    student, solution = built.student, built.solution
    assert [c.id for c in student.cells] == [f"ep00-{k:03d}" for k in range(12)]
    assert [c.id for c in solution.cells] == [c.id for c in student.cells]
    setup, ex, call, check1, *_, check_all = student.cells[1:]
    # the link placeholder and the dropped "requires" cells
    assert links.binder_url() in student.cells[0].source
    assert all("never" not in c.source for c in student.cells)
    # setup: the install block, then the author's imports
    assert setup.source.startswith(setup_preamble()) and setup.source.endswith("import check")
    assert links.REPO_URL in setup.source
    # exercise: nbgrader solution cell, stub in the lesson, markers kept in the solution
    assert ex.metadata["nbgrader"] == {"grade": False, "grade_id": "flatten", "locked": False,
                                       "schema_version": 3, "solution": True}
    # the nudge, and where lesson 00's hint levels for flatten are
    assert ("raise NotImplementedError('recurse (hints in levels: hint(\"00\", \"flatten\"))')"
            in ex.source) and "isinstance" not in ex.source
    assert "### BEGIN SOLUTION" in solution.cells[2].source
    # a cell that calls the exercise may raise in the lesson only
    assert call.metadata["tags"] == ["raises-exception"]
    assert "tags" not in solution.cells[3].metadata
    # checks: per-exercise grade cell worth the exercise's points, locked
    points = load_checkpoint("00").points_for("flatten")
    assert check1.source == 'check("00", "flatten")'
    assert check1.metadata["nbgrader"]["grade"] and check1.metadata["nbgrader"]["points"] == points
    assert check1.metadata["editable"] is False
    assert check_all.source == 'check("00")' and not check_all.metadata["nbgrader"]["grade"]
    assert student.metadata["kernelspec"]["name"] == "python3"
    assert "version" not in student.metadata["language_info"]
    assert all("lines_to_next_cell" not in c.metadata for c in student.cells)


@pytest.mark.parametrize("change, message", [
    (("#| setup\n", ""), "first code cell must be the '#| setup' cell"),
    (("#| exercise: flatten\n#| hint: recurse\n", ""),
     "solution markers in a cell without '#| exercise"),
    (("#| exercise: flatten\n", ""), "'#| hint' belongs to an '#| exercise' cell"),
    (("#| hint: recurse\n", "#| hint: recurse\n#| hint: again\n"), "given twice"),
    (("#| check: flatten", "#| check: numel"), "has no exercise 'numel'"),
    (("#| exercise: flatten", "#| exercise: reflatten"), "reflatten has no tests in checkpoint"),
    (("#| calls-exercise", "#| calls-exercise\n#| raises"), "cell 4: unknown directive '#| raises'"),
    (("#| check: all", "#| check: all\ncheck('00')"), "a '#| check' cell has no body"),
])
def test_build_errors_name_the_cell(tmp_path, change, message):
    old, new = change
    assert old in TINY
    lesson = tiny_root(tmp_path, TINY.replace(old, new, 1))
    with pytest.raises(BuildError, match=re.escape(message)) as info:
        build_lesson(lesson, execute=False)
    assert "00_tiny.py" in str(info.value)


def test_library_exercise_needs_its_names_imported(tmp_path):
    source = textwrap.dedent('''\
        # %%
        #| setup
        from stridegrad.course import check

        # %%
        #| exercise: stridegrad.array.layout.numel
        ''')
    for name in ("contiguous_strides", "index_to_offset", "offset_to_index"):
        source += f"\n# %%\n#| exercise: stridegrad.array.layout.{name}\n"
    lesson = tiny_root(tmp_path, source, stem="01_tiny")
    with pytest.raises(BuildError, match="exercise numel uses Shape, which the lesson never defines"):
        build_lesson(lesson, execute=False)
    # and a lesson that forgets an exercise of its checkpoint
    lesson.source.write_text(source.split("\n# %%\n#| exercise: stridegrad.array.layout.contig")[0])
    with pytest.raises(BuildError, match="tests .*contiguous_strides.* no '#| exercise' cell"):
        build_lesson(lesson, execute=False)


def test_build_writes_executes_is_byte_stable_and_detects_drift(tmp_path):
    lesson = tiny_root(tmp_path)
    logs = []
    build(tmp_path, verify=True, log=logs.append)
    first = {p: p.read_bytes() for p in (lesson.lesson_path, lesson.solution_path,
                                         lesson.packaged_path)}
    assert lesson.packaged_path.read_bytes() == lesson.lesson_path.read_bytes()
    student = nbformat.read(lesson.lesson_path, as_version=4)
    solution = nbformat.read(lesson.solution_path, as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in student.cells if c.cell_type == "code")
    outs = {c.id: c.outputs for c in solution.cells if c.cell_type == "code"}
    assert outs["ep00-003"][0]["data"]["text/plain"] == "[1, 2]"
    points = load_checkpoint("00").points_for("flatten")  # its contract row included
    assert f"{points}/{points} points" in outs["ep00-004"][0]["data"]["text/plain"]
    # rebuilding writes nothing and changes no byte
    logs.clear()
    assert build(tmp_path, log=logs.append) == []
    assert {p: p.read_bytes() for p in first} == first
    assert check_drift(tmp_path, log=logs.append) == []
    # the exercises as a module: the solutions without their markers, and what they import
    module = solutions_path(lesson)
    scope: dict = {}
    exec(compile(module.read_text(), str(module), "exec"), scope)
    assert scope["__all__"] == ["flatten", "shape_of", "dtype_of", "to_bytes"]
    assert scope["flatten"]([[1], [2, [3]]]) == [1, 2, 3]
    assert "SOLUTION" not in module.read_text() and "import check" not in module.read_text()
    # drift: an edited lesson, a stale solution, a notebook without a source, an edited
    # solutions module and one without a lesson
    lesson.lesson_path.write_text(lesson.lesson_path.read_text().replace("recurse", "recurze"))
    (tmp_path / "solutions" / "99_gone.ipynb").write_text("{}")
    module.write_text(module.read_text().replace("return [data]", "return data"))
    module.with_name("ep99.py").write_text("")
    drift = check_drift(tmp_path, log=logs.append)
    assert drift == ["lessons/00_tiny.ipynb (differs from course/00_tiny.py)",
                     "src/stridegrad/course/solutions/ep00.py (differs from course/00_tiny.py)",
                     "solutions/99_gone.ipynb (no course/99_gone.py)",
                     "src/stridegrad/course/solutions/ep99.py (no lesson 99)"]


def test_an_exercise_that_uses_a_name_the_module_would_lack_is_refused(tmp_path):
    """The solutions module holds the setup cell's imports and the exercises only: an
    exercise that reads a name bound in another cell would not run there."""
    source = TINY.replace("    import struct\n", "").replace(
        "# %%\n#| exercise: to_bytes", "# %%\nimport struct\n\n# %%\n#| exercise: to_bytes")
    with pytest.raises(BuildError, match="the exercises use struct, which no import of the "
                                         "setup cell and no exercise defines"):
        build_lesson(tiny_root(tmp_path, source), execute=False)


def test_build_never_overwrites_a_notebook_edited_since_the_last_build(tmp_path, monkeypatch,
                                                                       capsys):
    lesson = tiny_root(tmp_path)
    build(tmp_path, verify=False, log=lambda s: None)
    mine = lesson.lesson_path.read_text().replace("raise NotImplementedError", "return [] #")
    lesson.lesson_path.write_text(mine)  # a learner's answer in the tracked lessons/
    with pytest.raises(EditedError, match=r"lessons/00_tiny\.ipynb"):
        build(tmp_path, verify=False, log=lambda s: None)
    assert lesson.lesson_path.read_text() == mine
    monkeypatch.setattr("stridegrad.course.paths.repo_root", lambda start=None: tmp_path)
    assert cli(["build", "--no-verify"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("stridegrad build: error: ") and "lessons/00_tiny.ipynb" in err
    assert "--force" in err and "Traceback" not in err
    assert lesson.lesson_path.read_text() == mine
    # a solution changed by hand is refused too, and --force overwrites both
    lesson.solution_path.write_text(lesson.solution_path.read_text() + " ")
    with pytest.raises(EditedError, match=r"solutions/00_tiny\.ipynb"):
        build(tmp_path, verify=False, log=lambda s: None)
    assert cli(["build", "--no-verify", "--force"]) == 0
    assert lesson.lesson_path.read_text() != mine
    assert build(tmp_path, verify=False, log=lambda s: None) == []  # the record is current


def test_drift_check_fails_when_the_build_record_is_stale(tmp_path):
    lesson = tiny_root(tmp_path)
    build(tmp_path, verify=False, log=lambda s: None)
    manifest = tmp_path / "course" / "build-manifest.json"
    data = json.loads(manifest.read_text())
    data["files"]["solutions/00_tiny.ipynb"] = "0" * 64
    manifest.write_text(json.dumps(data))
    assert check_drift(tmp_path, log=lambda s: None) == [
        "solutions/00_tiny.ipynb (not what course/build-manifest.json records: run "
        "`stridegrad build 00`)"]
    assert lesson.solution_path.is_file()


def test_build_verify_catches_an_untagged_failing_cell(tmp_path):
    tiny_root(tmp_path, TINY.replace("#| calls-exercise\n", ""))
    with pytest.raises(BuildError, match=r"raises NotImplementedError: recurse .* in the fresh lesson "
                                         r"but is not marked '#\| calls-exercise'"):
        build(tmp_path, log=lambda s: None)


def test_build_check_names_drifting_files(tmp_path, monkeypatch, capsys):
    shutil.copytree(ROOT / "course", tmp_path / "course")
    for folder in ("lessons", "solutions"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    (tmp_path / "src" / "stridegrad" / "course").mkdir(parents=True)
    shutil.copytree(ROOT / "src/stridegrad/course/notebooks",
                    tmp_path / "src/stridegrad/course/notebooks")
    (tmp_path / "pyproject.toml").write_text("")
    solution = tmp_path / "solutions" / "01_flat_storage.ipynb"
    solution.write_text(solution.read_text().replace("(96, 32, 8)", "(96, 32, 9)"))
    (tmp_path / "lessons" / "00_welcome.ipynb").unlink()
    monkeypatch.setattr("stridegrad.course.paths.repo_root", lambda start=None: tmp_path)
    # the two lessons changed: building all 13 (test_drift.py does) adds a minute, no cover
    assert cli(["build", "--check", "00", "01"]) == 1
    err = capsys.readouterr().err
    assert "solutions/01_flat_storage.ipynb (differs from course/01_flat_storage.py)" in err
    assert "lessons/00_welcome.ipynb (missing)" in err
    assert "lessons/01_flat_storage.ipynb" not in err


# ------------------------------------------------------------------ the setup cell

def _run_setup(colab: bool, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run the setup preamble in a Python where `import stridegrad` fails."""
    prelude = textwrap.dedent(f'''
        import sys, types, subprocess, importlib.abc
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "stridegrad" or name.startswith("stridegrad."):
                    raise ImportError("blocked for the test")
        sys.meta_path.insert(0, Block())
        if {colab}:
            sys.modules["google"] = types.ModuleType("google")
            sys.modules["google.colab"] = types.ModuleType("google.colab")
        def fake_run(cmd, check=False):
            print("RAN", cmd)
            sys.meta_path.pop(0)  # "installed"
        subprocess.run = fake_run
    ''')
    script = tmp_path / "setup_cell.py"
    script.write_text(prelude + setup_preamble() + "print('imported', stridegrad.__name__)\n")
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60)


def test_setup_cell_installs_on_colab(tmp_path):
    out = _run_setup(True, tmp_path)
    assert out.returncode == 0, out.stderr
    assert f"'-m', 'pip', 'install', '--quiet', '{links.pip_spec()}'" in out.stdout
    assert "imported stridegrad" in out.stdout


def test_setup_cell_elsewhere_says_how_to_install(tmp_path):
    out = _run_setup(False, tmp_path)
    assert out.returncode == 1
    assert "ImportError: stridegrad is not installed for this kernel: run `pip install -e .`" \
        in out.stderr
    assert "RAN" not in out.stdout


# ------------------------------------------------------------------ the committed notebooks

@pytest.mark.parametrize("lesson", LESSONS, ids=lambda l: l.stem)
def test_committed_notebooks_are_well_formed(lesson):
    student = nbformat.read(lesson.lesson_path, as_version=4)
    solution = nbformat.read(lesson.solution_path, as_version=4)
    for nb in (student, solution):
        nbformat.validate(nb)
        grade_ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
                     if "nbgrader" in c.metadata]
        assert len(grade_ids) == len(set(grade_ids))
        assert all(re.fullmatch(r"[A-Za-z0-9_\-]+", g) for g in grade_ids)
        graded = [c.metadata["nbgrader"] for c in nb.cells
                  if c.metadata.get("nbgrader", {}).get("grade")]
        assert sum(g["points"] for g in graded) == load_checkpoint(lesson.episode).max_points
    code = [c for c in solution.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert "setup" in student.cells[1].source.split("\n")[0].lower()


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda l: l.stem)
def test_setup_imports_nothing_graded_now_or_later(lesson):
    """A lesson may import what earlier episodes built, never an exercise of its own
    episode or a later one (the learner's definition would lose to the import)."""
    from stridegrad.course.build import _top_level_names
    from stridegrad.course.checkpoints import available

    later = {ex for ep in available() if ep >= lesson.episode
             for ex in load_checkpoint(ep).exercises}
    setup = nbformat.read(lesson.lesson_path, as_version=4).cells[1].source
    assert not (_top_level_names(setup) & later)


def test_lesson_01_meets_the_lesson_standard():
    text = (ROOT / "course" / "01_flat_storage.py").read_text()
    for heading in ("By the end you can", "Where this is in NumPy and PyTorch", "Going further"):
        assert heading in text
    assert 3 <= text.count("#| exercise:") <= 6
    assert "plt.show()" in text


def test_strip_answer_handles_a_wrapped_stands_for_paragraph():
    from stridegrad.course.build import _strip_answer

    doc = ['    """Do it.', "", "    Stands for the loop (after a long remark that",
           "    wraps to a second line)::", "", "        for k in axes:", "            acc += k",
           "", "    Args:", "        x: a thing.", '    """']
    out = _strip_answer(doc)
    assert not any("Stands for" in line or "acc += k" in line for line in out)
    assert "    Args:" in out and out[-1] == '    """'
    # a mention with no loop after it is prose, and stays
    prose = ["    Stands for nothing in particular.", "", "    Args:"]
    assert _strip_answer(prose) == prose


def test_free_names_ignore_parameters_of_nested_functions():
    from stridegrad.course.build import _free_names

    src = "def f(x):\n    def back(g):\n        return g * x * scale\n    return back, (lambda h: h + 1)\n"
    assert _free_names(src) == {"scale"}


def test_coalesce_streams_merges_split_prints_only_within_one_stream():
    from stridegrad.course.build import coalesce_streams

    outs = [{"output_type": "stream", "name": "stdout", "text": "a"},
            {"output_type": "stream", "name": "stdout", "text": ["b\n"]},
            {"output_type": "stream", "name": "stderr", "text": "warn\n"},
            {"output_type": "display_data", "data": {}, "metadata": {}},
            {"output_type": "stream", "name": "stdout", "text": "c\n"}]
    merged = coalesce_streams(outs)
    assert [o.get("text") for o in merged] == ["ab\n", "warn\n", None, "c\n"]
