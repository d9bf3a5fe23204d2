"""Known-wrong implementations of the exercises of episode 05 (matmul and a loss):
checkpoint 05 must fail every one (tests/course/test_checks.py and
tests/course/test_ep05.py run them)."""

from __future__ import annotations

from stridegrad.course.misconceptions import Misconception

__all__ = ["MISCONCEPTIONS"]

_MATMUL_OK = """
def matmul_2d(a, a_shape, a_strides, b, b_shape, b_strides):
    (n, k), (k2, m) = a_shape, b_shape
    if k != k2:
        raise ValueError(f"{a_shape} and {b_shape}")
    out = []
    for i in range(n):
        for j in range(m):
            out.append(sum(a[i * a_strides[0] + p * a_strides[1]] * {B} for p in range(k)))
    return out
"""

_BATCHED = """
def batched_matmul(a, a_shape, a_strides, b, b_shape, b_strides):
    (nb, n, k), (nb2, k2, m) = a_shape, b_shape
    {CHECK}
    out = []
    for t in range({BATCHES}):
        for i in range(n):
            for j in range(m):
                row = {ASTART} + i * a_strides[1]
                col = {BSTART} + j * b_strides[2]
                out.append(sum(a[row + p * a_strides[2]] * b[col + p * b_strides[1]]
                               for p in range(k)))
    return out
"""
_BATCH_CHECK = "if nb != nb2 or k != k2:\n        raise ValueError(f'{a_shape} and {b_shape}')"


def _batched(check=_BATCH_CHECK, batches="nb", a_start="t * a_strides[0]",
             b_start="t * b_strides[0]"):
    """A batched_matmul as it should be but for the parts given: the size check, how
    many batches it walks, and where matrix t of a and of b starts."""
    return (_BATCHED.replace("{CHECK}", check).replace("{BATCHES}", batches)
            .replace("{ASTART}", a_start).replace("{BSTART}", b_start))


_MSE = """
def mse(pred, target):
    {CHECK}
    return {EXPR}
"""
_MSE_CHECK = "if len(pred) != len(target) or not pred:\n        raise ValueError('lengths')"

_GRADS = """
def line_grads(w, b, xs, ys):
    if len(xs) != len(ys):
        raise ValueError("lengths")
    {EMPTY}
    n = len(xs)
    r = [{RESIDUAL} for x, y in zip(xs, ys)]
    return {DW}, {DB}
"""


def _grads(residual="w * x + b - y", dw="2 * sum(ri * x for ri, x in zip(r, xs)) / n",
           db="2 * sum(r) / n", empty="if not xs:\n        raise ValueError('no points')"):
    """A line_grads as it should be but for the parts given."""
    return (_GRADS.replace("{EMPTY}", empty).replace("{RESIDUAL}", residual)
            .replace("{DW}", dw).replace("{DB}", db))


