"""Checkpoint 10 (backends): the reference passes, known-wrong code fails, the
references agree with the library, the checkpoint's stand-ins behave as
documented, and the stored-GPU-timings format is the same in the measuring
script, its README and the lesson's loader."""

from __future__ import annotations

import ast
import importlib.util
import json
import math
import time

import numpy as np
import pytest

import stridegrad as sg
import stridegrad.array as sa
from stridegrad import backend
from stridegrad.course.build import reference_namespace
from stridegrad.course.checkpoints.ep10 import FakeAsyncDevice, FakeCuPyArray, fake_cupy
from stridegrad.course.checks import (is_contract_test, load_checkpoint,
                                     misconception_outcomes, run_checkpoint)
from stridegrad.course.misconceptions import for_episode
from stridegrad.course.paths import find_lesson

from .conftest import ROOT, define
from .wrong import pairs

WRONG_10 = pairs("10")

CP = load_checkpoint("10")
LESSON = find_lesson(ROOT, "10")
RESULTS = ROOT / "benchmarks" / "results"


@pytest.fixture(scope="module")
def ref():
    return reference_namespace(LESSON)


def test_exercises_and_standard():
    assert CP.exercises == ["namespace_of", "softmax", "pick_device", "to_host", "time_op",
                            "logsumexp"]
    assert CP.stretch_exercises == ["logsumexp"]
    for ex in CP.exercises:
        tests = [t for t in CP.tests if t.exercise == ex]
        assert len(tests) >= 5 and all(t.hint for t in tests), ex


def test_reference_passes(ref):
    result = run_checkpoint(CP, ref, require_local=False)
    assert [r.test for r in result.rows if not r.passed] == []
    assert result.score == result.max_score == CP.max_points


def test_the_lessons_functions_count_as_the_learners_own(ref):
    """Inline exercises run as notebook cells are credited (defined in __main__); the
    library exercises to_host and pick_device, imported from stridegrad.backend, are not
    the learner's."""
    result = run_checkpoint(CP, ref)
    refused = [r for r in result.rows if not r.passed]
    assert {r.exercise for r in refused} == {"to_host", "pick_device"}, result
    assert all("comes from stridegrad.backend" in r.message for r in refused), result


@pytest.mark.parametrize("exercise", CP.exercises)
def test_each_exercise_is_checked_alone(ref, exercise):
    ns = {k: v for k, v in ref.items() if k == exercise}
    result = run_checkpoint(CP, ns, exercise=exercise, require_local=False)
    assert result.passed and {r.exercise for r in result.rows} == {exercise}


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")
@pytest.mark.parametrize("exercise, label, source",
                         [(ex, label, src) for ex, cases in WRONG_10.items()
                          for label, src in cases])
