"""Checkpoint 09 (the training loop): ``Linear``, ``log_softmax``, ``nll_loss``,
``sgd_step`` and ``adam_step`` (and the stretch ``rmsprop_step``).

Expected numbers are worked out by hand from each contract (the Adam ones
step by step in the comments), never computed with the library. Each test
needs only the exercise it tests.

Tensors and modules are made where the learner's code lives: the tests of
``Linear``, ``log_softmax`` and ``nll_loss``, and their contracts' scenarios,
hand plain inputs (NumPy arrays, lists, sizes, seeds) to the observations of
``stridegrad.course.observe.ep09`` (through ``in_its_process``), which build the
Tensors, call the exercise and return plain data (values, shapes, gradients,
type names); the expected values and the verdicts are here. The update rules
take NumPy arrays and a dict, and are called as they are, but for a run of calls
that must share one state (``update_steps``: an array kept in it must stay the
caller's own from one call to the next). ``nll_loss``'s contract also passes
targets outside ``[0, C)``, which must raise IndexError.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hypothesis import strategies as st

from stridegrad.course.checkpoints._arrays import same_array
from stridegrad.course.checkpoints._images import images
from stridegrad.course.checkpoints._layouts import call, shapes
from stridegrad.course.checkpoints._arrays import show as _show
from stridegrad.course.checks import CheckFailure, Checkpoint, fail, raised
from stridegrad.course.contracts import Call, Invalid

from stridegrad.course._wire import in_its_process
from stridegrad.course.observe import ep09 as _observe

__all__ = ["checkpoint"]

#: run in the notebook's process when the grader's judge holds a stand-in of the
#: learner's function (observe/ep09.py makes the Tensors and modules, returns plain data)
_linear_seen = in_its_process(_observe._linear_seen)
_log_softmax_seen = in_its_process(_observe._log_softmax_seen)
_nll_loss_seen = in_its_process(_observe._nll_loss_seen)
_linear_made = in_its_process(_observe.linear_made)
_linear_parameters = in_its_process(_observe.linear_parameters)
_linear_forward = in_its_process(_observe.linear_forward)
_linear_seeded_twice = in_its_process(_observe.linear_seeded_twice)
_linear_backward = in_its_process(_observe.linear_backward)
_tensor_call = in_its_process(_observe.tensor_call)
_tensor_gradient = in_its_process(_observe.tensor_gradient)
_update_steps = in_its_process(_observe.update_steps)

# log_softmax and nll_loss are stridegrad.nn.functional's, sgd_step and adam_step
# stridegrad.optim's: a notebook that calls the library's own gets no credit
checkpoint = Checkpoint("09_training_loop", "the training loop",
                        reference="stridegrad.nn.functional",
                        library={"sgd_step": ("stridegrad.optim.sgd_step",),
                                 "adam_step": ("stridegrad.optim.adam_step",)})


# ------------------------------------------------------------------ helpers


def _same(call: str, got: Any, expected: Any, atol: float = 1e-5, rtol: float = 1e-5) -> None:
    same_array(call, got, expected, atol=atol, rtol=rtol)


def _call(call: str, fn, *args, **kwargs):
    """Run the learner's code; an exception becomes an 'error' row naming ``call``."""
    try:
        return fn(*args, **kwargs)
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise CheckFailure(call, "no error", raised(exc),
                           kind="error") from exc


def _t(data):
    """The values of a float32 Tensor, which the observation makes where the learner's
    function lives."""
    return np.asarray(data, dtype=np.float32)


def _returned(call: str, fn, arrays: list, *rest):
    """What ``fn(*tensors, *rest)`` returned, a Tensor's values as an array (the Tensors
    made of ``arrays`` where ``fn`` lives); an exception becomes a row naming ``call``."""
    return _call(call, _tensor_call, fn, arrays, rest)["returned"]


# ------------------------------------------------------------------ Linear


@checkpoint.test("Linear", hint="PyTorch's layout: weight has shape (out_features, "
                                "in_features), bias has shape (out_features,).")
def linear_shapes(Linear):
    seen = _call("Linear(4, 3)", _linear_made, Linear, 4, 3)
    w, b = seen["weight"], seen["bias"]
    if not w["present"] or not b["present"]:
        fail("Linear(4, 3) has .weight and .bias", "both",
             f"weight={_show(w['values'])}, bias={_show(b['values'])}")
    if w["shape"] != (3, 4) or b["shape"] != (3,):
        fail("Linear(4, 3): weight.shape, bias.shape", "(3, 4), (3,)",
             f"{w['shape']}, {b['shape']}")


@checkpoint.test("Linear", hint="Wrap both in Parameter(...) and assign them as attributes: "
                                "Module then lists them in parameters().")
def linear_parameters(Linear):
    _call("Linear(4, 3)", _linear_made, Linear, 4, 3)
    seen = _call("list(Linear(4, 3).parameters())", _linear_parameters, Linear, 4, 3)
    w, b = seen["weight"], seen["bias"]
    if not (w["is a Parameter"] and b["is a Parameter"]):
        fail("types of weight and bias", "Parameter, Parameter", f"{w['type']}, {b['type']}")
    listed = seen["parameters()"]
    if len(listed) != 2 or "weight" not in listed or "bias" not in listed:
        fail("list(Linear(4, 3).parameters())", "[weight, bias]",
             _show(seen["parameters() values"]))


@checkpoint.test("Linear", hint="forward(x) is x @ weight.T + bias: with weight "
                                "[[1, 2], [3, 4]] the first row [1, 1] gives [3, 7] + bias.")
