"""Checkpoint 05 (matmul and a loss): ``matmul_2d``, ``batched_matmul``, ``mse`` and
``line_grads``.

Each test needs only the function it tests. The answers are written out by
hand (the arithmetic is in the hints), never computed with the library. After
them, each exercise's contract judges it on generated
inputs against the lesson's own solution; ``linear_model``'s through a scenario
that also watches its calls to ``matmul_2d`` and ``mse``.
"""

from __future__ import annotations

import random

from hypothesis import strategies as st

from stridegrad.course.checkpoints._layouts import call
from stridegrad.course.checks import Checkpoint, CheckFailure, expect
from stridegrad.course._wire import calls_while
from stridegrad.course.contracts import Invalid

__all__ = ["checkpoint"]

checkpoint = Checkpoint("05_matmul_and_a_loss", "matmul and a loss")

# A = [[1, 2, 3], [4, 5, 6]] and B = [[7, 8], [9, 10], [11, 12]]:
# A @ B = [[1*7 + 2*9 + 3*11, 1*8 + 2*10 + 3*12], [4*7 + 5*9 + 6*11, 4*8 + 5*10 + 6*12]]
#       = [[58, 64], [139, 154]]
A, B, AB = [1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12], [58, 64, 139, 154]

# ------------------------------------------------------------------ generated inputs

# Drawn toward what learners get wrong here: sizes 0, 1 and unequal sizes (n, k and m
# all different: a square matrix hides which size is which), strides of transposed,
# stepped and broadcast views (0), storage shared by both operands, ints and floats
# of very different scales (multiples of 1/8: every order of summation is exact).


def _numbers(draw, n: int, kind: str | None = None) -> list:
    """``n`` numbers: small ints, or multiples of 1/8 of one scale (1, 1024 or 1/64);
    now and then all zeros. One draw for them all (a draw per number is slow)."""
    kind = kind or draw(st.sampled_from(["int", "float"]))
    seed = draw(st.integers(0, 2**32 - 1))
    if seed % 10 == 0:
        return [0 if kind == "int" else 0.0] * n
    rng = random.Random(seed)
    if kind == "int":
        return [rng.randint(-9, 9) for _ in range(n)]
    scale = rng.choice([1.0, 1024.0, 1 / 64])
    return [rng.randint(-64, 64) / 8 * scale for _ in range(n)]


def _row_major(shape: tuple) -> tuple:
    out, step = [], 1
    for d in reversed(shape):
        out.insert(0, step)
        step *= max(d, 1)
    return tuple(out)


@st.composite
def _strided(draw, shape: tuple, kind: str | None = None, storage: list | None = None):
    """``(storage, strides)`` of a view of ``shape`` starting at position 0: the strides
    of a fresh array, of a transpose (any order of the axes), of a stepped slice, with
    axes broadcast (stride 0), or any strides from 0 to 4. ``storage``: read that list
    (made longer if it must be), so that two operands share one."""
    style = draw(st.sampled_from(["contiguous", "permuted", "stepped", "broadcast", "any"]))
    if style == "contiguous":
        strides = _row_major(shape)
    elif style == "permuted":
        perm = draw(st.permutations(range(len(shape))))
        base = _row_major(tuple(shape[p] for p in perm))
        strides = tuple(base[perm.index(k)] for k in range(len(shape)))
    elif style == "stepped":
        steps = [draw(st.integers(1, 2)) for _ in shape]
        big = _row_major(tuple(d * s for d, s in zip(shape, steps)))
        strides = tuple(b * s for b, s in zip(big, steps))
    elif style == "broadcast":
        zero = [draw(st.booleans()) for _ in shape]
        base = _row_major(tuple(1 if z else d for d, z in zip(shape, zero)))
        strides = tuple(0 if z else s for s, z in zip(base, zero))
    else:
        strides = tuple(draw(st.integers(0, 4)) for _ in shape)
    need = 0 if 0 in shape else sum((d - 1) * s for d, s in zip(shape, strides)) + 1
    if storage is None:
        storage = _numbers(draw, need + draw(st.integers(0, 2)), kind)
    elif len(storage) < need:
        storage.extend(_numbers(draw, need - len(storage), kind))
    return storage, strides


