"""Fused elementwise kernels: one chain of elementwise ops, evaluated in one go.

A fused node carries a :class:`Program`: its steps in order, each step an op
with arguments that name a kernel input (``("in", k)``), an earlier step
(``("s", j)``) or a literal (``("lit", 2.0)``), and the step's shape and dtype
as tracing saw them. It is made from the body of a ``fused`` op of the pass IR
(:func:`stridegrad.compile.lowering.raise_graph`), and run by the backend of the
arrays:

* **cpu** (NumPy): each step is a ufunc call with ``out=`` a buffer; a buffer
  whose value is dead is reused by the next step of its shape and dtype, so a
  straight chain of 8 ops writes one array instead of 8 (7 temporaries avoided);
* **python** (``stridegrad.array``): the program becomes one generated Python
  function of scalars, applied in a single loop over the broadcast elements;
* **cuda** (CuPy): the program becomes the C body of a ``cupy.ElementwiseKernel``,
  compiled once per program and dtype signature: one launch, no temporaries.
  (Written, and its source checked by the tests, but run only where CuPy and a
  GPU are at hand.)
* anything else: step by step through :func:`stridegrad.compile.ops.evaluate`.
"""

from __future__ import annotations

import builtins
import math
import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from stridegrad.compile import ops as _ops

__all__ = ["Program", "cuda_source", "expression", "generates", "run_fused", "scratch_buffers"]


@dataclass(frozen=True)
class Program:
    """The steps of a fused node; ``steps[j] = (op, args, attrs, shape, dtype)``.

    ``attrs`` is a tuple of ``(name, value)`` pairs, so a program is hashable and
    kernels are cached per program.
    """

    steps: tuple
    n_inputs: int

    @property
    def shape(self) -> tuple:
        return self.steps[-1][3]

    @property
    def dtype(self) -> Any:
        return self.steps[-1][4]


def generates(op: str, dtype: Any, xp: Any) -> bool:
    """Whether a fused kernel on namespace ``xp`` can run the elementwise ``op`` whose
    result has ``dtype`` (a fused op with a step it cannot run is not made).

    Every backend runs every elementwise op, but the python backend's generated loop
    only reproduces ``stridegrad.array``'s float arithmetic exactly: there integer and
    boolean arithmetic keep their own rules and stay unfused (comparisons, and casts to
    bool, are fine).
    """
    if op not in _ops.ELEMENTWISE:
        return False
    if getattr(xp, "__name__", "") == "stridegrad.array":
        kind = getattr(dtype, "kind", "")
        return kind == "f" or op in _ops.COMPARISONS or (op == "astype" and kind == "b")
    return True


# --------------------------------------------------------------------------- printing

_FUNCS = {"negative": "-{}", "positive": "+{}", "absolute": "|{}|", "abs": "|{}|"}


def expression(program: Program, inputs: list[str]) -> str:
    """The program as one expression: ``exp(%2 * %3) + 1.0``."""
    uses = [0] * len(program.steps)
    for _, args, _, _, _ in program.steps:
        for kind, v in args:
            if kind == "s":
                uses[v] += 1
    texts: list[str] = []
    lets: list[str] = []

    def ref(kind, v):
        if kind == "in":
            return inputs[v]
        if kind == "lit":
            return repr(v)
        return texts[v]

    for j, (op, args, _attrs, _, dtype) in enumerate(program.steps):
        a = [ref(*x) for x in args]
        sym = _ops.symbol(op)
        if sym is not None and len(a) == 2:
            t = f"({a[0]} {sym} {a[1]})"
        elif op in _FUNCS:
            t = _FUNCS[op].format(a[0])
        elif op == "astype":
            from stridegrad.compile.ir import dtype_name

            t = f"{dtype_name(dtype)}({a[0]})"
        else:
            t = f"{op}({', '.join(a)})"
        if uses[j] > 1 and j < len(program.steps) - 1:
            lets.append(f"t{j}={t}")
            t = f"t{j}"
        texts.append(t)
    body = texts[-1]
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    return "; ".join([*lets, body])


# --------------------------------------------------------------------------- NumPy

_NP_UFUNCS = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.true_divide,
    "pow": np.power, "negative": np.negative, "positive": np.positive,
    "absolute": np.absolute, "abs": np.absolute, "exp": np.exp, "log": np.log,
    "sqrt": np.sqrt, "tanh": np.tanh, "sign": np.sign, "square": np.square,
    "maximum": np.maximum, "minimum": np.minimum, "equal": np.equal,
    "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
}
# NumPy's own fast paths for ``array ** scalar`` (what eager mode ran)
_NP_POW = {2: np.square, 0.5: np.sqrt, -1: np.reciprocal, 1: np.positive}

_plans: dict[Program, tuple] = {}