def linear_forward_values(Linear):
    _call("Linear(2, 2)", _linear_made, Linear, 2, 2)
    out = _call("lin(x)", _linear_forward, Linear, 2, 2, _t([[1.0, 1.0], [0.0, 2.0]]),
                weight=_t([[1.0, 2.0], [3.0, 4.0]]), bias=_t([0.5, -1.0]))["returned"]
    _same("Linear(2, 2) with weight [[1, 2], [3, 4]], bias [0.5, -1] on x = [[1, 1], [0, 2]]",
          out, [[3.5, 6.0], [4.5, 7.0]])


@checkpoint.test("Linear", hint="A batch of 7 rows of 3 features gives 7 rows of 2 outputs.")
def linear_batch_shape(Linear):
    _call("Linear(3, 2)", _linear_made, Linear, 3, 2, seed=0)
    seen = _call("Linear(3, 2)(x of shape (7, 3))", _linear_forward, Linear, 3, 2,
                 np.ones((7, 3), dtype=np.float32), seed=0)
    if (seen["shape"] or ()) != (7, 2):
        fail("Linear(3, 2)(x of shape (7, 3)).shape", (7, 2),
             seen["shape"] if seen["shape"] is not None else seen["returned"])


def _init_values(Linear):
    """weight and bias of a seeded Linear(100, 50), as NumPy arrays (k = 0.1)."""
    seen = _call("Linear(100, 50)", _linear_made, Linear, 100, 50, seed=0)
    return seen["weight"]["values"], seen["bias"]["values"]


@checkpoint.test("Linear", hint="Every weight and bias lies in [-k, k], k = 1/sqrt(in_features) "
                                "= 0.1 for 100 inputs: randn (std 1) goes far past it, and "
                                "stretching rand to [0, 2k) without shifting it down by k "
                                "reaches 2k.",
                 hint_for=("random normal init with std 1", "draws from [0, 2k): forgets to shift"))
def linear_init_bound(Linear):
    w, b = _init_values(Linear)
    big = float(max(np.abs(w).max(), np.abs(b).max()))
    if big > 0.1 + 1e-6:
        fail("largest |weight| or |bias| of Linear(100, 50)", "<= 1/sqrt(100) = 0.1", big)


@checkpoint.test("Linear", hint="Uniform on [-k, k] spreads with standard deviation k/sqrt(3), "
                                "0.058 for k = 0.1: zeros do not spread at all, [0, k) is half "
                                "as wide (0.029), randn is 17 times too wide.",
                 hint_for=("random normal init with std 1", "zeros init", "draws from [0, k)"))
def linear_init_spread(Linear):
    w, _ = _init_values(Linear)
    if not 0.04 < float(w.std()) < 0.075:
        fail("standard deviation of Linear(100, 50).weight", "about 0.1/sqrt(3) = 0.058",
             round(float(w.std()), 4))


@checkpoint.test("Linear", hint="[-k, k] is centred on 0: about half the weights are negative. "
                                "sg.rand is in [0, 1): after stretching, shift it so that its "
                                "middle lands on 0.",
                 hint_for=("draws from [0, 2k): forgets to shift", "draws from [0, k)"))
def linear_init_centred(Linear):
    w, b = _init_values(Linear)
    # 5,000 (50) draws: their mean is within 0.2 (0.6) standard deviations of the
    # interval's middle, by a wide margin, when the middle is 0
    for name, a, within in (("weight", w, 0.2), ("bias", b, 0.6)):
        mean, std = float(a.mean()), float(a.std())
        if abs(mean) > within * std + 1e-12:
            fail(f"mean of Linear(100, 50).{name}",
                 f"about 0 (within {within} standard deviations, {within * std:.4f})",
                 round(mean, 4))


@checkpoint.test("Linear", hint="Draw the initial values with sg.rand (or sg.randn) so that "
                                "sg.manual_seed makes them reproducible.",
                 hint_for=("NumPy's unseeded generator",))
def linear_init_is_seeded(Linear):
    if not _call("Linear(3, 2)", _linear_seeded_twice, Linear, 3, 2, 3):
        fail("two Linear(3, 2) after sg.manual_seed(3)", "the same weights", "different weights")


@checkpoint.test("Linear", hint="weight and bias must be leaves (Parameters made from the "
                                "finished numbers) and forward must use them with Tensor ops: "
                                "d(sum)/dW is then the column sums of x.",
                 hint_for=("weights are the result of an op, not leaves",))
def linear_gradients_reach_parameters(Linear):
    made = _call("Linear(3, 2)", _linear_made, Linear, 3, 2, seed=0)
    for name in ("weight", "bias"):
        fn = made[name]["grad_fn"]
        if fn is not None:  # the result of an op: backward passes through it, stores nothing
            fail(f"Linear(3, 2).{name}.grad_fn", "None (a leaf tensor: a Parameter)",
                 f"{fn} (not a leaf: {name} is the result of an operation, and backward "
                 "fills .grad only on leaves)")
    seen = _call("Linear(3, 2)(ones(5, 3)).sum().backward()", _linear_backward, Linear, 3, 2,
                 np.ones((5, 3), dtype=np.float32), 0)
    w_grad, b_grad = seen["weight"]["grad"], seen["bias"]["grad"]
    if w_grad is None or b_grad is None:
        fail("weight.grad, bias.grad after backward", "both set",
             f"{_show(w_grad)}, {_show(b_grad)}")
    _same("weight.grad after Linear(3, 2)(ones(5, 3)).sum().backward()", w_grad,
          np.full((2, 3), 5.0))
    _same("bias.grad after Linear(3, 2)(ones(5, 3)).sum().backward()", b_grad, [5.0, 5.0])


