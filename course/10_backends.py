# %% [markdown]
# # 10 · Backends: one Tensor, three devices
#
# Every `Tensor` you have made so far kept its numbers in a NumPy array. Nothing
# in the autograd code of lesson 08 depends on that: it asks the tensor's
# **device** for an **array namespace** (a module such as `numpy`) and then
# calls only functions of that module. Swap the module and the same code runs
# on pure Python lists, on NumPy, or on a GPU with CuPy.
#
# This lesson makes that promise concrete: the same training loop on three
# devices, the rules that make it possible (the Python **Array API standard**),
# and the two costs a GPU brings with it: moving data between host and device,
# and work that runs *asynchronously*, which makes naive timing lie.
#
# **By the end you can**
#
# - say which array namespace each device maps to, and find the one namespace of
#   a set of arrays, refusing to mix devices (`namespace_of`);
# - write a function that runs on any Array API library (`softmax(xp, x)`), and
#   use `array_api_strict` to catch NumPy-only habits;
# - run the same training loop on `"python"`, `"cpu"` and `"cuda"`, and pick a
#   device with a fallback (`pick_device`);
# - move an array back to the host from any device (`to_host`), and say what a
#   transfer costs;
# - time work on an asynchronous device correctly (`time_op`), and read a plot
#   of time against problem size to find the crossover where the faster
#   machine starts to win.
#
# No GPU is needed. The cells that use one say so and skip themselves when
# there is none; on a machine with an NVIDIA GPU and CuPy they run for real.

# %%
#| setup
from stridegrad.course import check, hint
import json
import math
import time

import matplotlib.pyplot as plt
import numpy as np

import stridegrad as sg
import stridegrad.array as sa
import stridegrad.nn.functional as F
from stridegrad import backend
from stridegrad.backend import device_available
from stridegrad.course.paths import repo_root

try:  # installed with the course's dev extras; Binder and Colab may not have it
    import array_api_strict
except ImportError:
    array_api_strict = None

CUDA_OK, CUDA_WHY = backend.device_available("cuda")  # (True, "") or (False, the reason)

# %% [markdown]
# ## A device names a namespace
#
# A tensor's data is an array of some library. Which library is decided by the
# device string, in `stridegrad.backend`:
#
# | device | array namespace `xp` | arrays live in |
# |---|---|---|
# | `"python"` | `stridegrad.array` (lessons 01-05) | Python lists, host memory |
# | `"cpu"` | `numpy` | one C buffer, host memory |
# | `"cuda"`, `"cuda:1"` | CuPy (through `array_api_compat.cupy`) | GPU memory |
#
# By convention the namespace is called `xp`: "some module that looks like
# `np`". CuPy is imported only when a cuda device is first used or asked
# about, so a program that never mentions cuda pays nothing for it;
# `device_available` says whether a device works here, and if not, why.

# %% tags=["nbval-ignore-output"]
for device in ("python", "cpu", "cuda"):
    ok, why = backend.device_available(device)
    if ok:
        print(f"{device:>6} -> {backend.get_namespace(device).__name__}")
    else:
        print(f"{device:>6} -> not here: {why}")

# %% [markdown]
# Every array also knows its own namespace: the standard asks each array type
# for a method `__array_namespace__()` that returns its module, and an
# attribute `device`. The same expression, `xp.sum(a * a)`, then works on each
# kind of array:

# %%
arrays = {"python": sa.asarray([1.0, 2.0, 3.0]), "cpu": np.asarray([1.0, 2.0, 3.0])}
if array_api_strict is not None:
    arrays["strict"] = array_api_strict.asarray([1.0, 2.0, 3.0])
for name, a in arrays.items():
    xp = a.__array_namespace__()
    print(f"{name:>6}: {type(a).__name__:<13} namespace {xp.__name__:<17} "
          f"device {str(a.device):<38} sum of squares {float(xp.sum(a * a))}")

# %% [markdown]
# A `Tensor` remembers its device and asks `backend.get_namespace(device)` for
# its `xp`. Two tensors on different devices cannot be combined: the numbers
# are in different places (on a real GPU, in different memories). The Tensor
# refuses with an error that names both devices, as PyTorch's does, instead of
# copying one of them silently. Moving is explicit, with `.to(device)`.

# %%
a = sg.tensor([1.0, 2.0], device="python")
b = sg.tensor([10.0, 20.0], device="cpu")
print(a.device, b.device)
try:
    a + b
except RuntimeError as err:
    print("RuntimeError:", err)
print(a + b.to("python"))

# %% [markdown]
# ## Exercise 1 · `namespace_of`: the one namespace of some arrays
#
# A function that takes several arrays must work out which `xp` to use, and
# must refuse arrays that live in different places. Write `namespace_of(*arrays)`:
#
# - ask each array for `x.__array_namespace__()`;
# - skip Python numbers (`bool`, `int`, `float`, `complex`): `x + 1.0` works in
#   every namespace, so they go with any of them;
# - anything else without `__array_namespace__` (a list, say) is a `TypeError`
#   that names its type;
# - two namespaces, or one namespace but two devices (`x.device`), is a
#   `RuntimeError` whose message names **both** namespaces (`xp.__name__`) or
#   both devices;
# - no array at all is a `ValueError`: there is nothing to answer.
#
# The library `array_api_compat` has this function as `array_namespace`;
# ours is stricter about devices. It also raises `TypeError` for two
# namespaces, where we raise `RuntimeError`, as PyTorch does for tensors on two
# devices: each array is of a fine type, and it is combining them at run time
# that fails. The cell imports nothing: it only needs
# what the arrays tell it.