# Known-wrong implementations a learner might write: (label, source) per exercise.
MISCONCEPTIONS = {
    "matmul_2d": [
        Misconception("assumes b's column stride is 1 (un-transposed b)",
          "reads b as if it were row-major (b[p * m + j]) instead of through its strides: a "
          "transposed b gives the wrong product",
         _MATMUL_OK.replace("{B}", "b[p * b_shape[1] + j]")),
        Misconception("steps down b's column with the column stride",
          "uses b's column stride to step down a column too: b[p, j] is read at the wrong place "
          "unless both strides are equal",
         _MATMUL_OK.replace("{B}", "b[j * b_strides[1] + p * b_strides[1]]")),
        Misconception("a row of a times a row of b (a @ b.T)",
          "multiplies a row of a by a row of b, computing a @ b.T: the shapes and values of a @ "
          "b are wrong",
         _MATMUL_OK.replace("{B}", "b[j * b_strides[0] + p * b_strides[1]]")),
        Misconception("columns outside, rows inside",
          "loops over j outside and i inside: every dot product is right, but they come out "
          "column by column, the storage of the transposed product instead of row-major",
         _MATMUL_OK.replace("    for i in range(n):\n        for j in range(m):\n",
                            "    for j in range(m):\n        for i in range(n):\n")
                   .replace("{B}", "b[p * b_strides[0] + j * b_strides[1]]")),
        Misconception("no inner-size check",
          "never checks that a's columns match b's rows: mismatched matrices give numbers "
          "instead of a ValueError",
          """
def matmul_2d(a, a_shape, a_strides, b, b_shape, b_strides):
    n, k = a_shape
    m = b_shape[1]
    return [sum(a[i * a_strides[0] + p * a_strides[1]] * b[p * b_strides[0] + j * b_strides[1]]
                for p in range(k) if p < b_shape[0]) for i in range(n) for j in range(m)]
"""),
        Misconception("names only a's shape in the error",
          "raises the ValueError for inner sizes that differ, but its message names a's "
          "shape alone: the docstring asks for both shapes, the two sizes that disagree",
          _MATMUL_OK.replace("{B}", "b[p * b_strides[0] + j * b_strides[1]]")
                    .replace('raise ValueError(f"{a_shape} and {b_shape}")',
                             'raise ValueError(f"a of shape {a_shape} does not fit b")')),
        Misconception("nested rows instead of flat storage",
          "returns a list of rows instead of the flat, row-major list asked for: the numbers "
          "are right but nested",
          """
def matmul_2d(a, a_shape, a_strides, b, b_shape, b_strides):
    (n, k), (k2, m) = a_shape, b_shape
    if k != k2:
        raise ValueError(f"{a_shape} and {b_shape}")
    return [[sum(a[i * a_strides[0] + p * a_strides[1]] * b[p * b_strides[0] + j * b_strides[1]]
                 for p in range(k)) for j in range(m)] for i in range(n)]
"""),
    ],
    "batched_matmul": [
        Misconception("matrix strides taken from the wrong end",
          "starts matrix t at its batch stride but then reads inside it with strides[0] and "
          "strides[1], the batch stride and the row stride, instead of strides[1] and "
          "strides[2]: a row and a column of matrix t are the last two axes",
          _batched().replace("row = t * a_strides[0] + i * a_strides[1]",
                             "row = t * a_strides[0] + i * a_strides[0]")
                    .replace("a[row + p * a_strides[2]]", "a[row + p * a_strides[1]]")
                    .replace("col = t * b_strides[0] + j * b_strides[2]",
                             "col = t * b_strides[0] + j * b_strides[1]")
                    .replace("b[col + p * b_strides[1]]", "b[col + p * b_strides[0]]")),
        Misconception("ignores b's batch stride (assumes contiguous b)",
          "steps to the next matrix of b by k * m instead of b's batch stride: a b that repeats "
          "one matrix (stride 0) or is strided gives wrong batches",
         _batched(b_start="t * k * m")),
        Misconception("uses a's batch stride for b too",
          "steps through b's batches with a's batch stride: wrong whenever the two are laid out "
          "differently",
         _batched(b_start="t * a_strides[0]")),
        Misconception("first matrix only",
          "multiplies the first pair of matrices only: the other batches are missing",
         _batched(batches="min(nb, 1)")),
        Misconception("checks the inner sizes only",
          "checks that the inner sizes agree but not the batch sizes: a batch of 2 against a "
          "batch of 3 gives numbers (the extra matrices are ignored) instead of a ValueError",
         _batched(check="if k != k2:\n        raise ValueError(f'{a_shape} and {b_shape}')")),
        Misconception("ignores a's batch stride (assumes contiguous a)",
          "steps to the next matrix of a by n * k instead of a's batch stride: right for a "
          "contiguous a, wrong when a's matrices are spaced out (or shared, stride 0)",
         _batched(a_start="t * n * k")),
        Misconception("steps between matrices by their sizes, not the batch strides",
          "starts matrix t of a at t * n * k and of b at t * k * m, as if both batches were "
          "contiguous: the batch strides are ignored, so a b shared across the batch (stride "
          "0) or spaced-out matrices are read from the wrong places",
         _batched(a_start="t * n * k", b_start="t * k * m")),
        Misconception("output columns counted by a's rows",
          "loops j over range(n), a's number of rows, where the product has m columns: "
          "right when every matrix is square (n == m), too few or too many numbers "
          "otherwise",
         _batched().replace("for j in range(m):", "for j in range(n):")),
        Misconception("no size checks",
          "never checks the batch and inner sizes: mismatched batches give numbers instead of a "
          "ValueError",
         _batched(check="pass", batches="min(nb, nb2)")),
    ],
    "mse": [
        Misconception("sum without the mean",
          "sums the squared errors without dividing by their count: the loss grows with the "
          "number of points",
         _MSE.replace("{CHECK}", _MSE_CHECK)
         .replace("{EXPR}", "sum((p - t) ** 2 for p, t in zip(pred, target))")),
        Misconception("absolute errors instead of squares",
          "averages absolute errors (MAE), not squared ones: wrong whenever an error is not 0 "
          "or 1",
         _MSE.replace("{CHECK}", _MSE_CHECK)
         .replace("{EXPR}", "sum(abs(p - t) for p, t in zip(pred, target)) / len(pred)")),
        Misconception("divides by n - 1",
          "divides by n - 1 (the sample variance's correction): the mean is too large",
         _MSE.replace("{CHECK}", _MSE_CHECK)
         .replace("{EXPR}", "sum((p - t) ** 2 for p, t in zip(pred, target)) / max(len(pred) - 1, 1)")),
        Misconception("no length check (zip truncates, empty divides by zero)",
          "never checks the lengths: zip silently drops the extra points, and empty lists "
          "divide by zero instead of raising ValueError",
         _MSE.replace("{CHECK}", "pass")
         .replace("{EXPR}", "sum((p - t) ** 2 for p, t in zip(pred, target)) / len(pred)")),
        Misconception("empty input gives 0.0",
          "returns 0.0 for two empty lists: the mean of no numbers is undefined (0 / 0), and a "
          "loss of 0.0 would say that predictions of nothing are perfect; raise ValueError "
          "for empty lists, as for lists of different lengths",
         _MSE.replace("{CHECK}", "if len(pred) != len(target):\n"
                      "        raise ValueError(f'{len(pred)} and {len(target)} values')\n"
                      "    if not pred:\n        return 0.0")
         .replace("{EXPR}", "sum((p - t) ** 2 for p, t in zip(pred, target)) / len(pred)")),
        Misconception("returns a NumPy float (np.mean)",
          "computes the mean with NumPy (np.mean): the number is right, but it is a NumPy "
          "float64, not the Python float the docstring asks for; wrap it in float(...) or "
          "divide the sum by len(pred)",
          "import numpy as np\n" + _MSE.replace("{CHECK}", _MSE_CHECK)
         .replace("{EXPR}", "np.mean((np.asarray(pred) - np.asarray(target)) ** 2)")),
        Misconception("squares the mean error",
          "squares the mean error instead of averaging the squared errors: errors of opposite "
          "sign cancel",
         _MSE.replace("{CHECK}", _MSE_CHECK)
         .replace("{EXPR}", "(sum(p - t for p, t in zip(pred, target)) / len(pred)) ** 2")),
    ],
    "line_grads": [
        Misconception("sign error: target minus prediction",
          "uses y - prediction as the residual: both gradients have the wrong sign, so a step "
          "would climb the loss",
          _grads(residual="y - (w * x + b)")),
        Misconception("dL/dw without the x",
          "leaves the factor x_i out of dL/dw: d(r_i)/dw is x_i, so dL/dw = (2/N) sum r_i x_i, "
          "not (2/N) sum r_i, which is dL/db",
          _grads(dw="2 * sum(r) / n")),
        Misconception("forgets the factor 2",
          "forgets the 2 from the derivative of r**2: both gradients are half their size",
          _grads(dw="sum(ri * x for ri, x in zip(r, xs)) / n",
                                        db="sum(r) / n")),
        Misconception("sum instead of mean",
          "sums over the points instead of averaging: both gradients are n times too large",
          _grads(dw="2 * sum(ri * x for ri, x in zip(r, xs))",
                                       db="2 * sum(r)")),
        Misconception("x in the bias gradient too",
          "multiplies the residual by x in the bias gradient too: dL/db equals dL/dw",
          _grads(db="2 * sum(ri * x for ri, x in zip(r, xs)) / n")),
        Misconception("no check for empty lists",
          "checks the lengths but not that there is a point: empty lists divide by n = 0 "
          "and raise ZeroDivisionError where the docstring promises a ValueError (the mean "
          "of no values is undefined)",
          _grads(empty="pass")),
        Misconception("gradients swapped",
          "returns (dL/db, dL/dw) in place of (dL/dw, dL/db): the two values are swapped",
          _grads(dw="2 * sum(r) / n",
                                     db="2 * sum(ri * x for ri, x in zip(r, xs)) / n")),
    ],
}


