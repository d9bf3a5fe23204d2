# %% [markdown]
# # 06 · Scalar autograd
#
# In lesson 05 you worked out the gradient of a line fit by hand. For a real
# network that is hopeless: thousands of operations, and one slip in the
# algebra gives a model that quietly trains badly. This lesson builds the
# machine that does it for you, **reverse-mode automatic differentiation**, on
# single numbers, in about forty lines.
#
# The idea fits in one sentence: every operation writes down how to send a
# gradient back to its inputs, and `backward()` replays those notes in the
# right order.
#
# **By the end you can**
#
# - explain why the chain rule needs a record of the operations, and read a
#   computation graph;
# - write operations (`add`, `mul`, `tanh`) that record a **backward closure**
#   capturing their inputs;
# - put a graph in **topological order** without recursion
#   (`topological_order`), and say why a 10,000-step chain breaks the
#   recursive version;
# - run the backward pass (`backward`), and explain why gradients must be
#   **accumulated** with `+=`;
# - check any gradient against a **finite difference** (`central_difference`).

# %%
#| setup
from stridegrad.course import check, hint
import math
import matplotlib.pyplot as plt
import stridegrad as sg
from stridegrad.viz import draw_graph

# %% [markdown]
# ## The chain rule, and why it needs a record
#
# Take `f(x) = (3x + 1)²`. It is two steps: `u = 3x + 1`, then `f = u²`. The
# chain rule says the slopes multiply: `df/dx = df/du · du/dx = 2u · 3`. At
# `x = 1`, `u = 4`, so the slope is `2 · 4 · 3 = 24`.
#
# Notice what we needed: the **value of `u`** from the forward computation,
# and the **local slope of each step** on its own. Neither step needs to know
# about the other. A program that computed `f` can therefore get its
# derivative if, while it runs, each operation keeps (1) its inputs and (2) a
# note of its local derivative. That record is the **computation graph**.
#
# Below, `g` is the gradient computed by the chain rule, and we check it
# numerically: nudge `x` a little both ways and measure the slope. (From now
# on, `g` always names a gradient arriving at a node.)

# %%
x = 1.0
u = 3 * x + 1
g = 2 * u * 3  # df/du * du/dx
f = lambda x: (3 * x + 1) ** 2
h = 1e-4
print("chain rule:", g)
print("measured:  ", round((f(x + h) - f(x - h)) / (2 * h), 6))

# %% [markdown]
# ## The graph of `z = x * y + b`
#
# Here is a computation graph, made by the library's finished engine,
# `sg.Value` (you are about to write your own). Boxes are values, circles the
# operations that made them. Data flows left to right; gradients will flow
# right to left. The colours say what kind of value a box is, in every graph
# of this lesson: **blue**, a leaf (a value made directly, not by an
# operation: here `x`, `y` and `b`); **grey**, an intermediate result; and
# **orange**, the root, the value the graph is drawn from and `backward` starts
# from (here `z`).

# %%
x, y, b = sg.Value(2.0), sg.Value(-3.0), sg.Value(10.0)
z = x * y + b
names = {x: "x", y: "y", b: "b", z: "z"}
draw_graph(z, labels=names, title="z = x * y + b, before backward")
plt.show()

# %% [markdown]
# Every `grad` is 0: nothing has been differentiated yet. Now ask for
# `dz/d(everything)`:
#
# - `dz/dz = 1`, by definition;
# - `+` passes the gradient through unchanged: `dz/d(xy) = 1`, `dz/db = 1`;
# - `*` sends each input **the other input** times the incoming gradient:
#   `dz/dx = y · 1 = -3` and `dz/dy = x · 1 = 2`.

# %%
z.backward()
draw_graph(z, labels=names, title="z = x * y + b, after z.backward()")
plt.show()

# %% [markdown]
# Each step used only the gradient arriving from the right and numbers saved
# during the forward pass. That is all reverse mode is.

