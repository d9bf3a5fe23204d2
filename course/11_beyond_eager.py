# %% [markdown]
# # 11 · Beyond eager: capture the graph, then rewrite it
#
# Everything you have built so far runs **eagerly**: each line of Python does
# its work the moment it runs. `x * y + b` multiplies, stores the product in a
# fresh array, then adds. The autograd graph of lessons 06-08 is recorded
# along the way, but only so that `backward()` can walk it; nobody looks at the
# whole computation before it runs.
#
# Compilers turn this around. They first **capture** the computation as a
# graph, then **rewrite** the graph (drop work nobody needs, do repeated work
# once, compute constant parts ahead of time, merge chains of small operations
# into one kernel) and only then run it, again and again. XLA (TensorFlow, JAX),
# TorchDynamo with Inductor (`torch.compile`) and JAX's `jit` all work this
# way. This lesson captures stridegrad's own graph and optimizes it with
# passes you write.
#
# **By the end you can**
#
# - say what eager execution costs (a launch per op, temporaries, memory
#   traffic) and estimate it for a chain of elementwise ops;
# - say *when* eager PyTorch, TorchDynamo, TensorFlow 1, TensorFlow 2's
#   `tf.function` and `jax.jit` build their graphs, and what that means for
#   Python `if` statements;
# - capture a function and a whole training step with `sg.compile`, and read
#   its graph as a table and as a picture;
# - run a graph (`run_graph`) and write the classic passes over a small graph
#   IR: dead-code elimination, common-subexpression elimination, constant
#   folding and elementwise fusion;
# - explain guards and retracing, and when a compiled function falls back to
#   eager mode;
# - measure eager against compiled, and say why fusion gains little on NumPy
#   and a lot on a GPU.

# %%
#| setup
from stridegrad.course import check, hint
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np

import stridegrad as sg
import stridegrad.nn.functional as F
from stridegrad.compile.graph import (COMMUTATIVE, ELEMENTWISE, Graph, Op, evaluate,
                                      from_library, fused_op, parse, validate)

# %% [markdown]
# ## Why compile? What an eager op costs
#
# Take an elementwise chain of 8 operations on two arrays of a million
# `float32` numbers:

# %%
def chain(x, y):
    return (((x * y + 1.0).exp() * 0.5 - y).tanh() ** 2) / 3.0

# %% [markdown]
# Eagerly, every operator is its own complete pass over the data:
#
# 1. **a call**: Python dispatches `__mul__`, the Tensor checks shapes and
#    devices, records autograd metadata, calls NumPy. On a GPU each op is also
#    a **kernel launch**, a few microseconds of fixed cost before any number is
#    touched;
# 2. **a temporary**: the result is a new array of a million numbers (4 MB),
#    allocated, written, read once by the next op, and thrown away;
# 3. **memory traffic**: each op reads its inputs from memory and writes its
#    output back. For cheap elementwise arithmetic the processor waits on
#    memory, not on arithmetic, so time is roughly proportional to bytes moved.
#
# A fused kernel computes the whole chain element by element: it reads `x[i]`
# and `y[i]` once, keeps the seven intermediate values in registers, and
# writes one result. Let us count, op by op, what each way moves: the counts
# come from the chain's graph, which you will meet properly in a moment.

# %%
N = 1_000_000
x_big = sg.tensor(np.random.default_rng(0).standard_normal(N).astype(np.float32))
y_big = sg.tensor(np.random.default_rng(1).standard_normal(N).astype(np.float32))
compiled_chain = sg.compile(chain)
traced = compiled_chain.graph(x_big, y_big, optimized=False)  # as captured
fused = compiled_chain.graph(x_big, y_big)  # after the passes


def traffic(graph):
    """Kernels, temporaries and megabytes read + written by one run of a library graph."""
    sizes = {id(n): int(np.prod(n.shape)) * np.dtype(n.dtype).itemsize for n in graph.nodes}
    moved = 0
    for n in graph.nodes:
        if n.is_compute:
            moved += sizes[id(n)] + sum(sizes[id(a)] for a in n.inputs if hasattr(a, "op"))
    cost = graph.cost()
    return cost["kernels"], cost["temporaries"], moved / 1e6


print(f"{'':>8} {'kernels':>8} {'temporaries':>12} {'MB moved':>9}")
for name, g in (("eager", traced), ("fused", fused)):
    k, t, mb = traffic(g)
    print(f"{name:>8} {k:>8} {t:>12} {mb:>9.0f}")

# %% [markdown]
# Eight kernels against one, seven temporaries against none, and six times
# fewer bytes. What that is worth depends on the machine. A rough model of a
# GPU: a launch costs about 5 µs, and memory moves about 2 TB/s. (Both numbers
# are assumptions for the picture, of the right order for a current data-centre
# GPU; the lesson measures real times further down.) The model adds the two
# costs up, which makes it a worst case: a GPU queues the next launch while the
# current kernel is still running, so part of the launch time hides behind the
# memory traffic.

