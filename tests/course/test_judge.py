"""The judge outside the sandbox (:mod:`stridegrad.course._judge`, :mod:`stridegrad.course._wire`).

First the wire: plain data goes both ways whole, and everything else is a handle whose
use is asked of the other side. Then the attack suite of the issue "Grades that no
notebook can forge": one hostile notebook per attack class, graded beside an honest
student who keeps full marks, with each launcher that starts here. Every attacker scores
only what its own functions earn.
"""

from __future__ import annotations

import json
import math
import os
import shutil

import numpy as np
import pytest

from stridegrad.course import _wire, grader, sandbox
from stridegrad.course._judge import not_yours
from stridegrad.course.checks import load_checkpoint

from .conftest import ROOT
from .test_grader import CELL_LIMIT, _with_cell

STEM = "01_flat_storage"
CP = load_checkpoint("01")
FULL = CP.max_points
SOLUTION = json.loads((ROOT / "solutions" / f"{STEM}.ipynb").read_text())
LESSON = json.loads((ROOT / "lessons" / f"{STEM}.ipynb").read_text())
HIDDEN_SHAPE = (7, 11, 13)  # only in the instructor's hidden test


# ------------------------------------------------------------------ the wire

def _round_trip(value, codec=None):
    codec = codec or _wire.Codec("$h")
    return codec.decode(json.loads(json.dumps(codec.encode(value), allow_nan=False)))


@pytest.mark.parametrize("value", [
    None, True, 0, -(2 ** 70), 1.5, -0.0, "text", b"\x00\xff", bytearray(b"ab"), 2 + 3j,
    (1, (2.0, "x")), [1, [2, []]], {"a": 1, 2: [3]}, {1, 2}, frozenset({"a"}),
    slice(1, None, -1), Ellipsis, np.arange(6, dtype=np.float32).reshape(2, 3),
    np.float64(2.5), np.int8(-3), np.dtype("int16"), float, [math.inf, -math.inf],
])
def test_plain_data_goes_whole(value):
    got = _round_trip(value)
    assert type(got) is type(value)
    if isinstance(value, np.ndarray):
        assert got.dtype == value.dtype and np.array_equal(got, value)
    else:
        assert got == value


def test_nan_and_aliasing_survive():
    row = [0, 0]
    got = _round_trip([math.nan, row, row])
    assert math.isnan(got[0]) and got[1] is got[2]


def test_a_value_the_call_put_in_two_places_is_one_judge_object_after_it():
    """sgd_step(param, grad, state) that keeps the caller's grad as its buffer: written
    back, the judge's state holds the judge's own grad, as the worker's held its grad."""
    param, grad, state = np.zeros(2), np.array([1.0, 2.0]), {}
    new_grad = np.array([1.0, 2.0])
    _wire._write_back([param, grad, state], [np.ones(2), new_grad, {"buf": new_grad}])
    assert state["buf"] is grad and param.tolist() == [1.0, 1.0]
    old_buf = np.zeros(2)
    state = {"buf": old_buf}
    _wire._write_back([state], [{"buf": np.array([3.0, 4.0])}])
    assert state["buf"] is old_buf and old_buf.tolist() == [3.0, 4.0]  # updated in place


def _observe_modules() -> list[str]:
    import pkgutil

    import stridegrad.course.observe as package
    return [m.name for m in pkgutil.iter_modules(package.__path__)]


@pytest.mark.parametrize("name", _observe_modules())
def test_observations_import_nothing_the_sandbox_hides(name):
    """An observation runs in the notebook's process, whose Python shows the
    checkpoints, solutions, reference and misconceptions empty: no observation module
    imports them (so none holds an expected value either)."""
    import ast
    import importlib
    import inspect

    tree = ast.parse(inspect.getsource(importlib.import_module(f"stridegrad.course.observe.{name}")))
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
    hidden = ("checkpoints", "solutions", "reference", "misconceptions", "_judge")
    assert not [m for m in imported if any(part in hidden for part in m.split("."))], imported


