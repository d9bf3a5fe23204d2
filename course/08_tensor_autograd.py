# %% [markdown]
# # 08 · Tensor autograd
#
# In lessons 06 and 07 every number was its own `Value` or `Var`, with a
# closure or a node per operation. That is correct, but a 64 × 128 weight
# matrix would be 8,192 separate nodes. Real libraries record **one node per
# tensor operation**: `a @ b` is a single node, whatever the sizes, and its
# backward works on whole arrays at once.
#
# The library's `Tensor` keeps lesson 07's design B: a tensor is a handle
# with a `grad_fn`, nodes are joined by `next_functions` edges, and leaves
# collect their gradient through `AccumulateGrad`. The engine does not change
# either: gradients accumulated, one backward rule per operation, each node
# run once all its gradients have arrived. What changes is that each
# rule now receives an *array* of gradients, and must return arrays of exactly
# the right shapes. This lesson is about those shapes.
#
# **By the end you can**
#
# - say what a node saves for backward, and why a second `backward()` fails;
# - write the backward of `sum` (`sum_backward`), of `max` (`max_backward`)
#   and of `matmul` (`matmul_backward`, shapes worked out), and read the rules
#   the lesson shows at work for `mean`, three elementwise ops (`*`, `exp`,
#   `relu`), `reshape` and `transpose`;
# - sum a gradient back to the shape of a broadcast input (`unbroadcast`), the
#   step learners miss most often;
# - check any backward rule against finite differences (`numerical_gradient`,
#   then `sg.gradcheck` on every op);
# - use `requires_grad`, `no_grad()` and `detach()` on purpose.
#
# The exercises are small functions on NumPy arrays: the single steps that
# the library's nodes perform. They are the library's own functions,
# `stridegrad.tensor.rules`, which every node calls: after each one we compare
# your function with what `stridegrad.Tensor` computes, and `stridegrad yours`
# runs the library with yours. The nodes hand them the arrays of every
# device (lesson 10): NumPy's, CuPy's, and the strided array's, which has no
# `.sum` method. So the library's versions ask an array for its namespace,
# `xp = array_namespace(grad)` (NumPy itself for a NumPy array), and call
# `xp.sum(grad, ...)`, `xp.reshape`, `xp.broadcast_to`. NumPy's methods
# (`grad.sum(...)`) pass this lesson's checks, which use NumPy arrays, and run
# the library on the `cpu` device; written with `xp`, yours run it everywhere.

# %%
#| setup
from stridegrad.course import check, hint
from typing import Callable
import textwrap
import numpy as np
import matplotlib.pyplot as plt
import stridegrad as sg
from stridegrad.backend import array_namespace  # an array's namespace: NumPy's for NumPy's

np.set_printoptions(precision=4, suppress=True)  # short, readable arrays in the outputs


def agrees(mine, other, atol=1e-5):
    """True when two arrays have the same shape and close values; else says what differs."""
    if np.shape(mine) != np.shape(other):
        return f"no: the shapes differ, {np.shape(mine)} and {np.shape(other)}"
    return bool(np.allclose(mine, other, atol=atol))

# %% [markdown]
# ## One node per operation, and what it saves
#
# Here is a matrix times a column, then a sum. Each result carries a `grad_fn`:
# the node that knows how to send a gradient back. `next_functions` are the
# edges to the nodes of the inputs (`AccumulateGrad` is the sink that writes
# into a leaf's `.grad`). Each edge is a pair, as in PyTorch: the node, and
# which of that node's outputs the input was. Every node here has one output,
# so the number is always `0`.

# %%
a = sg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
b = sg.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
z = a @ b
loss = z.sum()
print("z =", z.numpy().tolist())
print("loss.grad_fn:", loss.grad_fn, "->", loss.grad_fn.next_functions)
print("z.grad_fn:   ", z.grad_fn, "->", z.grad_fn.next_functions)