@st.composite
def _products(draw, rank: int, mismatch: str = ""):
    """The six arguments of matmul_2d (rank 2) or batched_matmul (rank 3): ``mismatch``
    "inner" or "batch" makes those sizes differ. Storage of ints when k = 0: an empty
    dot product is the int 0 (0.0 over float storage would be as right)."""
    sizes = [draw(st.integers(0, 4 if rank == 2 else 3)) for _ in range(4)]
    batch, n, k, m = sizes if rank == 3 else [None, *sizes[1:]]
    k2 = k
    if mismatch == "inner":
        k2 = draw(st.integers(0, 4).filter(lambda v: v != k))
    batch2 = batch
    if mismatch == "batch":
        batch2 = draw(st.integers(0, 3).filter(lambda v: v != batch))
    a_shape = (n, k) if rank == 2 else (batch, n, k)
    b_shape = (k2, m) if rank == 2 else (batch2, k2, m)
    kind = "int" if k == 0 else None
    a, a_strides = draw(_strided(a_shape, kind))
    shared = a if draw(st.integers(0, 3)) == 0 else None  # b read from a's storage
    b, b_strides = draw(_strided(b_shape, kind, shared))
    return call(a, a_shape, a_strides, b, b_shape, b_strides)


def _both_shapes(a, a_shape, a_strides, b, b_shape, b_strides):
    return (a_shape, b_shape)


@st.composite
def _pairs_of_lists(draw, same_length: bool = True, low: int = 1):
    """Two lists of numbers (ints, or floats of very different scales, each list its
    own): of one length from ``low`` to 6, or of two lengths."""
    n = draw(st.integers(low, 6))
    n2 = n if same_length else draw(st.integers(0, 6).filter(lambda v: v != n))
    first = _numbers(draw, n)
    second = list(first) if n == n2 and draw(st.integers(0, 5)) == 0 else _numbers(draw, n2)
    return first, second

# ------------------------------------------------------------------ matmul_2d

@checkpoint.test("matmul_2d", hint="out[i, j] is the dot product of row i of a and column j of b: "
                                   "1*7 + 2*9 + 3*11 = 58.")
def contiguous_product(matmul_2d):
    expect(matmul_2d, A, (2, 3), (3, 1), B, (3, 2), (2, 1), returns=AB)


@checkpoint.test("matmul_2d", hint="Step down column j of b with b's row stride (b_strides[0]) "
                                   "and start it at j * b_strides[1]; here b is a transposed "
                                   "view with strides (1, 3).",
                 hint_for=("assumes b's column stride is 1 (un-transposed b)",
                           "steps down b's column with the column stride"))
def transposed_b(matmul_2d):
    expect(matmul_2d, A, (2, 3), (3, 1), [7, 9, 11, 8, 10, 12], (3, 2), (1, 3), returns=AB)


@checkpoint.test("matmul_2d", hint="Row i of a starts at i * a_strides[0] and steps by "
                                   "a_strides[1]; here a is a transposed view, strides (1, 2).")
def transposed_a(matmul_2d):
    expect(matmul_2d, [1, 4, 2, 5, 3, 6], (2, 3), (1, 2), B, (3, 2), (2, 1), returns=AB)


@checkpoint.test("matmul_2d", hint="A row (1, 3) times a column (3, 1) is one dot product: "
                                   "1*4 + 2*5 + 3*6 = 32, as a list of one element.")
def row_times_column(matmul_2d):
    expect(matmul_2d, [1, 2, 3], (1, 3), (3, 1), [4, 5, 6], (3, 1), (1, 1), returns=[32])


@checkpoint.test("matmul_2d", hint="A column (3, 1) times a row (1, 2) is the outer product "
                                   "(3, 2): out[i, j] = a[i] * b[j].")
def column_times_row(matmul_2d):
    expect(matmul_2d, [1, 2, 3], (3, 1), (1, 1), [10, 20], (1, 2), (2, 1),
           returns=[10, 20, 20, 40, 30, 60])


@checkpoint.test("matmul_2d", hint="Strides may be 0 (a broadcast view): a (2, 2) matrix of "
                                   "ones stored as [1]; [[1, 1]] @ [[1, 2], [3, 4]] = [4, 6].")
def broadcast_operand(matmul_2d):
    expect(matmul_2d, [1], (2, 2), (0, 0), [1, 2, 3, 4], (2, 2), (2, 1), returns=[4, 6, 4, 6])


@checkpoint.test("matmul_2d", hint="The inner sizes must match (3 != 2): raise ValueError "
                                   "naming both shapes.")
