# %% [markdown]
# # 03 · Elementwise ops and reductions
#
# Views cost nothing to make; now we compute with them. Almost every operation
# in a deep-learning library is one of two kinds. An **elementwise** op (`-x`,
# `exp(x)`, `x + y`, `x * y`) makes one output per element. A **reduction**
# (`sum`, `mean`, `max`) collapses one axis into a single number per position
# of the others. Both have to read their inputs through shape, strides and
# offset, whatever view they are handed.
#
# **By the end you can**
#
# - visit the elements of any strided view in row-major order (`iter_offsets`);
# - apply a function to every element of a view (`map_unary`) and to matching
#   elements of two views of the same shape (`map_binary`);
# - sum a view along one axis, with or without `keepdims` (`sum_axis`), and
#   reduce with any function: max, min, mean (`reduce_axis`);
# - explain why reducing a transposed view needs no copy.
#
# In this lesson a view is one tuple, `x = (storage, shape, strides, offset)`,
# and every result is a **fresh list in row-major order**: a contiguous array
# whose strides follow from its shape.

# %%
#| setup
from stridegrad.course import check, hint
from stridegrad.array.layout import Shape, Strides, View  # names used in the signatures
from stridegrad.array.layout import numel, contiguous_strides, offset_to_index  # lesson 01
from stridegrad.array.layout import permute_layout  # lesson 02
from stridegrad.viz import storage_picture
from itertools import chain, repeat
import matplotlib.pyplot as plt

# %% [markdown]
# ## Our views
#
# Six numbers seen as a `(2, 3)` matrix `m`, and the same storage seen as its
# transpose `mt` (lesson 02: swap the shape and the strides). `nested` turns a
# row-major list back into nested lists, so results are easy to read.

# %%
six = [0, 1, 2, 3, 4, 5]
m = (six, (2, 3), (3, 1), 0)   # [[0, 1, 2], [3, 4, 5]]
mt = (six, *permute_layout((2, 3), (3, 1), (1, 0)), 0)   # [[0, 3], [1, 4], [2, 5]]


def nested(values, shape):
    """A row-major list of values as nested lists of the given shape."""
    if not shape:
        return values[0]
    step = numel(shape[1:])
    return [nested(values[k * step:(k + 1) * step], shape[1:]) for k in range(shape[0])]


mt

# %% [markdown]
# ## Exercise 1 · `iter_offsets`: visiting a view
#
# Every op in this lesson starts the same way: list the storage positions of
# the view's elements, in row-major order of the view's **indices** (the last
# index moves fastest). For the contiguous `m` that is simply `0, 1, 2, 3, 4,
# 5`. The transpose `mt` has the same six cells, but its index `(i, j)` sits at
# position `i * 1 + j * 3`, so it visits `0, 3, 1, 4, 2, 5`.
#
# The picture draws the storage row, one box per position (its number inside).
# The boxes the view reads are coloured by when they are read, from dark purple
# (first) to light green (last); a box the view never read would stay grey.
# The number above a box says **when** it is read, counting from 0: cell 1 is
# read third (it shows `2`), cell 3 second (it shows `1`). So that row of numbers reads `0 2 4 1 3 5`, the visiting order
# seen from the storage side.

# %%
storage_picture((3, 2), (1, 3), 0, storage_size=6, title="mt: shape (3, 2), strides (1, 3)")
plt.show()

# %% [markdown]
# For a `(2, 3)` view you would write two nested loops, one per axis. Your
# function gets views with any number of axes, so it cannot spell out one loop
# per axis. Some questions to settle before you write it:
#
# - What is the list for a 0-d view (shape `()`, one element, at the offset)?
#   For a view with a size-0 axis (no elements)?
# - Suppose you have the positions for the first axes only. What does one
#   more axis, of size `d` and stride `s`, do to that list, and in which order
#   must the new positions come so that the last index moves fastest?
# - A stride of 0 reads the same position again (lesson 04 builds
#   broadcasting on it). Does your way of making a run of positions accept a
#   step of 0? (`range` does not.)
#
# Plain loops and list comprehensions are all it takes. (The setup cell also
# imports `chain` and `repeat` from `itertools`, which the library's own
# version uses for speed: `chain.from_iterable(runs)` joins a sequence of runs
# into one, and `repeat(p, d)` is `p` `d` times, a run along a stride-0 axis.)

# %%
#| exercise: stridegrad.array.layout.iter_offsets
#| hint: one nested loop per dimension, for any number of dimensions: build the list one dimension at a time

# %%
#| calls-exercise
# expect ([0, 1, 2, 3, 4, 5], [0, 3, 1, 4, 2, 5], [4])
iter_offsets((2, 3), (3, 1)), iter_offsets((3, 2), (1, 3)), iter_offsets((), (), 4)