# %% [markdown]
# To compute the gradient of `a`, the matmul node needs `b`, and for the
# gradient of `b` it needs `a`. So the node keeps both input arrays: these are
# its **saved tensors**. They are the price of reverse mode: memory that stays
# alive from the forward pass until backward has used it.

# %%
print("saved a:", z.grad_fn.a.tolist())
print("saved b:", z.grad_fn.b.tolist())

# %% [markdown]
# Backward uses the saved arrays, then **frees them** (so a long training run
# does not keep every step's activations). Run backward once and look again.
# A second backward through the same graph now has nothing to work with, and
# says so instead of giving a wrong answer.

# %%
loss.backward()
print("a.grad =", a.grad.numpy().tolist())
print("b.grad =", b.grad.numpy().tolist())
print("saved a after backward:", z.grad_fn.a)
try:
    loss.backward()
except RuntimeError as err:
    print("RuntimeError:", textwrap.fill(str(err), 88, subsequent_indent="    "))

# %% [markdown]
# If you really need two backward passes through one graph (rare: two losses
# that share a trunk, backpropagated one at a time), ask for the saved tensors
# to be kept with `retain_graph=True`. (Second derivatives need more than
# that: the backward pass itself must be recorded as a graph, which PyTorch
# does with `create_graph=True`; our engine does not.) Note that the gradients **accumulate**: the
# second pass adds to `.grad`, exactly like a `Value` used twice in lesson 06.

# %%
x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=True)
print("after one backward: ", x.grad.numpy().tolist())
y.backward()
print("after two backwards:", x.grad.numpy().tolist())

# %% [markdown]
# ## The shape rule
#
# With a scalar loss $L$ and a tensor $x$, the gradient $\partial L / \partial x$
# has one entry per entry of $x$: **it has exactly the shape of $x$**. Every
# backward rule in this lesson follows from that one fact plus the chain rule.
#
# **Elementwise ops** are the easy case: entry $i$ of the output depends only on
# entry $i$ of each input, so the scalar rules of lesson 06 apply entry by
# entry. `out = a * b` sends `grad * b` to `a` and `grad * a` to `b` (so the node
# saves both); `exp` sends `grad * exp(x)` (it saves its *output*); `relu`
# sends `grad` where the output was positive and 0 elsewhere.

# %%
x = sg.tensor([-1.0, 0.5, 2.0], requires_grad=True)
x.exp().sum().backward()
print("d sum(exp(x)) / dx =", x.grad.numpy(), "  exp(x) =", np.exp(x.numpy()))
x.grad = None
x.relu().sum().backward()
print("d sum(relu(x)) / dx =", x.grad.numpy().tolist())

# %% [markdown]
# ## Broadcasting, backwards
#
# Adding a bias column `c` of shape `(3, 1)` to a `(3, 4)` matrix uses each
# entry of `c` four times: broadcasting stretched it (lesson 04). A value used
# four times collects four gradients, which add up (lesson 06 again). So the
# gradient of `c` is the `(3, 4)` output gradient **summed along the stretched
# axis**, back to shape `(3, 1)`.
#
# Broadcasting can also *add* axes on the left: a `(4,)` row added to a
# `(2, 3, 4)` tensor is used 2 × 3 times, and its gradient sums over the first
# two axes. Going backwards we undo both: sum away the added axes, then sum the
# stretched ones **keeping** them as size 1.

# %%
def draw_grid(ax, values, x0, y0, color, alpha=1.0):
    """Draw a 2-D array of numbers as labelled boxes with its top-left corner at (x0, y0)."""
    for (r, c), v in np.ndenumerate(values):
        ax.add_patch(plt.Rectangle((x0 + c, y0 - r), 0.9, 0.9, color=color, alpha=alpha))
        ax.text(x0 + c + 0.45, y0 - r + 0.45, f"{v:g}", ha="center", va="center", fontsize=9)