# %%
LAUNCH_S, BYTES_PER_S = 5e-6, 2e12  # assumed, not measured
fig, ax = plt.subplots(figsize=(7, 2.6))
for row, (name, g) in enumerate((("fused", fused), ("eager", traced))):
    k, _, mb = traffic(g)
    launch_us, memory_us = k * LAUNCH_S * 1e6, mb * 1e6 / BYTES_PER_S * 1e6
    ax.barh(row, launch_us, color="tab:orange", label="launches" if row == 0 else None)
    ax.barh(row, memory_us, left=launch_us, color="tab:blue",
            label="memory traffic" if row == 0 else None)
    ax.text(launch_us + memory_us + 1, row, f"{launch_us + memory_us:.0f} µs", va="center")
    print(f"{name}: {k} launch{'es' * (k != 1)} = {launch_us:.0f} µs, "
          f"{mb:.0f} MB = {memory_us:.0f} µs")
ax.set_yticks([0, 1], ["fused", "eager"])
ax.set_xlim(0, ax.get_xlim()[1] * 1.15)
ax.set_xlabel("modelled time on a GPU (µs), launches + traffic: a worst case")
ax.set_title("8 elementwise ops on 1M float32: where the time goes")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()

# %% [markdown]
# To fuse, the compiler must see the whole chain before running any of it.
# That is what capturing a graph buys.
#
# ## When does each system build its graph?
#
# Every framework has a graph somewhere. They differ in **when** it is built,
# and that decides what a Python `if` can do and what the compiler gets to see.
#
# | system | the graph is built... | a Python `if` on a tensor's value | what optimizes it |
# |---|---|---|---|
# | eager PyTorch, stridegrad until now | while the code runs, op by op; the graph is a side record for `backward()` | just works: the value is there | nothing across ops: each op is its own kernel |
# | TensorFlow 1 | by you, before any data exists: `tf.placeholder`s and ops that return symbolic tensors; `Session.run` executes it later, many times | Python runs only while building; branching on data needs graph ops (`tf.cond`, `tf.while_loop`) | the runtime's graph rewrites (Grappler), XLA optionally |
# | TensorFlow 2, `tf.function` | at the first call per input signature: the Python function is *traced* with symbolic tensors | AutoGraph rewrites `if`/`while` on tensors into `tf.cond`/`tf.while_loop`; a new signature retraces | Grappler; XLA with `jit_compile=True` |
# | JAX, `jax.jit` | at the first call per shape/dtype: the function runs on abstract tracers, giving a *jaxpr* that XLA compiles | an error: the tracer has no value (use `lax.cond`, or make the argument static) | XLA: fusion, CSE, DCE, constant folding, layout... |
# | PyTorch 2, TorchDynamo (`torch.compile`) | at the first call, just before the function's frame runs: Dynamo reads its Python bytecode and pulls the tensor ops into an FX graph, with guards | a **graph break**: the function is split, the `if` runs in Python, the pieces around it are compiled | the backend, Inductor by default: fusion, generated Triton (GPU) or C++ (CPU) kernels |
# | `sg.compile` (this lesson) | at the first call per signature: the Tensor code runs on tracer arrays that record each op, forward, backward and optimizer step alike | the trace stops and the function runs eagerly, with a warning that says why | the four passes of this lesson |
#
# Two ideas run through the table. A graph built by **tracing** sees only the
# path the Python code took for the example inputs, so it is valid only while
# those inputs look the same: the compiler **guards** on shapes and dtypes and
# traces again when they change. And anything that reads a value into Python
# (`.item()`, `if loss > 0`) cannot be part of a graph built before the values
# exist.
#
# ## Capturing `z = x * y + b`
#
# `sg.compile(fn)` returns a function that, on its first call, runs `fn` on
# tracers, records every array operation into a graph, optimizes the graph,
# and replays it from then on. `f.graph(...)` shows the graph for given
# arguments; `optimized=False` shows it as traced.

# %%
@sg.compile
def f(x, y, b):
    return x * y + b


x = sg.tensor([1.0, 2.0, 3.0, 4.0])
y = sg.tensor([10.0, 20.0, 30.0, 40.0])
b = sg.tensor([0.5, 0.5, 0.5, 0.5])
print(f(x, y, b))
print(f.graph(x, y, b, optimized=False))

# %% [markdown]
# Read the table line by line. Each node is **one value**, computed once
# (single assignment): the placeholders `x`, `y`, `b` are read from the
# arguments on every call; `%3` is `multiply` of `x` and `y`, a `float32`
# vector of 4; `%4` adds `b`; `return %4` says what comes back. The op names
# are the array operations the Tensor code called on its `xp` (lesson 10):
# the tracer *is* one more array namespace, which records instead of
# computing. After the passes, the two ops are one fused kernel:

# %%
print(f.graph(x, y, b))
fig, axes = plt.subplots(1, 2, figsize=(11, 2.6))
f.graph(x, y, b, optimized=False).draw(ax=axes[0])
f.graph(x, y, b).draw(ax=axes[1])
axes[0].set_title("as traced: 2 kernels, 1 temporary")
axes[1].set_title("optimized: 1 fused kernel")
plt.show()