# %% [markdown]
# ## A Value that remembers how it was made
#
# Here is our own `Value`. It holds a number (`data`), its gradient (`grad`),
# the Values it was computed from (`_prev`), the name of the operation that
# made it (`_op`: `"+"`, `"*"`, `"tanh"`, or `""` for a leaf; the pictures
# write it in the circles), and `_backward`, a **closure** that the operation
# fills in. `label` is something else: an optional name of your own, such as
# `"x"`, which the pictures write in the value's box.
#
# The contract of a closure is `_backward(g)`: given `g`, the gradient of this
# node, it **adds** each input's share into that input's `grad`. The closure
# *captures the inputs* (`a` and `b`), never the node it is stored in. If it
# captured its own output, every node would point to itself through its
# closure: a reference cycle. Dropping the loss would then no longer free the
# graph at once; it would wait, memory and all, for Python's cycle collector,
# which runs only now and then. Lesson 07 measures what that costs.
#
# The operators just call functions that you will write below (`add`, `mul`,
# `tanh`, `backward`), looked up when they run.

# %%
class Value:
    """A scalar that remembers how it was made (lesson 06's engine)."""

    def __init__(self, data, children=(), op="", label=""):
        self.data = float(data)
        self.grad = 0.0
        self._prev = tuple(children)  # the input Values, in operand order
        self._op = op  # the operation that made it: "+", "*", "tanh"; "" for a leaf
        self._backward = None  # the closure _backward(g); None for a leaf
        self.label = label

    def __repr__(self):
        name = f"{self.label}: " if self.label else ""
        return f"Value({name}data={self.data:.4g}, grad={self.grad:.4g})"

    def __add__(self, other):
        return add(self, as_value(other))

    def __radd__(self, other):
        return add(as_value(other), self)

    def __mul__(self, other):
        return mul(self, as_value(other))

    def __rmul__(self, other):
        return mul(as_value(other), self)

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-as_value(other))

    def tanh(self):
        return tanh(self)

    def backward(self):
        backward(self)


def as_value(x):
    """``x`` itself if it is a Value, else a new leaf Value holding the number ``x``."""
    return x if isinstance(x, Value) else Value(x)

# %% [markdown]
# ## The bug first: a Value used twice
#
# Here is a first try at multiplication. It looks right: `d(a·b)/da = b`, so
# `a.grad = b.data * g`.

# %%
def mul_that_overwrites(a, b):
    out = Value(a.data * b.data, (a, b), "*")

    def _backward(g):
        a.grad = b.data * g  # = where += belongs
        b.grad = a.data * g

    out._backward = _backward
    return out


x = Value(3.0, label="x")
y = mul_that_overwrites(x, x)
y._backward(1.0)
print(f"x * x at x = 3: got dy/dx = {x.grad}, but d(x²)/dx = 2x = 6")

# %% [markdown]
# `x * x` uses `x` in both input slots. The closure first writes `a.grad = 3`,
# then writes `b.grad = 3` into **the same object**, and the first share is
# lost. The rule it breaks: when a value feeds several uses, its gradient is
# the **sum** of what each use sends back (the multivariable chain rule adds
# one term per path). The same bug strikes, less visibly, whenever a value is
# used in two different places of a graph, like a weight used for every
# example of a batch.
#
# The fix is one character: every closure **adds** into its inputs' `grad`
# with `+=`. That also means gradients must start at 0, so a training loop
# resets them before every backward pass (lesson 09 writes that reset,
# PyTorch's `zero_grad()`).

# %% [markdown]
# ## Exercise 1 · `add`
#
# Write `add(a, b)`: a new Value holding `a.data + b.data`, remembering its
# inputs `(a, b)` and its operation `"+"` (its `_op`), with a closure that
# sends the incoming gradient to both inputs (the slope of `a + b` is 1 in
# each).

# %%
#| exercise: stridegrad.course.designs.add
#| hint: how much does a + b change when a changes a little? each input gets that share of g

