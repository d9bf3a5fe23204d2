# %% [markdown]
# # 02 · Strides and views
#
# In lesson 01 a tensor was a flat list plus a shape, and the strides followed
# from the shape. This lesson turns that around: **the strides are free**. Keep
# the storage, pick any shape, strides and offset, and you get a new array, a
# *view*, without copying a single number. Transpose, permute, slicing with
# steps (backwards too) and most reshapes are views like this.
#
# **By the end you can**
#
# - read any view as a triple `(shape, strides, offset)` over one storage;
# - transpose and permute an array by reordering its shape and strides (`permute_layout`);
# - slice one axis with a start, stop and step, negative steps included (`slice_layout`);
# - tell whether a view is laid out row-major with no gaps (`is_contiguous`);
# - decide when a reshape can be a view and when it must copy (`reshape_strides`),
#   and what `contiguous()` does about it.
#
# As before, each exercise is a function with its docstring written: replace the
# `raise NotImplementedError(...)` line, run the cell, then run the `check` cell.

# %%
#| setup
from stridegrad.course import check, hint
from stridegrad.array.layout import Shape, Strides  # names used in the signatures
from stridegrad.array.layout import numel, contiguous_strides, index_to_offset, offset_to_index  # lesson 01
from stridegrad.viz import storage_picture, stride_explorer
import operator  # operator.index(k): k as a plain int, or a TypeError; the library's
# slice_layout uses it to refuse a step like 1.5; yours may leave that to slice.indices
import matplotlib.pyplot as plt

# %% [markdown]
# ## A view is a shape, strides and an offset
#
# Our storage for the whole lesson holds the twelve numbers `0 ... 11`, so
# that every number is its own position. Seen with shape `(3, 4)` and the
# row-major strides `(4, 1)` of lesson 01, it is the matrix `x`:
#
# ```
# x = [[ 0,  1,  2,  3],
#      [ 4,  5,  6,  7],
#      [ 8,  9, 10, 11]]
# ```
#
# Element `x[i, j]` sits at `offset + i * 4 + j * 1`. Now change only the
# triple. Strides `(1, 4)` with shape `(4, 3)` read the same storage as the
# transpose `x.T`. Strides `(4, 2)` with shape `(3, 2)` read every other
# column, `x[:, ::2]`. Strides `(-4, 1)` with offset `8` read the rows bottom
# to top, `x[::-1]`. Nothing was copied: these are four windows on one list.
#
# The pictures show the storage row. Coloured cells are the ones the view
# reads; the number above a cell says **when** it is read, walking the view's
# indices in row-major order (last index fastest).

# %%
storage = list(range(12))
views = [("x", (3, 4), (4, 1), 0), ("x.T", (4, 3), (1, 4), 0),
         ("x[:, ::2]", (3, 2), (4, 2), 0), ("x[::-1]", (3, 4), (-4, 1), 8)]
fig, axes = plt.subplots(len(views), 1, figsize=(8, 6))
for ax, (name, shape, strides, offset) in zip(axes, views):
    storage_picture(shape, strides, offset, storage_size=12, ax=ax,
                    title=f"{name}:  shape {shape}  strides {strides}  offset {offset}")
fig.tight_layout()
plt.show()

# %% [markdown]
# Read the `x.T` row: it visits `0, 4, 8`, then `1, 5, 9`, ... It jumps
# around the storage, because a row of `x.T` is a column of `x`. `x[:, ::2]`
# skips every other cell, and `x[::-1]` starts at cell 8 and jumps *back* 4
# at each new row.
#
# Look again at `x.T`: shape `(4, 3)`, strides `(1, 4)`. The *first* index
# moves fastest in storage. That is the other classic layout that lesson 01
# mentioned, column-major (Fortran order), where the first index moves
# fastest: the transpose of a row-major array is a column-major array, for
# free.

