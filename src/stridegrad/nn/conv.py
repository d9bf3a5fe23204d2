"""Convolution and pooling through strides: windows as a view, im2col as its reshape.

For an ``(N, C, H, W)`` input and a ``(kh, kw)`` kernel moved by ``(sh, sw)``:

1. the windows are a *view* of shape ``(N, C, OH, OW, kh, kw)``: the input's four
   strides, then the row and column strides once more (``sliding_window_view``),
   with the window strides multiplied by ``(sh, sw)``; nothing is copied;
2. im2col is a reshape of that view to ``(N, C * kh * kw, OH * OW)`` (the one copy;
   PyTorch's ``unfold`` layout, whose inner loop runs along image rows);
3. convolution is one matmul of the ``(OC, C * kh * kw)`` weight with those columns,
   which gives ``(N, OC, OH * OW)``: the output in NCHW order, with no transpose;
4. the backward of the window view is col2im: each window's gradient is added
   back where the window was read, a scatter-add done as ``kh * kw`` strided
   slice additions (the transpose of the view).

Everything but the two nodes here (padding, windows) is composed from Tensor ops,
so autograd derives the rest. Namespaces with strides (NumPy, CuPy,
``stridegrad.array``) get a true view; others (``array_api_strict``) gather the
same windows with ``kh * kw`` slices, standard ops only. That composed path is the
teaching path: it is lesson 12's im2col, step by step.

On NumPy, ``conv2d`` takes the same steps in one graph node (``ConvolutionBackward``),
which is faster because it can schedule its own backward: the weight gradient is one
matmul of the output gradient with the im2col columns saved by the forward, and the
input gradient is made a few images at a time (``_CHUNK_BYTES`` of columns), each
chunk's columns folded back by col2im's ``kh * kw`` strided additions while they are
still in cache. It computes the same products and sums as the composed path
(tests hold it to the composed path, to lesson 12's functions and to PyTorch).
Winograd's F(2x2, 3x3) was measured on the benchmark's layer and left out: its 16
matmuls have only 16 or 32 channels to sum over, so they ran no faster than im2col's
three, and its transforms of input, output and gradients alone cost more than the
whole im2col step.
"""

from __future__ import annotations

import operator
from types import ModuleType
from typing import Any

import numpy as np

from stridegrad.tensor import _base
from stridegrad.tensor import Node, Tensor, _edge, _wrap

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
    """``(N, C, H, W) -> (N, C, OH, OW, kh, kw)`` as a view, or None without strides."""
    if isinstance(a, np.ndarray):
        v = np.lib.stride_tricks.sliding_window_view(a, k, axis=(-2, -1))
    elif type(a).__module__.startswith("cupy"):
        import cupy

        shape = a.shape[:-2] + (a.shape[-2] - k[0] + 1, a.shape[-1] - k[1] + 1) + k
        v = cupy.lib.stride_tricks.as_strided(a, shape, a.strides + a.strides[-2:])
    elif hasattr(xp, "sliding_window_view"):  # stridegrad.array
        v = xp.sliding_window_view(a, k, axis=(-2, -1))
    else:
        return None
    return v[..., :: s[0], :: s[1], :, :]


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
    NumPy the forward and its backward are one graph node (``ConvolutionBackward``).
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
        return _conv2d_fused(x, weight, bias, s, p)
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

#: the input gradient's columns are made this many bytes at a time (whole images, at
#: least one), so that col2im reads them from cache: measured on the benchmark's layer,
#: chunks of 2-4 images (1-2 MiB) beat one pass over the whole batch by about 1.5x
_CHUNK_BYTES = 1 << 21


def _fusable(x: Tensor, weight: Tensor, bias: Tensor | None) -> bool:
    """NumPy arrays of one dtype take the one-node path; everything else composes
    (other namespaces, and mixed dtypes, which the composed path promotes)."""
    ts = (x, weight) if bias is None else (x, weight, bias)
    return all(type(t._data) is np.ndarray for t in ts) and len({t._data.dtype for t in ts}) == 1


