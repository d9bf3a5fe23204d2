# %% [markdown]
# # 12 · Convolution through strides
#
# An MLP sees an 8 × 8 digit as 64 unrelated numbers: move the digit one pixel
# to the right and, for the network, every input has changed. A **convolution**
# looks at small windows instead, say 3 × 3 pixels, and applies the same few
# weights to every window. A stroke is a stroke wherever it is.
#
# Strides make this cheap. All the windows of an image are a **view** of it,
# with one more pair of strides and no copy. Lay the windows out as the columns
# of a matrix (**im2col**) and a whole convolution layer is **one matrix
# product**. Its backward pass adds each window's gradient back where the
# window was read (**col2im**), and pooling is a reduction over the same view.
#
# **By the end you can**
#
# - describe all the windows of an image as one view: its shape and strides
#   (`window_layout`);
# - build the im2col matrix of an image from that view with NumPy's
#   `as_strided`, in bytes (`im2col`);
# - compute a convolution with stride and padding as one matmul (`conv2d`);
# - run im2col backwards, adding overlapping windows up (`col2im`), and say why
#   that is the backward of the window view;
# - pool with the same view (`max_pool2d`);
# - train a CNN on the digits that beats lesson 09's MLP with seven times
#   fewer parameters, and look at what its filters learned.
#
# As before, each exercise is a function with its contract written: replace the
# `raise NotImplementedError(...)` line, run the cell, then run the `check` cell.

# %%
#| setup
from stridegrad.course import check, hint
import math
import numpy as np
from numpy.lib.stride_tricks import as_strided
import matplotlib.pyplot as plt
import stridegrad as sg
import stridegrad.nn.functional as F

# %% [markdown]
# ## A digit and its windows
#
# Here is the first digit of the data set of lesson 09, 8 × 8 pixels with
# values from 0 to 16. A 3 × 3 **window** slides over it: one pixel to the
# right at a time, and at the end of a row back to the left edge, one pixel
# down. It fits in 8 - 3 + 1 = 6 places per row and 6 per column, so there
# are 36 windows.

