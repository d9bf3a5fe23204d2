"""Lesson 12's functions, the library's own: windows, im2col, col2im, pooling, conv.

Small functions on NumPy arrays of one image (or a stack of channels): the window
view's layout, im2col through ``as_strided``, convolution as one matmul, col2im,
max-pooling and the input gradient of a convolution. They are the exercises of
lesson 12 and their references: ``stridegrad build 12`` copies each body into the
solution notebook and writes a stub with the same signature and docstring into the
lesson. They call one another (and ``np``, ``as_strided``) by the names the notebook
has too, looked up in this module when they run, so that a learner's ``im2col``
installed here (``stridegrad yours``) is the one the library's ``conv2d`` calls.

The library calls them through this module (``from stridegrad.nn import im2col``,
then ``im2col.conv2d(...)``), from :mod:`stridegrad.nn.conv`:

* ``window_layout`` lays out every window view the library makes over an array with
  strides (NumPy, CuPy and the ``python`` device's strided arrays, any batch);
* on NumPy, ``F.conv2d`` runs ``conv2d`` on each image of the batch and its backward
  runs ``conv2d_input_grad`` (which calls ``col2im``) and ``im2col`` (for the
  weight's gradient), image by image (``im2col`` and ``col2im`` themselves where the
  stride or the padding differ between the axes); ``F.max_pool2d`` runs
  ``max_pool2d`` on all the batch's channels at once, and ``col2im`` in its backward.
  One layer shape (3 x 3, stride 1) has a faster path of its own while these
  functions are the library's (see :mod:`stridegrad.nn.conv`), held by the tests to
  the same answers.

The library passes NumPy arrays of float32 or float64 (the Tensor's dtype, which each
function keeps) that may be views, and ints for ``conv2d``'s stride and padding; the
Tensors, the batch and the autograd around these functions are
:mod:`stridegrad.nn.conv`'s.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = ["col2im", "conv2d", "conv2d_input_grad", "im2col", "max_pool2d", "window_layout"]


def window_layout(shape: tuple, strides: tuple, kernel: tuple, stride: tuple = (1, 1)) -> tuple:
    """The layout of all ``kernel``-sized windows, ``stride`` apart, over the last two axes.

    Shape contract: ``(..., H, W)`` with element strides ``(..., sH, sW)`` ->
    ``((..., OH, OW, kh, kw), strides of that view)`` where
    ``OH = (H - kh) // sh + 1`` and ``OW = (W - kw) // sw + 1``, for
    ``kernel = (kh, kw)`` and ``stride = (sh, sw)``. Element ``(..., r, c, i, j)``
    of the view is element ``(..., r * sh + i, c * sw + j)`` of the array.
    The library lays out its window views with it, for batches ``(N, C, H, W)``
    too, on every device whose arrays have strides.

    Raises:
        ValueError: naming the kernel and the shape if the kernel does not fit
            in the image; if a kernel size or a stride is below 1.
    """
    (kh, kw), (sh, sw) = kernel, stride
    if min(kh, kw, sh, sw) < 1:
        raise ValueError(f"window_layout: kernel {tuple(kernel)} and stride {tuple(stride)} "
                         "must be at least 1")
    *lead, h, w = shape
    *lead_strides, s_h, s_w = strides
    if kh > h or kw > w:
        raise ValueError(f"window_layout: kernel {tuple(kernel)} does not fit in shape "
                         f"{tuple(shape)}")
    out_shape = (*lead, (h - kh) // sh + 1, (w - kw) // sw + 1, kh, kw)
    return out_shape, (*lead_strides, s_h * sh, s_w * sw, s_h, s_w)


def im2col(x: np.ndarray, kernel: tuple, stride: tuple = (1, 1)) -> np.ndarray:
    """The windows of a ``(C, H, W)`` NumPy array as the columns of a new 2-D array.

    Shape contract: ``(C, H, W) -> (C * kh * kw, OH * OW)`` with ``OH, OW`` as
    in ``window_layout``:
    ``cols[c * kh * kw + i * kw + j, r * OW + q] == x[c, r * sh + i, q * sw + j]``.
    ``x`` may have any strides. The result is a new array (it shares no memory
    with ``x``) of ``x``'s dtype (the library's float32 too: it makes the columns of
    each zero-padded image for the weight's gradient).

    Raises:
        ValueError: naming the shape if ``x`` is not 3-D, or as ``window_layout``.
    """
    if x.ndim != 3:
        raise ValueError(f"im2col: x must be (C, H, W), got shape {x.shape}")
    element_strides = tuple(s // x.itemsize for s in x.strides)
    shape, strides = window_layout(x.shape, element_strides, kernel, stride)
    view = as_strided(x, shape, tuple(s * x.itemsize for s in strides), writeable=False)
    c, oh, ow, kh, kw = shape
    # np.array copies: a bare reshape would be a view of x for a 1 x 1 kernel
    return np.array(view.transpose(0, 3, 4, 1, 2)).reshape(c * kh * kw, oh * ow)


def conv2d(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None,
           stride: int = 1, padding: int = 0) -> np.ndarray:
    """2-D cross-correlation of one image, as in PyTorch's ``conv2d``.

    Shape contract: ``(C, H, W)``, ``(OC, C, kh, kw)``, ``(OC,)`` or None ->
    ``(OC, OH, OW)`` with ``OH = (H + 2 * padding - kh) // stride + 1`` (and the
    same for ``OW``): ``out[o, r, q] = bias[o] + sum over c, i, j of
    xp[c, r * stride + i, q * stride + j] * weight[o, c, i, j]``, where ``xp``
    is ``x`` with ``padding`` rows and columns of zeros on every side.
    The library's ``F.conv2d`` runs it on each image of a NumPy batch, with the
    Tensors' dtype (float32 or float64) for all three, which the result keeps.

    Raises:
        ValueError: naming both channel counts and the weight's shape if ``x``
            and ``weight`` disagree on the number of channels.
    """
    c, oc = x.shape[0], weight.shape[0]
    if weight.shape[1] != c:
        raise ValueError(f"conv2d: input has {c} channels but weight {weight.shape} "
                         f"expects {weight.shape[1]}")
    kh, kw = weight.shape[2:]
    x = np.pad(x, ((0, 0), (padding, padding), (padding, padding)))
    cols = im2col(x, (kh, kw), (stride, stride))
    oh = (x.shape[1] - kh) // stride + 1
    out = (weight.reshape(oc, c * kh * kw) @ cols).reshape(oc, oh, -1)
    return out if bias is None else out + bias[:, None, None]


def col2im(cols: np.ndarray, shape: tuple, kernel: tuple, stride: tuple = (1, 1)) -> np.ndarray:
    """The transpose of ``im2col``: add each column back into the window it came from.

    Shape contract: ``(C * kh * kw, OH * OW)``, ``shape = (C, H, W)`` ->
    ``(C, H, W)`` with ``OH, OW`` as in ``window_layout``:
    ``out[c, y, x]`` is the sum of ``cols[c * kh * kw + i * kw + j, r * OW + q]``
    over all ``(i, j, r, q)`` with ``r * sh + i == y`` and ``q * sw + j == x``
    (0 where there is none). ``cols`` is left unchanged. The library's result has
    ``cols``' dtype (float32 too): it folds back the gradients of max-pooling's
    windows with it, all the batch's channels as one ``C``.

    Raises:
        ValueError: naming both shapes if ``cols`` does not have the shape that
            ``im2col`` gives for ``shape``, ``kernel`` and ``stride``.
    """
    (c, h, w), (kh, kw), (sh, sw) = shape, kernel, stride
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    if cols.shape != (c * kh * kw, oh * ow):
        raise ValueError(f"col2im: cols has shape {cols.shape}, but shape {tuple(shape)} with "
                         f"kernel {tuple(kernel)} and stride {tuple(stride)} gives "
                         f"{(c * kh * kw, oh * ow)}")
    out = np.zeros(shape, dtype=cols.dtype)
    blocks = cols.reshape(c, kh, kw, oh, ow)
    for i in range(kh):
        for j in range(kw):
            out[:, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw] += blocks[:, i, j]
    return out


def max_pool2d(x: np.ndarray, kernel: tuple, stride: tuple | None = None) -> np.ndarray:
    """The maximum of each ``kernel`` window, ``stride`` apart (default: the kernel size).

    Shape contract: ``(C, H, W) -> (C, OH, OW)`` with ``OH, OW`` as in
    ``window_layout``: ``out[c, r, q] = max of x[c, r * sh + i, q * sw + j]``
    over ``0 <= i < kh``, ``0 <= j < kw``. Rows and columns that no whole
    window reaches are left out. The library's ``F.max_pool2d`` runs it once on a
    NumPy batch, its ``N * C`` channels as ``C``, float32 too (kept).
    """
    stride = kernel if stride is None else stride
    element_strides = tuple(s // x.itemsize for s in x.strides)
    shape, strides = window_layout(x.shape, element_strides, kernel, stride)
    view = as_strided(x, shape, tuple(s * x.itemsize for s in strides), writeable=False)
    return view.max(axis=(-2, -1))


def conv2d_input_grad(grad_out: np.ndarray, weight: np.ndarray, input_shape: tuple,
                      stride: int = 1, padding: int = 0) -> np.ndarray:
    """The gradient of ``conv2d`` with respect to its input.

    Shape contract: ``(OC, OH, OW)``, ``(OC, C, kh, kw)``, ``input_shape = (C, H, W)``
    -> ``(C, H, W)``: the gradient with respect to ``x`` of
    ``np.sum(grad_out * conv2d(x, weight, None, stride, padding))`` for any ``x``
    of ``input_shape``. The backward of the library's ``F.conv2d`` runs it on each
    image's output gradient (float32 or float64, as the weight; the result keeps it).
    """
    oc, c, kh, kw = weight.shape
    _, h, w = input_shape
    grad_cols = weight.reshape(oc, c * kh * kw).T @ grad_out.reshape(oc, -1)
    padded = (c, h + 2 * padding, w + 2 * padding)
    grad = col2im(grad_cols, padded, (kh, kw), (stride, stride))
    return grad[:, padding:padding + h, padding:padding + w]
