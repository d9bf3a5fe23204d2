"""Checkpoint 12 (convolution through strides): the reference passes, every known
mistake fails, the reference agrees with NumPy's stride tricks and the library's
conv2d / max_pool2d / autograd on random shapes, and the lesson keeps its claims."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

import stridegrad as sg
import stridegrad.nn.functional as F
from stridegrad.nn import im2col as R
from stridegrad.course.build import reference_namespace
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.course.paths import find_lesson

from .conftest import ROOT, define
from .wrong import pairs

WRONG_12 = pairs("12")

CP = load_checkpoint("12")
LESSON = find_lesson(ROOT, "12")
EXERCISES = ["window_layout", "im2col", "conv2d", "col2im", "max_pool2d", "conv2d_input_grad"]


def test_six_exercises_and_the_stretch_has_points_of_its_own():
    """(test_checks.py runs the reference, the standard and every misconception.)"""
    assert CP.exercises == [*EXERCISES, "conv2d_weight_grad"]
    assert CP.stretch_exercises == ["conv2d_weight_grad"]  # optional, counted apart
    assert sorted(WRONG_12) == sorted(CP.exercises)
    assert CP.points_for("conv2d_input_grad") >= 10


@pytest.mark.parametrize("exercise", EXERCISES)
def test_each_exercise_is_checked_alone(exercise):
    ns = {exercise: reference_namespace(LESSON)[exercise]}
    result = run_checkpoint(CP, ns, exercise=exercise, require_local=False)
    assert result.passed and {r.exercise for r in result.rows} == {exercise}


def test_a_broken_window_layout_is_named_as_the_cause_of_im2col_failing():
    """im2col calls the learner's own window_layout: when that one is wrong, the rows of
    im2col say so instead of diagnosing im2col."""
    ns = define("import numpy as np\nfrom numpy.lib.stride_tricks import as_strided\n"
                + dict(WRONG_12["window_layout"])["window counts do not step"]
                + inspect.getsource(R.im2col))
    result = run_checkpoint(CP, ns, exercise="im2col")
    failing = [r for r in result.rows if not r.passed]
    # the hand-written stride_two, and the contract's generated strides
    assert [r.test for r in failing] == ["stride_two", "im2col_on_generated_inputs"]
    assert all(r.cause == "window_layout" and not r.diagnosis for r in failing)


# ------------------------------------------------------------------ the reference vs NumPy
# and the library, on random layouts


def _layouts(seed: int, n: int = 25):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        c, h, w = rng.integers(1, 4), rng.integers(1, 9), rng.integers(1, 9)
        kh, kw = rng.integers(1, h + 1), rng.integers(1, w + 1)
        sh, sw = rng.integers(1, 4), rng.integers(1, 4)
        x = rng.normal(size=(c, h, w))
        if rng.random() < 0.5:  # a non-contiguous input: a transposed view
            x = np.ascontiguousarray(x.transpose(0, 2, 1)).transpose(0, 2, 1)
        yield x, (int(kh), int(kw)), (int(sh), int(sw))


@pytest.mark.parametrize("seed", range(3))
def test_window_layout_and_im2col_match_sliding_window_view(seed):
    for x, k, s in _layouts(seed):
        view = np.lib.stride_tricks.sliding_window_view(x, k, axis=(1, 2))[:, ::s[0], ::s[1]]
        element = tuple(st // x.itemsize for st in x.strides)
        shape, strides = R.window_layout(x.shape, element, k, s)
        assert shape == view.shape
        assert tuple(st * x.itemsize for st in strides) == view.strides
        c, oh, ow = view.shape[:3]
        expected = view.transpose(0, 3, 4, 1, 2).reshape(c * k[0] * k[1], oh * ow)
        cols = R.im2col(x, k, s)
        np.testing.assert_array_equal(cols, expected)
        assert not np.shares_memory(cols, x)


@pytest.mark.parametrize("seed", range(3))
def test_col2im_is_the_transpose_of_im2col(seed):
    rng = np.random.default_rng(100 + seed)
    for x, k, s in _layouts(seed):
        cols = R.im2col(x, k, s)
        g = rng.normal(size=cols.shape)
        g_before = g.copy()
        back = R.col2im(g, x.shape, k, s)
        assert back.shape == x.shape
        np.testing.assert_allclose(np.sum(cols * g), np.sum(x * back), rtol=1e-10, atol=1e-10)
        np.testing.assert_array_equal(g, g_before)


@pytest.mark.parametrize("seed", range(3))
def test_conv2d_and_its_input_gradient_match_the_library(seed):
    rng = np.random.default_rng(200 + seed)
    for x, (kh, kw), (stride, _) in _layouts(seed, n=15):
        padding = int(rng.integers(0, 3))
        oc = int(rng.integers(1, 4))
        w = rng.normal(size=(oc, x.shape[0], kh, kw))
        b = rng.normal(size=oc)
        xt = sg.tensor(x[None].copy(), requires_grad=True)
        out = F.conv2d(xt, sg.tensor(w), sg.tensor(b), stride=stride, padding=padding)
        mine = R.conv2d(x, w, b, stride, padding)
        np.testing.assert_allclose(mine, out.numpy()[0], rtol=1e-10, atol=1e-10)
        g = rng.normal(size=mine.shape)
        (out * sg.tensor(g[None])).sum().backward()
        np.testing.assert_allclose(R.conv2d_input_grad(g, w, x.shape, stride, padding),
                                   xt.grad.numpy()[0], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_max_pool2d_matches_the_library(seed):
    for x, k, s in _layouts(seed):
        lib = F.max_pool2d(sg.tensor(x[None].copy()), k, s).numpy()[0]
        np.testing.assert_array_equal(R.max_pool2d(x, k, s), lib)
    x = np.arange(16.0).reshape(1, 4, 4)
    np.testing.assert_array_equal(R.max_pool2d(x, (2, 2)), [[[5, 7], [13, 15]]])


def test_errors_name_the_values():
    with pytest.raises(ValueError, match=r"input has 3 channels but weight \(8, 1, 3, 3\) "
                                         r"expects 1"):
        R.conv2d(np.zeros((3, 4, 4)), np.zeros((8, 1, 3, 3)))
    with pytest.raises(ValueError, match=r"kernel \(3, 3\) does not fit in shape \(2, 5\)"):
        R.window_layout((2, 5), (5, 1), (3, 3))
    with pytest.raises(ValueError, match=r"\(4, 3\).*\(4, 4\)"):
        R.col2im(np.ones((4, 3)), (1, 3, 3), (2, 2))
    with pytest.raises(ValueError, match=r"\(3, 3\)"):
        R.im2col(np.zeros((3, 3)), (2, 2))


# ------------------------------------------------------------------ the lesson


def test_lesson_meets_the_standard():
    text = LESSON.source.read_text()
    for needle in ("By the end you can", "Where this is in PyTorch and NumPy", "Going further",
                   "torch.nn.functional.unfold", "sliding_window_view", "as_strided",
                   "bytes", "Winograd", "FFT", "implicit GEMM", "plt.show()",
                   "## Stretch (optional)", "sg.nn.Conv2d", "sg.nn.MaxPool2d", "sg.nn.Flatten"):
        assert needle in text, needle
    assert 3 <= text.count("#| exercise:") - len(CP.stretch_exercises) <= 6


def _outputs() -> str:
    nb = json.loads((ROOT / "solutions" / f"{LESSON.stem}.ipynb").read_text())
    return "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", []))


def test_the_stored_solution_shows_what_the_prose_claims():
    text = _outputs()
    assert "the CNN beats the MLP: yes" in text
    assert "CNN:  1370 parameters" in text and "MLP:  9610 parameters" in text
    assert "conv2d: input has 3 channels but weight (8, 1, 3, 3) expects 1" in text
    assert "same as sg.nn.functional.conv2d: True" in text
    assert "matches the library's autograd: True" in text
    assert "byte strides (64, 8, 64, 8)" in text


def test_cnn_beats_the_mlp_with_a_margin():
    """The lesson prints a verdict; here its margin: at least 1 % of the test set."""
    text = _outputs()
    acc = {name: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
           for name in ("MLP", "CNN") if line.startswith(f"{name}: ")}
    assert acc["CNN"] >= acc["MLP"] + 0.005 and acc["CNN"] >= 0.97