# %%
#| check: add

# %% [markdown]
# ## Exercise 2 · `mul`
#
# Now multiplication, with `+=`: each input receives the **other** input's
# data times the incoming gradient.

# %%
#| exercise: stridegrad.course.designs.mul
#| hint: the same shape as add; only the local derivatives change

# %% [markdown]
# Two tries of your `mul`. With `x = 3` and `y = -2`, `x * y` must send
# `y = -2` to `x` and `x = 3` to `y`: a closure that gives each input its own
# number swaps the two. Then `x * x` must give `x` both shares, `2x = 6`. (On
# `x * x` alone the swap would not show: both inputs hold 3.)

# %%
#| calls-exercise
x, y = Value(3.0, label="x"), Value(-2.0, label="y")
z = x * y
z._backward(1.0)
print(f"x * y at x = 3, y = -2: dz/dx = {x.grad} (y), dz/dy = {y.grad} (x)")
x = Value(3.0, label="x")
square = x * x
square._backward(1.0)
print(f"x * x at x = 3: d(x²)/dx = {x.grad} (2x)")

# %%
#| check: mul

# %% [markdown]
# ## Exercise 3 · `tanh`
#
# A network needs something that is not a straight line. `tanh` squashes any
# number into `(-1, 1)`; its derivative is `1 - tanh(a)²`. The closure can
# reuse the output number `t = tanh(a.data)` it already computed (a number,
# not the output Value: capture `t`, not `out`).

# %%
#| exercise: stridegrad.course.designs.tanh
#| hint: the derivative of tanh can be written with tanh itself

# %%
#| calls-exercise
xs = [i / 10 for i in range(-30, 31)]
slopes = []
for v in xs:
    a = Value(v)
    tanh(a)._backward(1.0)
    slopes.append(a.grad)
fig, ax = plt.subplots(figsize=(6, 2.6))
ax.plot(xs, [math.tanh(v) for v in xs], label="tanh(a)")
ax.plot(xs, slopes, label="a.grad from your closure")
ax.axhline(0, color="grey", linewidth=0.5)
ax.set_xlabel("a")
ax.legend()
fig.tight_layout()
plt.show()

# %%
#| check: tanh

# %% [markdown]
# ## Backward by hand, and why order matters
#
# With the three operations we can build `z = x * y + b` ourselves and call
# the closures by hand. The order is forced: `z`'s closure fills in `xy.grad`,
# and only then may `xy`'s closure pass it on. Call them the other way round
# and `xy` would pass on a gradient of 0.

# %%
#| calls-exercise
x, y, b = Value(2.0, label="x"), Value(-3.0, label="y"), Value(10.0, label="b")
xy = x * y
z = xy + b
z.grad = 1.0
z._backward(z.grad)  # first the output...
xy._backward(xy.grad)  # ...then the node it fed
print(x, y, b, sep="\n")

# %% [markdown]
# For a graph of thousands of nodes we need that order computed: every node
# must run **after all the nodes that use it**. Listed the other way (each
# node after all of its *inputs*), that is a **topological order**; backward
# walks it in reverse.
#
# ## Ordering the graph: recursion first
#
# The classic way is a depth-first search: to list a node, first list its
# inputs, then the node. Here it is as micrograd writes it (micrograd is
# Andrej Karpathy's scalar autograd engine, about 100 lines; the `Value` of
# this lesson follows its design):

# %%
def topological_order_recursive(root):
    order, visited = [], set()

    def visit(node):
        if node not in visited:
            visited.add(node)
            for child in node._prev:
                visit(child)
            order.append(node)

    visit(root)
    return order


x, y, b = Value(2.0, label="x"), Value(-3.0, label="y"), Value(10.0, label="b")
xy = Value(-6.0, (x, y), "*", label="xy")  # the graph of z = x * y + b, wired by hand
z = Value(4.0, (xy, b), "+", label="z")
[v.label for v in topological_order_recursive(z)]

