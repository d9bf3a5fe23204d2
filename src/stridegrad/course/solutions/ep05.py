"""The solutions of lesson 05's exercises (05_matmul_and_a_loss), in one module.

Written by ``stridegrad build 05`` from ``course/05_matmul_and_a_loss.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 05 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.array.layout import matmul_2d
from stridegrad.array.layout import batched_matmul


def mse(pred: list, target: list) -> float:
    """Mean squared error of two equally long lists of numbers.

    Shape contract: ``(N,), (N,) -> ()``, ``N >= 1``:
    ``sum((p - t) ** 2) / N``, a Python float (not a NumPy one).

    Raises:
        ValueError: if the lengths differ or the lists are empty.
    """
    if len(pred) != len(target):
        raise ValueError(f"mse: {len(pred)} predictions but {len(target)} targets")
    if not pred:
        raise ValueError("mse: the mean of no values is undefined")
    return sum((p - t) ** 2 for p, t in zip(pred, target)) / len(pred)


def line_grads(w: float, b: float, xs: list, ys: list) -> tuple:
    """Gradients of ``L = mse([w * x + b for x in xs], ys)`` with respect to w and b.

    Shape contract: ``(), (), (N,), (N,) -> ((), ())``, ``N >= 1``:
    returns the tuple ``(dL/dw, dL/db)`` of two Python floats.

    Raises:
        ValueError: if ``xs`` and ``ys`` have different lengths or are empty
            (as ``mse``: the mean of no values is undefined).
    """
    if len(xs) != len(ys):
        raise ValueError(f"line_grads: {len(xs)} xs but {len(ys)} ys")
    if not xs:
        raise ValueError("line_grads: no points (the mean of no values is undefined)")
    n = len(xs)
    residuals = [w * x + b - y for x, y in zip(xs, ys)]
    dw = 2 * sum(r * x for r, x in zip(residuals, xs)) / n
    db = 2 * sum(residuals) / n
    return dw, db


def linear_model(x, x_shape, w, b, y):
    """Loss and gradients of the linear model ``X w + b`` under the mean squared error.

    Shape contract: ``x`` is the row-major storage of ``X``, shape ``x_shape =
    (N, D)``; ``w`` has ``D`` numbers, ``b`` is a number, ``y`` has ``N`` targets.
    Returns ``(loss, dw, db)``: ``loss = mse(X w + b, y)`` (a float), ``dw`` the
    list of the ``D`` derivatives dL/dw, ``db`` the number dL/db. The two matrix
    products go through your ``matmul_2d`` and the loss through your ``mse``; the
    transpose of ``X`` is ``x`` itself read as ``(D, N)`` with the strides swapped
    (no copy). No argument is changed.

    Raises:
        ValueError: as ``matmul_2d`` and ``mse`` do (sizes that do not match).

    Example:
        >>> linear_model([4, 3, 2], (1, 3), [0.5, -1, 2], 0.5, [2.5])
        (1.0, [8.0, 6.0, 4.0], 2.0)
    """
    n, d = x_shape
    pred = [p + b for p in matmul_2d(x, (n, d), (d, 1), w, (len(w), 1), (1, 1))]
    loss = mse(pred, y)
    residuals = [p - t for p, t in zip(pred, y)]
    xt_r = matmul_2d(x, (d, n), (1, d), residuals, (n, 1), (1, 1))  # X transposed: strides swapped
    return loss, [2 * g / n for g in xt_r], 2 * sum(residuals) / n


__all__ = ['matmul_2d', 'batched_matmul', 'mse', 'line_grads', 'linear_model']