# %% [markdown]
# ## Capturing a whole training step
#
# The tracer records whatever runs on tensors, so a function that calls
# `loss.backward()` and `opt.step()` is captured whole: the forward ops, the
# backward ops the autograd engine runs, and the parameter updates. The
# parameters are tensors the function *captured* (through `model` and `opt`):
# they become placeholders too, and their new values and gradients become
# extra outputs, written back after each call.

# %%
X, labels = sg.data.make_moons(n=64, noise=0.1, seed=0)
xb, tb = sg.tensor(X.astype(np.float32)), sg.tensor(labels)


def make_step(seed=0):
    sg.manual_seed(seed)
    model = sg.nn.MLP([2, 8, 2])
    opt = sg.optim.SGD(model.parameters(), lr=0.5)

    def step(x, t):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), t)
        loss.backward()
        opt.step()
        return loss

    return step


eager_step, compiled_step = make_step(), sg.compile(make_step())
eager_losses = [eager_step(xb, tb).item() for _ in range(30)]
compiled_losses = [compiled_step(xb, tb).item() for _ in range(30)]
print("first and last loss:", f"{compiled_losses[0]:.2f}", f"{compiled_losses[-1]:.2f}")
print("compiled equals eager at every step (1e-5):",
      bool(np.allclose(compiled_losses, eager_losses, atol=1e-5)))
print("traces:", compiled_step.traces, " fallbacks:", compiled_step.fallbacks)

# %% [markdown]
# Two traces, not one. A graph is replayed only while the state it was traced
# from still holds (it is **guarded**), and part of that state is whether each
# parameter has a `.grad` when the call *begins*. The first call begins with
# none: nothing has been differentiated yet. Every later call begins with the
# gradients that the previous step left behind (`opt.zero_grad()` clears them
# only once the step is running). So the second call fails the first graph's
# guard and traces again; from then on every call begins the same way and
# replays the second graph.
#
# Here is the optimized graph, and what the passes saved. The placeholders
# `model.0.weight`, ... are the parameters, named by the path through which the
# function reached them; the `return` line lists the loss and then the writes
# back: new gradients (`model.0.weight.grad <- %46`) and new weights
# (`model.0.weight <- %47`). The four `.grad` placeholders are the gradients
# each call begins with, the ones the guard looks at: the graph takes them in,
# yet no line reads them, because `opt.zero_grad()` throws them away before
# `backward()` writes new ones. They stay all the same: a placeholder is an
# argument of the graph, and dead-code elimination keeps every argument.
#
# Three counts here are not the same thing. The header's **ops** are all the
# lines but the placeholders and the constants. The table's **nodes** are all
# the lines, placeholders and constants included. Its **kernels** are the ops
# less the views (`permute_dims`, `mT`, `expand_dims`, ...), which change how
# an array is read and make no pass over its data.

# %%
step_graph = compiled_step.graph(xb, tb)
print(step_graph)
before, after = compiled_step.graph(xb, tb, optimized=False).cost(), step_graph.cost()
print(f"\n{'':>10} {'nodes':>6} {'kernels':>8} {'temporaries':>12}")
for name, c in (("as traced", before), ("optimized", after)):
    print(f"{name:>10} {c['nodes']:>6} {c['kernels']:>8} {c['temporaries']:>12}")

# %% [markdown]
# The same graph as a picture is too wide to read box by box, but its shape
# tells the story: arguments and parameters on the left (blue), the forward
# pass along the top row, the backward pass reaching back to the parameters,
# and the fused updates, outputs drawn in bold, on the right.

# %%
fig = step_graph.draw()
fig.set_dpi(72)
plt.show()

# %% [markdown]
# Find the forward pass (`matmul`, `maximum` for the ReLU, the log-softmax),
# the backward pass (`matmul`s with transposed weights, `greater` for the
# ReLU's mask) and the SGD updates (`model.0.weight - (0.5 * %46)`, fused).
# The rest of the lesson writes the passes that did this.

# %% [markdown]
# ## A small IR to write passes on
#
# The table above is the trace's IR: it carries shapes, dtypes, devices and
# literal arguments. To write passes, a smaller IR is easier to hold in your
# head, and it fits in a few lines of text. `stridegrad.compile.graph` has
# one, and it is the one `sg.compile` rewrites: it **lowers** each trace into
# it, runs its passes there, and **raises** the result back, generating one
# kernel per fused op. The passes it runs, and the `run_graph` that replays
# every compiled call, are the functions of this lesson's exercises (yours,
# with `stridegrad yours`):
#
# - an **`Op`** is one value: `name = op(arg, ..., key=value)`. `op.name` is a
#   string, `op.op` the operation (the library's names: `add`, `subtract`,
#   `multiply`, `divide`, `negative`, `exp`, `tanh`, `sum`, `matmul`...),
#   `op.args` a tuple of the names of earlier values, `op.attrs` the keyword
#   arguments (`axis=0`). Ops cannot be changed: a pass makes new ones with
#   `Op(name, op, args, attrs)`;
# - three ops are special: `input` (an argument of the function), `const`
#   (a value fixed in the graph, `attrs["value"]`) and `fused` (below);
# - a **`Graph`** is a list of ops in execution order, `graph.ops`, and the
#   names it returns, `graph.outputs`. `Graph(ops, outputs)` makes one.
#   `graph[name]` is an op by name, `graph.users()` says which ops read each
#   value, `graph.cost()` counts kernels and temporaries.
#
# Its text form is valid Python, one op per line; `parse` reads it and
# `print` writes it:

# %%
g = parse("""
x = input()
y = input()
b = input()
t = multiply(x, y)
z = add(t, b)
return z
""")
print(g)
print(g.ops[3], "| op:", g.ops[3].op, "| args:", g.ops[3].args)
print("users:", g.users())
print("cost:", g.cost())

# %% [markdown]
# `evaluate(op, values)` runs one op on NumPy (with the library's own rule for
# it), given the values of its args in order. It does not look anything up:
# you hand it the values.

# %%
print(evaluate(g["t"], [2.0, 3.0]))
print(evaluate(Op("s", "sum", ("m",), {"axis": 0}), [np.array([[1.0, 2.0], [3.0, 4.0]])]))

# %% [markdown]
# ## Exercise 1 · `run_graph`: replay a graph
#
# A compiled function, after its first call, is just a graph being replayed.
# Write the replay: walk the ops in order and keep every value in a dict by
# name. An `input` op takes its value from `inputs`; every other op is
# `evaluate(op, [the values of op.args])`. Return the list of output values,
# in the order of `graph.outputs`.

# %%
#| exercise: stridegrad.compile.graph.run_graph
#| hint: every argument is computed before it is used: where do you keep the values?

# %%
#| calls-exercise
print(run_graph(g, {"x": 2.0, "y": 3.0, "b": 1.0}))
print(run_graph(g, {"x": np.array([1.0, 2.0]), "y": np.array([10.0, 20.0]), "b": 0.5}))

# %%
#| check: run_graph

# %% [markdown]
# ## Exercise 2 · dead-code elimination
#
# A trace records everything the function did, including work whose result is
# thrown away: a value computed for a debug print that was removed, a branch
# of a model that is switched off, a gradient nobody asked for. A value is
# **live** when an output depends on it; the rest is dead and can go.
#
# Here `d` and `e` are dead: `e` is read by nobody, and `d` only by `e`. Note
# the trap: removing "ops nobody reads" once would remove `e` and keep `d`
# (which `e` read). Liveness has to flow back from the outputs.

# %%
dead = parse("""
x = input()
y = input()
d = exp(y)
e = multiply(d, x)
z = negative(x)
return z
""")
print(dead.users())

# %% [markdown]
# Write `eliminate_dead_code(graph)`: a new graph with only the ops some output
# needs, in their original order. `input` ops always stay: they are the
# function's arguments, needed or not. An op is needed when an output reads
# it, directly or through other needed ops. Every op comes after the ops it
# reads: use that order to find them all in one walk, with no recursion.

# %%
#| exercise: stridegrad.compile.graph.eliminate_dead_code
#| hint: needed: an output, or read by a needed op. in which order does one walk find them all?

# %%
#| calls-exercise
print(eliminate_dead_code(dead))

# %%
#| check: eliminate_dead_code

# %% [markdown]
# ## Exercise 3 · common-subexpression elimination
#
# Code written for people repeats itself: `(x * 2 + 1) * (x * 2 + 1)`, the
# same softmax in two losses, a `transpose` computed in the forward pass and
# again in the backward pass. Two ops with the **same operation, the same
# arguments and the same attributes** compute the same value: keep the first,
# drop the second, and let its users read the first.
#
# The details are where CSE goes wrong. Before you write it, answer these
# about the examples below:
#
# - once `b` is found to repeat `a`, is a later `exp(b)` a repeat of an
#   earlier `exp(a)`? What must happen to an op's args before you compare it?
# - are `sum(x, axis=0)` and `sum(x, axis=1)` the same value? And
#   `const(value=1.0)` and `const(value=2.0)`? And `const(value=1)` and
#   `const(value=1.0)`, which Python calls equal (`1 == 1.0`) although one is
#   an int and the other a float? (`op.attrs` is a read-only mapping, a
#   `mappingproxy`, which like a dict cannot be a dict key as it is.)
# - does `add(y, x)` repeat `add(x, y)`? Does `subtract(y, x)` repeat
#   `subtract(x, y)`? (`COMMUTATIVE` lists the ops where order does not
#   matter.)
# - two `input()` ops look identical: same op, no args, no attrs. Are they
#   the same value? (The same question would arise for anything random or
#   with a side effect, which our IR does not have.)
# - what if a graph output names an op you drop?

