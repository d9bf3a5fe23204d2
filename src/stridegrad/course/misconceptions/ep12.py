"""Known mistakes in the exercises of episode 12 (convolution through strides).

Each source runs alone, so the exercises it builds on (``window_layout`` under
``im2col``, ``im2col`` under ``conv2d``, ``col2im`` under ``conv2d_input_grad``)
are defined correctly next to the mistake.
"""

from __future__ import annotations

from stridegrad.course.misconceptions import Misconception

__all__ = ["MISCONCEPTIONS"]

_IMPORTS = """
import numpy as np
from numpy.lib.stride_tricks import as_strided
"""

_WINDOW_LAYOUT = """
def window_layout(shape, strides, kernel, stride=(1, 1)):
    (kh, kw), (sh, sw) = kernel, stride
    if min(kh, kw, sh, sw) < 1:
        raise ValueError(f"kernel {kernel} and stride {stride}")
    *lead, h, w = shape
    *lead_strides, s_h, s_w = strides
    if kh > h or kw > w:
        raise ValueError(f"kernel {tuple(kernel)} does not fit in shape {tuple(shape)}")
    {COUNT}
    return (*lead, oh, ow, kh, kw), {STRIDES}
"""
_COUNT = "oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1"
_STRIDES = "(*lead_strides, s_h * sh, s_w * sw, s_h, s_w)"


def _window_layout(count: str = _COUNT, strides: str = _STRIDES, check: bool = True) -> str:
    src = _WINDOW_LAYOUT.replace("{COUNT}", count).replace("{STRIDES}", strides)
    if not check:
        src = src.replace("if kh > h or kw > w:", "if False:")
    return src


_IM2COL = _IMPORTS + _window_layout() + """
def im2col(x, kernel, stride=(1, 1)):
    if x.ndim != 3:
        raise ValueError(f"x must be (C, H, W), got shape {x.shape}")
    element_strides = {ELEMENT_STRIDES}
    shape, strides = window_layout(x.shape, element_strides, kernel, stride)
    view = as_strided(x, shape, {BYTE_STRIDES}, writeable=False)
    c, oh, ow, kh, kw = shape
    return {RESULT}
"""
_ELEMENT_STRIDES = "tuple(s // x.itemsize for s in x.strides)"
_BYTE_STRIDES = "tuple(s * x.itemsize for s in strides)"
_RESULT = "np.array(view.transpose(0, 3, 4, 1, 2)).reshape(c * kh * kw, oh * ow)"


def _im2col(element_strides: str = _ELEMENT_STRIDES, byte_strides: str = _BYTE_STRIDES,
            result: str = _RESULT) -> str:
    return (_IM2COL.replace("{ELEMENT_STRIDES}", element_strides)
            .replace("{BYTE_STRIDES}", byte_strides).replace("{RESULT}", result))


_CONV2D = _im2col() + """
def conv2d(x, weight, bias=None, stride=1, padding=0):
    c, oc = x.shape[0], weight.shape[0]
    {CHECK}
    kh, kw = weight.shape[2:]
    x = {PAD}
    cols = im2col(x, (kh, kw), ({STRIDE}, {STRIDE}))
    oh = (x.shape[1] - kh) // {STRIDE} + 1
    out = ({WEIGHT} @ cols).reshape(oc, oh, -1)
    return {RETURN}
"""
_CONV_CHECK = ("if weight.shape[1] != c:\n"
               "        raise ValueError(f'input has {c} channels but weight {weight.shape} "
               "expects {weight.shape[1]}')")
_WEIGHT = "weight.reshape(oc, -1)"
_RETURN = "out if bias is None else out + bias[:, None, None]"


def _conv2d(check: str = _CONV_CHECK, stride: str = "stride", weight: str = _WEIGHT,
            ret: str = _RETURN,
            pad: str = "np.pad(x, ((0, 0), (padding, padding), (padding, padding)))") -> str:
    return (_CONV2D.replace("{CHECK}", check).replace("{STRIDE}", stride)
            .replace("{WEIGHT}", weight).replace("{RETURN}", ret).replace("{PAD}", pad))


