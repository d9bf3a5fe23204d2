# %% [markdown]
# # 00 · Welcome to stridegrad
#
# In this course you build a deep-learning library, starting from a flat
# Python list of numbers. One lesson at a time you add shapes and strides,
# views, elementwise maths, broadcasting, matrix multiplication, automatic
# differentiation and a training loop, until the same `Tensor` code trains a
# network on real handwritten digits, on your CPU with NumPy or on a GPU with
# CuPy.
#
# **By the end of this notebook you can**
#
# - say what you are going to build, and where each array backend fits;
# - work through a lesson: read, fill in an exercise, run `check()` and read
#   its table, ask `hint()` for help;
# - say what an array is made of (numbers in one flat block of bytes, a
#   shape, a dtype), compute all of it from a nested list (`flatten`,
#   `shape_of`, `dtype_of`, `to_bytes`), and have NumPy read your bytes;
# - run the course on your machine, on Binder or on Colab;
# - as an instructor, hand out the lessons and grade a folder of submissions.

# %%
#| setup
from stridegrad.course import check, hint
import matplotlib.pyplot as plt

# %% [markdown] requires="stridegrad.nn.MLP, stridegrad.optim.SGD, stridegrad.data.DataLoader"
# ## Where you are going
#
# This is the finished library at work: a small network learns to read 8 × 8
# images of handwritten digits, in a few seconds on NumPy (the cell's last line
# says how long it took on your machine). By lesson 09
# you will have written what it runs on: tensors, autograd (`loss.backward()`),
# linear layers, the cross-entropy loss and the optimizer step. Only the data
# helpers (`load_digits`, `DataLoader`) come ready-made. The loss printed is
# the last batch's, so it can go up a little while the accuracy climbs.

# %% tags=["nbval-ignore-output"]
#| requires: stridegrad.nn.MLP, stridegrad.optim.SGD, stridegrad.data.DataLoader
import time

import stridegrad as sg
from stridegrad import data, nn, optim

start = time.perf_counter()
sg.manual_seed(0)
X, y = data.load_digits()
X_train, X_test, y_train, y_test = data.train_test_split(X / 16.0, y, test_size=0.2, seed=0)
model = nn.MLP([64, 128, 10])
opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(5):
    for xb, yb in data.DataLoader((X_train, y_train), batch_size=32, shuffle=True, seed=epoch):
        loss = nn.functional.cross_entropy(model(sg.tensor(xb)), sg.tensor(yb))
        opt.zero_grad()
        loss.backward()
        opt.step()
    with sg.no_grad():
        predicted = model(sg.tensor(X_test)).argmax(axis=1).numpy()
    print(f"epoch {epoch + 1}: loss {loss.item():.3f}, test accuracy {(predicted == y_test).mean():.1%}")
print(f"trained in {time.perf_counter() - start:.1f} s on this machine")

# %% [markdown]
# ## How a lesson works
#
# A lesson is a notebook like this one: short explanations, code cells you
# run with **Shift + Enter**, pictures, and a few **exercises**. An exercise
# is one small function. Its signature and docstring are written for you; its
# body is a placeholder,
#
# ```python
# # YOUR CODE HERE
# raise NotImplementedError("a hint")
# ```
#
# which you replace with your own code. Cells that use an exercise you have not
# written yet show that `NotImplementedError`: that is expected, and "Run All"
# in JupyterLab carries on past them (they are tagged `raises-exception`).
#
# After each exercise comes a `check(...)` cell. It runs the lesson's tests on
# the function *you* defined in this notebook and shows a table: which tests
# pass, what was expected, what your function returned, and a hint. It never
# crashes your notebook, whatever your code does. Under the table comes the
# cell's value, the points you earned: in JupyterLab a grey line, `lesson 00,
# flatten:` then your points out of the exercise's; where the notebook is shown
# as plain text (a terminal, a text export) a bare number, your points alone,
# which is what nbgrader reads as the cell's partial credit. The tests live in the
# package's `course/checkpoints/` folder, one file per lesson (`ep00.py` for
# this one, `ep01.py`...);
# `import stridegrad.course.checkpoints as c; print(c.__path__[0])` prints where
# it is on your machine. Reading them is allowed and often helps.
#
# One rule: define the exercises yourself, with `def` in this notebook. A
# function that was not defined here (imported from the library or from any
# other module, or one that just calls the library's version) gets no credit;
# `check()` says so. In this lesson that goes for NumPy too: what NumPy does
# with a nested list is what you are writing.

