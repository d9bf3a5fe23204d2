# %% [markdown]
# # 07 · Two autograd designs
#
# Lesson 06's engine hangs a backward closure on every value. It works, and
# it is the clearest picture of reverse mode. PyTorch is organised
# differently: a tensor is a thin handle with a pointer to a **node**, one
# object per backward function, and the nodes are joined by explicit
# **edges**. This lesson builds that second design, puts the two side by
# side, and measures them.
#
# The question underneath is **where autograd state should live**: inside
# each value (its gradient, its inputs, its closure), or in shared graph nodes
# that values merely point to? The answer decides what `detach()`, views and
# shared histories cost. Freeing is a separate question: either design frees a
# dropped graph at once, unless a closure captures its own output (micrograd's
# does); we measure what that one detail costs.
#
# **By the end you can**
#
# - describe PyTorch's autograd layout: `grad_fn`, `next_functions` edges
#   with an input number, `AccumulateGrad` for leaves;
# - find the edge an operation stores for each input (`gradient_edge`) and
#   record an operation as a node (`var_mul`);
# - run a backward pass the way PyTorch's engine does, by counting
#   dependencies (`count_dependencies`, `run_backward`);
# - explain what `detach()` and a shared history mean in each design;
# - measure what only the cycle collector can free (`count_cycle_garbage`),
#   and read a time and memory table of both designs.

# %%
#| setup
from stridegrad.course import check, hint
import gc
import math
import time
import tracemalloc
import matplotlib.pyplot as plt
import stridegrad as sg
from stridegrad.viz import draw_graph
from stridegrad.course.designs import (  # lesson 06's engine, and this lesson's classes
    Value, CapturingValue, Var, Node, AccumulateGrad, AddBackward, MulBackward,
    TanhBackward, grad_accumulator,
)

# %% [markdown]
# ## Design A: a closure per node
#
# In lesson 06 every `Value` carries all of its autograd state itself. Look
# inside one:

# %%
x, y = Value(2.0, label="x"), Value(-3.0, label="y")
xy = x * y
for name, value in vars(xy).items():
    print(f"{name:10}", f"a closure, {value.__qualname__}" if callable(value) else repr(value))

# %% [markdown]
# The value **is** the graph node: its number, its gradient, its inputs and
# its backward closure all live in one object. Simple, and for scalars it is
# hard to beat. But every value, even one you will never ask about, stores a
# gradient, and the graph is made of the values themselves.
#
# ## Design B: handles that point at nodes (PyTorch's layout)
#
# PyTorch splits the two roles:
#
# - a **tensor** (here a `Var`) is a handle: its data, `requires_grad`,
#   `grad` (only leaves get one), and `grad_fn`, the node that made it, with
#   `output_nr` saying which of that node's outputs it is. A `Var` with a
#   `grad_fn` requires grad: `Var(v, grad_fn=node)` sets `requires_grad` to
#   True by itself, as PyTorch's `(x * y).requires_grad` is True when `x`
#   requires grad;
# - a **node** is one backward function (`MulBackward`, `AddBackward`, ...).
#   It holds what its backward needs (the saved inputs) and its edges,
#   `next_functions`: one `(node, input_nr)` pair per input of the operation,
#   pointing at the node that made that input;
# - a **leaf** that requires grad (a parameter) has no `grad_fn`. Edges to it
#   point at its `AccumulateGrad` node, whose only job is to add the gradient
#   that arrives into the leaf's `.grad`. One leaf, one accumulator, however
#   many times the leaf is used.
#
# `input_nr` matters for operations with several outputs (PyTorch's `unbind`
# or `split` send each output's gradient to a different input slot of one
# node). All our operations have one output, so it is always 0 here, but we
# keep it, to read PyTorch's graphs as they are.
#
# The classes are given; look at two of them:

# %%
import inspect
print(inspect.getsource(MulBackward))
print(inspect.getsource(AccumulateGrad))

# %% [markdown]
# ## Exercise 1 · `gradient_edge`
#
# An operation that takes `var` as an input stores one edge for it,
# `(node, input_nr)`: where the backward pass must send `var`'s gradient when
# it reaches the operation. `gradient_edge(var)` finds that edge. Three kinds
# of `Var` can come in; for each, ask where its gradient should go:
#
# - `xy = x * y`, made by an operation: which node turns `xy`'s gradient into
#   gradients for `x` and `y`, and which of that node's outputs is `xy`?
# - `x`, a leaf with `requires_grad=True`: no node made it. Which node writes
#   `x.grad`, and why must every use of `x` reach the *same* one?
#   `grad_accumulator(var)` returns the same accumulator for as long as some
#   graph still holds it: the leaf keeps only a weak reference, as in PyTorch,
#   so once no graph uses it a later call makes a new one.
# - `Var(3.0)`, a constant: who wants its gradient?
#
# One trap: `xy` requires grad too, since it has a `grad_fn`. Which question
# must you ask first?
#
# Whichever the case, return a tuple of two. An edge that leads nowhere is
# exactly `(None, 0)`: PyTorch prints it so in `next_functions` too.

