"""Checkpoint 09 (the training loop): the reference passes every test, the
reference agrees with the library, and known-wrong implementations fail."""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
from stridegrad import optim
from stridegrad.nn import functional as F
from stridegrad.course.build import build_lesson, reference_namespace
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


def test_the_solution_cell_of_linear_counts_as_the_learners_own():
    """The solution notebook's Linear cell (the library's class, copied by the build),
    run as a notebook cell after the setup cell's imports, is credited (defined in
    __main__); the library's class itself is not the learner's."""
    built = build_lesson(find_lesson(ROOT, "09"), execute=False)
    assert built.exercises["Linear"].target == "stridegrad.nn.modules:Linear"
    cell = define(built.setup.replace("from stridegrad.course import check, hint\n", "")
                  + "\n\n" + built.exercises["Linear"].solution)
    result = run_checkpoint(CHECKPOINT, cell, exercise="Linear")
    assert result.passed, result
    assert not run_checkpoint(CHECKPOINT, {"Linear": sg.nn.Linear}, exercise="Linear").passed


def test_linear_is_the_librarys_and_every_layer_of_the_library_is_built_with_it():
    """sg.nn.Linear is read from stridegrad.nn.modules at each lookup, so that setting
    modules.Linear (as `stridegrad yours` does) changes what nn.MLP, the CNN and the
    lesson 09 milestone's net are built of; isinstance against sg.nn.Linear still works."""
    from stridegrad.nn import modules
    from stridegrad.train import cnn

    original = modules.Linear

    class Counted(original):
        made = 0

        def __init__(self, *args, **kwargs):
            type(self).made += 1
            super().__init__(*args, **kwargs)

    assert sg.nn.Linear is original and "Linear" in dir(sg.nn)
    modules.Linear = Counted
    try:
        assert sg.nn.Linear is Counted
        mlp, net = sg.nn.MLP([4, 3, 2]), cnn((4, 4, 10), 8)
        assert Counted.made == 3
        assert isinstance(mlp[0], sg.nn.Linear) and isinstance(net[-1], sg.nn.Linear)
    finally:
        modules.Linear = original
    assert sg.nn.Linear is original and isinstance(mlp[0], sg.nn.Linear)


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
    assert failing == {"sgd_weight_decay", "sgd_momentum_with_weight_decay",
                       "sgd_step_on_generated_inputs"}


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
    assert [r.test for r in result.rows if not r.passed] == ["sgd_momentum_leaves_grads_alone",
                                                              "sgd_step_on_generated_inputs"]


# ------------------------------------------------------------------ reference vs library


def test_the_library_exercises_are_the_librarys_own_functions():
    """One implementation: the lesson's solutions module imports them from the library."""
    from stridegrad.course.solutions import ep09

    assert (ep09.log_softmax, ep09.nll_loss) == (F.log_softmax, F.nll_loss)
    assert (ep09.sgd_step, ep09.adam_step) == (optim.sgd_step, optim.adam_step)
    assert CHECKPOINT.reference == "stridegrad.nn.functional"


def test_log_softmax_and_nll_loss_make_the_librarys_cross_entropy():
    """The fused cross_entropy (its own node) and the two exercises agree."""
    sg.manual_seed(0)
    x = (sg.randn(6, 4) * 50).requires_grad_()
    t = np.array([0, 3, 1, 2, 2, 0])
    ours = F.nll_loss(F.log_softmax(x), t)
    ours.backward()
    g_ours = x.grad.numpy()
    x.grad = None
    theirs = sg.nn.functional.cross_entropy(x, t)
    theirs.backward()
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-5)
    np.testing.assert_allclose(g_ours, x.grad.numpy(), atol=1e-6)