fig, axes = plt.subplots(1, 2, figsize=(10, 2.8))
col = np.array([[1.0], [2.0], [3.0]])
draw_grid(axes[0], col, 0, 0, "tab:orange")
draw_grid(axes[0], np.repeat(col, 4, axis=1), 2.5, 0, "tab:orange", alpha=0.35)
axes[0].annotate("", xy=(2.4, -0.5), xytext=(1.1, -0.5), arrowprops=dict(arrowstyle="->"))
axes[0].set_title("forward: c (3, 1) is stretched to (3, 4)")
grad = np.arange(12.0).reshape(3, 4)
draw_grid(axes[1], grad, 0, 0, "tab:blue", alpha=0.35)
draw_grid(axes[1], grad.sum(axis=1, keepdims=True), 6.0, 0, "tab:blue")
axes[1].annotate("", xy=(5.9, -0.55), xytext=(4.0, -0.55), arrowprops=dict(arrowstyle="->"))
axes[1].text(4.95, -0.45, "sum each row", ha="center", va="bottom", fontsize=8)
axes[1].set_title("backward: the (3, 4) gradient is summed back to (3, 1)")
for ax in axes:
    ax.set_xlim(-0.3, 7.5)
    ax.set_ylim(-2.3, 1.2)
    ax.set_aspect("equal")
    ax.axis("off")
plt.show()

# %% [markdown]
# ### A known-wrong version, failing loudly
#
# The classic mistake is to sum the stretched axis *without* `keepdims`. For
# `c` of shape `(3, 1)` that returns shape `(3,)`. Nothing complains at first:
# the numbers are even right. But an update `c - lr * grad` then broadcasts
# `(3, 1)` against `(3,)` into a `(3, 3)` matrix, and the bias quietly grows.
# That is why our engine refuses a gradient whose shape differs from its
# tensor's, and why every test in the checkpoint compares shapes first.

# %%
c = np.array([[1.0], [2.0], [3.0]])
bad = np.arange(12.0).reshape(3, 4).sum(axis=1)  # the stretched axis summed away, keepdims forgotten
print("gradient shape", bad.shape, "for a parameter of shape", c.shape)
print("one SGD step turns c into shape", (c - 0.1 * bad).shape)
try:
    ct = sg.tensor(c, requires_grad=True)
    ct.grad = sg.tensor(bad)
except ValueError as err:
    print("ValueError:", err)

# %% [markdown]
# ## Exercise 1 · `unbroadcast`
#
# Write the real thing: given the gradient of a broadcast result and the shape
# the operand had before broadcasting, return the operand's gradient. Lesson
# 04's rules tell you which two kinds of axes broadcasting makes; each needs
# summing in its own way. Return an array of exactly `shape` (for
# `shape == ()` a 0-d array or NumPy number is fine).

# %%
#| exercise: stridegrad.tensor.rules.unbroadcast
#| hint: a broadcast input element was used many times: its gradient is a sum over those uses

# %% [markdown]
# Compare with the engine: `x` of shape `(3, 1)` plus `y` of shape `(4,)` gives
# `(3, 4)`. With the output gradient all ones, `x` was used 4 times per entry
# and `y` 3 times.

# %%
#| calls-exercise
x = sg.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
y = sg.tensor([10.0, 20.0, 30.0, 40.0], requires_grad=True)
(x + y).sum().backward()
print("engine :", x.grad.numpy().tolist(), y.grad.numpy().tolist())
print("yours  :", unbroadcast(np.ones((3, 4)), (3, 1)).tolist(), unbroadcast(np.ones((3, 4)), (4,)).tolist())

# %%
#| check: unbroadcast