def inner_sizes_must_match(matmul_2d):
    expect(matmul_2d, A, (2, 3), (3, 1), A, (2, 3), (3, 1), raises=ValueError,
           naming=((2, 3),))


@checkpoint.test("matmul_2d", hint="With k = 0 every dot product is an empty sum: 0.")
def empty_inner_dimension(matmul_2d):
    expect(matmul_2d, [], (2, 0), (1, 1), [], (0, 3), (3, 1), returns=[0, 0, 0, 0, 0, 0])


checkpoint.contract("matmul_2d", valid=_products(2), invalid=[
    Invalid(_products(2, "inner"), ValueError, "products whose inner sizes differ",
            naming=_both_shapes)])


# ------------------------------------------------------------------ batched_matmul

@checkpoint.test("batched_matmul", hint="Matrix t of a starts at t * a_strides[0]: here "
                                        "[1, 2] @ [[5], [6]] = 17 and [3, 4] @ [[7], [8]] = 53.")
def two_dot_products(batched_matmul):
    expect(batched_matmul, [1, 2, 3, 4], (2, 1, 2), (2, 2, 1), [5, 6, 7, 8], (2, 2, 1), (2, 1, 1),
           returns=[17, 53])


@checkpoint.test("batched_matmul", hint="Output batch 0 comes first, then batch 1: "
                                        "[[1, 2], [3, 4]] @ 2I, then [[5, 6], [7, 8]] @ 10I.")
def batches_in_order(batched_matmul):
    expect(batched_matmul, [1, 2, 3, 4, 5, 6, 7, 8], (2, 2, 2), (4, 2, 1),
           [2, 0, 0, 2, 10, 0, 0, 10], (2, 2, 2), (4, 2, 1),
           returns=[2, 4, 6, 8, 50, 60, 70, 80])


@checkpoint.test("batched_matmul", hint="Use b's own batch stride: 0 here, so every batch "
                                        "multiplies by the same (identity) matrix.",
                 hint_for=("ignores b's batch stride (assumes contiguous b)",
                           "uses a's batch stride for b too",
                           "steps between matrices by their sizes, not the batch strides"))
def shared_b_with_batch_stride_zero(batched_matmul):
    expect(batched_matmul, [1, 2, 3, 4, 5, 6, 7, 8], (2, 2, 2), (4, 2, 1),
           [1, 0, 0, 1], (2, 2, 2), (0, 2, 1), returns=[1, 2, 3, 4, 5, 6, 7, 8])


@checkpoint.test("batched_matmul", hint="Step through a's matrices with a's own batch stride "
                                        "(5 here: one unused number between its matrices), "
                                        "and through b's with b's.")
def gap_between_the_matrices_of_a(batched_matmul):
    # a's matrices [[1, 2], [3, 4]] and [[5, 6], [7, 8]] with a 99 between them (batch
    # stride 5); b is contiguous: the identity, then the swap [[0, 1], [1, 0]]
    expect(batched_matmul, [1, 2, 3, 4, 99, 5, 6, 7, 8], (2, 2, 2), (5, 2, 1),
           [1, 0, 0, 1, 0, 1, 1, 0], (2, 2, 2), (4, 2, 1), returns=[1, 2, 3, 4, 6, 5, 8, 7])


@checkpoint.test("batched_matmul", hint="Here b is one transposed matrix shared by the batch: "
                                        "its batch stride is 0 (matrix t starts at "
                                        "t * b_strides[0] = 0), and inside it a column steps by "
                                        "b_strides[1] = 1.")
def transposed_matrices_in_b(batched_matmul):
    # b's two matrices are stored transposed: [[1, 3], [2, 4]] read with strides (1, 2)
    # is [[1, 2], [3, 4]]; I @ that, and [[0, 1], [1, 0]] @ that (rows swapped)
    expect(batched_matmul, [1, 0, 0, 1, 0, 1, 1, 0], (2, 2, 2), (4, 2, 1),
           [1, 3, 2, 4], (2, 2, 2), (0, 1, 2), returns=[1, 2, 3, 4, 3, 4, 1, 2])


@checkpoint.test("batched_matmul", hint="Batch sizes 2 and 3 differ: raise ValueError naming "
                                        "both shapes, even though the inner sizes agree.")