# %% [markdown]
# ## Play with it: the stride explorer
#
# Pick a view in the menu; the row of cells shows which storage cells it
# touches and in what order (`#0` is read first). The `start` and `step` menus
# slice the view's last axis, `view[..., start::step]`. Things to try:
#
# - `x.T`, then `y.permute(2, 0, 1)`: the same twelve cells in another order
#   (`y` is `x.reshape(2, 3, 2)`, the same storage seen as a 3-D array; the
#   menu lists it too).
# - `x[1]`: a row is four neighbours starting at offset 4.
# - `x` with step `-1`: each row backwards. Then set start to `0`: only one
#   element per row is left. A backwards slice that *starts at 0* keeps
#   element 0 and has nowhere further to go; keep that in mind for exercise 2.
# - `x[:, ::2]` and `x[1:, 1:3]`: not contiguous, but in two different ways.
#   One of them can still be flattened without a copy (exercise 4).
#
# (The widget needs a running kernel. Where there is none, as on a web page
# that shows a saved copy of this notebook, you see a one-line summary of the
# view instead.)

# %% tags=["nbval-ignore-output"]
stride_explorer("x.T")

# %% [markdown]
# ## Exercise 1 · `permute_layout`: transpose without moving data
#
# A transpose swaps the axes: element `x.T[j, i]` is `x[i, j]`. With strides
# that is one swap, of the sizes **and** of the strides: `(3, 4), (4, 1)`
# becomes `(4, 3), (1, 4)`. For more dimensions, `permute` takes the new order
# of the axes: output axis `k` is input axis `axes[k]`. For a `(2, 3, 4)` array
# with strides `(12, 4, 1)`, `axes = (2, 0, 1)` gives shape `(4, 2, 3)` and
# strides `(1, 12, 4)`.
#
# `axes` must name every axis exactly once; anything else is a `ValueError`.

# %%
#| exercise: stridegrad.array.layout.permute_layout
#| hint: a transpose moves no data: what happens to each axis's size and stride?

# %%
#| calls-exercise
permute_layout((3, 4), (4, 1), (1, 0)), permute_layout((2, 3, 4), (12, 4, 1), (2, 0, 1))

# %%
#| check: permute_layout

# %% [markdown]
# ## Exercise 2 · `slice_layout`: slicing with steps, backwards too
#
# Slicing one axis of size `size` and stride `stride` with `start:stop:step`
# keeps every `step`-th element from `start`. In storage that means three
# numbers:
#
# - the first kept element is `start * stride` cells after the old first one
#   (add this to the offset);
# - the number of kept elements;
# - the new stride, `stride * step`: each step skips `step` old elements.
#
# Python's slice rules are subtle (negative starts count from the end, stops
# past the end are clipped, a missing start means "the first" for a positive
# step but "**the last**" for a negative one). Don't rewrite them:
# `slice(None, None, -1).indices(4)` returns `(3, -1, -1)`, the `start`, `stop`
# and `step` of an ordinary `range`. A classic bug is to let a missing start
# or stop take its positive-step default even when the step is negative: with
# a start of 0, `::-1` keeps one element at most (as you saw in the explorer),
# and with a stop of `size` it keeps none.
#
# Here is `x[::-1]` made by hand: slice axis 0 (size 3, stride 4) with `::-1`.

# %%
#| exercise: stridegrad.array.layout.slice_layout
#| hint: Python can turn a slice and a size into start, stop, step for you

# %%
#| calls-exercise
delta, n, stride = slice_layout(3, 4, slice(None, None, -1))
print("x[::-1]: offset", 0 + delta, " shape", (n, 4), " strides", (stride, 1))
storage_picture((n, 4), (stride, 1), delta, storage_size=12)
plt.show()

# %%
#| check: slice_layout

# %% [markdown]
# ## Exercise 3 · `is_contiguous`: no gaps, no jumps
#
# A view is **contiguous** when it reads `storage[offset : offset + numel]` in
# order, exactly like a fresh array. Then it can be handed as one block to
# code that knows nothing of strides (a C loop, a BLAS call, a file write).
#
# Your `contiguous_strides` knows what a fresh array of this shape looks like;
# how does a contiguous view differ from it, if at all? Two details make it
# NumPy's rule:
#
# - an axis of **size 1** is never stepped along, so its stride does not
#   matter: skip it;
# - an array with **no elements** is contiguous, whatever its strides.

# %%
#| exercise: stridegrad.array.layout.is_contiguous
#| hint: compare with the strides a fresh array of this shape would have; which axes can you ignore?