# %% [markdown]
# It works, until the graph gets deep. Every nested `visit` is a Python
# frame, and Python stops at its recursion limit (1,000 frames by default,
# in a notebook too). A recurrent network unrolled over a long sequence, or a
# loop of 10,000 small updates, is exactly such a chain:

# %%
chain = Value(1.0, label="x0")
for step in range(10_000):
    chain = Value(chain.data, (chain,), "copy")  # a 10,000-step chain, wired by hand
try:
    topological_order_recursive(chain)
except RecursionError:
    print("RecursionError: the chain is deeper than Python's recursion limit")

# %% [markdown]
# Raising the limit with `sys.setrecursionlimit` only moves the wall: a
# deeper graph hits it again, and on some Python versions a very high limit
# overflows the C stack and crashes the interpreter. The fix is to keep the
# stack ourselves, in a list: a list can hold millions of entries.
#
# ## Exercise 4 · `topological_order`, with an explicit stack
#
# Write `topological_order(root)`: every Value that `root` depends on, `root`
# included, each listed once and after all of its inputs, so `root` comes
# last. It must handle `chain`, 10,000 steps deep, at the default recursion
# limit. The recursive version keeps its work to do in Python's call stack,
# one frame per level; yours keeps it in a list.
#
# Questions to settle before you write it:
#
# - A node comes off your stack. May it go into the order right away, or do
#   its inputs still have to be listed? The recursive version appends a node
#   only once the loop over its inputs has returned: what on your stack can
#   stand for "its inputs are done"?
# - `x * x` reaches `x` twice, and a weight may feed a thousand nodes. What
#   keeps a node from being listed twice?
# - In `z = y + w` with `y = w * 3`, `w` is one step from `z` directly and two
#   steps through `y`. Which must come first in the order, `w` or `y`?
#
# Your order may differ from the recursive one. Push the inputs of `z = x * y + b`
# in operand order and the last one pushed comes off first, giving
# `['b', 'y', 'x', 'xy', 'z']` instead of `['x', 'y', 'xy', 'b', 'z']`. Both
# are right: any order that lists every node after all of its inputs works for
# `backward`, and the checkpoint accepts each of them. (Push the inputs in
# reverse to get exactly the recursive order.)

# %%
#| exercise: stridegrad.scalar.topological_order
#| hint: recursion would do it, but 10,000 nodes are too deep: what can stand in for the call stack?

# %%
#| calls-exercise
print([v.label for v in topological_order(z)])
print(len(topological_order(chain)), "nodes, no RecursionError")

# %%
#| check: topological_order

# %% [markdown]
# ## Exercise 5 · `backward`
#
# Now the engine itself. `backward(root)` fills in the `grad` of every Value
# that `root` depends on with `d(root)/d(value)`. Afterwards:
#
# - `root.grad` is 1.0;
# - an interior node (one with a closure) holds this call's gradient only:
#   call `backward` twice and `xy.grad` is the same both times;
# - a leaf keeps what it had and adds this call's gradient to it, like
#   PyTorch's parameters (a training loop zeroes them between steps).
#
# One case these rules leave open: `backward(x)` on a leaf `x` itself, when
# `x.grad` is not 0 already. The library's engines (the solution's and
# `sg.Value`'s) set `root.grad` to 1.0 whatever it held (the first rule wins),
# where PyTorch would add 1 to it; the tests do not ask, so either passes.
#
# Questions to settle first:
#
# - A closure passes `node.grad` on to the node's inputs. When is `node.grad`
#   complete: whose closures must have run before? Which way through
#   `topological_order` gives you that?
# - What is the root's own gradient, `d(root)/d(root)`, and who puts it there?
# - On a second call, what is already in `xy.grad` before the pass starts?
#   And in `x.grad`, which must keep it?
# - A leaf has no closure. What do you do with it?

