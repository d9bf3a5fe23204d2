# %% [markdown]
# # 04 · Broadcasting
#
# You want to add a bias to every row of a matrix, or subtract each column's
# mean from that column. The two operands have different shapes, and writing a
# loop (or copying the small one until it is as big as the other) every time
# would be tedious and wasteful. **Broadcasting** is the rule that lets
# `x + y` work when the shapes differ in a regular way, and it costs no copy
# at all: the small operand is *read* as if it were big.
#
# **By the end you can**
#
# - state the three broadcasting rules and apply them by hand;
# - compute the shape two arrays broadcast to (`broadcast_shapes`), or say why
#   they do not;
# - explain broadcasting as a **stride-0 view** and compute those strides
#   (`broadcast_strides`);
# - write an elementwise operation on two broadcast operands over flat storage
#   (`broadcast_binary`);
# - spot the common broadcasting mistakes before they cost you an afternoon.

# %%
#| setup
from stridegrad.course import check, hint
from stridegrad.array.layout import Shape, Strides, contiguous_strides  # lesson 01
from stridegrad.array.layout import index_to_offset, iter_offsets, numel, offset_to_index  # lessons 01, 03
import operator
import matplotlib.pyplot as plt
import numpy as np
import stridegrad.array as sa

# %% [markdown]
# ## A column plus a matrix
#
# Here is a column `x` of shape `(3, 1)` and a matrix `y` of shape `(3, 4)`.
# Adding them adds `x`'s single number in each row to *every* number of that
# row of `y`: the column is stretched sideways to four columns.

# %%
x = sa.asarray([[0], [10], [20]])
y = sa.reshape(sa.arange(12), (3, 4))
print("x.shape", x.shape, " y.shape", y.shape)
(x + y).tolist()

# %% [markdown]
# In the picture, each box of the stretched `x` shows the storage position it
# reads. The four columns read the **same** three numbers: the pale copies
# are not in memory, they are only how `x` is read.

# %%
def draw_grid(ax, labels, shade, title):
    """A grid of boxes: labels[r][c] written in each, shade[r][c] in [0, 1] sets the colour."""
    for r, row in enumerate(labels):
        for c, label in enumerate(row):
            ax.add_patch(plt.Rectangle((c, -r), 0.92, 0.92, color=plt.cm.Blues(0.2 + 0.5 * shade[r][c])))
            ax.text(c + 0.46, -r + 0.46, str(label), ha="center", va="center", fontsize=10,
                    color="white" if shade[r][c] > 0.5 else "black")
    ax.set_title(title, fontsize=10)
    ax.set_xlim(-0.1, len(labels[0]) + 0.1)
    ax.set_ylim(-2.2, 1.1)
    ax.set_aspect("equal")
    ax.axis("off")


fig, axes = plt.subplots(1, 3, figsize=(10, 2.8), gridspec_kw={"width_ratios": [1.6, 4, 4]})
draw_grid(axes[0], [[0], [1], [2]], [[1], [1], [1]], "x: shape (3, 1)\nstorage positions")
draw_grid(axes[1], [[r] * 4 for r in range(3)], [[1, 0, 0, 0]] * 3,
          "x read as (3, 4): strides (1, 0)\npale = the same cell again")
draw_grid(axes[2], [[x_ + y_ for y_ in range(4 * r, 4 * r + 4)] for r, x_ in enumerate((0, 10, 20))],
          [[1] * 4] * 3, "x + y: shape (3, 4)\nvalues")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## The rules
#
# NumPy, PyTorch and every array library since follow the same three rules.
# To combine two shapes:
#
# 1. **Align them from the right**, like numbers you are about to add by hand.
# 2. A **missing** dimension (the shorter shape has run out) counts as size 1.
# 3. In each column the sizes must be **equal, or one of them is 1**; a size 1
#    **stretches** to the other size, and the result takes that other size
#    (even 0: a size 1 against a size 0 gives 0, an empty result).
#
# Anything else is an error. Some examples, aligned from the right:
#
# | a | b | result | why |
# |---|---|---|---|
# | `(3, 1)` | `(3, 4)` | `(3, 4)` | 1 stretches to 4 |
# | `(4,)` | `(3, 4)` | `(3, 4)` | missing dim counts as 1, stretches to 3 |
# | `()` | `(2, 3)` | `(2, 3)` | a scalar stretches everywhere |
# | `(4, 1, 3)` | `(5, 1)` | `(4, 5, 3)` | each shape stretches the other |
# | `(3,)` | `(3, 4)` | error | 3 lines up with 4, not with 3 |
# | `(2, 3)` | `(4, 3)` | error | 2 is not 1: it does not stretch |
# | `(2, 1)` | `(1, 0)` | `(2, 0)` | 1 stretches to 0 too: nothing to compute |
#
# The fifth row surprises people who align from the left. Aligning from the
# right is what makes a vector of length 4 combine with each **row** of a
# `(3, 4)` matrix, which is by far the most common case (a bias per feature).