# %% [markdown]
# ## Reductions: `sum`, `mean`, `max`
#
# `x.sum(axis=1)` of a `(2, 3)` matrix adds each row into one number, so every
# entry of row `i` gets the gradient of output `i`: backward **broadcasts** the
# gradient back to `x`'s shape. Broadcasting forward, summing backward; summing
# forward, broadcasting backward. The two are each other's mirror.
#
# One detail bites: without `keepdims`, the reduced axis is *gone* from the
# gradient. A `(2,)` gradient broadcast to `(2, 3)` raises an error, which is
# fine, but a `(3,)` gradient broadcast to `(3, 3)` lines up with the wrong axis
# **silently**. Put the reduced axis back as size 1 at its own position first.
#
# `mean` is `sum` divided by the number of entries reduced, so its backward is
# `sum`'s divided by the same number.
#
# The answer may be a broadcast view (`np.broadcast_to` without a copy):
# read-only, and no memory for the repeated entries. PyTorch's backward of
# `sum` returns such a view too (`grad.expand(...)`), and the engine copies a
# gradient before it keeps one in `.grad`.

# %%
#| exercise: stridegrad.tensor.rules.sum_backward
#| hint: each input element was added once into one output element: what does it get back?

# %%
#| calls-exercise
x = sg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], requires_grad=True)
(x.sum(axis=1) * sg.tensor([1.0, 2.0, 3.0])).sum().backward()
print("engine:", x.grad.numpy().tolist())
print("yours: ", sum_backward(np.array([1.0, 2.0, 3.0]), (3, 3), axis=1).tolist())
x.grad = None
x.mean().backward()
print("mean:   every entry gets", x.grad.numpy()[0, 0], "= 1/9")

# %%
#| check: sum_backward

# %% [markdown]
# `max` picks one entry per slice, so only that entry influences the output:
# it gets the whole gradient, and every other entry gets 0. When several
# entries tie for the maximum, our engine (like PyTorch's `amax`) splits the
# gradient equally between them, which keeps the sum of the gradient equal to
# the incoming gradient. The known-wrong version here is to treat `max` like
# `sum` and send the gradient to every entry. Nudge each entry of
# `[1, 5, 3]` by a little and watch the maximum:

# %%
x = np.array([1.0, 5.0, 3.0])
like_sum = np.ones_like(x)  # max treated like sum: every entry gets the output's gradient 1
for i in range(3):
    nudged = x.copy()
    nudged[i] += 1e-3
    rate = (nudged.max() - x.max()) / 1e-3
    print(f"nudge x[{i}]: the max moves {rate:.0f} per unit, the sum-like rule says {like_sum[i]:.0f}")

# %%
#| exercise: stridegrad.tensor.rules.max_backward
#| hint: only the maxima moved the output; what happens on a tie?

# %%
#| calls-exercise
x = sg.tensor([[1.0, 9.0, 9.0], [8.0, 2.0, 0.0]], requires_grad=True)
(x.max(axis=1) * sg.tensor([10.0, 20.0])).sum().backward()
print("engine:", x.grad.numpy().tolist())
# a copy: x.numpy() shares the tensor's memory, and a max_backward that wrote into its
# x would change the tensor too
print("yours: ", max_backward(x.numpy().copy(), np.array([10.0, 20.0]), axis=1).tolist())

# %%
#| check: max_backward

# %% [markdown]
# ## Matmul, with the shapes worked out
#
# Take `out = a @ b` with `a` of shape `(n, k)` and `b` of shape `(k, m)`, so
# `out` and its gradient `G` are `(n, m)`. The shape rule says `grad_a` is
# `(n, k)` and `grad_b` is `(k, m)`. Only one product of `G`, `a` and `b`
# (transposed or not) has each shape; fill in the last column on paper:
#
# | want | shape | built from | product |
# |---|---|---|---|
# | `grad_a` | `(n, k)` | `G (n, m)` and `b (k, m)` | ? |
# | `grad_b` | `(k, m)` | `a (n, k)` and `G (n, m)` | ? |
#
# Then make sure the entries agree, not only the shapes: write
# `out[i, j] = sum_p a[i, p] * b[p, j]` and ask which entries of `G` and `b`
# `dL/da[i, p]` collects. Shapes catch most mistakes here, but not on square
# matrices: a missing transpose there fits and is wrong.