def test_library_values_go_by_value():
    import stridegrad.array as sa
    from stridegrad.compile.graph import Graph, Op

    a = sa.asarray([[1.0, 2.0], [3.0, 4.0]]).T
    got = _round_trip(a)
    assert type(got) is type(a) and got.tolist() == a.tolist() and got.dtype is a.dtype
    graph = Graph([Op("x", "input"), Op("y", "exp", ("x",))], ["y"])
    assert _round_trip(graph) == graph


def test_what_cannot_be_sent_is_refused():
    deep: list = []
    for _ in range(_wire.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(ValueError, match="nested more than"):
        _wire.Codec("$w").encode(deep)
    import types
    assert _wire.Codec("$w").encode(os) == {"$mod": "os"}  # a real module, by its name
    with pytest.raises(ValueError, match="cannot be sent"):
        _wire.Codec("$w").encode(types.ModuleType("fake"))  # never a handle of the worker's
    with pytest.raises(ValueError, match="cannot be sent"):  # nor a frame, nor code
        _wire.Codec("$h").encode(test_what_cannot_be_sent_is_refused.__code__)
    with pytest.raises(_wire.ProtocolError):
        _wire.Codec("$h").decode({"$mod": "stridegrad.course.checkpoints.ep01"})
    with pytest.raises(_wire.ProtocolError):
        _wire.Codec("$h").decode({"$v": ["builtins.object", {"$d": []}]})
    with pytest.raises(_wire.ProtocolError):
        _wire.Codec("$h").decode({"$nd": ["|O", [1], "AAAAAAAAAAA="]})


def test_exceptions_come_back_by_kind_never_as_a_stop():
    class Mine(ValueError):
        pass
    try:
        raise Mine("bad shape (2, 3)")
    except Mine as exc:
        info = _wire.describe_exception(exc)
    got = _wire.rebuild_exception(json.loads(json.dumps(info)))
    assert isinstance(got, ValueError) and type(got).__name__ == "Mine"
    assert str(got) == "bad shape (2, 3)"
    stop = _wire.rebuild_exception(_wire.describe_exception(SystemExit(3)))
    assert isinstance(stop, Exception) and not isinstance(stop, SystemExit)


class _Anything:
    def __eq__(self, other):
        return True


def _pair():
    """A judge and a worker channel in one process, over two pipes (the worker is
    served in a thread)."""
    import threading

    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    worker = _wire.WorkerChannel(r1, w2)
    judge = _wire.JudgeChannel(r2, w1, default_timeout=5)
    thread = threading.Thread(target=worker.serve_forever, args=({},), daemon=True)
    thread.start()
    return judge, worker


def test_a_remote_equals_only_itself_and_hides_its_dunders():
    judge, worker = _pair()
    remote = judge.codec.decode(worker.codec.encode(_Anything()))
    assert isinstance(remote, _wire.Remote)
    assert remote != 1 and not remote == remote.__class__ and remote == remote
    assert type(remote).__name__ == "_Anything"
    with pytest.raises(AttributeError):
        remote.__globals__  # noqa: B018


def test_the_judges_objects_show_the_worker_no_internals():
    judge, worker = _pair()

    def secret():
        return 1

    proxy = worker.codec.decode(judge.codec.encode(secret))
    assert isinstance(proxy, _wire.HostProxy)
    for name in ("__globals__", "__closure__", "__code__", "__dict__", "__class__"):
        with pytest.raises(AttributeError):
            _wire.serve(judge.codec, {"op": "getattr", "target": 1, "name": name},
                        on_host=True)


# ------------------------------------------------------------------ "not yours", from source

@pytest.mark.parametrize("source, status", [
    ("from stridegrad.array.layout import numel", "imported"),
    ("import stridegrad.array.layout as L\nnumel = L.numel", "imported"),
    ("import types, stridegrad.array.layout as L\n"
     "numel = types.FunctionType(L.numel.__code__.replace(co_filename='x'), {})", "imported"),
    ("if True:\n    from stridegrad.array.layout import numel", "imported"),
    ("import sys\nfrom stridegrad.array import layout\n"
     "def numel(shape):\n    sys.setprofile(None)\n    return layout.numel(shape)", "delegates"),
    ("from stridegrad.array import layout\ndef helper(s):\n    return layout.numel(s)\n"
     "def numel(shape):\n    return helper(shape)", "delegates"),
    ("def numel(shape):\n    n = 1\n    for d in shape:\n        n *= d\n    return n", None),
    ("numel = lambda shape: 1 if not shape else shape[0] * numel(shape[1:])", None),
])
def test_not_yours_is_read_from_the_source(source, status):
    found = not_yours([source], CP)
    assert found.get("numel", (None,))[0] == status, found


# ------------------------------------------------------------------ the attack suite

def _notebook(extra: str, base=None) -> str:
    nb = _with_cell(json.loads(json.dumps(base or SOLUTION)), extra, at=-1)
    return json.dumps(nb)


#: attack -> (the cell added at the end of a notebook, the notebook, expected points)
#: Each is a class of the issue's; the points are what the functions themselves earn.
NUMEL_POINTS = CP.points_for("numel")
ATTACKS = {
    # reading the answer: an object that equals everything, a walk up the frames
    "equals_everything": ("class Anything:\n    def __eq__(self, other): return True\n"
                          "    __hash__ = object.__hash__\n"
                          "def numel(shape):\n    return Anything()", SOLUTION, None),
    "walks_the_frames": ("import sys\ndef numel(shape):\n    f = sys._getframe()\n"
                         "    while f is not None:\n"
                         "        if 'returns' in f.f_locals:\n"
                         "            return f.f_locals['returns']\n"
                         "        f = f.f_back\n    raise NotImplementedError", LESSON, 0),
    # forging the result: the writer found with gc, a full-marks line on every descriptor
    "forges_a_result": ("import gc, json, os\n"
                        "for o in gc.get_objects():\n"
                        "    code = getattr(o, '__code__', None)\n"
                        "    if code is not None and 'token' in code.co_freevars:\n"
                        "        env = dict(zip(code.co_freevars, (c.cell_contents for c in "
                        "o.__closure__)))\n"
                        "        line = json.dumps({'status': 'graded', 'token': env['token'],\n"
                        "                           'result': {'rows': []}, 'code_cells': 1})\n"
                        "        for fd in range(3, 64):\n"
                        "            try:\n"
                        "                os.write(fd, ('\\n' + line + '\\n').encode())\n"
                        "            except OSError:\n"
                        "                pass", LESSON, 0),
    # rewriting the tests in memory: the checks module patched in the notebook's process
    "patches_the_checks": ("import stridegrad.course.checks as c\n"
                           "c._equal = lambda got, expected: True\n"
                           "c.expect = lambda fn, *a, returns=None, **k: returns", LESSON, 0),
    # dodging "not yours": the profiler switched off before calling the library
    "dodges_the_profiler": ("import sys\nfrom stridegrad.array import layout\n"
                            "def numel(shape):\n    sys.setprofile(None)\n"
                            "    return layout.numel(shape)", SOLUTION, None),
    # the hidden tests: their inputs reach the function only after every visible test
    "leaks_hidden_inputs": ("SEEN = []\ndef numel(shape):\n    SEEN.append(shape)\n"
                            "    raise ValueError(f'seen so far: {SEEN}')", SOLUTION, None),
    # stopping the judge: a function that kills its process, one that ignores the alarm
    # (the notebook's process is gone or stopped after that call: nothing more is graded)
    "dies_in_a_call": ("import os\ndef numel(shape):\n    os._exit(7)", SOLUTION, 0),
    "hangs_in_a_call": ("import signal, time\ndef numel(shape):\n"
                        "    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                        "    while True:\n        time.sleep(0.01)", SOLUTION, 0),
}


def _launcher(name: str):
    try:
        sandbox.find(name)
    except sandbox.SandboxUnavailable as exc:
        if name == "bwrap" and os.geteuid() == 0 and shutil.which("bwrap"):
            return "bwrap-as-root"  # grade() does not choose it, but the judge works there too
        return pytest.param(name, marks=pytest.mark.skip(
            reason=f"the {name} sandbox cannot start on this machine: {exc}"))
    return name


@pytest.fixture(scope="module", params=[_launcher("bwrap"), _launcher("unshare")])
def attacked(request, tmp_path_factory):
    base = tmp_path_factory.mktemp(f"judge-{request.param}")
    sub = base / "submitted"
    for student, text in [("alice_honest", json.dumps(SOLUTION))] + [
            (name, _notebook(cell, nb)) for name, (cell, nb, _) in ATTACKS.items()]:
        path = sub / student / STEM / f"{STEM}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(text)
    hidden = base / "hidden.py"
    hidden.write_text("from stridegrad.course import Checkpoint, expect\n"
                      "checkpoint = Checkpoint('01_flat_storage', hidden=True)\n"
                      "@checkpoint.test('numel', points=2)\n"
                      "def numel_of_an_odd_shape(numel):\n"
                      f"    expect(numel, {HIDDEN_SHAPE}, returns={math.prod(HIDDEN_SHAPE)})\n")
    grades = grader.grade(sub, "01", base / "out", timeout=120, cell_timeout=CELL_LIMIT,
                          test_timeout=3, jobs=2, extra_tests=hidden,
                          sandbox=sandbox.Sandbox("bwrap", shutil.which("bwrap"))
                          if request.param == "bwrap-as-root" else request.param,
                          log=lambda s: None)
    return {"grades": {g.student: g for g in grades}, "out": base / "out"}


def _numel_rows(g):
    return [r for r in g.rows if r.exercise == "numel"]


def test_the_honest_student_keeps_full_marks(attacked):
    g = attacked["grades"]["alice_honest"]
    assert (g.status, g.points, g.max_points) == ("graded", FULL + 2, FULL + 2), g.message


@pytest.mark.parametrize("attack", ATTACKS)
def test_each_attack_scores_only_what_its_functions_earn(attacked, attack):
    g = attacked["grades"][attack]
    expected = ATTACKS[attack][2]
    if expected is not None:  # a lesson left as it is: its stubs earn nothing
        assert g.points == expected, (g.status, g.message)
        return
    # the solution with its numel replaced: full marks less numel's (and what calls it)
    assert g.status == "graded", g.message
    assert all(not r.passed for r in _numel_rows(g)), [(r.test, r.status) for r in g.rows]
    assert g.points <= FULL - NUMEL_POINTS
    assert g.points > 0  # the other exercises are still theirs


def test_not_yours_and_the_dying_function_are_named(attacked):
    g = attacked["grades"]
    assert {r.status for r in _numel_rows(g["dodges_the_profiler"])} == {"delegates"}
    died = _numel_rows(g["dies_in_a_call"])
    assert any("ended" in r.message for r in died), [r.message for r in died]
    hung = _numel_rows(g["hangs_in_a_call"])
    assert hung[0].status == "timeout", [(r.status, r.message) for r in hung]
    # the process that ignored its alarm is stopped at once: the tests after it are
    # errors that say so, not one more time limit each
    assert all(r.status == "error" and "limit and was stopped" in r.message
               for r in hung[1:]), [(r.status, r.message) for r in hung]


def test_no_hidden_input_reaches_what_the_student_sees(attacked):
    g = attacked["grades"]["leaks_hidden_inputs"]
    shown = [r.message + r.got for r in g.rows if not r.hidden]
    assert any("seen so far" in text for text in shown)
    assert not any(str(HIDDEN_SHAPE) in text for text in shown)
    page = (attacked["out"] / "feedback" / "leaks_hidden_inputs" / f"{STEM}.html").read_text()
    assert "seen so far" in page and str(HIDDEN_SHAPE) not in page
