"""conv2d, unfold, max_pool2d, avg_pool2d and their layers, on every backend.

Oracles: plain NumPy loops over output positions (forward and backward, no
torch needed), central differences (gradcheck), and PyTorch in float64 when it
is installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import stridegrad as sg
from stridegrad import nn
from stridegrad.nn import conv
from stridegrad.nn import functional as F

N_CASES = 4


# --------------------------------------------------------------------------- NumPy loop references


def _conv_ref(a, w, b, s, p, g):
    """Forward and (dx, dw, db) for the output gradient ``g``, one output position at a time."""
    n, c, h, wd = a.shape
    oc, _, kh, kw = w.shape
    ap = np.pad(a, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh, ow = (h + 2 * p[0] - kh) // s[0] + 1, (wd + 2 * p[1] - kw) // s[1] + 1
    out = np.zeros((n, oc, oh, ow))
    dap, dw = np.zeros_like(ap), np.zeros_like(w)
    for i in range(oh):
        for j in range(ow):
            rows = slice(i * s[0], i * s[0] + kh)
            cols = slice(j * s[1], j * s[1] + kw)
            patch = ap[:, :, rows, cols]
            out[:, :, i, j] = np.einsum("nckl,ockl->no", patch, w) + b
            dw += np.einsum("no,nckl->ockl", g[:, :, i, j], patch)
            dap[:, :, rows, cols] += np.einsum("no,ockl->nckl", g[:, :, i, j], w)
    dx = dap[:, :, p[0] : p[0] + h, p[1] : p[1] + wd]
    return out, dx, dw, g.sum(axis=(0, 2, 3))


def _pool_ref(a, k, s, kind, g):
    n, c, h, w = a.shape
    oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
    out, dx = np.zeros((n, c, oh, ow)), np.zeros_like(a)
    for i in range(oh):
        for j in range(ow):
            rows, cols = slice(i * s[0], i * s[0] + k[0]), slice(j * s[1], j * s[1] + k[1])
            win = a[:, :, rows, cols].reshape(n, c, -1)
            if kind == "max":
                out[:, :, i, j] = win.max(axis=-1)
                onehot = win == win.max(axis=-1, keepdims=True)  # no ties in random data
                dx[:, :, rows, cols] += (onehot * g[:, :, i, j, None]).reshape(n, c, *k)
            else:
                out[:, :, i, j] = win.mean(axis=-1)
                dx[:, :, rows, cols] += g[:, :, i, j, None, None] / (k[0] * k[1])
    return out, dx


def _conv_case(rng):
    n, c, oc = (int(v) for v in rng.integers(1, 4, size=3))
    kh, kw = (int(v) for v in rng.integers(1, 4, size=2))
    s = tuple(int(v) for v in rng.integers(1, 3, size=2))
    p = tuple(int(v) for v in rng.integers(0, 3, size=2))
    h = int(rng.integers(max(kh - 2 * p[0], 1), 7))
    w = int(rng.integers(max(kw - 2 * p[1], 1), 7))
    return (n, c, h, w), (oc, c, kh, kw), s, p


def _pool_case(rng):
    k = tuple(int(v) for v in rng.integers(1, 4, size=2))
    s = tuple(int(v) for v in rng.integers(1, 4, size=2))
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4)),
             int(rng.integers(k[0], 8)), int(rng.integers(k[1], 8)))
    return shape, k, s


def _grads(device, fn, arrays, g):
    ts = [sg.tensor(a, device=device, requires_grad=True) for a in arrays]
    y = fn(*ts)
    y.backward(sg.tensor(g, device=device))
    return y.numpy(), [t.grad.numpy() for t in ts]


# --------------------------------------------------------------------------- values and gradients


def test_conv2d_matches_numpy_loops(device):
    rng = np.random.default_rng(21)
    for _ in range(N_CASES):
        xs, ws, s, p = _conv_case(rng)
        a, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
        oh = (xs[2] + 2 * p[0] - ws[2]) // s[0] + 1
        ow = (xs[3] + 2 * p[1] - ws[3]) // s[1] + 1
        g = rng.standard_normal((xs[0], ws[0], oh, ow))
        ref, dx, dw, db = _conv_ref(a, w, b, s, p, g)
        y, (gx, gw, gb) = _grads(
            device, lambda x, w, b, s=s, p=p: F.conv2d(x, w, b, stride=s, padding=p), (a, w, b), g
        )
        np.testing.assert_allclose(y, ref, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gx, dx, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gw, dw, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gb, db, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pooling_matches_numpy_loops(device, kind):
    op = F.max_pool2d if kind == "max" else F.avg_pool2d
    rng = np.random.default_rng(22)
    for _ in range(N_CASES):
        shape, k, s = _pool_case(rng)
        a = rng.standard_normal(shape)
        oh, ow = (shape[2] - k[0]) // s[0] + 1, (shape[3] - k[1]) // s[1] + 1
        g = rng.standard_normal(shape[:2] + (oh, ow))
        ref, dx = _pool_ref(a, k, s, kind, g)
        y, (gx,) = _grads(device, lambda x, k=k, s=s: op(x, k, s), (a,), g)
        np.testing.assert_allclose(y, ref, rtol=1e-12)
        np.testing.assert_allclose(gx, dx, rtol=1e-12, atol=1e-12)


def test_gradcheck(device):
    rng = np.random.default_rng(23)
    for _ in range(2):
        xs, ws, s, p = _conv_case(rng)
        x = sg.tensor(rng.standard_normal(xs), device=device, requires_grad=True)
        w = sg.tensor(rng.standard_normal(ws), device=device, requires_grad=True)
        b = sg.tensor(rng.standard_normal(ws[0]), device=device, requires_grad=True)
        assert sg.gradcheck(lambda x, w, b, s=s, p=p: F.conv2d(x, w, b, s, p), (x, w, b))
        k = ws[2:]
        assert sg.gradcheck(lambda x, k=k, s=s, p=p: F.unfold(x, k, s, p), (x,))
        shape, k, s = _pool_case(rng)
        x = sg.tensor(rng.standard_normal(shape), device=device, requires_grad=True)
        assert sg.gradcheck(lambda x, k=k, s=s: F.max_pool2d(x, k, s), (x,))
        assert sg.gradcheck(lambda x, k=k, s=s: F.avg_pool2d(x, k, s), (x,))


def test_unbatched_input_and_defaults(device):
    rng = np.random.default_rng(24)
    a, w = rng.standard_normal((2, 5, 6)), rng.standard_normal((3, 2, 3, 3))
    x, wt = sg.tensor(a, device=device), sg.tensor(w, device=device)
    y = F.conv2d(x, wt, padding=1)
    assert y.shape == (3, 5, 6)
    np.testing.assert_allclose(y.numpy(), F.conv2d(x.unsqueeze(0), wt, padding=1)[0].numpy())
    assert F.max_pool2d(x, 2).shape == (2, 2, 3)  # stride defaults to the kernel
    np.testing.assert_allclose(F.avg_pool2d(x, (5, 6)).numpy(), a.mean(axis=(1, 2))[:, None, None])


def test_window_view_copies_nothing():
    a = np.arange(2 * 3 * 6 * 7, dtype=np.float64).reshape(2, 3, 6, 7)
    w = conv._windows(sg.tensor(a), (3, 2), (2, 1))
    assert w.shape == (2, 3, 2, 6, 3, 2)
    assert np.shares_memory(w._data, sg.tensor(a)._data) or w._data.base is not None
    x = sg.tensor(a, device="python")
    wp = conv._windows(x, (3, 2), (2, 1))
    assert wp._data.storage is x._data.storage  # the same flat list, seen with 6 strides
    assert wp._data.strides == (126, 42, 14, 1, 7, 1)
    np.testing.assert_array_equal(wp.numpy(), w.numpy())


def test_float32_stays_float32(device):
    x = sg.randn(2, 3, 5, 5, device=device, requires_grad=True)
    layer = nn.Conv2d(3, 4, 3, padding=1, device=device)
    y = F.max_pool2d(layer(x).relu(), 2)
    assert y.dtype == sg.float32 and y.shape == (2, 4, 2, 2)
    y.sum().backward()
    assert x.grad.dtype == sg.float32 and layer.weight.grad.shape == (4, 3, 3, 3)


# --------------------------------------------------------------------------- the NumPy path vs the teaching paths

# (input shape, weight shape, stride, padding): non-square images, kernels, strides and
# paddings, 1x1 kernels, a kernel as large as the padded input, batch 1, many channels
FUSED_CASES = [
    ((2, 3, 7, 5), (4, 3, 3, 3), (1, 1), (1, 1)),
    ((1, 2, 6, 9), (3, 2, 2, 4), (2, 1), (0, 2)),
    ((3, 1, 8, 8), (2, 1, 3, 3), (2, 2), (1, 1)),
    ((1, 4, 5, 6), (5, 4, 1, 1), (1, 1), (0, 0)),
    ((2, 3, 9, 7), (2, 3, 5, 3), (3, 2), (2, 0)),
    ((1, 8, 4, 4), (6, 8, 3, 3), (1, 1), (2, 2)),
    ((5, 2, 3, 4), (3, 2, 3, 4), (1, 1), (0, 0)),  # one output position per image
    ((4, 16, 10, 10), (32, 16, 3, 3), (1, 1), (1, 1)),  # the benchmark's layer, smaller
]


def _lesson_conv(a, w, b, s, p, g):
    """Forward and (dx, dw, db) from lesson 12's own functions, one image at a time."""
    from stridegrad.nn import im2col as lesson

    oc, c, kh, kw = w.shape
    w2 = w.reshape(oc, c * kh * kw)
    ys, dxs, dw = [], [], np.zeros_like(w2)
    for xi, gi in zip(a, g):
        xp = np.pad(xi, ((0, 0), (p[0], p[0]), (p[1], p[1])))
        cols = lesson.im2col(xp, (kh, kw), s)
        gi2 = gi.reshape(oc, -1)
        ys.append((w2 @ cols).reshape(gi.shape) + b[:, None, None])
        dw += gi2 @ cols.T
        dxp = lesson.col2im(w2.T @ gi2, xp.shape, (kh, kw), s)
        dxs.append(dxp[:, p[0] : p[0] + xi.shape[1], p[1] : p[1] + xi.shape[2]])
        if s[0] == s[1] and p[0] == p[1]:  # the lesson's conv2d takes one int each
            np.testing.assert_allclose(lesson.conv2d(xi, w, b, s[0], p[0]), ys[-1], rtol=1e-12)
            np.testing.assert_allclose(
                lesson.conv2d_input_grad(gi, w, xi.shape, s[0], p[0]), dxs[-1], rtol=1e-12
            )
    return np.stack(ys), np.stack(dxs), dw.reshape(w.shape), g.sum(axis=(0, 2, 3))