# %%
#| exercise: stridegrad.tensor.rules.matmul_backward
#| hint: use the shapes: which product of grad, a and b (transposed or not) has a's shape?

# %%
#| calls-exercise
rng = np.random.default_rng(0)
an, bn, gn = rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
a = sg.tensor(an, requires_grad=True)
b = sg.tensor(bn, requires_grad=True)
(a @ b).backward(sg.tensor(gn))
ga, gb = matmul_backward(an, bn, gn)
print("grad_a matches the engine:", agrees(ga, a.grad.numpy()), np.shape(ga))
print("grad_b matches the engine:", agrees(gb, b.grad.numpy()), np.shape(gb))

# %%
#| check: matmul_backward

# %% [markdown]
# ## Reshape and transpose: moving gradients, not changing them
#
# `reshape` and `transpose` do not compute anything; they only read the same
# numbers in another order (lesson 02's views). Backward therefore moves each
# gradient entry back to where its number came from: the gradient of a
# reshape is reshaped back to the input's shape, and the gradient of a
# permutation is permuted by the *inverse* permutation. For a plain transpose
# the inverse is the transpose itself.

# %%
x = sg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
w = sg.tensor(np.arange(6.0).reshape(3, 2) * 10)
(x.T * w).sum().backward()       # x.T has shape (3, 2), like w
print("x.T grad_fn:", x.T.grad_fn, "  x.grad =", x.grad.numpy().tolist(), "= w.T")
x.grad = None
(x.reshape(6) * sg.arange(6.0)).sum().backward()
print("x.reshape(6) grad_fn:", x.reshape(6).grad_fn, "  x.grad =", x.grad.numpy().tolist())

# %% [markdown]
# ## Checking a gradient with finite differences
#
# Every rule above can be wrong in ways that still produce the right shapes.
# The cure is old and reliable: nudge one input entry by a tiny `eps` up and
# down, and see how much the output moves. The **central difference**
#
# $$\frac{\partial f}{\partial x_i} \approx \frac{f(x + \varepsilon e_i) - f(x - \varepsilon e_i)}{2\varepsilon}$$
#
# has an error proportional to $\varepsilon^2$, far smaller than the one-sided
# $(f(x + \varepsilon e_i) - f(x)) / \varepsilon$. It costs two evaluations of
# `f` per entry, so it is a test tool, never a training tool.

# %%
#| exercise: stridegrad.gradcheck.numerical_gradient
#| hint: one entry at a time: nudge it up and down by eps, and put it back

# %% [markdown]
# Now check your own backward rules with it. Each check turns the rule into a
# scalar function `f(x) = sum(op(x) * G)` for a fixed random `G`, so that
# `df/d op(x)` is exactly `G`.

# %%
#| calls-exercise
rng = np.random.default_rng(1)
an, bn = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
G = rng.normal(size=(2, 4))
ga, gb = matmul_backward(an, bn, G)
print("matmul a:", agrees(ga, numerical_gradient(lambda v: float(((v @ bn) * G).sum()), an.copy())))
print("matmul b:", agrees(gb, numerical_gradient(lambda v: float(((an @ v) * G).sum()), bn.copy())))
c = rng.normal(size=(3, 1))
Gc = rng.normal(size=(2, 3, 4))
print("unbroadcast (3, 1) -> (2, 3, 4):",
      agrees(unbroadcast(Gc, (3, 1)), numerical_gradient(lambda v: float((np.broadcast_to(v, (2, 3, 4)) * Gc).sum()), c.copy())))
xm = rng.normal(size=(3, 4))
Gm = rng.normal(size=(3,))
print("max over axis 1:", agrees(max_backward(xm, Gm, axis=1), numerical_gradient(lambda v: float((v.max(axis=1) * Gm).sum()), xm.copy())))