_COL2IM = _IMPORTS + """
def col2im(cols, shape, kernel, stride=(1, 1)):
    (c, h, w), (kh, kw), (sh, sw) = shape, kernel, stride
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    {CHECK}
    out = np.zeros(shape, dtype=cols.dtype)
    blocks = cols.reshape(c, kh, kw, oh, ow)
    for i in range(kh):
        for j in range(kw):
            out[:, {ROWS}, {COLUMNS}] {OP} blocks[:, i, j]
    return out
"""
_COL2IM_CHECK = ("if cols.shape != (c * kh * kw, oh * ow):\n"
                 "        raise ValueError(f'cols {cols.shape} is not {(c * kh * kw, oh * ow)}')")


def _col2im(check: str = _COL2IM_CHECK, rows: str = "i:i + sh * (oh - 1) + 1:sh",
            columns: str = "j:j + sw * (ow - 1) + 1:sw", op: str = "+=") -> str:
    return (_COL2IM.replace("{CHECK}", check).replace("{ROWS}", rows)
            .replace("{COLUMNS}", columns).replace("{OP}", op))


_MAX_POOL = _IMPORTS + _window_layout() + """
def max_pool2d(x, kernel, stride=None):
    stride = {DEFAULT}
    element_strides = tuple(s // x.itemsize for s in x.strides)
    shape, strides = window_layout(x.shape, element_strides, kernel, stride)
    view = as_strided(x, shape, tuple(s * x.itemsize for s in strides), writeable=False)
    return {REDUCE}
"""


def _max_pool(default: str = "kernel if stride is None else stride",
              reduce: str = "view.max(axis=(-2, -1))") -> str:
    return _MAX_POOL.replace("{DEFAULT}", default).replace("{REDUCE}", reduce)


_INPUT_GRAD = _col2im() + """
def conv2d_input_grad(grad_out, weight, input_shape, stride=1, padding=0):
    oc, c, kh, kw = weight.shape
    _, h, w = input_shape
    weight = {WEIGHT}
    grad_cols = weight.reshape(oc, c * kh * kw).T @ grad_out.reshape(oc, -1)
    padded = (c, h + 2 * padding, w + 2 * padding)
    grad = col2im(grad_cols, padded, (kh, kw), (stride, stride))
    return {RETURN}
"""


def _input_grad(weight: str = "weight",
                ret: str = "grad[:, padding:padding + h, padding:padding + w]") -> str:
    return _INPUT_GRAD.replace("{WEIGHT}", weight).replace("{RETURN}", ret)