def _run_path(fn, arrays, g, s, p, needs=(True, True, True)):
    """``fn(x, w, b, s, p)`` forward and backward: output, node name, the three grads."""
    ts = [sg.tensor(v, requires_grad=r) for v, r in zip(arrays, needs)]
    y = fn(*ts, s, p)
    name = y.grad_fn.name() if y.grad_fn is not None else None
    if any(needs):
        y.backward(sg.tensor(g))
    return y.numpy(), name, [None if t.grad is None else t.grad.numpy() for t in ts]


def _case_arrays(rng, xs, ws, s, p, dtype=np.float64):
    a, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
    oh = (xs[2] + 2 * p[0] - ws[2]) // s[0] + 1
    ow = (xs[3] + 2 * p[1] - ws[3]) // s[1] + 1
    g = rng.standard_normal((xs[0], ws[0], oh, ow))
    return [v.astype(dtype) for v in (a, w, b)], g.astype(dtype)


@pytest.mark.parametrize("case", FUSED_CASES, ids=lambda c: f"{c[0]}*{c[1]}/s{c[2]}p{c[3]}")
def test_numpy_path_equals_teaching_paths(case):
    """conv2d on NumPy (one ConvolutionBackward node) gives what lesson 12's im2col and
    col2im give, and what the composed path (im2col as Tensor ops) gives, in float64."""
    xs, ws, s, p = case
    arrays, g = _case_arrays(np.random.default_rng(26), xs, ws, s, p)
    y, name, grads = _run_path(F.conv2d, arrays, g, s, p)
    assert name == "ConvolutionBackward"
    cy, cname, cgrads = _run_path(conv._conv2d_composed, arrays, g, s, p)
    assert cname != "ConvolutionBackward"
    lesson = _lesson_conv(*arrays, s, p, g)
    for ours, composed, ref in zip([y, *grads], [cy, *cgrads], lesson):
        np.testing.assert_allclose(ours, composed, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", FUSED_CASES, ids=lambda c: f"{c[0]}*{c[1]}/s{c[2]}p{c[3]}")
def test_numpy_path_matches_pytorch_float64(case):
    torch = pytest.importorskip("torch")
    xs, ws, s, p = case
    arrays, g = _case_arrays(np.random.default_rng(27), xs, ws, s, p)
    tt = [torch.tensor(v, requires_grad=True) for v in arrays]
    ty = torch.nn.functional.conv2d(*tt, stride=s, padding=p)
    ty.backward(torch.tensor(g))
    y, name, grads = _run_path(F.conv2d, arrays, g, s, p)
    assert name == "ConvolutionBackward"
    np.testing.assert_allclose(y, ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    for ours, t in zip(grads, tt):
        np.testing.assert_allclose(ours, t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_numpy_path_computes_only_the_grads_asked_for():
    rng = np.random.default_rng(28)
    xs, ws, s, p = (2, 3, 6, 5), (4, 3, 3, 2), (1, 2), (1, 0)
    arrays, g = _case_arrays(rng, xs, ws, s, p)
    _, _, full = _run_path(conv._conv2d_composed, arrays, g, s, p)
    for needs in [(True, False, False), (False, True, False), (False, False, True),
                  (True, True, False)]:
        _, name, grads = _run_path(F.conv2d, arrays, g, s, p, needs)
        assert name == "ConvolutionBackward"
        for want, got, ref in zip(needs, grads, full):
            if want:
                np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
            else:
                assert got is None
    y, name, _ = _run_path(F.conv2d, arrays, g, s, p, (False, False, False))
    assert name is None
    x, w = (sg.tensor(v, requires_grad=True) for v in arrays[:2])
    with sg.no_grad():
        assert F.conv2d(x, w, stride=s, padding=p).grad_fn is None
    yb = F.conv2d(x, w, stride=s, padding=p)  # no bias
    yb.backward(sg.tensor(g))
    np.testing.assert_allclose(yb.numpy(), y - arrays[2][:, None, None], rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), full[0], rtol=1e-12, atol=1e-12)


def test_fast_path_in_chunks_of_images(monkeypatch):
    """The fast path's output and input gradient made one image at a time, and two at a
    time with a rest, equal those made in one pass."""
    rng = np.random.default_rng(29)
    xs, ws, s, p = (5, 3, 6, 7), (4, 3, 3, 3), (1, 1), (1, 2)
    arrays, g = _case_arrays(rng, xs, ws, s, p)
    monkeypatch.setattr(conv, "_CHUNK_BYTES", 1 << 30)
    y, _, whole = _run_path(F.conv2d, arrays, g, s, p)
    per_image = 3 * 3 * 3 * 6 * 9 * 8  # bytes of one image's columns (6 x 9 outputs)
    for chunk in (1, 2 * per_image):
        monkeypatch.setattr(conv, "_CHUNK_BYTES", chunk)
        got_y, name, grads = _run_path(F.conv2d, arrays, g, s, p)
        assert name == "ConvolutionBackward" and got_y.shape == (5, 4, 6, 9)
        np.testing.assert_array_equal(got_y, y)
        for got, ref in zip(grads, whole):
            np.testing.assert_array_equal(got, ref)


def test_numpy_path_float32_views_and_freed_graph():
    rng = np.random.default_rng(30)
    a = rng.standard_normal((3, 8, 6, 2)).astype(np.float32)  # channels last
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    grads = []
    for fn in (F.conv2d, lambda x, w, padding: conv._conv2d_composed(x, w, None, (1, 1), padding)):
        x, wt = sg.tensor(a, requires_grad=True), sg.tensor(w, requires_grad=True)
        xin = x.permute(0, 3, 1, 2)  # (3, 2, 8, 6), a view that is not contiguous
        assert not xin._data.flags.c_contiguous
        y = fn(xin, wt, padding=(1, 0))
        y.sum().backward()  # the output gradient is a broadcast (stride 0) array
        assert y.dtype == x.grad.dtype == wt.grad.dtype == sg.float32
        grads.append((y.grad_fn.name(), y.numpy(), x.grad.numpy(), wt.grad.numpy()))
    (name, *ours), (cname, *composed) = grads
    assert name == "ConvolutionBackward" != cname
    for got, ref in zip(ours, composed):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="ConvolutionBackward"):
        y = F.conv2d(sg.tensor(a.transpose(0, 3, 1, 2), requires_grad=True), wt)
        loss = y.sum()
        loss.backward()
        loss.backward()


def test_mixed_dtypes_take_the_composed_path():
    x = sg.randn(1, 2, 5, 5, requires_grad=True)  # float32
    w = sg.tensor(np.ones((3, 2, 3, 3)), requires_grad=True)  # float64
    y = F.conv2d(x, w)
    assert y.grad_fn.name() != "ConvolutionBackward"
    assert y.dtype == conv._conv2d_composed(x, w, None, (1, 1), (0, 0)).dtype


# --------------------------------------------------------------------------- lesson 12's functions, the fast path

LESSON_12 = ["window_layout", "im2col", "conv2d", "col2im", "max_pool2d", "conv2d_input_grad"]


def _spies(monkeypatch) -> dict:
    """A counting spy in place of each of lesson 12's functions in ``stridegrad.nn.im2col``
    (as ``stridegrad yours`` installs a learner's): the counts of their calls."""
    from stridegrad.nn import im2col

    counts = dict.fromkeys(LESSON_12, 0)

    def spy_on(name, fn):
        def spy(*args, **kwargs):
            counts[name] += 1
            return fn(*args, **kwargs)

        return spy

    for name in LESSON_12:
        monkeypatch.setattr(im2col, name, spy_on(name, getattr(im2col, name)))
    return counts


def _step(xs, ws, s, p, dtype, seed=31, fn=F.conv2d):
    arrays, g = _case_arrays(np.random.default_rng(seed), xs, ws, s, p, dtype)
    return _run_path(fn, arrays, g, s, p)


def test_the_library_runs_lesson_12s_functions_on_numpy(monkeypatch):
    """On NumPy, a stride-2 conv2d runs the lesson's conv2d and im2col per image, its
    backward conv2d_input_grad (and so col2im); max_pool2d runs the lesson's max_pool2d
    once and col2im in its backward; window views are laid out by window_layout."""
    counts = _spies(monkeypatch)
    _step((3, 2, 7, 6), (4, 2, 3, 3), (2, 2), (1, 1), np.float32)
    assert counts["conv2d"] == 3 and counts["conv2d_input_grad"] == 3
    assert counts["im2col"] == 6 and counts["col2im"] == 3  # forward's and weight grad's
    x = sg.tensor(np.random.default_rng(0).standard_normal((2, 3, 6, 6)), requires_grad=True)
    before = dict(counts)
    F.max_pool2d(x, 2).sum().backward()
    assert counts["max_pool2d"] == before["max_pool2d"] + 1
    assert counts["col2im"] == before["col2im"] + 1
    before = dict(counts)
    conv._windows(sg.tensor(np.zeros((1, 1, 4, 4)), device="python"), (2, 2), (1, 1))
    assert counts["window_layout"] == before["window_layout"] + 1


def test_the_fast_path_steps_aside_for_a_learners_function(monkeypatch):
    """A 3x3 stride-1 layer takes the fast path (none of the lesson's functions), unless
    one of lesson 12's functions is not the library's own: then it runs them, so that
    a learner's im2col is what trains their CNN."""
    from stridegrad.nn import im2col

    assert conv._fast_path((3, 3), (1, 1)) and not conv._fast_path((3, 3), (2, 2))
    assert not conv._fast_path((5, 5), (1, 1))
    counts = _spies(monkeypatch)
    assert not conv._fast_path((3, 3), (1, 1))
    _step((2, 3, 6, 6), (4, 3, 3, 3), (1, 1), (1, 1), np.float32)
    assert counts["conv2d"] == 2 and counts["conv2d_input_grad"] == 2
    monkeypatch.undo()
    assert conv._fast_path((3, 3), (1, 1))
    counts = dict.fromkeys(LESSON_12, 0)
    monkeypatch.setattr(im2col, "im2col", lambda *a, **k: counts.__setitem__("im2col", 1))
    assert not conv._fast_path((3, 3), (1, 1))


FAST_CASES = [
    ((2, 3, 7, 5), (4, 3, 3, 3), (1, 1)),
    ((3, 2, 6, 9), (5, 2, 3, 3), (0, 2)),  # no padding on one axis, odd and even sizes
    ((1, 4, 3, 3), (2, 4, 3, 3), (0, 0)),  # one output position
    ((9, 16, 12, 10), (32, 16, 3, 3), (1, 1)),  # the benchmark's channels, many chunks
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", FAST_CASES, ids=lambda c: f"{c[0]}*{c[1]}p{c[2]}")
def test_the_fast_path_equals_lesson_12s_functions(monkeypatch, case, dtype):
    """The fast path's output and three gradients equal those of the library's path
    through lesson 12's functions (forced by a spy in the module), float32 to its
    precision."""
    xs, ws, p = case
    y, name, grads = _step(xs, ws, (1, 1), p, dtype)
    assert name == "ConvolutionBackward" and y.dtype == dtype
    counts = _spies(monkeypatch)
    ly, lname, lgrads = _step(xs, ws, (1, 1), p, dtype)
    assert lname == "ConvolutionBackward" and counts["im2col"] == 2 * xs[0]  # fwd, weight
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for ours, lesson in zip([y, *grads], [ly, *lgrads]):
        assert ours.dtype == lesson.dtype == dtype
        scale = max(1.0, float(np.abs(lesson).max()))
        np.testing.assert_allclose(ours, lesson, rtol=tol, atol=tol * scale)


def test_max_pool_ties_share_the_gradient_evenly():
    a = np.array([[[[1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [2.0, 2.0, 2.0]]]])
    for device in ("cpu", "python"):
        x = sg.tensor(a, requires_grad=True, device=device)
        F.max_pool2d(x, 2, 1).sum().backward()
        # windows: three 1s (1/3 each); one 1; two 2s twice (1/2 each)
        np.testing.assert_allclose(x.grad.numpy()[0, 0], [[1 / 3, 4 / 3, 0.0],
                                                         [1 / 3, 0.0, 0.0],
                                                         [0.5, 1.0, 0.5]], rtol=1e-12)


# --------------------------------------------------------------------------- errors


def test_errors_name_shapes():
    x = sg.randn(2, 3, 8, 8)
    with pytest.raises(ValueError, match=r"input has 3 channels but weight \(8, 1, 3, 3\) expects 1"):
        F.conv2d(x, sg.randn(8, 1, 3, 3))
    with pytest.raises(ValueError, match=r"input must be \(N, C, H, W\).*\(8, 8\)"):
        F.conv2d(sg.randn(8, 8), sg.randn(8, 1, 3, 3))
    with pytest.raises(ValueError, match=r"weight must be a 4-D Tensor.*\(8, 3\)"):
        F.conv2d(x, sg.randn(8, 3))
    with pytest.raises(ValueError, match=r"bias must have shape \(8,\).*got \(3,\)"):
        F.conv2d(x, sg.randn(8, 3, 3, 3), sg.randn(3))
    with pytest.raises(ValueError, match=r"kernel \(9, 9\) is larger than the padded input"):
        F.conv2d(x, sg.randn(1, 3, 9, 9))
    with pytest.raises(ValueError, match="stride must be an int or a pair of ints >= 1, got 0"):
        F.conv2d(x, sg.randn(1, 3, 3, 3), stride=0)
    with pytest.raises(ValueError, match="padding .* >= 0, got -1"):
        F.conv2d(x, sg.randn(1, 3, 3, 3), padding=-1)
    with pytest.raises(TypeError, match="floating dtype, got int64"):
        F.max_pool2d(sg.tensor(np.zeros((1, 1, 4, 4), dtype=np.int64)), 2)
    with pytest.raises(ValueError, match=r"max_pool2d: kernel \(3, 3\) is larger.*\(2, 2\)"):
        F.max_pool2d(sg.randn(1, 1, 2, 2), 3)
    with pytest.raises(ValueError, match=r"kernel_size must be an int or a pair.*\(1, 2, 3\)"):
        F.avg_pool2d(x, (1, 2, 3))
    with pytest.raises(TypeError, match="avg_pool2d expects a Tensor"):
        F.avg_pool2d(np.zeros((1, 1, 4, 4)), 2)
    with pytest.raises(ValueError, match="Conv2d: in_channels must be a positive int"):
        nn.Conv2d(0, 3, 3)


# --------------------------------------------------------------------------- layers


def test_conv2d_layer_init_and_repr():
    sg.manual_seed(0)
    layer = nn.Conv2d(4, 16, (3, 5), stride=2, padding=(1, 2))
    w, b = layer.weight.numpy(), layer.bias.numpy()
    assert w.shape == (16, 4, 3, 5) and b.shape == (16,)
    bound = 1 / math.sqrt(4 * 3 * 5)  # PyTorch: kaiming_uniform(a=sqrt(5)) on the fan-in
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.9 * bound  # and uses the interval
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    assert repr(layer) == (
        "Conv2d(4, 16, kernel_size=(3, 5), stride=(2, 2), padding=(1, 2), bias=True)"
    )
    assert nn.Conv2d(1, 2, 3, bias=False).bias is None
    assert layer(sg.randn(2, 4, 9, 9)).shape == (2, 16, 5, 5)


def test_small_cnn_layers():
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2, stride=2),
        nn.Flatten(), nn.Linear(6 * 2 * 2, 10),
    )
    x = sg.randn(5, 1, 8, 8)
    y = model(x)
    assert y.shape == (5, 10)
    F.cross_entropy(y, np.arange(5)).backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in model.parameters())
    assert repr(model[2]) == "MaxPool2d(kernel_size=(2, 2), stride=(2, 2))"
    assert nn.Flatten()(sg.zeros(2, 3, 4)).shape == (2, 12)
    assert nn.Flatten(0, 1)(sg.zeros(2, 3, 4)).shape == (6, 4)