# %%
#| calls-exercise
for name, shape, strides, offset in views + [("x[1:, 1:3]", (2, 2), (4, 1), 5)]:
    print(f"{name:11} contiguous: {is_contiguous(shape, strides)}")

# %%
#| check: is_contiguous

# %% [markdown]
# ## Copying: what `contiguous()` does
#
# When a view is not contiguous and you need it to be, you copy: walk the
# view's indices in row-major order and write each element into a fresh list.
# You can already do it with lesson 01's functions (imported in the setup
# cell). Libraries call this `contiguous()` (PyTorch) or `ascontiguousarray`
# (NumPy); they skip the copy when the view is contiguous already.

# %%
def copy_view(storage, shape, strides, offset=0):
    """The view's elements in row-major order, as a new list (a contiguous copy)."""
    return [storage[index_to_offset(offset_to_index(k, shape), strides, offset)]
            for k in range(numel(shape))]


copy_view(storage, (4, 3), (1, 4))  # x.T, now in its own storage with strides (3, 1)

# %% [markdown]
# ## Exercise 4 · `reshape_strides`: a view, or a copy?
#
# `reshape` keeps the elements in row-major order and changes the shape. For a
# contiguous array it is always a view: take the row-major strides of the new
# shape. For other views it depends.
#
# Think in **groups of axes**. A reshape either *splits* an axis into several
# (`6 -> 2, 3`) or *merges* several into one (`3, 2 -> 6`), or both. Match
# old and new axes left to right into groups with equal products.
#
# - **Splitting** is always a view. An axis of 6 with stride `s` becomes sizes
#   `(2, 3)` with strides `(3 * s, s)`.
# - **Merging** needs the merged axes to be evenly spaced: each stride must be
#   the next size times the next stride, `s[k] == d[k+1] * s[k+1]`. Then the
#   merged axis takes the last stride of the group.
#
# `x[:, ::2]` has shape `(3, 2)` and strides `(4, 2)`: rows 4 apart, two
# elements 2 apart, and `4 == 2 * 2`, so flattening it *is* a view: shape `(6,)`,
# stride 2 (cells 0, 2, 4, ..., 10). `x[:, :2]` has strides `(4, 1)`, and
# `4 != 2 * 1`: there is a gap after each row, so flattening it needs a copy,
# and `reshape_strides` returns `None`. The transpose `(3, 2), (1, 3)` fails
# the same test: `1 != 2 * 3`.
#
# Axes of size 1 can be dropped first, since their strides never matter; new
# size-1 axes can take any stride. Raise `ValueError` if the element counts
# differ. Your `is_contiguous` gives the fast path.

# %%
#| exercise: stridegrad.array.layout.reshape_strides
#| hint: a contiguous array is the easy case; when can a strided one be reshaped without a copy?

# %%
#| calls-exercise
for shape, strides, new_shape in [((3, 2), (4, 2), (6,)), ((3, 2), (4, 1), (6,)),
                                  ((6, 2), (1, 6), (2, 3, 2)), ((3, 2), (1, 3), (6,))]:
    print(f"{shape} strides {strides} -> {new_shape}: strides {reshape_strides(shape, strides, new_shape)}")

# %%
#| check: reshape_strides

# %% [markdown]
# When `reshape_strides` says `None`, `reshape` copies: first `copy_view` into
# a fresh row-major storage, then take its row-major strides. The caller
# cannot tell from the result, which is why PyTorch has two methods (next
# section).

# %% [markdown]
# ## Stretch (optional) · `getitem_layout`: `a[1, ::2]` as a layout
#
# NumPy's basic indexing mixes integers and slices: `a[1, ::2]` picks row 1
# and every other column of it, with no copy. Write the layout side of it: the
# new shape, strides and offset for a key of ints and slices, one per axis
# from the left (axes the key leaves out are kept whole). Your `slice_layout`
# does one axis's slice. Only the contract below to go on;
# `hint("02", "getitem_layout")` when you want it. Its points are counted apart.

