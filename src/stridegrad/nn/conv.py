"""Convolution and pooling through strides: windows as a view, im2col as its reshape.

For an ``(N, C, H, W)`` input and a ``(kh, kw)`` kernel moved by ``(sh, sw)``:

1. the windows are a *view* of shape ``(N, C, OH, OW, kh, kw)``, laid out by lesson
   12's ``window_layout``: the input's four strides, the row and column strides
   multiplied by ``(sh, sw)``, then the row and column strides once more; nothing
   is copied;
2. im2col is a reshape of that view to ``(N, C * kh * kw, OH * OW)`` (the one copy;
   PyTorch's ``unfold`` layout, whose inner loop runs along image rows);
3. convolution is one matmul of the ``(OC, C * kh * kw)`` weight with those columns,
   which gives ``(N, OC, OH * OW)``: the output in NCHW order, with no transpose;
4. the backward of the window view is col2im: each window's gradient is added
   back where the window was read, a scatter-add done as ``kh * kw`` strided
   slice additions (the transpose of the view).

Lesson 12's functions are the library's own (:mod:`stridegrad.nn.im2col`), called
through that module so that ``stridegrad yours`` can put a learner's in their place:

* every window view over an array with strides (NumPy, CuPy, the ``python`` device's
  strided arrays) is laid out by ``im2col.window_layout``;
* on NumPy (one dtype), ``conv2d`` is one graph node (``ConvolutionBackward``) whose
  forward runs ``im2col.conv2d`` on each image and whose backward runs
  ``im2col.conv2d_input_grad`` (so ``col2im``) and ``im2col.im2col`` for the weight's
  gradient, image by image; ``max_pool2d`` runs ``im2col.max_pool2d`` on the batch's
  ``N * C`` channels at once and ``im2col.col2im`` in its backward (``MaxPoolBackward``);
* elsewhere (the ``python`` device, ``array_api_strict``, mixed dtypes) everything but
  two nodes (padding, windows) is composed from Tensor ops, so autograd derives the
  rest: the teaching path, lesson 12's im2col step by step as Tensor ops. A namespace
  without strides gathers the same windows with ``kh * kw`` slices.

One layer has a fast path of its own on NumPy: a 3 x 3 kernel moved 1 at a time (the
CNN's and the benchmark's), while all of lesson 12's functions are the library's own.
A learner's function installed in :mod:`stridegrad.nn.im2col` turns it off, so their
code is what runs. It computes the same products and sums, scheduled for the cache:
the forward makes the im2col columns of a few images at a time and multiplies them
while they are in cache, keeping them for the weight's gradient (one matmul of the
output gradient with them); the input's gradient is made a few images at a time too,
each chunk's columns folded back at once, with the output gradient widened to the
padded width so that each kernel offset is one shift of a flat image (``kh * kw``
contiguous additions). Tests hold it to the path through lesson 12's functions, to
the composed path and to PyTorch, in float32 and float64.

Winograd's F(2x2, 3x3) was measured on the benchmark's layer and left out: its 16
matmuls have only 16 or 32 channels to sum over, so they ran no faster than im2col's
three, and its transforms of input, output and gradients alone cost more than the
whole im2col step (in NumPy, 2026-12-02: 2.7 ms for the input transform and 2.1 ms
for the output's, against 0.7 ms for the im2col copy).
"""

from __future__ import annotations

import operator
from types import ModuleType
from typing import Any

import numpy as np

from stridegrad.tensor import _base
from stridegrad.tensor import Node, Tensor, _edge, _wrap

from . import im2col

__all__ = ["avg_pool2d", "conv2d", "max_pool2d", "unfold"]

Pair = tuple[int, int]