MISCONCEPTIONS = {
    "window_layout": [
        Misconception(
            "window counts do not step",
            "keeps the image's strides for the window-count axes: with a stride above 1 "
            "neighbouring windows overlap instead of jumping",
            _window_layout(strides="(*lead_strides, s_h, s_w, s_h, s_w)")),
        Misconception(
            "counts windows as if the stride were 1",
            "counts H - kh + 1 windows whatever the stride: with a stride above 1 the view "
            "has too many windows and reads past the image",
            _window_layout(count="oh, ow = h - kh + 1, w - kw + 1")),
        Misconception(
            "rounds the window count up",
            "rounds the number of windows up: the last window sticks out of the image when "
            "the stride does not divide H - kh",
            _window_layout(count="oh, ow = -(-(h - kh) // sh) + 1, -(-(w - kw) // sw) + 1")),
        Misconception(
            "row-major strides instead of the given ones",
            "recomputes row-major strides from the shape instead of using the ones given: "
            "a transposed image gets the windows of the untransposed one",
            _window_layout(strides="(*lead_strides, w * sh, sw, w, 1)")),
        Misconception(
            "no check that the kernel fits",
            "never checks that the kernel fits in the image: a kernel larger than the image "
            "gives a layout with no windows instead of a ValueError",
            _window_layout(check=False)),
    ],
    "im2col": [
        Misconception(
            "element strides given to as_strided",
            "gives as_strided strides in elements; NumPy wants bytes (times x.itemsize), so "
            "the view reads the wrong memory",
            _im2col(byte_strides="strides")),
        Misconception(
            "assumes a contiguous input",
            "computes row-major strides from x's shape instead of reading x.strides: a "
            "transposed (non-contiguous) input gives the windows of the wrong image",
            _im2col(element_strides="(x.shape[1] * x.shape[2], x.shape[2], 1)")),
        Misconception(
            "one window per row (the transpose)",
            "puts one window per row instead of one per column: the result is (OH * OW, C * "
            "kh * kw), the transpose of the layout asked for",
            _im2col(result="view.reshape(c, oh * ow, kh * kw).transpose(1, 0, 2)"
                           ".reshape(oh * ow, c * kh * kw)")),
        Misconception(
            "kernel position before the channel",
            "orders the rows (i, j, c) instead of (c, i, j): with several channels the rows "
            "no longer match a weight flattened as (OC, C * kh * kw)",
            _im2col(result="view.transpose(3, 4, 0, 1, 2).reshape(c * kh * kw, oh * ow)")),
        Misconception(
            "reshapes without the permute",
            "reshapes the window view (C, OH, OW, kh, kw) as it is: each row then holds pieces "
            "of windows instead of one pixel position of every window; permute to (C, kh, kw, "
            "OH, OW) first",
            _im2col(result="np.array(view).reshape(c * kh * kw, oh * ow)")),
        Misconception(
            "returns the view without copying",
            "relies on the reshape to copy, but when windows do not overlap (a 1 x 1 kernel, or "
            "one window covering the image) they reshape into a view of x: writing into the "
            "columns would change the image",
            _im2col(result="view.transpose(0, 3, 4, 1, 2).reshape(c * kh * kw, oh * ow)")),
    ],
    "conv2d": [
        Misconception(
            "pads the channels too",
            "pads with np.pad(x, padding), which pads every axis, the channels included: the "
            "image gets 2 * padding extra channels of zeros and no longer matches the weight",
            _conv2d(pad="np.pad(x, padding)")),
        Misconception(
            "flips the kernel (a true convolution)",
            "flips the kernel as a textbook convolution does; deep learning's conv2d is a "
            "cross-correlation, so an asymmetric kernel gives the mirrored answer",
            _conv2d(weight="weight[:, :, ::-1, ::-1].reshape(oc, -1)")),
        Misconception(
            "adds the bias along the last axis",
            "adds bias to (OC, OH, OW) as it is: broadcasting lines it up with the last axis, "
            "the width, so each column gets a channel's bias (or the shapes clash); give it "
            "the shape (OC, 1, 1) first",
            _conv2d(ret="out if bias is None else out + bias")),
        Misconception(
            "forgets the bias",
            "never adds the bias: every output channel is off by its bias",
            _conv2d(ret="out")),
        Misconception(
            "ignores the stride",
            "always moves the window one pixel: with stride 2 the output is too large",
            _conv2d(stride="1")),
        Misconception(
            "weight flattened as (kh, kw, C)",
            "flattens the weight in (i, j, c) order while im2col's rows are (c, i, j): "
            "several channels get mixed up",
            _conv2d(weight="weight.transpose(0, 2, 3, 1).reshape(oc, -1)")),
        Misconception(
            "no channel check",
            "never compares the channel counts: a mismatch reaches the matmul, whose error "
            "does not name the weight's shape",
            _conv2d(check="pass")),
    ],
    "col2im": [
        Misconception(
            "reads cols in window order",
            "reshapes cols as (C, OH, OW, kh, kw), the window view's order, but cols' rows are "
            "(c, i, j) and its columns the windows: reshape as (C, kh, kw, OH, OW)",
            _col2im().replace("blocks = cols.reshape(c, kh, kw, oh, ow)",
                              "blocks = cols.reshape(c, oh, ow, kh, kw).transpose(0, 3, 4, 1, 2)")),
        Misconception(
            "assigns instead of adding",
            "assigns each window's values with = instead of adding with +=: where windows "
            "overlap only the last one is kept",
            _col2im(op="=")),
        Misconception(
            "ignores the stride",
            "puts window (r, q) at pixel (r, q) instead of (r * sh, q * sw): with a stride "
            "above 1 the values land in the wrong places",
            _col2im(rows="i:i + oh", columns="j:j + ow")),
        Misconception(
            "no shape check",
            "never checks the shape of cols: columns of the wrong shape fail inside reshape, "
            "with an error that names neither shape",
            _col2im(check="pass")),
    ],
    "max_pool2d": [
        Misconception(
            "stride defaults to 1",
            "uses stride 1 when none is given: the windows overlap and the output is too large "
            "(PyTorch's default is the kernel size)",
            _max_pool(default="(1, 1) if stride is None else stride")),
        Misconception(
            "pools across channels too",
            "takes the maximum over the channels as well: several channels collapse into one",
            _max_pool(reduce="view.max(axis=(-2, -1)).max(axis=0, keepdims=True)")),
        Misconception(
            "pools over the window-count axes",
            "takes the maximum over axes 1 and 2 of the window view: those count the windows "
            "(OH, OW); the pixels of each window are the last two axes (kh, kw)",
            _max_pool(reduce="view.max(axis=(1, 2))")),
        Misconception(
            "starts the maximum at 0",
            "starts the running maximum at 0: a window of negative values gives 0",
            _max_pool(reduce="np.maximum(view.max(axis=(-2, -1)), 0)")),
    ],
    "conv2d_input_grad": [
        Misconception(
            "flips the kernel",
            "flips the kernel: col2im already puts each weight back where it was used, so the "
            "gradient comes out mirrored",
            _input_grad(weight="weight[:, :, ::-1, ::-1]")),
        Misconception(
            "keeps the padding",
            "returns the gradient of the padded image: it has padding rows and columns too "
            "many",
            _input_grad(ret="grad")),
    ],
}