# %%
#| check: iter_offsets

# %% [markdown]
# ## Exercise 2 · `map_unary`: one output per element
#
# Negation, `exp`, `relu`, `abs`: a unary elementwise op reads each element of
# the view and writes `fn(value)` into the result. Read in the view's order
# (your `iter_offsets`), write in plain row-major order, and leave the input's
# storage alone. The result of mapping `mt` is a *contiguous* `(3, 2)` array,
# whatever the strides of `mt` were.

# %%
#| exercise: stridegrad.array.layout.map_unary
#| hint: your iter_offsets gives the positions to read, in the right order

# %%
#| calls-exercise
relu = lambda v: v if v > 0 else 0
# expect ([[0, 30], [10, 40], [20, 50]], [0, 3, 0, 4]): mt is m transposed
nested(map_unary(lambda v: 10 * v, mt), mt[1]), map_unary(relu, ([-2, 3, -1, 4], (4,), (1,), 0))

# %%
#| check: map_unary

# %% [markdown]
# ## Exercise 3 · `map_binary`: two views, one index
#
# `x + y` adds the elements at the **same index**, not at the same storage
# position. The two views may have different strides and offsets, even share
# one storage: `a + a.T` makes sense for a square matrix `a`. Walk both with
# their own `iter_offsets` side by side.
#
# This lesson needs equal shapes: check them and raise `ValueError` naming
# both shapes otherwise. (Comparing element counts is not enough: `(2, 3)` and
# `(3, 2)` both hold six.) Lesson 04 relaxes this with broadcasting.

# %%
#| exercise: stridegrad.array.layout.map_binary
#| hint: two views of one shape: walk the positions of both at once

# %%
#| calls-exercise
sq = [1, 2, 3, 4]
a, a_t = (sq, (2, 2), (2, 1), 0), (sq, (2, 2), (1, 2), 0)
# expect [[2, 5], [5, 8]]: [[1, 2], [3, 4]] plus its transpose
nested(map_binary(lambda u, v: u + v, a, a_t), (2, 2))

# %%
#| check: map_binary

# %% [markdown]
# ## Reductions: collapsing one axis
#
# `sum(m, axis=0)` adds **down the columns**: the index along axis 0, the row,
# changes and the column stays, so each column is added from top to bottom:
# `[0 + 3, 1 + 4, 2 + 5] = [3, 5, 7]`, shape `(3,)`.
# `sum(m, axis=1)` adds **along the rows**, each row from left to right:
# `[3, 12]`, shape `(2,)` (the tests call the two `sums_down_the_columns` and
# `sums_along_the_rows`). The reduced axis disappears from the shape, unless
# you ask for `keepdims=True`, which leaves a 1 in its place: `(1, 3)` and
# `(2, 1)`. The picture shows which storage cells feed each output.

# %%
fig, axes = plt.subplots(1, 2, figsize=(8, 2.6))
for ax, axis in zip(axes, (0, 1)):
    for i in range(2):
        for j in range(3):
            group = j if axis == 0 else i
            ax.add_patch(plt.Rectangle((j, -i), 0.92, 0.92, color=plt.cm.tab10(group)))
            ax.text(j + 0.46, -i + 0.46, str(3 * i + j), ha="center", va="center", color="white")
    outs = [(j, -2.0, f"{j + j + 3}") for j in range(3)] if axis == 0 else \
        [(3.4, -i, f"{3 + 9 * i}") for i in range(2)]
    for k, (px, py, text) in enumerate(outs):
        ax.text(px + 0.46, py + 0.46, text, ha="center", va="center", fontsize=12,
                color=plt.cm.tab10(k), fontweight="bold")
    shape = "(3,), keepdims (1, 3)" if axis == 0 else "(2,), keepdims (2, 1)"
    ax.set_title(f"sum over axis {axis}: shape {shape}", fontsize=10)
    ax.set_xlim(-0.2, 4.5)
    ax.set_ylim(-2.2, 1.1)
    ax.set_aspect("equal")
    ax.axis("off")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Exercise 4 · `sum_axis`: sum along one axis
#
# Each output adds up one **lane**: the elements whose indices differ only
# along `axis`. For `m` and `axis=0` there are three lanes, starting at cells
# `0, 1, 2`, and each adds the cell 3 further on. The question is how to find
# where every lane starts, for any strides, in the order of the result. Your
# `iter_offsets` can answer it, given the right view. There is a short
# solution; `hint("03", "sum_axis")` gives it in steps.
#
# Return `(values, shape)`. A negative `axis` counts from the end (`-1` is the
# last axis); an axis that does not exist is a `ValueError`. An axis of size 0
# sums to 0, the sum of nothing.

