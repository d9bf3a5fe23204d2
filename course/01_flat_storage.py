# %% [markdown]
# # 01 · Flat storage
#
# Every array library you have used (NumPy, PyTorch, JAX) keeps the numbers of
# an array in **one flat block of memory**, however many dimensions the array
# has. The dimensions are not in the memory at all: they are a few small
# tuples of integers stored next to it that say how to *read* the block.
#
# In this lesson you write the four functions that turn "the element at row 1,
# column 2 of a 2 × 3 matrix" into "the number at position 5 of the block", and
# back.
#
# **By the end you can**
#
# - explain why a tensor is a flat buffer plus a shape, and what row-major order means;
# - count the elements of a shape (`numel`);
# - compute the strides of a freshly allocated array (`contiguous_strides`);
# - turn an index into a storage offset (`index_to_offset`) and an offset back
#   into an index (`offset_to_index`).
#
# Each exercise is a function with its docstring already written: replace the
# `raise NotImplementedError(...)` line with your code, run the cell, then run
# the `check` cell below it. The signatures name their tuples by what they
# hold: `Shape`, `Strides` and `Index` (imported in the setup cell) are all
# `tuple[int, ...]`, a tuple of ints of any length, under three names.

# %%
#| setup
from stridegrad.course import check, hint
from stridegrad.array.layout import Index, Shape, Strides  # tuple[int, ...], named for the signatures
import matplotlib.pyplot as plt

# %% [markdown]
# ## One buffer, many shapes
#
# Here is our storage: 24 numbers in a plain Python list. We fill it with
# `0, 1, 2, ...` so that each number *is* its own position in the list, which
# makes the pictures below easy to read.

# %%
storage = list(range(24))
print(storage)

# %% [markdown]
# The same 24 numbers can be read as a vector of 24, as a 4 × 6 matrix, or as
# two 3 × 4 matrices stacked (a 3-D array of shape `(2, 3, 4)`). Nothing in the
# list changes; only the shape we read it with does. Each box shows the
# position of the number in the flat list, and the colour follows that
# position, so you can see the order in which each shape walks the buffer.

# %%
def draw_boxes(ax, rows, x0=0.0, n=24):
    """Draw rows of storage positions as labelled, coloured boxes."""
    for r, row in enumerate(rows):
        for c, position in enumerate(row):
            ax.add_patch(plt.Rectangle((x0 + c, -r), 0.92, 0.92, color=plt.cm.viridis(position / n)))
            ax.text(x0 + c + 0.46, -r + 0.46, str(position), ha="center", va="center",
                    fontsize=8, color="white" if position < 0.6 * n else "black")


fig, axes = plt.subplots(3, 1, figsize=(9, 5.5), gridspec_kw={"height_ratios": [1, 4, 3]})
draw_boxes(axes[0], [storage])
axes[0].set_title("shape (24,)", loc="left")
draw_boxes(axes[1], [storage[6 * i: 6 * i + 6] for i in range(4)])
axes[1].set_title("shape (4, 6)", loc="left")
for b in range(2):  # the two 3 x 4 blocks of shape (2, 3, 4), side by side
    draw_boxes(axes[2], [storage[12 * b + 4 * i: 12 * b + 4 * i + 4] for i in range(3)], x0=5.0 * b)
    axes[2].text(5.0 * b + 2, 1.3, f"[{b}, :, :]", ha="center")
axes[2].set_title("shape (2, 3, 4): block [0, :, :], then block [1, :, :]", loc="left", pad=22)
for ax in axes:
    ax.set_xlim(-0.2, 24.2)
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.axis("off")
fig.tight_layout()
plt.show()

# %% [markdown]
# Read each row left to right and the rows top to bottom (and, for the 3-D
# array, all of block `[0]` before block `[1]`): every picture visits the
# boxes in the same order, 0, 1, 2, ... This order, where the **last** index
# moves fastest,
# is called **row-major** (or **C order**, after the C language, which lays out
# its arrays this way). It is NumPy's and PyTorch's default.
# The other classic choice, **column-major** (or **Fortran order**, after the
# Fortran language, which lays out its arrays that way), moves the *first*
# index fastest; you will meet it again in the next lesson.

# %% [markdown]
# ## Exercise 1 · `numel`: how many elements?
#
# A shape is a tuple of sizes, one per dimension. The number of elements is
# their product. Two cases deserve a thought: a **scalar** has the empty shape
# `()` and still holds one number, and any size of 0 means there are no
# elements at all.

# %%
#| exercise: stridegrad.array.layout.numel
#| hint: how many numbers does a 2 x 3 grid hold? and the empty shape ()?