# ------------------------------------------------------------------ stretch: linear_model

_LINEAR = _MATMUL_OK.replace("{B}", "b[p * b_strides[0] + j * b_strides[1]]") + """

def mse(pred, target):
    if len(pred) != len(target) or not pred:
        raise ValueError(f"mse: {len(pred)} predictions but {len(target)} targets")
    return sum((p - t) ** 2 for p, t in zip(pred, target)) / len(pred)


def linear_model(x, x_shape, w, b, y):
    n, d = {SIZES}
    pred = [p + {B} for p in matmul_2d(x, (n, d), (d, 1), w, (len(w), 1), (1, 1))]
    loss = mse(pred, y)
    residuals = [{RESIDUAL} for p, t in zip(pred, y)]{AFTER}
    xt_r = matmul_2d({XT}, (d, n), {XT_STRIDES}, residuals, (n, 1), (1, 1))
    return loss, [{SCALE} * g for g in xt_r], {SCALE} * sum(residuals)
"""


def _linear(b="b", residual="p - t", xt_strides="(1, d)", scale="2 / n", xt="x", after="",
            sizes="x_shape"):
    return (_LINEAR.replace("{SIZES}", sizes).replace("{B}", b).replace("{RESIDUAL}", residual)
            .replace("{XT_STRIDES}", xt_strides).replace("{SCALE}", scale)
            .replace("{XT}", xt).replace("{AFTER}", after))