# %%
print(sorted(COMMUTATIVE))
repeats = parse("""
x = input()
y = input()
a = add(x, y)
b = add(y, x)
ea = exp(a)
eb = exp(b)
s = subtract(x, y)
r = subtract(y, x)
z = multiply(ea, eb)
w = divide(s, r)
return z, w
""")

# %%
#| exercise: stridegrad.compile.graph.eliminate_common_subexpressions
#| hint: two ops repeat each other when they do the same to the same arguments: what key says that?

# %%
#| calls-exercise
print(eliminate_common_subexpressions(repeats))

# %% [markdown]
# `exp(b)` became `exp(a)` once `b` was merged into `a`, and so `eb` merged
# into `ea` too; `s` and `r` stay apart, since subtraction does not commute.
# Merging is safe because an op on the same inputs gives the same bits every
# time: that is what "deterministic" buys a compiler.

# %%
#| check: eliminate_common_subexpressions

# %% [markdown]
# ## Exercise 4 · constant folding
#
# Some values do not depend on the arguments at all: a scale `sg.tensor(2.0) *
# 0.25` written in the model, the `1 / N` of a mean's gradient, the
# `ones_like(loss)` that seeds `backward()`. They are the same on every call,
# so a compiler computes them **once**, while compiling, and keeps the result
# as a constant.
#
# Write `constant_fold(graph)`: every op whose value can be known while
# compiling becomes a `const` op **of the same name** (so its users and the
# outputs need no change) holding that value; `evaluate` computes it.
# Everything else stays as it is, and the `const` ops nobody reads any more
# are left in place: dead-code elimination is the pass that removes them. In
# the example below, which ops can fold? Is `k2` one of them, although it
# reads no `const` op directly?

# %%
consts = parse("""
x = input()
two = const(value=2.0)
quarter = const(value=0.25)
k = multiply(two, quarter)
k2 = add(k, k)
t = multiply(x, two)
z = multiply(t, k2)
return z
""")

# %%
#| exercise: stridegrad.compile.graph.constant_fold
#| hint: which ops can be computed before the inputs are known?

# %%
#| calls-exercise
folded = constant_fold(consts)
print(folded)
print("\nthen dead-code elimination:")
print(eliminate_dead_code(folded))

# %% [markdown]
# `k` and `k2` were computed once, here; `two` stays, because `t` still reads
# it. The result multiplies by `1.0`, which changes nothing: a simplification
# pass could drop it, and the Stretch at the end of this lesson,
# `simplify_identities`, is that pass.

# %%
#| check: constant_fold

# %% [markdown]
# ## Passes work together, in an order
#
# Each pass leaves work for the next: folding turns ops into constants and
# leaves the old constants unread (dead code); it can also make two ops equal
# that were not (CSE); CSE leaves the dropped ops' inputs with fewer readers
# (dead code again). So the library runs, like most compilers, **fold → CSE →
# DCE**, and fusion last, because a fused kernel hides its ops from the other
# passes.
#
# Here is a function with a bit of everything: a repeated expression, a dead
# value, constants. `from_library` turns the library's traced graph into our
# small IR (each number literal such as the `2.0` of `x * 2.0` becomes a
# `const` op of its own), and your three passes run on it:

# %%
def messy(x, y):
    a = x * 2.0 + 1.0
    b = x * 2.0 + 1.0  # the same expression again
    unused = (y * 3.0).exp()  # computed, never returned
    k = sg.tensor(2.0) * sg.tensor(0.25)  # constants only
    return ((a * b) * k).tanh().sum(), (y - x).exp() * y


compiled_messy = sg.compile(messy)
xs, ys = sg.tensor([0.1, -0.2, 0.3]), sg.tensor([0.5, 0.25, -1.0])
ours = from_library(compiled_messy.graph(xs, ys, optimized=False))
print(ours)

# %%
#| calls-exercise
stages = {"as traced": ours}
for p in (constant_fold, eliminate_common_subexpressions, eliminate_dead_code):
    ours = validate(p(ours))
    stages[f"after {p.__name__}"] = ours
for name, stage in stages.items():
    c = stage.cost()
    print(f"{name:>41}: {c['ops']:>2} ops, {c['kernels']:>2} kernels, "
          f"{c['temporaries']:>2} temporaries")
print()
print(ours)

# %% [markdown]
# ## Exercise 5 · elementwise fusion
#
# What is left is the memory traffic of the first section: a chain of
# elementwise ops, each writing a temporary that the next reads back. A
# **fused** op runs a whole chain as one kernel. In our IR it is written
#
# ```
# z = fused(x, y, b, body='t = multiply(x, y); z = add(t, b)')
# ```
#
# its `body` lists the ops it runs, its args are the values the body reads
# from outside, and it takes the name of the body's last op, so nothing that
# reads `z` has to change. `fused_op(graph, group)` builds one from a list of
# ops (in any order); `evaluate` runs it.
#
# When may an op `t` disappear into its reader's kernel? Its value must be
# needed **only inside that kernel**, so that it never has to be stored:
#
# - exactly **one** op reads `t` (`graph.users()` lists each reader once): a
#   value with two readers must be stored for the second one (or computed
#   twice: some compilers do that for cheap ops, we do not);
# - that reader is **elementwise** too (`ELEMENTWISE`): a reduction such as
#   `sum` or a `matmul` mixes elements, so it cannot take `t[i]` from a
#   register the moment it is made;
# - `t` is **not an output**: outputs are stored anyway.
#
# Write `fuse_elementwise(graph)`: every maximal chain (or tree) of such ops
# becomes one `fused` op, and every other op stays as it is. A chain can be
# long, `exp(negative(multiply(x, y)))`, and a kernel can absorb several
# chains at once, `add(exp(x), tanh(y))`. Which op of a group decides where
# the fused op goes, and how can one walk in order build the groups before
# that op is reached? `hint("11", "fuse_elementwise")` when you want it.