@pytest.mark.parametrize("make, rule, hyper", [
    (lambda p: sg.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01), optim.sgd_step,
     dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    (lambda p: sg.optim.SGD(p, lr=0.05), optim.sgd_step, dict(lr=0.05)),
    (lambda p: sg.optim.Adam(p, lr=0.01), optim.adam_step, dict(lr=0.01)),
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


# ------------------------------------------------------------------ round 2 of the re-test


def _failing(exercise: str, source: str) -> list[str]:
    result = run_checkpoint(CHECKPOINT, define(source), exercise=exercise)
    return [r.test for r in result.rows if not r.passed]


def test_weight_decay_after_momentum_fails_only_the_two_step_test():
    """Right from an empty state: only a second step from the learner's own buffer
    shows that the buffer never saw the decay."""
    ns = define(dict(WRONG_09["sgd_step"])["weight decay added after momentum"])
    rows = run_checkpoint(CHECKPOINT, ns, exercise="sgd_step").rows
    failing = [r for r in rows if not r.passed]
    assert [r.test for r in failing] == ["sgd_momentum_with_weight_decay",
                                         "sgd_step_on_generated_inputs"]
    assert failing[0].call.startswith("sgd_step([1.88], [1.0], state,")
    assert "before" in failing[0].diagnosis and failing[0].hint == ""


def test_weight_decay_added_into_the_callers_grad_is_caught():
    src = dict(WRONG_09["sgd_step"])["adds weight decay into the caller's grad"]
    assert _failing("sgd_step", src) == ["sgd_weight_decay_leaves_grad_alone",
                                         "sgd_step_on_generated_inputs"]


def test_a_mask_divided_by_n_times_c_is_told_apart_from_the_mean_of_everything():
    known = dict(WRONG_09["nll_loss"])
    masked = _failing("nll_loss", known["masks right but divides by N * C"])
    everything = _failing("nll_loss", known["mean over all N * C entries"])
    assert "nll_loss_uniform_rows_cost_log_c" in masked
    assert "nll_loss_uniform_rows_cost_log_c" not in everything
    rows = run_checkpoint(CHECKPOINT, define(known["masks right but divides by N * C"]),
                          exercise="nll_loss").rows
    assert all("C times too small" in r.diagnosis for r in rows if not r.passed)


@pytest.mark.parametrize("label, failing", [
    ("draws from [0, 2k): forgets to shift", ["linear_init_bound", "linear_init_centred"]),
    ("draws from [0, k)", ["linear_init_spread", "linear_init_centred"]),
    ("random normal init with std 1", ["linear_init_bound", "linear_init_spread"]),
    ("zeros init", ["linear_init_spread"]),
    # bias=False: parameters() lists nothing at all, not the weight alone
    ("plain tensors, not Parameters", ["linear_parameters", "linear_gradients_reach_parameters",
                                       "linear_without_bias"]),
])
def test_each_wrong_init_fails_its_own_init_tests(label, failing):
    assert _failing("Linear", dict(WRONG_09["Linear"])[label]) == [
        *failing, "Linear_on_generated_inputs"]


def test_a_wrong_init_with_a_second_mistake_keeps_the_init_hint():
    """[0, 2k) and a transposed forward at once: no single known mistake, but the init
    rows keep their hints, which are about the init (not 'which way round is weight')."""
    src = dict(WRONG_09["Linear"])["draws from [0, 2k): forgets to shift"].replace(
        "x @ self.weight.T", "x @ self.weight")
    rows = {r.test: r for r in run_checkpoint(CHECKPOINT, define(src), exercise="Linear").rows}
    assert not rows["linear_init_bound"].passed
    assert "shifting" in rows["linear_init_bound"].hint
    assert "middle lands on 0" in rows["linear_init_centred"].hint


def test_a_sign_error_gets_no_hint_about_numpy_targets():
    src = dict(WRONG_09["nll_loss"])["forgets the minus sign"]
    row = run_checkpoint(CHECKPOINT, define(src.replace("np.asarray(targets)", "targets")),
                         exercise="nll_loss").row("nll_loss_numpy_targets")
    assert row.status == "fail" and "np.asarray" not in row.hint


def _lesson_cells() -> list[str]:
    import jupytext
    nb = jupytext.read(find_lesson(ROOT, "09").source)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_the_optimizer_comparison_prints_sgd_before_adam_is_written(capsys):
    """The cell comparing the learner's rules with the library's prints each row as it
    is computed: with sgd_step done and adam_step still the stub, SGD's row shows."""
    cells = _lesson_cells()
    ns = define("""
        import numpy as np
        import stridegrad as sg
        import stridegrad.nn.functional as F
        def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
            raise NotImplementedError("adam_step")
        rng = np.random.default_rng(0)
        x_reg = sg.tensor(rng.uniform(-1, 1, size=(50, 1)).astype(np.float32))
        y_reg = 3 * x_reg - 1
    """, sgd_step=optim.sgd_step)
    for needle in ("class MyOptimizer", "pairs = {"):
        exec(next(c for c in cells if needle in c), ns)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith("SGD") and out[0].endswith("same: True")
    assert out[1].startswith("Adam") and "not written yet" in out[1]


# --------------------------------------------------------------------------- not yours

@pytest.mark.parametrize("source, status", [
    ("import stridegrad as sg\nLinear = sg.nn.Linear\n", "imported"),
    ("from stridegrad.nn import Linear\n", "imported"),
    ("import stridegrad as sg\nclass Linear(sg.nn.Linear):\n    pass\n", "delegates"),
    ("import stridegrad as sg\nfrom stridegrad.nn import Module\n"
     "class Linear(Module):\n    def __init__(self, i, o, bias=True, device=None, dtype=None):\n"
     "        super().__init__()\n        self.inner = sg.nn.Linear(i, o, bias, device, dtype)\n"
     "    def forward(self, x):\n        return self.inner(x)\n", "delegates"),
])
def test_the_librarys_linear_is_not_credited_however_it_is_taken(source, status):
    """Since lesson 09's Linear is the library's nn.Linear, a notebook can take the
    library's class: as an alias, a subclass or a wrapper. The judge reads each from the
    source, and the in-process check notices the library's methods running."""
    from stridegrad.course._judge import not_yours

    checkpoint = load_checkpoint("09")
    assert not_yours([source], checkpoint)["Linear"][0] == status
    result = run_checkpoint(checkpoint, define(source), exercise="Linear")
    assert result.rows and not any(r.passed for r in result.rows)
    assert {r.status for r in result.rows} <= {"imported", "delegates"}