# %%
#| exercise: stridegrad.array.layout.sum_axis
#| hint: split the axes: the summed one, and the others, which are a view of their own

# %%
#| calls-exercise
# expect (([3, 5, 7], (3,)), ([3, 12], (2,)), ([3, 12], (2, 1)))
sum_axis(m, 0), sum_axis(m, 1), sum_axis(m, 1, keepdims=True)

# %% [markdown]
# ### Why `keepdims`?
#
# To centre each row of `m`, subtract the row means. With `keepdims=True` the
# sums have shape `(2, 1)`: as many axes as `m`, so the two shapes line up
# **axis by axis**. Wherever the sums have a 1 and `m` has more, read the sums
# with a stride of 0 (the same value again); everywhere else, step as usual.
# The code below derives the pairing from the shape your `sum_axis` returned.
# Lesson 04 makes this automatic (broadcasting).
#
# Without `keepdims` the shape would be `(2,)`: one axis against `m`'s two,
# and nothing in it says *which* axis was summed away (`(2,)` could pair
# with either axis of a `(2, 2)` array). Try it: with `keepdims=False` below,
# the pairing gets one stride for `m`'s two axes. What you then see depends on
# how your functions walk a view. With `zip(shape, strides)` in `iter_offsets`
# and `zip` in `map_binary`, as in the hints, the result is silently wrong: 2
# values where there should be 6, and no error. A version that reads
# `strides[k]` for each axis `k` raises an `IndexError` instead, and one that
# compares the two views' numbers of positions a `ValueError`. Either way, the
# mismatch is in the layout: the library's arrays check the number of strides
# against the shape; these bare tuples do not.

# %%
#| calls-exercise
sums, kept = sum_axis(m, 1, keepdims=True)   # [3, 12], shape (2, 1)
pairing = tuple(0 if k == 1 and n != 1 else s
                for k, n, s in zip(kept, m[1], contiguous_strides(kept)))
print("sums of shape", kept, "read as", m[1], "with strides", pairing)
means = ([v / 3 for v in sums], m[1], pairing, 0)
centred = map_binary(lambda v, mu: v - mu, m, means)
print(len(centred), "values:", centred)   # expect 6 values: -1.0, 0.0, 1.0 twice

# %% [markdown]
# ### Why reducing a transposed view still works
#
# `sum_axis(mt, 0)` sums the columns of `mt`, which are the rows of `m`. It
# never copies `mt` into row-major order: its loops just follow `mt`'s
# strides, and they read exactly the cells that `sum_axis(m, 1)` reads, in the
# same order. The view changes **which** cells form a group, never **how**
# the kernel works.

# %%
#| calls-exercise
print("sum_axis(mt, 0):", sum_axis(mt, 0), "  sum_axis(m, 1):", sum_axis(m, 1))

# %%
#| check: sum_axis

# %% [markdown]
# ## Exercise 5 · `reduce_axis`: max, min, mean, ... with one function
#
# `sum_axis` hard-codes "add". Make the reduction a parameter: for each
# output, collect the values along `axis` into a list **in index order**
# (index 0 first) and call `fn` on the list once. Then `max`, `min`, `sum`
# and a mean are all one line. Index order matters for functions that care
# about position (think `argmax`, or "the first value").
#
# (NumPy's `max` of an empty axis is an error, since `max` has no starting
# value as `sum` has 0. Python's `max([])` raises a `ValueError` too, so a
# `reduce_axis` that hands `fn` each lane's list passes that error on for
# free. The tests do not ask for it: once yours works, try
# `reduce_axis(max, ([], (2, 0), (1, 1), 0), 1)`, a `(2, 0)` view.)

# %%
#| exercise: stridegrad.array.layout.reduce_axis
#| hint: sum_axis with sum replaced by any function of a list

# %%
#| calls-exercise
mean = lambda values: sum(values) / len(values)
# expect (([2, 5], (2,)), ([0, 1, 2], (3,)), ([1.5, 2.5, 3.5], (1, 3)))
reduce_axis(max, m, 1), reduce_axis(min, mt, 1), reduce_axis(mean, m, 0, keepdims=True)

# %%
#| check: reduce_axis

# %% [markdown]
# ## Stretch (optional) · `argmax_axis`
#
# A reduction that keeps *where*, not *what*: for every lane along `axis`, the
# index of its largest element (NumPy's `np.argmax(a, axis)`, PyTorch's
# `t.argmax(dim)`). The classifier of lesson 09 predicts with exactly this.
# Only the contract below to go on; `hint("03", "argmax_axis")` when you want
# it. Its points are counted apart from the lesson's.