# %%
#| exercise: stridegrad.course.designs.gradient_edge
#| hint: three kinds of Var: made by an operation, a leaf wanting a gradient, anything else

# %%
#| check: gradient_edge

# %% [markdown]
# ## Exercise 2 · `var_mul`: an operation records a node
#
# With edges in hand, an operation is short. Here is addition: compute the
# number, and if any input wants a gradient, make the node with one edge per
# input.

# %%
def var_add(a, b):
    """``a + b`` in design B."""
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data + b.data)
    node = AddBackward((gradient_edge(a), gradient_edge(b)))
    return Var(a.data + b.data, grad_fn=node)


def var_tanh(a):
    """``tanh(a)`` in design B."""
    t = math.tanh(a.data)
    if not a.requires_grad:
        return Var(t)
    return Var(t, grad_fn=TanhBackward((gradient_edge(a),), t))

# %% [markdown]
# Now write multiplication. When does a product need a node at all? When it
# does, look at `MulBackward` above: what does its `apply` read, and in which
# order must its edges come? Give it **numbers**, not the `Var`s: a node
# keeps alive only what its backward needs.

# %%
#| exercise: stridegrad.course.designs.var_mul
#| hint: when does a product need a history at all, and what must its node remember?

# %%
#| calls-exercise
x, y, b = Var(2.0, requires_grad=True, label="x"), Var(-3.0, requires_grad=True, label="y"), \
    Var(10.0, requires_grad=True, label="b")
xy = var_mul(x, y)
z = var_add(xy, b)
print("z                        ", z)
print("z.grad_fn.next_functions ", z.grad_fn.next_functions)
print("xy.grad_fn.next_functions", xy.grad_fn.next_functions)

# %%
#| check: var_mul

# %% [markdown]
# ## Running backward over nodes
#
# PyTorch's engine does not sort the whole graph first. It counts, for every
# node, how many edges point at it (its **dependencies**), starts at the
# root's node with gradient 1, and keeps a list of nodes that are **ready**:
# all of their gradients have arrived. Running a node sends one gradient down
# each of its edges, into the next node's **buffer** (added, `+=`, as in
# lesson 06), and a node whose count drops to 0 becomes ready.
#
# ## Exercise 3 · `count_dependencies`
#
# Count edges, not nodes: in `x * x`, two edges lead to `x`'s accumulator, so
# it must wait for two gradients. And explore each node once, with a stack.

# %%
#| exercise: stridegrad.course.designs.count_dependencies
#| hint: walk the nodes once each, but count every edge

# %%
#| calls-exercise
z = var_add(var_mul(x, y), b)  # z = x * y + b again
[(node.variable.label if isinstance(node, AccumulateGrad) else node.name(), n)
 for node, n in count_dependencies(z.grad_fn).items()]

# %%
#| check: count_dependencies

# %% [markdown]
# ## Exercise 4 · `run_backward`
#
# The engine. The gradients of interior values live only in `buffers`, a dict
# local to the call: when a node has run, its buffer is dropped. Only leaves
# end up with a `.grad`, through their `AccumulateGrad`.
#
# Why wait for every gradient before running a node? Running it once per
# arriving gradient gives the right sums for our linear backward steps, but it
# runs each node once per *path* to it: on a stack of diamonds that is 2, 4,
# 8, ... times, exponential in the depth, where counting runs each node once.
#
# To keep it short, our `run_backward` refuses a root without a `grad_fn`.
# PyTorch accepts `backward()` on a leaf that requires a gradient: it runs that
# leaf's `AccumulateGrad` alone, so `x.backward()` sets `x.grad` to 1. It
# refuses only a tensor that requires no gradient at all.

# %%
#| exercise: stridegrad.course.designs.run_backward
#| hint: a node runs only when all its shares of gradient have arrived: which function says how many?

# %% [markdown]
# The worked example of lesson 06, in design B: weights `[0.5, -1.0, 2.0]`,
# inputs `[4.0, 3.0, 2.0]`, bias `0.5`, target `2.5`.
#
# In the picture, square boxes are `Var`s (blue: the leaves `w0`, `w1`, `w2`
# and `b`; orange: `loss`) and rounded boxes the backward nodes that made
# them. The arrows follow the forward computation, as in lesson 06: from an
# input to the node of the operation that used it. The edges
# `next_functions` point the other way, from a node to its inputs' nodes,
# which is the way `run_backward` walks. The `AccumulateGrad` nodes and the
# constants are not drawn.

