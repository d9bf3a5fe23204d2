"""The solutions of lesson 05's exercises (05_matmul_and_a_loss), in one module.

Written by ``stridegrad build 05`` from ``course/05_matmul_and_a_loss.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 05 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.array.layout import Shape, Strides


def matmul_2d(a: list, a_shape: Shape, a_strides: Strides,
              b: list, b_shape: Shape, b_strides: Strides) -> list:
    """Matrix product of two rank-2 strided arrays over flat storage.

    Shape contract: ``(n, k) @ (k, m) -> (n, m)``; ``a`` and ``b`` are storage
    lists read through any strides >= 0 (transposed, stepped or broadcast
    views, 0 included), each starting at position 0 of its storage. Any sizes,
    0 included.
    Returns a new list, the flat row-major storage of the product: element
    ``i * m + j`` is the dot product of row ``i`` of ``a`` and column ``j`` of
    ``b``, a sum that starts at 0 (an int when the numbers are ints; 0 when
    ``k`` is 0).

    Raises:
        ValueError: naming both shapes, if the inner sizes differ.

    Example:
        >>> matmul_2d([1, 2, 3, 4], (2, 2), (2, 1), [1, 0, 0, 1], (2, 2), (2, 1))
        [1, 2, 3, 4]
    """
    (n, k), (k2, m) = a_shape, b_shape
    if k != k2:
        raise ValueError(f"matmul: shapes {tuple(a_shape)} and {tuple(b_shape)} are not "
                         f"aligned: {k} != {k2}")
    out = []
    for i in range(n):
        for j in range(m):
            row, col = i * a_strides[0], j * b_strides[1]  # where row i and column j start
            total = 0
            for p in range(k):
                total += a[row + p * a_strides[1]] * b[col + p * b_strides[0]]
            out.append(total)
    return out


def batched_matmul(a: list, a_shape: Shape, a_strides: Strides,
                   b: list, b_shape: Shape, b_strides: Strides) -> list:
    """Batched matrix product of two rank-3 strided arrays over flat storage.

    Shape contract: ``(B, n, k) @ (B, k, m) -> (B, n, m)``, matrix ``t`` of
    the result being ``a[t] @ b[t]``. Any strides >= 0, 0 included (a batch
    stride of 0 shares one matrix across the batch), each array starting at
    position 0 of its storage; any sizes, 0 included. Returns a new list, the
    flat row-major storage of the result, each element a dot product as in
    ``matmul_2d``.

    Raises:
        ValueError: naming both shapes, if the batch sizes or the inner sizes differ.
    """
    (nb, n, k), (nb2, k2, m) = a_shape, b_shape
    if nb != nb2 or k != k2:
        raise ValueError(f"batched matmul: shapes {tuple(a_shape)} and {tuple(b_shape)} do not "
                         "match: batch sizes and inner sizes must be equal")
    out = []
    for t in range(nb):
        for i in range(n):
            for j in range(m):
                row = t * a_strides[0] + i * a_strides[1]
                col = t * b_strides[0] + j * b_strides[2]
                total = 0
                for p in range(k):
                    total += a[row + p * a_strides[2]] * b[col + p * b_strides[1]]
                out.append(total)
    return out


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