# %% [markdown]
# ## Exercise 1 · `broadcast_shapes`: the shape of the result
#
# Write the three rules as a function of any number of shapes (none at all
# gives `()`). When sizes clash, raise a `ValueError` whose message names both
# shapes, so the person reading it knows what to fix. Run the table's rows
# through your function: simply taking the larger size of each column gets
# the two error rows and the last row wrong.

# %%
#| exercise: stridegrad.array.layout.broadcast_shapes
#| hint: write the shapes under each other, aligned on the right: what must hold in each column?

# %%
#| calls-exercise
# expect ((3, 4), (3, 4), (4, 5, 3)): the first, second and fourth rows of the table
broadcast_shapes((3, 1), (3, 4)), broadcast_shapes((4,), (3, 4)), broadcast_shapes((4, 1, 3), (5, 1))

# %%
#| check: broadcast_shapes

# %% [markdown]
# ## Broadcasting is a view with stride 0
#
# How can `x` be read as `(3, 4)` without copying? Recall from lesson 02
# that a view is a new shape and new strides over the same storage, and that
# a stride says how far to move in storage for one step along a dimension.
# Give the stretched dimension **stride 0**: stepping along it does not move
# at all, so every column reads the same element. The storage stays the three
# numbers it was.

# %%
xb = sa.broadcast_to(x, (3, 4))
print("shape  ", xb.shape)
print("strides", xb.strides)
print("storage", xb.storage, "<- still 3 numbers")
xb.tolist()

# %% [markdown]
# A dimension the operand does not have at all (rule 2) is added on the left,
# also with stride 0. Dimensions that already have the right size keep the
# stride they had, whatever it was: a transposed or sliced operand broadcasts
# just as well.

# %% [markdown]
# ## Exercise 2 · `broadcast_strides`: the view's strides
#
# Given an operand's `shape` and `strides` and the `target_shape` to read it
# as, return the strides of that view: 0 for every new leading dimension and
# every size-1 dimension (even where the target's size is 1 too, as in NumPy),
# the old stride for the others. If a size is neither
# 1 nor the target's size, or the target has fewer dimensions, raise a
# `ValueError`: broadcasting only ever stretches and adds, it never shrinks.

# %%
#| exercise: stridegrad.array.layout.broadcast_strides
#| hint: a stride of 0 reads one element again and again: which axes need that?

# %%
#| calls-exercise
# expect ((1, 0), (0, 0, 1)): the column read as (3, 4), then a vector read as (2, 3, 4)
broadcast_strides((3, 1), (1, 1), (3, 4)), broadcast_strides((4,), (1,), (2, 3, 4))

# %%
#| check: broadcast_strides

# %% [markdown]
# ## Exercise 3 · `broadcast_binary`: an operation on two broadcast operands
#
# Now the payoff. With both operands read through broadcast strides, an
# elementwise operation on different shapes needs no special case at all.
# `broadcast_binary` gets the two storages, each with strides that already have
# one entry per dimension of the result's `shape` (0 where that operand
# repeats), and returns the result's flat row-major storage.
#
# An example: `x = [0, 10, 20]` read with strides `(1, 0)` and
# `y = [1, 2, 3, 4]` read with strides `(0, 1)`, as shape `(3, 4)`, add up to
# `[1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24]`. Element `(1, 2)` is `x` at
# position `1 * 1 + 2 * 0 = 1` (10) plus `y` at `1 * 0 + 2 * 1 = 2` (3): 13.
#
# Questions to settle before you write it:
#
# - Element `k` of the result has an index in `shape`. Which one, and which
#   lesson-01 function finds it? Which one turns that index and a set of
#   strides into a storage position?
# - The storages are not in the result's order (one of them may be 3 numbers
#   read 12 times). Can you ever walk a storage front to back?
# - How many elements does shape `()` have? And a shape with a 0 in it?
#
# The setup cell imported the library's versions of the lesson-01 helpers
# (`numel`, `offset_to_index`, `index_to_offset`), so this exercise works
# whatever state your lesson-01 notebook is in. The function takes the strides
# ready made, so it can be checked on its own; the cell after it puts all three
# exercises together.
#
# It is the library's own: the strided array's `+`, `*`, `-`, ... call
# `stridegrad.array.layout.broadcast_binary` whenever one operand is stretched
# along an inner axis (`(3, 1) + (1, 4)`, or a row's maximum subtracted from
# each row); a stretch over new leading axes only repeats the small operand's
# block. The library's version (the solution) walks each operand's positions
# with lesson 03's `iter_offsets` in place of an index per element: the same
# values, faster in Python.

