"""Checkpoint 09 (the training loop): the reference passes every test, the
reference agrees with the library, and known-wrong implementations fail."""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
from stridegrad.course import reference
from stridegrad.course.build import reference_namespace
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.course.paths import find_lesson

from .conftest import ROOT, define
from .wrong import pairs

WRONG_09 = pairs("09")

CHECKPOINT = load_checkpoint("09")


@pytest.fixture(scope="module")
def reference_ns():
    return reference_namespace(find_lesson(ROOT, "09"))


def test_checkpoint_has_the_five_exercises():
    assert CHECKPOINT.exercises == ["Linear", "log_softmax", "nll_loss", "sgd_step", "adam_step",
                                    "rmsprop_step"]
    assert CHECKPOINT.stretch_exercises == ["rmsprop_step"]


def test_reference_passes_every_test(reference_ns):
    result = run_checkpoint(CHECKPOINT, reference_ns, require_local=False)
    assert result.passed, [(r.test, r.message) for r in result.rows if not r.passed]
    assert result.score == result.max_score == CHECKPOINT.max_points


def test_the_lessons_linear_counts_as_the_learners_own(reference_ns):
    """The inline Linear, run as a notebook cell, is credited (defined in __main__)."""
    result = run_checkpoint(CHECKPOINT, reference_ns, exercise="Linear")
    assert result.passed, result


def test_five_hinted_tests_per_exercise():
    for ex in CHECKPOINT.exercises:
        tests = [t for t in CHECKPOINT.tests if t.exercise == ex]
        assert len(tests) >= 5 and all(t.hint for t in tests), ex


def test_every_exercise_has_known_wrong_implementations():
    assert set(WRONG_09) == set(CHECKPOINT.exercises)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("exercise, label, source",
                         [(ex, label, src) for ex, cases in WRONG_09.items()
                          for label, src in cases])
def test_checkpoint_fails_known_wrong_implementation(exercise, label, source):
    result = run_checkpoint(CHECKPOINT, define(source), exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert {r.status for r in result.rows} <= {"pass", "fail", "error"}, result


def test_missing_weight_decay_is_caught_by_name():
    ns = define(WRONG_09["sgd_step"][0][1])
    result = run_checkpoint(CHECKPOINT, ns, exercise="sgd_step")
    failing = {r.test for r in result.rows if not r.passed}
    assert failing == {"sgd_weight_decay", "sgd_momentum_with_weight_decay"}


def test_a_later_step_starts_from_the_state_shown_in_its_call():
    """Adam without bias correction is wrong from the first step on; its second-step row
    must not start from that wrong first step while expecting the right one."""
    ns = define(dict(WRONG_09["adam_step"])["no bias correction"])
    row = run_checkpoint(CHECKPOINT, ns, exercise="adam_step").row("adam_second_step")
    assert row.status == "fail"
    assert row.call == ("adam_step([0.9, -1.9], [0.5, 4.0], {'step': 1, 'exp_avg': [0.05, -0.4], "
                        "'exp_avg_sq': [0.00025, 0.016]}, lr=0.1)")
    assert "too large" in row.diagnosis and "too small" not in row.diagnosis


def test_update_rule_calls_are_written_as_python():
    ns = define("""
        def sgd_step(param, grad, state, lr, momentum=0.0, weight_decay=0.0):
            return param
        def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
            return param
        def rmsprop_step(param, grad, state, lr=0.01, alpha=0.99, eps=1e-8):
            return param
    """)
    rows = [r for ex in ("sgd_step", "adam_step", "rmsprop_step")
            for r in run_checkpoint(CHECKPOINT, ns, exercise=ex).rows if r.call]
    assert rows
    for r in rows:
        assert ", )" not in r.call and "state, " not in r.call, r.call
    assert {r.test for r in rows} >= {"adam_default_lr", "rmsprop_two_steps"}
    two = next(r for r in rows if r.test == "rmsprop_two_steps")
    assert two.call == "rmsprop_step([0.9], [0.5], {'square_avg': [0.0025]})"


def test_the_momentum_buffer_may_not_be_the_callers_grad():
    ns = define(dict(WRONG_09["sgd_step"])["the buffer is the caller's grad, updated in place"])
    result = run_checkpoint(CHECKPOINT, ns, exercise="sgd_step")
    assert [r.test for r in result.rows if not r.passed] == ["sgd_momentum_leaves_grads_alone"]


# ------------------------------------------------------------------ reference vs library


def test_log_softmax_and_nll_loss_make_the_librarys_cross_entropy():
    sg.manual_seed(0)
    x = (sg.randn(6, 4) * 50).requires_grad_()
    t = np.array([0, 3, 1, 2, 2, 0])
    ours = reference.nll_loss(reference.log_softmax(x), t)
    ours.backward()
    g_ours = x.grad.numpy()
    x.grad = None
    theirs = sg.nn.functional.cross_entropy(x, t)
    theirs.backward()
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-5)
    np.testing.assert_allclose(g_ours, x.grad.numpy(), atol=1e-6)


@pytest.mark.parametrize("make, rule, hyper", [
    (lambda p: sg.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01), reference.sgd_step,
     dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    (lambda p: sg.optim.SGD(p, lr=0.05), reference.sgd_step, dict(lr=0.05)),
    (lambda p: sg.optim.Adam(p, lr=0.01), reference.adam_step, dict(lr=0.01)),
])
def test_update_rules_match_the_librarys_optimizers(make, rule, hyper):
    rng = np.random.default_rng(0)
    p = sg.tensor(rng.normal(size=(3, 2)), requires_grad=True)
    mine, state = p.numpy().copy(), {}
    opt = make([p])
    for _ in range(5):
        g = rng.normal(size=(3, 2))
        p.grad = sg.tensor(g)
        opt.step()
        mine = rule(mine, g, state, **hyper)
    np.testing.assert_allclose(mine, p.numpy(), rtol=1e-10, atol=1e-12)