MISCONCEPTIONS["linear_model"] = [
    Misconception("forgets the 2/N",
      "returns X^T r and sum(r) without the factor 2/N from the mean of squares: every "
      "gradient is N/2 times too small (half, for one row)",
      _linear(scale="1")),
    Misconception("target minus prediction",
      "takes the residual as target - prediction: the loss is right, but every gradient "
      "has the wrong sign and a step would climb the loss",
      _linear(residual="t - p")),
    Misconception("forgets b",
      "predicts X w without adding b: the loss and gradients are those of a model through "
      "the origin",
      _linear(b="0")),
    Misconception("forgets b in the residuals",
      "adds b to the predictions for the loss but leaves it out of the residuals (X w - y): "
      "the loss is right, the gradients are those of a model without b",
      _linear(residual="p - b - t")),
    Misconception("copies the transpose",
      "builds X transposed as a new list and multiplies that: the numbers are right, but "
      "the transpose was to be read from x itself through swapped strides, with no copy",
      _linear(xt="[x[r * d + c] for c in range(d) for r in range(n)]", xt_strides="(n, 1)")),
    Misconception("writes the residuals into y",
      "stores the residuals in y, the caller's list of targets, to save a list: the answer "
      "is right but y has changed",
      _linear(after="\n    y[:] = residuals\n    residuals = y")),
    Misconception("reshapes X instead of transposing it",
      "reads X as a (D, N) matrix with strides (N, 1), a reshape, instead of swapping its "
      "strides to (1, D): right only for a single row, wrong as soon as X has two",
      _linear(xt_strides="(n, 1)")),
    Misconception("divides by D, not N",
      "scales the gradients by 2/D (the number of inputs) instead of 2/N (the number of "
      "rows): right only when X happens to be square",
      _linear(scale="2 / d")),
    Misconception("sizes from y and w, not from x_shape",
      "takes N and D from len(y) and len(w) instead of x_shape: right when the sizes agree, "
      "but a w or a y of the wrong length gives numbers (or an IndexError) where matmul_2d "
      "and mse would raise the ValueError the docstring promises",
      _linear(sizes="len(y), len(w)")),
]