# %%
#| exercise: namespace_of
#| hint: every array answers x.__array_namespace__(); what must hold for all of them together?
def namespace_of(*arrays):
    """The array namespace shared by ``arrays`` (Python numbers, ``bool``,
    ``int``, ``float`` and ``complex``, are skipped).

    Raises TypeError naming its type for an argument that is not an array (no
    ``__array_namespace__``); RuntimeError naming both namespaces (their
    ``__name__``) when the arrays come from two namespaces, or, all of one
    namespace, naming both devices when they are on two devices (devices are
    compared with ``==``); ValueError when there is no array at all.

    Example:
        >>> namespace_of(np.ones(2), 3.0) is np
        True
    """
    ### BEGIN SOLUTION
    xp = device = None
    for x in arrays:
        if isinstance(x, (bool, int, float, complex)):
            continue
        if not hasattr(x, "__array_namespace__"):
            raise TypeError(f"namespace_of: a {type(x).__name__} is not an array "
                            "(it has no __array_namespace__)")
        x_xp = x.__array_namespace__()
        if xp is None:
            xp, device = x_xp, x.device
        elif x_xp is not xp:
            raise RuntimeError(f"arrays from two namespaces: {xp.__name__} and {x_xp.__name__}")
        elif x.device != device:
            raise RuntimeError(f"arrays on two devices: {device} and {x.device}")
    if xp is None:
        raise ValueError("namespace_of: no array among the arguments")
    return xp
    ### END SOLUTION

# %%
#| calls-exercise
print(namespace_of(np.ones(3), 2.0).__name__)
print(namespace_of(sa.ones((2,)), sa.zeros((2, 2))).__name__)
try:
    namespace_of(np.ones(3), sa.ones((3,)))
except RuntimeError as err:
    print("RuntimeError:", err)

# %%
#| check: namespace_of

# %% [markdown]
# ## Why the Tensor is written against the Array API
#
# NumPy, CuPy, PyTorch and JAX each grew their own API. They are close, but
# not the same: `axis` or `dim`, `concatenate` or `cat`, methods that exist in
# one and not in another, different rules for mixing `float32` with a Python
# float. Code written for one of them runs on the others by luck, if at all.
#
# The **Python Array API standard** (data-apis.org) is the common part, written
# down with exact semantics: about 200 functions such as `xp.sum(x, axis=...,
# keepdims=...)`, `xp.matmul`, `xp.exp`, `xp.astype`, `xp.concat`, a handful
# of array attributes (`shape`, `dtype`, `device`, `mT`) and the operators.
# NumPy 2 implements it, CuPy and PyTorch through the small `array_api_compat`
# wrappers, and our `stridegrad.array` implements a subset. The Tensor's op
# code calls `xp.` functions and operators only, so it runs on all of them.
#
# How do you know that code really sticks to the standard? Run it on
# **`array_api_strict`**, an implementation of the standard and nothing more,
# written to fail loudly on anything outside it. Here is a softmax written
# with NumPy habits: fine on NumPy, and strict catches it.

# %%
def softmax_numpy_habits(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))  # a method, and np.exp
    return e / e.sum(axis=-1, keepdims=True)


print("NumPy:", softmax_numpy_habits(np.array([0.0, math.log(3.0)])))
if array_api_strict is None:
    print("array_api_strict is not installed here: pip install array-api-strict")
else:
    try:
        softmax_numpy_habits(array_api_strict.asarray([0.0, math.log(3.0)]))
    except AttributeError as err:
        print("array_api_strict: AttributeError:", err)

# %% [markdown]
# More habits that run on NumPy and nowhere else, and their portable spelling.
# Each row runs the habit and the portable form on NumPy and on
# `array_api_strict`:

# %%
habits = [  # (NumPy habit, the same in the standard)
    ("x.max(axis=0)", lambda xp, x: x.max(axis=0), "xp.max(x, axis=0)",
     lambda xp, x: xp.max(x, axis=0)),
    ("x.astype('float32')", lambda xp, x: x.astype("float32"), "xp.astype(x, xp.float32)",
     lambda xp, x: xp.astype(x, xp.float32)),
    ("x.reshape(-1)", lambda xp, x: x.reshape(-1), "xp.reshape(x, (-1,))",
     lambda xp, x: xp.reshape(x, (-1,))),
    ("x[[1, 0]]", lambda xp, x: x[[1, 0]], "xp.take(x, xp.asarray([1, 0]), axis=0)",
     lambda xp, x: xp.take(x, xp.asarray([1, 0]), axis=0)),
    ("xp.concatenate([x, x])", lambda xp, x: xp.concatenate([x, x]), "xp.concat([x, x])",
     lambda xp, x: xp.concat([x, x])),
]


def attempt(f, xp):
    try:
        f(xp, xp.asarray([[1.0, 2.0], [3.0, 4.0]]))
        return "ok"
    except Exception as err:
        return type(err).__name__


if array_api_strict is None:
    print("array_api_strict is not installed here: pip install array-api-strict")
else:
    print(f"{'NumPy habit':<22} {'numpy':>6} {'strict':>15}   {'standard':<40} {'numpy':>6} {'strict':>6}")
    for habit, f, portable, g in habits:
        print(f"{habit:<22} {attempt(f, np):>6} {attempt(f, array_api_strict):>15}   "
              f"{portable:<40} {attempt(g, np):>6} {attempt(g, array_api_strict):>6}")

# %% [markdown]
# Some habits do not raise at all, which is worse. `np.exp(x)` on a strict
# array quietly returns a *NumPy* array: the data has left its namespace (on a
# GPU that would be a copy to the host, if it worked). Our `stridegrad.array`
# refuses NumPy's functions outright, and CuPy refuses to be turned into a
# NumPy array without being asked (more on that below). The Tensor's own test
# suite runs on `array_api_strict` too, registered as a device: at the end of
# the next section you will see it train there.

# %% [markdown]
# ## Exercise 2 · `softmax(xp, x, axis=-1)`: code for any namespace
#
# Write softmax with nothing but `xp.` functions and operators, so that it
# runs on NumPy, `array_api_strict`, `stridegrad.array` and CuPy alike:
#
# $$\mathrm{softmax}(x)_i = \frac{e^{x_i - m}}{\sum_j e^{x_j - m}}, \qquad m = \max_j x_j$$
#
# along `axis`. Subtracting the maximum changes nothing mathematically (it
# cancels in the ratio) and keeps `exp` from overflowing: `exp(1000.0)` is
# `inf`. Reduce with `keepdims=True`, so that the max and the sum keep a
# size-1 axis and broadcast back against `x`. The result is an array of the
# same namespace, shape and dtype as `x`.