def _numpy_plan(program: Program) -> tuple[list, list]:
    """Steps as ``(ufunc, args, buffer)`` and the buffers ``(shape, dtype)`` they need.

    Register allocation by liveness: a step's value lives in a buffer until its
    last use; then the buffer goes back to a free list keyed by shape and dtype,
    and the next step of that shape and dtype writes into it (a ufunc may write
    over an input of the same shape, element by element).
    """
    plan = _plans.get(program)
    if plan is not None:
        return plan
    from stridegrad.compile.ir import dtype_name

    def np_dtype(d):
        return np.dtype(dtype_name(d))

    steps = program.steps
    last = {}
    for j, (_, args, _, _, _) in enumerate(steps):
        for kind, v in args:
            if kind == "s":
                last[v] = j
    free: dict[tuple, list[int]] = {}
    buffers: list[tuple] = []
    where: list[int] = []
    out = []
    for j, (op, args, _attrs, shape, dtype) in enumerate(steps):
        # a value used twice by its last user (``t + t``) is freed once, or two later
        # steps would share its buffer
        for v in dict.fromkeys(v for kind, v in args if kind == "s" and last.get(v) == j):
            free.setdefault((steps[v][3], np_dtype(steps[v][4])), []).append(where[v])
        key = (shape, np_dtype(dtype))
        pool = free.get(key)
        if pool:
            b = pool.pop()
        else:
            b = len(buffers)
            buffers.append(key)
        where.append(b)
        if op == "astype":
            fn = None
        elif op == "pow" and args[1][0] == "lit" and args[1][1] in _NP_POW and np_dtype(
                dtype).kind == "f":
            fn, args = _NP_POW[args[1][1]], args[:1]
        else:
            fn = _NP_UFUNCS[op]
        out.append((fn, tuple((kind, where[v] if kind == "s" else v) for kind, v in args), b))
    _plans[program] = plan = (out, buffers)
    return plan


def scratch_buffers(program: Program) -> int:
    """How many arrays the fused evaluation makes besides its output (on NumPy)."""
    return len(_numpy_plan(program)[1]) - 1


def _run_numpy(program: Program, args: tuple) -> Any:
    plan, buffers = _numpy_plan(program)
    bufs = [np.empty(shape, dtype) for shape, dtype in buffers]
    b = 0
    for fn, refs, b in plan:
        a = [bufs[v] if kind == "s" else args[v] if kind == "in" else v for kind, v in refs]
        if fn is None:
            np.copyto(bufs[b], a[0], casting="unsafe")
        else:
            fn(*a, out=bufs[b])
    return bufs[b]


# --------------------------------------------------------------------------- python


def _python_scalars() -> dict:
    from stridegrad.array import _elementwise as E

    def sign(v):
        return v if math.isnan(v) else float((v > 0) - (v < 0))

    return {
        "add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
        "divide": E._safe_div, "pow": E._safe_pow, "negative": operator.neg,
        "positive": operator.pos, "absolute": builtins.abs, "abs": builtins.abs,
        "exp": E._safe_exp, "log": E._log_domain(math.log), "sqrt": E._sqrt_safe,
        "tanh": math.tanh, "sign": sign, "square": lambda v: v * v,
        "maximum": E._max2, "minimum": E._min2, "equal": operator.eq,
        "not_equal": operator.ne, "less": operator.lt, "less_equal": operator.le,
        "greater": operator.gt, "greater_equal": operator.ge,
    }


_py_kernels: dict[Program, Any] = {}


def python_source(program: Program) -> str:
    """The generated scalar function of a program (python backend)."""
    params = ", ".join(f"i{k}" for k in range(program.n_inputs))
    lines = [f"def kernel({params}):"]
    for j, (op, args, _, _, _) in enumerate(program.steps):
        a = [f"i{v}" if kind == "in" else f"s{v}" if kind == "s" else f"lit{j}_{n}"
             for n, (kind, v) in enumerate(args)]
        fn = f"cast{j}" if op == "astype" else f"f_{op}"
        lines.append(f"    s{j} = {fn}({', '.join(a)})")
    lines.append(f"    return s{len(program.steps) - 1}")
    return "\n".join(lines)


def _python_kernel(program: Program):
    k = _py_kernels.get(program)
    if k is None:
        env = {f"f_{name}": fn for name, fn in _python_scalars().items()}
        for j, (op, args, _, _, dtype) in enumerate(program.steps):
            if op == "astype":
                env[f"cast{j}"] = dtype.type
            for n, (kind, v) in enumerate(args):
                if kind == "lit":
                    env[f"lit{j}_{n}"] = v
        exec(compile(python_source(program), "<stridegrad fused kernel>", "exec"), env)  # noqa: S102
        k = _py_kernels[program] = env["kernel"]
    return k


def _run_python(program: Program, args: tuple) -> Any:
    from stridegrad.array._core import from_values, gather

    shape = program.shape
    cols = [gather(a, shape) for a in args]
    out = list(map(_python_kernel(program), *cols))
    return from_values(out, shape, program.dtype)


# --------------------------------------------------------------------------- CUDA

