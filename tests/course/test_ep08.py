"""Checkpoint 08 (tensor autograd): the reference passes every test, the
library's Tensor agrees with the reference, and known-wrong implementations fail."""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
from stridegrad.course import reference
from stridegrad.course.checks import load_checkpoint, run_checkpoint

from .conftest import define
from .wrong import pairs

WRONG_08 = pairs("08")

CHECKPOINT = load_checkpoint("08")


def test_checkpoint_has_the_five_exercises():
    assert CHECKPOINT.exercises == ["unbroadcast", "sum_backward", "max_backward",
                                    "matmul_backward", "numerical_gradient",
                                    "softmax_backward"]
    assert CHECKPOINT.stretch_exercises == ["softmax_backward"]
    assert CHECKPOINT.reference == "stridegrad.course.reference"


def test_reference_passes_every_test():
    result = run_checkpoint(CHECKPOINT, vars(reference), require_local=False)
    assert result.passed, [(r.test, r.message) for r in result.rows if not r.passed]
    assert result.score == result.max_score == CHECKPOINT.max_points


def test_five_hinted_tests_per_exercise():
    for ex in CHECKPOINT.exercises:
        tests = [t for t in CHECKPOINT.tests if t.exercise == ex]
        assert len(tests) >= 5 and all(t.hint for t in tests), ex


def test_every_exercise_has_known_wrong_implementations():
    assert set(WRONG_08) == set(CHECKPOINT.exercises)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("exercise, label, source",
                         [(ex, label, src) for ex, cases in WRONG_08.items()
                          for label, src in cases])
def test_checkpoint_fails_known_wrong_implementation(exercise, label, source):
    result = run_checkpoint(CHECKPOINT, define(source), exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert {r.status for r in result.rows} <= {"pass", "fail", "error"}, result


def test_wrong_unbroadcast_names_the_shapes():
    ns = define(WRONG_08["unbroadcast"][1][1])
    row = run_checkpoint(CHECKPOINT, ns, exercise="unbroadcast").row(
        "unbroadcast_stretched_axis_keeps_its_dim")
    assert row.status == "fail"
    assert "shape (3, 1)" in row.expected and "shape (3,)" in row.got


def _wrong(exercise, label):
    return dict(WRONG_08[exercise])[label]


def test_x_restored_one_ulp_off_shows_the_values_in_full():
    """Restoring x by + eps, - 2 eps, + eps leaves 3.0000000000000004: printed with six
    digits the row would show the same array as expected and got."""
    ns = define(_wrong("numerical_gradient", "restores x by adding the nudges back"))
    row = run_checkpoint(CHECKPOINT, ns, exercise="numerical_gradient").row(
        "numerical_gradient_restores_x")
    assert row.status == "fail"
    assert "3.0000000000000004" in row.got and "was 3.0" in row.got, row.got
    assert row.expected != row.got
    assert "assign it back" in row.diagnosis


def test_a_call_names_the_shape_of_each_array_argument():
    ns = define(_wrong("unbroadcast", "sums everything"))
    row = run_checkpoint(CHECKPOINT, ns, exercise="unbroadcast").row(
        "unbroadcast_stretched_axis_keeps_its_dim")
    assert row.call.startswith("unbroadcast(grad, (3, 1)) with grad of shape (3, 4) = "), row.call


def test_stub_is_reported_as_not_implemented():
    ns = define("def unbroadcast(grad, shape):\n    raise NotImplementedError('sum')\n")
    result = run_checkpoint(CHECKPOINT, ns, exercise="unbroadcast")
    assert {r.status for r in result.rows} == {"stub"}


# ------------------------------------------------------------------ reference vs library


@pytest.mark.parametrize("shape, target", [((2, 3, 4), (3, 1)), ((3, 4), (4,)), ((2, 3), ()),
                                           ((2, 1, 4), (2, 3, 1)), ((5,), (1,))])
def test_unbroadcast_agrees_with_the_engine(shape, target):
    rng = np.random.default_rng(0)
    x = sg.tensor(rng.normal(size=target), requires_grad=True)
    y = sg.tensor(rng.normal(size=shape))
    g = rng.normal(size=np.broadcast_shapes(shape, target))
    (x + y).backward(sg.tensor(g))
    got = reference.unbroadcast(g, target)
    assert np.shape(got) == target
    np.testing.assert_allclose(got, x.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True), (-1, False),
                                            ((0, 2), False), ((0, 2), True)])
def test_sum_and_max_backward_agree_with_the_engine(axis, keepdims):
    rng = np.random.default_rng(1)
    xn = rng.normal(size=(2, 3, 4))
    xn[0, 1, :2] = xn[0, 1].max()  # a tie
    for op in ("sum", "max"):
        if op == "max" and isinstance(axis, tuple):
            continue
        x = sg.tensor(xn, requires_grad=True)
        out = getattr(x, op)(axis=axis, keepdims=keepdims)
        g = rng.normal(size=out.shape)
        out.backward(sg.tensor(g))
        got = (reference.sum_backward(g, xn.shape, axis, keepdims) if op == "sum"
               else reference.max_backward(xn, g, axis, keepdims))
        np.testing.assert_allclose(got, x.grad.numpy(), atol=1e-12)


def test_matmul_backward_and_numerical_gradient_agree():
    rng = np.random.default_rng(2)
    a, b, g = rng.normal(size=(3, 5)), rng.normal(size=(5, 2)), rng.normal(size=(3, 2))
    ga, gb = reference.matmul_backward(a, b, g)
    np.testing.assert_allclose(
        ga, reference.numerical_gradient(lambda v: float(((v @ b) * g).sum()), a.copy()), atol=1e-6)
    np.testing.assert_allclose(
        gb, reference.numerical_gradient(lambda v: float(((a @ v) * g).sum()), b.copy()), atol=1e-6)
