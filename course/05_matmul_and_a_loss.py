# %% [markdown]
# # 05 · Matmul and a loss
#
# Two operations carry most of deep learning: the **matrix product**, which
# mixes numbers (every layer of a network is one), and a **loss**, one number
# that says how wrong the predictions are. With both in hand you can already
# fit a model, if you are willing to work out its gradients on paper. By the
# end of this lesson you will have done that once, and you will see why
# nobody does it twice.
#
# **By the end you can**
#
# - compute a matrix product as dot products of strided rows and columns, on
#   transposed and broadcast views with no copy (`matmul_2d`; views that start
#   at position 0 of their storage: a sliced view would also need its offset);
# - extend it to a batch of matrices, with a batch stride (`batched_matmul`);
# - compute the mean squared error (`mse`);
# - derive the gradients of a line fit by hand (`line_grads`) and use them to
#   fit a line by gradient descent;
# - say how much slower the pure-Python array is than NumPy, and why.

# %%
#| setup
from stridegrad.course import check, hint
from stridegrad.array.layout import Shape, Strides  # lesson 01
import operator
import random
import time
import matplotlib.pyplot as plt
import numpy as np
import stridegrad.array as sa

# %% [markdown]
# ## A matrix product is a table of dot products
#
# For `a` of shape `(n, k)` and `b` of shape `(k, m)`, the product has shape
# `(n, m)`, and its element `(i, j)` is the dot product of **row `i` of `a`**
# with **column `j` of `b`**: `sum(a[i, p] * b[p, j] for p in range(k))`. The
# inner sizes `k` must agree; they are used up by the sum.

# %%
def draw_matrix(ax, values, x0, title, rows=(), cols=(), cells=()):
    """Boxes with values; highlight whole rows, whole columns or single cells."""
    for r, row in enumerate(values):
        for c, v in enumerate(row):
            lit = r in rows or c in cols or (r, c) in cells
            ax.add_patch(plt.Rectangle((x0 + c, -r), 0.92, 0.92, color="#f4a259" if lit else "#dde6f0"))
            ax.text(x0 + c + 0.46, -r + 0.46, str(v), ha="center", va="center", fontsize=10)
    ax.text(x0 + len(values[0]) / 2, 1.3, title, ha="center", fontsize=10)


fig, ax = plt.subplots(figsize=(9, 3))
draw_matrix(ax, [[1, 2, 3], [4, 5, 6]], 0, "a (2, 3): row 1", rows=(1,))
draw_matrix(ax, [[7, 8], [9, 10], [11, 12]], 4.5, "b (3, 2): column 0", cols=(0,))
draw_matrix(ax, [[58, 64], [139, 154]], 8, "a @ b (2, 2)", cells=((1, 0),))
ax.text(3.7, 0.0, "@", fontsize=16, ha="center")
ax.text(7.3, 0.0, "=", fontsize=16, ha="center")
ax.text(5, -3.0, "4*7 + 5*9 + 6*11 = 139", ha="center", fontsize=11)
ax.set_xlim(-0.3, 10.3)
ax.set_ylim(-3.4, 1.8)
ax.set_aspect("equal")
ax.axis("off")
plt.show()

# %% [markdown]
# ## Rows and columns are strided runs
#
# In flat storage, element `(i, p)` of `a` sits at
# `i * a_strides[0] + p * a_strides[1]` (lesson 02). Hold `i` fixed and let
# `p` run: that is row `i`, a run of positions with a start and a fixed step.
# Where does it start, and what is the step? Do the same for column `j` of
# `b`, where the row index is the one that runs. With strides, a row and a
# column are the same kind of thing: a start and a step.
#
# That is why a transposed operand costs nothing: `b.T` is `b`'s storage with
# the strides swapped, and the same loop reads it. A broadcast operand
# (stride 0, lesson 04) works too.

# %%
b = sa.reshape(sa.arange(7, 13), (3, 2))
bt = b.T
print("b  strides", b.strides, " storage", b.storage)
print("b.T strides", bt.strides, "  same storage:", bt.storage is b.storage)