# ------------------------------------------------------------------ stretch: conv2d_weight_grad

_WEIGHT_GRAD = """
import numpy as np
from stridegrad.nn.im2col import im2col


def conv2d_weight_grad(x, grad_out, weight_shape, stride=1, padding=0):
    oc, c, kh, kw = weight_shape
    xp = {PADDED}
    oh, ow = (xp.shape[1] - kh) // stride + 1, (xp.shape[2] - kw) // stride + 1
    {CHECK}
    cols = im2col(xp, (kh, kw), ({STRIDE}, {STRIDE}))
    return {RESULT}
"""
_SHAPE_CHECK = ('if grad_out.shape != (oc, oh, ow):\n        raise ValueError(f"grad_out '
                '{grad_out.shape} is not {(oc, oh, ow)}")')


def _weight_grad(padded="np.pad(x, ((0, 0), (padding, padding), (padding, padding)))",
                 check=_SHAPE_CHECK, stride="stride",
                 result="(grad_out.reshape(oc, -1) @ cols.T).reshape(oc, c, kh, kw)"):
    return (_WEIGHT_GRAD.replace("{PADDED}", padded).replace("{CHECK}", check)
            .replace("{STRIDE}", stride).replace("{RESULT}", result))


MISCONCEPTIONS["conv2d_weight_grad"] = [
    Misconception("forgets the padding",
      "takes the windows of x itself, not of x padded with zeros: with padding the windows "
      "do not line up with grad_out (wrong values or a shape error)",
      _weight_grad(padded="x")),
    Misconception("swaps kernel rows and columns",
      "reshapes the result as (OC, C, kw, kh) and transposes: entry [i, j] gets the pixels "
      "of entry [j, i], right only for a symmetric answer",
      _weight_grad(result="(grad_out.reshape(oc, -1) @ cols.T).reshape(oc, c, kw, kh)"
                          ".transpose(0, 1, 3, 2)")),
    Misconception("ignores the stride",
      "takes every window (stride 1) whatever the stride: with stride 2 there are more "
      "windows than grad_out has entries",
      _weight_grad(stride="1")),
    Misconception("averages over the windows",
      "divides the sum over the windows by their number: the gradient of a sum is the sum, "
      "so every entry comes out OH * OW times too small",
      _weight_grad(result="(grad_out.reshape(oc, -1) @ cols.T / (oh * ow))"
                          ".reshape(oc, c, kh, kw)")),
    Misconception("no shape check",
      "never compares grad_out's shape with the convolution's output shape: a wrong "
      "grad_out gives a broken reshape or a silent answer instead of a clear ValueError",
      _weight_grad(check="pass")),
    Misconception("output width from the height",
      "computes both output sizes from the padded height, xp.shape[1]: right for a "
      "square image, but for H != W the expected output shape is wrong, so a right "
      "grad_out is refused (or the windows do not line up with it)",
      _weight_grad().replace("(xp.shape[2] - kw) // stride + 1",
                             "(xp.shape[1] - kw) // stride + 1")),
    Misconception("a float64 accumulator",
      "adds the windows up in np.zeros(weight_shape), a float64 array: the values are "
      "right, but a float32 x and grad_out give a float64 gradient, where the result "
      "keeps their dtype",
      _weight_grad(result="""np.zeros((oc, c, kh, kw)) + (grad_out.reshape(oc, -1) @ cols.T).reshape(
        oc, c, kh, kw)""")),
]