# %%
X_digits, y_digits = sg.data.load_digits()
digit = X_digits[0].reshape(8, 8).astype(np.float64)
print("label", y_digits[0], " shape", digit.shape, " strides in elements",
      tuple(s // digit.itemsize for s in digit.strides))

# %%
fig, axes = plt.subplots(1, 6, figsize=(11, 2.2))
for ax, (r, c) in zip(axes, [(0, 0), (0, 1), (0, 2), (0, 5), (1, 0), (5, 5)]):
    ax.imshow(digit, cmap="gray_r")
    ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 3, 3, fill=False, ec="C1", lw=2.5))
    ax.set_title(f"window ({r}, {c})", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
fig.suptitle("a 3 x 3 window sliding over the digit (36 places in all)", fontsize=10)
plt.show()

# %% [markdown]
# ## Windows as a view: one more pair of strides
#
# Window `(r, c)` is `digit[r:r+3, c:c+3]`. In the flat storage, pixel
# `(y, x)` sits at `8 * y + x`, so element `(i, j)` of window `(r, c)` is at
#
# `8 * (r + i) + (c + j)  =  8 * r + 1 * c + 8 * i + 1 * j`.
#
# That is a view with **four** indices `(r, c, i, j)`, shape `(6, 6, 3, 3)`
# and strides `(8, 1, 8, 1)`: the image's own strides, then the same pair
# again. Moving to the next window moves one pixel; moving inside a window
# moves one pixel too. Neighbouring windows share cells, which is why this
# view reads some storage cells nine times (lesson 02 warned about
# overlapping views: never write through one).
#
# Windows that jump by `(sh, sw)` pixels multiply the first pair by the step:
# strides `(8 * sh, 1 * sw, 8, 1)`. The number of windows along an axis of
# size `n` is how many steps fit: `(n - k) // s + 1`.
#
# The picture shows the storage cells of the first two windows of a 4 × 4
# image with 2 × 2 windows, numbered in the order the view reads them.

# %%
from stridegrad.viz import storage_picture

fig, axes = plt.subplots(2, 1, figsize=(8, 2.6))
storage_picture((1, 1, 2, 2), (4, 1, 4, 1), 0, storage_size=16, ax=axes[0],
                title="window (0, 0) of a 4 x 4 image: strides (4, 1, 4, 1)")
storage_picture((1, 1, 2, 2), (4, 1, 4, 1), 1, storage_size=16, ax=axes[1],
                title="window (0, 1): the same view, one cell further on")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Exercise 1 · `window_layout`: the shape and strides of all windows
#
# Given the layout of an array whose **last two** axes are an image, return
# the layout of the view of all its windows: the leading axes (channels, a
# batch) keep their sizes and strides, the image axes become the window
# counts, and the window axes are appended. Strides are in **elements**, as in
# lesson 02, and may be anything (a transposed image too).

# %%
#| exercise: stridegrad.nn.im2col.window_layout
#| hint: how far apart in storage are neighbouring windows, and neighbours inside one window?


# %%
#| calls-exercise
print("3 x 3 windows of the digit:    ", window_layout((8, 8), (8, 1), (3, 3)))
print("2 x 2 windows, 2 apart:        ", window_layout((8, 8), (8, 1), (2, 2), (2, 2)))
print("a (C, H, W) batch of channels: ", window_layout((3, 8, 8), (64, 8, 1), (3, 3)))

# %%
#| check: window_layout

# %% [markdown]
# NumPy makes any layout into a view with `as_strided`. Its strides are in
# **bytes**, so multiply by the item size (8 for `float64`). The result reads
# the digit's own memory: window `(2, 3)` is `digit[2:5, 3:6]`, and nothing
# was copied.

# %%
#| calls-exercise
shape, strides = window_layout(digit.shape, (8, 1), (3, 3))
windows = as_strided(digit, shape, tuple(s * digit.itemsize for s in strides), writeable=False)
print("windows", windows.shape, " byte strides", windows.strides)
print("window (2, 3) is digit[2:5, 3:6]:", np.array_equal(windows[2, 3], digit[2:5, 3:6]))
print("shares the digit's memory:", np.shares_memory(windows, digit))

# %% [markdown]
# `as_strided` trusts you completely: a wrong stride reads whatever memory
# lies there, garbage or a crash. `stridegrad.array.as_strided` and NumPy's
# `sliding_window_view` check the layout first; this lesson uses NumPy's raw
# version with layouts your `window_layout` has computed and the checkpoint
# has checked.

# %% [markdown]
# ## im2col: a reshape of the view
#
# A filter is a 3 × 3 grid of weights. Its response at window `(r, c)` is the
# dot product of the weights with the window's nine pixels. Every window uses
# the same weights, so line the windows up as the **columns** of a matrix:
# row `(i, j)` holds pixel `(i, j)` of every window, column `r * OW + q` holds
# the whole window `(r, q)`. For an image with `C` channels the rows are
# `(c, i, j)`:
#
# `cols[c * kh * kw + i * kw + j, r * OW + q]  =  x[c, r * sh + i, q * sw + j]`
#
# That is the window view `(C, OH, OW, kh, kw)` with its axes permuted to
# `(C, kh, kw, OH, OW)` and reshaped to `(C * kh * kw, OH * OW)`. The permute
# is free (lesson 02); the reshape cannot be a view when the windows overlap
# (lesson 02's `reshape_strides` would say `None`), so this is the one place
# where the data is copied: up to `kh * kw` times the image. Here the digit's
# 64 pixels become 36 windows of 9, 324 numbers; with the padding that keeps
# the size 8 × 8 (below), 64 windows of 9, 576 numbers: 9 times the image. In
# some layouts the reshape *can* be a view: a 1 × 1 kernel, or a single window
# that covers the whole image. So copy explicitly (`np.array(...)`) to be sure
# the columns never share memory with the image.
# PyTorch calls the result `unfold`. After the exercise, a picture of the
# digit's 36 windows, one per column.

# %% [markdown]
# ## Exercise 2 · `im2col`: the windows as columns
#
# Write it with `window_layout` and `as_strided`, reading `x` through its own
# strides, so that a transposed view works too. Mind the units: `x.strides`
# counts **bytes** (lesson 01), while `window_layout` takes and gives strides
# in **elements**, like every layout function of this course, and NumPy's
# `as_strided` wants bytes again. `x.itemsize`, the bytes of one element,
# converts between the two. `np.ascontiguousarray` is not needed and would
# hide a stride bug.

# %%
#| exercise: stridegrad.nn.im2col.im2col
#| hint: window_layout gives the window view with no copy: which axes become rows, which columns?


# %%
#| calls-exercise
cols = im2col(digit[None], (3, 3))
print("im2col of the digit:", cols.shape, " column 0 is window (0, 0):",
      np.array_equal(cols[:, 0], digit[0:3, 0:3].ravel()))
fig, ax = plt.subplots(figsize=(9, 2.4))
ax.imshow(cols, cmap="gray_r", aspect="auto")
ax.set_xlabel("window r * 6 + q")
ax.set_ylabel("pixel i * 3 + j")
ax.set_title("the digit's 36 windows as columns")
plt.show()

# %%
#| check: im2col

# %% [markdown]
# ## Convolution as one matmul
#
# A convolution layer has `OC` filters, each `(C, kh, kw)`: a weight of shape
# `(OC, C, kh, kw)`. Flattened to `(OC, C * kh * kw)`, each filter is a row in
# the same `(c, i, j)` order as the rows of `cols`, so
#
# `weight.reshape(OC, -1) @ cols` has shape `(OC, OH * OW)`:
#
# every filter against every window, in one call to BLAS. Row `o` is the
# `o`-th output channel, the **feature map** of filter `o`, ready to be
# reshaped to `(OC, OH, OW)`. Add one bias per output channel.
#
# Two details. Deep-learning "convolution" does not flip the kernel: it is a
# cross-correlation, `out[o, r, q] = sum x[:, r + i, q + j] * w[o, :, i, j]`
# (a true convolution flips `w`; since the weights are learned, nobody
# minds). And **padding** `p` puts `p` rings of zeros around the image first,
# so that a 3 × 3 filter with `p = 1` keeps the size 8 × 8. NumPy's `np.pad`
# does it, with one pair of widths `(before, after)` per axis:
# `np.pad(x, ((0, 0), (p, p), (p, p)))` pads the rows and the columns and
# leaves the channel axis alone. A bare `np.pad(x, p)` would pad every axis,
# the channels too, and the image would no longer match the weight.
#
# A weight whose channel count differs from the input's cannot be applied.
# NumPy would only complain about a matmul; a good error names the layer's
# view of the problem: `conv2d: input has 3 channels but weight (8, 1, 3, 3)
# expects 1`.

# %% [markdown]
# ## Exercise 3 · `conv2d`: pad, im2col, one matmul

# %%
#| exercise: stridegrad.nn.im2col.conv2d
#| hint: im2col makes each window a column: what does a flattened weight row do to a column?


# %% [markdown]
# Three hand-made filters on the digit: one that answers to the left edge of a
# vertical stroke (dark to the right of light), one for the top edge of a
# horizontal stroke, and a blur. Each gives one feature map (red: a left or
# top edge, blue: a right or bottom edge); with `padding=1` the maps keep the
# 8 × 8 size.

# %%
#| calls-exercise
filters = np.array([[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]],
                    [[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                    [[1, 1, 1], [1, 1, 1], [1, 1, 1]]], dtype=np.float64)[:, None] / 9
maps = conv2d(digit[None], filters, padding=1)
print("feature maps", maps.shape)
fig, axes = plt.subplots(1, 4, figsize=(10, 2.6))
axes[0].imshow(digit, cmap="gray_r")
axes[0].set_title("the digit")
for ax, fmap, name in zip(axes[1:], maps, ["vertical edges", "horizontal edges", "blur"]):
    ax.imshow(fmap, cmap="RdBu_r", vmin=-np.abs(fmap).max(), vmax=np.abs(fmap).max())
    ax.set_title(name)
for ax in axes:
    ax.axis("off")
plt.show()

# %% [markdown]
# This function is the library's: `F.conv2d` on NumPy runs it,
# `stridegrad.nn.im2col.conv2d`, on each image of a batch, with autograd
# around it (a 3 × 3 kernel moved by 1 has a faster path of its own, held to
# the same answers by the tests). The two agree (to rounding):

# %%
#| calls-exercise
mine = conv2d(digit[None], filters, padding=1)
lib = F.conv2d(sg.tensor(digit[None, None]), sg.tensor(filters), padding=1).numpy()[0]
print("same as sg.nn.functional.conv2d:", np.allclose(lib, mine))
try:
    conv2d(np.zeros((3, 4, 4)), np.zeros((8, 1, 3, 3)))
except ValueError as err:
    print("ValueError:", err)

# %%
#| check: conv2d

# %% [markdown]
# ## The backward: col2im, a scatter-add
#
# Write the layer as `out = W @ cols`. Lesson 08's matmul rule gives both
# gradients at once: `dW = dout @ cols.T` and `dcols = W.T @ dout`. The input
# gradient needs one step more, from `dcols` back to `dx`.
#
# Each entry of `cols` is a copy of one pixel; a pixel inside the image was
# copied into up to `kh * kw` columns (one per window that covers it). A value
# used several times gets the **sum** of the gradients of its uses (lesson
# 06). So `dx` is built by walking `dcols` like `cols` was built and
# **adding** each entry to the pixel it came from. That is **col2im**, a
# scatter-add: where windows overlap, the contributions add up; a pixel no
# window reads gets 0.
#
# Because im2col only copies, col2im is exactly its transpose: im2col is a
# matrix `M` of zeros and ones (`cols = M @ x.ravel()`) and col2im is `M.T`.
# In the library this col2im is `stridegrad.nn.im2col.col2im`: the backward of
# `F.conv2d` on NumPy reaches it through `conv2d_input_grad` (exercise 6), and
# `F.max_pool2d`'s backward calls it. On the other devices the window view's
# backward (`stridegrad/nn/conv.py`) does the same `kh * kw` strided slice
# additions.

# %% [markdown]
# ## Exercise 4 · `col2im`: add every window back
#
# Build `dx` (zeros of the image's shape) and add every entry of `cols` back to
# the pixel it was copied from. A loop over all `C * kh * kw * OH * OW` entries
# works but is slow; the row of `cols` for one kernel offset `(c, i, j)` lands
# on a regular pattern of pixels, so a few strided slices can do it all.
# (`np.add.at` works too, and is slower.) Leave `cols` as it is.

# %%
#| exercise: stridegrad.nn.im2col.col2im
#| hint: im2col copied an element into every window covering it; the transpose adds the copies back


# %% [markdown]
# With `dcols` all ones, col2im counts how many windows read each pixel. For
# the digit's 3 × 3 windows:

# %%
#| calls-exercise
coverage = col2im(np.ones((9, 36)), (1, 8, 8), (3, 3))
print(coverage[0].astype(int))

# %% [markdown]
# The centre pixels are read by all nine windows that cover them, the corners
# by one. That is also the gradient every pixel gets when the loss is the sum
# of all windows' sums, and why a pixel at the border has less say in what a
# convolution learns (padding evens it out).
#
# "Transpose" can be checked without building `M`: for any `x` and `g`, the
# dot products `<im2col(x), g>` and `<x, col2im(g)>` must be equal.

# %%
#| calls-exercise
rng = np.random.default_rng(0)
x_r, g_r = rng.integers(-5, 6, (2, 7, 6)).astype(float), rng.integers(-5, 6, (18, 6)).astype(float)
print("<im2col(x), g> =", np.sum(im2col(x_r, (3, 3), (2, 2)) * g_r),
      "  <x, col2im(g)> =", np.sum(x_r * col2im(g_r, x_r.shape, (3, 3), (2, 2))))

# %%
#| check: col2im

# %% [markdown]
# ## Pooling: a reduction over the window view
#
# A **max-pool** keeps the largest value of each window, usually 2 × 2
# windows two apart (the stride defaults to the kernel size), so it halves the
# height and the width. It makes the map smaller and a little insensitive to
# where exactly a feature was. With the window view it is one reduction over
# the two window axes, and no copy at all.
#
# Its backward sends each window's gradient to the pixel that held the
# maximum (the others did not change the output). On NumPy the library runs
# this `max_pool2d` once on all the batch's channels, and its backward sends
# each window's gradient back with `col2im`; on the other devices `max` over
# the view's two window axes has a backward already (lesson 08).

# %% [markdown]
# ## Exercise 5 · `max_pool2d`

# %%
#| exercise: stridegrad.nn.im2col.max_pool2d
#| hint: a window view again, with the maximum instead of a dot product


# %%
#| calls-exercise
print(max_pool2d(np.arange(16.0).reshape(1, 4, 4), (2, 2)))
pooled = max_pool2d(np.maximum(maps, 0), (2, 2))
fig, axes = plt.subplots(1, 2, figsize=(5, 2.4))
axes[0].imshow(np.maximum(maps[0], 0), cmap="Reds")
axes[0].set_title("vertical edges, ReLU", fontsize=9)
axes[1].imshow(pooled[0], cmap="Reds")
axes[1].set_title("max-pooled 2 x 2: 4 x 4", fontsize=9)
for ax in axes:
    ax.axis("off")
plt.show()

# %%
#| check: max_pool2d

# %% [markdown]
# ## A CNN that beats the MLP
#
# The library has all of this as layers: `sg.nn.Conv2d`, `sg.nn.MaxPool2d`,
# `sg.nn.Flatten` (this lesson's functions, with autograd).
# Our CNN is one convolution with 8 filters of 3 × 3, ReLU, a 2 × 2 max-pool
# and a linear layer: `(N, 1, 8, 8) -> (N, 8, 8, 8) -> (N, 8, 4, 4) -> 128 ->
# 10`. Lesson 09's MLP `64 -> 128 -> 10` is trained next to it, on the same
# split, with the same loader and optimizer (SGD with momentum 0.9 and a
# learning rate that decays along a cosine, from lesson 09's 0.05 for the
# MLP and from 0.1 for the CNN), for 8 epochs each.
#
# We train in `float64` so that the result is the same on every CPU: in
# `float32` a different summation order inside BLAS can change a few
# predictions.

# %%
X = (X_digits / 16.0).astype(np.float64)
X_train, X_test, y_train, y_test = sg.data.train_test_split(X, y_digits, test_size=0.2, seed=0)
images_train, images_test = X_train.reshape(-1, 1, 8, 8), X_test.reshape(-1, 1, 8, 8)


def train(model, inputs, epochs=8, lr=0.1):
    """Minibatch SGD with momentum and cosine decay; the loader's seed is fixed."""
    opt = sg.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for epoch in range(epochs):
        opt.lr = lr * 0.5 * (1 + math.cos(math.pi * epoch / epochs))
        for xb, yb in sg.data.DataLoader((inputs, y_train), batch_size=32, shuffle=True,
                                         seed=epoch):
            loss = F.cross_entropy(model(sg.tensor(xb)), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model


def accuracy(model, inputs, y):
    with sg.no_grad():
        return float((model(sg.tensor(inputs)).numpy().argmax(axis=1) == y).mean())


f64 = sg.float64
sg.manual_seed(0)
mlp = train(sg.nn.Sequential(sg.nn.Linear(64, 128, dtype=f64), sg.nn.ReLU(),
                             sg.nn.Linear(128, 10, dtype=f64)), X_train, lr=0.05)
sg.manual_seed(0)
cnn = train(sg.nn.Sequential(sg.nn.Conv2d(1, 8, 3, padding=1, dtype=f64), sg.nn.ReLU(),
                             sg.nn.MaxPool2d(2), sg.nn.Flatten(),
                             sg.nn.Linear(8 * 4 * 4, 10, dtype=f64)), images_train)
print(cnn)

# %%
results = {"MLP": accuracy(mlp, X_test, y_test), "CNN": accuracy(cnn, images_test, y_test)}
for name, model in [("MLP", mlp), ("CNN", cnn)]:
    n_params = sum(math.prod(p.shape) for p in model.parameters())
    print(f"{name}: {n_params:5d} parameters, test accuracy {results[name]:.3f}")
print("the CNN beats the MLP:", "yes" if results["CNN"] > results["MLP"] else "no")

# %% [markdown]
# Seven times fewer parameters, and better. The convolution shares its 80
# numbers across all 64 positions, so what it learns about a stroke at one
# place it knows everywhere; the MLP must learn each place on its own. The
# command `stridegrad train digits --model cnn` trains a deeper one (two
# convolution stages, 15 epochs) to over 98 % on the same split.
#
# Here are the 8 learned filters and the feature maps they make from the test
# set's first digit (after the ReLU):

# %%
weights = cnn[0].weight.numpy()[:, 0]
with sg.no_grad():
    fmaps = cnn[1](cnn[0](sg.tensor(images_test[:1]))).numpy()[0]
fig, axes = plt.subplots(2, 9, figsize=(12, 2.9))
axes[0, 0].imshow(images_test[0, 0], cmap="gray_r")
axes[0, 0].set_title(f"digit {y_test[0]}", fontsize=9)
axes[1, 0].axis("off")
for k in range(8):
    axes[0, k + 1].imshow(weights[k], cmap="RdBu_r", vmin=-np.abs(weights).max(),
                          vmax=np.abs(weights).max())
    axes[0, k + 1].set_title(f"filter {k}", fontsize=9)
    axes[1, k + 1].imshow(fmaps[k], cmap="Reds")
for ax in axes.ravel():
    ax.set_xticks([])
    ax.set_yticks([])
axes[1, 1].set_ylabel("feature map", fontsize=9)
plt.show()

# %% [markdown]
# ## Exercise 6 · `conv2d_input_grad`
#
# Only the contract this time. Use the section on the backward, and your
# `col2im`. The cell right after the exercise compares your answer with the
# library's autograd on a random example and prints `True` when they agree;
# the `check` cell after that runs the exercise's tests, most of them worth 2
# points, twice the usual.

# %%
#| exercise: stridegrad.nn.im2col.conv2d_input_grad
#| hint: conv2d was weight @ im2col(padded x): go back through each step in reverse


# %%
#| calls-exercise
rng = np.random.default_rng(1)
x_t = sg.tensor(rng.normal(size=(1, 2, 7, 7)), requires_grad=True)
w_t = sg.tensor(rng.normal(size=(3, 2, 3, 3)))
g = rng.normal(size=(3, 4, 4))
(F.conv2d(x_t, w_t, stride=2, padding=1) * sg.tensor(g[None])).sum().backward()
mine = conv2d_input_grad(g, w_t.numpy(), (2, 7, 7), stride=2, padding=1)
print("matches the library's autograd:", np.allclose(mine, x_t.grad.numpy()[0]))

# %%
#| check: conv2d_input_grad

# %% [markdown]
# ## Stretch (optional) · `conv2d_weight_grad`
#
# Training a convolution needs the gradient with respect to its *weight* as
# well: how the loss changes when one kernel entry changes. Derive it from the
# same `weight @ im2col(x)` picture, and write it with your `im2col`. Only the
# contract below to go on; `hint("12", "conv2d_weight_grad")` when you want it.
# Its points are counted apart from the lesson's.

# %%
#| exercise: conv2d_weight_grad
#| hint: conv2d was weight @ im2col(padded x): which factor does the weight's gradient need?
def conv2d_weight_grad(x, grad_out, weight_shape, stride=1, padding=0):
    """The gradient of ``conv2d`` with respect to its weight.

    Shape contract: ``x`` ``(C, H, W)``, ``grad_out`` ``(OC, OH, OW)`` (the shape
    ``conv2d(x, weight, None, stride, padding)`` has), ``weight_shape = (OC, C,
    kh, kw)`` -> a new ``(OC, C, kh, kw)`` array: the gradient with respect to
    ``weight`` of ``np.sum(grad_out * conv2d(x, weight, None, stride, padding))``.
    ``x`` and ``grad_out`` (any layout: views too) share one float dtype, which
    the result keeps; ``stride`` and ``padding`` are ints, the same for both axes.

    Raises:
        ValueError: naming both shapes, if ``grad_out`` does not have the shape of
            that convolution's output.
    """
    ### BEGIN SOLUTION
    oc, c, kh, kw = weight_shape
    xp = np.pad(x, ((0, 0), (padding, padding), (padding, padding)))
    oh, ow = (xp.shape[1] - kh) // stride + 1, (xp.shape[2] - kw) // stride + 1
    if grad_out.shape != (oc, oh, ow):
        raise ValueError(f"conv2d_weight_grad: grad_out has shape {grad_out.shape}, but x of "
                         f"shape {x.shape} and weight {tuple(weight_shape)} give {(oc, oh, ow)}")
    cols = im2col(xp, (kh, kw), (stride, stride))
    return (grad_out.reshape(oc, oh * ow) @ cols.T).reshape(oc, c, kh, kw)
    ### END SOLUTION

# %%
#| check: conv2d_weight_grad

# %% [markdown]
# ## Checkpoint

# %%
#| check: all

# %% [markdown]
# ## Milestone: your convolution trains the CNN
#
# On NumPy the library's `F.conv2d` and `F.max_pool2d` run your
# `window_layout`, `im2col`, `conv2d`, `col2im`, `max_pool2d` and
# `conv2d_input_grad` once they pass (`stridegrad.nn.im2col`, image by
# image; only with none of yours in place does a 3x3, stride-1 layer take a
# faster path of the library's own, checked against these). The cell below
# swaps in each of your functions that passes its checkpoint, trains the CNN
# of `stridegrad train digits --model cnn` (two convolutions of 16 and 32
# filters, each with a max-pool: one more than above) on the digits for 12
# epochs, and measures it on the 360 test images: the goal is 97%. It
# reads your *saved* notebooks: save this one first (Ctrl+S). Its report
# names which of your functions did the work, and which were the library's
# own and why; `stridegrad train digits --model cnn --yours` trains it with
# the full recipe (15 epochs) on your library.

# %% tags=["nbval-ignore-output"]
from stridegrad.course.milestones import milestone

milestone("12");

# %% [markdown]
# ## Where this is in PyTorch and NumPy
#
# | here | NumPy | PyTorch |
# |---|---|---|
# | `window_layout` + `as_strided` | `np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(-2, -1))` (checked), `as_strided` (unchecked, strides in **bytes**) | `x.unfold(dim, size, step)` (a view, one axis at a time), `torch.as_strided` (elements) |
# | `im2col` | (none: the reshape of that view) | `torch.nn.functional.unfold(x, kernel_size, stride=..., padding=...)`: `(N, C * kh * kw, L)`, the same row order |
# | `col2im` | `np.add.at` | `torch.nn.functional.fold(cols, output_size, kernel_size)` (adds overlaps) |
# | `conv2d` | (none; `scipy.signal.correlate2d` for one channel) | `torch.nn.functional.conv2d(x, w, b, stride, padding)`, `nn.Conv2d` |
# | `max_pool2d` | `sliding_window_view(...).max(axis=(-2, -1))` | `torch.nn.functional.max_pool2d(x, kernel_size, stride)`, `nn.MaxPool2d` |
# | `conv2d_input_grad` | | `torch.nn.grad.conv2d_input`, or autograd |
#
# NumPy's `sliding_window_view` gives the window view of exercise 1 with
# byte strides; for `float64` they are eight times yours:

# %%
from numpy.lib.stride_tricks import sliding_window_view

view = sliding_window_view(digit, (3, 3))
print("sliding_window_view:", view.shape, " byte strides", view.strides,
      " element strides", tuple(s // 8 for s in view.strides))
print("window (2, 3) is digit[2:5, 3:6]:", np.array_equal(view[2, 3], digit[2:5, 3:6]),
      " a view:", np.shares_memory(view, digit))

# %% [markdown]
# **How cuDNN chooses.** On a GPU, PyTorch hands `conv2d` to NVIDIA's cuDNN,
# which has several algorithms for the same result and picks one per layer
# shape (with `torch.backends.cudnn.benchmark = True` it times them on the
# first call and remembers the fastest):
#
# - **im2col, implicit GEMM.** This lesson's method, but without writing the
#   column matrix to memory: the matmul kernel computes each window's
#   addresses as it loads tiles (the window view, in the kernel's index math).
#   It works for every shape, stride and padding. cuDNN also has the explicit
#   version (`GEMM`, which writes the column matrix into a workspace) and one
#   that precomputes the window offsets (`IMPLICIT_PRECOMP_GEMM`).
# - **Winograd.** For small kernels (3 × 3) at stride 1: a transform of
#   input tiles and filters turns each 2 × 2 (or 4 × 4) output tile into fewer
#   multiplications (16 instead of 36 for `F(2x2, 3x3)`), at the price of a
#   little numerical accuracy.
# - **FFT.** Convolution is a product in the frequency domain; it pays off
#   for large kernels, where the `kh * kw` factor of im2col hurts.
#
# This is why a GPU convolution's last digits can change between runs or
# machines (and why `torch.backends.cudnn.deterministic` exists). On the CPU,
# PyTorch uses oneDNN where it is available, which makes similar choices, and
# otherwise its own im2col and a GEMM.

# %% [markdown]
# ## Going further
#
# 1. **Batch it.** Make `im2col` take `(N, C, H, W)` and give `(N, C * kh *
#    kw, OH * OW)`, then `conv2d` a batch with one batched matmul (lesson 05).
#    `stridegrad/nn/conv.py` does exactly this; compare.
# 2. **The bias gradient, and all three checked.** The stretch gave the
#    weight's gradient. What is the bias's? Check your input, weight and bias
#    gradients against the library: `F.conv2d(...)`, `backward()`, then
#    `x.grad`, `weight.grad` and `bias.grad`.
# 3. **Memory.** How many times larger than the input is the im2col matrix of
#    a `(64, 56, 56)` layer with 3 × 3 windows? When does that matter, and
#    how does implicit GEMM avoid it?
# 4. **Dilation.** A dilated convolution reads every second pixel of a larger
#    window. Which strides of `window_layout` change? (PyTorch: `dilation=2`.)
