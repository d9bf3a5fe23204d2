"""Checkpoint 12 (convolution through strides): ``window_layout``, ``im2col``,
``conv2d``, ``col2im``, ``max_pool2d`` and the stretch exercise
``conv2d_input_grad``.

The answers are written out by hand from the contracts (the arithmetic is in
the hints and comments), never computed with the library. ``im2col`` may call the
learner's ``window_layout``, ``conv2d`` their ``im2col``, and so on, as the
lesson suggests.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np

from hypothesis import strategies as st

from stridegrad.course.checkpoints._arrays import same_array, show
from stridegrad.course.checkpoints._images import (
    call,
    images,
    optional_stride,
    pairs,
    sizes_that_fit,
)
from stridegrad.course.checks import CheckFailure, Checkpoint, expect, raised, written_forms
from stridegrad.course.contracts import Invalid

__all__ = ["checkpoint"]

checkpoint = Checkpoint("12_convolution_through_strides", "convolution through strides",
                        reference="stridegrad.nn.im2col")


# ------------------------------------------------------------------ helpers


def _a(rows: Any) -> np.ndarray:
    return np.array(rows, dtype=np.float64)


def expect_array(fn: Callable, *args: Any, returns: Any, **kwargs: Any) -> Any:
    """Call ``fn`` on copies of the array arguments (same strides); check the shape and
    values it returns, that it left its inputs alone and shares no memory with them."""
    parts = [show(a, 120) for a in args] + [f"{k}={show(v, 40)}" for k, v in kwargs.items()]
    call = f"{getattr(fn, '__name__', 'fn')}({', '.join(parts)})"
    copies = [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in args]
    try:
        got = fn(*copies, **kwargs)
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise CheckFailure(call, show(_a(returns)), raised(exc),
                           kind="error") from exc
    same_array(call, got, returns)
    for k, (before, after) in enumerate(zip(args, copies)):
        if not isinstance(before, np.ndarray):
            continue
        if not np.array_equal(before, after):
            raise CheckFailure(f"argument {k + 1} after {call}", "unchanged",
                               f"changed in place to {show(after)}")
        if isinstance(got, np.ndarray) and np.shares_memory(got, after):
            raise CheckFailure(f"np.shares_memory(result, argument {k + 1}) after {call}",
                               "False (a new array)", "True (a view of the input)")
    return got


# ------------------------------------------------------------------ window_layout


@checkpoint.test("window_layout", hint="An 8 x 8 image has 8 - 3 + 1 = 6 windows per axis; "
                                       "the window axes step through the image with its own "
                                       "strides (8, 1), and so do the window counts at stride 1.")
def windows_of_the_digit(window_layout):
    expect(window_layout, (8, 8), (8, 1), (3, 3), (1, 1), returns=((6, 6, 3, 3), (8, 1, 8, 1)))


@checkpoint.test("window_layout", hint="Windows 2 apart: the window-count axes step 2 rows "
                                       "(16) and 2 columns (2); inside a window the steps stay "
                                       "(8, 1). (8 - 2) // 2 + 1 = 4 windows per axis.")
def windows_two_apart(window_layout):
    expect(window_layout, (8, 8), (8, 1), (2, 2), (2, 2), returns=((4, 4, 2, 2), (16, 2, 8, 1)))


@checkpoint.test("window_layout", hint="Round the window count DOWN: (5 - 2) // 2 + 1 = 2; a "
                                       "third window would stick out of the image.",
                 hint_for=("rounds the window count up",))
def window_count_rounds_down(window_layout):
    expect(window_layout, (5, 5), (5, 1), (2, 2), (2, 2), returns=((2, 2, 2, 2), (10, 2, 5, 1)))


@checkpoint.test("window_layout", hint="Height and width count separately: (4 - 2) // 2 + 1 = 2 "
                                       "rows and (7 - 3) // 2 + 1 = 3 columns of windows.")
def rectangular_kernel(window_layout):
    expect(window_layout, (4, 7), (7, 1), (2, 3), (2, 2), returns=((2, 3, 2, 3), (14, 2, 7, 1)))


@checkpoint.test("window_layout", hint="Leading axes (channels) keep their size and stride: "
                                       "(3, 5, 5) with (25, 5, 1) -> (3, 3, 3, 3, 3) with "
                                       "(25, 5, 1, 5, 1).")
def channels_are_kept(window_layout):
    expect(window_layout, (3, 5, 5), (25, 5, 1), (3, 3), (1, 1),
           returns=((3, 3, 3, 3, 3), (25, 5, 1, 5, 1)))


@checkpoint.test("window_layout", hint="Use the strides you are given, not row-major ones: a "
                                       "transposed image has strides (1, 4), and so do its "
                                       "windows.",
                 hint_for=("row-major strides instead of the given ones",))
def transposed_image(window_layout):
    expect(window_layout, (4, 4), (1, 4), (2, 2), (1, 1), returns=((3, 3, 2, 2), (1, 4, 1, 4)))


@checkpoint.test("window_layout", hint="A (3, 3) kernel does not fit in a (2, 5) image: raise "
                                       "ValueError naming the kernel and the shape.")
def kernel_larger_than_the_image(window_layout):
    expect(window_layout, (2, 5), (5, 1), (3, 3), (1, 1), raises=ValueError,
           naming=((3, 3), (2, 5)))


@checkpoint.test("window_layout", hint="A stride of 0 would put every window in the same place: "
                                       "raise ValueError.")
def stride_zero(window_layout):
    expect(window_layout, (4, 4), (4, 1), (2, 2), (0, 1), raises=ValueError)


@st.composite
def _windows(draw, problem=None):
    """Leading axes, an image of unequal sides, any element strides; ``problem``: a
    kernel that does not fit ("too big"), or a size or stride below 1 ("below 1")."""
    lead = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    (h, w), kernel, stride = draw(sizes_that_fit())
    if problem == "too big":
        kernel = draw(st.sampled_from([(h + draw(st.integers(1, 2)), kernel[1]),
                                       (kernel[0], w + draw(st.integers(1, 2)))]))
    elif problem == "below 1":
        k = draw(st.integers(0, 3))
        both = [*kernel, *stride]
        both[k] = draw(st.integers(-1, 0))
        kernel, stride = tuple(both[:2]), tuple(both[2:])
    shape = (*lead, h, w)
    strides = tuple(draw(st.integers(-20, 40)) for _ in shape)
    if problem == "below 1":  # the stride is given: it may be the one below 1
        return call(shape, strides, kernel, stride)
    if stride == (1, 1) and draw(st.booleans()):
        return call(shape, strides, kernel)
    return optional_stride(draw, (shape, strides, kernel), stride)


checkpoint.contract("window_layout", valid=_windows(), invalid=[
    Invalid(_windows("too big"), ValueError, "kernels larger than the image",
            naming=lambda shape, strides, kernel, *rest, **kw: (kernel, shape)),
    Invalid(_windows("below 1"), ValueError, "kernel sizes or strides below 1")])


# ------------------------------------------------------------------ im2col


@checkpoint.test("im2col", hint="Row i * kw + j holds pixel (i, j) of every window: for "
                                "arange(12) as 3 x 4 and 2 x 2 windows, row 0 is [0, 1, 2, 4, 5, "
                                "6] (the top-left pixels of the six windows), one column per "
                                "window.")
def columns_of_a_3x4_image(im2col):
    # not square, so that the windows-as-rows matrix (the transpose) cannot pass
    x = np.arange(12.0).reshape(1, 3, 4)
    # windows (0, 0) ... (1, 2) = [0, 1, 4, 5], [1, 2, 5, 6], [2, 3, 6, 7], [4, 5, 8, 9], ...
    expect_array(im2col, x, (2, 2), (1, 1), returns=[[0, 1, 2, 4, 5, 6], [1, 2, 3, 5, 6, 7],
                                                     [4, 5, 6, 8, 9, 10], [5, 6, 7, 9, 10, 11]])


@checkpoint.test("im2col", hint="Rows go channel first, then kernel row, then kernel column: "
                                "with one window per channel the column is the image itself, "
                                "channel 0 then channel 1.",
                 hint_for=("kernel position before the channel",
                           "one window per row (the transpose)"))
def channels_come_first(im2col):
    expect_array(im2col, np.arange(8.0).reshape(2, 2, 2), (2, 2), (1, 1),
                 returns=[[0], [1], [2], [3], [4], [5], [6], [7]])


@checkpoint.test("im2col", hint="Windows 2 apart on a 4 x 4 image start at (0, 0), (0, 2), "
                                "(2, 0), (2, 2): row 0 holds their top-left pixels 0, 2, 8, 10.")
def stride_two(im2col):
    x = np.arange(16.0).reshape(1, 4, 4)
    # windows [0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]
    expect_array(im2col, x, (2, 2), (2, 2), returns=[[0, 2, 8, 10], [1, 3, 9, 11],
                                                     [4, 6, 12, 14], [5, 7, 13, 15]])


@checkpoint.test("im2col", hint="Read x through its own strides (x.strides, in bytes): here x "
                                "is a transposed view, [[0, 3, 6], [1, 4, 7], [2, 5, 8]].",
                 hint_for=("assumes a contiguous input",))
def transposed_input(im2col):
    x = np.arange(9.0).reshape(3, 3).T[None]
    # windows [0, 3, 1, 4], [3, 6, 4, 7], [1, 4, 2, 5], [4, 7, 5, 8]
    expect_array(im2col, x, (2, 2), (1, 1), returns=[[0, 3, 1, 4], [3, 6, 4, 7],
                                                     [1, 4, 2, 5], [4, 7, 5, 8]])


@checkpoint.test("im2col", hint="as_strided takes strides in BYTES: multiply element strides "
                                "by x.itemsize (4 for float32, 8 for float64).",
                 hint_for=("element strides given to as_strided",))
def float32_input(im2col):
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    # 1 x 2 windows: [0, 1], [1, 2], [3, 4], [4, 5]; row j = 0 then row j = 1
    expect_array(im2col, x, (1, 2), (1, 1), returns=[[0, 1, 3, 4], [1, 2, 4, 5]])


@checkpoint.test("im2col", hint="Return a new array: the reshape of the window view copies. "
                                "Writing into the result must not change x.",
                 hint_for=("returns the view without copying",))
def result_is_a_copy(im2col):
    # a 1 x 1 kernel is where a plain reshape of the window view is a view of x
    expect_array(im2col, np.arange(4.0).reshape(1, 2, 2), (1, 1), (1, 1),
                 returns=[[0, 1, 2, 3]])


@checkpoint.test("im2col", hint="x must be (C, H, W): raise ValueError naming a (3, 3) shape.")
def two_dimensional_input(im2col):
    expect(im2col, np.zeros((3, 3)), (2, 2), (1, 1), raises=ValueError, naming=((3, 3),))


@st.composite
def _im2col_calls(draw, problem=None):
    c = draw(st.integers(1, 3))
    (h, w), kernel, stride = draw(sizes_that_fit(5))
    shape = (c, h, w)
    if problem == "not 3-D":
        shape = draw(st.sampled_from([(h, w), (1, c, h, w)]))
    elif problem == "too big":
        kernel = (h + 1, kernel[1]) if draw(st.booleans()) else (kernel[0], w + 1)
    return optional_stride(draw, (draw(images(shape)), kernel), stride)


checkpoint.contract("im2col", valid=_im2col_calls(), invalid=[
    Invalid(_im2col_calls("not 3-D"), ValueError, "images that are not (C, H, W)",
            naming=lambda x, *rest, **kw: (x.shape,)),
    Invalid(_im2col_calls("too big"), ValueError, "kernels larger than the image",
            naming=lambda x, kernel, *rest, **kw: (kernel,))])


# ------------------------------------------------------------------ conv2d


@checkpoint.test("conv2d", hint="No flip: out[0, r, c] = sum of x[0, r + i, c + j] * w[0, 0, i, "
                                "j]; the first is 0*1 + 1*2 + 3*3 + 4*4 = 27.",
                 hint_for=("flips the kernel (a true convolution)",))
def cross_correlation_not_convolution(conv2d):
    x = np.arange(9.0).reshape(1, 3, 3)
    w = _a([[[[1, 2], [3, 4]]]])
    # 0*1+1*2+3*3+4*4 = 27, 1+4+12+20 = 37, 3+8+18+28 = 57, 4+10+21+32 = 67
    expect_array(conv2d, x, w, returns=[[[27, 37], [57, 67]]])


@checkpoint.test("conv2d", hint="padding=1 puts a ring of zeros around the image; a 3 x 3 "
                                "kernel that picks its centre then gives the image back.")
def padding_keeps_the_size(conv2d):
    x = np.arange(9.0).reshape(1, 3, 3)
    w = _a([[[[0, 0, 0], [0, 1, 0], [0, 0, 0]]]])
    expect_array(conv2d, x, w, None, 1, 1, returns=[[[0, 1, 2], [3, 4, 5], [6, 7, 8]]])


@checkpoint.test("conv2d", hint="Padded zeros count for nothing: a 3 x 3 sum of ones with "
                                "padding=1 sees 4 pixels at a corner, 6 at an edge, 9 inside.")
def padding_adds_zeros(conv2d):
    expect_array(conv2d, np.ones((1, 3, 3)), np.ones((1, 1, 3, 3)), None, 1, 1,
                 returns=[[[4, 6, 4], [6, 9, 6], [4, 6, 4]]])


@checkpoint.test("conv2d", hint="Stride 2 moves the window 2 pixels: the 2 x 2 block sums of "
                                "arange(16) as 4 x 4 are 0+1+4+5 = 10, 18, 42, 50.")
def stride_two_blocks(conv2d):
    expect_array(conv2d, np.arange(16.0).reshape(1, 4, 4), np.ones((1, 1, 2, 2)), None, 2, 0,
                 returns=[[[10, 18], [42, 50]]])


@checkpoint.test("conv2d", hint="Each output channel sums over ALL input channels, then adds "
                                "its own bias: 1*x0 + 1*x1 + 0.5, and 2*x0 - 1*x1 + 1.")
def channels_and_bias(conv2d):
    x = _a([[[1, 2], [3, 4]], [[10, 20], [30, 40]]])
    w = _a([[[[1]], [[1]]], [[[2]], [[-1]]]])  # (2, 2, 1, 1)
    # x0 + x1 + 0.5 = [[11.5, 22.5], [33.5, 44.5]]; 2 x0 - x1 + 1 = [[-7, -15], [-23, -31]]
    expect_array(conv2d, x, w, _a([0.5, 1]),
                 returns=[[[11.5, 22.5], [33.5, 44.5]], [[-7, -15], [-23, -31]]])


@checkpoint.test("conv2d", hint="Flatten the weight in the order of im2col's rows, (c, i, j): "
                                "here w[0, 0, 0, 1] = 1 reads x[0, 0, 1] = 2 and w[0, 1, 1, 0] "
                                "= 10 reads x[1, 1, 0] = 7: 2 + 70 = 72.",
                 hint_for=("weight flattened as (kh, kw, C)",))
def weight_order_matches_the_columns(conv2d):
    x = _a([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    w = _a([[[[0, 1], [0, 0]], [[0, 0], [10, 0]]]])  # (1, 2, 2, 2)
    expect_array(conv2d, x, w, returns=[[[72]]])


@checkpoint.test("conv2d", hint="Input (3, 4, 4) and weight (8, 1, 3, 3) disagree on the "
                                "channels: raise ValueError naming both channel counts, 3 and "
                                "1, and the weight's shape (8, 1, 3, 3), before NumPy's matmul "
                                "complains about something else.",
                 hint_for=("no channel check",))
def channel_mismatch(conv2d):
    x, weight = np.zeros((3, 4, 4)), np.zeros((8, 1, 3, 3))
    expect(conv2d, x, weight, raises=ValueError, naming=(weight.shape,))
    try:
        conv2d(x.copy(), weight.copy())
    except ValueError as exc:
        # the weight's count must be said, not only be one of the numbers in its shape
        missing = _numbers_missing(_without(str(exc), weight.shape), (3, 1))
        if missing:
            raise CheckFailure("conv2d(zeros((3, 4, 4)), zeros((8, 1, 3, 3)))",
                               "raises ValueError naming both channel counts, 3 and 1, and "
                               "the weight's shape (8, 1, 3, 3)", raised(exc)) from None


def _without(message: str, shape: tuple) -> str:
    """``message`` with every way of writing ``shape`` that a check accepts
    (:func:`~stridegrad.course.checks.written_forms`) taken out."""
    for form in sorted(written_forms(tuple(int(d) for d in shape)), key=len, reverse=True):
        message = message.replace(form, " ")
    return message


def _numbers_missing(message: str, numbers: tuple) -> list:
    """The ints of ``numbers`` that ``message`` does not write as a number of their own
    (``1`` is not in ``10``, ``0.1`` or ``1.5``; it is in ``1.`` at a sentence's end)."""
    return [n for n in numbers
            if not re.search(rf"(?<![\d.]){n}(?!\d|\.\d)", message)]


@st.composite
def _conv_calls(draw, mismatch=False):
    """An image, a weight, maybe a bias, stride and padding (given or not), all of one
    dtype; ``mismatch``: the weight expects another number of channels."""
    c, oc = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    padding, stride = draw(st.integers(0, 2)), draw(st.integers(1, 3))
    h, w = draw(pairs(1, 5))
    kh, kw = draw(st.integers(1, h + 2 * padding)), draw(st.integers(1, w + 2 * padding))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    wc = c + draw(st.integers(1, 2)) if mismatch else c
    x, weight = draw(images((c, h, w), dtype)), draw(images((oc, wc, kh, kw), dtype))
    bias = draw(st.one_of(st.none(), images((oc,), dtype)))
    args, kwargs = [x, weight], {}
    if bias is not None or draw(st.booleans()):
        args.append(bias)
    for name, value, default in (("stride", stride, 1), ("padding", padding, 0)):
        if value != default or draw(st.booleans()):
            kwargs[name] = value
    return call(*args, **kwargs)


checkpoint.contract("conv2d", valid=_conv_calls(), invalid=[
    Invalid(_conv_calls(mismatch=True), ValueError, "weights for another channel count",
            naming=lambda x, weight, *rest, **kw: (x.shape[0], weight.shape[1],
                                                   weight.shape))])


# ------------------------------------------------------------------ col2im


@checkpoint.test("col2im", hint="Overlapping windows ADD: with all-ones columns each pixel of "
                                "a 3 x 3 image gets the number of 2 x 2 windows covering it, "
                                "4 in the middle.",
                 hint_for=("assigns instead of adding",))
def overlaps_add_up(col2im):
    expect_array(col2im, np.ones((4, 4)), (1, 3, 3), (2, 2), (1, 1),
                 returns=[[[1, 2, 1], [2, 4, 2], [1, 2, 1]]])


@checkpoint.test("col2im", hint="Add, don't assign: pixel 1 is in both windows and gets 10 "
                                "(from window 0) + 2 (from window 1) = 12.",
                 hint_for=("assigns instead of adding",))
def values_add_up(col2im):
    # windows at x = 0 and x = 1, two pixels each: row j = 0 is [1, 2], row j = 1 is [10, 20]
    expect_array(col2im, _a([[1, 2], [10, 20]]), (1, 1, 3), (1, 2), (1, 1),
                 returns=[[[1, 12, 20]]])


@checkpoint.test("col2im", hint="Stride 2: window (r, q) starts at pixel (2 r, 2 q). Undoing "
                                "im2col of non-overlapping windows gives the image back: "
                                "out[0, 1] = cols[1, 0] = 4.")
def stride_two_puts_the_image_back(col2im):
    cols = np.arange(16.0).reshape(4, 4)
    # out[2r + i, 2q + j] = cols[2i + j, 2r + q]
    expect_array(col2im, cols, (1, 4, 4), (2, 2), (2, 2),
                 returns=[[[0, 4, 1, 5], [8, 12, 9, 13], [2, 6, 3, 7], [10, 14, 11, 15]]])


@checkpoint.test("col2im", hint="A pixel no window reads gets 0: 1 x 2 windows 2 apart over 5 "
                                "pixels start at 0 and 2, and pixel 4 is left out.")
def unread_pixels_stay_zero(col2im):
    expect_array(col2im, _a([[1, 2], [3, 4]]), (1, 1, 5), (1, 2), (1, 2),
                 returns=[[[1, 3, 2, 4, 0]]])


@checkpoint.test("col2im", hint="Rows are (channel, kernel row, kernel column): with one "
                                "window per channel the column is channel 0 then channel 1.")
def channels_come_first_back(col2im):
    expect_array(col2im, np.arange(1.0, 9.0).reshape(8, 1), (2, 2, 2), (2, 2), (1, 1),
                 returns=[[[1, 2], [3, 4]], [[5, 6], [7, 8]]])


@checkpoint.test("col2im", hint="cols of shape (4, 3) cannot come from a (1, 3, 3) image with "
                                "2 x 2 windows (that gives (4, 4)): raise ValueError naming "
                                "both shapes.")
def wrong_cols_shape(col2im):
    expect(col2im, np.ones((4, 3)), (1, 3, 3), (2, 2), (1, 1), raises=ValueError,
           naming=((4, 3), (4, 4)))


@st.composite
def _col2im_calls(draw, wrong_shape=False):
    c = draw(st.integers(1, 3))
    (h, w), (kh, kw), (sh, sw) = draw(sizes_that_fit(5))
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    rows, cols = c * kh * kw, oh * ow
    if wrong_shape:
        rows, cols = draw(st.sampled_from([(rows + 1, cols), (rows, cols + 1), (cols, rows)]
                                          if rows != cols else [(rows + 1, cols)]))
    return optional_stride(draw, (draw(images((rows, cols))), (c, h, w), (kh, kw)), (sh, sw))


checkpoint.contract("col2im", valid=_col2im_calls(), invalid=[
    Invalid(_col2im_calls(wrong_shape=True), ValueError, "columns of another shape",
            naming=lambda cols, shape, *rest, **kw: (cols.shape, shape))])


# ------------------------------------------------------------------ max_pool2d


@checkpoint.test("max_pool2d", hint="2 x 2 windows 2 apart (the stride defaults to the "
                                    "kernel): the maxima of arange(16) as 4 x 4 are 5, 7, 13, "
                                    "15.",
                 hint_for=("stride defaults to 1",))
def stride_defaults_to_the_kernel(max_pool2d):
    expect_array(max_pool2d, np.arange(16.0).reshape(1, 4, 4), (2, 2),
                 returns=[[[5, 7], [13, 15]]])


@checkpoint.test("max_pool2d", hint="The maximum of negative numbers is negative: do not start "
                                    "from 0.",
                 hint_for=("starts the maximum at 0",))
def negative_values(max_pool2d):
    expect_array(max_pool2d, -np.arange(16.0).reshape(1, 4, 4), (2, 2),
                 returns=[[[0, -2], [-8, -10]]])


@checkpoint.test("max_pool2d", hint="With stride (1, 1) the windows overlap: [1, 3, 4, 0] -> 4, "
                                    "[3, 2, 0, 5] -> 5, [4, 0, 7, 6] -> 7, [0, 5, 6, 8] -> 8.")
def overlapping_windows(max_pool2d):
    x = _a([[[1, 3, 2], [4, 0, 5], [7, 6, 8]]])
    expect_array(max_pool2d, x, (2, 2), (1, 1), returns=[[[4, 5], [7, 8]]])


@checkpoint.test("max_pool2d", hint="Each channel is pooled on its own: [[1, 2], [3, 4]] -> 4 "
                                    "and [[8, 7], [6, 5]] -> 8, shape (2, 1, 1).",
                 hint_for=("pools across channels too",))
def channels_stay_apart(max_pool2d):
    x = _a([[[1, 2], [3, 4]], [[8, 7], [6, 5]]])
    expect_array(max_pool2d, x, (2, 2), returns=[[[4]], [[8]]])


@checkpoint.test("max_pool2d", hint="A 3 x 3 image holds one whole 2 x 2 window at stride 2; "
                                    "the last row and column are left out: [[[4]]].")
def leftover_pixels_are_dropped(max_pool2d):
    expect_array(max_pool2d, np.arange(9.0).reshape(1, 3, 3), (2, 2), returns=[[[4]]])


@checkpoint.test("max_pool2d", hint="A (1, 2) kernel pools pairs along a row: [0, 1] -> 1, "
                                    "[2, 3] -> 3, and the same in the second row.")
def rectangular_kernel_pools(max_pool2d):
    expect_array(max_pool2d, np.arange(8.0).reshape(1, 2, 4), (1, 2),
                 returns=[[[1, 3], [5, 7]]])


@st.composite
def _pool_calls(draw):
    c = draw(st.integers(1, 3))
    (h, w), kernel, stride = draw(sizes_that_fit())
    x = draw(images((c, h, w)))
    if draw(st.booleans()):
        return call(x, kernel)  # stride: the kernel size
    return call(x, kernel, stride) if draw(st.booleans()) else call(x, kernel, stride=stride)


checkpoint.contract("max_pool2d", valid=_pool_calls())


# ------------------------------------------------------------------ conv2d_input_grad


@checkpoint.test("conv2d_input_grad", points=2,
                 hint="A 1 x 1 kernel w scales every pixel: the gradient is 3 * grad_out.")
def one_by_one_kernel(conv2d_input_grad):
    expect_array(conv2d_input_grad, _a([[[1, 2], [3, 4]]]), _a([[[[3]]]]), (1, 2, 2),
                 returns=[[[3, 6], [9, 12]]])


@checkpoint.test("conv2d_input_grad", points=2,
                 hint="One output value read the whole 2 x 2 image: its gradient puts the "
                      "kernel back on the pixels, unflipped.",
                 hint_for=("flips the kernel",))
def kernel_comes_back_unflipped(conv2d_input_grad):
    expect_array(conv2d_input_grad, _a([[[1]]]), _a([[[[1, 2], [3, 4]]]]), (1, 2, 2),
                 returns=[[[1, 2], [3, 4]]])


@checkpoint.test("conv2d_input_grad", points=2,
                 hint="Overlapping windows add up: all ones give each pixel the number of "
                      "windows that read it.")
def overlapping_windows_add(conv2d_input_grad):
    expect_array(conv2d_input_grad, np.ones((1, 2, 2)), np.ones((1, 1, 2, 2)), (1, 3, 3),
                 returns=[[[1, 2, 1], [2, 4, 2], [1, 2, 1]]])


@checkpoint.test("conv2d_input_grad", points=2,
                 hint="With padding the gradient of the padded image is cut back to the input's "
                      "(1, 2, 2): every one of the 4 windows read every pixel.",
                 hint_for=("keeps the padding",))
def padding_is_cut_off(conv2d_input_grad):
    expect_array(conv2d_input_grad, np.ones((1, 2, 2)), np.ones((1, 1, 3, 3)), (1, 2, 2), 1, 1,
                 returns=[[[4, 4], [4, 4]]])


@checkpoint.test("conv2d_input_grad", points=2,
                 hint="Output channels add up: 1 * [1, 2] + 10 * [3, 4] = [31, 42].")
def output_channels_add(conv2d_input_grad):
    expect_array(conv2d_input_grad, _a([[[1, 2]], [[3, 4]]]), _a([[[[1]]], [[[10]]]]), (1, 1, 2),
                 returns=[[[31, 42]]])


@checkpoint.test("conv2d_input_grad", points=2,
                 hint="Stride 2 over 3 pixels reads pixels 0 and 2: pixel 1 gets 0.")
def stride_skips_a_pixel(conv2d_input_grad):
    expect_array(conv2d_input_grad, _a([[[1, 2]]]), _a([[[[1]]]]), (1, 1, 3), 2, 0,
                 returns=[[[1, 0, 2]]])


@st.composite
def _input_grad_calls(draw):
    c, oc = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    padding, stride = draw(st.integers(0, 2)), draw(st.integers(1, 3))
    h, w = draw(pairs(1, 5))
    kh, kw = draw(st.integers(1, h + 2 * padding)), draw(st.integers(1, w + 2 * padding))
    oh, ow = (h + 2 * padding - kh) // stride + 1, (w + 2 * padding - kw) // stride + 1
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    grad_out, weight = draw(images((oc, oh, ow), dtype)), draw(images((oc, c, kh, kw), dtype))
    kwargs = {}
    for name, value, default in (("stride", stride, 1), ("padding", padding, 0)):
        if value != default or draw(st.booleans()):
            kwargs[name] = value
    return call(grad_out, weight, (c, h, w), **kwargs)


checkpoint.contract("conv2d_input_grad", valid=_input_grad_calls())


# ------------------------------------------------------------------ stretch: conv2d_weight_grad

_DIGITS = [[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]  # a (1, 3, 3) image


@checkpoint.test("conv2d_weight_grad", hint="All-ones grad_out: each kernel entry gets the sum "
                                            "of the pixels it met, one per window.",
                 stretch=True)
def weight_grad_sums_the_windows(conv2d_weight_grad):
    expect_array(conv2d_weight_grad, _a(_DIGITS), np.ones((1, 2, 2)), (1, 1, 2, 2),
                 returns=[[[[12, 16], [24, 28]]]])


@checkpoint.test("conv2d_weight_grad", hint="grad_out weights each window: only the top-left "
                                            "window counts here, so the gradient is that window.",
                 stretch=True)
def grad_out_weights_each_window(conv2d_weight_grad):
    expect_array(conv2d_weight_grad, _a(_DIGITS), _a([[[1, 0], [0, 0]]]), (1, 1, 2, 2),
                 returns=[[[[1, 2], [4, 5]]]])
    expect_array(conv2d_weight_grad, _a(_DIGITS), _a([[[0, 0], [0, 2]]]), (1, 1, 2, 2),
                 returns=[[[[10, 12], [16, 18]]]])


@checkpoint.test("conv2d_weight_grad", hint="Stride 2 over a 3 x 3 image with a 2 x 2 kernel "
                                            "leaves one window, the top-left one.", stretch=True)
def stride_two_leaves_one_window(conv2d_weight_grad):
    expect_array(conv2d_weight_grad, _a(_DIGITS), _a([[[3]]]), (1, 1, 2, 2), 2, 0,
                 returns=[[[[3, 6], [12, 15]]]])


@checkpoint.test("conv2d_weight_grad", hint="Padding adds zeros around x first: a 2 x 2 image "
                                            "padded by 1 gives nine windows, each kernel entry "
                                            "meets every pixel once.", stretch=True,
                 hint_for=("forgets the padding",))
def padding_counts_zeros(conv2d_weight_grad):
    expect_array(conv2d_weight_grad, _a([[[1, 2], [3, 4]]]), np.ones((1, 3, 3)), (1, 1, 2, 2),
                 1, 1, returns=[[[[10, 10], [10, 10]]]])


@checkpoint.test("conv2d_weight_grad", hint="Entry [o, c] pairs output channel o's gradient with "
                                            "input channel c's pixels.", stretch=True)
def channels_pair_up(conv2d_weight_grad):
    x = _a([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    grad_out = np.stack([np.full((2, 2), o + 1.0) for o in range(3)])
    expect_array(conv2d_weight_grad, x, grad_out, (3, 2, 1, 1),
                 returns=[[[[10]], [[26]]], [[[20]], [[52]]], [[[30]], [[78]]]])


@checkpoint.test("conv2d_weight_grad", hint="A grad_out that is not the convolution's output "
                                            "shape is a ValueError naming both shapes.",
                 stretch=True)
def rejects_a_grad_out_of_the_wrong_shape(conv2d_weight_grad):
    expect(conv2d_weight_grad, _a(_DIGITS), np.ones((1, 3, 3)), (1, 1, 2, 2),
           raises=ValueError, naming=((1, 3, 3), (1, 2, 2)))


def _conv_output_shape(x, grad_out, weight_shape, stride=1, padding=0) -> tuple:
    oc, _, kh, kw = weight_shape
    return (oc, (x.shape[1] + 2 * padding - kh) // stride + 1,
            (x.shape[2] + 2 * padding - kw) // stride + 1)


@st.composite
def _weight_grad_calls(draw, wrong_shape=False):
    """An image (C, H, W) with H and W often unequal, a kernel (kh, kw) that fits the
    padded image (often unequal too), stride and padding given by position, by name or
    left out, and a grad_out of the convolution's output shape (or, ``wrong_shape``,
    one size off), of the image's dtype; each a fresh array or a view."""
    c, oc = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    padding, stride = draw(st.integers(0, 2)), draw(st.integers(1, 3))
    h, w = draw(pairs(1, 5))
    kh, kw = draw(st.integers(1, h + 2 * padding)), draw(st.integers(1, w + 2 * padding))
    shape = [oc, (h + 2 * padding - kh) // stride + 1, (w + 2 * padding - kw) // stride + 1]
    if wrong_shape:
        axis = draw(st.integers(0, 2))
        shape[axis] += draw(st.sampled_from([-1, 1])) if shape[axis] > 1 else 1
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    x, grad_out = draw(images((c, h, w), dtype)), draw(images(tuple(shape), dtype))
    args, kwargs = [x, grad_out, (oc, c, kh, kw)], {}
    how = draw(st.sampled_from(["positional", "keyword", "default"]))
    if how == "positional":
        args += [stride, padding]
    elif how == "keyword" or stride != 1 or padding != 0:
        kwargs = {"stride": stride, "padding": padding}
    return call(*args, **kwargs)


checkpoint.contract("conv2d_weight_grad", valid=_weight_grad_calls(), stretch=True, invalid=[
    Invalid(_weight_grad_calls(wrong_shape=True), ValueError,
            "grad_outs of another shape than the convolution's output",
            naming=lambda x, grad_out, *rest, **kw: (
                grad_out.shape, _conv_output_shape(x, grad_out, *rest, **kw)))])