# %%
print(sorted(ELEMENTWISE))
print(fused_op(g, [g["t"], g["z"]]))

# %%
#| exercise: stridegrad.compile.graph.fuse_elementwise
#| hint: an elementwise value need not be stored when its only reader is elementwise too

# %%
#| calls-exercise
print(fuse_elementwise(g))
print()
lowered = validate(fuse_elementwise(ours))
print(lowered)
print("\ncost before fusion:", ours.cost())
print("cost after fusion: ", lowered.cost())

# %%
#| check: fuse_elementwise

# %% [markdown]
# ## Your passes against the library's
#
# `sg.compile` runs these four functions (the library's versions of the ones
# you wrote; `stridegrad yours` runs it with yours): `stridegrad.compile.passes`
# lowers the trace, calls them, and raises the result back into the trace's
# IR, as `compiled_messy.graph(xs, ys)` shows it. Run your pipeline on
# the trace of `messy` and compare: the kernels and temporaries left should
# agree, and replaying your optimized graph with your `run_graph` should give
# what eager mode gives.

# %%
#| calls-exercise
yours = from_library(compiled_messy.graph(xs, ys, optimized=False))
for p in (constant_fold, eliminate_common_subexpressions, eliminate_dead_code, fuse_elementwise):
    yours = validate(p(yours))
library = compiled_messy.graph(xs, ys).cost()
print(f"{'':>8} {'kernels':>8} {'temporaries':>12}")
print(f"{'yours':>8} {yours.cost()['kernels']:>8} {yours.cost()['temporaries']:>12}")
print(f"{'library':>8} {library['kernels']:>8} {library['temporaries']:>12}")
replayed = run_graph(yours, {"x": xs.numpy(), "y": ys.numpy()})
for got, want in zip(replayed, messy(xs, ys)):
    print("equal to eager:", bool(np.allclose(got, want.numpy(), rtol=1e-6)))

# %% [markdown]
# And the library's version of the same graph, drawn: the repeated
# `x * 2.0 + 1.0` is computed once inside one fused kernel, the dead `exp` is
# gone, `2.0 * 0.25` is the constant `0.5`.

# %%
print(compiled_messy.graph(xs, ys))
compiled_messy.graph(xs, ys).draw()
plt.show()

# %% [markdown]
# ## Guards and retracing
#
# A traced graph is specialised: its shapes and dtypes are baked in (the
# fused kernel of a `(4,)` input is not the one for `(2, 3)`), and so is every
# choice the Python code made along the way. So a compiled function keys its
# cache on a **signature** of the call (each tensor's shape, dtype, device and
# `requires_grad`, and whether grad mode is on), and checks **guards** on the
# tensors it captured (as you saw with the gradients above). A new signature
# traces again; `traces` counts how often.

# %%
@sg.compile
def scaled_exp(x):
    return (x * 2.0).exp()


for shape, dtype in [((3,), "float32"), ((3,), "float32"), ((4,), "float32"),
                     ((2, 3), "float32"), ((4,), "float32"), ((4,), "float64")]:
    scaled_exp(sg.ones(*shape, dtype=dtype))
    print(f"called with {dtype}{list(shape)!s:<7} -> traces = {scaled_exp.traces}, "
          f"graphs cached = {scaled_exp.cache_size}")

# %% [markdown]
# The second `(3,)` call and the second `(4,)` call reuse their graphs; every
# new shape or dtype costs a trace. A training loop with a fixed batch size
# traces once or twice; a loop whose last batch is smaller traces once more
# for it. (PyTorch goes further: after a shape changes, it retraces once with
# that dimension **symbolic**, so that one graph serves every size.)
#
# What cannot be captured at all is Python that depends on the *values*: the
# tracer has no number to give `if` or `.item()`. `sg.compile` then stops the
# trace, warns once with the reason, and runs that signature eagerly from then
# on; the results are right, just not compiled.

# %%
@sg.compile
def branchy(x):
    if x.sum().item() > 0:  # a Python decision on a value
        return x * 2.0
    return x * 3.0


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = branchy(sg.tensor([1.0, -2.0, 4.0]))
print(out, "| fallbacks:", branchy.fallbacks)
print("warning:", str(caught[0].message).split(" at ")[0])