# %%
#| exercise: softmax
#| hint: exp(x) / sum(exp(x)) with xp's functions; what keeps exp from overflowing?
def softmax(xp, x, axis=-1):
    """Softmax of ``x`` along ``axis``, with only Array API calls on ``xp``.

    ``x`` is a float32 or float64 array of ``xp`` with at least one axis;
    ``axis`` is one axis, an int (negative counts from the end). Stable for
    large inputs (the maximum along ``axis`` is subtracted first, in each row
    its own). Returns a new array of ``xp`` with the shape and dtype of ``x``;
    ``x`` itself is left as it was.

    Example:
        >>> softmax(np, np.array([0.0, math.log(3.0)]))
        array([0.25, 0.75])
    """
    ### BEGIN SOLUTION
    m = xp.max(x, axis=axis, keepdims=True)
    e = xp.exp(x - m)
    return e / xp.sum(e, axis=axis, keepdims=True)
    ### END SOLUTION

# %%
#| calls-exercise
logits = [[1000.0, 1000.0 + math.log(3.0)], [0.0, 0.0]]
rounded = lambda rows: [[round(float(v), 6) for v in row] for row in rows]  # 6 digits, every row
print("numpy:           ", rounded(softmax(np, np.asarray(logits)).tolist()))
print("stridegrad.array:", rounded(softmax(sa, sa.asarray(logits)).tolist()))
if array_api_strict is not None:
    out = softmax(array_api_strict, array_api_strict.asarray(logits))
    print("array_api_strict:", type(out).__module__, rounded(np.asarray(out).tolist()))

# %%
#| check: softmax

# %% [markdown]
# ## The same training loop on every device
#
# Here is a full-batch training loop for a small MLP on the two-moons data of
# lesson 09. The device is its only parameter: the data is moved to the
# device **once**, before the loop, and one number per step comes back
# (`loss.item()`), to draw the curve. (The printed times vary from run to run,
# so the checks of this notebook do not compare them.)

# %% tags=["nbval-ignore-output"]
X, y = sg.data.make_moons(n=200, noise=0.1, seed=0)
X = X.astype(np.float32)


def train_moons(device, steps=40):
    """Train a 2-16-16-2 MLP on the moons, full batch; the loss after each step."""
    sg.manual_seed(0)  # the same initial weights on every device
    model = sg.nn.MLP([2, 16, 16, 2], device=device)
    opt = sg.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    xb, yb = sg.tensor(X, device=device), sg.tensor(y, device=device)  # host -> device, once
    losses = []
    for _ in range(steps):
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())  # device -> host: one number
    return losses


runs, seconds = {}, {}
devices = ["python", "cpu"]
if array_api_strict is not None:
    backend.register_device("strict", array_api_strict)  # the standard and nothing more
    devices.append("strict")
for device in devices:
    start = time.perf_counter()
    runs[device] = train_moons(device)
    seconds[device] = time.perf_counter() - start
print(f"{'device':>7} {'first loss':>11} {'last loss':>10} {'time':>9}")
for device in devices:
    print(f"{device:>7} {runs[device][0]:>11.4f} {runs[device][-1]:>10.4f} "
          f"{seconds[device] * 1e3:>6.0f} ms")

# %% [markdown]
# The losses agree (NumPy computes in `float32`; `stridegrad.array` keeps
# Python floats, which are 64-bit, so the last digits may differ). The times do
# not: the python device pays the interpreter for every single number.
#
# On a GPU the very same function runs with `device="cuda"`. Without one, the
# cell says why and moves on.

# %% tags=["nbval-ignore-output"]
if CUDA_OK:
    start = time.perf_counter()
    runs["cuda"] = train_moons("cuda")
    seconds["cuda"] = time.perf_counter() - start
    print(f"cuda: first loss {runs['cuda'][0]:.4f}, last loss {runs['cuda'][-1]:.4f}, "
          f"{seconds['cuda'] * 1e3:.0f} ms (the first cuda run includes CuPy's start-up "
          "and kernel compilation)")
else:
    print("cuda skipped:", CUDA_WHY)

# %% tags=["nbval-ignore-output"]
fig, ax = plt.subplots(figsize=(7, 3.5))
for (device, losses), style in zip(runs.items(), ("-", "--", ":", "-.")):
    ax.plot(range(1, len(losses) + 1), losses, style, lw=2, label=device)
ax.set_xlabel("step")
ax.set_ylabel("cross-entropy loss")
ax.set_title("one training loop, one curve per device (they lie on top of each other)")
ax.legend()
fig.tight_layout()
plt.show()
for device, losses in runs.items():
    gap = max(abs(p - q) for p, q in zip(losses, runs["cpu"]))
    print(f"{device:>6}: every step's loss within 1e-4 of cpu's: {gap < 1e-4}")

# %% [markdown]
# ## Exercise 3 · `pick_device`: the best device that works here
#
# Scripts that should use a GPU when there is one and still run everywhere
# start by picking a device. Write `pick_device(prefer, available)`:
#
# - `prefer` is one device name (`"cuda"`) or a sequence of them, best first
#   (`("cuda", "cpu")`: the later ones are the fallbacks). A lone string is one
#   name, not a sequence of letters;
# - `available(name)` answers `(True, "")` or `(False, reason)`, exactly like
#   `backend.device_available`, which is the default;
# - return the first name that is available, and **stop asking** there (asking
#   about `"cuda"` imports CuPy, which takes a while);
# - when none is, raise `RuntimeError` naming every device tried with its
#   reason; an empty `prefer` is a `ValueError`.
#
# It is the library's own: `sg.set_default_device(("cuda", "cpu"))` calls
# `backend.pick_device` to choose, and `stridegrad yours` runs it with yours.

# %%
#| exercise: stridegrad.backend.pick_device
#| hint: try the names in order; what if prefer is one string?

# %% tags=["nbval-ignore-output"]
#| calls-exercise
print("picked:", pick_device(("cuda", "cpu")))
try:
    pick_device(("cuda:7", "tpu"))
except RuntimeError as err:
    print("RuntimeError:", err)

# %%
#| check: pick_device

