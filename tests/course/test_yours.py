"""Your library (``stridegrad yours``, ``train --yours``, ``with yours():``): assembled
from a learner's notebooks, run, and checked by the library's own battery."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

import stridegrad.array as sa
from stridegrad.array import layout
from stridegrad.cli import main as cli
from stridegrad.course import yours as yours_mod
from stridegrad.course.yours import (CALLED_THROUGH, Library, Piece, YourTimeout, definitions,
                                     library_exercises, time_limit, use_yours, yours)
from stridegrad.course.yours_battery import CASES, run_battery

from .conftest import ROOT

#: the workers' verdicts of this module in a folder of its own (conftest.verdicts)
pytestmark = pytest.mark.usefixtures("verdicts")

CORRECT_NUMEL = "def numel(shape):\n    n = 1\n    for d in shape:\n        n *= d\n    return n\n"
# passes every test of checkpoint 01 (its shapes have at most 4 dimensions), and is
# wrong for a 5-d shape: what the battery is for
FOUR_D_NUMEL = ("def numel(shape):\n    n = 1\n    for d in shape[:4]:  # at most 4 axes\n"
                "        n *= d\n    return n\n")
# wrong for the scalar shape () only: fails `strides_of_a_scalar`
SCALAR_WRONG_STRIDES = ("def contiguous_strides(shape):\n    out, step = [], 1\n"
                        "    for d in reversed(shape):\n        out.append(step)\n"
                        "        step *= max(d, 1)\n"
                        "    return tuple(reversed(out)) if shape else (1,)\n")


def lesson_01(folder: Path, **functions: str) -> Path:
    """The course's lesson 01 (stubs) in ``folder``, with the exercise cells of
    ``functions`` (name -> source) replaced as a learner would fill them in."""
    nb = json.loads((ROOT / "lessons" / "01_flat_storage.ipynb").read_text())
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for name, text in functions.items():
            if cell["cell_type"] == "code" and source.startswith(f"def {name}("):
                cell["source"] = text
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "01_flat_storage.ipynb"
    path.write_text(json.dumps(nb))
    return path


def hand_made(name: str, function, lesson: str = "01") -> Library:
    """A library with one function of yours, as if read from a notebook."""
    piece = Piece(lesson, name, f"stridegrad.array.layout:{name}", passed=True, why="passes",
                  function=function)
    return Library(Path("."), [yours_mod.Lesson(lesson, "hand made", None, [piece])])


# --------------------------------------------------------------------------- what is whose

def test_the_library_exercises_come_from_the_builds_lesson_modules():
    found = library_exercises()
    assert found["01"]["numel"] == "stridegrad.array.layout:numel"
    assert found["08"]["unbroadcast"].endswith(":unbroadcast")
    assert "locate" not in found["01"]  # the lesson's own exercise, not a library function
    assert found["00"] == {}


def test_called_through_lists_exactly_the_exercises_the_library_calls():
    """Each library exercise gets a counting spy in its module; the battery's workload
    (arrays, gradients, training) calls exactly those of CALLED_THROUGH. When the
    library starts calling another exercise through its module, this fails: add it."""
    import importlib

    counts: dict[str, int] = {}
    saved = []
    targets = {t for lesson in library_exercises().values() for t in lesson.values()}
    for target in sorted(targets):
        module_name, _, name = target.partition(":")
        module = importlib.import_module(module_name)
        original = getattr(module, name)

        if isinstance(original, type):  # a class (nn.Linear): a counting subclass
            def init(self, *args, _f=original, _t=target, **kwargs):
                counts[_t] = counts.get(_t, 0) + 1
                _f.__init__(self, *args, **kwargs)

            spy = type(name, (original,), {"__init__": init})
        else:
            def spy(*args, _f=original, _t=target, **kwargs):
                counts[_t] = counts.get(_t, 0) + 1
                return _f(*args, **kwargs)

        saved.append((module, name, original))
        setattr(module, name, spy)
    try:
        for case in CASES:
            case.run()
    finally:
        for module, name, original in saved:
            setattr(module, name, original)
    listed = {f"{m}:{n}" for m, names in CALLED_THROUGH.items() for n in names}
    assert listed <= targets, listed - targets
    assert {t for t in targets if counts.get(t)} == listed


def test_definitions_keep_what_defines_and_leave_out_what_runs():
    cells = ["import math\nimport matplotlib.pyplot as plt\nfrom stridegrad.course import check",
             "EPS = 1e-6\nShape = tuple[int, ...]\nW = make_weights()\nprint(W)",
             "%matplotlib inline\n@staticmethod\ndef f(x):\n    return math.sqrt(x) + EPS",
             "check('01')", "def broken(:\n    pass", "try:\n    import stridegrad\n"
             "except ImportError:\n    install()\nfor i in range(3):\n    pass"]
    got = definitions(cells)
    assert got[0] == "import math"  # nothing reads plt or check
    assert got[1] == "EPS = 1e-6\nShape = tuple[int, ...]"
    assert got[2] == "@staticmethod\ndef f(x):\n    return math.sqrt(x) + EPS"
    assert got[3] == "" and got[4] == ""
    assert got[5] == ""  # no definition reads stridegrad
    assert definitions(["import stridegrad", "def g():\n    return stridegrad"])[0] \
        == "import stridegrad"


# --------------------------------------------------------------------------- running yours

def test_installed_functions_are_what_the_strided_array_runs_and_are_put_back():
    original = layout.numel
    seen = []

    def numel(shape):
        seen.append(shape)
        return original(shape)

    library = hand_made("numel", numel)
    with library:
        assert layout.numel is not original and layout.numel.__wrapped__ is numel
        assert sa.zeros((2, 3)).size == 6
    assert layout.numel is original
    assert (2, 3) in seen and library.calls["numel"] >= 1


def test_a_hang_in_your_function_is_stopped_and_named():
    def numel(shape):
        while len(shape) > 4:  # hangs on 5-d shapes only
            pass
        return original(shape)

    original = layout.numel
    library = hand_made("numel", numel).install(call_limit=0.3)
    try:
        start = time.monotonic()
        with pytest.raises(YourTimeout, match=r"your numel \(lesson 01\) did not return "
                                              r"within 0.3 s"):
            sa.zeros((1, 2, 1, 2, 1))
        assert time.monotonic() - start < 5
    finally:
        library.restore()
    assert layout.numel is original


def test_a_function_that_swallows_the_stop_is_still_stopped_when_it_returns():
    def numel(shape):
        try:
            while True:
                pass
        except BaseException:  # a learner's bare `except:`
            return 0

    library = hand_made("numel", numel).install(call_limit=0.2)
    try:
        with pytest.raises(YourTimeout, match="your numel"):
            sa.zeros((2, 3))
    finally:
        library.restore()


def test_an_error_in_your_function_carries_its_name():
    def numel(shape):
        return {}[shape]

    with hand_made("numel", numel), pytest.raises(KeyError) as exc:
        sa.zeros((2, 3))
    assert "raised in your numel (lesson 01)" in exc.value.__notes__


LINEAR = '''
import math
import stridegrad as sg
from stridegrad.nn import Module, Parameter


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        k = 1 / math.sqrt(in_features)
        self.weight = Parameter(sg.rand(out_features, in_features, device=device,
                                        dtype=dtype) * (2 * k) - k)
        self.bias = (Parameter(sg.rand(out_features, device=device, dtype=dtype) * (2 * k) - k)
                     if bias else None)

    def forward(self, x):
        return x @ self.weight.T + self.bias  # wrong for bias=False: adds None
'''


def test_an_installed_class_builds_the_librarys_layers_and_is_put_back():
    """A class (lesson 09's Linear) is installed as a subclass of yours: nn.MLP and
    sg.nn.Linear build with it, isinstance and super() work, each construction is
    counted, and an error in one of its methods carries its name."""
    import stridegrad as sg
    from stridegrad.nn import modules

    namespace: dict = {}
    exec(LINEAR, namespace)
    mine, original = namespace["Linear"], modules.Linear
    piece = Piece("09", "Linear", "stridegrad.nn.modules:Linear", passed=True, why="passes",
                  function=mine)
    library = Library(Path("."), [yours_mod.Lesson("09", "hand made", None, [piece])])
    with library:
        assert sg.nn.Linear is modules.Linear and modules.Linear.__wrapped__ is mine
        net = sg.nn.MLP([4, 3, 2])
        assert isinstance(net[0], mine) and isinstance(net[2], sg.nn.Linear)
        assert type(net[0]).__name__ == "Linear" and net(sg.ones(5, 4)).shape == (5, 2)
        assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias", "2.weight",
                                                          "2.bias"]
        with pytest.raises(TypeError) as exc:
            sg.nn.Linear(4, 3, bias=False)(sg.ones(2, 4))
        assert "raised in your Linear (lesson 09)" in exc.value.__notes__
    assert modules.Linear is original and sg.nn.Linear is original
    assert library.calls["Linear"] == 3  # constructions only, not the forward calls


def test_time_limits_nest():
    hits = []
    previous = signal.signal(signal.SIGALRM, lambda *a: hits.append("outer"))
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with time_limit(5.0, TimeoutError):  # the outer ends sooner: it stays
            pass
        with pytest.raises(TimeoutError), time_limit(0.05, TimeoutError):
            time.sleep(1)
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0  # the outer runs on
        time.sleep(0.6)
        assert hits == ["outer"]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_the_battery_passes_on_the_librarys_own_functions():
    outcomes = run_battery(Library(Path("."), []))
    assert [o.failures for o in outcomes if not o.passed] == []


def test_the_battery_names_your_function_and_its_wrong_call():
    namespace: dict = {}
    exec(FOUR_D_NUMEL, namespace)
    outcomes = run_battery(hand_made("numel", namespace["numel"]))
    messages = [f.message for o in outcomes for f in o.failures]
    assert messages and all(m.startswith("your numel: numel((") for m in messages), messages
    assert ("your numel: numel((2, 3, 1, 2, 2)) returns 12, the library's numel returns 24"
            in messages[0])


def test_the_battery_names_a_hang_and_goes_on():
    def numel(shape):
        while len(shape) > 4:
            pass
        return original(shape)

    original = layout.numel
    start = time.monotonic()
    outcomes = run_battery(hand_made("numel", numel), call_limit=0.2)
    failed = [f for o in outcomes for f in o.failures]
    assert failed and all(f.exercises == ["numel"] for f in failed)
    assert "did not return within 0.2 s" in failed[0].message
    assert time.monotonic() - start < 60
    assert layout.numel is original


def test_a_slow_function_costs_the_battery_twice_the_case_limit_at_most():
    def numel(shape):
        time.sleep(0.02)  # each call well within the call limit; the case is not
        return original(shape)

    original = layout.numel
    start = time.monotonic()
    [outcome] = run_battery(hand_made("numel", numel), cases=CASES[:1], case_limit=0.5)
    assert time.monotonic() - start < 3
    [failure] = outcome.failures
    assert failure.exercises == ["numel"]
    assert failure.message.startswith("your numel: did not finish within "), failure.message


def test_the_battery_names_a_crash_in_your_function():
    def contiguous_strides(shape):
        if len(shape) > 4:
            raise IndexError("tuple index out of range")
        return reference(shape)

    reference = layout.contiguous_strides
    outcomes = run_battery(hand_made("contiguous_strides", contiguous_strides),
                           cases=CASES[:1])
    [failure] = outcomes[0].failures
    assert failure.exercises == ["contiguous_strides"]
    assert failure.message.startswith("your contiguous_strides: raised IndexError: tuple "
                                      "index out of range (raised in your contiguous_strides "
                                      "(lesson 01))"), failure.message


def test_a_failure_of_two_functions_only_together_names_both():
    """Neither alone makes the case fail, both together do: both are named."""
    from stridegrad.course.yours_battery import Case

    def both_swapped():
        layout.numel((2,))
        layout.contiguous_strides((2,))
        if hasattr(layout.numel, "__wrapped__") and \
                hasattr(layout.contiguous_strides, "__wrapped__"):
            raise AssertionError("wrong together")

    library = hand_made("numel", layout.numel)
    library.lessons[0].pieces.append(Piece("01", "contiguous_strides",
                                           "stridegrad.array.layout:contiguous_strides",
                                           passed=True, why="passes",
                                           function=layout.contiguous_strides))
    [outcome] = run_battery(library, cases=[Case("a pair", both_swapped)])
    [failure] = outcome.failures
    assert failure.exercises == ["numel", "contiguous_strides"]
    assert failure.message == ("your numel, contiguous_strides together: a pair: wrong "
                               "together")


# --------------------------------------------------------------------------- from notebooks

@pytest.fixture(scope="module")
def learner(tmp_path_factory) -> Path:
    """A learner's folder: lesson 01 with numel right, contiguous_strides wrong for a
    scalar, the others not written; lesson 02 not a notebook; no lesson 03."""
    folder = tmp_path_factory.mktemp("my-lessons")
    lesson_01(folder, numel=CORRECT_NUMEL, contiguous_strides=SCALAR_WRONG_STRIDES)
    (folder / "02_strides_and_views.ipynb").write_text("{ not json")
    return folder


def test_yours_prints_whose_each_exercise_is_and_why(learner, capsys):
    assert cli(["yours", str(learner)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert rows["numel"].split()[1:] == ["yours", "passes"]
    assert rows["contiguous_strides"].split()[1:] == ["reference", "fails",
                                                      "`strides_of_a_scalar`"]
    assert "reference  not written yet" in rows["index_to_offset"]
    assert "lesson     not written yet" in rows["locate"]
    assert "the notebook could not be read: 02_strides_and_views.ipynb is not valid JSON" \
        in rows["permute_layout"]
    assert "reference  not written yet (no notebook of this lesson)" in rows["iter_offsets"]
    assert "passes; the library does not call this exercise" not in out  # nothing passes
    total = sum(len(found) for found in library_exercises().values())
    assert f"1 of {total} library exercises yours; reference for: contiguous_strides (fails " \
           "its checkpoint); index_to_offset, offset_to_index" in out


def test_with_yours_runs_the_cells_inside_on_your_library(learner, capsys):
    original = layout.numel
    with yours(learner) as library:
        assert layout.numel.__wrapped__.__module__ == "stridegrad_yours.lesson01"
        assert sa.ones((2, 2)).size == 4
    assert layout.numel is original and library.calls["numel"] >= 1
    assert capsys.readouterr().out.startswith("1 of ")
    with yours(learner, quiet=True) as again:  # unchanged notebooks: not read again
        assert again is library
    assert capsys.readouterr().out == ""
    session = use_yours(learner, quiet=True)  # the rest of the session, until restore()
    try:
        assert session is library and layout.numel.__wrapped__.__name__ == "numel"
        assert layout.numel is not original
    finally:
        session.restore()
    assert layout.numel is original


def test_train_yours_says_which_of_yours_it_ran(learner, tmp_path, capsys):
    assert cli(["train", "moons", "--device", "python", "--epochs", "1", "--no-progress",
                "--out", str(tmp_path), "--yours", str(learner)]) == 0
    out = capsys.readouterr().out
    assert "your library: 1 of " in out and "test accuracy:" in out
    assert "your functions this run called (times): numel (" in out
    assert layout.numel.__module__ == "stridegrad.array.layout"


def test_yours_test_names_a_wrong_function_that_passes_its_checkpoint(tmp_path, capsys):
    lesson_01(tmp_path, numel=FOUR_D_NUMEL)
    assert cli(["yours", str(tmp_path), "--test"]) == 1
    out = capsys.readouterr().out
    numel_row = next(line for line in out.splitlines() if line.startswith("  numel "))
    assert numel_row.split()[1:] == ["yours", "passes"]  # its checkpoint passes
    assert "your numel: numel((2, 3, 1, 2, 2)) returns 12, the library's numel returns 24" \
        in out
    assert out.rstrip().endswith("yours to fix: numel")


def test_yours_of_a_missing_folder_is_a_clear_error(tmp_path, capsys):
    assert cli(["yours", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"stridegrad yours: error: no folder {tmp_path / 'nowhere'}")


def test_a_verdict_is_kept_until_the_notebook_changes(tmp_path, verdicts, monkeypatch):
    from stridegrad.course import grader

    lesson_01(tmp_path, numel=CORRECT_NUMEL)
    first = yours_mod.assemble(tmp_path, lessons=["01"])
    assert len(list(verdicts.glob("*.json"))) >= 1

    def no_worker(*args, **kwargs):
        raise AssertionError("a worker started for a verdict that is kept")

    monkeypatch.setattr(grader, "run_notebook", no_worker)
    again = yours_mod.assemble(tmp_path, lessons=["01"])
    assert again.table() == first.table() and [p.name for p in again.mine] == ["numel"]
    lesson_01(tmp_path, numel=CORRECT_NUMEL.replace("n = 1", "n = 1  # changed"))
    with pytest.raises(AssertionError, match="a worker started"):
        yours_mod.assemble(tmp_path, lessons=["01"])


def test_a_global_made_by_a_call_is_not_run_and_the_table_says_so(tmp_path):
    lesson_01(tmp_path, numel="BASE = int('1')  # a call: left out\n\n\n" + CORRECT_NUMEL.replace(
        "n = 1", "n = BASE"))
    [lesson] = yours_mod.assemble(tmp_path, lessons=["01"]).lessons
    numel = next(p for p in lesson.pieces if p.name == "numel")
    assert numel.whose == "reference"
    assert numel.why == ("fails `numel_of_a_3d_shape`: it raised NameError: name 'BASE' is "
                         "not defined"), numel.why