def _conv2d_fused(x: Tensor, weight: Tensor, bias: Tensor | None, s: Pair, p: Pair) -> Tensor:
    """The composed path's forward on NumPy arrays, with one node for the backward."""
    a, w = x._data, weight._data
    n, c = a.shape[:2]
    oc, _, kh, kw = w.shape
    padded = a if p == (0, 0) else _pad_array(np, a, p)[0]
    win = _window_view(np, padded, (kh, kw), s)  # (N, C, OH, OW, kh, kw), a view
    oh, ow = win.shape[2:4]
    cols = win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * kh * kw, oh * ow)  # the one copy
    out = w.reshape(oc, c * kh * kw) @ cols
    if bias is not None:
        out += bias._data[:, None]
    node = None
    wants = x._requires_grad or weight._requires_grad or (bias is not None and bias._requires_grad)
    if _base._grad_enabled and wants:
        edges = (_edge(x), _edge(weight), None if bias is None else _edge(bias))
        # the columns are only needed for the weight's gradient
        saved = cols if weight._requires_grad else None
        node = ConvolutionBackward(edges, w, saved, padded.shape, s, p)
    return _wrap(out.reshape(n, oc, oh, ow), x._device, x._xp, node)


class ConvolutionBackward(Node):
    """conv2d's gradients: bias, weight (one matmul with the saved columns), input
    (matmul and col2im, a chunk of images at a time). PyTorch's node has this name."""

    __slots__ = ("cols", "p", "padded_shape", "s", "w")
    _saves = True

    def __init__(self, edges, w, cols, padded, s, p):
        self._edges = edges
        self._released = False
        self.w, self.cols, self.padded_shape, self.s, self.p = w, cols, padded, s, p

    def apply(self, g):
        ex, ew, eb = self._edges
        n, oc, oh, ow = g.shape
        g2 = g.reshape(n, oc, oh * ow)
        gb = None if eb is None else g.sum(axis=(0, 2, 3))
        gw = None
        if ew is not None:
            gw = np.matmul(g2, self.cols.transpose(0, 2, 1)).sum(axis=0).reshape(self.w.shape)
        gx = None if ex is None else self._input_grad(g2, (oh, ow))
        return gx, gw, gb

    def _input_grad(self, g2, o: Pair):
        w, s, p = self.w, self.s, self.p
        oc, c, kh, kw = w.shape
        n = g2.shape[0]
        dxp = np.zeros(self.padded_shape, dtype=w.dtype)
        per_image = c * kh * kw * o[0] * o[1] * w.itemsize
        m = max(1, min(n, _CHUNK_BYTES // per_image))
        buf = np.empty((m, c * kh * kw, o[0] * o[1]), dtype=np.result_type(w, g2))
        wt = w.reshape(oc, c * kh * kw).T
        keys = _window_slices((kh, kw), s, o)
        for i in range(0, n, m):
            j = min(n, i + m)
            cols = np.matmul(wt, g2[i:j], out=buf[: j - i]).reshape(j - i, c, kh * kw, *o)
            part = dxp[i:j]
            for k, key in enumerate(keys):  # col2im: kh * kw strided additions
                part[key] += cols[:, :, k]
        if p == (0, 0):
            return dxp
        h, wd = self.padded_shape[2] - 2 * p[0], self.padded_shape[3] - 2 * p[1]
        return np.ascontiguousarray(dxp[:, :, p[0] : p[0] + h, p[1] : p[1] + wd])

    def _release(self):
        self.w = self.cols = None


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
    return _windows(x, k, s).max(axis=(-2, -1))


@_unbatched
def avg_pool2d(x: Tensor, kernel_size: Any, stride: Any = None) -> Tensor:
    """Mean over each window: ``(N, C, H, W) -> (N, C, OH, OW)``; stride defaults to
    the kernel size."""
    k, s = _pool_args("avg_pool2d", kernel_size, stride)
    _out_size("avg_pool2d", x.shape, k, s, (0, 0))
    return _windows(x, k, s).mean(axis=(-2, -1))