# %%
#| exercise: stridegrad.scalar.backward
#| hint: in which order must the closures run, so that a node has all its gradient before passing it on?

# %%
#| calls-exercise
x, y, b = Value(2.0, label="x"), Value(-3.0, label="y"), Value(10.0, label="b")
z = x * y + b
z.label = "z"
z.backward()
draw_graph(z, title="your engine: z = x * y + b")
plt.show()

# %%
#| check: backward

# %% [markdown]
# ## The worked example: one neuron, one squared error
#
# A neuron with weights `w = [0.5, -1.0, 2.0]` and bias `0.5` sees the input
# `x = [4.0, 3.0, 2.0]`; the target is `2.5`. By hand:
#
# - prediction `p = 0.5·4 - 1·3 + 2·2 + 0.5 = 3.5`;
# - loss `L = (p - 2.5)² = 1.0`;
# - `dL/dp = 2(p - 2.5) = 2`, so `dL/db = 2` and `dL/dw_i = 2 · x_i = [8, 6, 4]`.
#
# The square is written `d * d`: one Value used twice, so the accumulation you
# fixed above is what makes `dL/dp` come out as 2 and not 1.
#
# In the picture, the blue boxes are the leaves: the parameters we named
# (`w0`, `w1`, `w2`, `b`) and, without a name, the constants that the
# operators wrapped into Values: the inputs 4, 3 and 2, the target 2.5, and
# the -1 that subtraction multiplies by. The constants get gradients too;
# nobody reads them. The grey boxes are intermediate results, `d` among them.

# %%
#| calls-exercise
w = [Value(0.5, label="w0"), Value(-1.0, label="w1"), Value(2.0, label="w2")]
inputs = [4.0, 3.0, 2.0]
bias = Value(0.5, label="b")
prediction = w[0] * inputs[0] + w[1] * inputs[1] + w[2] * inputs[2] + bias
d = prediction - 2.5
d.label = "d"
loss = d * d
loss.backward()
print("prediction", prediction.data)
print("loss      ", loss.data)
print("dL/db     ", bias.grad)
print("dL/dw     ", [wi.grad for wi in w])
loss.label, prediction.label = "loss", "p"
draw_graph(loss, title="the worked example")
plt.show()

# %% [markdown]
# ## Exercise 6 · `central_difference`: trust, but check
#
# A wrong local derivative does not crash anything: it just gives wrong
# gradients. The standard safety net compares each gradient with a
# measurement: nudge one input by `h` each way and take the slope,
# `(f(x + h) - f(x - h)) / 2h`. This **central** difference is much more
# accurate than the one-sided `(f(x + h) - f(x)) / h`: its error shrinks like
# `h²` rather than `h`.
#
# `xs` belongs to the caller. `f` may keep the list it is given, or read `xs`
# itself, so never hand `f` the list `xs`, not even nudged for a moment and put
# back: call it with copies, a new list for each of the two calls, with
# `xs[i]` moved by `+h` in one and `-h` in the other. That is what the
# docstring's "change copies of it" means: `xs` must be as it was not only
# after the call but all through it. That is what Python and NumPy users expect of a
# function (SciPy's `approx_fprime` too). PyTorch's `gradcheck` is the
# exception: it nudges the input tensor in place and puts each number back, to
# spare copying a big tensor; a list of a few numbers costs nothing to copy.

# %%
#| exercise: stridegrad.course.designs.central_difference
#| hint: a slope between two nearby points; never change xs itself

# %%
#| check: central_difference

# %% [markdown]
# Now check the worked example, and a neuron with a `tanh`, input by input.
# `f` rebuilds the graph from plain numbers, so the measurement never touches
# autograd.

# %%
#| calls-exercise
def neuron_loss(params, squash=False):
    *ws, bias = [Value(p) for p in params]
    p = sum((wi * xi for wi, xi in zip(ws, inputs)), bias)
    if squash:
        p = p.tanh()
    d = p - 2.5
    return d * d, ws + [bias]