# %% [markdown]
# ## Exercise 1 · `matmul_2d`: the product of two strided matrices
#
# Entry `(i, j)` of the product is row `i` of `a` times column `j` of `b`:
# `sum_p a[i, p] * b[p, j]`. Compute every entry straight from flat storage,
# and return the flat, row-major storage of the `(n, m)` product. Use the
# strides you are given, never assume they are contiguous: the checkpoint
# hands you transposed and broadcast views. If the inner sizes differ, raise a
# `ValueError` naming both shapes.
#
# This is the library's own function: the strided array's `sa.matmul` (and
# `@`) calls `stridegrad.array.layout.matmul_2d` for every product of two
# matrices, and `batched_matmul` (the next exercise) for every product with
# batch axes. Once yours passes, `stridegrad yours` puts it there: the
# library you run multiplies with your function.

# %%
#| exercise: stridegrad.array.layout.matmul_2d
#| hint: element (i, j) is a dot product: of which row and column, and where do they start in storage?

# %%
#| calls-exercise
b = sa.reshape(sa.arange(7, 13), (3, 2))  # made again here: later cells reuse the name b
bt = b.T
# expect [58, 64, 139, 154]: the (2, 2) product drawn above, flat
print(matmul_2d([1, 2, 3, 4, 5, 6], (2, 3), (3, 1), b.storage, b.shape, b.strides))
# expect [251, 278, 278, 308]: b.T @ b is symmetric, and its first element is
# column 0 of b with itself, 7*7 + 9*9 + 11*11 = 251
print(matmul_2d(b.storage, bt.shape, bt.strides, b.storage, b.shape, b.strides), "<- b.T @ b, no copy")

# %%
#| check: matmul_2d

# %% [markdown]
# ## Batched: one more loop, one more stride
#
# Networks multiply many matrices at once: a batch of inputs, or the heads of
# an attention layer. A batch of `B` matrices of shape `(n, k)` is a rank-3
# array of shape `(B, n, k)`, and matrix `t` starts at `t * strides[0]`. The
# batched product multiplies matrix `t` of `a` by matrix `t` of `b`:
# `(B, n, k) @ (B, k, m) -> (B, n, m)`.
#
# A batch stride of **0** is broadcasting again: every batch reads the same
# matrix. That is how one weight matrix is applied to a whole batch of inputs
# without being copied `B` times.

# %% [markdown]
# ## Exercise 2 · `batched_matmul`
#
# Same dot products as `matmul_2d`, once for every matrix of the batch. Where
# does matrix `t` of each operand start, and which strides does it use inside?
# Each operand has its own batch stride, and 0 is allowed. Raise a
# `ValueError` naming both shapes if the batch sizes or the inner sizes differ.
#
# Your `matmul_2d` cannot be handed matrix `t` where it lies: it reads each
# operand from position 0 of its storage, and slicing matrix `t` out first
# would copy it. So the loop over `t` goes around the *same dot products*,
# written again, with every position counted from where matrix `t` starts.

# %%
#| exercise: stridegrad.array.layout.batched_matmul
#| hint: the dot products of matmul_2d, once per matrix t (written again: matmul_2d reads from position 0): where does matrix t of each operand start?
# %%
#| calls-exercise
# two 1 x 2 inputs, one shared (2, 1) weight read with batch stride 0
# expect [12, 34]: 1*10 + 2*1 and 3*10 + 4*1
batched_matmul([1, 2, 3, 4], (2, 1, 2), (2, 2, 1), [10, 1], (2, 2, 1), (0, 1, 1))

# %%
#| check: batched_matmul

# %% [markdown]
# ## A loss: the mean squared error
#
# To learn, a model needs one number that says how wrong it is. For numbers
# predicted against numbers observed, the usual choice is the **mean squared
# error**: the average of `(prediction - target) ** 2`. Squaring makes every
# error count as positive and large errors count much more than small ones;
# taking the mean (not the sum) keeps the loss the same size whatever the
# number of examples, so a learning rate that works for 10 points still works
# for 10,000.

