"""Finite-difference gradient checks for Tensors and scalar Values.

``gradcheck(fn, inputs)`` compares the gradients that ``backward`` computes with
central differences ``(f(x + eps) - f(x - eps)) / (2 eps)``, one input element at
a time, in float64. A non-scalar output ``y`` is reduced to ``sum(y * v)`` with a
fixed random ``v`` (a vector-Jacobian product), so one backward checks every
output element's contribution.

The central differences themselves are :func:`numerical_gradient`, lesson 08's
exercise: ``gradcheck`` calls it through this module's global, once per checked
input, on a float64 NumPy copy of the input (a 0-d one for a Value), with an ``f``
that puts the nudged copy on the input's device and evaluates ``fn`` under
``no_grad``. The float64 copies, the several inputs, the devices and the
``sum(y * v)`` reduction stay here, around the call.

Tensors are duck-typed apart from Values: a ``stridegrad.Tensor`` input is
checked when it requires grad; any other object with ``data``, ``grad`` and
``backward`` (``stridegrad.Value``, micrograd's ``Value``) is checked as a scalar.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from stridegrad.tensor import Tensor, float64, no_grad

__all__ = ["GradcheckError", "gradcheck", "numerical_gradient"]


class GradcheckError(RuntimeError):
    """Analytic and numeric gradients disagree; the message holds a table of the worst entries."""


def numerical_gradient(f: Callable[[np.ndarray], float], x: np.ndarray,
                       eps: float = 1e-6) -> np.ndarray:
    """The gradient of ``f`` at ``x`` by central differences, one entry at a time.

    ``f`` maps an array of ``x``'s shape to a number; ``x`` is a float array
    (float64 or float32) of any shape, 0-d and size 0 included, and any layout
    (a transposed, stepped or reversed view). Returns a new float64 array of
    ``x``'s shape, whose entry ``i`` is ``(f(x + eps e_i) - f(x - eps e_i)) /
    (2 eps)``. ``x`` may be changed while the function runs; when it returns,
    ``x`` holds exactly the values it had (bit for bit).
    """
    grad = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        old = x[idx]
        x[idx] = old + eps
        up = f(x)
        x[idx] = old - eps
        down = f(x)
        x[idx] = old
        grad[idx] = (up - down) / (2 * eps)
    return grad


def _is_value(obj: Any) -> bool:
    return (
        not isinstance(obj, Tensor)
        and hasattr(obj, "data")
        and hasattr(obj, "grad")
        and callable(getattr(obj, "backward", None))
    )


def _scalar_of(out: Any, weights: np.ndarray | None) -> float:
    """The number the check differentiates: ``sum(out * v)`` for a Tensor, ``out.data`` for a Value."""
    if isinstance(out, Tensor):
        y = np.asarray(out.numpy(), dtype=np.float64)
        return float(np.sum(y * weights)) if weights is not None else float(y.sum())
    if _is_value(out):
        return float(out.data)
    raise TypeError(f"gradcheck: fn must return a Tensor or a Value, got {type(out).__name__}")


def gradcheck(
    fn: Callable[..., Any],
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    max_rows: int = 8,
    seed: int = 0,
) -> bool:
    """Check ``fn(*inputs)``'s backward against central differences in float64.

    ``inputs`` is a Tensor, a Value, or a sequence of them (other items are passed
    through unchanged). Float Tensors that require grad are checked on float64
    copies (same device); Values are checked in place and restored. An entry
    passes when ``|analytic - numeric| <= atol + rtol * |numeric|``.

    Returns True when all entries pass. Otherwise raises :class:`GradcheckError`
    with a table of the worst entries (input, index, analytic, numeric,
    difference), or returns False when ``raise_exception=False``.
    """
    items = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    checked: list[int] = []
    args: list[Any] = []
    for i, x in enumerate(items):
        if isinstance(x, Tensor) and x.requires_grad:
            x = x.detach().to(float64).requires_grad_()
            checked.append(i)
        elif _is_value(x):
            checked.append(i)
        args.append(x)
    if not checked:
        raise ValueError(
            "gradcheck: no input requires grad (pass Tensors with requires_grad=True or Values)"
        )

    # analytic
    for i in checked:
        if isinstance(args[i], Tensor):
            args[i].grad = None
        else:
            args[i].grad = 0.0
    out = fn(*args)
    weights = None
    if isinstance(out, Tensor):
        if not out.requires_grad:
            raise ValueError("gradcheck: the output does not require grad (no input reaches it)")
        rng = np.random.default_rng(seed)
        weights = rng.standard_normal(out.shape) if out.ndim else None
        out.backward(
            None if weights is None else Tensor(weights, device=out.device, dtype=out.dtype)
        )
    elif _is_value(out):
        out.backward()
    else:
        raise TypeError(f"gradcheck: fn must return a Tensor or a Value, got {type(out).__name__}")

    rows: list[
        tuple[float, str, tuple, float, float]
    ] = []  # (excess, input, index, analytic, numeric)
    ok = True
    for i in checked:
        x = args[i]
        if isinstance(x, Tensor):
            analytic = (
                np.zeros(x.shape)
                if x.grad is None
                else np.asarray(x.grad.numpy(), dtype=np.float64)
            )
            device, xp_data = x.device, x._data

            def f_tensor(v: np.ndarray, x: Tensor = x, device: str = device) -> float:
                x._data = Tensor(v, device=device)._data  # a copy of the nudged values
                return _scalar_of(fn(*args), weights)

            try:
                with no_grad():
                    # through the module global, looked up now: `stridegrad yours` swaps it
                    numeric = numerical_gradient(f_tensor, np.array(x.numpy(), dtype=np.float64), eps)
            finally:
                x._data = xp_data
        else:
            analytic = np.array([float(x.grad)])
            d0 = x.data

            def f_value(v: np.ndarray, x: Any = x) -> float:
                x.data = float(v[()])
                return _scalar_of(fn(*args), None)

            try:
                numeric = numerical_gradient(f_value, np.array(d0, dtype=np.float64), eps).reshape(1)
            finally:
                x.data = d0
        diff = np.abs(analytic - numeric)
        tol = atol + rtol * np.abs(numeric)
        bad = ~(diff <= tol)  # NaN counts as bad
        if bad.any():
            ok = False
        excess = np.where(np.isnan(diff), np.inf, diff - tol)
        for idx in np.ndindex(*analytic.shape):
            rows.append(
                (float(excess[idx]), f"input {i}", idx, float(analytic[idx]), float(numeric[idx]))
            )

    if ok:
        return True
    rows.sort(key=lambda r: -r[0])
    n_bad = sum(1 for r in rows if r[0] > 0)
    lines = [
        (
            f"gradcheck failed: {n_bad} of {len(rows)} gradient entries differ "
            f"(atol={atol}, rtol={rtol}, eps={eps}); worst first:"
        ),
        f"{'input':<9} {'index':<14} {'analytic':>14} {'numeric':>14} {'difference':>12}",
    ]
    for _, name, idx, a, n in rows[:max_rows]:
        lines.append(f"{name:<9} {idx!s:<14} {a:>14.6g} {n:>14.6g} {abs(a - n):>12.3g}")
    msg = "\n".join(lines)
    if raise_exception:
        raise GradcheckError(msg)
    return False


class _CallableModule(ModuleType):
    """``stridegrad.gradcheck`` is both this module and the :func:`gradcheck` function.

    Importing the submodule binds ``stridegrad.gradcheck`` to the module object, so
    calling the module calls the function (``sg.gradcheck(fn, inputs)`` always works).
    """

    def __call__(self, *args: Any, **kwargs: Any) -> bool:
        return gradcheck(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