# %%
#| calls-exercise
numel((2, 3, 4)), numel(()), numel((3, 0, 2))

# %%
#| check: numel

# %% [markdown]
# The last row, `numel_on_generated_inputs`, is not one example but forty:
# shapes of 0 to 4 dimensions, with sizes 0, 1 and unequal sizes, drawn by the
# Hypothesis library (the same forty every time you run it), each compared with
# the library's own `numel`, value and type (`1` is not `1.0`). When one of them
# fails, the row shows the smallest that does, so that you can try that call
# yourself. Every exercise from here on ends with such a row.

# %% [markdown]
# ## Exercise 2 · `contiguous_strides`: how far to the next element?
#
# To move one step along an axis, how many positions do we move in the flat
# list? That number is the axis's **stride**, and the strides come as a tuple
# in the order of the shape: `strides[k]` belongs to axis `k`. In the `(4, 6)`
# picture, axis 0 counts the rows and the next row is 6 positions away; axis 1
# counts the columns and the next column is 1 position away: the strides are
# `(6, 1)`. In the `(2, 3, 4)` picture they are `(12, 4, 1)`: one
# step along the first axis skips a whole 3 × 4 block.
#
# Before you write anything, find the rule yourself: what would the strides of
# a `(5, 2, 3)` array be, and which sizes did you use to get each one? (Our
# strides count *elements*; NumPy's count bytes, more on that at the end.)
# The cell after the exercise prints the answer, once your function gives it,
# beside the one to compare it with.
# `hint("01", "contiguous_strides")` when you want a nudge.
#
# One corner case: a size of 0 counts as 1 in that computation, as in NumPy's
# `reshape`. An empty array has no elements, so no choice of strides can read
# a wrong one; counting 0 as 1 keeps every stride above 0, because a stride of
# 0 means something else (repeating one element, lesson 04). So `(3, 0, 2)`
# has strides `(2, 2, 1)`.

# %%
#| exercise: stridegrad.array.layout.contiguous_strides
#| hint: which axis moves fastest, and how far apart are its neighbours?

# %%
#| calls-exercise
# expect ((12, 4, 1), (6, 1), (), (6, 3, 1)): the last one is (5, 2, 3)'s
contiguous_strides((2, 3, 4)), contiguous_strides((4, 6)), contiguous_strides(()), contiguous_strides((5, 2, 3))

# %%
#| check: contiguous_strides

# %% [markdown]
# ## Exercise 3 · `index_to_offset`: from an index to a position
#
# With strides, finding an element is one sum: step `index[k]` times along
# each axis `k`, each step worth `strides[k]` positions, starting from
# `offset`, the position where the array starts: that of element `(0, 0, ...)`.
# It is 0 for a fresh array and becomes useful when we slice in the next
# lesson, where an array can start anywhere in the list.
#
# A word on names: in these functions' names, an "offset" is any position in
# the flat list, counted from its start. `index_to_offset` returns the
# element's position, and its argument `offset` is the array's own starting
# position; in `offset_to_index(offset, shape)` below, `offset` is an element's
# position again.
#
# Nothing in this function assumes row-major strides, and that is the point:
# the same sum reads transposed and sliced views later on.

# %%
#| exercise: stridegrad.array.layout.index_to_offset
#| hint: one step along axis k moves strides[k] positions; where is element (0, ..., 0)?

# %%
#| calls-exercise
strides = (12, 4, 1)  # the strides of shape (2, 3, 4), from the picture above
storage[index_to_offset((1, 2, 3), strides)], storage[index_to_offset((0, 1, 0), strides)]

# %%
#| check: index_to_offset

# %% [markdown]
# ## Exercise 4 · `offset_to_index`: and back
#
# The reverse question: which index sits at position 23 of a `(2, 3, 4)`
# array? Counting in the picture says `(1, 2, 3)`, and position 9 is
# `(0, 2, 1)`. Find a computation that gets there from 23 and the shape alone.
# It helps to remember how you would get the digits `1, 2, 3` out of the
# number 123 with `%` and `//`: `123 % 10` is `3`, the last digit, and
# `123 // 10` is `12`, the number without it; the same two steps on `12` give
# `2` and leave `1`, the first digit. The digits come out last first, each
# with base 10. Here each axis is a "digit" with its own base, its size.
#
# An offset outside `range(numel(shape))` has no index: raise a `ValueError`
# that names the offset and the shape. Your `numel` from exercise 1 helps.

# %%
#| exercise: stridegrad.array.layout.offset_to_index
#| hint: like reading the digits of a number: which axis does a remainder give first?