# %% [markdown]
# ## Exercise 3 · `mse`

# %%
#| exercise: mse
#| hint: mean of what? square each difference first; mind the lists it cannot take
def mse(pred: list, target: list) -> float:
    """Mean squared error of two equally long lists of numbers.

    Shape contract: ``(N,), (N,) -> ()``, ``N >= 1``:
    ``sum((p - t) ** 2) / N``, a Python float (not a NumPy one).

    Raises:
        ValueError: if the lengths differ or the lists are empty.
    """
    ### BEGIN SOLUTION
    if len(pred) != len(target):
        raise ValueError(f"mse: {len(pred)} predictions but {len(target)} targets")
    if not pred:
        raise ValueError("mse: the mean of no values is undefined")
    return sum((p - t) ** 2 for p, t in zip(pred, target)) / len(pred)
    ### END SOLUTION

# %%
#| calls-exercise
mse([1.0, 2.0, 3.0], [1.5, 2.0, 2.0])  # expect (0.25 + 0 + 1) / 3 = 0.41666...

# %%
#| check: mse

# %% [markdown]
# ## Fit a line, with gradients by hand
#
# Here are 21 noisy points around the line `y = 3x - 1`. We model them with
# `pred = w * x + b` and look for the `w` and `b` that make
# `L = mse(pred, ys)` small. Gradient descent does it: compute how `L` changes
# when `w` or `b` moves a little (the gradients `dL/dw` and `dL/db`), and step
# both a little **against** their gradient, many times.

# %%
rng = random.Random(0)
xs = [k / 10 for k in range(-10, 11)]
ys = [3 * x - 1 + rng.gauss(0, 0.3) for x in xs]
print(len(xs), "points; first three:", [(x, round(y, 3)) for x, y in zip(xs[:3], ys[:3])])

# %% [markdown]
# ### The derivation
#
# A refresher, in case derivatives are rusty. The derivative of `u ** 2` with
# respect to `u` is `2 * u`. When `u` itself depends on `w`, the **chain rule**
# multiplies by how fast `u` moves when `w` does: `d(u ** 2)/dw = 2 * u * du/dw`.
# And a sum's derivative is the sum of the derivatives.
#
# Write `r_i = w * x_i + b - y_i` for the residual of point `i`. Then
#
# `L = (1/N) * sum_i r_i ** 2`.
#
# Moving `w` by a little moves `r_i` by `x_i` times as much (`b` and `y_i` do
# not move), so `dr_i/dw = x_i`; moving `b` moves `r_i` by the same amount, so
# `dr_i/db = 1`. By the chain rule, `d(r_i ** 2)/dw = 2 * r_i * dr_i/dw` and
# `d(r_i ** 2)/db = 2 * r_i * dr_i/db`.
#
# The last step is yours: put `dr_i/dw` and `dr_i/db` in, then take the mean
# over the points (the `1/N` and the sum stay in front). The cell after the
# exercise checks one point by hand.
#
# Mind the sign: `r_i` is **prediction minus target**. With target minus
# prediction you get the negative gradient, and gradient descent climbs.

# %% [markdown]
# ## Exercise 4 · `line_grads`

# %%
#| exercise: line_grads
#| hint: write L as a mean of squared residuals and differentiate one term (chain rule)
def line_grads(w: float, b: float, xs: list, ys: list) -> tuple:
    """Gradients of ``L = mse([w * x + b for x in xs], ys)`` with respect to w and b.

    Shape contract: ``(), (), (N,), (N,) -> ((), ())``, ``N >= 1``:
    returns the tuple ``(dL/dw, dL/db)`` of two Python floats.

    Raises:
        ValueError: if ``xs`` and ``ys`` have different lengths or are empty
            (as ``mse``: the mean of no values is undefined).
    """
    ### BEGIN SOLUTION
    if len(xs) != len(ys):
        raise ValueError(f"line_grads: {len(xs)} xs but {len(ys)} ys")
    if not xs:
        raise ValueError("line_grads: no points (the mean of no values is undefined)")
    n = len(xs)
    residuals = [w * x + b - y for x, y in zip(xs, ys)]
    dw = 2 * sum(r * x for r, x in zip(residuals, xs)) / n
    db = 2 * sum(residuals) / n
    return dw, db
    ### END SOLUTION