# %%
#| check: numerical_gradient

# %% [markdown]
# ### `gradcheck` on every op
#
# The library's `sg.gradcheck(fn, inputs)` does the same for Tensor
# functions, with the very function you just wrote: its central differences
# are `stridegrad.gradcheck.numerical_gradient`, called once per input on a
# float64 NumPy copy of it (`stridegrad yours` runs the library with yours).
# It runs `backward` once, compares every entry with those differences, and
# raises a `GradcheckError` with a table of the worst entries when they
# disagree (the cell after next shows one). It measures in float64:
# `sg.tensor`, `sg.randn` and `sg.rand` make float32 tensors unless you ask for
# another dtype (`dtype=sg.float64`), as PyTorch does, and gradcheck checks
# float64 copies of them. Here it checks the operations of this lesson,
# broadcasting included, and a few whose rules the lesson does not derive:
# `/`, `**`, `log`, `sqrt`, `tanh`, `sigmoid` (each the derivative of a
# function of numbers, applied entry by entry, like `exp`'s), and slicing, whose backward puts the gradient
# back into the sliced positions of an array of zeros of the input's shape.
# Each rule is one short class in `stridegrad/tensor/_nodes.py` (`DivBackward`,
# `SliceBackward`, ...).

# %%
sg.manual_seed(0)
A = sg.randn(2, 3, requires_grad=True)
B = sg.randn(3, 4, requires_grad=True)
col = sg.randn(2, 1, requires_grad=True)
row = sg.randn(3, requires_grad=True)
P = sg.rand(2, 3, requires_grad=True)  # positive entries for log, sqrt and division
ops = {
    "a + b  (2, 1) + (3,)": (lambda c, r: c + r, [col, row]),
    "a - b  (2, 3) - (3,)": (lambda a, r: a - r, [A, row]),
    "a * b  (2, 3) * (2, 1)": (lambda a, c: a * c, [A, col]),
    "a / b  (2, 3) / (2, 3)": (lambda a, p: a / (p + 1), [A, P]),
    "a ** 3": (lambda a: a ** 3, [A]),
    "exp, log, sqrt": (lambda p: (p + 1).log() + p.exp() + (p + 1).sqrt(), [P]),
    "tanh, sigmoid, relu": (lambda a: a.tanh() + a.sigmoid() + a.relu(), [A]),
    "sum(axis=1)": (lambda a: a.sum(axis=1), [A]),
    "mean(axis=0, keepdims)": (lambda a: a.mean(axis=0, keepdims=True), [A]),
    "max(axis=1)": (lambda a: a.max(axis=1), [A]),
    "a @ b": (lambda a, b: a @ b, [A, B]),
    "reshape(3, 2)": (lambda a: a.reshape(3, 2), [A]),
    "transpose .T": (lambda a: a.T, [A]),
    "slicing a[:, ::2]": (lambda a: a[:, ::2], [A]),
}
report = [f"{name:<24} gradcheck: {sg.gradcheck(fn, inputs)}" for name, (fn, inputs) in ops.items()]
print("\n".join(report))

# %% [markdown]
# And a broken rule fails loudly. Here is a matmul backward that forgets a
# transpose. On square matrices the shapes fit, so only the numbers can catch
# it (the central difference is written inline, so this cell runs before
# your exercise is done):

# %%
def wrong_matmul_grad_a(a, b, grad):
    return grad @ b  # a missing transpose: on a square matrix the shapes fit


rng = np.random.default_rng(2)  # this cell's own numbers, whatever ran before it
an, bn = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
G = rng.normal(size=(3, 3))
numeric = np.zeros_like(an)
for idx in np.ndindex(*an.shape):  # the same central difference, written inline
    up, down = an.copy(), an.copy()
    up[idx] += 1e-6
    down[idx] -= 1e-6
    numeric[idx] = (((up @ bn) * G).sum() - ((down @ bn) * G).sum()) / 2e-6