# %% [markdown]
# ## Exercise 1 · `flatten`
#
# Nested lists are how we write arrays by hand, `[[1, 2, 3], [4, 5, 6]]`,
# but memory is flat. Write `flatten(data)`, which lists the numbers of a
# nested list in reading order, whatever the depth. A single number counts as
# an array with one element. This is how `stridegrad.array` turns the nested
# lists you give it into the flat storage that lesson 01 starts from.

# %%
#| exercise: flatten
#| hint: an item is a number or another list, to any depth: could flatten call itself on an item that is a list?
def flatten(data):
    """All the numbers of a nested list (of lists or tuples, to any depth), in
    reading (row-major) order, as a new list (the caller's lists are left as
    they were).

    Example:
        >>> flatten([[1, 2], [3, 4]])
        [1, 2, 3, 4]
        >>> flatten(5)
        [5]
    """
    ### BEGIN SOLUTION
    if isinstance(data, (list, tuple)):
        out = []
        for item in data:
            out.extend(flatten(item))
        return out
    return [data]
    ### END SOLUTION

# %%
#| calls-exercise
flatten([[1, 2, 3], [4, 5, 6]])

# %%
#| check: flatten

# %% [markdown]
# ### What a failing check looks like
#
# Here is a tempting but wrong `flatten`, which only handles one level of
# nesting. We check it explicitly by passing `namespace=`, so your own
# `flatten` is untouched. Read the table: each failing test names the call,
# what it expected and what came back; then the **cause**, when `check()`
# recognises the mistake (as it does here), or else a **hint** about what
# that test checks. One failing row may surprise you,
# `neither_changes_nor_shares_the_input`: the one-level flatten changes nothing,
# but the test also checks that the result shares no list with the input (a
# result holding one of the caller's lists changes when the caller changes that
# list), and a one-level flatten hands the inner lists of a deeper input back
# as they are.

# %%
def one_level_flatten(data):
    return [x for row in data for x in row]


check("00", "flatten", namespace={"flatten": one_level_flatten})

# %% [markdown]
# ### Hints come in levels
#
# The docstrings say *what* a function must do (shapes, errors, examples), not
# *how*: working that out is the exercise. When you are stuck, `hint("00",
# "flatten")` prints a nudge; calling it again prints the next level, up to
# the full idea in pseudo-code, and `level=k` jumps to level `k` (`flatten`
# has three; in later lessons some exercises have four). Take one level at a
# time and try again in between. When `check()` does not recognise your
# mistake, the first failing row of the exercise usually adds level 1 to its
# hint.

# %%
hint("00", "flatten")

# %% [markdown]
# ## Why flat?
#
# A nested list looks like an array, but it is not stored like one. A Python
# list holds **pointers**, 8 bytes each, to number objects that live elsewhere
# in memory, each a full Python object of its own (24 bytes for a float). Count
# it for a row of 1,000 floats:

# %%
import sys

row = [0.0] * 1000
for i in range(1000):
    row[i] = float(i)  # 1,000 distinct float objects
pointers = sys.getsizeof(row)  # the list: a small header and one pointer per item
objects = sum(sys.getsizeof(v) for v in row)
print(f"the list itself:    {pointers:7d} bytes")
print(f"the float objects:  {objects:7d} bytes")
print(f"per number:         {(pointers + objects) / len(row):7.1f} bytes, where 8 would do")

# %% [markdown]
# Four times the memory, and worse for speed: reading the numbers in order
# means following 1,000 pointers to 1,000 places. Every fast array library
# (NumPy, PyTorch, BLAS, a GPU) keeps the numbers themselves side by side in
# one flat block of slots instead, 8 bytes each for a float64. `flatten`
# gives you the numbers in the order of those slots, and Exercise 4's
# `to_bytes` will write the block itself. A flat block forgets two things the
# nested list knew, though: how the numbers were grouped, and what kind of
# number each one is. The next two
# exercises put both back.

