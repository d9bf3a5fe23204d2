"""Checkpoint 08 (tensor autograd): the reference passes every test, the
library's Tensor agrees with the reference, and known-wrong implementations fail."""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
from stridegrad.tensor import rules
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.gradcheck import numerical_gradient

from .conftest import define
from .wrong import pairs

WRONG_08 = pairs("08")

CHECKPOINT = load_checkpoint("08")


def test_checkpoint_has_the_five_exercises():
    assert CHECKPOINT.exercises == ["unbroadcast", "sum_backward", "max_backward",
                                    "matmul_backward", "numerical_gradient",
                                    "softmax_backward"]
    assert CHECKPOINT.stretch_exercises == ["softmax_backward"]
    assert CHECKPOINT.reference == "stridegrad.tensor.rules"
    assert CHECKPOINT.library["numerical_gradient"] == ("stridegrad.gradcheck.numerical_gradient",)


def test_reference_passes_every_test():
    # the backward steps are stridegrad.tensor.rules'; numerical_gradient is gradcheck's
    namespace = {**vars(rules), "numerical_gradient": numerical_gradient}
    result = run_checkpoint(CHECKPOINT, namespace, require_local=False)
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
    got = rules.unbroadcast(g, target)
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
        got = (rules.sum_backward(g, xn.shape, axis, keepdims) if op == "sum"
               else rules.max_backward(xn, g, axis, keepdims))
        np.testing.assert_allclose(got, x.grad.numpy(), atol=1e-12)


def test_matmul_backward_and_numerical_gradient_agree():
    rng = np.random.default_rng(2)
    a, b, g = rng.normal(size=(3, 5)), rng.normal(size=(5, 2)), rng.normal(size=(3, 2))
    ga, gb = rules.matmul_backward(a, b, g)
    np.testing.assert_allclose(
        ga, numerical_gradient(lambda v: float(((v @ b) * g).sum()), a.copy()), atol=1e-6)
    np.testing.assert_allclose(
        gb, numerical_gradient(lambda v: float(((a @ v) * g).sum()), b.copy()), atol=1e-6)


# ------------------------------------------------------------------ round 2 of the re-test


def test_the_row_vector_hint_says_row():
    test = next(t for t in CHECKPOINT.tests if t.name == "unbroadcast_row_vector")
    assert test.hint.startswith("Row vector (1, 4)") and "Column" not in test.hint


def test_matmul_rows_show_small_operands_and_the_expected_shapes_on_an_error():
    ns = define("""
        def matmul_backward(a, b, grad):
            return grad @ b, a.T @ grad
    """)
    rows = {r.test: r for r in run_checkpoint(CHECKPOINT, ns, exercise="matmul_backward").rows}
    err = rows["matmul_backward_matrix_times_column"]
    assert err.status == "error"
    assert "a of shape (2, 3) = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]" in err.call
    assert err.expected == "(grad_a of shape (2, 3), grad_b of shape (3, 1))"
    square = rows["matmul_backward_square_needs_transpose"]
    assert square.call.startswith("matmul_backward(a of shape (2, 2) = [[1.0, 2.0], [3.0, 4.0]], "
                                  "b of shape (2, 2) = [[1.0, 2.0], [0.0, 1.0]], grad of shape "
                                  "(2, 2) = [[1.0, 0.0], [0.0, 1.0]])")


def test_the_docstrings_state_the_whole_contract():
    assert "keepdims" in rules.max_backward.__doc__
    assert "bit for bit" in numerical_gradient.__doc__


def test_the_full_sum_backward_hint_returns_a_view_as_the_lesson_allows():
    from stridegrad.course.hints import ep08
    full = ep08.HINTS["sum_backward"][-1]
    assert "np.broadcast_to(grad, shape)" in full and ".copy()" not in full


def test_the_lesson_shows_max_treated_like_sum_and_keeps_the_matmul_answer_for_later():
    from stridegrad.course.paths import find_lesson

    from .conftest import ROOT
    text = find_lesson(ROOT, "08").source.read_text()
    before_pytorch = text[: text.index("## Where this is in PyTorch")]
    assert "like_sum" in before_pytorch  # the promised known-wrong max, shown in a cell
    assert "grad @ b.T" not in before_pytorch and "should be" not in before_pytorch
