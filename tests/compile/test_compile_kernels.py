"""Fused kernels per backend: NumPy buffer reuse, the python loop, the generated CUDA source."""

from __future__ import annotations

import numpy as np
import pytest

import stridegrad as sg
from stridegrad import backend
from stridegrad.compile import fuse_elementwise, trace
from stridegrad.compile import kernels as K


def _fused(fn, *arrays, device="cpu"):
    args = [sg.tensor(a, device=device) for a in arrays]
    with sg.no_grad():
        g, _ = trace(fn, args)
    out = fuse_elementwise(g)
    (node,) = [n for n in out.nodes if n.op == "fused"]
    return node.attrs["program"], g, out, [a._data for a in args]


def chain(x, y):
    return ((((x * y + 1.0).exp() * 0.5 - y).tanh()) ** 2) / 3.0


def test_numpy_chain_writes_one_buffer(rng):
    x, y = (rng.standard_normal(1000).astype(np.float32) for _ in range(2))
    prog, g, out, inputs = _fused(chain, x, y)
    plan, buffers = K._numpy_plan(prog)
    assert len(prog.steps) == 8 and len(buffers) == 1 and K.scratch_buffers(prog) == 0
    assert {b for _, _, b in plan} == {0}
    got = out.run(inputs)[0]
    want = g.run(inputs)[0]
    np.testing.assert_array_equal(got, want)  # same ufuncs, same order: bit for bit
    assert got is not inputs[0] and got is not inputs[1]  # inputs are never written


def test_numpy_tree_needs_a_second_buffer(rng):
    x = rng.standard_normal(50).astype(np.float32)
    prog, g, out, inputs = _fused(lambda a: (a * 2 + 1) * (a * 3 - 1), x)
    assert K.scratch_buffers(prog) == 1
    np.testing.assert_array_equal(out.run(inputs)[0], g.run(inputs)[0])


def test_numpy_value_used_twice_by_its_last_user_frees_one_buffer(rng):
    """``t + t`` frees ``t``'s buffer once: two later steps sharing it gave wrong values."""
    x = rng.standard_normal((3, 4)).astype(np.float32)

    def fn(a):
        t = (a.abs() + 1.0).sqrt()
        u = ((t + t).abs() + 1.0).sqrt()
        return ((-u.abs()).exp() * 3.0 + 1.0).sqrt() * 0.5

    prog, g, out, inputs = _fused(fn, x)
    plan, _ = K._numpy_plan(prog)
    where = [b for _, _, b in plan]  # each step's buffer
    last = {v: k for k, s in enumerate(prog.steps) for kind, v in s[1] if kind == "s"}
    for j in range(len(plan)):  # no step writes over a value a later step still reads
        assert all(where[v] != where[j] for v in range(j) if last.get(v, -1) > j), j
    np.testing.assert_allclose(out.run(inputs)[0], g.run(inputs)[0], rtol=1e-6)


def test_numpy_mixed_dtypes_and_broadcasting(rng):
    x = rng.standard_normal((3, 1)).astype(np.float32)
    y = rng.standard_normal((1, 4)).astype(np.float32)
    prog, g, out, inputs = _fused(lambda a, b: (a < b).float() * a + b, x, y)
    assert {str(np.dtype(s[4])) for s in prog.steps} == {"bool", "float32"}
    np.testing.assert_array_equal(out.run(inputs)[0], g.run(inputs)[0])


def test_python_kernel_is_one_generated_function(rng):
    x, y = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2))
    prog, g, out, inputs = _fused(chain, x, y, device="python")
    src = K.python_source(prog)
    assert src.startswith("def kernel(i0, i1):") and src.count("\n") == 9
    got, want = out.run(inputs)[0], g.run(inputs)[0]
    assert type(got).__module__.startswith("stridegrad.array")
    assert got.tolist() == want.tolist()  # the same float operations, exactly


def test_cuda_source_is_typed_c(rng):
    x = rng.standard_normal(8).astype(np.float32)
    prog, *_ = _fused(lambda a: ((a * 2.0).exp() + a.relu()).tanh(), x)
    in_p, out_p, body = K.cuda_source(prog, [np.dtype("float32"), np.dtype("float32")])
    assert in_p.startswith("float32 i0") and out_p == "float32 out"
    assert "float s0 = ((float)i0 * (float)((float)2.0));" in body
    assert "exp((float)s0)" in body and "tanh(" in body and body.endswith("out = s4;")
    assert body.count(";") == len(prog.steps) + 1


def test_expression_reads_like_the_code(rng):
    x = rng.standard_normal(8).astype(np.float32)
    prog, *_ = _fused(lambda a: (a * 2.0).exp() - a, x)
    assert K.expression(prog, ["x"]) == "exp((x * 2.0)) - x"


def test_generic_namespace_runs_step_by_step(rng):
    x, y = (rng.standard_normal(6).astype(np.float32) for _ in range(2))
    prog, g, _, inputs = _fused(chain, x, y)

    class Wrapped:  # a namespace that is not NumPy: the fallback path
        __name__ = "other"

        def __getattr__(self, name):
            return getattr(np, name)

    got = K.run_fused(Wrapped(), prog, tuple(inputs))
    np.testing.assert_allclose(got, g.run(inputs)[0], rtol=1e-6)


@pytest.mark.cuda
def test_cuda_kernel_runs(rng):
    ok, reason = backend.device_available("cuda")
    if not ok:
        pytest.skip(f"cuda: {reason}")
    x, y = (rng.standard_normal(1000).astype(np.float32) for _ in range(2))
    _, g, out, inputs = _fused(chain, x, y, device="cuda")
    got = backend.to_numpy(out.run(inputs)[0], "cuda")
    np.testing.assert_allclose(got, backend.to_numpy(g.run(inputs)[0], "cuda"), rtol=1e-5)
