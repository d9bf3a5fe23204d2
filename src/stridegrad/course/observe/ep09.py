"""Lesson 09's scenarios and observations: what must run where the learner's code lives.

Public code with no answers in it: the checkpoint (``checkpoints/ep09.py``) calls these
through :func:`stridegrad.course._wire.in_its_process`, so that when the grader's judge
holds only a stand-in of the learner's ``Linear``, ``log_softmax`` or ``nll_loss``, the
Tensors and modules are made in the notebook's own process (one autograd graph) and only
plain data comes back: shapes as tuples, values and gradients as NumPy arrays, type
names, yes or no. An update rule's run of calls sharing one state runs here too
(:func:`update_steps`): arrays cross to the worker by value, so an array a call keeps
in the state would not stay the caller's own from one call to the next otherwise. The expected values and the verdicts stay in the checkpoint's tests;
the judge runs the contract scenarios on the lesson's own functions too, and compares.

An exception the learner's code raises here travels back as it is (its kind and
message), for the checkpoint to turn into a row naming the call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import stridegrad as sg
from stridegrad.nn import Parameter


# ------------------------------------------------------------------ the contract scenarios
#
# Tensor exercises are judged through scenarios: a case is plain NumPy arrays; the
# scenario makes the Tensors, runs the function, backpropagates a fixed upstream
# gradient and returns what it saw, as plain data. Values are compared on a float64
# run (exp and log round differently in every order of the operations, and float32
# would tell right answers apart); a float32 case also runs in float32, for the dtype
# of the result.
#
# The contract of Linear is a scenario: a case is Linear(in_features, out_features),
# and the scenario looks at the layer it makes (the two Parameters, their shapes and
# dtype, parameters()), at its initial values (the same after the same seed; on a
# layer with 256 outputs, where every right draw is near the expected spread by a
# wide margin: within [-k, k], about half negative, spread as a uniform on [-k, k]),
# and at forward and backward with weight and bias set to known small integers,
# exact in float32 in every order of the sums; then at what the library needs besides
# (the docstring says so): a layer made with bias=False (no bias, the weight alone in
# parameters(), forward without a bias) and one made with device="python" and
# dtype=float64 (where and of which dtype its Parameters are). Every part of it is
# fixed by the docstring; the values drawn are not (another order of the draws is as
# right).


def _upstream(shape: tuple) -> np.ndarray:
    """A fixed upstream gradient of ``shape``: -1, 1.5, 0.5, ... (rows do not sum to 0)."""
    size = int(np.prod(shape))
    return (((np.arange(size) * 5) % 7 - 2) / 2.0).reshape(shape)


def _tensor_seen(out: Any) -> Any:
    """What a Tensor exercise returned: its values, or what it was instead."""
    if not isinstance(out, sg.Tensor):
        return f"a {type(out).__name__}, not a Tensor"
    return out.numpy().astype(np.float64)


def _grad_of(t: Any, name: str) -> Any:
    if t.grad is None:
        return f"None: backward never reached {name} (no Tensor operations from it)"
    return t.grad.numpy().astype(np.float64)


def _run_tensor_function(fn, arrays: list, rest: tuple, upstream, names: list) -> dict:
    """Call ``fn(*tensors, *rest)`` with a Tensor of each of ``arrays`` (float64, needing
    grad), backpropagate ``upstream(shape of the result)`` and return the result's
    values, each input's gradient, and each input's values if the call changed them
    (``names``: the inputs' names)."""
    tensors = [sg.tensor(a.astype(np.float64), requires_grad=True) for a in arrays]
    out = fn(*tensors, *rest)
    seen = {"returned": _tensor_seen(out)}
    if isinstance(out, sg.Tensor):
        if out.requires_grad:
            (out * sg.tensor(upstream(tuple(out.shape)))).sum().backward()
            for name, t in zip(names, tensors):
                seen[f"{name}.grad"] = _grad_of(t, name)
        else:
            seen["grad"] = "none: the result is not connected to the graph (requires_grad False)"
    for name, a, t in zip(names, arrays, tensors):
        if not np.array_equal(t.numpy(), a.astype(np.float64)):
            seen[f"{name} after the call"] = t.numpy().copy()
    return seen


def _dtype_seen(fn, arrays: list, rest: tuple) -> str:
    """The dtype of ``fn``'s result on Tensors of ``arrays`` in their own dtypes."""
    out = fn(*(sg.tensor(a, requires_grad=True) for a in arrays), *rest)
    return str(out.numpy().dtype) if isinstance(out, sg.Tensor) else type(out).__name__


def _param_seen(p: Any) -> str:
    if p is None:
        return "missing"
    kind = type(p).__name__
    if not isinstance(p, sg.Tensor):
        return f"a {kind}, not a Parameter"
    return f"{kind} of shape {tuple(p.shape)}, {p.numpy().dtype}"


def _init_seen(name: str, p: Any, k: float, in_features: int) -> str:
    """How the values of one Parameter of a wide layer are spread, in words: uniform on
    [-k, k], or what is wrong with them."""
    if not isinstance(p, sg.Tensor):
        return "not a Tensor"
    a = p.numpy().astype(np.float64).ravel()
    big = float(np.abs(a).max())
    if big > k * (1 + 1e-6):
        return (f"{name} reaches {big:.4g}, past k = 1/sqrt({in_features}) = {k:.4g}")
    negative = float((a < 0).mean())
    if not 0.3 <= negative <= 0.7:
        return f"{name}: {negative:.0%} of its {a.size} values negative, not about half"
    spread = float(a.std())
    if not 0.45 * k <= spread <= 0.7 * k:
        return (f"{name}: standard deviation {spread:.4g}, not about k/sqrt(3) = "
                f"{k / np.sqrt(3):.4g} (uniform on [-k, k])")
    return f"{name} uniform on [-k, k]"


def _placed(p: Any) -> str:
    """Where a Parameter lives and its dtype, in words."""
    if not isinstance(p, sg.Tensor):
        return "missing" if p is None else f"a {type(p).__name__}"
    return f"on {p.device}, {p.numpy().dtype}"


def _small_ints(shape: tuple, start: int) -> np.ndarray:
    size = int(np.prod(shape))
    return (((np.arange(size) * 3 + start) % 7) - 3).reshape(shape).astype(np.float32)


def _linear_seen(Linear, in_features, out_features):
    """A scenario: the layer Linear(in_features, out_features) makes, its initial
    values, and forward and backward through it (see above)."""
    seed = 7 * in_features + out_features
    sg.manual_seed(seed)
    lin = Linear(in_features, out_features)
    weight, bias = getattr(lin, "weight", None), getattr(lin, "bias", None)
    seen = {"weight": _param_seen(weight), "bias": _param_seen(bias)}
    named = {id(weight): "weight", id(bias): "bias"}
    seen["parameters()"] = sorted(named.get(id(p), type(p).__name__)
                                  for p in lin.parameters())
    sg.manual_seed(seed)
    again = Linear(in_features, out_features)
    same = all(isinstance(getattr(m, n, None), sg.Tensor) for m in (lin, again)
               for n in ("weight", "bias")) and all(
        np.array_equal(getattr(lin, n).numpy(), getattr(again, n).numpy())
        for n in ("weight", "bias"))
    seen["after the same seed"] = "the same values" if same else "other values"
    sg.manual_seed(seed)
    wide = Linear(in_features, 256)
    k = 1.0 / np.sqrt(in_features)
    seen[f"Linear({in_features}, 256)"] = [
        _init_seen(n, getattr(wide, n, None), k, in_features) for n in ("weight", "bias")]
    # forward and backward with known parameters, on N rows
    n = 1 + (in_features + out_features) % 3
    lin.weight = Parameter(_small_ints((out_features, in_features), 1))
    lin.bias = Parameter(_small_ints((out_features,), 2))
    x = sg.tensor(_small_ints((n, in_features), 0), requires_grad=True)
    out = lin(x)
    seen["forward"] = _tensor_seen(out)
    if isinstance(out, sg.Tensor) and out.requires_grad:
        (out * sg.tensor(_upstream(tuple(out.shape)).astype(np.float32))).sum().backward()
        for name, t in (("weight", lin.weight), ("bias", lin.bias), ("x", x)):
            seen[f"{name}.grad"] = _grad_of(t, name)
    # what the library needs besides: no bias; a device and a dtype
    bare = Linear(in_features, out_features, bias=False)
    bias = getattr(bare, "bias", "missing")
    seen["bias=False: bias"] = "None" if bias is None else _param_seen(bias)
    seen["bias=False: parameters()"] = sorted(
        "weight" if p is getattr(bare, "weight", None) else type(p).__name__
        for p in bare.parameters())
    bare.weight = Parameter(_small_ints((out_features, in_features), 1))
    seen["bias=False: forward"] = _tensor_seen(bare(sg.tensor(_small_ints((n, in_features), 0))))
    placed = Linear(in_features, out_features, device="python", dtype=sg.float64)
    seen["device='python', dtype=float64"] = [
        _placed(getattr(placed, name, None)) for name in ("weight", "bias")]
    return seen


def _log_softmax_seen(log_softmax, x):
    """A scenario: log_softmax on x as a Tensor (values, gradient of a fixed upstream,
    x unchanged), and the dtype of its result for x's own dtype."""
    seen = _run_tensor_function(log_softmax, [x], (), _upstream, ["x"])
    if x.dtype != np.float64:
        seen["dtype"] = _dtype_seen(log_softmax, [x], ())
    return seen


def _nll_loss_seen(nll_loss, logp, targets):
    """A scenario: nll_loss of logp as a Tensor (its value, of shape (), the gradient,
    logp unchanged), and the dtype of its result for logp's own dtype."""
    seen = _run_tensor_function(nll_loss, [logp], (targets,), np.ones, ["logp"])
    if logp.dtype != np.float64:
        seen["dtype"] = _dtype_seen(nll_loss, [logp], (targets,))
    return seen


# ------------------------------------------------------------------ the tests' observations
#
# Each takes the learner's function or class and plain inputs, makes the Tensors and
# modules itself and returns what the test compares, as plain data.


def _plain(value: Any) -> Any:
    """A result as plain data: a Tensor's values as a NumPy array; plain data as it is;
    anything else in words."""
    if isinstance(value, sg.Tensor):
        return value.numpy().copy()
    if value is None or isinstance(value, (bool, int, float, str, np.ndarray, np.generic)):
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return f"a {type(value).__name__}"


def _shape(value: Any) -> Any:
    """``value.shape`` as a tuple, or None where it has none."""
    shape = getattr(value, "shape", None)
    return None if shape is None else tuple(shape)


def _part_seen(module: Any, name: str) -> dict:
    """One of a layer's attributes (``weight``, ``bias``): there or not, its type and
    whether it is a Parameter, its shape, values and grad_fn (in words, None for a leaf),
    its grad."""
    p = getattr(module, name, None)
    fn = getattr(p, "grad_fn", None)
    grad = getattr(p, "grad", None)
    return {"present": p is not None, "type": type(p).__name__,
            "is a Parameter": isinstance(p, Parameter), "shape": _shape(p),
            "device": str(p.device) if isinstance(p, sg.Tensor) else None,
            "dtype": str(p.numpy().dtype) if isinstance(p, sg.Tensor) else None,
            "values": _plain(p), "grad_fn": None if fn is None else str(fn),
            "grad": None if grad is None else _plain(grad)}


def linear_made(Linear, in_features: int, out_features: int, *, seed: int | None = None,
                options: dict | None = None) -> dict:
    """``Linear(in_features, out_features, **options)`` (after ``sg.manual_seed(seed)``
    when a seed is given): its ``weight`` and ``bias`` (:func:`_part_seen`)."""
    if seed is not None:
        sg.manual_seed(seed)
    lin = Linear(in_features, out_features, **(options or {}))
    return _layer_seen(lin)


def _layer_seen(lin: Any) -> dict:
    return {"weight": _part_seen(lin, "weight"), "bias": _part_seen(lin, "bias")}


def linear_parameters(Linear, in_features: int, out_features: int,
                      options: dict | None = None) -> dict:
    """:func:`linear_made`, with ``list(parameters())`` of the layer: each entry by name
    (``"weight"``, ``"bias"``, or its type's name) and its values."""
    lin = Linear(in_features, out_features, **(options or {}))
    seen = _layer_seen(lin)
    params = list(lin.parameters())
    named = {id(getattr(lin, n, None)): n for n in ("weight", "bias")}
    seen["parameters()"] = [named.get(id(p), f"a {type(p).__name__}") for p in params]
    seen["parameters() values"] = [_plain(p) for p in params]
    return seen


def linear_forward(Linear, in_features: int, out_features: int, x: np.ndarray, *,
                   weight: np.ndarray | None = None, bias: np.ndarray | None = None,
                   seed: int | None = None, options: dict | None = None) -> dict:
    """``Linear(in_features, out_features, **options)`` (seeded when ``seed`` is given),
    with ``weight`` and ``bias`` set to Parameters of these values when given, called on
    a Tensor of ``x``: the result's values and shape."""
    if seed is not None:
        sg.manual_seed(seed)
    lin = Linear(in_features, out_features, **(options or {}))
    if weight is not None:
        lin.weight = Parameter(weight)
    if bias is not None:
        lin.bias = Parameter(bias)
    out = lin(sg.tensor(x))
    return {"returned": _plain(out), "shape": _shape(out)}


def linear_seeded_twice(Linear, in_features: int, out_features: int, seed: int) -> bool:
    """Whether two ``Linear(in_features, out_features)``, each made after
    ``sg.manual_seed(seed)``, have the same weights."""
    sg.manual_seed(seed)
    a = Linear(in_features, out_features)
    sg.manual_seed(seed)
    b = Linear(in_features, out_features)
    return bool(np.array_equal(a.weight.numpy(), b.weight.numpy()))


def linear_backward(Linear, in_features: int, out_features: int, x: np.ndarray,
                    seed: int) -> dict:
    """A seeded ``Linear(in_features, out_features)``, then
    ``lin(tensor(x)).sum().backward()``: weight and bias afterwards (their grads)."""
    sg.manual_seed(seed)
    lin = Linear(in_features, out_features)
    lin(sg.tensor(x)).sum().backward()
    return _layer_seen(lin)


def tensor_call(fn, arrays: list, rest: tuple = ()) -> dict:
    """``fn(*tensors, *rest)`` with a Tensor of each of ``arrays`` (their own dtypes): the
    result's values (a Tensor's as an array) and shape."""
    out = fn(*(sg.tensor(a) for a in arrays), *rest)
    return {"returned": _plain(out), "shape": _shape(out)}


def tensor_gradient(fn, arrays: list, rest: tuple = (), upstream: np.ndarray | None = None) -> list:
    """``fn(*tensors, *rest)`` with a Tensor of each of ``arrays`` needing grad, then
    ``(out * tensor(upstream)).sum().backward()`` (``out.backward()`` without an
    upstream): each input's grad (None where backward left none)."""
    tensors = [sg.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*tensors, *rest)
    if upstream is None:
        out.backward()
    else:
        (out * sg.tensor(upstream)).sum().backward()
    return [None if t.grad is None else _plain(t.grad) for t in tensors]


def update_steps(fn, param: np.ndarray, grads: list, state: dict, kwargs: dict) -> list:
    """An update rule's calls one after the other, ``p = fn(p, grad, state, **kwargs)``
    for each of ``grads`` (``p`` from ``param``, ``state`` shared by the calls): the
    grad arrays afterwards, to see whether a call changed one it was given earlier."""
    p = param
    for grad in grads:
        p = fn(p, grad, state, **kwargs)
    return [g.copy() for g in grads]