# %% [markdown]
# ## Host and device: every move is a copy
#
# A GPU has its own memory, very fast from the GPU's side (terabytes per
# second on current cards) and far away from the CPU's. Between the two is a
# bus; PCIe 4.0 with 16 lanes is specified at about 32 GB/s in each direction.
# Copies get closest to that (about 25 GB/s) from *pinned* (page-locked) host
# memory, which the GPU can read directly. Ordinary *pageable* memory, which is
# what a NumPy array lives in, must first be copied by the driver into a pinned
# staging buffer, so expect half that speed or less.
# Each array lives on one side, and crossing costs a fixed delay plus the
# bytes divided by the bandwidth:
#
# - `sg.tensor(data, device="cuda")` and `t.to("cuda")` copy host → device;
# - `t.numpy()`, `t.item()`, `print(t)` copy device → host, and they also
#   **wait** for the GPU to finish computing `t` (a synchronisation, next
#   section).
#
# So a training loop moves its data once and keeps it on the device, and
# brings back only small results. `loss.item()` once per step is a small copy
# but a full stop of the pipeline every step; summing the losses on the device
# and calling `.item()` once per epoch avoids that.
#
# The Tensor moves data between devices through the host: `backend.to_numpy`
# and `backend.from_numpy` are each device's two doors.

# %%
on_python = sa.asarray([[1.0, 2.0], [3.0, 4.0]])
on_host = backend.to_numpy(on_python, "python")  # out of the python device
on_cpu = backend.from_numpy(on_host, "cpu")  # into the cpu device (no copy: it is NumPy)
print(type(on_python).__name__, "->", type(on_host).__name__, "->", type(on_cpu).__name__)
t = sg.tensor([[1.0, 2.0], [3.0, 4.0]], device="python")
print(t.to("cpu"))  # the same two doors, and differentiable

# %% [markdown]
# ## Exercise 4 · `to_host`: bring an array home
#
# NumPy converts almost anything with `np.asarray(x)`. CuPy refuses on
# purpose: `np.asarray(cupy_array)` raises `TypeError: Implicit conversion to
# a NumPy array is not allowed. Please use .get() ...`, so that a slow copy
# across the bus never happens by accident. The copy is asked for explicitly,
# with the array's `.get()` method.
#
# Write `to_host(x)`, returning a NumPy `ndarray` with `x`'s values, dtype and
# shape (a 0-d array stays 0-d):
#
# - a NumPy array is already on the host: return it **as it is**, no copy;
# - an array with a `.get()` method (CuPy's way) is copied with it;
# - anything else (`stridegrad.array`, `array_api_strict`) goes through
#   `np.asarray(x)`.
#
# The checkpoint has a stand-in for a CuPy array, `FakeCuPyArray`, which
# follows CuPy's rules; the cell below uses it too.
#
# This is the library's own `backend.to_host`: `backend.to_numpy` opens the
# host door of every device with it, so `t.numpy()`, `t.item()` and
# `print(t)` all run through it (and `stridegrad yours` runs the library with
# yours).

# %%
#| exercise: stridegrad.backend.to_host
#| hint: three kinds of input: a NumPy array, one that can copy itself to the host, anything else

# %%
#| calls-exercise
from stridegrad.course.checkpoints.ep10 import FakeCuPyArray

on_gpu = FakeCuPyArray([[1.0, 2.0], [3.0, 4.0]])
try:
    np.asarray(on_gpu)
except TypeError as err:
    print("np.asarray(on_gpu): TypeError:", err)
for x in (np.arange(3.0), sa.asarray([[1.0, 2.0]]), on_gpu):
    h = to_host(x)
    print(f"{type(x).__name__:>13} -> {type(h).__name__} {h.tolist()}")

# %% [markdown]
# With a GPU, this cell measures the bus: a 64 MiB array up and back. It
# starts with a tiny transfer, because the very first CUDA call also sets the
# GPU up (which takes far longer than any copy), and moves the array up once
# more untimed, because the first 64 MiB upload also grows CuPy's memory pool
# (a trap of the next section). Then it keeps the best of three copies each way.

# %% tags=["nbval-ignore-output"]
if CUDA_OK:
    import cupy as cp

    sync = cp.cuda.Device().synchronize
    cp.asarray(np.ones(1)).get()  # start CUDA before timing anything
    host_array = np.ones((4096, 4096), dtype=np.float32)  # 64 MiB
    cp.asarray(host_array)  # untimed: the first upload of this size grows the memory pool
    sync()
    up = down = float("inf")
    for _ in range(3):  # the best of three, each way
        start = time.perf_counter()
        device_array = cp.asarray(host_array)
        sync()
        up = min(up, time.perf_counter() - start)
        start = time.perf_counter()
        back = device_array.get()  # .get() waits for the copy to finish
        down = min(down, time.perf_counter() - start)
        del device_array  # back to the pool, for the next round to reuse
    print(f"host -> device: {host_array.nbytes / up / 1e9:.1f} GB/s, "
          f"device -> host: {host_array.nbytes / down / 1e9:.1f} GB/s")
else:
    print("No usable GPU here, so no bus to measure. The reason:", CUDA_WHY)

# %%
#| check: to_host

# %% [markdown]
# ## Synchronisation: a device that runs ahead
#
# When you write `c = a @ b` with CuPy arrays, CuPy **launches** a kernel: it
# puts the work in a queue (a CUDA *stream*) and returns within microseconds,
# long before the GPU is done. The host runs ahead and can queue the next
# kernel while the GPU works; that overlap is why GPUs are fast in practice.
# The host only waits when it needs a result: `.get()`, `.item()`, printing,
# or an explicit `synchronize()`.
#
# That breaks naive timing. A clock read right after `c = a @ b` measures the
# launch, not the multiplication. Two more traps: the first call of a kernel
# **compiles** it (CuPy compiles kernels on first use and caches them) and
# grows the memory pool, so it is much slower than the rest; and whatever an
# earlier call left in the queue must finish *before* the clock starts.
#
# The checkpoint's `FakeAsyncDevice` is a pretend GPU with a pretend clock,
# so we can watch this happen without one: launching costs the host 20 µs, the
# work then takes 10 ms on the device, and the first launch compiles for 0.3 s.

# %%
from stridegrad.course.checkpoints.ep10 import FakeAsyncDevice

gpu = FakeAsyncDevice([0.010], launch_cost=20e-6, compile_cost=0.3)
start = gpu.clock(); gpu.launch(); first = gpu.clock() - start
start = gpu.clock(); gpu.launch(); naive = gpu.clock() - start
gpu.sync()
start = gpu.clock(); gpu.launch(); gpu.sync(); synced = gpu.clock() - start
print(f"first call, clock around the launch:       {first * 1e3:8.3f} ms  <- compilation")
print(f"next call, clock around the launch:        {naive * 1e3:8.3f} ms  <- only the launch")
print(f"sync, then the clock around launch + sync: {synced * 1e3:8.3f} ms  <- the real time")