at = sg.tensor(an, requires_grad=True)  # the engine's own rule, for comparison
((at @ sg.tensor(bn)) * sg.tensor(G)).sum().backward()
print("largest error of the wrong rule:     ", np.abs(wrong_matmul_grad_a(an, bn, G) - numeric).max().round(3))
print("the engine's gradient agrees to 1e-6:", np.abs(at.grad.numpy() - numeric).max() < 1e-6)

# %% [markdown]
# `sg.gradcheck` catches such a rule with its table. It needs a Tensor function
# whose backward is wrong, so here is one made wrong on purpose: `t.detach()` is
# `t`'s numbers without their history (more on it below), so autograd takes
# that factor of `t * t.detach()` for a constant and finds half the gradient
# that the central differences measure (`t` where it is `2 t`). Each row of the table names the
# input, the entry, the two gradients and their difference, worst first:

# %%
sg.manual_seed(0)
wrong_on_purpose = sg.randn(2, 3, requires_grad=True)
try:
    sg.gradcheck(lambda t: t * t.detach(), [wrong_on_purpose])
except RuntimeError as err:  # a GradcheckError, which is a kind of RuntimeError
    print(f"{type(err).__name__}: {err}")

# %% [markdown]
# ## Switching the recording off: `requires_grad`, `no_grad`, `detach`
#
# Recording a graph costs time and memory, so the engine records only what
# could need a gradient:
#
# - **`requires_grad`** marks a leaf tensor as a parameter: ops that touch it
#   record nodes, and its `.grad` gets filled. Data and targets leave it off.
#   Only floating-point tensors can require gradients.
# - **`with sg.no_grad():`** turns recording off in a block: results have no
#   `grad_fn`. Use it for evaluation, and for optimizer updates, which must not
#   become part of the next step's graph.
# - **`t.detach()`** returns a tensor with the same numbers and no history: the
#   gradient stops there. Use it to treat a value as a constant.

# %%
w = sg.tensor([1.0, 2.0], requires_grad=True)
with sg.no_grad():
    y = w * 3
print("inside no_grad:", y.requires_grad, y.grad_fn)

z = (w * w).detach() * w          # the first factor is a constant now
z.sum().backward()
print("d/dw of detach(w*w) * w =", w.grad.numpy().tolist(), "(just w*w, not 3 w^2)")

try:
    sg.tensor([1, 2, 3]).requires_grad = True
except RuntimeError as err:
    print("RuntimeError:", err)

# %% [markdown]
# ## Stretch (optional) · `softmax_backward`
#
# Softmax turns a row of scores into probabilities,
# `y_i = exp(x_i) / sum_k exp(x_k)`: every output depends on every input of
# its row, so its backward is not elementwise. Given the
# softmax's *output* `y` and the gradient of the loss with respect to `y`,
# return the gradient with respect to the scores. Derive it yourself (the
# chain rule over a whole row), then check it against your
# `numerical_gradient`. Only the contract below to go on;
# `hint("08", "softmax_backward")` when you want it. Its points are counted apart.

# %%
#| exercise: softmax_backward
#| hint: every output of a row depends on every input of it: write d y_i / d x_j for i == j and i != j
def softmax_backward(y, grad, axis=-1):
    """The gradient of a softmax with respect to its input, from its output.

    ``y = softmax(x, axis)`` (every slice along ``axis`` is positive and sums to
    1) and ``grad = dL/dy`` have the same shape and float dtype (any rank >= 1,
    ``axis`` an int, negative too); returns ``dL/dx``, a new array of that shape
    and dtype. Neither ``y`` nor ``grad`` is changed.

    Example:
        >>> softmax_backward(np.array([0.25, 0.75]), np.array([1.0, 0.0]))
        array([ 0.1875, -0.1875])
        >>> softmax_backward(np.array([0.25, 0.75]), np.array([1.0, 1.0]))   # a constant shift
        array([0., 0.])
    """
    ### BEGIN SOLUTION
    return y * (grad - (grad * y).sum(axis=axis, keepdims=True))
    ### END SOLUTION