@checkpoint.test("Linear", hint="With bias=False there is no bias: set self.bias = None "
                                "(Module registers only Parameters, so parameters() then "
                                "lists the weight alone) and add nothing in forward.",
                 hint_for=("ignores bias=False", "adds a bias of None"))
def linear_without_bias(Linear):
    seen = _call("Linear(3, 2, bias=False)", _linear_parameters, Linear, 3, 2,
                 {"bias": False})
    if seen["bias"]["present"]:
        fail("Linear(3, 2, bias=False).bias", None,
             f"a {seen['bias']['type']} of shape {seen['bias']['shape']}")
    if seen["parameters()"] != ["weight"]:
        fail("list(Linear(3, 2, bias=False).parameters())", "[weight]",
             "[" + ", ".join(seen["parameters()"]) + "]")
    out = _call("Linear(2, 2, bias=False)(x)", _linear_forward, Linear, 2, 2,
                _t([[1.0, 1.0], [0.0, 2.0]]), weight=_t([[1.0, 2.0], [3.0, 4.0]]),
                options={"bias": False})["returned"]
    _same("Linear(2, 2, bias=False) with weight [[1, 2], [3, 4]] on x = [[1, 1], [0, 2]]",
          out, [[3.0, 7.0], [4.0, 8.0]])


@checkpoint.test("Linear", hint="device= and dtype= say where and of which dtype the "
                                "Parameters are: pass them on to sg.rand(..., device=device, "
                                "dtype=dtype) for the weight and for the bias.",
                 hint_for=("ignores device and dtype",))
def linear_device_and_dtype(Linear):
    call = "Linear(3, 2, device='python', dtype='float64')"
    seen = _call(call, _linear_made, Linear, 3, 2, options={"device": "python",
                                                            "dtype": "float64"})
    for name in ("weight", "bias"):
        part = seen[name]
        if (part["device"], part["dtype"]) != ("python", "float64"):
            fail(f"{call}.{name}: device, dtype", "python, float64",
                 f"{part['device']}, {part['dtype']}" if part["present"] else "missing")


# The contract of Linear is a scenario (observe/ep09.py's _linear_seen says what it
# looks at); log_softmax's and nll_loss's are scenarios of their Tensors too.
checkpoint.contract("Linear", scenario=_linear_seen, cases=16, valid=st.tuples(
    st.integers(1, 4), st.integers(1, 4)).map(lambda io: call(*io)))


# ------------------------------------------------------------------ log_softmax


@checkpoint.test("log_softmax", hint="x - log(sum(exp(x))) along the last axis: "
                                     "log(e + e^2 + e^3) = 3.4076.")
def log_softmax_values(log_softmax):
    out = _returned("log_softmax([[1, 2, 3]])", log_softmax, [_t([[1.0, 2.0, 3.0]])])
    _same("log_softmax([[1, 2, 3]])", out, [[-2.40760596, -1.40760596, -0.40760596]])


@checkpoint.test("log_softmax", hint="exp(1000) overflows to inf: subtract each row's max "
                                     "first, then [0, -1000] is exact.",
                 hint_for=("naive, no max subtracted",))
def log_softmax_large_logits(log_softmax):
    out = _returned("log_softmax([[1000, 0]])", log_softmax, [_t([[1000.0, 0.0]])])
    _same("log_softmax([[1000, 0]])", out, [[0.0, -1000.0]], atol=1e-3)


@checkpoint.test("log_softmax", hint="exp(-1000) underflows to 0 and log(0) is -inf: shift "
                                     "by the max, which makes the largest entry 0.",
                 hint_for=("naive, no max subtracted",))
def log_softmax_very_negative_logits(log_softmax):
    out = _returned("log_softmax([[-1000, -1001]])", log_softmax, [_t([[-1000.0, -1001.0]])])
    _same("log_softmax([[-1000, -1001]])", out, [[-0.31326169, -1.31326169]], atol=1e-4)


@checkpoint.test("log_softmax", hint="Each row on its own: reduce over axis=-1 with "
                                     "keepdims=True so the (N, 1) result lines up with x.")
def log_softmax_rows_are_independent(log_softmax):
    out = _returned("log_softmax([[1, 2], [10, 30]])", log_softmax, [_t([[1.0, 2.0], [10.0, 30.0]])])
    _same("log_softmax([[1, 2], [10, 30]])", out, [[-1.31326169, -0.31326169], [-20.0, 0.0]],
          atol=1e-4)


@checkpoint.test("log_softmax", hint="Shift each row by its OWN max: shifted by 1000, the row "
                                     "[0, -1] underflows to exp = 0 and its log to inf. Both "
                                     "rows give -0.3133, -1.3133.",
                 hint_for=("shifts by the max of the whole batch",))
def log_softmax_each_row_its_own_shift(log_softmax):
    out = _returned("log_softmax([[1000, 999], [0, -1]])", log_softmax,
                    [_t([[1000.0, 999.0], [0.0, -1.0]])])
    _same("log_softmax([[1000, 999], [0, -1]])", out,
          [[-0.31326169, -1.31326169], [-0.31326169, -1.31326169]], atol=1e-3)


@checkpoint.test("log_softmax", hint="Equal logits in a row of 3 give -log(3) = -1.0986 for "
                                     "every entry, whatever the common value.")