# %% [markdown]
# ## Exercise 2 · `shape_of`: what flattening forgets
#
# `flatten` throws the nesting away: `[[1, 2, 3], [4, 5, 6]]` and
# `[[1, 2], [3, 4], [5, 6]]` flatten to the same six numbers. What tells the
# two apart is the **shape**, the size of each level from the outside in:
# `(2, 3)` and `(3, 2)`. With a flat block of numbers and a shape you can
# rebuild the nested list; that pair is what lesson 01 builds on.
#
# Write `shape_of(data)`. Before you do, settle two questions with the
# examples in the docstring: what is the shape of a single number, and of an
# empty list? And not every nested list *has* a shape: in `[[1, 2], [3]]` the
# rows disagree. NumPy refuses such a "ragged" list (`np.array([[1, 2], [3]])`
# is a `ValueError`); so do we, with a message that says which sizes clash.

# %%
#| exercise: shape_of
#| hint: the shape of a list is its length, then the shape every item shares
def shape_of(data):
    """The shape of a nested list: the size of each level, outermost first.

    A number (anything that is not a list or a tuple) has the shape ``()``.
    Returns a tuple of ints.

    Raises:
        ValueError: naming the two sizes (or shapes) that clash, if the items of
            one list do not all have the same shape.

    Example:
        >>> shape_of([[1, 2, 3], [4, 5, 6]])
        (2, 3)
        >>> shape_of(7), shape_of([]), shape_of([[], []])
        ((), (0,), (2, 0))
    """
    ### BEGIN SOLUTION
    if not isinstance(data, (list, tuple)):
        return ()
    shapes = [shape_of(item) for item in data]
    for other in shapes[1:]:
        if other != shapes[0]:
            raise ValueError(f"ragged nested list: items of shapes {shapes[0]} and {other}")
    return (len(data),) + (shapes[0] if shapes else ())
    ### END SOLUTION

# %%
#| calls-exercise
# expect ((2, 3), (3, 2), ()): same numbers, two shapes, and a lone number
shape_of([[1, 2, 3], [4, 5, 6]]), shape_of([[1, 2], [3, 4], [5, 6]]), shape_of(5)

# %%
#| check: shape_of

# %% [markdown]
# ## Exercise 3 · `dtype_of`: one type for every slot
#
# A block of slots holds bytes, not numbers: the same eight bytes mean
# one thing read as a float and another read as an integer. Here is the float
# `1.0` as it sits in memory, then the same bytes read as an integer. (Python's
# `struct` module turns numbers into bytes and back; in its formats `<` means
# "least significant byte first", the order x86 and ARM processors use, called
# **little-endian**: the last byte printed, `3f`, is the most significant one.
# Exercise 4 comes back to it.)

# %%
import struct

eight_bytes = struct.pack("<d", 1.0)  # "<d": an 8-byte float, low byte first
print(eight_bytes.hex(" "))
print(struct.unpack("<q", eight_bytes)[0])  # "<q": the same bytes as an 8-byte integer

# %% [markdown]
# So an array keeps one more thing beside its numbers and its shape: a
# **dtype**, the one type that every slot holds and that says how to read
# its bytes. NumPy picks it from the numbers you give it: the one type, of
# bool, int64 and float64, that can hold them all. `np.array([1, 2, 3])` is `int64` (on Windows, NumPy
# before 2.0 picked `int32`; we follow today's NumPy); `np.array([1, 2.5])`
# is `float64` (the 1 is stored as 1.0); `np.array([True, False])` is `bool`;
# `np.array([True, 2])` is `int64` (True is stored as 1).
#
# Write `dtype_of(flat)`, which names the dtype NumPy would pick for a flat
# list of Python bools, ints and floats. That is where it follows NumPy; for
# anything else it departs from it. NumPy makes an array of strings from
# `["a"]`, of Python objects from `[None]` and of complex numbers from `[1j]`,
# where `dtype_of` raises `TypeError`, as the docstring says; and NumPy stores
# an int too big for an int64 (`2**63` and up) as `uint64` or as an object,
# which this exercise leaves aside (the tests never ask). Before you start, run
# `isinstance(True, int)` in a cell of your own: the answer is a trap this
# exercise sets.