def batch_sizes_must_match(batched_matmul):
    expect(batched_matmul, [0] * 8, (2, 2, 2), (4, 2, 1), [0] * 12, (3, 2, 2), (4, 2, 1),
           raises=ValueError, naming=((2, 2, 2), (3, 2, 2)))


@checkpoint.test("batched_matmul", hint="Inner sizes 3 and 2 differ: raise ValueError "
                                        "naming both shapes.")
def inner_sizes_must_match_in_a_batch(batched_matmul):
    expect(batched_matmul, [0] * 6, (1, 2, 3), (6, 3, 1), [0] * 4, (1, 2, 2), (4, 2, 1),
           raises=ValueError, naming=((1, 2, 3), (1, 2, 2)))


@checkpoint.test("batched_matmul", hint="A batch of 0 matrices gives no numbers: [].")
def empty_batch(batched_matmul):
    expect(batched_matmul, [], (0, 2, 2), (4, 2, 1), [], (0, 2, 2), (4, 2, 1), returns=[])


checkpoint.contract("batched_matmul", valid=_products(3), invalid=[
    Invalid(_products(3, "inner"), ValueError, "batches whose inner sizes differ",
            naming=_both_shapes),
    Invalid(_products(3, "batch"), ValueError, "batches of two sizes",
            naming=_both_shapes)])


# ------------------------------------------------------------------ mse

@checkpoint.test("mse", hint="Perfect predictions: every error is 0, so the mean is 0.0.")
def perfect_predictions(mse):
    expect(mse, [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], returns=0.0)


@checkpoint.test("mse", hint="Square each error and take the MEAN: (1 + 0 + 4) / 3.")
def mean_of_squares(mse):
    expect(mse, [1.0, 2.0, 3.0], [2.0, 2.0, 5.0], returns=5 / 3)


@checkpoint.test("mse", hint="Divide by the number of values (4), not by 1 and not by n - 1.",
                 hint_for=("divides by n - 1", "sum without the mean"))
def divides_by_n(mse):
    expect(mse, [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], returns=1.0)


@checkpoint.test("mse", hint="Square the errors (2 ** 2 = 4); absolute values give 2.",
                 hint_for=("absolute errors instead of squares",))
def squares_not_absolute_values(mse):
    expect(mse, [0.0, 0.0], [2.0, -2.0], returns=4.0)


@checkpoint.test("mse", hint="One value: (3 - 1) ** 2 = 4.0.")
def single_value(mse):
    expect(mse, [3.0], [1.0], returns=4.0)


@checkpoint.test("mse", hint="Different lengths are a bug upstream: raise ValueError "
                             "(zip would silently drop the extra values).",
                 hint_for=("no length check (zip truncates, empty divides by zero)",))
def lengths_must_match(mse):
    expect(mse, [1.0, 2.0, 3.0], [1.0, 2.0], raises=ValueError)


@checkpoint.test("mse", hint="The mean of no values is undefined (0 / 0): raise ValueError "
                             "for empty lists; neither return 0.0 nor let ZeroDivisionError "
                             "out.")
def empty_is_an_error(mse):
    expect(mse, [], [], raises=ValueError)


checkpoint.contract("mse", valid=_pairs_of_lists().map(lambda p: call(*p)), invalid=[
    Invalid(_pairs_of_lists(same_length=False).map(lambda p: call(*p)), ValueError,
            "lists of two lengths"),
    Invalid(st.just(call([], [])), ValueError, "empty lists")])


# ------------------------------------------------------------------ line_grads

@checkpoint.test("line_grads", hint="When the line fits every point, every residual is 0, so "
                                    "both gradients are 0.")
def exact_fit_has_zero_gradient(line_grads):
    expect(line_grads, 2.0, 1.0, [0.0, 1.0, 2.0], [1.0, 3.0, 5.0], returns=(0.0, 0.0))


@checkpoint.test("line_grads", hint="Residual r = w*x + b - y = -2 (prediction minus target); "
                                    "dL/dw = 2 * r * x = -4, dL/db = 2 * r = -4.")
def one_point_below(line_grads):
    expect(line_grads, 0.0, 0.0, [1.0], [2.0], returns=(-4.0, -4.0))


@checkpoint.test("line_grads", hint="Residuals [1, 2]: dL/dw = (2/2)(1*1 + 2*2) = 5 and "
                                    "dL/db = (2/2)(1 + 2) = 3. Keep the 2 and the mean.")