# %%
#| exercise: stridegrad.array.layout.broadcast_binary
#| hint: each element of the result has an index; read each operand at that index through its strides

# %%
#| calls-exercise
def add(x, x_shape, y, y_shape):
    """x + y for two contiguous flat arrays: your three exercises together."""
    shape = broadcast_shapes(x_shape, y_shape)
    xs = broadcast_strides(x_shape, contiguous_strides(x_shape), shape)
    ys = broadcast_strides(y_shape, contiguous_strides(y_shape), shape)
    return broadcast_binary(operator.add, x, xs, y, ys, shape), shape


# expect ([0, 1, 2, 3, 14, 15, 16, 17, 28, 29, 30, 31], (3, 4)): row i of y plus 10 * i
add([0, 10, 20], (3, 1), list(range(12)), (3, 4))

# %%
#| check: broadcast_binary

# %% [markdown]
# ## Play with it
#
# Type two shapes (`3, 1` or `(3, 1)`; an empty box is a scalar). The
# explorer aligns them from the right, colours the dimensions that stretch,
# shows the strides that read each operand as the result, and gives the
# result shape, or the exact error the library's `broadcast_shapes` raises
# (the one yours should raise too). Try `(3,)`
# with `(3, 4)`, then `(3, 1)` with `(3, 4)`; `(8, 1, 6, 1)` with
# `(7, 1, 5)`; `(2, 3)` with `(3, 2)`.

# %%
from stridegrad.viz import broadcast_explorer

explorer = broadcast_explorer((3, 1), (3, 4))
explorer

# %% [markdown]
# Without a running kernel (on a static page) the widget cannot show, and you
# see the one line above instead. Here is what a second explorer shows for
# `(3,)` and `(3, 4)`, read from its state (the one above keeps its shapes):

# %%
probe = broadcast_explorer("3", (3, 4))
print("result:", probe.result)
print("error: ", probe.error)

# %% [markdown]
# ## Common mistakes
#
# **The silent outer product.** A vector of shape `(3,)` and a column of
# shape `(3, 1)` broadcast to `(3, 3)`, not `(3,)`. This is the classic bug
# in a hand-written loss: predictions come out of a model as `(N, 1)`, the
# targets are `(N,)`, and `pred - target` is an `(N, N)` matrix whose mean is
# a number, just the wrong one. No error is raised.

# %%
pred = np.array([[1.0], [2.0], [3.0]])  # (3, 1), as a model with one output gives it
target = np.array([1.0, 2.0, 3.0])  # (3,)
print("pred - target has shape", (pred - target).shape)
print("mean squared error, wrong:", np.mean((pred - target) ** 2))
print("mean squared error, right:", np.mean((pred[:, 0] - target) ** 2))

# %% [markdown]
# **Aligning from the left.** You want to add a per-row value `(3,)` to a
# `(3, 4)` matrix. By the rules the `3` lines up with the `4` and it fails.
# Make the intent explicit with a size-1 dimension: `v[:, None]` (NumPy,
# PyTorch) or `reshape(3, 1)` gives a column.

# %%
v = np.array([100, 200, 300])
m = np.arange(12).reshape(3, 4)
try:
    m + v
except ValueError as err:
    print("ValueError:", err)
(m + v[:, None]).tolist()

# %% [markdown]
# **Writing through a stride-0 view.** All the stretched elements of a
# broadcast view are *one* element of storage, so writing to one writes to
# all of them. NumPy and our array refuse: broadcast views are read-only.
# And an in-place `a += b` cannot broadcast `a` itself: the result must fit
# in `a`'s own storage.

# %%
print("writeable:", np.broadcast_to(v, (2, 3)).flags.writeable, "| ours read-only:", xb.readonly)
a = np.zeros((3, 1))
try:
    a += np.ones((3, 4))
except ValueError as err:
    print("ValueError:", err)

# %% [markdown]
# **Size 2 is not size 1.** Only size 1 stretches. If two sizes differ and
# neither is 1, the shapes are wrong somewhere upstream; do not "fix" it by
# repeating data until they match.

# %% [markdown]
# ## Stretch (optional) · `broadcast_where`: three operands
#
# `np.where(cond, x, y)` picks, element by element, `x` where `cond` is true
# and `y` elsewhere, and all three broadcast together. Write it for three
# contiguous operands of any shapes, with your `broadcast_shapes` and
# `broadcast_strides`. Only the contract below to go on;
# `hint("04", "broadcast_where")` when you want it. Its points are counted apart.

# %%
#| exercise: broadcast_where
#| hint: what shape does the result have, and how does each operand read its element there?
# keep this import when you write the function: the cell runs on its own
from stridegrad.array.layout import (contiguous_strides, index_to_offset,  # lesson 01
                                     numel, offset_to_index)