# %%
#| calls-exercise
line_grads(0.0, 0.0, [1.0], [2.0])  # one point at x = 1, residual r = 0 - 2 = -2: expect (-4.0, -4.0)

# %%
#| check: line_grads

# %% [markdown]
# ### Gradient descent
#
# Start from `w = b = 0` and take 300 steps with learning rate 0.1. The plot
# after it shows the line reached next to the truth, and the loss at every
# step. Until `mse` and `line_grads` are done, the descent stops before its
# first step: the plot then shows the starting line `w = b = 0`, flat at 0,
# and says so.

# %%
#| calls-exercise
w, b, lr = 0.0, 0.0, 0.1
losses = []  # the loss before each step, and after the last one
losses.append(mse([w * x + b for x in xs], ys))
print(f"step   0   w = {w:.4f}   b = {b:.4f}   loss = {losses[-1]:.5f}")
for step in range(1, 301):
    dw, db = line_grads(w, b, xs, ys)
    w, b = w - lr * dw, b - lr * db
    losses.append(mse([w * x + b for x in xs], ys))
    if step % 75 == 0:
        print(f"step {step:3d}   w = {w:.4f}   b = {b:.4f}   loss = {losses[-1]:.5f}")
best_w, best_b = np.polyfit(xs, ys, 1)
print(f"least squares (np.polyfit): w = {best_w:.4f}   b = {best_b:.4f}")

# %%
steps_done = max(len(losses) - 1, 0)
if steps_done < 300:
    print(f"the descent stopped after {steps_done} of 300 steps (an exercise is not done yet): "
          f"the orange line is where it stopped, w = {w:.2f}, b = {b:.2f}")
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
left.scatter(xs, ys, s=15, label="data")
left.plot(xs, [w * x + b for x in xs], color="C1",
          label=f"after {steps_done} steps: {w:.2f} x {'-' if b < 0 else '+'} {abs(b):.2f}")
left.plot(xs, [3 * x - 1 for x in xs], "k--", lw=0.8, label="truth: 3 x - 1")
left.legend()
if steps_done:
    right.plot(losses)
    right.set_yscale("log")
else:  # no step taken, no curve: say so rather than draw an empty panel
    right.text(0.5, 0.5, "no loss curve yet:\nwrite mse and line_grads,\nthen run these two cells again",
               ha="center", va="center", transform=right.transAxes)
    right.set_xticks([])
    right.set_yticks([])
right.set_xlabel("step")
right.set_ylabel("mse (log scale)")
fig.tight_layout()
plt.show()

# %% [markdown]
# Gradient descent lands on the same line as `np.polyfit`, which solves the
# least-squares problem directly. The loss levels off near 0.1, not 0: that
# is the noise we added (standard deviation 0.3, so a variance of 0.09),
# which no straight line can explain.

# %% [markdown]
# ## Why autograd
#
# That worked, and it took a derivation for a model with **two** numbers. A
# small network has thousands, arranged in layers of matmuls and
# nonlinearities; each new layer, loss or trick means a new derivation, and
# a single slip does not crash anything, it just stops the model learning.
# Here is the sign error from the derivation, made on purpose:

# %%
#| calls-exercise
w_bad, b_bad = 0.0, 0.0
for step in range(5):
    dw, db = line_grads(w_bad, b_bad, xs, ys)
    w_bad, b_bad = w_bad + lr * dw, b_bad + lr * db  # the sign slip: steps *up* the gradient
    print(f"step {step}   loss = {mse([w_bad * x + b_bad for x in xs], ys):.3f}")