def log_softmax_uniform_rows(log_softmax):
    out = _returned("log_softmax([[0, 0, 0], [5, 5, 5]])", log_softmax,
                    [_t([[0.0, 0.0, 0.0], [5.0, 5.0, 5.0]])])
    _same("log_softmax([[0, 0, 0], [5, 5, 5]])", out, np.full((2, 3), -1.09861229))


@checkpoint.test("log_softmax", hint="Use Tensor methods only (max, exp, sum, log, -): a NumPy "
                                     "detour or .detach() cuts the graph. d logp_0 / dx = "
                                     "onehot - softmax = [0.5, -0.5].",
                 hint_for=("through NumPy (no gradient)",))
def log_softmax_gradient(log_softmax):
    (grad,) = _call("(log_softmax(x) * [[1, 0]]).sum().backward() at x = [[0, 0]]",
                    _tensor_gradient, log_softmax, [_t([[0.0, 0.0]])], (), _t([[1.0, 0.0]]))
    _same("x.grad after (log_softmax(x) * [[1, 0]]).sum().backward() at x = [[0, 0]]", grad,
          [[0.5, -0.5]])


@st.composite
def _logits(draw):
    """Logits of shape (..., C): 0 to 3 leading axes of sizes 1 to 3 (leading sizes and C
    often unequal), C from 1 to 5; each row on its own scale (around 0, +1000, -1000,
    or spread by 100), with ties and all-equal rows; float64 or float32 (every value
    exact in both)."""
    shape = tuple(draw(st.lists(st.integers(1, 3), max_size=3))) + (draw(st.integers(1, 5)),)
    rows, c = int(np.prod(shape[:-1])), shape[-1]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    values = rng.integers(-16, 17, size=(rows, c)) / 8.0
    for r in range(rows):
        kind = draw(st.sampled_from(["plain", "high", "low", "spread", "ties", "equal"]))
        if kind == "high":
            values[r] += 1000.0
        elif kind == "low":
            values[r] -= 1000.0
        elif kind == "spread":
            values[r] *= 100.0
        elif kind == "ties":
            values[r] = np.round(values[r] / 2)
        elif kind == "equal":
            values[r] = values[r, 0]
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    return call(values.reshape(shape).astype(dtype))


checkpoint.contract("log_softmax", valid=_logits(), scenario=_log_softmax_seen)


# ------------------------------------------------------------------ nll_loss


def _logp(rows):
    return _t(np.log(np.asarray(rows, dtype=np.float64)))


@checkpoint.test("nll_loss", hint="Average of -logp[i, targets[i]]: -(log 0.5 + log 0.8) / 2.")
def nll_loss_two_rows(nll_loss):
    out = _returned("nll_loss(log([[.5, .25, .25], [.1, .8, .1]]), [0, 1])", nll_loss,
                    [_logp([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1]])], [0, 1])
    _same("nll_loss(log([[.5, .25, .25], [.1, .8, .1]]), [0, 1])", out, 0.45814537)


@checkpoint.test("nll_loss", hint="Negate: log-probabilities are <= 0 and the loss is >= 0. "
                                  "Target 2 of [-1, -2, -3] costs 3.",
                 hint_for=("forgets the minus sign",))
def nll_loss_one_row(nll_loss):
    out = _returned("nll_loss([[-1, -2, -3]], [2])", nll_loss, [_t([[-1.0, -2.0, -3.0]])], [2])
    _same("nll_loss([[-1, -2, -3]], [2])", out, 3.0)


@checkpoint.test("nll_loss", hint="Divide by N (the rows), not by N * C and not by nothing: "
                                  "four rows that each cost 1 average to 1.",
                 hint_for=("sums instead of averaging", "mean over all N * C entries",
                           "masks right but divides by N * C"))
def nll_loss_is_a_mean_over_rows(nll_loss):
    out = _returned("nll_loss([[-1, -2]] * 4, [0, 0, 0, 0])", nll_loss,
                    [_t([[-1.0, -2.0]] * 4)], [0, 0, 0, 0])
    _same("nll_loss([[-1, -2]] * 4, [0, 0, 0, 0])", out, 1.0)


@checkpoint.test("nll_loss", hint="A model that says 1/2 for each of 2 classes costs log 2 "
                                  "= 0.693 in every row, so their mean is log 2 too: the sum "
                                  "of the 3 picked entries, divided by the 3 rows.",
                 hint_for=("sums instead of averaging", "masks right but divides by N * C"))
def nll_loss_uniform_rows_cost_log_c(nll_loss):
    out = _returned("nll_loss(log([[.5, .5]] * 3), [0, 1, 1])", nll_loss,
                    [_logp([[0.5, 0.5]] * 3)], [0, 1, 1])
    _same("nll_loss(log([[.5, .5]] * 3), [0, 1, 1])", out, 0.69314718)


@checkpoint.test("nll_loss", hint="Return a Tensor of shape () (a single number), so that "
                                  "loss.backward() needs no argument.")
def nll_loss_is_a_scalar(nll_loss):
    seen = _call("nll_loss(zeros(3, 2), [0, 1, 1])", _tensor_call, nll_loss,
                 [np.zeros((3, 2), dtype=np.float32)], ([0, 1, 1],))
    if seen["shape"] != ():
        fail("nll_loss(zeros(3, 2), [0, 1, 1]).shape", (),
             seen["shape"] if seen["shape"] is not None else _show(seen["returned"]))