# %%
#| exercise: dtype_of
#| hint: bool, int, float: which of them can hold the other two?
def dtype_of(flat):
    """The name of the dtype NumPy gives an array of these Python bools, ints and
    floats: ``"bool"``, ``"int64"`` or ``"float64"``.

    The elements are Python bools, ints and floats, and the dtype is the one type
    that holds them all: bools alone give ``"bool"``; bools and ints give
    ``"int64"``; any float makes it ``"float64"``. An empty list gives NumPy's
    default, ``"float64"``.

    Raises:
        TypeError: naming the element and its type, for anything else in the list
            (a string, None, a complex number).

    Example:
        >>> dtype_of([1, 2, 3]), dtype_of([1, 2.5]), dtype_of([True, False])
        ('int64', 'float64', 'bool')
    """
    ### BEGIN SOLUTION
    rank = {bool: 0, int: 1, float: 2}
    for v in flat:
        if type(v) not in rank:
            raise TypeError(f"dtype_of: {v!r} (of type {type(v).__name__}) is not a bool, "
                            f"an int or a float")
    return ("bool", "int64", "float64")[max((rank[type(v)] for v in flat), default=2)]
    ### END SOLUTION

# %%
#| calls-exercise
# expect ('int64', 'float64', 'bool', 'int64')
dtype_of([1, 2, 3]), dtype_of([1, 2.5]), dtype_of([True, False]), dtype_of([True, 2])

# %%
#| check: dtype_of

# %% [markdown]
# ## Exercise 4 · `to_bytes`: the block itself
#
# Now the block of bytes. Write `to_bytes(flat, dtype)`, which packs the
# numbers into one `bytes` object the way NumPy lays out an array of that
# dtype: one slot per number, in order, every slot the same size, and every
# number stored as the dtype (in a `float64` block the int `1` is stored as
# `1.0`). The struct cell above packed one number with `struct.pack`; write
# `import struct` in your own function (or its cell) rather than count on that
# cell's import, which a restarted kernel has not run. The
# [format characters](https://docs.python.org/3/library/struct.html#format-characters)
# of Python's `struct` documentation name one for each kind of slot. Use
# their *standard* sizes, 8 bytes for `int64` and `float64` and 1 for `bool`
# (a format that starts with `<` uses them, and there a C `long`, `'l'`, is
# only 4 bytes; without `<`, struct uses your machine's own sizes, and `'l'`
# is 8 bytes on Linux but 4 on Windows), and put the
# least significant byte first (**little-endian**, the `<` again), as x86 and
# ARM processors do: then NumPy can read your block as it is. (`check()` shows
# bytes as `bytes.fromhex('02 01 00 ...')`, one pair of hex digits per byte,
# as `.hex(" ")` prints them.)

# %%
#| exercise: to_bytes
#| hint: one slot per number: which part of the call decides the slot, the dtype or the number?
def to_bytes(flat, dtype):
    r"""The numbers of ``flat`` as one block of bytes, laid out as NumPy lays out an
    array of ``dtype``: one slot per number, in order, each of the dtype's size
    (``"float64"`` and ``"int64"``: 8 bytes; ``"bool"``: 1), little-endian.

    Every number is stored as the dtype: in a ``"float64"`` block the int 1 takes
    the slot of 1.0. ``flat`` holds what ``dtype_of`` accepts, and ``dtype`` can
    hold all of it (``dtype_of(flat)`` does). No numbers give ``b""``. ``flat`` is
    left as it was.

    Raises:
        ValueError: naming ``dtype`` and the three dtypes it can be, for any other
            dtype, with numbers or without.

    Example:
        >>> to_bytes([1.0], "float64").hex(" ")
        '00 00 00 00 00 00 f0 3f'
        >>> to_bytes([1, 258], "int64").hex(" ")
        '01 00 00 00 00 00 00 00 02 01 00 00 00 00 00 00'
        >>> to_bytes([True, False], "bool")
        b'\x01\x00'
    """
    ### BEGIN SOLUTION
    import struct

    formats = {"bool": "?", "int64": "q", "float64": "d"}
    if dtype not in formats:
        raise ValueError(f"to_bytes: unknown dtype {dtype!r}: it must be 'bool', 'int64' "
                         f"or 'float64'")
    return struct.pack(f"<{len(flat)}{formats[dtype]}", *flat)
    ### END SOLUTION

# %%
#| calls-exercise
# expect '01 00 00 00 00 00 00 00 02 01 00 00 00 00 00 00':
# 258 = 1 * 256 + 2, so its low byte is 02 and the next one 01 (0x0102 in hex)
to_bytes([1, 258], "int64").hex(" ")

# %%
#| check: to_bytes

# %% [markdown]
# ## Your four functions make an array
#
# A block of bytes, a shape and a dtype: that is all an array is, and your
# functions compute each of them from a nested list. NumPy can take it from
# there. `np.frombuffer` reads a block of bytes as an array of a dtype, with
# no copy: the array *is* your block, read through its dtype and its shape.
# Change eight bytes of the block and the array changes:

# %%
#| calls-exercise
import struct

import numpy as np

nested = [[1, 2, 3], [4, 5, 6.5]]
flat = flatten(nested)
block = bytearray(to_bytes(flat, dtype_of(flat)))  # a bytearray can change in place
arr = np.frombuffer(block, dtype=dtype_of(flat)).reshape(shape_of(nested))
print(arr)
block[32:40] = struct.pack("<d", 50.0)  # slot 4 is bytes 32 to 39
print(arr)

# %%
# The array of the cell above as it was made (before slot 4 became 50.0), drawn:
# the shape groups the slots, the dtype says how to read their bytes
import struct

values, shape = [1.0, 2.0, 3.0, 4.0, 5.0, 6.5], (2, 3)  # flatten's and shape_of's answers
drawn = struct.pack("<6d", *values)  # what to_bytes(values, "float64") gives: 48 bytes
colors = plt.cm.Pastel1.colors

fig, ax = plt.subplots(figsize=(10, 3.8))
ax.set_xlim(-1, 49)
ax.set_ylim(-1.3, 6.6)
ax.axis("off")
for i in range(shape[0]):  # the array as you picture it: 2 rows of 3
    for j in range(shape[1]):
        slot = i * shape[1] + j
        x0, y0 = 15 + 6 * j, 5 - 1.3 * i
        ax.add_patch(plt.Rectangle((x0, y0), 6, 1.2, facecolor=colors[slot], edgecolor="black"))
        ax.text(x0 + 3, y0 + 0.6, f"[{i}, {j}]: {values[slot]}", ha="center", va="center")
