"""compile(): caching and retracing, training steps, eager fallbacks, bad input."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import stridegrad as sg
import stridegrad.nn.functional as F
from stridegrad import nn
from stridegrad.compile import CompiledFunction, CompileWarning, Graph, compile
from stridegrad.optim import SGD


def test_decorator_forms_and_counters():
    @compile
    def f(x, y):
        return x * y + 1.0

    @compile(passes=())
    def g(x, y):
        return x * y + 1.0

    assert isinstance(f, CompiledFunction) and f.__name__ == "f"
    x, y = sg.randn(3), sg.randn(3)
    for fn in (f, g):
        np.testing.assert_allclose(fn(x, y).numpy(), (x * y + 1.0).numpy(), rtol=1e-6)
        fn(x, y)
        assert fn.traces == 1 and fn.cache_size == 1
    assert g.graph(x, y).count() == 2 and f.graph(x, y).count() == 1
    assert "traces=1" in repr(f)


def test_retrace_on_new_shape_dtype_and_grad_mode():
    @compile
    def f(x):
        return (x * 2).exp()

    f(sg.randn(3))
    f(sg.randn(3))
    assert f.traces == 1
    f(sg.randn(4))
    assert f.traces == 2 and f.cache_size == 2
    f(sg.randn(4, dtype="float64"))
    assert f.traces == 3
    f(sg.randn(4, requires_grad=True).detach())
    assert f.traces == 3  # same signature as before
    with sg.no_grad():
        f(sg.randn(3))
    assert f.traces == 4
    f(sg.randn(3, device="python"))
    assert f.traces == 5 and f.cache_size == 5


def test_tracing_leaves_tensors_as_they_were():
    w = sg.randn(3, requires_grad=True)
    calls = []

    @compile
    def step(x):
        calls.append(1)
        loss = (x * w).sum()
        loss.backward()
        with sg.no_grad():
            w.add_(w.grad, alpha=-1.0)
        return loss

    before = w.numpy().copy()
    x = sg.randn(3)
    g = step.graph(x)  # traces, runs nothing
    assert len(calls) == 1 and w.grad is None and np.array_equal(w.numpy(), before)
    assert sorted(g.meta["output_labels"]) == ["return", "w", "w.grad"]
    step(x)  # the cached graph runs; fn is not called again
    assert len(calls) == 1
    np.testing.assert_allclose(w.numpy(), before - x.numpy(), rtol=1e-6)


def test_a_failing_trace_leaves_tensors_as_they_were():
    w = sg.randn(3, requires_grad=True)

    @compile
    def step(x):
        (x * w).sum().backward()
        with sg.no_grad():
            w.mul_(2.0)
        raise KeyError("boom")

    before = w.numpy().copy()
    with pytest.raises(KeyError, match="boom"):
        step.graph(sg.randn(3))
    assert w.grad is None and np.array_equal(w.numpy(), before)
    assert type(w._data) is np.ndarray


def _mlp_step(model, opt, manual):
    def step(x, y):
        if manual:
            for p in model.parameters():
                p.grad = None
        else:
            opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        if manual:
            with sg.no_grad():
                for p in model.parameters():
                    p -= 0.05 * p.grad
        else:
            opt.step()
        return loss

    return step


@pytest.mark.parametrize("manual", [True, False], ids=["manual_sgd", "optim_sgd"])
def test_training_step_equals_eager(device, manual):
    models, steps = [], []
    for _ in range(2):
        sg.manual_seed(0)
        m = nn.MLP([4, 16, 16, 1]).to(device)
        models.append(m)
        steps.append(_mlp_step(m, SGD(m.parameters(), lr=0.05), manual))
    eager, compiled = steps[0], compile(steps[1])
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = rng.standard_normal((8, 4)).astype(np.float32)
        y = rng.standard_normal((8, 1)).astype(np.float32)
        le = eager(sg.tensor(x, device=device), sg.tensor(y, device=device))
        lc = compiled(sg.tensor(x, device=device), sg.tensor(y, device=device))
        np.testing.assert_allclose(lc.item(), le.item(), rtol=1e-6)
        assert not lc.requires_grad
        for pe, pc in zip(models[0].parameters(), models[1].parameters()):
            np.testing.assert_allclose(pc.numpy(), pe.numpy(), rtol=1e-5, atol=1e-7)
            np.testing.assert_allclose(pc.grad.numpy(), pe.grad.numpy(), rtol=1e-5, atol=1e-7)
    # opt.zero_grad() reads p.grad, so "grad is None" is a guard: the second call (grads
    # set by the first) traces once more; after that the graphs are reused
    assert compiled.traces == (1 if manual else 2) and compiled.fallbacks == 0
    g = compiled.graph(sg.tensor(x, device=device), sg.tensor(y, device=device))
    text = str(g)
    assert "0.weight.grad <-" in text and "0.weight <-" in text  # the effects, by name


def test_gradients_accumulate_across_calls():
    w = sg.randn(3, requires_grad=True)

    @compile
    def f(x):
        (x * w).sum().backward()
        return w.grad

    x = sg.randn(3)
    f(x)  # first: grad was None
    g1 = w.grad.numpy().copy()
    f(x)  # grad exists now: a guard fails, so it traces again with accumulation
    np.testing.assert_allclose(w.grad.numpy(), 2 * g1, rtol=1e-6)
    f(x)
    np.testing.assert_allclose(w.grad.numpy(), 3 * g1, rtol=1e-6)
    assert f.traces == 2


def test_input_gradients_and_nested_outputs():
    @compile
    def f(x, y):
        z = (x * y).tanh()
        z.sum().backward()
        return {"z": z.detach(), "pair": (x, None, 3)}

    x, y = sg.randn(4, requires_grad=True), sg.randn(4)
    out = f(x, y)
    assert out["pair"][0] is x and out["pair"][1:] == (None, 3)
    t = np.tanh(x.numpy() * y.numpy())
    np.testing.assert_allclose(out["z"].numpy(), t, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), (1 - t * t) * y.numpy(), rtol=1e-5)


FALLBACKS = {
    "item": (lambda x: x * 2 if x.sum().item() > 0 else x * 3, r"Tensor\.item\(\)"),
    "bool": (lambda x: x * 2 if x.sum() > 0 else x * 3, r"bool\(tensor\)"),
    "numpy": (lambda x: sg.tensor(x.numpy() * 2), r"Tensor\.numpy\(\)"),
    "float": (lambda x: x * float(x.max()), r"float\(tensor\)"),
    "random": (lambda x: x + sg.randn(3), r"random numbers"),
    "print": (lambda x: print(x) or x, r"printing a tensor"),
    "returns_array": (lambda x: x._data, r"returning a raw array"),
}


@pytest.mark.parametrize("name", sorted(FALLBACKS))
def test_data_dependent_code_falls_back_to_eager(name, capsys):
    fn, reason = FALLBACKS[name]
    compiled = compile(fn)
    x = sg.tensor([1.0, -2.0, 4.0])
    with pytest.warns(CompileWarning, match=reason) as record:
        out = compiled(x)
    assert "test_compile_api.py" in str(record[0].message)  # where it happened
    assert record[0].filename == __file__  # the warning points at the caller
    sg.manual_seed(0)
    want = fn(x)
    if name == "random":
        assert out.shape == want.shape
    elif name == "returns_array":
        np.testing.assert_array_equal(np.asarray(out), np.asarray(want))
    else:
        np.testing.assert_allclose(out.numpy(), want.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning per signature, then quietly eager
        compiled(sg.tensor([3.0, 1.0, 0.5]))
    assert compiled.fallbacks == 1 and compiled.cache_size == 0
    assert len(compiled.explain()) == 1
    with pytest.raises(RuntimeError, match="not captured"):
        compiled.graph(x)


def test_cross_entropy_step_compiles_and_equals_eager(device):
    """The label-range check of cross_entropy reads values into Python; under compile it
    runs on the real labels before each replay, so a classifier step is captured."""
    models, steps = [], []
    for _ in range(2):
        sg.manual_seed(0)
        m = nn.MLP([4, 8, 3]).to(device)
        opt = SGD(m.parameters(), lr=0.1)

        def step(x, t, m=m, opt=opt):
            opt.zero_grad()
            loss = F.cross_entropy(m(x), t)
            loss.backward()
            opt.step()
            return loss

        models.append(m)
        steps.append(step)
    eager, compiled = steps[0], compile(steps[1])
    rng = np.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileWarning)
        for _ in range(3):
            x = rng.standard_normal((6, 4)).astype(np.float32)
            t = rng.integers(0, 3, size=6)
            le = eager(sg.tensor(x, device=device), sg.tensor(t, device=device))
            lc = compiled(sg.tensor(x, device=device), sg.tensor(t, device=device))
            np.testing.assert_allclose(lc.item(), le.item(), rtol=1e-6)
            for pe, pc in zip(models[0].parameters(), models[1].parameters()):
                np.testing.assert_allclose(pc.numpy(), pe.numpy(), rtol=1e-5, atol=1e-7)
                np.testing.assert_allclose(pc.grad.numpy(), pe.grad.numpy(),
                                           rtol=1e-5, atol=1e-7)
    assert compiled.fallbacks == 0 and compiled.cache_size >= 1
    g = compiled.graph(sg.tensor(x, device=device), sg.tensor(t, device=device))
    assert ".grad <- " in str(g)  # the step's gradients and updates are graph outputs


def test_cross_entropy_still_checks_labels_in_eager_mode():
    logits = sg.randn(3, 4, requires_grad=True)
    for bad in ([0, 4, 1], [0, -1, 2]):
        with pytest.raises(IndexError, match="out of range for 4 classes"):
            F.cross_entropy(logits, sg.tensor(bad))
    F.cross_entropy(logits, sg.tensor([0, 3, 1])).backward()  # in range: fine
    assert logits.grad.shape == (3, 4)


def test_forward_that_requires_grad_falls_back():
    model = nn.Linear(4, 2)
    fwd = compile(lambda x: model(x))
    with pytest.warns(CompileWarning, match="never calls backward"):
        fwd(sg.randn(3, 4))
    with sg.no_grad(), warnings.catch_warnings():  # inference: captured
        warnings.simplefilter("error")
        out = fwd(sg.randn(3, 4))
    assert out.shape == (3, 2) and fwd.cache_size == 1


def test_untraceable_but_valid_code_falls_back():
    @compile
    def f(x):
        return sg.tensor(np.cumsum(np.ones(3), dtype=np.float32)) + x  # fine, constant

    f(sg.randn(3))
    assert f.fallbacks == 0


def test_user_errors_propagate_unchanged():
    @compile
    def f(x, y):
        return x + y

    with pytest.raises(ValueError, match=r"\(3,\) and \(4,\)"):
        f(sg.randn(3), sg.randn(4))
    assert f.fallbacks == 0


@pytest.mark.parametrize("bad, kind", [(3.0, "float"), ([1.0], "list"),
                                       (np.ones(3), "ndarray"), (None, "NoneType")])
def test_non_tensor_arguments_are_named(bad, kind):
    @compile
    def f(x, lr):
        return x * lr

    with pytest.raises(TypeError, match=rf"argument 'lr' is a {kind}, not a Tensor"):
        f(sg.randn(3), bad)
    with pytest.raises(TypeError, match=r"argument 'lr' is a"):
        f(sg.randn(3), lr=bad)
    with pytest.raises(TypeError, match="missing a required argument"):
        f(sg.randn(3))
    with pytest.raises(TypeError, match="expects a callable"):
        compile(3)


def test_same_tensor_twice_is_refused():
    f = compile(lambda a, b: a + b)
    x = sg.randn(3)
    with pytest.raises(ValueError, match="passed twice"):
        f(x, x)


def test_escaped_tracer_is_a_clear_error():
    store = []

    @compile
    def f(x):
        y = x * 2
        store.append(y)
        return y

    x = sg.randn(3)
    with sg.no_grad():
        f(x)
    with pytest.raises(RuntimeError, match="escaped"):
        store[0] + 1


def test_compiled_inside_compiled_is_inlined():
    inner = compile(lambda x: x.exp())
    outer = compile(lambda x: inner(x) * 2)
    x = sg.randn(3)
    np.testing.assert_allclose(outer(x).numpy(), (x.exp() * 2).numpy(), rtol=1e-6)
    assert inner.traces == 0 and outer.traces == 1


def test_graph_returns_ir_and_draws():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    from stridegrad.viz.ir import ir_layout

    f = compile(lambda x, y, b: x * y + b)
    args = sg.randn(2, 3), sg.randn(2, 3), sg.randn(3)
    g = f.graph(*args)
    assert isinstance(g, Graph) and f.traces == 1
    raw = f.graph(*args, optimized=False)
    assert raw.count() == 2 and g.count() == 1
    boxes, edges = ir_layout(raw)
    assert [b.kind for b in boxes] == ["placeholder"] * 3 + ["op", "op"]
    assert [b.column for b in boxes] == [0, 0, 0, 1, 2] and boxes[-1].output
    assert sorted(edges) == [(0, 3), (1, 3), (2, 4), (3, 4)]
    fig = g.draw()
    assert sum(isinstance(p, FancyBboxPatch) for p in fig.axes[0].patches) == 4
    plt.close(fig)


# Each snippet runs in a fresh interpreter: the import order is the point.
_SG_COMPILE_CHECKS = """
import importlib, inspect, types
import stridegrad as sg
{first}
from stridegrad.compile import CompiledFunction, compile, passes
from stridegrad.compile.ir import Graph
package = importlib.import_module("stridegrad.compile")
assert isinstance(package, types.ModuleType) and package.__path__, package
assert package.compile is compile and package.passes is passes and package.Graph is Graph
assert sg.compile is compile, sg.compile
assert inspect.isfunction(sg.compile) and not callable(package)
assert "passes" in inspect.signature(sg.compile).parameters
f = sg.compile(lambda x: x * 2)
g = sg.compile(passes=())(lambda x: x * 2)
assert isinstance(f, CompiledFunction) and g.passes == ()
assert f(sg.ones(2)).tolist() == [2.0, 2.0] == g(sg.ones(2)).tolist()
"""


@pytest.mark.parametrize("first", [
    "",  # sg.compile looked up before anything imported the package
    "import stridegrad.compile",  # the import system binds the loaded package on stridegrad
    "import stridegrad.compile.passes\nimport stridegrad.compile.trace",
    "from stridegrad.compile import trace\nsg.compile(lambda x: x)(sg.ones(1))",
])
def test_sg_compile_is_the_function_and_the_package_stays_importable(first):
    """``sg.compile`` is PyTorch's function (no callable module, as ``sg.tensor``);
    ``stridegrad.compile`` is still the package for ``importlib`` and ``from ... import``."""
    code = _SG_COMPILE_CHECKS.format(first=first)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_help_on_sg_compile_shows_the_function():
    code = "import stridegrad as sg, pydoc; print(pydoc.render_doc(sg.compile, renderer=pydoc.plaintext))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "function compile in module stridegrad.compile.api" in run.stdout
    assert "trace on first call" in run.stdout
    assert "Beyond eager" not in run.stdout  # the package's docs are not shown


@pytest.mark.parametrize("make", [lambda ps: SGD(ps, lr=0.1, momentum=0.9),
                                  lambda ps: sg.optim.Adam(ps, lr=0.01)],
                         ids=["momentum", "adam"])
def test_stateful_optimizers_fall_back_and_match_eager(make):
    models = []
    for _ in range(2):
        sg.manual_seed(0)
        models.append(nn.Linear(3, 1))
    opts = [make(list(m.parameters())) for m in models]

    def make_step(model, opt):
        def step(x):
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()

        return step

    eager, compiled = make_step(models[0], opts[0]), compile(make_step(models[1], opts[1]))
    x = sg.randn(4, 3)
    with pytest.warns(CompileWarning, match="keeps arrays in its state"):
        compiled(x)
    eager(x)
    for _ in range(2):
        compiled(x)
        eager(x)
    assert opts[1].steps == opts[0].steps == 3
    for pe, pc in zip(models[0].parameters(), models[1].parameters()):
        np.testing.assert_allclose(pc.numpy(), pe.numpy(), rtol=1e-6)


def test_a_compiled_step_still_rejects_out_of_range_labels_and_changes_nothing(device):
    sg.manual_seed(0)
    m = nn.MLP([4, 8, 3]).to(device)
    opt = SGD(m.parameters(), lr=0.1)

    @compile
    def step(x, t):
        opt.zero_grad()
        loss = F.cross_entropy(m(x), t)
        loss.backward()
        opt.step()
        return loss

    x = sg.tensor(np.ones((3, 4), dtype=np.float32), device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileWarning)
        for labels in ([0, 2, 1], [1, 1, 0], [2, 0, 1]):  # traces (grad None, then set), replays
            step(x, sg.tensor(labels, device=device))
    traces = step.traces
    before = [p.numpy().copy() for p in m.parameters()]
    for bad, label in (([0, 3, 1], 3), ([-1, 0, 0], -1)):
        with pytest.raises(IndexError, match=f"label {label} is out of range for 3 classes"):
            step(x, sg.tensor(bad, device=device))
    for b, p in zip(before, m.parameters()):  # the rejected steps wrote nothing
        np.testing.assert_array_equal(p.numpy(), b)
    assert step.traces == traces and step.fallbacks == 0  # rejected on replay, not retraced


def test_a_label_check_on_a_computed_array_falls_back_to_eager(device):
    logits = sg.randn(3, 4, device=device)

    @compile
    def loss_of(t):
        return F.cross_entropy(logits, t + 1)  # labels computed inside: checked eagerly

    with pytest.warns(CompileWarning, match="value check on a computed array"):
        assert np.isfinite(loss_of(sg.tensor([0, 1, 2], device=device)).item())
    with pytest.raises(IndexError, match="label 4 is out of range"):
        loss_of(sg.tensor([0, 3, 1], device=device))