def test_known_wrong_implementation_fails(exercise, label, source):
    result = run_checkpoint(CP, define(source), exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert {r.status for r in result.rows} <= {"pass", "fail", "error"}, result


def test_every_exercise_has_wrong_implementations():
    assert sorted(WRONG_10) == sorted(CP.exercises)


def test_a_timer_without_sync_is_caught_by_name():
    ns = define(dict(WRONG_10["time_op"])["no sync: times the launch"])
    row = run_checkpoint(CP, ns, exercise="time_op").row("waits_for_the_device")
    assert row.status == "fail" and row.expected == "0.011 s" and row.got == "0.001 s"
    # a known mistake: its diagnosis names it, no hint about another one
    assert "synchroniz" in row.diagnosis and row.hint == ""


def _blocks(text: str) -> dict[str, str]:
    """The text table's lines under each test's row, by test name, spaces collapsed."""
    blocks, name = {}, None
    for line in text.splitlines():
        if line[:1].strip():  # a row starts at column 0
            words = line.split()
            name = words[2] if len(words) > 2 else None
            blocks[name] = ""
        elif name is not None:
            blocks[name] += " " + " ".join(line.split())
    return blocks


def test_a_timer_without_warm_up_or_sync_blames_the_sync_rows_on_the_sync():
    """No warm-up AND no sync: the rows that the missing sync fails are not said to be
    'the same mistake as' the warm-up row; each test fails for one mistake only, and
    this pair of mistakes, a naive first timer, is named as both."""
    both_wrong = next(m for m in for_episode("10")["time_op"]
                      if m.label == "no warm-up and no sync")
    naive, both = both_wrong.source, both_wrong.diagnosis
    result = run_checkpoint(CP, define(naive), exercise="time_op")
    failing = {r.test: r for r in result.rows if not r.passed}
    assert set(failing) == {"waits_for_the_device", "warm_up_is_not_timed",
                            "sync_before_starting_the_clock", "best_of_the_runs",
                            "calls_fn_repeat_plus_one_times", "device_is_idle_afterwards",
                            "time_op_on_generated_inputs"}
    assert {r.diagnosis for r in failing.values()} == {both}
    assert "sync()" in both and "warm-up" in both
    blocks = _blocks(str(result))
    assert " ".join(both.split()) in blocks["waits_for_the_device"]  # the first row, in full
    assert "cause: the same mistake as in waits_for_the_device" in blocks["best_of_the_runs"]
    assert "warm_up_is_not_timed" not in blocks["best_of_the_runs"]
    # the sync mistake alone fails the best-of-runs row, the warm-up mistake alone does not
    # (each test is failed by one of the two mistakes only)
    outcomes = {m.label: {t for t, o in theirs.items() if not o[0] and not is_contract_test(t)}
                for m, theirs in misconception_outcomes(CP, "time_op")}
    assert outcomes["no warm-up"] == {"warm_up_is_not_timed", "calls_fn_repeat_plus_one_times"}
    assert not outcomes["no warm-up"] & outcomes["no sync: times the launch"]
    assert "best_of_the_runs" in outcomes["no sync: times the launch"]
    # with a sync that comes after the clock instead of none, the rows are each named
    # after their own mistake, and a repeated guess stays a guess
    late_sync = naive.replace("        best = min(best, clock() - start)\n",
                              "        best = min(best, clock() - start)\n        sync()\n")
    result = run_checkpoint(CP, define(late_sync), exercise="time_op")
    known = {m.label: m.diagnosis for m in for_episode("10")["time_op"]}
    rows = {r.test: r for r in result.rows if not r.passed}
    assert rows["best_of_the_runs"].diagnosis == \
        f"probably {known['reads the clock before the sync']}"
    assert rows["warm_up_is_not_timed"].diagnosis == f"probably {known['no warm-up']}"
    blocks = _blocks(str(result))
    assert "cause: probably the same mistake as in waits_for_the_device" in \
        blocks["best_of_the_runs"]


def test_mixed_devices_message_reaches_the_learner():
    ns = define(dict(WRONG_10["namespace_of"])["compares namespaces but not devices"])
    row = run_checkpoint(CP, ns, exercise="namespace_of").row("two_devices_raise")
    assert row.status == "fail" and row.expected == "raises RuntimeError"


# ------------------------------------------------------------------ references vs library


def test_softmax_matches_the_librarys(ref):
    sg.manual_seed(0)
    t = sg.randn(4, 5) * 10
    ours = ref["softmax"](np, t.numpy(), axis=1)
    np.testing.assert_allclose(ours, sg.nn.functional.softmax(t, axis=1).numpy(), rtol=1e-5)


def test_softmax_runs_on_array_api_strict(ref):
    xs = pytest.importorskip("array_api_strict")
    out = ref["softmax"](xs, xs.asarray([[1.0, 2.0, 3.0]], dtype=xs.float32))
    assert out.__array_namespace__() is xs and out.dtype == xs.float32


def test_namespace_of_agrees_with_the_backend(ref):
    for device in ("python", "cpu"):
        data = sg.tensor([1.0, 2.0], device=device).to(device)
        arr = backend.from_numpy(data.numpy(), device)
        assert ref["namespace_of"](arr, 1.0) is backend.get_namespace(device)
    assert ref["namespace_of"](FakeCuPyArray([1.0])) is fake_cupy


def test_pick_device_uses_device_available_by_default(ref):
    cuda_ok, _ = backend.device_available("cuda")
    assert ref["pick_device"](("cuda", "cpu")) == ("cuda" if cuda_ok else "cpu")
    with pytest.raises(RuntimeError, match="unknown device 'tpu'"):
        ref["pick_device"]("tpu")


def test_to_host_is_the_backends_own(ref):
    """The lesson's to_host is the library's function itself, the one to_numpy calls."""
    assert ref["to_host"] is backend.to_host
    x = sa.asarray([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(ref["to_host"](x), backend.to_numpy(x, "python"))


def test_pick_device_is_the_backends_own_and_set_default_device_calls_it(ref, monkeypatch):
    """The lesson's pick_device is the library's function itself, and a tuple given to
    set_default_device goes through backend.pick_device, looked up when called."""
    assert ref["pick_device"] is backend.pick_device
    asked = []

    def spy(prefer, *args, **kwargs):
        asked.append(prefer)
        return "python"

    before = backend.get_default_device()
    monkeypatch.setattr(backend, "pick_device", spy)
    try:
        backend.set_default_device(("tpu", "cpu"))
        assert asked == [("tpu", "cpu")] and backend.get_default_device() == "python"
        backend.set_default_device("cpu")  # one name: no choice to make
        assert asked == [("tpu", "cpu")]
    finally:
        backend.set_default_device(before)


def test_time_op_measures_real_host_time(ref):
    took = ref["time_op"](lambda: time.sleep(0.01), lambda: None, repeat=2)
    assert 0.009 <= took < 1.0


# ------------------------------------------------------------------ the stand-ins


def test_fake_cupy_array_follows_cupys_rules():
    x = FakeCuPyArray([[1.0, 2.0]], device="cuda:1")
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(x)
    assert x.get().tolist() == [[1.0, 2.0]] and x.gets == 1
    assert x.__array_namespace__() is fake_cupy and x.device == "cuda:1"


def test_fake_async_device_runs_ahead_until_synced():
    dev = FakeAsyncDevice([0.5, 0.1], launch_cost=0.01, compile_cost=2.0)
    dev.launch()  # 2.01 on the host, then 0.5 on the device
    assert math.isclose(dev.clock(), 2.01)
    dev.launch()  # queued behind the first: done at 2.01 + 0.5 + 0.1
    assert math.isclose(dev.clock(), 2.02)
    dev.sync()
    assert math.isclose(dev.clock(), 2.61) and (dev.launches, dev.syncs) == (2, 1)


# ------------------------------------------------------------------ stored GPU timings


def _lesson_definitions(name: str) -> dict:
    """The top-level functions and constants of the lesson cell that defines ``name``,
    run without the rest of the cell (which looks for the file)."""
    import jupytext

    nb = jupytext.read(LESSON.source, fmt="py:percent")
    cell = next(c for c in nb.cells if c.cell_type == "code" and f"def {name}(" in c.source)
    tree = ast.parse(cell.source)
    tree.body = [n for n in tree.body if isinstance(n, ast.FunctionDef)
                 or isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)]
    ns: dict = {"json": json}
    exec(compile(tree, f"<{LESSON.stem}: the cell defining {name}>", "exec"), ns)  # noqa: S102
    return ns


def _measure_gpu():
    spec = importlib.util.spec_from_file_location("measure_gpu", RESULTS / "measure_gpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_what_the_script_writes_the_lesson_reads(tmp_path):
    script = _measure_gpu()
    load = _lesson_definitions("load_gpu_results")
    assert load["GPU_FORMAT"] == script.FORMAT
    # the script's code path, with NumPy standing in for CuPy and "python" for "cuda"
    benches = script.measure(np, script.no_sync, device="python", log=lambda s: None,
                             sizes={"matmul": (4, 8), "elementwise": (16, 64),
                                    "mlp_step": (8,)})
    rec = script.record(benches, gpu="no GPU (a test)", versions={"numpy": np.__version__})
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(rec))
    data = load["load_gpu_results"](path)
    assert [b["name"] for b in data["benchmarks"]] == ["matmul", "elementwise", "mlp_step"]
    assert list(data["benchmarks"][2]["seconds"]) == ["stridegrad on cpu", "stridegrad on python"]
    assert data["gpu"] == "no GPU (a test)" and data["date"].endswith("Z")


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("gpu"), "'gpu' must be a non-empty string"),
    (lambda d: d.update(date=""), "'date' must be a non-empty string"),
    (lambda d: d.update(format="v0"), "'format' must be"),
    (lambda d: d.update(benchmarks=[]), "'benchmarks' must be a non-empty list"),
    (lambda d: d["benchmarks"][0].update(sizes=[8, 4]), "increasing positive numbers"),
    (lambda d: d["benchmarks"][0]["seconds"].update(third=[1.0, 1.0]), "exactly two series"),
    (lambda d: d["benchmarks"][0]["seconds"].update(gpu=[1.0]), "must be 2 positive numbers"),
    (lambda d: d["benchmarks"][0]["seconds"].update(gpu=[1.0, 0.0]), "must be 2 positive numbers"),
])
def test_the_loader_names_what_is_wrong(tmp_path, change, message):
    load = _lesson_definitions("load_gpu_results")["load_gpu_results"]
    good = {"format": "stridegrad-gpu-timings/1", "date": "2000-01-01T00:00Z", "gpu": "X",
            "benchmarks": [{"name": "m", "what": "w", "size": "n", "sizes": [4, 8],
                            "seconds": {"host": [1.0, 2.0], "gpu": [2.0, 1.0]}}]}
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(good))
    assert load(path)["gpu"] == "X"
    change(good)
    path.write_text(json.dumps(good))
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        load(path)


