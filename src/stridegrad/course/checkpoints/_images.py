"""Hypothesis strategies for lesson 12's contracts: images, kernels, strides, padding.

Drawn toward what learners get wrong with windows: heights and widths that differ
(a height computed from the width passes every square image), kernels and strides
whose two sizes differ, kernels as large as the image, and images that are views
(transposed, stepped, reversed) rather than fresh arrays. The values are small
integers stored as floats (float64 or float32): every order of summation gives the
same result, so a right answer is never refused for its rounding.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from stridegrad.course.checkpoints._layouts import call, with_optional

__all__ = ["call", "images", "optional_stride", "pairs", "sizes_that_fit"]


@st.composite
def images(draw, shape: tuple, dtype=None) -> np.ndarray:
    """A ``shape`` array of small integers as floats, as a fresh array or as a
    transposed, stepped or reversed view of a larger one."""
    dtype = dtype or draw(st.sampled_from([np.float64, np.float32]))
    style = draw(st.sampled_from(["fresh", "transposed", "stepped", "reversed"]))
    n = int(np.prod(shape))
    # one draw for all the values (a list of Hypothesis integers per pixel is slow to
    # draw), and now and then all zeros, the smallest case
    if draw(st.integers(0, 9)) == 0:
        values = [0] * (2 * n + 4)
    else:
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        values = rng.integers(-4, 5, size=2 * n + 4).tolist()
    if style == "transposed" and len(shape) >= 2:
        base = np.array(values[:n], dtype=dtype).reshape(shape[:-2] + shape[-1:] + shape[-2:-1])
        return np.swapaxes(base, -1, -2)
    if style == "stepped" and len(shape) >= 2:
        big = shape[:-2] + (2 * shape[-2], shape[-1])
        base = np.array(values[:2 * n], dtype=dtype).reshape(big)
        return base[..., ::2, :]
    base = np.array(values[:n], dtype=dtype).reshape(shape)
    return base[..., ::-1, ::-1] if style == "reversed" and len(shape) >= 2 else base


def pairs(low: int, high: int) -> st.SearchStrategy:
    """``(a, b)``, each in ``[low, high]``: often unequal."""
    return st.tuples(st.integers(low, high), st.integers(low, high))


@st.composite
def sizes_that_fit(draw, max_side: int = 6) -> tuple:
    """``((H, W), (kh, kw), (sh, sw))`` with the kernel inside the image."""
    h, w = draw(pairs(1, max_side))
    kh, kw = draw(st.integers(1, h)), draw(st.integers(1, w))
    return (h, w), (kh, kw), draw(pairs(1, 3))


def optional_stride(draw, args: tuple, stride: tuple):
    """The call of ``args`` with ``stride`` left out, given by position, or by name."""
    return with_optional(draw, args, "stride", stride)