# %% [markdown]
# ## Exercise 5 · `time_op`: time a device that runs ahead
#
# Write `time_op(fn, sync, repeat=3, clock=time.perf_counter)`: the time of
# one run of `fn()` in seconds, measured so that none of the three traps above
# can fool it, on any device, from `repeat` timed runs. `sync()` waits until
# the device has finished everything queued; `clock()` reads the time.
# `repeat` below 1 is a `ValueError`. Of the `repeat` times, return the
# **smallest**: other programs and the operating system only ever *add* time,
# so the least disturbed run is the fastest one.
#
# On the host, work is done when `fn()` returns: pass `sync=lambda: None`.
# With CuPy, pass `cupy.cuda.Device().synchronize`. The `clock` argument
# lets the checkpoint use a pretend clock.

# %%
#| exercise: time_op
#| hint: the device works asynchronously: when must you wait for it, and why run fn once first?
import math
import time


def time_op(fn, sync, repeat=3, clock=time.perf_counter):
    """The best (smallest) of ``repeat`` timed runs of ``fn()``, in seconds (a
    float), after one warm-up run that is not timed: ``fn`` is called ``repeat
    + 1`` times. ``sync()`` waits until the device has done everything queued:
    no run's time may include work queued before it (the warm-up's included),
    and none may end before its own work is done (so the device is idle when
    ``time_op`` returns). ValueError when ``repeat`` < 1.

    Example:
        >>> time_op(lambda: sum(range(10_000)), sync=lambda: None) > 0
        True
    """
    ### BEGIN SOLUTION
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    fn()  # warm-up: compilation, allocation, caches
    sync()  # and let it finish before the clock starts
    best = math.inf
    for _ in range(repeat):
        start = clock()
        fn()
        sync()
        best = min(best, clock() - start)
    return best
    ### END SOLUTION

# %%
#| calls-exercise
gpu = FakeAsyncDevice([0.010], launch_cost=20e-6, compile_cost=0.3)
print(f"time_op on the pretend GPU: {time_op(gpu.launch, gpu.sync, clock=gpu.clock) * 1e3:.3f} ms")

# %%
#| check: time_op

# %% [markdown]
# On a real GPU the pattern is the same, with CuPy's `synchronize`. This cell
# runs only with a GPU; read it anyway. It times one 4096 × 4096 matrix product
# three ways: naively (the launch), with a sync, and with **CUDA events**,
# which are timestamps the GPU itself records in its queue, so they measure
# the device's time without the host's overhead.

# %% tags=["nbval-ignore-output"]
if CUDA_OK:
    import cupy as cp

    sync = cp.cuda.Device().synchronize
    m = cp.asarray(np.random.default_rng(0).random((4096, 4096), dtype=np.float32))
    m @ m  # warm-up: compile, allocate
    sync()
    start = time.perf_counter()
    product = m @ m
    launch_only = time.perf_counter() - start  # wrong: the GPU is still multiplying
    sync()
    start = time.perf_counter()
    product = m @ m
    sync()
    with_sync = time.perf_counter() - start  # right: the product is done
    begin, end = cp.cuda.Event(), cp.cuda.Event()
    begin.record()
    product = m @ m
    end.record()
    end.synchronize()
    on_device = cp.cuda.get_elapsed_time(begin, end) / 1e3  # milliseconds -> seconds
    flops = 2 * 4096 ** 3
    print(f"without sync: {launch_only * 1e3:8.3f} ms   (the launch)")
    print(f"with sync:    {with_sync * 1e3:8.3f} ms   {flops / with_sync / 1e12:.1f} TFLOP/s")
    print(f"CUDA events:  {on_device * 1e3:8.3f} ms   {flops / on_device / 1e12:.1f} TFLOP/s")
else:
    print("No usable GPU here, so this cell only explains. With one, it prints three times "
          "for the same 4096 x 4096 product: without a sync, only the time of the launch; "
          "with a sync or CUDA events, the time of the product itself, many times longer.")
    print("The reason there is no GPU:", CUDA_WHY)

# %% [markdown]
# ## Fixed cost against throughput, on this CPU
#
# When is the faster machine worth it? Each call costs a **fixed** amount
# (interpreting the call, checking arguments, launching) plus a **per-element**
# amount. The cell below measures an elementwise `x * y + x` and an `n × n`
# matrix product with your `time_op`, on the python device (`stridegrad.array`)
# and the cpu device (NumPy), plus plain Python lists for the elementwise case.
#
# Read the left plot from left to right (both axes are logarithmic): for a
# handful of numbers lists keep up with NumPy or beat it, because every NumPy
# call has a fixed cost and `x * y + x` makes two calls (the table under the
# plots shows that cost on your machine: NumPy's time at `n = 1`); then
# NumPy's tiny per-element cost wins, for good. The size where the curves cross
# is the **crossover**, marked by a dotted line and named in the plot's title.
#
# The right plot, the matrix product, usually has no crossover at all: even a
# 2 × 2 product costs `stridegrad.array` more interpreter work than one NumPy
# call's fixed cost, so NumPy is faster at every size (the title says what your
# run found). Read its slopes instead: the python line bends upward as its
# `n³` multiply-adds take over, while NumPy's stays nearly flat at these sizes,
# where its fixed cost is most of the time.
#
# Your numbers will differ from anyone else's. On a machine that other
# programs keep busy a point can jump, and with it a crossover: run the cell
# twice before you trust one.

# %%
def crossover(sizes, slow_small, fast_large):
    """The first size from which ``fast_large`` is faster at that size and every
    larger one (None if it never is)."""
    found = None
    for n, a, b in zip(sizes, slow_small, fast_large):
        if b < a:
            found = n if found is None else found
        else:
            found = None
    return found