# %%
#| exercise: getitem_layout
#| hint: go axis by axis: what does an int do to one axis, and what does a slice do?
def getitem_layout(shape, strides, offset, key):
    """The layout ``(shape, strides, offset)`` of the view ``a[key]``, NumPy's basic indexing.

    ``key`` is an int, a slice, or a tuple of them, one per axis from the left;
    axes it leaves out are kept whole. An int picks one position along its axis
    and removes the axis (negative ints count from the end); a slice keeps the
    axis, with the offset change, size and stride ``slice_layout`` gives (an
    empty selection moves nothing and keeps the stride). Nothing is copied.
    The shape and the strides come back as tuples, the offset as an int.

    Raises:
        IndexError: naming the int and the axis's size, if an int is out of range;
            naming both counts, if the key has more items than the array has axes.
        ValueError: for a slice step of 0 (as ``slice_layout``).

    Example:
        >>> getitem_layout((2, 3, 4), (12, 4, 1), 0, (1, slice(None, None, 2)))
        ((2, 4), (8, 1), 12)
        >>> getitem_layout((2, 3), (3, 1), 0, (slice(None), -1))
        ((2,), (3,), 2)
    """
    ### BEGIN SOLUTION
    if not isinstance(key, tuple):
        key = (key,)
    if len(key) > len(shape):
        raise IndexError(f"too many indices: {len(key)} for an array with {len(shape)} axes")
    new_shape, new_strides = [], []
    for k, (d, s) in enumerate(zip(shape, strides)):
        item = key[k] if k < len(key) else slice(None)
        if isinstance(item, slice):
            delta, n, step = slice_layout(d, s, item)
            offset += delta
            new_shape.append(n)
            new_strides.append(step)
        else:
            i = item + d if item < 0 else item
            if not 0 <= i < d:
                raise IndexError(f"index {item} is out of bounds for axis {k} with size {d}")
            offset += i * s
    return tuple(new_shape), tuple(new_strides), offset
    ### END SOLUTION

# %%
#| check: getitem_layout

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
# | `(shape, strides, offset)` | `a.shape`, `a.strides` (**bytes**), the data pointer | `t.shape`, `t.stride()` (elements), `t.storage_offset()` |
# | `permute_layout` | `a.transpose(axes)`, `a.T` | `t.permute(dims)`, `t.T`, `t.transpose(0, 1)` |
# | `slice_layout` | `a[start:stop:step]`, negative steps too | `t[start:stop:step]`, **positive steps only** (`t.flip(0)` copies) |
# | `is_contiguous` | `a.flags["C_CONTIGUOUS"]` | `t.is_contiguous()` |
# | copy when needed | `np.ascontiguousarray(a)` | `t.contiguous()` |
# | `reshape_strides` | `a.reshape(...)`: a view if it can, else a copy | `t.view(...)` never copies (it raises instead); `t.reshape(...)` copies when it must |
#
# NumPy's reshape follows the same group rule as your `reshape_strides` (its C
# function is `_attempt_nocopy_reshape`). You can watch it decide:

# %%
import numpy as np

a = np.arange(12, dtype=np.int64).reshape(3, 4)
print("x[:, ::2] strides (elements):", tuple(s // 8 for s in a[:, ::2].strides))
print("flatten x[:, ::2] is a view:", np.shares_memory(a, a[:, ::2].reshape(6)))
print("flatten x[:, :2]  is a view:", np.shares_memory(a, a[:, :2].reshape(6)))
print("x.T contiguous:", a.T.flags["C_CONTIGUOUS"], "  after a copy:",
      np.ascontiguousarray(a.T).flags["C_CONTIGUOUS"])

# %% [markdown]
# ## Going further
#
# 1. **Diagonal.** Which `(shape, strides, offset)` reads the diagonal
#    `0, 5, 10` of `x`? Of any `(n, n)` matrix? (NumPy's `np.diagonal` returns
#    exactly this view.)
# 2. **Sliding windows.** With shape `(3, 4)` and strides `(1, 1)`, storage
#    `0 ... 5` shows all windows of 4 neighbours (`[0..3], [1..4], [2..5]`),
#    with overlapping cells. Which of this lesson's functions still behave?
#    Look up `np.lib.stride_tricks.sliding_window_view` and why writing
#    through such a view is dangerous.
# 3. **Ellipsis and new axes.** NumPy's keys may also hold `...` (as many
#    whole axes as needed) and `None` (a new axis of size 1). Extend your
#    `getitem_layout` to both: which stride does a new axis get, and why does
#    it not matter? Check it against NumPy's `a[key].strides`.