# %%
#| calls-exercise
[offset_to_index(k, (2, 3)) for k in range(6)]

# %%
#| check: offset_to_index

# %% [markdown]
# ## Stretch (optional) · `locate`: from a position back to an index, any strides
#
# `offset_to_index` answered "which index is at this position?" for a fresh
# row-major array only. Views (next lesson) have any strides: transposed,
# negative (a flipped axis), with gaps (every other element), even 0, and they
# start at any offset. Write `locate`, the inverse of `index_to_offset` for all
# of them. Only the contract below to go on; `hint("01", "locate")` when you
# want it. Its points are counted apart from the lesson's.

# %%
#| exercise: locate
#| hint: index_to_offset goes one way for any strides; which index lands on this position?
def locate(position, shape, strides, offset=0):
    """The index of the element of a strided view that sits at storage ``position``.

    The inverse of ``index_to_offset(index, strides, offset)`` over the indices of
    ``shape``, for any strides (negative, permuted, with gaps, or 0) and any
    starting ``offset``. Returns the index as a tuple of ints (``()`` for a 0-d
    view). When several indices share the position (a stride of 0, or strides
    that overlap), the first in row-major order.

    Raises:
        ValueError: naming the position, the shape and the strides, if no element
            of the view sits at ``position``.

    Example:
        >>> locate(5, (3, 2), (1, 3))            # a transposed (2, 3) array
        (2, 1)
        >>> locate(0, (4,), (-1,), offset=3)     # a flipped vector
        (3,)
    """
    ### BEGIN SOLUTION
    for k in range(numel(shape)):
        index = offset_to_index(k, shape)
        if index_to_offset(index, strides, offset) == position:
            return index
    raise ValueError(f"no element of the view with shape {tuple(shape)}, strides "
                     f"{tuple(strides)} and offset {offset} sits at position {position}")
    ### END SOLUTION

# %%
#| check: locate

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
# | `numel(shape)` | `a.size`, `math.prod(a.shape)` | `t.numel()` |
# | `contiguous_strides(shape)` | `a.strides` (in **bytes**: divide by `a.itemsize`) | `t.stride()` (in elements) |
# | `offset` | none: built into the data pointer¹ | `t.storage_offset()` |
# | `index_to_offset` | `np.ravel_multi_index` (C or Fortran order only, no arbitrary strides) | done in C++ for every element |
# | `offset_to_index` | `np.unravel_index` | `torch.unravel_index` |
#
# ¹ A NumPy array keeps the memory address of its element `(0, ..., 0)`, its
# **data pointer** (`a.ctypes.data`), instead of a block and an offset into it:
# a view that starts 5 elements in has a data pointer 5 × 8 = 40 bytes further
# along the same memory (for 8-byte numbers).
#
# NumPy counts strides in bytes because its buffer is raw memory: an `int64`
# array of shape `(2, 3, 4)` has strides `(96, 32, 8)`, which is ours times 8.

# %%
import numpy as np

a = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
print("strides in bytes:   ", a.strides)
print("strides in elements:", tuple(s // a.itemsize for s in a.strides))
print("ravel_multi_index:  ", int(np.ravel_multi_index((1, 2, 3), a.shape)))
print("unravel_index:      ", tuple(int(i) for i in np.unravel_index(23, a.shape)))

# %% [markdown]
# ## Going further
#
# 1. **Column-major.** Write `fortran_strides(shape)`, the strides when the
#    *first* index moves fastest (`(2, 3, 4) -> (1, 2, 6)`). Which of your four
#    functions still work unchanged with these strides, and which assume row-major?
# 2. **Size-0 dimensions.** `contiguous_strides((2, 0, 3))` counts the 0 as
#    a 1 and gives `(3, 3, 1)`, like PyTorch's `torch.empty(2, 0, 3).stride()`
#    and NumPy's `np.arange(0).reshape(2, 0, 3)` (byte strides `(24, 24, 8)`).
#    Yet NumPy 2's `np.empty((2, 0, 3)).strides` is `(0, 0, 0)`. Why are both
#    correct for an empty array, and why would a stride of 0 mean something
#    quite different in an array with elements (lesson 04)?
# 3. **Bytes.** A C library gives you a pointer to `float32` data, a shape and
#    byte strides. Write `byte_offset(index, byte_strides)`. A number is
#    **aligned** when its address is a multiple of its own size (4 bytes for a
#    `float32`); processors are built to load aligned numbers, and some refuse
#    the others. Which byte strides leave some elements misaligned, and what
#    does NumPy's `a.flags.aligned` say about such an array?