# --------------------------------------------------------------------------- PyTorch as a second oracle


def test_matches_pytorch_float64():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    rng = np.random.default_rng(25)
    for _ in range(3 * N_CASES):
        xs, ws, s, p = _conv_case(rng)
        arrays = (rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0]))
        tt = [torch.tensor(a, requires_grad=True) for a in arrays]
        ty = tf.conv2d(*tt, stride=s, padding=p)
        g = rng.standard_normal(tuple(ty.shape))
        ty.backward(torch.tensor(g))
        y, grads = _grads("cpu", lambda x, w, b, s=s, p=p: F.conv2d(x, w, b, s, p), arrays, g)
        np.testing.assert_allclose(y, ty.detach().numpy(), rtol=1e-10, atol=1e-12)
        for ours, t in zip(grads, tt):
            np.testing.assert_allclose(ours, t.grad.numpy(), rtol=1e-10, atol=1e-12)
        tu = tf.unfold(torch.tensor(arrays[0]), ws[2:], padding=p, stride=s)
        np.testing.assert_array_equal(F.unfold(sg.tensor(arrays[0]), ws[2:], s, p).numpy(), tu)
        shape, k, s = _pool_case(rng)
        a = rng.standard_normal(shape)
        for ours_op, torch_op in ((F.max_pool2d, tf.max_pool2d), (F.avg_pool2d, tf.avg_pool2d)):
            ta = torch.tensor(a, requires_grad=True)
            ty = torch_op(ta, k, s)
            g = rng.standard_normal(tuple(ty.shape))
            ty.backward(torch.tensor(g))
            y, (gx,) = _grads("cpu", lambda x, op=ours_op, k=k, s=s: op(x, k, s), (a,), g)
            np.testing.assert_allclose(y, ty.detach().numpy(), rtol=1e-12)
            np.testing.assert_allclose(gx, ta.grad.numpy(), rtol=1e-12, atol=1e-12)
