"""Known-wrong implementations of episode 07's exercises (two autograd designs)."""

from stridegrad.course.misconceptions import Misconception


_IMPORTS = ("from stridegrad.course.designs import (Var, AccumulateGrad, AddBackward, "
            "MulBackward, TanhBackward, grad_accumulator)\nimport gc\n")

_EDGE = _IMPORTS + '''
def gradient_edge(var):
    if var.grad_fn is not None:
        return (var.grad_fn, var.output_nr)
    if var.requires_grad:
        return (grad_accumulator(var), 0)
    return (None, 0)
'''

_DEPS = '''
def count_dependencies(root):
    counts = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            if next_node not in counts:
                counts[next_node] = 0
                stack.append(next_node)
            counts[next_node] += 1
    return counts
'''

MISCONCEPTIONS = {
    "gradient_edge": [
        Misconception("a new accumulator every time",
          "creates a new AccumulateGrad for a leaf on every call instead of reusing the leaf's "
          "one (grad_accumulator): two uses of a leaf reach two different nodes",
          _IMPORTS + """
def gradient_edge(var):
    if var.grad_fn is not None:
        return (var.grad_fn, var.output_nr)
    if var.requires_grad:
        return (AccumulateGrad(var), 0)
    return (None, 0)
"""),
        Misconception("keeps its own accumulator on the Var",
          "makes the leaf's AccumulateGrad itself and keeps it on the Var (var._acc = "
          "AccumulateGrad(var)): every use reaches one node, but the Var now holds its "
          "accumulator and the accumulator the Var, a reference cycle that only the cycle "
          "collector frees, and grad_accumulator(var) knows nothing of it; get it from "
          "grad_accumulator(var), which keeps only a weak reference",
          _IMPORTS + """
def gradient_edge(var):
    if var.grad_fn is not None:
        return (var.grad_fn, var.output_nr)
    if var.requires_grad:
        if getattr(var, "_acc", None) is None:
            var._acc = AccumulateGrad(var)
        return (var._acc, 0)
    return (None, 0)
"""),
        Misconception("ignores output_nr",
          "returns output number 0 for every value: the second output of a node gets the first "
          "one's gradient",
          _IMPORTS + """
def gradient_edge(var):
    if var.grad_fn is not None:
        return (var.grad_fn, 0)
    if var.requires_grad:
        return (grad_accumulator(var), 0)
    return (None, 0)
"""),
        Misconception("asks requires_grad before grad_fn",
          "tests requires_grad first, but a Var made by an operation requires grad too: it gets "
          "an AccumulateGrad of its own, so its gradient is stored there and never flows on "
          "to the node that made it (ask grad_fn first)",
          _IMPORTS + """
def gradient_edge(var):
    if var.requires_grad:
        return (grad_accumulator(var), 0)
    if var.grad_fn is not None:
        return (var.grad_fn, var.output_nr)
    return (None, 0)
"""),
        Misconception("leaves get no edge",
          "returns (None, 0) for a leaf that requires grad: its gradient is never accumulated",
          _IMPORTS + """
def gradient_edge(var):
    return (var.grad_fn, var.output_nr)
"""),
        Misconception("constants get an accumulator",
          "gives a constant (requires_grad=False) an accumulator: gradients flow into values "
          "that asked for none",
          _IMPORTS + """
def gradient_edge(var):
    if var.grad_fn is not None:
        return (var.grad_fn, var.output_nr)
    return (grad_accumulator(var), 0)
"""),
    ],
    "var_mul": [
        Misconception("forgets an edge",
          "records only one of the two next edges: the other input never gets its gradient",
          _EDGE + """
def var_mul(a, b):
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    node = MulBackward((gradient_edge(a),), a.data, b.data)
    return Var(a.data * b.data, grad_fn=node)
"""),
        Misconception("edges swapped",
          "records y's edge first and x's second: each input receives the other's gradient",
          _EDGE + """
def var_mul(a, b):
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    node = MulBackward((gradient_edge(b), gradient_edge(a)), a.data, b.data)
    return Var(a.data * b.data, grad_fn=node)
"""),
        Misconception("saves the Vars, not their numbers",
          "gives MulBackward the Vars a and b instead of a.data and b.data: its apply then "
          "multiplies a gradient by a Var (a TypeError), and the node keeps both Vars alive",
          _EDGE + """
def var_mul(a, b):
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    node = MulBackward((gradient_edge(a), gradient_edge(b)), a, b)
    return Var(a.data * b.data, grad_fn=node)
"""),
        Misconception("always records a node",
          "creates a MulBackward even when neither input requires grad: a product of constants "
          "gets a grad_fn",
          _EDGE + """
def var_mul(a, b):
    node = MulBackward((gradient_edge(a), gradient_edge(b)), a.data, b.data)
    return Var(a.data * b.data, grad_fn=node)
"""),
        Misconception("drops the None edges",
          "drops the (None, 0) edge of a constant input: the next edges no longer line up with "
          "the inputs",
          _EDGE + """
def var_mul(a, b):
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    edges = tuple(e for e in (gradient_edge(a), gradient_edge(b)) if e[0] is not None)
    return Var(a.data * b.data, grad_fn=MulBackward(edges, a.data, b.data))
"""),
        Misconception("builds the edges itself",
          "writes each input's edge itself, (a.grad_fn, 0) or (AccumulateGrad(a), 0), "
          "instead of calling gradient_edge: a leaf used twice (x * x) reaches two "
          "accumulators, not the one grad_accumulator(x) gives, and an input that is output "
          "1 of its node gets the edge of output 0; use gradient_edge(a), gradient_edge(b)",
          _IMPORTS + """
def var_mul(a, b):
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    edges = []
    for v in (a, b):
        if v.grad_fn is not None:
            edges.append((v.grad_fn, 0))
        elif v.requires_grad:
            edges.append((AccumulateGrad(v), 0))
        else:
            edges.append((None, 0))
    return Var(a.data * b.data, grad_fn=MulBackward(tuple(edges), a.data, b.data))
"""),
        Misconception("saves the inputs in the wrong order",
          "saves (y, x) instead of (x, y) for the backward: each input gets its own value times "
          "the gradient",
          _EDGE + """
def var_mul(a, b):
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    node = MulBackward((gradient_edge(a), gradient_edge(b)), b.data, a.data)
    return Var(a.data * b.data, grad_fn=node)
"""),
    ],
    "count_dependencies": [
        Misconception("counts nodes, not edges",
          "counts each node once however many edges reach it: a node used twice gets 1, so it "
          "runs before its second gradient arrives",
          """
def count_dependencies(root):
    counts = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for next_node in {n for n, _ in node.next_functions if n is not None}:
            if next_node not in counts:
                counts[next_node] = 0
                stack.append(next_node)
            counts[next_node] += 1
    return counts
"""),
        Misconception("recursive",
          "walks the graph by recursion: a long chain exceeds Python's recursion limit "
          "(RecursionError)",
          """
def count_dependencies(root):
    counts = {root: 0}
    def visit(node):
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            first = next_node not in counts
            counts[next_node] = counts.get(next_node, 0) + 1
            if first:
                visit(next_node)
    visit(root)
    return counts
"""),
        Misconception("raises the recursion limit",
          "keeps the recursive walk and raises Python's recursion limit "
          "(sys.setrecursionlimit) so that a long chain fits: the limit only moves the wall "
          "(a deeper graph hits it again, and a very high limit can crash the interpreter), "
          "even when it is put back afterwards: the count must work at the default limit; "
          "keep the stack in a list",
          """
import sys

def count_dependencies(root):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        counts = {root: 0}
        def visit(node):
            for next_node, _ in node.next_functions:
                if next_node is None:
                    continue
                first = next_node not in counts
                counts[next_node] = counts.get(next_node, 0) + 1
                if first:
                    visit(next_node)
        visit(root)
        return counts
    finally:
        sys.setrecursionlimit(old)
"""),
        Misconception("counts every path",
          "visits a node again for every path that reaches it: counts grow with the number of "
          "paths, not edges",
          """
def count_dependencies(root):
    counts = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            counts[next_node] = counts.get(next_node, 0) + 1
            stack.append(next_node)
    return counts
"""),
        Misconception("counts edges to None",
          "counts the edges to None too (it skips None only when it takes it off the stack): "
          "None is no node, an input that needs no gradient, so it must not be in the counts "
          "at all. Skip an edge whose node is None before counting it",
          _DEPS.replace("            if next_node is None:\n                continue\n", "").replace(
            "        node = stack.pop()\n",
            "        node = stack.pop()\n        if node is None:\n            continue\n")),
        Misconception("leaves the root out",
          "leaves the root out of the counts: the engine cannot find its starting node",
          _DEPS.replace("counts = {root: 0}", "counts = {}").replace(
            "    return counts", "    counts.pop(root, None)\n    return counts")),
    ],
    "run_backward": [
        Misconception("runs a node on every arriving gradient",
          "runs a node as soon as any gradient arrives instead of when all have: a shared node "
          "runs twice with partial gradients",
          """
def run_backward(root):
    if root.grad_fn is None:
        raise RuntimeError("no grad_fn")
    stack = [(root.grad_fn, 1.0)]
    while stack:
        node, g = stack.pop()
        for (next_node, _), gi in zip(node.next_functions, node.apply(g)):
            if next_node is not None:
                stack.append((next_node, gi))
"""),
        Misconception("= instead of += in the buffers",
          "overwrites a node's input buffer (=) instead of adding (+=): a value used twice "
          "keeps only the last gradient",
          _DEPS + """
def run_backward(root):
    if root.grad_fn is None:
        raise RuntimeError("no grad_fn")
    deps = count_dependencies(root.grad_fn)
    buffers = {root.grad_fn: 1.0}
    ready = [root.grad_fn]
    while ready:
        node = ready.pop()
        for (next_node, _), g in zip(node.next_functions, node.apply(buffers.pop(node))):
            if next_node is None:
                continue
            buffers[next_node] = g
            deps[next_node] -= 1
            if deps[next_node] == 0:
                ready.append(next_node)
"""),
        Misconception("no check for a missing grad_fn",
          "does not check that the root has a grad_fn: backward on a leaf or constant fails "
          "with an unclear error instead of RuntimeError",
          _DEPS + """
def run_backward(root):
    if root.grad_fn is None:
        return
    deps = count_dependencies(root.grad_fn)
    buffers = {root.grad_fn: 1.0}
    ready = [root.grad_fn]
    while ready:
        node = ready.pop()
        for (next_node, _), g in zip(node.next_functions, node.apply(buffers.pop(node))):
            if next_node is None:
                continue
            buffers[next_node] = buffers.get(next_node, 0.0) + g
            deps[next_node] -= 1
            if deps[next_node] == 0:
                ready.append(next_node)
"""),
        Misconception("writes the leaves' grad itself",
          "writes a leaf's gradient into its Var itself (node.variable.grad = g) instead of "
          "calling its AccumulateGrad's apply: a leaf that already had a grad loses it, "
          "where run_backward must add to it (a second pass, a training step without "
          "zero_grad), and an apply is skipped; call every node's apply, the accumulators' "
          "too",
          _IMPORTS + _DEPS + """
def run_backward(root):
    if root.grad_fn is None:
        raise RuntimeError("no grad_fn")
    deps = count_dependencies(root.grad_fn)
    buffers = {root.grad_fn: 1.0}
    ready = [root.grad_fn]
    while ready:
        node = ready.pop()
        g = buffers.pop(node)
        if isinstance(node, AccumulateGrad):
            node.variable.grad = g
            continue
        for (next_node, _), gi in zip(node.next_functions, node.apply(g)):
            if next_node is None:
                continue
            buffers[next_node] = buffers.get(next_node, 0.0) + gi
            deps[next_node] -= 1
            if deps[next_node] == 0:
                ready.append(next_node)
"""),
        Misconception("recursive",
          "passes gradients on by recursion: a long chain exceeds Python's recursion limit "
          "(RecursionError)",
          """
def run_backward(root):
    if root.grad_fn is None:
        raise RuntimeError("no grad_fn")
    def send(node, g):
        for (next_node, _), gi in zip(node.next_functions, node.apply(g)):
            if next_node is not None:
                send(next_node, gi)
    send(root.grad_fn, 1.0)
"""),
    ],
    "count_cycle_garbage": [
        Misconception("keeps the result alive",
          "keeps build()'s result in a local variable while collecting: the cycles are still "
          "reachable, so none are counted",
          _IMPORTS + """
def count_cycle_garbage(build):
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        result = build()
        return gc.collect()
    finally:
        if was:
            gc.enable()
"""),
        Misconception("leaves the automatic collector on",
          "leaves the automatic collector on: it may free the cycles before the count, so the "
          "number varies",
          _IMPORTS + """
def count_cycle_garbage(build):
    gc.collect()
    build()
    return gc.collect()
""", varies=True),
        Misconception("no collection before build",
          "does not collect before build(): garbage left over from earlier code is counted too",
          _IMPORTS + """
def count_cycle_garbage(build):
    was = gc.isenabled()
    gc.disable()
    try:
        build()
        return gc.collect()
    finally:
        if was:
            gc.enable()
"""),
        Misconception("always switches the collector on",
          "switches the collector on at the end even when it was off before: the caller's "
          "setting is not restored",
          _IMPORTS + """
def count_cycle_garbage(build):
    gc.disable()
    try:
        gc.collect()
        build()
        return gc.collect()
    finally:
        gc.enable()
"""),
        Misconception("turns the collector on when build raises",
          "switches the collector back on in an except clause when build() raises, whatever "
          "it was before: a caller that had it off finds it on; restore what gc.isenabled() "
          "said before, in a finally, on both paths",
          _IMPORTS + """
def count_cycle_garbage(build):
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        build()
        n = gc.collect()
    except Exception:
        gc.enable()
        raise
    if was:
        gc.enable()
    return n
"""),
        Misconception("no try/finally",
          "restores the collector only when build() returns: an exception in build() leaves the "
          "collector off",
          _IMPORTS + """
def count_cycle_garbage(build):
    was = gc.isenabled()
    gc.disable()
    gc.collect()
    build()
    n = gc.collect()
    if was:
        gc.enable()
    return n
"""),
    ],
}