for squash in (False, True):
    params = [0.5, -1.0, 2.0, 0.5] if not squash else [0.1, -0.2, 0.3, 0.05]
    loss, leaves = neuron_loss(params, squash)
    loss.backward()
    measured = [central_difference(lambda ps: neuron_loss(ps, squash)[0].data, params, i)
                for i in range(len(params))]
    worst = max(abs(leaf.grad - m) for leaf, m in zip(leaves, measured))
    print(f"{'tanh neuron' if squash else 'plain neuron'}: autograd {[round(l.grad, 6) for l in leaves]}")
    print(f"{'':13} measured {[round(m, 6) for m in measured]}   agree: {worst < 1e-6}")

# %% [markdown]
# ## Stretch (optional) · `power`: `a ** n`
#
# One more operation for the engine: a Value raised to a constant power, so
# that `power(x, 2)` and `power(x, -1)`, that is `x ** 2` and `1 / x`, get
# gradients too. (Our `Value` has no `**` or `/` operator: you call `power`
# yourself. The library's `sg.Value` has both.) It is a closure like `tanh`'s; the slope is yours to work out.
#
# Mind `a = 0`. The slope of `a**3` there is 0 and the slope of `a**1` is 1.
# `a**0` is the constant 1, so its slope is 0 at every `a`, 0 included, as in
# PyTorch. (A negative power of 0 has no value at all, and a fractional power
# has no finite slope at 0: neither is asked.) Only the contract below to go
# on; `hint("06", "power")` when you want it. Its points are counted apart
# from the lesson's.

# %%
#| exercise: stridegrad.course.designs.power
#| hint: one input and one local derivative, like tanh: what is the slope of a**n?

# %%
#| check: power

# %% [markdown]
# ## Checkpoint
#
# Run the whole checkpoint once every exercise is done. Points are what an
# instructor's `stridegrad grade` would give this notebook; the stretch above
# is counted apart, as optional.

# %%
#| check: all

# %% [markdown]
# ## Where this is in PyTorch
#
# | here | PyTorch |
# |---|---|
# | `Value(3.0)` | `torch.tensor(3.0, requires_grad=True)` |
# | `_prev`, `_op`, the closure | `t.grad_fn`, an object per operation (`MulBackward0`...) with `next_functions` edges: lesson 07 |
# | `topological_order` + reverse walk | the C++ engine counts each node's dependencies and runs nodes from a ready queue; no recursion |
# | `+=` into `grad` | leaves' `.grad` accumulates across `backward()` calls: `optimizer.zero_grad()` resets it |
# | interior grads reset each call | PyTorch keeps no `.grad` on interior tensors at all, unless you call `t.retain_grad()` |
# | `central_difference` | `torch.autograd.gradcheck(f, inputs)` (float64, central differences) |
#
# The library's own `sg.Value` (used for the first picture) is this engine
# tuned: no closure per node, but one shared rule per operation, which takes
# `g` and the plain numbers the node saved and *returns* the inputs'
# gradients; the engine does the `+=`, so no rule can forget it.

# %% [markdown]
# ## Going further
#
# 1. **A kink.** Add `relu(a)`, which is `max(a, 0)`. Its slope is 0 left of
#    0 and 1 right of it: what do you give at exactly 0? (PyTorch gives 0.)
#    Now measure it there with `central_difference` and `h = 1e-3`. What does
#    it report, why, and does that make your gradient wrong?
# 2. **How small should `h` be?** Plot the error of `central_difference` for
#    `exp` at 1 against `h` from `1e-1` down to `1e-12` (log-log). Why does it
#    fall, then rise again?
# 3. **A second order.** Our `backward` needs the whole graph before it
#    starts. Write a version that, like PyTorch, first counts for each node how
#    many users it has, and runs a node as soon as all of them have sent their
#    gradient (a ready queue). Lesson 07 does it with explicit edges.