@checkpoint.test("nll_loss", hint="Gradient: -1/N at each target entry, 0 elsewhere. Multiply "
                                  "by a one-hot mask Tensor so backward reaches logp.")
def nll_loss_gradient(nll_loss):
    logp = _t([[-1.0, -2.0, -0.5], [-0.1, -3.0, -2.5]])
    (grad,) = _call("nll_loss(logp, [2, 0]).backward()", _tensor_gradient, nll_loss, [logp],
                    ([2, 0],))
    _same("logp.grad after nll_loss(logp, [2, 0]).backward()", grad,
          [[0.0, 0.0, -0.5], [-0.5, 0.0, 0.0]])


@checkpoint.test("nll_loss", hint="targets may be a list or a NumPy int array, with the same "
                                  "loss: target 1 of each row costs 0.25 and 0.75, mean 0.5.")
def nll_loss_numpy_targets(nll_loss):
    out = _returned("nll_loss(..., np.array([1, 1]))", nll_loss,
                    [_t([[-2.0, -0.25], [-1.0, -0.75]])], np.array([1, 1]))
    _same("nll_loss([[-2, -0.25], [-1, -0.75]], np.array([1, 1]))", out, 0.5)


@st.composite
def _log_probabilities(draw):
    """(N, C) log-probabilities (N from 1 to 5, C from 1 to 5, often unequal): the logs
    of rows of probabilities, or any values <= 0 (multiples of 1/8); float64 or
    float32; targets in [0, C), as a list of ints or an int array."""
    n, c = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if draw(st.booleans()):
        p = rng.integers(1, 9, size=(n, c)).astype(np.float64)
        logp = np.log(p / p.sum(axis=1, keepdims=True))
    else:
        logp = -rng.integers(0, 40, size=(n, c)) / 8.0
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    targets = [int(t) for t in rng.integers(0, c, size=n)]
    if draw(st.booleans()):
        targets = np.array(targets, dtype=draw(st.sampled_from([np.int64, np.int32])))
    return call(logp.astype(dtype), targets)


@st.composite
def _targets_outside(draw):
    """Log-probabilities as :func:`_log_probabilities` draws them, with one to all of
    the targets outside [0, C): negative (-1, the last class to NumPy's indexing, most
    often; down to -C - 1) or C and above."""
    logp, targets = draw(_log_probabilities()).args
    n, c = logp.shape
    bad = list(np.asarray(targets).tolist())
    rows = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    for r in rows:
        bad[r] = draw(st.one_of(st.just(-1), st.integers(-c - 1, -1), st.integers(c, c + 2)))
    if isinstance(targets, np.ndarray):
        bad = np.array(bad, dtype=targets.dtype)
    return call(logp, bad)


def _worst_target(logp, targets) -> tuple:
    """The target the message must name: the smallest when one is negative, else the
    largest."""
    t = np.asarray(targets)
    return (int(t.min()) if t.min() < 0 else int(t.max()),)


checkpoint.contract("nll_loss", valid=_log_probabilities(), scenario=_nll_loss_seen, invalid=[
    Invalid(_targets_outside(), IndexError, "targets outside [0, C): negative (-1 would read "
            "the last class) or C and above", naming=_worst_target)])


# ------------------------------------------------------------------ the update rules


def _state_text(state: dict) -> str:
    items = ", ".join(f"{k!r}: {np.round(np.asarray(v, dtype=float), 8).tolist()!r}"
                      if isinstance(v, (np.ndarray, list)) else f"{k!r}: {v!r}"
                      for k, v in state.items())
    return "{" + items + "}"


def _step(name, fn, param, grad, state, **kw):
    """Call an update rule ``name(param, grad, state, **kw)``: returns (the call as text,
    the new parameter). A given ``state`` (the right one after an earlier step) is shown
    whole, so a row never depends on what the learner's earlier call left there."""
    parts = [repr(list(map(float, param))), repr(list(map(float, grad))), _state_text(state)]
    parts += [f"{k}={v}" for k, v in kw.items()]
    call = f"{name}({', '.join(parts)})"
    return call, _call(call, fn, np.asarray(param, float), np.asarray(grad, float), state, **kw)


def _sgd(fn, param, grad, state, **kw):
    return _step("sgd_step", fn, param, grad, state, **kw)


@checkpoint.test("sgd_step", hint="Plain SGD: param - lr * grad = [1, 2] - 0.1 * [0.5, -1].")
def sgd_plain_step(sgd_step):
    call, got = _sgd(sgd_step, [1.0, 2.0], [0.5, -1.0], {}, lr=0.1)
    _same(call, got, [0.95, 2.1], atol=1e-9)




@checkpoint.test("sgd_step", hint="Weight decay adds weight_decay * param to the gradient "
                                  "before anything else: g = 0 + 0.5 * [1, 2].",
                 hint_for=('forgets weight decay',))
def sgd_weight_decay(sgd_step):
    call, got = _sgd(sgd_step, [1.0, 2.0], [0.0, 0.0], {}, lr=0.1, weight_decay=0.5)
    _same(call, got, [0.95, 1.9], atol=1e-9)


@checkpoint.test("sgd_step", hint="After the first step the buffer holds the gradient itself "
                                  "(the sum of one gradient: not a fraction of it, not ones), "
                                  "kept in state['momentum_buffer'] for the next call.",
                 hint_for=("momentum buffer initialised to ones", "dampened buffer (an average)"))
