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
same windows with ``kh * kw`` slices, standard ops only.
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
    xp = x._xp
    h, w = x.shape[-2:]
    out = xp.zeros(x.shape[:-2] + (h + 2 * p[0], w + 2 * p[1]), dtype=x._data.dtype)
    key = (..., slice(p[0], p[0] + h), slice(p[1], p[1] + w))
    out[key] = x._data
    node = PadBackward((_edge(x),), key) if _base._grad_enabled and x._requires_grad else None
    return _wrap(out, x._device, xp, node)


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

    im2col (a reshape of the window view) and one matmul with the flattened weight.
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
    oh, ow = _out_size("conv2d", x.shape, (kh, kw), s, p)
    cols = _im2col(x, (kh, kw), s, p)  # (N, C * kh * kw, OH * OW)
    out = (weight.reshape(oc, c * kh * kw) @ cols).reshape(n, oc, oh, ow)
    return out if bias is None else out + bias.reshape(oc, 1, 1)


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