def _pair(v: Any, name: str, fn: str, least: int) -> Pair:
    """An int or a pair of ints (each ``>= least``) as a pair."""
    items = (v, v) if not isinstance(v, (tuple, list)) else tuple(v)
    try:
        out = tuple(operator.index(i) for i in items)
    except TypeError:
        raise TypeError(f"{fn}: {name} is an int or a pair of ints, got {v!r}") from None
    if len(out) != 2 or any(i < least for i in out):
        raise ValueError(f"{fn}: {name} must be an int or a pair of ints >= {least}, got {v!r}")
    return out  # type: ignore[return-value]


def _check_input(x: Any, fn: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn} expects a Tensor, got {type(x).__name__}")
    if x.ndim not in (3, 4):
        raise ValueError(f"{fn}: input must be (N, C, H, W) or (C, H, W), got shape {x.shape}")
    if not x.dtype.is_floating_point:
        raise TypeError(f"{fn}: input must have a floating dtype, got {x.dtype.name}")
    return x


def _out_size(fn: str, shape: tuple, k: Pair, s: Pair, p: Pair) -> Pair:
    h, w = shape[-2] + 2 * p[0], shape[-1] + 2 * p[1]
    if k[0] > h or k[1] > w:
        raise ValueError(
            f"{fn}: kernel {k} is larger than the padded input ({h}, {w}) "
            f"(input shape {shape}, padding {p})"
        )
    return (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1


# --------------------------------------------------------------------------- padding


class PadBackward(Node):
    """Zero padding of the last two dims: the gradient is the interior slice."""

    __slots__ = ("key",)
    _fresh = False

    def __init__(self, edges, key):
        self._edges = edges
        self._released = False
        self.key = key

    def apply(self, g):
        return (g[self.key],)


def _pad2d(x: Tensor, p: Pair) -> Tensor:
    """Zeros around the last two dims: ``(..., H, W) -> (..., H + 2 ph, W + 2 pw)``."""
    if p == (0, 0):
        return x
    out, key = _pad_array(x._xp, x._data, p)
    node = PadBackward((_edge(x),), key) if _base._grad_enabled and x._requires_grad else None
    return _wrap(out, x._device, x._xp, node)


def _pad_array(xp: ModuleType, a: Any, p: Pair) -> tuple[Any, tuple]:
    """``a`` in a new zero array with ``p`` more rows and columns on each side, and the
    key of its interior (``a``'s place in it)."""
    h, w = a.shape[-2:]
    out = xp.zeros(a.shape[:-2] + (h + 2 * p[0], w + 2 * p[1]), dtype=a.dtype)
    key = (..., slice(p[0], p[0] + h), slice(p[1], p[1] + w))
    out[key] = a
    return out, key


# --------------------------------------------------------------------------- windows


def _window_slices(k: Pair, s: Pair, o: Pair) -> list[tuple]:
    """For each kernel offset ``(i, j)``: the slice of the input it reads in every window."""
    return [
        (..., slice(i, i + s[0] * (o[0] - 1) + 1, s[0]), slice(j, j + s[1] * (o[1] - 1) + 1, s[1]))
        for i in range(k[0])
        for j in range(k[1])
    ]


def _window_view(xp: ModuleType, a: Any, k: Pair, s: Pair) -> Any:
    """``(N, C, H, W) -> (N, C, OH, OW, kh, kw)`` as a read-only view laid out by lesson
    12's ``window_layout`` (called through :mod:`stridegrad.nn.im2col`), or None for a
    namespace without strides."""
    if isinstance(a, np.ndarray) or type(a).__module__.startswith("cupy"):
        item = a.itemsize  # NumPy's and CuPy's strides are in bytes, the layout's in elements
        shape, strides = im2col.window_layout(a.shape, tuple(t // item for t in a.strides), k, s)
        strides = tuple(t * item for t in strides)
        if isinstance(a, np.ndarray):
            return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=False)
        import cupy

        return cupy.lib.stride_tricks.as_strided(a, shape, strides)
    if hasattr(xp, "as_strided"):  # stridegrad.array: strides in elements already
        return xp.as_strided(a, *im2col.window_layout(a.shape, a.strides, k, s))
    return None


class WindowsBackward(Node):
    """col2im: add each window's gradient back where the window read the input."""

    __slots__ = ("k", "o", "s", "shape", "xp")

    def __init__(self, edges, xp, shape, k, s, o):
        self._edges = edges
        self._released = False
        self.xp, self.shape, self.k, self.s, self.o = xp, shape, k, s, o

    def apply(self, g):
        xp = self.xp
        z = xp.zeros(self.shape, dtype=g.dtype)
        kw = self.k[1]
        for n, key in enumerate(_window_slices(self.k, self.s, self.o)):
            z[key] += g[..., n // kw, n % kw]  # in place where the namespace allows
        return (z,)


def _windows(x: Tensor, k: Pair, s: Pair) -> Tensor:
    """All ``k``-sized windows of the last two dims, ``s`` apart:
    ``(..., H, W) -> (..., OH, OW, kh, kw)`` (a view where the namespace has strides).
    """
    xp = x._xp
    o = _out_size("windows", x.shape, k, s, (0, 0))
    out = _window_view(xp, x._data, k, s)
    if out is None:
        parts = [x._data[key] for key in _window_slices(k, s, o)]
        out = xp.reshape(xp.stack(parts, axis=-1), x.shape[:-2] + o + k)
    node = None
    if _base._grad_enabled and x._requires_grad:
        node = WindowsBackward((_edge(x),), xp, x.shape, k, s, o)
    return _wrap(out, x._device, xp, node)


def _unbatched(fn):
    """Let a batched ``fn(x, ...)`` take an unbatched ``(C, H, W)`` input as PyTorch does."""

    def wrapper(x, *args, **kwargs):
        _check_input(x, fn.__name__)
        if x.ndim == 3:
            return fn(x.unsqueeze(0), *args, **kwargs)[0]
        return fn(x, *args, **kwargs)

    wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = fn.__name__, fn.__name__, fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


# --------------------------------------------------------------------------- public ops


@_unbatched
def unfold(x: Tensor, kernel_size: Any, stride: Any = 1, padding: Any = 0) -> Tensor:
    """PyTorch's ``F.unfold`` (im2col): ``(N, C, H, W) -> (N, C * kh * kw, OH * OW)``."""
    k = _pair(kernel_size, "kernel_size", "unfold", 1)
    s = _pair(stride, "stride", "unfold", 1)
    p = _pair(padding, "padding", "unfold", 0)
    _out_size("unfold", x.shape, k, s, p)
    return _im2col(x, k, s, p)


def _im2col(x: Tensor, k: Pair, s: Pair, p: Pair) -> Tensor:
    """The window view, reshaped: ``(N, C, H, W) -> (N, C * kh * kw, OH * OW)``."""
    win = _windows(_pad2d(x, p), k, s)  # (N, C, OH, OW, kh, kw), a view
    n, c, oh, ow = win.shape[:4]
    return win.permute(0, 1, 4, 5, 2, 3).reshape(n, c * k[0] * k[1], oh * ow)


@_unbatched
def conv2d(
    x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0
) -> Tensor:
    """2-D cross-correlation, PyTorch's ``conv2d``: ``(N, C, H, W)``, ``(OC, C, kh, kw)``,
    ``(OC,)`` -> ``(N, OC, OH, OW)`` with ``OH = (H + 2 ph - kh) // sh + 1``.

    im2col (a reshape of the window view) and one matmul with the flattened weight. On
    NumPy the forward and its backward are one graph node (``ConvolutionBackward``):
    lesson 12's ``conv2d``, ``conv2d_input_grad`` and ``im2col`` image by image, or, for a
    3 x 3 kernel with stride 1, the fast path (see :mod:`stridegrad.nn.conv`).
    """
    if not isinstance(weight, Tensor) or weight.ndim != 4:
        got = weight.shape if isinstance(weight, Tensor) else type(weight).__name__
        raise ValueError(f"conv2d: weight must be a 4-D Tensor (OC, C, kh, kw), got {got}")
    n, c, _, _ = x.shape
    oc, wc, kh, kw = weight.shape
    if c != wc:
        raise ValueError(
            f"conv2d: input has {c} channels but weight {weight.shape} expects {wc} "
            f"(input shape {x.shape})"
        )
    if bias is not None and (not isinstance(bias, Tensor) or bias.shape != (oc,)):
        got = bias.shape if isinstance(bias, Tensor) else type(bias).__name__
        raise ValueError(
            f"conv2d: bias must have shape ({oc},) for weight {weight.shape}, got {got}"
        )
    s = _pair(stride, "stride", "conv2d", 1)
    p = _pair(padding, "padding", "conv2d", 0)
    _out_size("conv2d", x.shape, (kh, kw), s, p)
    if _fusable(x, weight, bias):
        return _conv2d_numpy(x, weight, bias, s, p)
    return _conv2d_composed(x, weight, bias, s, p)


def _conv2d_composed(x: Tensor, weight: Tensor, bias: Tensor | None, s: Pair, p: Pair) -> Tensor:
    """The teaching path: im2col as Tensor ops, one matmul; autograd derives the backward."""
    n, c = x.shape[:2]
    oc, _, kh, kw = weight.shape
    oh, ow = _out_size("conv2d", x.shape, (kh, kw), s, p)
    cols = _im2col(x, (kh, kw), s, p)  # (N, C * kh * kw, OH * OW)
    out = (weight.reshape(oc, c * kh * kw) @ cols).reshape(n, oc, oh, ow)
    return out if bias is None else out + bias.reshape(oc, 1, 1)


# --------------------------------------------------------------------------- conv2d in one node

#: the fast path makes its im2col columns, and the input gradient's, this many bytes at
#: a time (whole images, at least one), so that the next step reads them from cache:
#: measured on the benchmark's layer, chunks of 2-4 images (1-2 MiB) beat one pass over
#: the whole batch (by about 1.5x for col2im, 1.15x for the forward's matmul)
_CHUNK_BYTES = 1 << 21

#: lesson 12's functions as the library defines them (:mod:`stridegrad.nn.im2col`)
_LESSON_12 = {name: getattr(im2col, name) for name in im2col.__all__}


def _fusable(x: Tensor, weight: Tensor, bias: Tensor | None) -> bool:
    """NumPy arrays of one dtype take the one-node path; everything else composes
    (other namespaces, and mixed dtypes, which the composed path promotes)."""
    ts = (x, weight) if bias is None else (x, weight, bias)
    return all(type(t._data) is np.ndarray for t in ts) and len({t._data.dtype for t in ts}) == 1


def _fast_path(k: Pair, s: Pair) -> bool:
    """Whether a NumPy conv2d takes the fast path: a 3 x 3 kernel moved 1 at a time
    (the CNN's and the benchmark's layer), while lesson 12's functions are the library's
    own. Every other layer, and every layer while a learner's function is installed in
    :mod:`stridegrad.nn.im2col` (``stridegrad yours``), runs lesson 12's functions."""
    return k == (3, 3) and s == (1, 1) and all(
        getattr(im2col, name) is fn for name, fn in _LESSON_12.items())


def _conv2d_numpy(x: Tensor, weight: Tensor, bias: Tensor | None, s: Pair, p: Pair) -> Tensor:
    """conv2d on NumPy arrays of one dtype, with one node for the backward: lesson 12's
    functions image by image, or the fast path (:func:`_fast_path`)."""
    a, w = x._data, weight._data
    b = None if bias is None else bias._data
    k = w.shape[2:]
    fast = _fast_path(k, s)
    if fast:
        out, cols = _fast_forward(a, w, b, p)
    else:
        out, cols = _lesson_forward(a, w, b, s, p), None
    node = None
    wants = x._requires_grad or weight._requires_grad or (bias is not None and bias._requires_grad)
    if _base._grad_enabled and wants:
        edges = (_edge(x), _edge(weight), None if bias is None else _edge(bias))
        # the fast path's columns are only needed for the weight's gradient
        saved = cols if weight._requires_grad else None
        # the input is kept for the lesson path's weight gradient (its columns)
        kept = a if weight._requires_grad and not fast else None
        node = ConvolutionBackward(edges, kept, a.shape, w, saved, s, p, fast)
    return _wrap(out, x._device, x._xp, node)


def _lesson_forward(a: np.ndarray, w: np.ndarray, b: np.ndarray | None, s: Pair,
                    p: Pair) -> np.ndarray:
    """Lesson 12's ``conv2d`` on each image (its ``im2col`` and a matmul where the
    stride or the padding differ between the axes: the lesson's take one int each)."""
    n, oc, k = a.shape[0], w.shape[0], w.shape[2:]
    oh, ow = _out_size("conv2d", a.shape, k, s, p)
    out = np.empty((n, oc, oh, ow), dtype=a.dtype)
    if s[0] == s[1] and p[0] == p[1]:
        for i in range(n):
            out[i] = im2col.conv2d(a[i], w, b, s[0], p[0])
        return out
    padded = _pad_array(np, a, p)[0]
    w2 = w.reshape(oc, -1)
    for i in range(n):
        out[i] = (w2 @ im2col.im2col(padded[i], k, s)).reshape(oc, oh, ow)
    if b is not None:
        out += b[:, None, None]
    return out


def _fast_forward(a: np.ndarray, w: np.ndarray, b: np.ndarray | None,
                  p: Pair) -> tuple[np.ndarray, np.ndarray]:
    """The fast path's output and im2col columns ``(N, C * 9, OH * OW)``: the padded
    batch's window view copied into columns and multiplied by the weight, a chunk of
    images at a time (``_CHUNK_BYTES`` of columns)."""
    n, c = a.shape[:2]
    oc, _, kh, kw = w.shape
    padded = a if p == (0, 0) else _pad_array(np, a, p)[0]
    win = _window_view(np, padded, (kh, kw), (1, 1))  # (N, C, OH, OW, kh, kw), a view
    oh, ow = win.shape[2:4]
    cols = np.empty((n, c * kh * kw, oh * ow), dtype=a.dtype)
    out = np.empty((n, oc, oh * ow), dtype=a.dtype)
    w2 = w.reshape(oc, c * kh * kw)
    # a chunk of images at a time, so that the matmul reads the columns from cache
    m = max(1, min(n, _CHUNK_BYTES // (c * kh * kw * oh * ow * a.itemsize)))
    for i in range(0, n, m):
        j = min(n, i + m)
        cols[i:j].reshape(j - i, c, kh, kw, oh, ow)[...] = win[i:j].transpose(0, 1, 4, 5, 2, 3)
        np.matmul(w2, cols[i:j], out=out[i:j])
        if b is not None:
            out[i:j] += b[:, None]
    return out.reshape(n, oc, oh, ow), cols


class ConvolutionBackward(Node):
    """conv2d's gradients on NumPy: bias; weight and input by lesson 12's functions image
    by image, or on the fast path the weight's as one matmul with the saved columns and
    the input's as matmul and col2im a chunk of images at a time. PyTorch's node has
    this name."""

    __slots__ = ("a", "cols", "fast", "input_shape", "p", "s", "w")
    _saves = True

    def __init__(self, edges, a, input_shape, w, cols, s, p, fast):
        self._edges = edges
        self._released = False
        self.a, self.input_shape, self.w, self.cols = a, input_shape, w, cols
        self.s, self.p, self.fast = s, p, fast

    def apply(self, g):
        ex, ew, eb = self._edges
        gb = None if eb is None else g.sum(axis=(0, 2, 3))
        if self.fast:
            gw = None if ew is None else self._fast_weight_grad(g)
            gx = None if ex is None else self._fast_input_grad(g)
        else:
            gw = None if ew is None else self._lesson_weight_grad(g)
            gx = None if ex is None else self._lesson_input_grad(g)
        return gx, gw, gb

    def _lesson_weight_grad(self, g):
        """The sum over images of ``grad_out @ im2col(padded image).T``."""
        w, s, p = self.w, self.s, self.p
        oc, k = w.shape[0], w.shape[2:]
        padded = _pad_array(np, self.a, p)[0] if p != (0, 0) else self.a
        g2 = g.reshape(g.shape[0], oc, g.shape[2] * g.shape[3])
        gw = np.zeros((oc, w[0].size), dtype=w.dtype)
        for i in range(g.shape[0]):
            gw += g2[i] @ im2col.im2col(padded[i], k, s).T
        return gw.reshape(w.shape)

    def _lesson_input_grad(self, g):
        """Lesson 12's ``conv2d_input_grad`` on each image's output gradient (its
        ``col2im`` and a matmul where the stride or the padding differ between axes)."""
        w, s, p, shape = self.w, self.s, self.p, self.input_shape
        oc, c, kh, kw = w.shape
        gx = np.empty(shape, dtype=w.dtype)
        if s[0] == s[1] and p[0] == p[1]:
            for i in range(shape[0]):
                gx[i] = im2col.conv2d_input_grad(g[i], w, shape[1:], s[0], p[0])
            return gx
        wt = w.reshape(oc, c * kh * kw).T
        h, wd = shape[2:]
        padded = (c, h + 2 * p[0], wd + 2 * p[1])
        for i in range(shape[0]):
            dxp = im2col.col2im(wt @ g[i].reshape(oc, -1), padded, (kh, kw), s)
            gx[i] = dxp[:, p[0] : p[0] + h, p[1] : p[1] + wd]
        return gx

    def _fast_weight_grad(self, g):
        n, oc, oh, ow = g.shape
        g2 = g.reshape(n, oc, oh * ow)
        return np.matmul(g2, self.cols.transpose(0, 2, 1)).sum(axis=0).reshape(self.w.shape)

    def _fast_input_grad(self, g):
        """The columns' gradient ``w.T @ g`` and col2im, a chunk of images at a time.

        The output gradient is first widened to the padded input's width (zeros in the
        new columns), so that in a flat padded image each kernel offset ``(i, j)`` is one
        shift by ``i * Wp + j``: col2im is ``kh * kw`` additions of contiguous runs
        instead of strided 2-D slices (the zero columns add nothing where they land).
        """
        w, p, shape = self.w, self.p, self.input_shape
        oc, c, kh, kw = w.shape
        n, _, oh, ow = g.shape
        hp, wp = oh + kh - 1, ow + kw - 1  # the padded input (stride 1)
        run = oh * wp  # one image's gradient on the padded width, flat
        m = max(1, min(n, _CHUNK_BYTES // (c * kh * kw * run * w.itemsize)))
        # one chunk's buffers, reused: the widened gradient (its new columns stay zero),
        # the columns, and the flat padded gradient (kw - 1 more for the last shifts)
        wide = np.zeros((m, oc, oh, wp), dtype=w.dtype)
        buf = np.empty((m, c * kh * kw, run), dtype=w.dtype)
        flat = np.empty((m, c, hp * wp + kw - 1), dtype=w.dtype)
        dx = np.empty(shape, dtype=w.dtype)
        wt = w.reshape(oc, c * kh * kw).T
        shifts = [i * wp + j for i in range(kh) for j in range(kw)]
        for i in range(0, n, m):
            j = min(n, i + m)
            wide[: j - i, :, :, :ow] = g[i:j]
            cols = np.matmul(wt, wide[: j - i].reshape(j - i, oc, run), out=buf[: j - i])
            cols = cols.reshape(j - i, c, kh * kw, run)
            part = flat[: j - i]
            part.fill(0)
            for k, at in enumerate(shifts):  # col2im: kh * kw contiguous additions
                part[:, :, at : at + run] += cols[:, :, k]
            dxp = part[:, :, : hp * wp].reshape(j - i, c, hp, wp)
            dx[i:j] = dxp[:, :, p[0] : p[0] + shape[2], p[1] : p[1] + shape[3]]
        return dx

    def _release(self):
        self.a = self.w = self.cols = None


def _pool_args(fn: str, kernel_size: Any, stride: Any) -> tuple[Pair, Pair]:
    k = _pair(kernel_size, "kernel_size", fn, 1)
    s = k if stride is None else _pair(stride, "stride", fn, 1)
    return k, s


@_unbatched
def max_pool2d(x: Tensor, kernel_size: Any, stride: Any = None) -> Tensor:
    """Maximum over each window: ``(N, C, H, W) -> (N, C, OH, OW)``; stride defaults to
    the kernel size. Ties in a window share the gradient evenly (PyTorch gives it all
    to one of them; both are valid subgradients, and they agree without ties).
    """
    k, s = _pool_args("max_pool2d", kernel_size, stride)
    _out_size("max_pool2d", x.shape, k, s, (0, 0))
    if type(x._data) is np.ndarray:
        return _max_pool_numpy(x, k, s)
    return _windows(x, k, s).max(axis=(-2, -1))


def _max_pool_numpy(x: Tensor, k: Pair, s: Pair) -> Tensor:
    """Lesson 12's ``max_pool2d`` on all the batch's channels at once, ``(N * C, H, W)``;
    the backward folds each window's share of the gradient back with its ``col2im``."""
    a = x._data
    n, c, h, w = a.shape
    out = np.asarray(im2col.max_pool2d(a.reshape(n * c, h, w), k, s), dtype=a.dtype)
    out = out.reshape(n, c, *out.shape[1:])  # the input's dtype, whoever wrote max_pool2d
    node = None
    if _base._grad_enabled and x._requires_grad:
        node = MaxPoolBackward((_edge(x),), a, out, k, s)
    return _wrap(out, x._device, x._xp, node)


class MaxPoolBackward(Node):
    """max_pool2d on NumPy: each window's gradient goes to its maximum (shared evenly
    among ties), folded back into the input by lesson 12's ``col2im``."""

    __slots__ = ("a", "k", "out", "s")
    _saves = True

    def __init__(self, edges, a, out, k, s):
        self._edges = edges
        self._released = False
        self.a, self.out, self.k, self.s = a, out, k, s

    def apply(self, g):
        a, k = self.a, self.k
        n, c, h, w = a.shape
        oh, ow = g.shape[2:]
        win = _window_view(np, a, k, self.s)  # (N, C, OH, OW, kh, kw)
        hit = win == self.out[..., None, None]
        ties = hit.sum(axis=(-2, -1), dtype=g.dtype)
        share = hit * (g / ties)[..., None, None]
        cols = share.transpose(0, 1, 4, 5, 2, 3).reshape(n * c * k[0] * k[1], oh * ow)
        dx = im2col.col2im(cols, (n * c, h, w), k, self.s)
        return (np.asarray(dx, dtype=g.dtype).reshape(a.shape),)

    def _release(self):
        self.a = self.out = None


@_unbatched
def avg_pool2d(x: Tensor, kernel_size: Any, stride: Any = None) -> Tensor:
    """Mean over each window: ``(N, C, H, W) -> (N, C, OH, OW)``; stride defaults to
    the kernel size."""
    k, s = _pool_args("avg_pool2d", kernel_size, stride)
    _out_size("avg_pool2d", x.shape, k, s, (0, 0))
    return _windows(x, k, s).mean(axis=(-2, -1))