def sgd_first_buffer_is_the_gradient(sgd_step):
    state = {}
    call, got = _sgd(sgd_step, [1.0, 2.0], [0.5, -1.0], state, lr=0.1, momentum=0.9)
    _same(call, got, [0.95, 2.1], atol=1e-9)
    _same("state['momentum_buffer'] after one step", state.get("momentum_buffer"), [0.5, -1.0],
          atol=1e-9)


@checkpoint.test("sgd_step", hint="A later step reads the buffer back from state: b = 0.9 * 1 "
                                  "+ 1 = 1.9, so 0.9 - 0.1 * 1.9 = 0.71.",
                 hint_for=("dampened buffer (an average)", "forgets the buffer between calls"))
def sgd_momentum_two_steps(sgd_step):
    # the state the first step sgd_step([1.0], [1.0], {}, lr=0.1, momentum=0.9) leaves
    state = {"momentum_buffer": np.array([1.0])}
    call, p = _sgd(sgd_step, [0.9], [1.0], state, lr=0.1, momentum=0.9)
    _same(call, p, [0.71], atol=1e-9)


@checkpoint.test("sgd_step", hint="Weight decay goes into g before the momentum buffer, so the "
                                  "buffer carries it to later steps: step 1 g = 1 + 0.1 * 2 = "
                                  "1.2 and b = 1.2; step 2 g = 1 + 0.1 * 1.88 = 1.188 and b = "
                                  "0.5 * 1.2 + 1.188.",
                 hint_for=("forgets weight decay", "weight decay added after momentum"))
def sgd_momentum_with_weight_decay(sgd_step):
    # two calls in a row, the second starting from the state the first left: the
    # buffer must hold the decayed gradient (1.2), or step 2 misses 0.5 * 0.1 * 2
    state, kw = {}, dict(lr=0.1, momentum=0.5, weight_decay=0.1)
    call, p = _sgd(sgd_step, [2.0], [1.0], state, **kw)
    _same(call, p, [1.88], atol=1e-9)
    call = ("sgd_step([1.88], [1.0], state, lr=0.1, momentum=0.5, weight_decay=0.1), "
            "state as the first call sgd_step([2.0], [1.0], {}, ...) left it")
    p = _call(call, sgd_step, np.array([1.88]), np.array([1.0]), state, **kw)
    _same(call, p, [1.7012], atol=1e-9)


@checkpoint.test("sgd_step", hint="Return a new array (param - lr * g); do not change param "
                                  "in place with -=.",
                 hint_for=('updates param in place',))
def sgd_leaves_inputs_alone(sgd_step):
    param, grad = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    _call("sgd_step(param, grad, {}, lr=0.1)", sgd_step, param, grad, {}, lr=0.1)
    _same("param after sgd_step(param, grad, {}, lr=0.1)", param, [1.0, 2.0], atol=0, rtol=0)
    _same("grad after sgd_step(param, grad, {}, lr=0.1)", grad, [0.5, -1.0], atol=0, rtol=0)


@checkpoint.test("sgd_step", hint="Weight decay makes a new gradient, grad + weight_decay * "
                                  "param: g = grad followed by g += ... adds into the caller's "
                                  "grad array, which the optimizer still owns.",
                 hint_for=("adds weight decay into the caller's grad",))
def sgd_weight_decay_leaves_grad_alone(sgd_step):
    param, grad = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    call = "sgd_step(param, grad, {}, lr=0.1, weight_decay=0.5)"
    _call(call, sgd_step, param, grad, {}, lr=0.1, weight_decay=0.5)
    _same(f"grad after {call}", grad, [0.5, -1.0], atol=0, rtol=0)


@checkpoint.test("sgd_step", hint="The buffer must be an array of your own: keeping the "
                                  "caller's first grad as the buffer and then updating it in "
                                  "place (*=, +=) changes that grad on the next call.",
                 hint_for=("the buffer is the caller's grad, updated in place",))
def sgd_momentum_leaves_grads_alone(sgd_step):
    # the calls run one after the other where sgd_step lives: a buffer that is the
    # caller's grad array stays that array from one call to the next
    grads = [np.array([0.5, -1.0]), np.array([1.0, 1.0])]
    for k in range(len(grads)):  # first call 1 alone, so that an error names its call
        after = _call(f"call {k + 1} of sgd_step(param, grad, state, lr=0.1, momentum=0.9)",
                      _update_steps, sgd_step, np.array([1.0, 2.0]),
                      [g.copy() for g in grads[:k + 1]], {}, {"lr": 0.1, "momentum": 0.9})
    _same("the first call's grad after two sgd_step calls with momentum", after[0],
          [0.5, -1.0], atol=0, rtol=0)
    _same("the second call's grad after two sgd_step calls with momentum", after[1],
          [1.0, 1.0], atol=0, rtol=0)


@st.composite
def _sgd_steps(draw):
    """A first step (state {}) or a later one (a momentum buffer from before), any
    shape, with and without momentum and weight decay, given or left out."""
    shape = draw(shapes(0, 3, min_side=1))
    param, grad = draw(images(shape, np.float64)), draw(images(shape, np.float64))
    momentum = draw(st.sampled_from([0.0, 0.5, 0.9]))
    state = {}
    if momentum and draw(st.booleans()):
        state["momentum_buffer"] = draw(images(shape, np.float64))
    kwargs = {"lr": draw(st.sampled_from([0.5, 0.25, 0.1]))}
    if momentum or draw(st.booleans()):
        kwargs["momentum"] = momentum
    weight_decay = draw(st.sampled_from([0.0, 0.25, 0.01]))
    if weight_decay or draw(st.booleans()):
        kwargs["weight_decay"] = weight_decay
    return Call((param, grad, state), kwargs)