def two_points(line_grads):
    expect(line_grads, 1.0, 0.0, [1.0, 2.0], [0.0, 0.0], returns=(5.0, 3.0))


@checkpoint.test("line_grads", hint="dL/db has no x in it: here x = -1 and 2, residuals [0, 3], "
                                    "so dL/dw = (2/2)(0 * -1 + 3 * 2) = 6 and "
                                    "dL/db = (2/2)(0 + 3) = 3.",
                 hint_for=("x in the bias gradient too",))
def bias_gradient_has_no_x(line_grads):
    expect(line_grads, 1.0, 1.0, [-1.0, 2.0], [0.0, 0.0], returns=(6.0, 3.0))


@checkpoint.test("line_grads", hint="Residuals [-1, 1.5, -3.25, -0.25]: dL/dw = (2/4)(-0.5 + "
                                    "2.25 + 6.5 - 0.25) = 4, dL/db = (2/4)(-3) = -1.5.")
def general_case(line_grads):
    # numbers exact in binary, so that any order of the arithmetic gives these floats
    expect(line_grads, 0.5, -0.25, [0.5, 1.5, -2.0, 1.0], [1.0, -1.0, 2.0, 0.5],
           returns=(4.0, -1.5))


@checkpoint.test("line_grads", hint="Different numbers of xs and ys: raise ValueError.")
def lengths_must_match_too(line_grads):
    expect(line_grads, 1.0, 0.0, [1.0, 2.0], [1.0], raises=ValueError)


@st.composite
def _lines(draw, same_length: bool = True, empty: bool = False):
    w, b = (draw(st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -1.25, 2.0, 100.0])))
            for _ in range(2))
    xs, ys = ([], []) if empty else draw(_pairs_of_lists(same_length))
    return call(w, b, xs, ys)


checkpoint.contract("line_grads", valid=_lines(), invalid=[
    Invalid(_lines(same_length=False), ValueError, "xs and ys of two lengths"),
    Invalid(_lines(empty=True), ValueError, "no points")])


# ------------------------------------------------------------------ stretch: linear_model

@checkpoint.test("linear_model", hint="The lesson's worked example: prediction 4 * 0.5 - 3 + 4 "
                                      "+ 0.5 = 3.5, residual 1, loss 1.", stretch=True)
def the_worked_example(linear_model):
    expect(linear_model, [4, 3, 2], (1, 3), [0.5, -1, 2], 0.5, [2.5],
           returns=(1.0, [8.0, 6.0, 4.0], 2.0))


@checkpoint.test("linear_model", hint="Two rows: dL/dw is (2/N) times X transposed times the "
                                      "residuals, N = 2.", stretch=True)
def two_rows(linear_model):
    expect(linear_model, [1, 2, 3, 4, 5, 6], (2, 3), [1, 0, -1], 1, [0, 0],
           returns=(1.0, [-5.0, -7.0, -9.0], -2.0))


@checkpoint.test("linear_model", hint="A tall X (3 rows, 2 inputs): the transpose is (2, 3), "
                                      "read from the same storage with the strides swapped.",
                 stretch=True,
                 hint_for=("reshapes X instead of transposing it",))
def a_tall_design_matrix(linear_model):
    expect(linear_model, [1, 0, 0, 1, 1, 1], (3, 2), [2, 3], 0, [1, 1, 1],
           returns=(7.0, [10 / 3, 4.0], 14 / 3))


@checkpoint.test("linear_model", hint="The residual is prediction minus target; with b = -1 "
                                      "every residual here is 0 and so is every gradient.",
                 stretch=True)
def a_perfect_fit(linear_model):
    expect(linear_model, [1, 2, 3, 4], (2, 2), [1, 1], -1, [2, 6],
           returns=(0.0, [0.0, 0.0], 0.0))


@checkpoint.test("linear_model", hint="Call your matmul_2d for both products and your mse for "
                                      "the loss; for X transposed, hand matmul_2d x itself, "
                                      "read as (D, N) with strides (1, D).", stretch=True,
                 hint_for=("copies the transpose",))
