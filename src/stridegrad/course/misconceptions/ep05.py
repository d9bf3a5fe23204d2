"""Known-wrong implementations of the exercises of episode 05 (matmul and a loss):
checkpoint 05 must fail every one (tests/course/test_checks.py and
tests/course/test_ep05.py run them)."""

from __future__ import annotations

__all__ = ["WRONG"]

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
                row = t * a_strides[0] + i * a_strides[1]
                col = {BSTART} + j * b_strides[2]
                out.append(sum(a[row + p * a_strides[2]] * b[col + p * b_strides[1]]
                               for p in range(k)))
    return out
"""
_BATCH_CHECK = "if nb != nb2 or k != k2:\n        raise ValueError(f'{a_shape} and {b_shape}')"

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
    n = len(xs)
    r = [{RESIDUAL} for x, y in zip(xs, ys)]
    return {DW}, {DB}
"""


def _grads(residual="w * x + b - y", dw="2 * sum(ri * x for ri, x in zip(r, xs)) / n",
           db="2 * sum(r) / n"):
    return _GRADS.replace("{RESIDUAL}", residual).replace("{DW}", dw).replace("{DB}", db)


# Known-wrong implementations a learner might write: (label, source) per exercise.
WRONG = {
    "matmul_2d": [
        ("assumes b's column stride is 1 (un-transposed b)",
         _MATMUL_OK.replace("{B}", "b[p * b_shape[1] + j]")),
        ("steps down b's column with the column stride",
         _MATMUL_OK.replace("{B}", "b[j * b_strides[1] + p * b_strides[1]]")),
        ("a row of a times a row of b (a @ b.T)",
         _MATMUL_OK.replace("{B}", "b[j * b_strides[0] + p * b_strides[1]]")),
        ("no inner-size check", """
def matmul_2d(a, a_shape, a_strides, b, b_shape, b_strides):
    n, k = a_shape
    m = b_shape[1]
    return [sum(a[i * a_strides[0] + p * a_strides[1]] * b[p * b_strides[0] + j * b_strides[1]]
                for p in range(k) if p < b_shape[0]) for i in range(n) for j in range(m)]
"""),
        ("nested rows instead of flat storage", """
def matmul_2d(a, a_shape, a_strides, b, b_shape, b_strides):
    (n, k), (k2, m) = a_shape, b_shape
    if k != k2:
        raise ValueError(f"{a_shape} and {b_shape}")
    return [[sum(a[i * a_strides[0] + p * a_strides[1]] * b[p * b_strides[0] + j * b_strides[1]]
                 for p in range(k)) for j in range(m)] for i in range(n)]
"""),
    ],
    "batched_matmul": [
        ("ignores b's batch stride (assumes contiguous b)",
         _BATCHED.replace("{CHECK}", _BATCH_CHECK).replace("{BATCHES}", "nb")
         .replace("{BSTART}", "t * k * m")),
        ("uses a's batch stride for b too",
         _BATCHED.replace("{CHECK}", _BATCH_CHECK).replace("{BATCHES}", "nb")
         .replace("{BSTART}", "t * a_strides[0]")),
        ("first matrix only",
         _BATCHED.replace("{CHECK}", _BATCH_CHECK).replace("{BATCHES}", "min(nb, 1)")
         .replace("{BSTART}", "t * b_strides[0]")),
        ("no size checks",
         _BATCHED.replace("{CHECK}", "pass").replace("{BATCHES}", "min(nb, nb2)")
         .replace("{BSTART}", "t * b_strides[0]")),
    ],
    "mse": [
        ("sum without the mean",
         _MSE.replace("{CHECK}", _MSE_CHECK)
         .replace("{EXPR}", "sum((p - t) ** 2 for p, t in zip(pred, target))")),
        ("absolute errors instead of squares",
         _MSE.replace("{CHECK}", _MSE_CHECK)
         .replace("{EXPR}", "sum(abs(p - t) for p, t in zip(pred, target)) / len(pred)")),
        ("divides by n - 1",
         _MSE.replace("{CHECK}", _MSE_CHECK)
         .replace("{EXPR}", "sum((p - t) ** 2 for p, t in zip(pred, target)) / max(len(pred) - 1, 1)")),
        ("no length check (zip truncates, empty divides by zero)",
         _MSE.replace("{CHECK}", "pass")
         .replace("{EXPR}", "sum((p - t) ** 2 for p, t in zip(pred, target)) / len(pred)")),
        ("squares the mean error",
         _MSE.replace("{CHECK}", _MSE_CHECK)
         .replace("{EXPR}", "(sum(p - t for p, t in zip(pred, target)) / len(pred)) ** 2")),
    ],
    "line_grads": [
        ("sign error: target minus prediction", _grads(residual="y - (w * x + b)")),
        ("forgets the factor 2", _grads(dw="sum(ri * x for ri, x in zip(r, xs)) / n",
                                        db="sum(r) / n")),
        ("sum instead of mean", _grads(dw="2 * sum(ri * x for ri, x in zip(r, xs))",
                                       db="2 * sum(r)")),
        ("x in the bias gradient too", _grads(db="2 * sum(ri * x for ri, x in zip(r, xs)) / n")),
        ("gradients swapped", _grads(dw="2 * sum(r) / n",
                                     db="2 * sum(ri * x for ri, x in zip(r, xs)) / n")),
    ],
}