def test_crossover_helper():
    crossover = _lesson_definitions("crossover")["crossover"]
    sizes = [1, 2, 3, 4]
    assert crossover(sizes, [1, 1, 1, 1], [2, 0.5, 2, 0.5]) == 4  # must win from there on
    assert crossover(sizes, [1, 1, 1, 1], [0.5] * 4) == 1
    assert crossover(sizes, [1, 1, 1, 1], [2] * 4) is None


def test_stored_gpu_timings_are_real_or_absent():
    """No invented numbers: either a measurement the loader accepts is stored, or
    the README says plainly that none is."""
    stored = RESULTS / "gpu.json"
    readme = (RESULTS / "README.md").read_text()
    if stored.exists():
        data = _lesson_definitions("load_gpu_results")["load_gpu_results"](stored)
        assert data["gpu"] and data["date"]
        assert "no measurement is stored yet" not in readme
    else:
        assert "no measurement is stored yet" in readme
        solution = (ROOT / "solutions" / f"{LESSON.stem}.ipynb").read_text()
        assert "No GPU measurement is stored in this repository yet" in solution


def test_lesson_meets_the_standard():
    text = LESSON.source.read_text()
    for needle in ("By the end you can", "Where this is in PyTorch", "Going further",
                   "array_api_strict", "torch.device", "torch.cuda.synchronize",
                   "__array_namespace__", ".to(", "CUDA_OK", "plt.show()",
                   "benchmarks/results/gpu.json", "nbval-ignore-output"):
        assert needle in text, needle
    assert 3 <= text.count("#| exercise:") - len(CP.stretch_exercises) <= 6


def test_the_plot_cell_draws_stored_timings(tmp_path, capsys):
    """The cells that run only once gpu.json exists, run on a file made by the script."""
    import jupytext
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    script = _measure_gpu()
    benches = script.measure(np, script.no_sync, device="python", log=lambda s: None,
                             sizes={"matmul": (4, 8, 16), "elementwise": (16, 64),
                                    "mlp_step": (4,)})
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(script.record(benches, "Test GPU", {"numpy": np.__version__})))
    ns = _lesson_definitions("crossover")
    ns.update(plt=plt, gpu_results=_lesson_definitions("load_gpu_results")["load_gpu_results"](path))
    nb = jupytext.read(LESSON.source, fmt="py:percent")
    cell = next(c for c in nb.cells if c.source.startswith("if gpu_results is None:"))
    exec(compile(cell.source, "<the plot cell>", "exec"), ns)  # noqa: S102
    out = capsys.readouterr().out
    assert out.count("\n") == 3 and "matmul: " in out and "mlp_step: " in out
    plt.close("all")