# %%
#| calls-exercise
w = [Var(v, requires_grad=True, label=f"w{i}") for i, v in enumerate([0.5, -1.0, 2.0])]
bias = Var(0.5, requires_grad=True, label="b")
p = bias
for wi, xi in zip(w, [4.0, 3.0, 2.0]):
    p = var_add(p, var_mul(wi, Var(xi)))
d = var_add(p, Var(-2.5))
loss = var_mul(d, d)
loss.label = "loss"
run_backward(loss)
print("prediction", p.data, " loss", loss.data)
print("dL/db", bias.grad, " dL/dw", [wi.grad for wi in w])
print("interior grads:", p.grad, d.grad, "(never stored)")
draw_graph(loss, title="design B: leaves, backward nodes and the loss "
           "(arrows: the forward computation)")
plt.show()

# %%
#| check: run_backward

# %% [markdown]
# ## Where should autograd state live?
#
# In design A the state lives **in each value**. In design B the handle holds
# only a pointer and the **graph lives in the nodes**, shared by whoever points
# at them. Three consequences:
#
# **`detach()`.** In B, detaching makes a new handle on the same data with
# `grad_fn = None`: the graph is untouched and other handles still reach it.
# For a scalar, A can do just as well: `Value(v.data)` is a new value with no
# history. The difference is in what is shared. B's handle, data and history
# are separate objects, so a detached handle shares the data by construction
# (PyTorch's `detach()` shares the storage and copies nothing). In A the data,
# the gradient and the history are one object, so "the same data without the
# history" is always a second object that must be told to share the data.
#
# **Two handles, one history.** In B any number of handles can point at the
# same node: gradients flowing into either one meet in that node's buffer.
# PyTorch uses this for operations with several outputs: the tensors that
# `unbind` or `split` return share one `grad_fn`, told apart by `output_nr`.
# A view gets its own handle and a small node of its own (`SelectBackward0`,
# `ViewBackward0`) whose edge leads into its base's history: one graph, many
# handles. In A the handle *is* the node, so there is no second handle to
# give.
#
# **Interior gradients.** In A every value keeps a `grad` for as long as the
# graph lives. In B they exist only in the engine's buffers during the pass.

# %%
#| calls-exercise
x, y, b = Var(2.0, requires_grad=True), Var(-3.0, requires_grad=True), Var(10.0, requires_grad=True)
z = var_add(var_mul(x, y), b)
zd = z.detach()
print("detached:", zd, "| z still has", z.grad_fn.next_functions)

alias = Var(z.data, grad_fn=z.grad_fn, output_nr=z.output_nr)  # a second handle on z's node
run_backward(var_add(z, alias))  # d(z + z)/dx = 2y
print("through two handles on one node: x.grad =", x.grad, "(2 * y)")

xa, ya = Value(2.0), Value(-3.0)
za = xa * ya + 10.0
za.backward()
print("design A keeps interior grads:", za._prev[0])

# %% [markdown]
# ## Memory: who frees the graph?
#
# CPython frees an object the moment its reference count drops to 0. A
# **reference cycle** (objects pointing at each other) never gets there: it
# waits for the **cycle collector**. That collector runs when enough new
# objects have been allocated, and finds cycles by walking the objects it
# tracks (the young ones often, all of them now and then). micrograd's
# closures capture their own output (`out._backward` refers to `out`), so
# *every node* is a cycle.
#
# ## Exercise 5 · `count_cycle_garbage`
#
# Measure it. With the automatic collector off (`gc.disable()`), anything
# freed by reference counting is gone at once, and whatever `gc.collect()`
# then finds was held only by cycles.

# %%
#| exercise: stridegrad.course.designs.count_cycle_garbage
#| hint: the gc module can switch the collector off, run it by hand and count what it finds

# %%
#| check: count_cycle_garbage

# %% [markdown]
# ## The same graph, four ways
#
# One graph for every design: `n` tanh units summed, `tanh(w_i * x_i + b)`,
# four operations each, every `w_i` and `x_i` a leaf. The contestants:
#
# - **A, capturing output**: micrograd's closures (`CapturingValue`);
# - **A, capturing inputs**: lesson 06's `Value`;
# - **B, nodes and edges**: this lesson's `Var`, `var_mul` and `run_backward`;
# - **library**: `sg.Value`, design A tuned (no closure per node: one shared
#   rule per operation, given the numbers the node saved, returns gradients).