def plot_times(ax, sizes, series, title, xlabel):
    """Log-log time against size, one line per series, the crossover of the
    first two series marked."""
    for label, times in series.items():
        ax.plot(sizes, times, marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    (a_label, a), (b_label, b) = list(series.items())[:2]
    n = crossover(sizes, a, b)
    if n is None:
        title += f"\n{b_label} never faster than {a_label}"
    elif n == sizes[0]:
        title += f"\n{b_label} faster at every size measured"
    else:
        ax.axvline(n, color="grey", ls=":")
        title += f"\ncrossover (dotted): {b_label} faster from {n} on"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("seconds")
    ax.legend(fontsize=8)
    return n

# %% tags=["nbval-ignore-output"]
#| calls-exercise
no_sync = lambda: None  # the host has nothing to wait for
add_sizes = [1, 4, 16, 64, 256, 1024, 4096]
add_times = {"Python lists": [], "python (stridegrad.array)": [], "cpu (NumPy)": []}
for n in add_sizes:
    xs, ys = [float(i) for i in range(n)], [2.0] * n
    xa, ya = sa.asarray(xs), sa.asarray(ys)
    xn, yn = np.asarray(xs), np.asarray(ys)
    add_times["Python lists"].append(time_op(lambda: [a * b + a for a, b in zip(xs, ys)], no_sync))
    add_times["python (stridegrad.array)"].append(time_op(lambda: xa * ya + xa, no_sync))
    add_times["cpu (NumPy)"].append(time_op(lambda: xn * yn + xn, no_sync))
mm_sizes = [2, 4, 8, 16, 32, 64]
mm_times = {"python (stridegrad.array)": [], "cpu (NumPy)": []}
for n in mm_sizes:
    ma, mn = sa.ones((n, n)), np.ones((n, n))
    mm_times["python (stridegrad.array)"].append(time_op(lambda: ma @ ma, no_sync))
    mm_times["cpu (NumPy)"].append(time_op(lambda: mn @ mn, no_sync))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
plot_times(ax1, add_sizes, {"Python lists": add_times["Python lists"],
                            "cpu (NumPy)": add_times["cpu (NumPy)"],
                            "python (stridegrad.array)": add_times["python (stridegrad.array)"]},
           "x * y + x", "n (elements)")
plot_times(ax2, mm_sizes, mm_times, "n x n @ n x n", "n")
fig.tight_layout()
plt.show()
print(f"{'n':>6} " + " ".join(f"{k:>26}" for k in add_times))
for k, n in enumerate(add_sizes):
    print(f"{n:>6} " + " ".join(f"{v[k] * 1e6:>23.2f} µs" for v in add_times.values()))
print("NumPy beats lists from n =", crossover(add_sizes, add_times["Python lists"],
                                              add_times["cpu (NumPy)"]))

# %% [markdown]
# ## When does the GPU win?
#
# The same story, one level up. A GPU call has a larger fixed cost than a
# NumPy call (its launch, and for data that is not on the device yet the trip
# across the bus), and a far larger throughput. Small problems are all fixed cost, and
# the CPU wins; large ones are all throughput, and the GPU wins. Where the
# crossover lies depends on both machines and on the operation: a matrix
# product does `n³` multiply-adds on `n²` numbers, so its arithmetic soon
# outweighs the fixed costs, while an elementwise op does one operation per
# number it moves, so it needs far larger sizes. Without a GPU, this lesson
# measures none of that (with one, the 64 MiB cell above measures the bus); the
# model further down puts numbers on the matrix product, from figures it states
# as assumptions.
#
# Those numbers must be measured on a real GPU, and this course does not
# invent them. A measurement is written by `benchmarks/results/measure_gpu.py`
# to `benchmarks/results/gpu.json`, with the date and the GPU's name, and
# committed; the format is described in `benchmarks/results/README.md` and
# checked by the loader below. **At the time of writing no measurement is
# stored**, so the cells below say so and draw no measured GPU curve (a
# clearly labelled model stands in); once a `gpu.json` is committed and the
# lesson rebuilt, they show the measurement.

# %%
GPU_RESULTS = "benchmarks/results/gpu.json"
GPU_FORMAT = "stridegrad-gpu-timings/1"


def load_gpu_results(path):
    """Read stored GPU timings and check their format (benchmarks/results/README.md).

    The file is a JSON object with "format" (GPU_FORMAT), "date" and "gpu"
    (non-empty strings) and "benchmarks": a non-empty list of objects with
    "name", "what" and "size" (strings), "sizes" (increasing positive numbers)
    and "seconds": exactly two series, {host label: [...], GPU label: [...]},
    host first, one positive number per size. Raises ValueError naming the
    first problem found.
    """
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or data.get("format") != GPU_FORMAT:
        raise ValueError(f"{path}: 'format' must be {GPU_FORMAT!r}")
    for key in ("date", "gpu"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ValueError(f"{path}: {key!r} must be a non-empty string")
    benches = data.get("benchmarks")
    if not isinstance(benches, list) or not benches:
        raise ValueError(f"{path}: 'benchmarks' must be a non-empty list")
    for k, bench in enumerate(benches):
        where = f"{path}: benchmarks[{k}]"
        if not isinstance(bench, dict):
            raise ValueError(f"{where} must be an object")
        for key in ("name", "what", "size"):
            if not isinstance(bench.get(key), str):
                raise ValueError(f"{where}: {key!r} must be a string")
        sizes = bench.get("sizes")
        if (not isinstance(sizes, list) or not sizes
                or not all(isinstance(n, (int, float)) and n > 0 for n in sizes)
                or sorted(set(sizes)) != sizes):
            raise ValueError(f"{where}: 'sizes' must be increasing positive numbers")
        series = bench.get("seconds")
        if not isinstance(series, dict) or len(series) != 2:
            raise ValueError(f"{where}: 'seconds' must hold exactly two series (host, GPU)")
        for label, times in series.items():
            if (not isinstance(times, list) or len(times) != len(sizes)
                    or not all(isinstance(t, (int, float)) and t > 0 for t in times)):
                raise ValueError(f"{where}: seconds[{label!r}] must be {len(sizes)} "
                                 "positive numbers, one per size")
    return data


root = repo_root()
results_path = root / GPU_RESULTS if root is not None else None
if results_path is not None and results_path.is_file():
    gpu_results = load_gpu_results(results_path)
    print(f"GPU timings measured on {gpu_results['date']} on {gpu_results['gpu']}")
    for key, value in sorted(gpu_results.get("versions", {}).items()):
        print(f"  {key}: {value}")
elif results_path is None:
    gpu_results = None
    print("This notebook is not inside a clone of the repository, so there is no stored GPU")
    print(f"measurement to read (it would be the clone's {GPU_RESULTS}).")
else:
    gpu_results = None
    print(f"No GPU measurement is stored in this repository yet: {GPU_RESULTS} does not exist.")
    print("So there is no measured GPU curve below; a modelled one follows, labelled as such.")

# %% [markdown]
# With a stored measurement, the next cell plots it: time against problem size
# on log-log axes, the host series and the GPU series of each stored
# benchmark, with the crossover marked. Without one, it only says so.

# %%
if gpu_results is None:
    print("Nothing to plot until a GPU measurement is stored (see below).")
else:
    benches = gpu_results["benchmarks"]
    fig, axes = plt.subplots(1, len(benches), figsize=(5.5 * len(benches), 4), squeeze=False)
    for ax, bench in zip(axes[0], benches):
        n = plot_times(ax, bench["sizes"], bench["seconds"], f"{bench['name']}: {bench['what']}",
                       bench["size"])
        (host_label, host), (gpu_label, dev) = bench["seconds"].items()
        if n is None:
            print(f"{bench['name']}: {gpu_label} never beats {host_label} at the sizes measured")
        else:
            k = bench["sizes"].index(n)
            print(f"{bench['name']}: {gpu_label} wins from {bench['size']} = {n} "
                  f"({host[k] / dev[k]:.1f}x there, {host[-1] / dev[-1]:.0f}x at the largest size)")
    fig.suptitle(f"{gpu_results['gpu']}, measured {gpu_results['date']}", fontsize=10)
    fig.tight_layout()
    plt.show()

# %% [markdown]
# ### Until there is a measurement: a model
#
# A model cannot replace a measurement, but it can answer "when does the GPU
# win?" in outline. It adds up the three costs of this lesson for a matrix
# product `n × n @ n × n` in float32 on a GPU: a fixed launch cost, copying
# both operands over the bus and the result back, and the arithmetic. The
# figures are assumptions, written in the cell; change them for your card.
#
# The CPU curve is measured here, with NumPy and your `time_op`. NumPy hands a
# matrix product to its BLAS library, which may split a large one between
# several threads; on a machine that other programs keep busy those threads
# wait for each other, and the time from one size to the next can jump far
# more than the work does (eight times, for `n` doubled). So the cell holds BLAS to one thread when the `threadpoolctl`
# package is installed (`pip install threadpoolctl`), and its first line says
# whether it could. (Timings differ on every machine, so this cell's output is
# not compared when the notebooks are tested.)
#
# What to read: the modelled GPU curves are flat at first (the launch, and the
# copies, cost the same whatever the arithmetic), while the CPU curve climbs
# ever more steeply as its `n³` multiply-adds take over. The crossover is where
# they meet; the curves run close there, so on a busy machine it can move by
# one size from run to run. Under the plot, a table splits the modelled GPU
# time: for tiny matrices the launch is nearly all of it, and from about
# `n = 128` on the copies are most of it, the arithmetic a small rest. That is
# why training keeps its data on the GPU from one step to the next. The two
# crossovers can land on the same size of this coarse grid; the table shows
# how far apart the two GPU curves are.

# %% tags=["nbval-ignore-output"]
#| calls-exercise
LAUNCH_S = 10e-6       # assumed: launch plus sync, per product
BUS_BYTES_S = 12e9     # assumed: pageable copies over PCIe 4.0 x16
GPU_FLOP_S = 20e12     # assumed: float32 matmul throughput of a mid-range data-centre card


def modelled_gpu_matmul(n, with_copies=True):
    """Seconds for an n x n float32 product on the modelled GPU."""
    copies = 3 * n * n * 4 / BUS_BYTES_S if with_copies else 0.0  # a, b there; the result back
    return LAUNCH_S + copies + 2 * n ** 3 / GPU_FLOP_S


def cpu_matmul_times(sizes):
    """Seconds for one n x n float32 product with NumPy, per size, timed by your time_op."""
    rng = np.random.default_rng(0)
    times = []
    for n in sizes:
        mat = rng.standard_normal((n, n), dtype=np.float32)
        times.append(time_op(lambda: mat @ mat, lambda: None, repeat=5))
    return times


sizes = [16, 32, 64, 128, 256, 512, 1024]
try:
    from threadpoolctl import threadpool_limits
except ImportError:
    threadpool_limits = None
if threadpool_limits is not None:
    with threadpool_limits(limits=1, user_api="blas"):  # NumPy's BLAS on one thread
        cpu_times = cpu_matmul_times(sizes)
    print("cpu: NumPy with one BLAS thread")
else:
    cpu_times = cpu_matmul_times(sizes)
    print("cpu: NumPy with as many BLAS threads as it takes (threadpoolctl, which would hold it "
          "to one, is not installed): on a busy machine its times can jump")
model_series = {"cpu (NumPy), measured here": cpu_times,
                "GPU, modelled, with copies": [modelled_gpu_matmul(n) for n in sizes],
                "GPU, modelled, data already there": [modelled_gpu_matmul(n, False) for n in sizes]}
fig, ax = plt.subplots(figsize=(6, 4))
n_cross = plot_times(ax, sizes, dict(list(model_series.items())[:2]),
                     "matmul n x n, float32: a MODEL of the GPU, not a measurement", "n")
ax.plot(sizes, model_series["GPU, modelled, data already there"], ls="--",
        label="GPU, modelled, data already there")
ax.legend(fontsize=8)
plt.show()
print(f"{'n':>5}  {'cpu':>9}  {'GPU + copies':>12}  {'GPU only':>9}  share of the copies")
for n, cpu in zip(sizes, cpu_times):
    with_copies, without = modelled_gpu_matmul(n), modelled_gpu_matmul(n, False)
    print(f"{n:>5}  {cpu * 1e3:7.3f}ms  {with_copies * 1e3:10.3f}ms  {without * 1e3:7.3f}ms"
          f"  {1 - without / with_copies:6.0%}")
print(f"the modelled GPU wins from n = {n_cross} with copies, and from n = "
      f"{crossover(sizes, cpu_times, model_series['GPU, modelled, data already there'])} "
      "with the data already on it (as during training)")

# %% [markdown]
# **To measure**, on a machine with an NVIDIA GPU, in a clone of the repository:
#
# ```bash
# pip install -e '.[dev,gpu]'                    # CuPy for your CUDA version
# python benchmarks/results/measure_gpu.py       # a few minutes; writes benchmarks/results/gpu.json
# ```
#
# then run this notebook again (Restart Kernel and Run All): the cells above
# read `benchmarks/results/gpu.json` when they run, and plot your measurement.
# (For the course's maintainers, a `gpu.json` committed to the repository goes
# into the published notebooks with their next build.)
#
# The script times a float32 matrix product and an elementwise `x * y + x` in
# NumPy and in CuPy at growing sizes, and one training step of a Tensor MLP on
# `"cpu"` and on `"cuda"`,
# each with a warm-up and a sync before every clock reading, as in
# `time_op`. It records the date, the GPU's name and the versions. The
# benchmark suite's own GPU rows (`stridegrad bench --only bench_cuda`, and
# `benchmarks/gpu_check.sh`) compare the Tensor against hand-written CuPy.

# %% [markdown]
# ## Stretch (optional) · `logsumexp`
#
# Cross-entropy needs `log(sum(exp(x)))` along the classes, and so does every
# log-softmax: `log_softmax(x) = x - logsumexp(x)`. Write it for any array
# namespace, as `softmax` above, stable for scores in the thousands. Only the
# contract below to go on; `hint("10", "logsumexp")` when you want it. Its
# points are counted apart from the lesson's.

# %%
#| exercise: logsumexp
#| hint: which shift along the axis changes nothing in exact arithmetic but keeps exp finite?
def logsumexp(xp, x, axis=-1):
    """``log(sum(exp(x)))`` along ``axis``, with only Array API calls on ``xp``.

    ``x`` is a float32 or float64 array of ``xp`` with at least one axis;
    ``axis`` is one axis, an int (negative counts from the end). Shape contract:
    ``x``'s shape without ``axis`` (as ``scipy.special.logsumexp`` and
    ``torch.logsumexp`` without keepdims), an array of ``xp`` with ``x``'s
    dtype; ``x`` itself is left as it was. Finite for any finite input, scores
    of 1000 or -1000 included, in rows of very different sizes.

    Example:
        >>> float(logsumexp(np, np.array([0.0, math.log(3.0)])))   # log(1 + 3)
        1.3862943611198906
        >>> float(logsumexp(np, np.array([1000.0, 1000.0])))        # 1000 + log(2)
        1000.6931471805599
    """
    ### BEGIN SOLUTION
    m = xp.max(x, axis=axis, keepdims=True)
    total = xp.sum(xp.exp(x - m), axis=axis, keepdims=True)
    return xp.squeeze(xp.log(total) + m, axis=axis)
    ### END SOLUTION

# %%
#| check: logsumexp

# %% [markdown]
# ## Checkpoint
#
# Run the whole checkpoint once every exercise is done; the stretch above is
# counted apart, as optional.

# %%
#| check: all

# %% [markdown]
# ## Where this is in PyTorch
#
# | here | PyTorch | the Array API world |
# |---|---|---|
# | device string `"cuda:0"` | `torch.device("cuda:0")` | `x.device`, `xp.asarray(..., device=...)` |
# | `backend.get_namespace(device)` | one namespace, `torch`, that dispatches on the device inside | `x.__array_namespace__()` |
# | `namespace_of(*arrays)` | ops check devices: "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!" | `array_api_compat.array_namespace(*arrays)` |
# | `t.to("cuda")`, `t.to("cpu")` | `t.to("cuda")`, `t.cuda()`, `t.cpu()`, `t.to(device, non_blocking=True)` with pinned memory | `x.to_device(device)` |
# | `to_host(x)` | `t.cpu().numpy()`, `t.item()`, `t.tolist()` | `np.from_dlpack(x)` for CPU arrays; CuPy's `x.get()` |
# | `softmax(xp, x)` | `torch.softmax(t, dim=-1)` | any function written with `xp.` calls; test it on `array_api_strict` |
# | `pick_device(("cuda", "cpu"))` | `"cuda" if torch.cuda.is_available() else "cpu"` | `backend.device_available("cuda")` |
# | `time_op(fn, sync)` | `torch.cuda.synchronize()`, `torch.cuda.Event(enable_timing=True)`, `torch.utils.benchmark.Timer` (syncs for you) | `cupy.cuda.Device().synchronize()`, `cupyx.profiler.benchmark` |
#
# PyTorch is itself an Array API library through `array_api_compat.torch`, so
# code written with `xp.` calls runs on PyTorch tensors too. Here is
# `array_api_compat`'s version of exercise 1 on NumPy (it wraps NumPy in a
# thin compatibility module):

# %%
import array_api_compat

print(array_api_compat.array_namespace(np.ones(2), 1.0).__name__)
try:
    array_api_compat.array_namespace(np.ones(2), sa.ones((2,)))
except TypeError as err:
    print("TypeError:", str(err).split(":")[0])

# %% [markdown]
# ## Going further
#
# 1. **Keep the loss on the device.** In `train_moons`, `loss.item()` stops
#    the host every step until the GPU is done. Keep each step's loss on the
#    device instead (`losses.append(loss.detach())`) and bring them all back
#    at the end in one transfer (`sg.stack(losses).numpy()`), so that the
#    curve of every step survives. On a GPU, time both versions with
#    `time_op`; how many synchronisations did you save?
# 2. **Transfers in the crossover.** GPU timings like those of
#    `measure_gpu.py` start with the data already on the device. On a machine
#    with a GPU, measure the bus as above, add the cost of moving each
#    benchmark's inputs to the device (their bytes divided by the bus speed)
#    to each GPU time, and find the new crossover. When is a GPU not worth it
#    for a single operation?
# 3. **Make the Tensor's `softmax` yours.** `sg.nn.functional.softmax` works on
#    Tensors; write a version of your `softmax` that accepts either a Tensor or
#    a raw array (hint: `namespace_of` tells you `xp`, and a Tensor's device
#    tells `backend.get_namespace`), and test it on `array_api_strict`.