# %% [markdown]
# Nothing warned us; the loss simply grows. Every derivative above was
# mechanical: the chain rule applied to `*`, `+`, `-` and `** 2`, one
# operation at a time. A computer can do that bookkeeping. **Automatic
# differentiation** records the operations as they run and applies the chain
# rule backwards through them: lesson 06 builds it, for scalars first.

# %% [markdown]
# ## How slow is pure Python?
#
# Our `stridegrad.array` does its arithmetic one Python number at a time.
# NumPy hands the whole product to a compiled BLAS library (Basic Linear
# Algebra Subprograms: matrix routines written for each processor). The table
# times square matrices of size `n` on your machine (best of a few runs), and
# for your `matmul_2d` also how many times longer it took than in the row above
# (`x previous`) and its time divided by the `n ** 3` multiply-adds it does
# (`ns/mul-add`, in nanoseconds).

# %% tags=["nbval-ignore-output"]
#| calls-exercise
def best_time(f, repeat=3):
    """The fastest of `repeat` runs of f(), in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


print(f"{'n':>4} {'your matmul_2d':>15} {'x previous':>10} {'ns/mul-add':>10} "
      f"{'stridegrad.array':>17} {'NumPy':>10} {'array / NumPy':>14}")
previous = None
for n in (16, 32, 64):
    rows = [[(3 * i + j) % 7 / 7 for j in range(n)] for i in range(n)]
    flat = [v for row in rows for v in row]
    x_sa, x_np = sa.asarray(rows), np.asarray(rows)
    t_yours = best_time(lambda: matmul_2d(flat, (n, n), (n, 1), flat, (n, n), (n, 1)))
    t_sa = best_time(lambda: sa.matmul(x_sa, x_sa))
    t_np = best_time(lambda: x_np @ x_np)
    growth = f"{t_yours / previous:>9.1f}x" if previous else f"{'':>10}"  # vs the row above
    previous = t_yours
    print(f"{n:>4} {t_yours * 1e3:>12.2f} ms {growth} {t_yours / n ** 3 * 1e9:>10.0f} "
          f"{t_sa * 1e3:>14.2f} ms {t_np * 1e6:>7.1f} µs {t_sa / t_np:>13.0f}x")

# %% [markdown]
# The pure-Python versions do `n ** 3` multiply-adds: double `n` and there are
# eight times as many (`2 ** 3`). Read `x previous` in your table: the time
# grows roughly that much. It can grow more once the lists no longer fit in the
# CPU's fastest memory (its caches), and on a machine that other programs keep
# busy it lands well above or below 8 from one run to the next: run the cell
# twice before you trust a number. `ns/mul-add` is what one multiply-add costs you in pure
# Python. Each number is a Python object of its own (lesson 00: 24 bytes for a
# float, somewhere in memory), so for every multiply-add the interpreter
# follows pointers to two objects, reads the two numbers out of them
# ("unboxing"), and wraps the result in a new object ("boxing").
# `stridegrad.array` runs the library's own `matmul_2d` (the function of this
# exercise, in `stridegrad.array.layout`), faster than your triple loop (compare
# the two columns) because it reads each row and column as one slice of the
# storage (`a[i * s0 : i * s0 + k * s1 : s1]`, a copy made by one call) and
# hands every dot product to one built-in call whose loop runs in C
# (`sum(map(operator.mul, row, col))`): the same sum, in the same order.
#
# NumPy's time grows far more slowly at these sizes, because much of it is
# the fixed cost of one call. BLAS keeps the numbers as plain 8-byte floats
# side by side in memory (no objects), multiplies several at once with SIMD
# instructions (Single Instruction, Multiple Data: one instruction for a short
# row of numbers) and reuses what is in the caches. The last column is the
# gap on your machine: as a rule it widens as `n` grows, because the fixed
# cost counts for less and less.
#
# That is why lesson 10 runs the same `Tensor` code on NumPy (and on a GPU
# with CuPy), keeping the pure-Python array for what it is good at: showing
# what happens.

# %% [markdown]
# ## Stretch (optional) · `linear_model`: the two halves joined
#
# The line fit above never used `matmul_2d`. Join them: a linear model with
# `D` inputs predicts `X w + b` for the `N` rows of `X`, and the gradient of its
# mean squared error is `dL/dw = (2/N) Xᵀ (X w + b - y)`, `dL/db = (2/N)
# sum(X w + b - y)`. Compute the loss with your `mse` and both matrix products
# with your `matmul_2d`, reading `Xᵀ` from `X`'s own storage through swapped
# strides (a transposed view, no copy). A worked example: `w = [0.5, -1, 2]`,
# `x = [4, 3, 2]`, `b = 0.5`, target `2.5` gives prediction 3.5, loss 1,
# `dL/db = 2`, `dL/dw = [8, 6, 4]`. Only the contract below to go on;
# `hint("05", "linear_model")` when you want it. Its points are counted apart.

# %%
#| exercise: linear_model
#| hint: which of your functions multiplies a strided matrix, and how is a transpose read without a copy?
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
    ### BEGIN SOLUTION
    n, d = x_shape
    pred = [p + b for p in matmul_2d(x, (n, d), (d, 1), w, (len(w), 1), (1, 1))]
    loss = mse(pred, y)
    residuals = [p - t for p, t in zip(pred, y)]
    xt_r = matmul_2d(x, (d, n), (1, d), residuals, (n, 1), (1, 1))  # X transposed: strides swapped
    return loss, [2 * g / n for g in xt_r], 2 * sum(residuals) / n
    ### END SOLUTION

# %%
#| check: linear_model

# %% [markdown]
# ## Checkpoint

# %%
#| check: all

# %% [markdown]
# ## Where this is in NumPy and PyTorch
#
# | here | NumPy | PyTorch |
# |---|---|---|
# | `matmul_2d` | `a @ b`, `np.matmul(a, b)` | `a @ b`, `torch.mm(a, b)` |
# | `batched_matmul` | `a @ b` on `(B, n, k)` arrays (batch dims broadcast) | `torch.bmm(a, b)`, `torch.matmul` (broadcasts) |
# | a batch stride of 0 | `np.broadcast_to(w, (B, k, m))` | `w.expand(B, k, m)` |
# | `mse` | `np.mean((p - t) ** 2)` | `torch.nn.functional.mse_loss(p, t)` (`reduction="mean"`) |
# | `line_grads` | (none: NumPy has no gradients) | `loss.backward()`, then `w.grad`, `b.grad` |
#
# NumPy's `@` raises `ValueError: matmul: Input operand 1 has a mismatch in
# its core dimension 0 ...` for inner sizes that differ; PyTorch says
# `mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)`.

# %%
try:
    np.ones((2, 3)) @ np.ones((2, 3))
except ValueError as err:
    print("ValueError:", err)
print("(4, 2, 3) @ (3, 5) ->", (np.ones((4, 2, 3)) @ np.ones((3, 5))).shape, "(the (3, 5) is broadcast over the batch)")

# %% [markdown]
# ## Going further
#
# 1. **Another loss.** The mean absolute error `L = (1/N) * sum_i |r_i|`
#    punishes large errors less than the mse. Derive `dL/dw` and `dL/db` for the
#    line (what is the derivative of `|u|`, and what happens at `u = 0`?), fit
#    the same 21 points with it, and compare the line and the loss curve. Add
#    one point far off the line: which fit moves more?
# 2. **Loop order.** In `matmul_2d` the innermost loop walks a column of `b`.
#    Rewrite it with the loops in the order `i, p, j` (the innermost loop
#    walks a row of `b` and a row of the output). Is it faster for contiguous
#    `b`? And if you first copy `b.T` into fresh storage, so that every column
#    of `b` becomes a contiguous run?
# 3. **Where NumPy stops winning.** Time `x_np @ x_np` for `n` = 1, 2, 4, ...
#    and your `matmul_2d` for the same sizes. At what size does NumPy's fixed
#    cost stop mattering, and is there a size where pure Python is faster?