def broadcast_where(cond, c_shape, x, x_shape, y, y_shape):
    """``np.where(cond, x, y)`` for three contiguous row-major operands of any shapes.

    Shape contract: ``c_shape``, ``x_shape`` and ``y_shape`` broadcast together to
    a shape ``S``; returns ``(values, S)`` with ``values`` the flat row-major
    storage of the result, a new list: at each index, ``x``'s element there where
    ``cond``'s is true, else ``y``'s; and ``S`` as a tuple. Each operand is a flat
    list holding its own shape's elements in row-major order.

    Raises:
        ValueError: naming the two shapes that clash (as they were given), if they
            do not broadcast together.

    Example:
        >>> broadcast_where([True, False], (2, 1), [1, 2, 3], (3,), [0], ())
        ([1, 2, 3, 0, 0, 0], (2, 3))
    """
    ### BEGIN SOLUTION
    shape = broadcast_shapes(c_shape, x_shape, y_shape)
    c_str, x_str, y_str = (broadcast_strides(s, contiguous_strides(s), shape)
                           for s in (c_shape, x_shape, y_shape))
    values = []
    for k in range(numel(shape)):
        index = offset_to_index(k, shape)
        if cond[index_to_offset(index, c_str)]:
            values.append(x[index_to_offset(index, x_str)])
        else:
            values.append(y[index_to_offset(index, y_str)])
    return values, shape
    ### END SOLUTION

# %%
#| check: broadcast_where

# %% [markdown]
# ## Checkpoint
#
# Run the whole checkpoint once every exercise is done; the stretch above is
# counted apart, as optional.

# %%
#| check: all

# %% [markdown]
# ## Milestone: the strided array runs on your functions
#
# Lessons 01-04 are the whole layout of the library's strided array, the
# arrays of the `python` device: it calls your `numel`, `contiguous_strides`,
# `permute_layout`, `slice_layout`, `broadcast_shapes`, `broadcast_strides` and
# the rest through `stridegrad.array.layout`. The cell below swaps in each of
# your functions that passes its checkpoint, centres and standardizes a table
# on the strided array (two broadcasts, a transposed view, a slice), and
# compares it with NumPy. It reads your *saved* notebooks of lessons 01-04:
# save this one first (Ctrl+S). Its report names which of your functions did
# the work, and which were the library's own and why (not written yet, or the
# checkpoint test they fail); `stridegrad yours` in a terminal shows the whole
# table, and `stridegrad yours --test` tries your functions on bigger shapes.

# %% tags=["nbval-ignore-output"]
from stridegrad.course.milestones import milestone

milestone("04");

# %% [markdown]
# ## Where this is in NumPy and PyTorch
#
# | here | NumPy | PyTorch |
# |---|---|---|
# | `broadcast_shapes(a, b)` | `np.broadcast_shapes(a, b)` | `torch.broadcast_shapes(a, b)` |
# | `broadcast_strides` + a view | `np.broadcast_to(x, shape)` (read-only, strides 0) | `x.expand(*shape)`, `x.broadcast_to(shape)` (stride 0) |
# | `broadcast_binary` | every ufunc: `np.add(x, y)` | every elementwise op: `torch.add(x, y)` |
# | a size-1 dim for the intent | `v[:, None]`, `np.expand_dims` | `v[:, None]`, `v.unsqueeze(1)` |
#
# NumPy's error names both shapes, as ours does; PyTorch's names the
# dimension: `The size of tensor a (3) must match the size of tensor b (4) at
# non-singleton dimension 1`. `np.broadcast_to` strides are in bytes (stride
# 0 is 0 in any unit).

# %%
print(np.broadcast_shapes((4, 1, 3), (5, 1)))
print(np.broadcast_to(np.zeros((3, 1)), (3, 4)).strides, "bytes")

# %% [markdown]
# ## Going further
#
# 1. **Gradients flow back through a broadcast.** If `z = x + y` with `x` of
#    shape `(3, 1)` and `y` of shape `(3, 4)`, the gradient arriving at `z` is
#    `(3, 4)`, but `x.grad` must be `(3, 1)`. Write `sum_to_shape(grad, shape)`
#    that sums over exactly the dimensions that were stretched or added.
#    (Lesson 08 builds on it; it is where autograd libraries get bugs.)
# 2. **Views that do not start at 0.** Extend `broadcast_binary` with
#    `x_offset` and `y_offset` so that it reads sliced views. Which of the
#    checkpoint tests still pass unchanged?
# 3. **Why stride 0 even when not stretched?** `np.broadcast_to` gives a
#    size-1 dimension stride 0 even when the target size is also 1
#    (`np.broadcast_to(np.zeros((3, 1)), (3, 1)).strides` is `(8, 0)`). Why
#    can any stride be used there, and what does `is_contiguous` from
#    lesson 02 say about such a dimension?