ax.text(14, 4.4, "shape (2, 3):\nhow the slots are grouped", ha="right", va="center")
for k, byte in enumerate(drawn):  # the block as memory holds it: 6 slots of 8 bytes
    ax.add_patch(plt.Rectangle((k, 0), 1, 1.4, facecolor=colors[k // 8], edgecolor="grey", lw=0.5))
    ax.text(k + 0.5, 0.7, f"{byte:02x}", ha="center", va="center", fontsize=7, rotation=90)
for slot in range(len(values)):
    ax.text(8 * slot + 4, -0.5, f"slot {slot}: bytes {8 * slot}-{8 * slot + 7}",
            ha="center", va="center", fontsize=8)
ax.text(14, 2.4, "dtype float64: 8 bytes a slot, low byte first;\nthe block: 48 bytes in a row",
        ha="right", va="center")
ax.annotate("", xy=(36, 1.45), xytext=(24, 3.65), arrowprops={"arrowstyle": "->"})
ax.text(31, 2.7, "element [1, 1] is slot 4", ha="left", va="center")
plt.show()

# %% [markdown]
# Element `[1, 1]` lives in slot 4, because row 0 fills slots 0 to 2 and
# `1 · 3 + 1 = 4`. Finding an element's slot from its index, for any shape,
# is where lesson 01 begins.
#
# The library's own `stridegrad.array.asarray` does your first three steps
# when you give it a nested list, and stores every number as the dtype, as
# your `to_bytes` does (the int 1 becomes 1.0). It keeps them in a Python
# list rather than in bytes, because lessons 01 to 05 build on a list you
# can print and read:

# %%
#| calls-exercise
from stridegrad import array as sga

print("yours:  ", flatten(nested), shape_of(nested), dtype_of(flatten(nested)))
a = sga.asarray(nested)
print("library:", a.storage, a.shape, a.dtype)

# %% [markdown]
# ## One `Tensor`, three backends
#
# Everything you build sits on one idea: a `Tensor` asks an **array
# namespace** for its maths (`xp.add`, `xp.matmul`, `xp.sum`, ...) and never
# cares which one it gets. Lessons 01 to 05 build the first namespace
# yourself, in pure Python. NumPy and CuPy provide the other two, so the very
# same autograd and training code runs on a CPU or a GPU.
#
# The middle box of the picture, the **array API**, is what the three
# namespaces have in common: the same function names with the same rules
# (those of the Python Array API standard, which NumPy and CuPy follow, and so
# does the pure-Python one, for the functions it has). Which namespace a tensor uses is set by its
# **device**, a string you can pass when you make it:
# `sg.tensor(data, device="python")` keeps its numbers in the pure-Python arrays
# of lessons 01 to 05, `"cpu"` (the default) in NumPy arrays, and `"cuda"` in
# CuPy arrays on an NVIDIA GPU. Lesson 10 is about devices.

# %%
fig, ax = plt.subplots(figsize=(9, 4))
ax.set_xlim(0, 9)
ax.set_ylim(0, 4.2)
ax.axis("off")


def box(x, y, w, h, text, color):
    ax.add_patch(plt.Rectangle((x, y), w, h, facecolor=color, edgecolor="black"))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=10)


box(1.5, 3.1, 6, 0.9, "your model: Tensor, autograd, nn, optim\n(lessons 06-09)", "#fde9c9")
box(1.5, 1.75, 6, 0.8, "the array API: add, matmul, sum, reshape, ...", "#dbe9f7")
for k, (name, text) in enumerate([("python", "stridegrad.array\npure Python\nlessons 01-05"),
                                  ("cpu", "NumPy\nfast C loops"),
                                  ("cuda", "CuPy\nNVIDIA GPU")]):
    box(0.2 + 3 * k, 0.05, 2.6, 1.3, f'device="{name}"\n{text}', "#e3f4e1")
    ax.annotate("", xy=(1.5 + 3 * k, 1.35), xytext=(1.5 + 3 * k, 1.75),
                arrowprops={"arrowstyle": "->"})
ax.annotate("", xy=(4.5, 2.55), xytext=(4.5, 3.1), arrowprops={"arrowstyle": "->"})
plt.show()

# %% [markdown]
# ## Running the course
#
# - **On your machine**: clone {{repo_url}}, then `make lab` creates a virtual
#   environment, installs what the lessons need and opens JupyterLab here. With
#   `pip` instead: `pip install -e ".[course]"` and `stridegrad lab`.
#   `stridegrad doctor` tells you what your machine has (NumPy, a GPU, widgets).
# - **Your work is yours.** `stridegrad lab` opens your own copy of the lessons,
#   `my-lessons/` in the clone, which git ignores. When the course changes
#   (`git pull`), the next `stridegrad lab` adds the new lessons to your copy and
#   never overwrites one you edited: if an edited lesson changed in the course,
#   the new version is put beside yours as `NN_slug.updated.ipynb`, and it tells
#   you so. `stridegrad check 01` runs your copy of lesson 01 and prints its table.
# - **On Binder**, nothing to install: [open the lessons on Binder]({{binder_url}}).
#   The first start builds an image and can take a few minutes.
# - **On Colab**: [open this notebook in Colab]({{colab_url}}). The first cell
#   of every lesson installs `stridegrad` when it is missing, so run it first.
#   For a GPU, pick a GPU runtime; Colab usually has CuPy already, otherwise
#   `pip install cupy-cuda12x`.
#
# Every lesson starts with the same setup cell, and imports whatever the earlier
# lessons built from the finished library, so you can start at any lesson.

# %% [markdown]
# ## For instructors
#
# - `stridegrad lessons DIR` copies the lesson notebooks for your students;
#   the notebooks carry nbgrader cell metadata, so they also fit an nbgrader course.
# - Collect the work in nbgrader's layout,
#   `submitted/<student>/01_flat_storage/01_flat_storage.ipynb`, and grade the
#   whole folder with one command:
#
#   ```
#   stridegrad grade submitted --lesson 01 --out grades --roster class.txt --jobs 2
#   ```
#
#   You get `grades/gradebook.csv` (a row per student, a column per lesson, and
#   the total), `grades/01_flat_storage/grades.csv` (a row per student per
#   test) and one HTML feedback page per student. Grading the next lesson, or
#   one student again (`--student alice`), into the same folder adds to the
#   gradebook and loses nothing. Each notebook runs in a sandbox of its own
#   with time and memory limits, so a notebook that hangs, crashes or misbehaves
#   costs only its own points (`stridegrad grade --help` lists the limits and
#   their defaults). `--extra-tests my_tests.py` adds hidden tests of your own,
#   written like the files in `stridegrad/course/checkpoints/`.
# - `stridegrad check NOTEBOOK` runs a single notebook (a student's, say) and
#   prints the table of its tests, as `check()` shows it.

# %% [markdown]
# ## Stretch (optional) · `unflatten`
#
# The way back: given the flat list of numbers and a shape, rebuild the nested
# lists, so that `flatten(unflatten(flat, shape)) == flat`. This is what
# `np.reshape(flat, shape).tolist()` does. There is no walkthrough: the
# docstring is the whole contract, and `hint("00", "unflatten")` is there when
# you want it. It has its own points, counted apart from the lesson's.

# %%
#| exercise: unflatten
#| hint: the first size says how many items the outer list has; what is each of them?
def unflatten(flat, shape):
    """The nested lists of ``shape`` holding ``flat``'s numbers in reading (row-major)
    order: the inverse of ``flatten``.

    ``shape`` is a tuple of sizes; the empty shape ``()`` gives the one number
    itself. The result is new: it shares no list with ``flat``, and ``flat`` is
    left as it was.

    Raises:
        ValueError: naming the length of ``flat`` and the shape, if ``flat`` does not
            have exactly as many numbers as the shape holds.

    Example:
        >>> unflatten([1, 2, 3, 4, 5, 6], (2, 3))
        [[1, 2, 3], [4, 5, 6]]
        >>> unflatten([1, 2, 3, 4, 5, 6], (3, 2))
        [[1, 2], [3, 4], [5, 6]]
        >>> unflatten([7], ())
        7
    """
    ### BEGIN SOLUTION
    n = 1
    for d in shape:
        n *= d
    if len(flat) != n:
        raise ValueError(f"unflatten: {len(flat)} numbers cannot fill shape {tuple(shape)} "
                         f"({n} elements)")
    if not shape:
        return flat[0]
    step = n // shape[0] if shape[0] else 0
    return [unflatten(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]
    ### END SOLUTION

# %%
#| check: unflatten

# %% [markdown]
# ## Checkpoint
#
# `check("00")` runs the tests of every exercise of this lesson at once and
# shows one table: your points for the lesson, and apart from them the
# stretch's. Run it when you are done, or at any time to see what is left.

# %%
#| check: all

# %% [markdown]
# ## Where this is in NumPy and PyTorch
#
# The names were chosen so that what you learn here carries over. The training
# cell at the top reads almost line for line like a PyTorch program:
#
# | here | NumPy | PyTorch |
# |---|---|---|
# | `flatten(data)` | `np.asarray(data).ravel().tolist()` (numbers made one dtype) | `torch.tensor(data).flatten().tolist()` |
# | `shape_of(data)` | `np.asarray(data).shape` | `torch.tensor(data).shape` |
# | `dtype_of(flat)` | `np.asarray(flat).dtype.name` | `torch.tensor(flat).dtype` (floats: `float32`) |
# | `to_bytes(flat, dtype)` | `np.asarray(flat, dtype).tobytes()` (the machine's byte order) | `torch.tensor(flat, dtype=torch.float64).numpy().tobytes()` |
# | `sg.tensor(xb)` | `np.asarray(xb)` | `torch.tensor(xb)` |
# | `nn.MLP([64, 128, 10])` | — | `nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))` |
# | `nn.functional.cross_entropy` | — | `torch.nn.functional.cross_entropy` |
# | `optim.SGD(params, lr=0.05, momentum=0.9)` | — | `torch.optim.SGD(params, lr=0.05, momentum=0.9)` |
# | `data.DataLoader(...)` | — | `torch.utils.data.DataLoader(...)` |
# | `sg.no_grad()`, `loss.backward()` | — | `torch.no_grad()`, `loss.backward()` |
#
# NumPy's `asarray` flattens a nested list much as your `flatten` does, and it
# also checks that the list is rectangular, as your `shape_of` does:

# %%
import numpy as np

print(np.asarray([[1, 2, 3], [4, 5, 6]]).ravel().tolist())
try:
    np.asarray([[1, 2], [3]])
except ValueError as err:
    print("ValueError:", err)

# %% [markdown]
# ## Going further
#
# 1. **One pass instead of two.** `flatten` and `shape_of` each walk the whole
#    nested list. Write `to_storage(data)` that returns `(flat, shape)` in a
#    single walk, refusing ragged input as `shape_of` does. Which of the two
#    functions' recursions does it look like?
# 2. **Other sequences.** `flatten` and `shape_of` take tuples as well as
#    lists. What should they do with a `range`, a string or a generator? Try
#    `np.array` on each: which does it read as a sequence of numbers? Why
#    would a string never end a recursion (`"ab"[0]` is again a string)?