# %%
#| exercise: argmax_axis
#| hint: a reduction like reduce_axis, but what you keep for each lane is a position along it
def argmax_axis(x, axis):
    """For each lane of a view along ``axis``, the index of its largest element.

    Shape contract: ``(d0, ..., dn-1)`` along ``axis = k`` -> the shape without
    ``dk``. On a tie, the first (smallest) index, as in NumPy. A negative ``axis``
    counts from the end.

    Returns:
        ``(values, shape)``: the indices, a list of ints in row-major order, each in
        ``range(dk)`` (the position along the axis, not in storage), and that shape
        as a tuple.

    Raises:
        ValueError: naming the axis and the number of dimensions, if ``axis`` is out
            of range; if the axis has size 0, even when no lane is left (no maximum
            of nothing).

    Example:
        >>> argmax_axis(([3, 9, 2, 7, 1, 8], (2, 3), (3, 1), 0), axis=1)
        ([1, 2], (2,))
        >>> argmax_axis(([3, 9, 2, 7, 1, 8], (2, 3), (3, 1), 0), axis=0)
        ([1, 0, 1], (3,))
    """
    ### BEGIN SOLUTION
    storage, shape, strides, offset = x
    shape, strides = tuple(shape), tuple(strides)
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {len(shape)}")
    axis %= len(shape)
    size, step = shape[axis], strides[axis]
    if size == 0:
        raise ValueError(f"argmax of an empty axis (axis {axis} of shape {shape})")
    rest_shape = shape[:axis] + shape[axis + 1:]
    rest_strides = strides[:axis] + strides[axis + 1:]
    out = []
    for start in iter_offsets(rest_shape, rest_strides, offset):
        best = 0
        for j in range(1, size):
            if storage[start + j * step] > storage[start + best * step]:
                best = j
        out.append(best)
    return out, rest_shape
    ### END SOLUTION

# %%
#| check: argmax_axis

# %% [markdown]
# ## Checkpoint
#
# Run the whole checkpoint once every exercise is done. Points are what an
# instructor's `stridegrad grade` would give this notebook; the stretch above
# is counted apart, as optional.

# %%
#| check: all

# %% [markdown]
# ## Where this is in NumPy and PyTorch
#
# | here | NumPy | PyTorch |
# |---|---|---|
# | `iter_offsets` | `np.nditer(a, order="C")` (plain `np.nditer(a)` follows memory order), done in C inside every ufunc | `TensorIterator` in ATen (C++) |
# | `map_unary(fn, x)` | ufuncs: `np.negative(a)`, `np.exp(a)` | `torch.neg(t)`, `t.exp()` |
# | `map_binary(fn, x, y)` | `np.add(a, b)`, `a * b` (with broadcasting) | `torch.add(t, u)`, `t * u` |
# | `sum_axis(x, axis, keepdims)` | `a.sum(axis=1, keepdims=True)` | `t.sum(dim=1, keepdim=True)` |
# | `reduce_axis(max, ...)` | `a.max(axis=1)`, `np.maximum.reduce(a, axis=1)` (any ufunc's `.reduce`) | `t.amax(dim=1)`; `t.max(dim=1)` also returns the indices |
#
# The names differ a little (`axis`/`keepdims` in NumPy and the Array API,
# `dim`/`keepdim` in PyTorch), but the shapes agree:

# %%
import numpy as np

a = np.arange(6).reshape(2, 3)
print("sum axis 0:", a.sum(axis=0).tolist(), "  axis 1 keepdims:", a.sum(axis=1, keepdims=True).tolist())
print("transpose, sum axis 0:", a.T.sum(axis=0).tolist(), "  max axis 1:", a.max(axis=1).tolist())

# %% [markdown]
# Real libraries make these loops fast by running them in C, and by choosing
# the loop order themselves. `sum_axis(m, 0)` jumps 3 cells at every step of
# each column; a kernel that walks the storage in order instead, adding each
# cell into the total of its column, gets the same sums and reads memory
# front to back. `stridegrad.array` stays in Python, for clarity.
#
# ## Going further
#
# 1. **Several axes at once.** Write `sum_axes(x, axes, keepdims=False)` for a
#    tuple of axes. Is `sum_axis` twice, once per axis, enough? What shape is
#    in between, and what happens to the axis numbers after the first sum?
# 2. **Running totals.** Write `cumsum_axis(x, axis)`, NumPy's
#    `np.cumsum(a, axis)`: the result keeps `x`'s shape, and each element is the
#    sum of its lane up to and including itself. Which part of `sum_axis` still
#    fits? Where in the row-major result does each running total go when `axis`
#    is not the last one?
# 3. **Floating-point sums.** `sum([0.1] * 10) == 1.0` is False. Look up
#    pairwise summation (NumPy uses it) and `math.fsum`. Does the order in
#    which `sum_axis` visits the elements change the result for floats?