_C_TYPES = {"float16": "half", "float32": "float", "float64": "double", "bool": "bool",
            "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
            "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
            "uint64": "unsigned long long"}


def _c_literal(v: Any, ctype: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return f"(({ctype})(0.0 / 0.0))"
        if math.isinf(v):
            return f"(({ctype})({'-' if v < 0 else ''}1.0 / 0.0))"
        return f"(({ctype}){v!r})"
    return f"(({ctype}){int(v)})"


def cuda_source(program: Program, in_dtypes: list) -> tuple[str, str, str]:
    """``(in_params, out_params, operation)`` of the ``cupy.ElementwiseKernel`` for a program.

    Each step becomes one typed C statement; literals take the step's type (the
    weak-scalar rule: ``float32 * 2.0`` stays float32).
    """
    from stridegrad.compile.ir import dtype_name

    in_params = ", ".join(f"{dtype_name(d)} i{k}" for k, d in enumerate(in_dtypes))
    out_params = f"{dtype_name(program.dtype)} out"
    body = []
    for j, (op, args, _, _, dtype) in enumerate(program.steps):
        ct = _C_TYPES[dtype_name(dtype)]
        is_cmp = op in _ops.COMPARISONS
        operand_t = ct
        if is_cmp:  # compare in the type of the array operand
            ref = next(((k, v) for k, v in args if k != "lit"), None)
            if ref is not None:
                src = in_dtypes[ref[1]] if ref[0] == "in" else program.steps[ref[1]][4]
                operand_t = _C_TYPES[dtype_name(src)]
        a = [f"i{v}" if kind == "in" else f"s{v}" if kind == "s" else _c_literal(v, operand_t)
             for kind, v in args]
        sym = _ops.symbol(op)
        if op == "pow":
            e = f"pow(({ct}){a[0]}, ({ct}){a[1]})"
            if args[1] == ("lit", 2):
                e = f"(({ct}){a[0]} * ({ct}){a[0]})"
        elif sym is not None:
            e = f"(({operand_t}){a[0]} {sym} ({operand_t}){a[1]})"
        elif op in ("negative",):
            e = f"(-{a[0]})"
        elif op == "positive":
            e = a[0]
        elif op in ("absolute", "abs"):
            e = f"fabs({a[0]})" if ct in ("float", "double") else f"abs({a[0]})"
        elif op == "sign":
            e = f"({a[0]} != {a[0]} ? {a[0]} : ({ct})(({a[0]} > 0) - ({a[0]} < 0)))"
        elif op == "square":
            e = f"({a[0]} * {a[0]})"
        elif op == "maximum":
            e = f"(({a[0]} != {a[0]} || {a[0]} >= {a[1]}) ? ({ct}){a[0]} : ({ct}){a[1]})"
        elif op == "minimum":
            e = f"(({a[0]} != {a[0]} || {a[0]} <= {a[1]}) ? ({ct}){a[0]} : ({ct}){a[1]})"
        elif op == "astype":
            e = f"({a[0]} != 0)" if ct == "bool" else f"(({ct}){a[0]})"
        else:  # exp, log, sqrt, tanh: CUDA's overloads for float and double
            e = f"{op}(({ct}){a[0]})"
        body.append(f"{ct} s{j} = {e};")
    body.append(f"out = s{len(program.steps) - 1};")
    return in_params, out_params, "\n".join(body)


_cuda_kernels: dict[tuple, Any] = {}


def _run_cupy(xp: Any, program: Program, args: tuple) -> Any:
    import cupy

    arrays = [a if _ops.is_array(a) else xp.asarray(a) for a in args]
    dts = tuple(np.dtype(a.dtype) for a in arrays)
    key = (program, dts)
    k = _cuda_kernels.get(key)
    if k is None:
        in_p, out_p, body = cuda_source(program, list(dts))
        k = _cuda_kernels[key] = cupy.ElementwiseKernel(
            in_p, out_p, body, f"sg_fused_{len(_cuda_kernels)}")
    out = xp.empty(program.shape, dtype=program.dtype)
    return k(*arrays, out)


# --------------------------------------------------------------------------- dispatch


def _run_steps(xp: Any, program: Program, args: tuple) -> Any:
    vals: list[Any] = []
    for op, refs, attrs, _, dtype in program.steps:
        a = tuple(args[v] if kind == "in" else vals[v] if kind == "s" else v
                  for kind, v in refs)
        if op == "astype":
            a = (a[0], dtype)
        vals.append(_ops.evaluate(op, xp, a, dict(attrs)))
    return vals[-1]


def run_fused(xp: Any, program: Program, args: tuple) -> Any:
    """Evaluate a fused program on the arrays ``args`` of namespace ``xp``."""
    name = getattr(xp, "__name__", "")
    if xp is np:
        return _run_numpy(program, args)
    if name == "stridegrad.array":
        return _run_python(program, args)
    if name.startswith("cupy"):
        return _run_cupy(xp, program, args)
    return _run_steps(xp, program, args)