# ------------------------------------------------------------------ stretch: var_div

_DIV = """
from stridegrad.course.designs import Node, Var, gradient_edge


class DivBackward(Node):
    def __init__(self, next_functions, a, b):
        super().__init__(next_functions)
        self.a, self.b = a, b

    def apply(self, grad):
        a, b = {READ}
        return {GRADS}


def var_div(a, b):
    {NO_HISTORY}
    node = DivBackward((gradient_edge(a), gradient_edge(b)), {SAVED})
    return Var(a.data / b.data, grad_fn=node)
"""


def _var_div(read="self.a, self.b", grads="(grad / b, -grad * a / (b * b))",
             no_history="if not (a.requires_grad or b.requires_grad):\n"
                        "        return Var(a.data / b.data)",
             saved="a.data, b.data"):
    return (_DIV.replace("{READ}", read).replace("{GRADS}", grads)
            .replace("{NO_HISTORY}", no_history).replace("{SAVED}", saved))


MISCONCEPTIONS["var_div"] = [
    Misconception("quotient rule without its minus",
      "gives b the gradient +a/b**2 instead of -a/b**2: growing the divisor shrinks the "
      "quotient, so its derivative is negative",
      _var_div(grads="(grad / b, grad * a / (b * b))")),
    Misconception("b's derivative without a",
      "gives b the gradient -1/b**2 instead of -a/b**2: that is the derivative of 1/b, but "
      "a / b is a times 1/b, so a stays as a factor",
      _var_div(grads="(grad / b, -grad / (b * b))")),
    Misconception("forgets the incoming gradient",
      "returns the local derivatives (1/b, -a/b**2) without multiplying them by the gradient "
      "that arrives: right only when that gradient is 1",
      _var_div(grads="(1 / b, -a / (b * b))")),
    Misconception("b's derivative not squared",
      "gives b the gradient -a/b instead of -a/b**2: the derivative of 1/b is -1/b**2",
      _var_div(grads="(grad / b, -grad * a / b)")),
    Misconception("gradients in the wrong order",
      "returns (dL/db, dL/da): apply's gradients must follow next_functions, a's first",
      _var_div(grads="(-grad * a / (b * b), grad / b)")),
    Misconception("node saves the Vars",
      "saves the input Vars in the node and reads .data in apply: the answers are right, "
      "but the graph keeps every input Var alive as long as the node lives",
      _var_div(read="self.a.data, self.b.data", saved="a, b")),
    Misconception("always records history",
      "makes a node even when neither input requires grad: constants get a grad_fn and "
      "requires_grad, so the graph grows for nothing",
      _var_div(no_history="pass")),
    Misconception("only a's requires_grad decides",
      "decides from a alone whether the quotient needs a history (if not a.requires_grad): "
      "a constant divided by a leaf, Var(6.0) / x, gets no grad_fn, so x never receives "
      "its gradient; a history is needed when either input requires grad",
      _var_div(no_history="if not a.requires_grad:\n"
                          "        return Var(a.data / b.data)")),
]