checkpoint.contract("sgd_step", valid=_sgd_steps())


# ------------------------------------------------------------------ adam_step


def _adam(fn, param, grad, state, **kw):
    return _step("adam_step", fn, param, grad, state, **kw)


@checkpoint.test("adam_step", hint="With bias correction, the first step is lr * g / |g|: "
                                   "every entry moves by lr against its gradient's sign.",
                 hint_for=("no bias correction",))
def adam_first_step_is_lr_sized(adam_step):
    call, p = _adam(adam_step, [1.0, -2.0], [0.5, -4.0], {}, lr=0.1)
    _same(call, p, [0.9, -1.9], atol=1e-6)


@checkpoint.test("adam_step", hint="Keep m, v and t in state between calls. Step 2 with "
                                   "grads [0.5, 4]: m_hat = [0.5, 0.2105], v_hat = [0.25, 16].")
def adam_second_step(adam_step):
    # entry 0: m = 0.9*0.05 + 0.1*0.5 = 0.095, m_hat = 0.095/0.19 = 0.5;
    #          v = 0.999*0.00025 + 0.001*0.25 = 0.00049975, v_hat = 0.25; step 0.1*0.5/0.5
    # entry 1: m = 0.9*(-0.4) + 0.1*4 = 0.04, m_hat = 0.04/0.19 = 0.2105263;
    #          v = 0.999*0.016 + 0.001*16 = 0.031984, v_hat = 16; step 0.1*0.2105263/4
    # the state the first step adam_step([1.0, -2.0], [0.5, -4.0], {}, lr=0.1) leaves
    state = {"step": 1, "exp_avg": np.array([0.05, -0.4]),
             "exp_avg_sq": np.array([0.00025, 0.016])}
    call, p = _adam(adam_step, [0.9, -1.9], [0.5, 4.0], state, lr=0.1)
    _same(call, p, [0.8, -1.9052632], atol=1e-6)


@checkpoint.test("adam_step", hint="state keeps the running averages m and v themselves, not "
                                   "m_hat and v_hat: after one step from {} with grad 0.5, "
                                   "exp_avg is 0.05 and exp_avg_sq 0.00025.",
                 hint_for=("stores the bias-corrected moments",))
def adam_state_holds_the_averages(adam_step):
    state = {}
    _adam(adam_step, [1.0], [0.5], state, lr=0.1)
    for key, want in (("exp_avg", [0.05]), ("exp_avg_sq", [0.00025])):
        _same(f"state[{key!r}] after adam_step([1.0], [0.5], {{}}, lr=0.1)", state.get(key),
              want, atol=1e-9)


@checkpoint.test("adam_step", hint="state['step'] counts the calls: 1 after the first, 2 "
                                   "after the second (the bias correction uses it).",
                 hint_for=("never counts the steps",))
def adam_counts_steps(adam_step):
    state = {}
    _, p = _adam(adam_step, [1.0], [1.0], state, lr=0.1)
    _adam(adam_step, p, [1.0], state, lr=0.1)
    if state.get("step") != 2:
        fail("state['step'] after two adam_step calls", 2, state.get("step"))


@checkpoint.test("adam_step", hint="A zero gradient gives m = 0: the parameter stays put "
                                   "(eps keeps 0 / 0 away).")
def adam_zero_gradient(adam_step):
    call, p = _adam(adam_step, [3.0], [0.0], {}, lr=0.1)
    _same(call, p, [3.0], atol=1e-9)


@checkpoint.test("adam_step", hint="The default lr is 1e-3; a huge gradient still moves the "
                                   "parameter by only lr on the first step.")
def adam_default_lr(adam_step):
    call, p = _adam(adam_step, [0.0], [100.0], {})
    _same(call, p, [-0.001], atol=1e-8)


@checkpoint.test("adam_step", hint="Use the betas you are given. With betas (0.5, 0.5), grads "
                                   "1 then -1: m_hat = -1/3, v_hat = 1, so step 2 adds lr/3.",
                 hint_for=("ignores the betas it is given",))
def adam_uses_betas(adam_step):
    # the state adam_step([0.0], [1.0], {}, lr=0.3, betas=(0.5, 0.5)) leaves; it returns [-0.3]
    state = {"step": 1, "exp_avg": np.array([0.5]), "exp_avg_sq": np.array([0.5])}
    call, p = _adam(adam_step, [-0.3], [-1.0], state, lr=0.3, betas=(0.5, 0.5))
    _same(call, p, [-0.2], atol=1e-6)


@checkpoint.test("adam_step", hint="eps goes after the square root, as in PyTorch: with "
                                   "m_hat = 0.5 and v_hat = 0.25 the step is 0.1 * 0.5 / "
                                   "(0.5 + 0.1), not 0.1 * 0.5 / sqrt(0.25 + 0.1).",
                 hint_for=("eps inside the root",))
def adam_eps_after_the_root(adam_step):
    # m_hat = 0.5, v_hat = 0.25: 1 - 0.1 * 0.5 / (sqrt(0.25) + 0.1) = 1 - 0.05 / 0.6
    call, p = _adam(adam_step, [1.0], [0.5], {}, lr=0.1, eps=0.1)
    _same(call, p, [0.91666667], atol=1e-6)