# %%
def build_values(make, n):
    """The graph with operators (design A and the library), backward run."""
    b = make(0.1)
    total = make(0.0)
    for i in range(n):
        total = total + (make(0.01 * (i % 7)) * make(1.0 + 0.001 * i) + b).tanh()
    total.backward()
    return total


def build_vars(n):
    """The same graph in design B, backward run."""
    leaf = lambda v: Var(v, requires_grad=True)
    b = leaf(0.1)
    total = leaf(0.0)
    for i in range(n):
        unit = var_tanh(var_add(var_mul(leaf(0.01 * (i % 7)), leaf(1.0 + 0.001 * i)), b))
        total = var_add(total, unit)
    run_backward(total)
    return total


DESIGNS = {
    "A, capturing output": lambda n: build_values(CapturingValue, n),
    "A, capturing inputs": lambda n: build_values(Value, n),
    "B, nodes and edges": build_vars,
    "library sg.Value": lambda n: build_values(sg.Value, n),
}
N = 2000
OPS = 4 * N

# %% [markdown]
# First the count that does not depend on the machine: objects that only the
# cycle collector can free once the graph is dropped.

# %%
#| calls-exercise
lines = []
for name, build in DESIGNS.items():
    garbage = count_cycle_garbage(lambda: build(N))
    lines.append(f"{name:20}  {garbage:6d} objects left for the cycle collector "
                 f"({garbage / OPS:.0f} per operation)")
print("\n".join(lines))  # one print: output arriving in pieces would not compare equal

# %% [markdown]
# Only micrograd's design leaves garbage: each operation's output, its
# closure, the closure's cells and the inputs they hold stay behind until the
# collector runs. Until then the graphs of earlier training steps stay in
# memory, and every collection that reaches them has to walk them.
#
# Now time (build plus backward, best of 3) and peak memory (`tracemalloc`,
# everything allocated while the graph is built and run). Timings vary from
# machine to machine and run to run, so this cell's output is not compared
# when the course is tested; read the ratios below as ranges, not exact
# numbers.

# %% tags=["nbval-ignore-output"]
#| calls-exercise
def best_time(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def peak_bytes(fn):
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


rows = [(name, best_time(lambda: build(N)), peak_bytes(lambda: build(N)))
        for name, build in DESIGNS.items()]
base_t, base_m = rows[1][1], rows[1][2]
print(f"{'design':20}  {'ms':>7}  {'x time':>6}  {'peak KiB':>8}  {'x memory':>8}")
for name, t, m in rows:
    print(f"{name:20}  {t * 1e3:7.1f}  {t / base_t:6.2f}  {m / 1024:8.0f}  {m / base_m:8.2f}")

# %% [markdown]
# How to read it (ratios are against lesson 06's `Value`). The memory
# column comes out the same every run on one Python; the time columns move,
# and on a busy machine a lot. In the runs we have seen (CPython 3.11 and
# later):
#
# - **Memory.** Design B's peak was *lower*, from three quarters to nine
#   tenths of A's (0.75 to 0.9), although B makes a handle and a node per
#   operation. A's value carries a
#   closure, its cells and a `grad` for every node, for as long as the graph
#   lives; B's node holds only what its backward needs (at most two floats)
#   and a tuple of edges, and its interior
#   gradients exist only briefly, in the engine's buffers. Where the state
#   lives decides what must be kept.
# - **Time.** The ratios vary widely from run to run. The three teaching
#   engines stayed within a factor of about three of each other, usually
#   less. The differences come mostly from how many Python objects and calls
#   an operation makes (micrograd's operator builds its closure inline, ours
#   calls `mul`, which calls `Value`), not from the design. The library's
#   `sg.Value` was faster in every run, from about one and a half to five
#   times: each of its nodes is one object (no closure, no cells), so there
#   are fewer objects to allocate and free.
# - **Cycles.** The capturing design's real cost does not show in one build:
#   in a training loop its garbage piles up between collections, and every
#   collection that reaches it has to walk it.
#
# So for scalars neither design wins clearly. PyTorch chose B because of
# tensors: a handle and a node per operation cost nothing next to a
# million-element tensor, so this table does not decide it. What decides it
# is what a graph made of separate nodes and edges allows: several handles on
# one history (views, operations with several outputs), nodes you can inspect
# and hook (`t.grad_fn.register_hook`), saved tensors freed as each node
# runs, and an engine that schedules nodes across threads and devices,
# because it sees the graph as data, not as closures it can only call.

# %% [markdown]
# ## Stretch (optional) · `var_div`: a node class of your own
#
# Design B needs one node class per operation. Add division: a `DivBackward`
# node and `var_div(a, b)`, in the style of `var_mul`, with the derivatives
# worked out by you. Only the contract below to go on; `hint("07", "var_div")`
# when you want it. Its points are counted apart from the lesson's.

# %%
#| exercise: var_div
#| hint: what does a / b change by when a moves a little, and when b does?
from stridegrad.course.designs import Node, Var  # as imported at the top


class DivBackward(Node):
    """The backward node of ``a / b``: saves the numbers ``apply`` needs (never the Vars)."""

    def __init__(self, next_functions, a, b):
        super().__init__(next_functions)
        ### BEGIN SOLUTION
        self.a, self.b = a, b
        ### END SOLUTION

    def apply(self, grad):
        """One gradient per input, in operand order: ``(dL/da, dL/db)`` for ``dL/d(a/b) = grad``."""
        ### BEGIN SOLUTION
        return (grad / self.b, -grad * self.a / (self.b * self.b))
        ### END SOLUTION


def var_div(a, b):
    """``a / b`` in design B: the output Var and, when a gradient is wanted, its node.

    As ``var_mul``: no history when neither input requires grad; otherwise the
    output's ``grad_fn`` is a ``DivBackward`` with one edge per input, in operand
    order (``gradient_edge(a)``, then ``gradient_edge(b)``), that holds numbers, not
    Vars.

    Example:
        >>> a, b = Var(6.0, requires_grad=True), Var(3.0, requires_grad=True)
        >>> out = var_div(a, b)
        >>> out.data, out.grad_fn.apply(1.0)
        (2.0, (0.3333333333333333, -0.6666666666666666))
    """
    ### BEGIN SOLUTION
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data / b.data)
    node = DivBackward((gradient_edge(a), gradient_edge(b)), a.data, b.data)
    return Var(a.data / b.data, grad_fn=node)
    ### END SOLUTION