# %%
#| check: softmax_backward

# %% [markdown]
# ## Checkpoint
#
# Run the whole checkpoint once every exercise is done; the stretch above is
# counted apart, as optional.

# %%
#| check: all

# %% [markdown]
# ## Milestone: the library's autograd runs on your rules
#
# Every backward node of the library's `Tensor` calls your rules through
# `stridegrad.tensor.rules` once they pass: an op that broadcast its inputs
# sends the gradient back through your `unbroadcast`, `sum` and `mean` through
# your `sum_backward`, `max` through your `max_backward`, `@` through your
# `matmul_backward`, and `sg.gradcheck` measures with your
# `numerical_gradient`. The cell below swaps in each of yours that passes
# its checkpoint, computes the gradients of a two-layer network on the `cpu`
# device (a broadcast bias, matmuls, `tanh`, a `max` and sums) and checks them
# against central differences. It reads your
# *saved* notebooks: save this one first (Ctrl+S). Its report names which of
# your functions did the work, and which were the library's own and why.

# %% tags=["nbval-ignore-output"]
from stridegrad.course.milestones import milestone

milestone("08");

# %% [markdown]
# ## Where this is in PyTorch
#
# | here | PyTorch |
# |---|---|
# | `z.grad_fn`, `next_functions` | the same names: `z.grad_fn.next_functions` |
# | saved arrays on the node (`z.grad_fn.a`) | `z.grad_fn._saved_self`, `_saved_mat2` for a matrix product (`MmBackward0`); `torch.autograd.graph.saved_tensors_hooks` |
# | `unbroadcast` | `at::sum_to` in C++ (`sum_to_size` in Python) |
# | `sum_backward`, `max_backward`, `matmul_backward` | `tools/autograd/derivatives.yaml`: one formula per op; for `mm`, `self`'s gradient is `grad @ mat2.T` (`mm_mat1_backward`) |
# | the retain_graph error | the same message, `retain_graph=True` |
# | `numerical_gradient`, `sg.gradcheck` | `torch.autograd.gradcheck` (float64, central differences) |
# | `no_grad`, `detach`, `requires_grad` | `torch.no_grad`, `Tensor.detach`, `requires_grad_()` |
#
# PyTorch's `max(dim)` returns indices and sends the gradient to one entry per
# slice; `amax` splits it between ties as ours does.

# %% [markdown]
# ## Going further
#
# 1. **Batched matmul.** Extend `matmul_backward` to `(B, n, k) @ (k, m)`: what is
#    `grad_b`'s shape, and where does `unbroadcast` come in?
# 2. **Min and ties.** Should `x.min()` split the gradient between ties, or give it all
#    to the first one? At a tie `min` has no derivative, so neither is wrong. Work out
#    by hand what the central difference gives on `[1, 1, 2]`: which of the two rules
#    does `gradcheck` agree with, and what happens when the two entries are `1e-9` apart?
#    (Make that tensor float64, `sg.tensor([1.0, 1.0 + 1e-9, 2.0], dtype=sg.float64,
#    requires_grad=True)`: in the default float32, `1 + 1e-9` is exactly 1, a tie again.)
# 3. **Memory.** Take `relu(x @ W1) @ W2` for a batch `x` of 64 rows of 784 inputs,
#    `W1` of shape `(784, 128)` and `W2` of shape `(128, 10)`, all float32 (4 bytes a
#    number). Say each matmul node saves both of its inputs and the relu node saves its
#    input, `x @ W1`. How many bytes does the graph keep for backward? Now let relu save
#    its output instead (as stridegrad's `ReluBackward` does, since `d relu` needs only
#    to know where the output is positive): which array no longer has to be kept, and
#    how many bytes does that spare?