def uses_your_matmul_2d_and_mse(linear_model):
    x, w, y = [1, 2, 3, 4, 5, 6], [1, 0, -1], [0, 0]   # X is (2, 3): N = 2, D = 3
    calls = _calls_while(linear_model, ("matmul_2d", "mse"), x, (2, 3), w, 1, y)
    missing = [name for name in ("matmul_2d", "mse") if not calls[name]]
    if missing:
        raise CheckFailure("the functions linear_model calls", "matmul_2d and mse among them",
                           f"no call to {' or '.join(missing)}")
    full = [args for args in calls["matmul_2d"] if len(args) == 6]
    ways = [(_as_tuple(a[1]), _as_tuple(a[2])) for a in full if a[0] is x]
    if ((3, 2), (1, 3)) not in ways:
        copied = any(a[0] is not x and _as_tuple(a[1]) == (3, 2) for a in full)
        raise CheckFailure(
            "linear_model([1, 2, 3, 4, 5, 6], (2, 3), ...): the calls to matmul_2d",
            "one reading x itself as (3, 2) with strides (1, 3): X transposed, no copy",
            "x itself read only as " + (", ".join(f"{sh} with strides {st}" for sh, st in ways)
                                        or "nothing")
            + ("; X transposed came from another list, a copy" if copied else ""))


def _as_tuple(value):
    return tuple(value) if isinstance(value, (list, tuple)) else value


def _calls_while(fn, names, *args, record=False):
    """Call ``fn(*args)`` and return the positional arguments of every call it makes
    to the functions ``names`` of its own namespace (:func:`stridegrad.course._wire.
    calls_while`; in the notebook's process when the grader's judge runs this)."""
    return calls_while(fn, names, args, record=record)


@checkpoint.test("linear_model", hint="Read X transposed through its strides: change none of "
                                      "the arguments, copy nothing back into them.", stretch=True,
                 hint_for=("writes the residuals into y",))
def leaves_the_inputs_alone(linear_model):
    x, w, y = [4, 3, 2], [0.5, -1, 2], [2.5]
    linear_model(x, (1, 3), w, 0.5, y)
    changed = [f"{name} is now {now}" for name, now, then in
               (("x", x, [4, 3, 2]), ("w", w, [0.5, -1, 2]), ("y", y, [2.5])) if now != then]
    if changed:
        raise CheckFailure("linear_model([4, 3, 2], (1, 3), [0.5, -1, 2], 0.5, [2.5])",
                           "x, w and y as they were", "; ".join(changed))


def _linear_model_seen(linear_model, x, x_shape, w, b, y):
    """A scenario: what ``linear_model(x, x_shape, w, b, y)`` returns, and whether it
    did as the docstring says, watched through the calls it makes to the
    ``matmul_2d`` and ``mse`` of its own namespace: the result alone when it read
    ``x`` itself as ``(D, N)`` with strides ``(1, D)`` and called ``mse``, else the
    result and what it did not do."""
    calls = _calls_while(linear_model, ("matmul_2d", "mse"), x, x_shape, w, b, y,
                         record=True)
    result = calls["result"]
    n, d = x_shape
    transposed = any(len(a) == 6 and a[0] is x and _as_tuple(a[1]) == (d, n)
                     and _as_tuple(a[2]) == (1, d) for a in calls["matmul_2d"])
    missing = []
    if not transposed:
        missing.append(f"no call to matmul_2d read x itself as ({d}, {n}) with strides "
                       f"(1, {d}), X transposed")
    if not calls["mse"]:
        missing.append("no call to mse")
    return (result, *missing) if missing else result


@st.composite
def _linear_models(draw, bad: str = ""):
    """X of N rows and D inputs (1 to 4 each), often N != D; ``bad``: "w" or "y" of
    another length than X asks for. (D = 0 is allowed too, but as the smallest case it
    would be the row shown for every mistake, the least telling one.)"""
    n, d = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    x = _numbers(draw, n * d)
    nw = draw(st.integers(0, 5).filter(lambda v: v != d)) if bad == "w" else d
    ny = draw(st.integers(0, 5).filter(lambda v: v != n)) if bad == "y" else n
    b = draw(st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -1.25, 64.0])))
    return call(x, (n, d), _numbers(draw, nw), b, _numbers(draw, ny))


checkpoint.contract("linear_model", valid=_linear_models(), stretch=True,
                    scenario=_linear_model_seen, invalid=[
                        Invalid(_linear_models("w"), ValueError, "w of another length than "
                                "X has columns"),
                        Invalid(_linear_models("y"), ValueError, "y of another length than "
                                "X has rows")])