# %%
#| check: var_div

# %% [markdown]
# ## Checkpoint

# %%
#| check: all

# %% [markdown]
# ## Where this is in PyTorch
#
# | here | PyTorch |
# |---|---|
# | `Var.grad_fn`, `Var.output_nr` | `t.grad_fn`, `t.output_nr` |
# | what a `Var` keeps for autograd | the tensor's `AutogradMeta` (C++): `grad_`, `requires_grad_`, `grad_fn_`, `output_nr_` and a weak `grad_accumulator_`; a tensor that needs no gradient may have none at all |
# | `Node`, an edge `(node, input_nr)` | `torch::autograd::Node` and `Edge{function, input_nr}` (`torch/csrc/autograd/function.h`, `edge.h`) |
# | `Node.next_functions` | `t.grad_fn.next_functions`, e.g. `((<AccumulateGrad>, 0), (None, 0))` |
# | `AccumulateGrad`, `grad_accumulator` | `AccumulateGrad` nodes; the leaf keeps only a weak pointer to its accumulator |
# | `gradient_edge` | `torch::autograd::impl::gradient_edge` in C++ |
# | `count_dependencies`, `run_backward` | the engine's `compute_dependencies` and ready queue (`torch/csrc/autograd/engine.cpp`) |
# | buffers local to the pass | `InputBuffer`: interior gradients are not kept unless you call `retain_grad()` |
# | saved numbers in `MulBackward` | saved tensors; a version counter on each tensor catches in-place changes to them |
# | `Var.detach()` | `t.detach()`: same storage, no `grad_fn` |
#
# Try it, if you have PyTorch: `z = x * y + b` with `requires_grad=True`
# leaves, then `z.grad_fn`, `z.grad_fn.next_functions`, and
# `z.grad_fn.next_functions[0][0].next_functions`.

# %% [markdown]
# ## Going further
#
# 1. **Two outputs.** Add an operation with two outputs, `sincos(a)`, whose
#    node has two input slots: `output_nr` is 0 for `sin` and 1 for `cos`, and
#    the engine's buffer for a node becomes a list indexed by `input_nr`.
#    Change `run_backward` so that `sin(a) + cos(a)` gets the right gradient.
# 2. **Freeing as you go.** PyTorch drops each node's saved values as soon as
#    it has run (that is why a second `backward()` fails unless you pass
#    `retain_graph=True`). Add that to `MulBackward` and `run_backward`, and
#    measure the peak memory of a long chain before and after.
# 3. **Weak or strong?** `grad_accumulator` keeps only a weak reference. What
#    cycle would a strong one make, and would `count_cycle_garbage` see it?