@st.composite
def _adam_steps(draw):
    """The first step (state {}) or step t of a run (its m and v, v never negative),
    betas, eps and lr given or left out."""
    shape = draw(shapes(0, 3, min_side=1))
    param, grad = draw(images(shape, np.float64)), draw(images(shape, np.float64))
    state = {}
    if draw(st.booleans()):
        state = {"step": draw(st.integers(1, 5)), "exp_avg": draw(images(shape, np.float64)) / 4,
                 "exp_avg_sq": np.abs(draw(images(shape, np.float64))) / 8}
    kwargs = {}
    for name, value in (("lr", draw(st.sampled_from([1e-3, 0.1, 0.5]))),
                        ("betas", draw(st.sampled_from([(0.9, 0.999), (0.5, 0.75)]))),
                        ("eps", draw(st.sampled_from([1e-8, 0.1])))):
        if draw(st.booleans()):
            kwargs[name] = value
    return Call((param, grad, state), kwargs)


checkpoint.contract("adam_step", valid=_adam_steps())


# ------------------------------------------------------------------ stretch: rmsprop_step

def _rmsprop(fn, param, grad, state, **kw):
    return _step("rmsprop_step", fn, param, grad, state, **kw)


@checkpoint.test("rmsprop_step", hint="First step: the average is (1 - alpha) * g**2, so every "
                                      "entry moves by lr / sqrt(1 - alpha) against its sign.",
                 stretch=True)
def rmsprop_first_step(rmsprop_step):
    call, got = _rmsprop(rmsprop_step, [1.0, 1.0], [0.5, -2.0], {}, lr=0.1, alpha=0.9)
    _same(call, got, [0.6837722, 1.3162278], atol=1e-6)


@checkpoint.test("rmsprop_step", hint="Keep the average in state['square_avg']: after one step "
                                      "it is (1 - alpha) * grad**2.", stretch=True,
                 hint_for=("forgets the average between calls",))
def rmsprop_stores_the_average(rmsprop_step):
    state = {}
    _rmsprop(rmsprop_step, [1.0, 1.0], [0.5, -2.0], state, lr=0.1, alpha=0.9)
    if "square_avg" not in state:
        fail("state after one rmsprop_step", "a 'square_avg' entry", sorted(state))
    _same("state['square_avg'] after one step", state["square_avg"], [0.025, 0.4], atol=1e-9)


@checkpoint.test("rmsprop_step", hint="A later step reads the average back from state: alpha * "
                                      "old + (1 - alpha) * g**2 = 0.99 * 0.0025 + 0.01 * 0.25.",
                 stretch=True,
                 hint_for=("average without (1 - alpha)",))
def rmsprop_two_steps(rmsprop_step):
    # the state rmsprop_step([1.0], [0.5], {}) leaves (it returns [0.9]); then
    # v = 0.004975 and 0.9 - 0.01 * 0.5 / sqrt(0.004975) = 0.8291119
    call, p = _rmsprop(rmsprop_step, [0.9], [0.5], {"square_avg": np.array([0.0025])})
    _same(call, p, [0.8291119], atol=1e-6)


@checkpoint.test("rmsprop_step", hint="eps goes after the square root: sqrt(0.025) + 0.1, not "
                                      "sqrt(0.025 + 0.1).", stretch=True,
                 hint_for=("eps inside the root",))
def eps_after_the_root(rmsprop_step):
    call, got = _rmsprop(rmsprop_step, [1.0], [0.5], {}, lr=0.1, alpha=0.9, eps=0.1)
    _same(call, got, [0.8062871], atol=1e-6)


@checkpoint.test("rmsprop_step", hint="A zero gradient moves nothing (eps keeps 0 / 0 away).",
                 stretch=True)
def a_zero_gradient_moves_nothing(rmsprop_step):
    call, got = _rmsprop(rmsprop_step, [1.0, 2.0], [0.0, 0.0], {})
    _same(call, got, [1.0, 2.0], atol=1e-12)


@checkpoint.test("rmsprop_step", hint="Return a new array; do not change param or grad in place.",
                 stretch=True,
                 hint_for=("updates param in place",))
def rmsprop_leaves_inputs_alone(rmsprop_step):
    param, grad = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    _call("rmsprop_step(param, grad, {}, lr=0.1)", rmsprop_step, param, grad, {}, lr=0.1)
    _same("param after rmsprop_step(param, grad, {}, lr=0.1)", param, [1.0, 2.0], atol=0)
    _same("grad after rmsprop_step(param, grad, {}, lr=0.1)", grad, [0.5, -1.0], atol=0)


@st.composite
def _rmsprop_steps(draw):
    """The first step (state {}) or a later one (an average from before, never
    negative), any shape (0-d and size 0 too), lr, alpha and eps given by name, by
    position or left out. Float64: the update's square root and division round
    differently in every order in float32."""
    shape = draw(shapes(0, 3))
    param, grad = draw(images(shape, np.float64)), draw(images(shape, np.float64))
    state = {}
    if draw(st.booleans()):
        state["square_avg"] = np.abs(draw(images(shape, np.float64))) / 4
    values = [draw(st.sampled_from([0.01, 0.1, 0.5])), draw(st.sampled_from([0.99, 0.9, 0.5])),
              draw(st.sampled_from([1e-8, 0.1]))]
    given = draw(st.integers(0, 3))  # how many are given by position
    args, kwargs = [param, grad, state, *values[:given]], {}
    for name, value in zip(("lr", "alpha", "eps")[given:], values[given:]):
        if draw(st.booleans()):
            kwargs[name] = value
    return Call(args, kwargs)


checkpoint.contract("rmsprop_step", valid=_rmsprop_steps(), stretch=True)