# %% [markdown]
# The usual cures: keep the decision in the graph (compute both branches and
# select elementwise with a mask, as ReLU's backward does with `greater`), or
# do a value check only in eager mode and skip it while tracing. That is what
# the library's `cross_entropy` does with its check that every label is in
# range, and why the training step above compiled. (The library's version is
# the finished form of the one you wrote in lesson 09; look for `_tracing` in
# its source, `stridegrad/nn/functional.py`.)

# %% [markdown]
# ## Measuring eager against compiled
#
# Now the real clock, on this machine's CPU, for the 8-op `chain` on a million
# numbers. The two versions take turns, call after call, and we keep the
# median of each: whatever else the machine is doing then slows both alike.
# The printed times vary from run to run (so the notebook checks do not
# compare them).

# %% tags=["nbval-ignore-output"]
def interleaved_medians(fns, args, rounds=9):
    """The median time of each function, calling them in turn, round after round."""
    for fn in fns:
        fn(*args)  # warm-up (and, for a compiled function, the trace)
    times = [[] for _ in fns]
    for _ in range(rounds):
        for fn, ts in zip(fns, times):
            start = time.perf_counter()
            fn(*args)
            ts.append(time.perf_counter() - start)
    return [sorted(ts)[len(ts) // 2] for ts in times]


eager_s, compiled_s = interleaved_medians([chain, compiled_chain], (x_big, y_big))
print(f"eager:    {eager_s * 1e3:6.2f} ms")
print(f"compiled: {compiled_s * 1e3:6.2f} ms   ({eager_s / compiled_s:.2f}x)")

# %% [markdown]
# The ratio your cell printed is your machine's, this time. It depends on the
# machine more than on anything in the code, and on a machine that other
# programs keep busy it changes from one run to the next; it can even come out
# below 1x, the compiled version slower: then run the cell once more. Why so
# variable, and never the six times fewer bytes the model promised? On
# NumPy, the library's "fused" kernel is still eight NumPy calls, one per
# step. What it saves is the allocation of seven temporaries (it writes each
# step into one reused buffer with `out=`) and the Tensor's Python overhead
# per op. A fresh 4 MB array is cheap when the memory allocator hands back
# memory it just freed, and expensive when it must ask the operating system
# for new pages, which it must then fill with zeros: that is the part that
# changes from machine to machine, and from run to run.
#
# What it does not save is the traffic: each of the eight calls still reads
# and writes a whole array of a million numbers, as in eager mode. Those
# eight trips through memory are most of the time, in both versions.
#
# On a GPU the picture of the first section is real: the library turns the
# fused node into **one generated CUDA kernel** (a CuPy `ElementwiseKernel`),
# so the eight launches become one and the arrays are read once. This is the
# change that matters for memory-bound chains, and the reason every deep
# learning compiler starts with fusion. The cell below measures it when a GPU
# is at hand.

# %% tags=["nbval-ignore-output"]
cuda_ok, cuda_why = sg.backend.device_available("cuda")
if cuda_ok:
    import cupy as cp

    xg, yg = x_big.to("cuda"), y_big.to("cuda")
    sync = cp.cuda.Device().synchronize

    def timed(fn):
        return lambda *a: (fn(*a), sync())

    eager_gpu, compiled_gpu = interleaved_medians([timed(chain), timed(compiled_chain)], (xg, yg))
    print(f"cuda eager:    {eager_gpu * 1e3:6.3f} ms")
    print(f"cuda compiled: {compiled_gpu * 1e3:6.3f} ms   ({eager_gpu / compiled_gpu:.1f}x)")
else:
    print("No usable GPU here, so no GPU timing. The reason:", cuda_why)

# %% [markdown]
# ## Stretch (optional) · `simplify_identities`
#
# Traced code is full of arithmetic that does nothing: `x * 1` from a scale
# left at its default, `x + 0` from a bias initialised to zero. A pass that
# removes them lets the next passes (and the fuser) see shorter chains. Write
# it in the same style as the passes above. (Whether `x + 0.0` really equals
# `x` for every float is a fair question; Going further 1 comes back to it.
# Here, treat the two as equal.) Only the contract below to go on;
# `hint("11", "simplify_identities")` when you want it. Its points are counted
# apart from the lesson's.

# %%
#| exercise: simplify_identities
#| hint: which ops give back one of their arguments unchanged, and who must read that argument instead?
from stridegrad.compile.graph import Graph, Op


def simplify_identities(graph):
    """A new graph without the ops that give back one of their arguments unchanged.

    Those are ``add(a, z)``, ``add(z, a)``, ``subtract(a, z)``, ``multiply(a, o)``,
    ``multiply(o, a)`` and ``divide(a, o)``, where ``z`` is a ``const`` op whose
    value is the number 0 (``0`` or ``0.0``) and ``o`` one whose value is the
    number 1 (an array of zeros or ones is not one: it may broadcast ``a`` to
    another shape). ``subtract(z, a)`` is ``-a`` and ``divide(o, a)`` is ``1 / a``:
    they stay. Every reader of a dropped op, outputs included, reads
    ``a`` instead, so chains of them go too. Everything else keeps its order; the
    consts stay (dead-code elimination removes them). ``graph`` is not changed.

    Example:
        >>> g = parse("x = input()\\none = const(value=1.0)\\ny = multiply(x, one)\\n"
        ...           "z = exp(y)\\nreturn z")
        >>> print(simplify_identities(g))
        x = input()
        one = const(value=1.0)
        z = exp(x)
        return z
    """
    ### BEGIN SOLUTION
    consts = {op.name: op.attrs["value"] for op in graph.ops if op.op == "const"}
    replace, kept = {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        same = None
        if len(args) == 2:
            a, b = args
            if op.op in ("add", "subtract") and consts.get(b) == 0:
                same = a
            elif op.op == "add" and consts.get(a) == 0:
                same = b
            elif op.op in ("multiply", "divide") and consts.get(b) == 1:
                same = a
            elif op.op == "multiply" and consts.get(a) == 1:
                same = b
        if same is not None:
            replace[op.name] = same
        else:
            kept.append(op if args == tuple(op.args) else Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(name, name) for name in graph.outputs])
    ### END SOLUTION

# %%
#| check: simplify_identities

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
# `torch.compile(fn)` is the same idea with industrial parts:
#
# | here | PyTorch 2 |
# |---|---|
# | `sg.compile(fn)`, `@sg.compile` | `torch.compile(fn)`, `@torch.compile`: TorchDynamo captures, a backend compiles (Inductor by default) |
# | tracing on tracer arrays | Dynamo reads the Python bytecode of the frame and records tensor ops into an **FX graph**; shapes come from "fake" tensors that carry metadata only |
# | `Graph`, `Node(op, inputs, attrs, shape, dtype)` | `torch.fx.Graph` of `torch.fx.Node`s: `op` is one of `placeholder`, `get_attr`, `call_function`, `call_method`, `call_module`, `output`, with `target`, `args`, `kwargs`, and `meta` for shapes and dtypes; `graph_module.graph.print_tabular()` prints a table like ours |
# | `f.graph(...)` | `TORCH_LOGS="graph_code"` prints the captured graphs; `torch.fx.symbolic_trace(module)` traces a module directly |
# | the backward ops in the trace | **AOTAutograd** traces forward and backward ahead of time into joint graphs, then splits them |
# | `eliminate_dead_code` | `torch.fx.Graph.eliminate_dead_code()` |
# | `eliminate_common_subexpressions` | CSE on the FX graphs (`fx_graph_cse` in AOTAutograd), and again inside Inductor's generated kernels |
# | `constant_fold` | Inductor's constant folding; with `freezing`, inference weights are treated as constants too |
# | `fuse_elementwise` | Inductor's scheduler fuses pointwise ops, and also pointwise ops into reductions, then generates **Triton** kernels on GPU and C++/OpenMP on CPU |
# | signature, guards, `traces` | Dynamo's guards; a failed guard recompiles, up to a limit (`torch._dynamo.config.cache_size_limit`, `recompile_limit` in newer versions); `TORCH_LOGS="recompiles"` says why; dynamic shapes after the first change |
# | eager fallback with a `CompileWarning` | a **graph break**: the function is split around what cannot be captured; `torch._dynamo.explain(fn)(*args)` lists the breaks, `fullgraph=True` turns a break into an error |
#
# JAX shows its IR with `jax.make_jaxpr(fn)(*args)`, a listing close to our
# text form; XLA's own passes (its HLO DCE, CSE, constant folding and fusion)
# are the grown-up versions of the four you wrote.

# %% [markdown]
# ## Going further
#
# 1. **When is an identity exact?** Your `simplify_identities` treats
#    `x + 0.0` and `x * 1.0` as `x`. Two traps: with a constant *array* of ones
#    the product may be **larger** than `x` (broadcasting), and `x + 0.0` is
#    not `x` when `x` is `-0.0` (the sum is `+0.0`, and `1 / x` changes sign).
#    Which of its rewrites are exact for every float, and which would a
#    careful compiler keep for a "fast math" mode? Add
#    `negative(negative(x)) -> x`: is that one exact?
# 2. **Peephole on the training step.** The step's graph above has
#    `mT(permute_dims(w, (1, 0)))`: transposing twice. Write a pass that
#    replaces such a pair by `w` (on `from_library` of the traced step, or on
#    the trace's own IR: `sg.compile(step, passes=(...))` takes functions from
#    graph to graph), and measure how many nodes and kernels it saves on the MLP
#    step. Would CSE find anything more once the pairs are gone?
# 3. **Fusion beyond chains.** Our fusion refuses a value with two readers,
#    and stops at every reduction. XLA's *multi-output fusion* computes `t` and
#    both its readers in one kernel with two outputs; Inductor fuses a
#    pointwise producer *into* the reduction that reads it. Sketch how the
#    `fused` op would have to change for each, and which of the two saves more
#    memory traffic on `sum(exp(x) * y)`.
