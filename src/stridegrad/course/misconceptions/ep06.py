"""Known-wrong implementations of episode 06's exercises (scalar autograd)."""

from stridegrad.course.misconceptions import Misconception


_VALUE = "from stridegrad.course.designs import Value\nimport math\n"

_TOPO = '''
def topological_order(root):
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))
            for child in node._prev:
                if child not in visited:
                    stack.append((child, False))
    return order
'''

MISCONCEPTIONS = {
    "add": [
        Misconception("= instead of +=",
          "overwrites the inputs' gradients (=) instead of adding to them (+=): a value used "
          "twice keeps only its last contribution",
          _VALUE + """
def add(a, b):
    out = Value(a.data + b.data, (a, b), "+")
    def _backward(g):
        a.grad = g
        b.grad = g
    out._backward = _backward
    return out
"""),
        Misconception("closure captures its output",
          "its backward closure captures the output and reads (or writes) out.grad instead "
          "of taking the incoming gradient g as its argument: the closure keeps the output "
          "alive in a reference cycle",
          _VALUE + """
def add(a, b):
    out = Value(a.data + b.data, (a, b), "+")
    def _backward(g):
        out.grad = g
        a.grad += out.grad
        b.grad += out.grad
    out._backward = _backward
    return out
"""),
        Misconception("forgets the inputs",
          "records no inputs (children) on the output: the graph is cut there, so backward "
          "never reaches the inputs and their gradients stay 0",
          _VALUE + """
def add(a, b):
    out = Value(a.data + b.data)
    def _backward(g):
        a.grad += g
        b.grad += g
    out._backward = _backward
    return out
"""),
        Misconception("only the first input",
          "passes the gradient to the first input only: the second input's gradient stays 0",
          _VALUE + """
def add(a, b):
    out = Value(a.data + b.data, (a, b), "+")
    def _backward(g):
        a.grad += g
    out._backward = _backward
    return out
"""),
        Misconception("forgets the incoming gradient",
          "adds the local slope 1 into the inputs' grad instead of the output's gradient g "
          "times it: right only when g is 1, so anything after the + is ignored",
          _VALUE + """
def add(a, b):
    out = Value(a.data + b.data, (a, b), "+")
    def _backward(g):
        a.grad += 1.0
        b.grad += 1.0
    out._backward = _backward
    return out
"""),
        Misconception("closure that runs only once",
          "keeps a flag in the closure so that it adds its share only the first time it "
          "runs: one backward pass is right, but a second one (backward called again, or a "
          "closure called twice) sends nothing; a closure adds g * 1 into each input every "
          "time it is called",
          _VALUE + """
def add(a, b):
    out = Value(a.data + b.data, (a, b), "+")
    done = []
    def _backward(g):
        if done:
            return
        done.append(True)
        a.grad += g
        b.grad += g
    out._backward = _backward
    return out
"""),
    ],
    "mul": [
        Misconception("= instead of +=",
          "overwrites the inputs' gradients (=) instead of adding to them (+=): x * x gets half "
          "its gradient",
          _VALUE + """
def mul(a, b):
    out = Value(a.data * b.data, (a, b), "*")
    def _backward(g):
        a.grad = b.data * g
        b.grad = a.data * g
    out._backward = _backward
    return out
"""),
        Misconception("own data instead of the other's",
          "gives each input its own value times the gradient instead of the other input's: "
          "d(x*y)/dx comes out as x, not y",
          _VALUE + """
def mul(a, b):
    out = Value(a.data * b.data, (a, b), "*")
    def _backward(g):
        a.grad += a.data * g
        b.grad += b.data * g
    out._backward = _backward
    return out
"""),
        Misconception("forgets the incoming gradient",
          "forgets to multiply by the output's gradient: right only when that gradient is 1",
          _VALUE + """
def mul(a, b):
    out = Value(a.data * b.data, (a, b), "*")
    def _backward(g):
        a.grad += b.data
        b.grad += a.data
    out._backward = _backward
    return out
"""),
        Misconception("slope as the product divided by the input",
          "computes each input's slope as the product divided by that input ((a*b)/a for "
          "a): right wherever the input is not 0, but at a = 0 a ZeroDivisionError, where "
          "the slope with respect to a is simply b; give each input the other's data times g",
          _VALUE + """
def mul(a, b):
    product = a.data * b.data
    out = Value(product, (a, b), "*")
    def _backward(g):
        a.grad += product / a.data * g
        b.grad += product / b.data * g
    out._backward = _backward
    return out
"""),
    ],
    "tanh": [
        Misconception("derivative from the input",
          "computes 1 - x**2 from the input x instead of the output t = tanh(x): the slope is "
          "wrong except at 0",
          _VALUE + """
def tanh(a):
    out = Value(math.tanh(a.data), (a,), "tanh")
    def _backward(g):
        a.grad += (1.0 - a.data ** 2) * g
    out._backward = _backward
    return out
"""),
        Misconception("sigmoid's derivative",
          "uses sigmoid's derivative t * (1 - t) instead of tanh's 1 - t**2: the gradient is "
          "wrong everywhere except where t is 0",
          _VALUE + """
def tanh(a):
    t = math.tanh(a.data)
    out = Value(t, (a,), "tanh")
    def _backward(g):
        a.grad += t * (1.0 - t) * g
    out._backward = _backward
    return out
"""),
        Misconception("forgets the incoming gradient",
          "forgets to multiply by the output's gradient: right only when that gradient is 1",
          _VALUE + """
def tanh(a):
    t = math.tanh(a.data)
    out = Value(t, (a,), "tanh")
    def _backward(g):
        a.grad += 1.0 - t * t
    out._backward = _backward
    return out
"""),
        Misconception("closure captures its output",
          "reads out.data inside the closure, so the closure captures the output: out -> its "
          "closure -> out is a reference cycle, freed only by the cycle collector. The numbers "
          "are right; let the closure read a plain number t = math.tanh(a.data) instead",
          _VALUE + """
def tanh(a):
    out = Value(math.tanh(a.data), (a,), "tanh")
    def _backward(g):
        a.grad += (1.0 - out.data ** 2) * g
    out._backward = _backward
    return out
"""),
        Misconception("= instead of +=",
          "overwrites the input's gradient (=) instead of adding to it (+=): a value used twice "
          "keeps only its last contribution",
          _VALUE + """
def tanh(a):
    t = math.tanh(a.data)
    out = Value(t, (a,), "tanh")
    def _backward(g):
        a.grad = (1.0 - t * t) * g
    out._backward = _backward
    return out
"""),
        Misconception("tanh from exponentials",
          "computes tanh from its definition, (e**2a - 1) / (e**2a + 1): right for small "
          "numbers, but math.exp overflows past a = 355 (OverflowError), where tanh is "
          "simply 1; math.tanh(a.data) is right for every number",
          _VALUE + """
def tanh(a):
    e = math.exp(2 * a.data)
    t = (e - 1) / (e + 1)
    out = Value(t, (a,), "tanh")
    def _backward(g):
        a.grad += (1.0 - t * t) * g
    out._backward = _backward
    return out
"""),
    ],
    "topological_order": [
        Misconception("recursive (overflows on a 10,000-step chain)",
          "visits the graph by recursion: a long chain exceeds Python's recursion limit "
          "(RecursionError)",
          """
def topological_order(root):
    order, visited = [], set()
    def visit(node):
        if node not in visited:
            visited.add(node)
            for child in node._prev:
                visit(child)
            order.append(node)
    visit(root)
    return order
"""),
        Misconception("reversed: root first",
          "returns the root first and the leaves last: the reverse of the order asked for, "
          "inputs before the values built from them",
          _TOPO.replace("    return order", "    return order[::-1]")),
        Misconception("no visited set: shared nodes twice",
          "keeps no set of visited nodes: a value used twice appears twice in the order, and "
          "shared graphs blow up",
          """
def topological_order(root):
    order, stack = [], [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        else:
            stack.append((node, True))
            for child in node._prev:
                stack.append((child, False))
    return order
"""),
        Misconception("lists a node when first reached (preorder), reversed",
          "lists each node when it is first taken off the stack, before its inputs are done, "
          "and reverses the list: a node reached first along a short path (w in z = y + w, "
          "y = w * 3) ends up after a node that reads it",
          """
def topological_order(root):
    order, visited, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node in visited:
            continue
        visited.add(node)
        order.append(node)
        stack.extend(node._prev)
    return order[::-1]
"""),
        Misconception("leaves left out",
          "leaves the leaves (values with no inputs) out of the order: none of them appears in "
          "it, so their gradients are never handled",
          _TOPO.replace("            order.append(node)",
                                          "            if node._prev:\n"
                                          "                order.append(node)")),
        Misconception("raises the recursion limit",
          "keeps the recursive visit and raises Python's recursion limit "
          "(sys.setrecursionlimit) so that a long chain fits: the limit only moves the wall "
          "(a deeper graph hits it again, and a very high limit can crash the interpreter), "
          "even when it is put back afterwards: the order must work at the default limit; "
          "keep the stack in a list",
          """
import sys

def topological_order(root):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        order, visited = [], set()
        def visit(node):
            if node not in visited:
                visited.add(node)
                for child in node._prev:
                    visit(child)
                order.append(node)
        visit(root)
        return order
    finally:
        sys.setrecursionlimit(old)
"""),
    ],
    "backward": [
        Misconception("walks leaves first",
          "runs the backward steps in topological order, leaves first, instead of reversed: "
          "gradients are passed on before they have arrived",
          _TOPO + """
def backward(root):
    order = topological_order(root)
    for node in order:
        if node._backward is not None:
            node.grad = 0.0
    root.grad = 1.0
    for node in order:
        if node._backward is not None:
            node._backward(node.grad)
"""),
        Misconception("forgets to seed the root",
          "never sets the root's gradient to 1: every gradient stays 0",
          _TOPO + """
def backward(root):
    for node in reversed(topological_order(root)):
        if node._backward is not None:
            node._backward(node.grad)
"""),
        Misconception("no reset of interior nodes (micrograd)",
          "does not reset the interior values' gradients before a second backward: they "
          "accumulate from the first call",
          _TOPO + """
def backward(root):
    order = topological_order(root)
    root.grad = 1.0
    for node in reversed(order):
        if node._backward is not None:
            node._backward(node.grad)
"""),
        Misconception("resets the leaves too",
          "resets every gradient before the pass, the leaves' too: leaves must keep "
          "accumulating across backward calls, like PyTorch's parameters (a training loop "
          "zeroes them itself), so two backward calls must give them twice one call's gradient",
          _TOPO + """
def backward(root):
    order = topological_order(root)
    for node in order:
        node.grad = 0.0
    root.grad = 1.0
    for node in reversed(order):
        if node._backward is not None:
            node._backward(node.grad)
"""),
        Misconception("seeds the root before the reset",
          "sets root.grad = 1.0 before resetting the interior gradients, and the root is "
          "interior too: the reset wipes the seed, so every gradient comes out 0",
          _TOPO + """
def backward(root):
    order = topological_order(root)
    root.grad = 1.0
    for node in order:
        if node._backward is not None:
            node.grad = 0.0
    for node in reversed(order):
        if node._backward is not None:
            node._backward(node.grad)
"""),
        Misconception("recursive order",
          "orders the graph by recursion: a long chain exceeds Python's recursion limit "
          "(RecursionError)",
          """
def topological_order(root):
    order, visited = [], set()
    def visit(node):
        if node not in visited:
            visited.add(node)
            for child in node._prev:
                visit(child)
            order.append(node)
    visit(root)
    return order

def backward(root):
    order = topological_order(root)
    for node in order:
        if node._backward is not None:
            node.grad = 0.0
    root.grad = 1.0
    for node in reversed(order):
        if node._backward is not None:
            node._backward(node.grad)
"""),
        Misconception("clears the interior gradients afterwards",
          "sets every interior node's grad back to 0 once the pass is over, as PyTorch "
          "keeps no gradient on interior tensors: the leaves and the root are right, but the "
          "docstring asks that each interior node hold this call's gradient (xy.grad after "
          "backward(z) for z = x*y + b is 1.0, not 0.0)",
          _TOPO + """
def backward(root):
    order = topological_order(root)
    for node in order:
        if node._backward is not None:
            node.grad = 0.0
    root.grad = 1.0
    for node in reversed(order):
        if node._backward is not None:
            node._backward(node.grad)
    for node in order:
        if node._backward is not None and node is not root:
            node.grad = 0.0
"""),
    ],
    "central_difference": [
        Misconception("forward difference",
          "uses (f(x + h) - f(x)) / h instead of the central difference: an error of order h, "
          "visible on curved functions",
          """
def central_difference(f, xs, i, h=1e-6):
    up = list(xs)
    up[i] += h
    return (f(up) - f(list(xs))) / h
"""),
        Misconception("divides by h",
          "divides by h instead of 2h: every derivative comes out twice its size",
          """
def central_difference(f, xs, i, h=1e-6):
    up, down = list(xs), list(xs)
    up[i] += h
    down[i] -= h
    return (f(up) - f(down)) / h
"""),
        Misconception("modifies xs",
          "nudges the caller's xs in place and leaves them changed: the answer may be right, "
          "the inputs are not",
          """
def central_difference(f, xs, i, h=1e-6):
    xs[i] += h
    high = f(xs)
    xs[i] -= 2 * h
    low = f(xs)
    return (high - low) / (2 * h)
"""),
        Misconception("nudges xs in place, then restores it",
          "nudges xs[i] in the caller's list, calls f on xs itself and puts the number back: "
          "xs ends as it began, but during the call f is given the caller's list, changed. "
          "Give f copies, so that xs never changes, not even for a moment",
          """
def central_difference(f, xs, i, h=1e-6):
    old = xs[i]
    xs[i] = old + h
    high = f(xs)
    xs[i] = old - h
    low = f(xs)
    xs[i] = old
    return (high - low) / (2 * h)
"""),
        Misconception("step scaled by the size of xs[i]",
          "scales the step to the number nudged (h * max(1, abs(xs[i]))), as some numerical "
          "recipes advise: the docstring asks for xs[i] + h and xs[i] - h, the h given, so on "
          "a curved f at a large xs[i] the slope measured is another one",
          """
def central_difference(f, xs, i, h=1e-6):
    step = h * max(1.0, abs(xs[i]))
    up, down = list(xs), list(xs)
    up[i] += step
    down[i] -= step
    return (f(up) - f(down)) / (2 * step)
"""),
        Misconception("ignores the given h",
          "uses its own fixed step instead of the h it is given: results do not change with h, "
          "and differ from the asked step on curved functions",
          """
def central_difference(f, xs, i, h=1e-6):
    up, down = list(xs), list(xs)
    up[i] += 1e-5
    down[i] -= 1e-5
    return (f(up) - f(down)) / 2e-5
"""),
    ],
}


# ------------------------------------------------------------------ stretch: power

_POWER = _VALUE + """
def power(a, n):
    out = Value(a.data ** n, (a,), f"**{n}")
    def _backward(g):
        slope = {SLOPE}{ZERO}
        a.grad {ASSIGN} slope{TIMES_G}
    out._backward = _backward
    return out
"""


def _power(assign="+=", slope="n * a.data ** (n - 1)", times_g=" * g",
           zero=" if n != 0 else 0.0"):
    return (_POWER.replace("{ASSIGN}", assign).replace("{SLOPE}", slope)
            .replace("{TIMES_G}", times_g).replace("{ZERO}", zero))


MISCONCEPTIONS["power"] = [
    Misconception("exponent not brought down",
      "lowers the power but forgets to multiply by n: the slope of a**n comes out "
      "a**(n - 1), right only for n = 1",
      _power(slope="a.data ** (n - 1)")),
    Misconception("power not lowered",
      "multiplies by n but keeps the power n: n * a**n instead of n * a**(n - 1), so a**2 "
      "at 3 gets slope 18, not 6",
      _power(slope="n * a.data ** n")),
    Misconception("slope from the output divided by a",
      "computes the slope as n * out / a: right wherever a is not 0, but a ZeroDivisionError "
      "at a = 0, where the slope of a**3 is simply 0",
      _power(slope="n * a.data ** n / a.data")),
    Misconception("formula used at n = 0",
      "uses n * a**(n - 1) for n = 0 too: a**0 is the constant 1, whose slope is 0 at every "
      "a, but at a = 0 the formula is 0 * 0**-1, a ZeroDivisionError",
      _power(zero="")),
    Misconception("slope 0 at a = 0 for every n",
      "gives the slope 0 wherever a is 0, to keep clear of 0 ** (n - 1): right for n > 1 "
      "and for n = 0, but the slope of a**1 is 1 at every a, 0 included",
      _power(zero=" if a.data != 0 else 0.0")),
    Misconception("= instead of +=",
      "overwrites the input's gradient (=) instead of adding to it (+=): a value used twice "
      "keeps only its last contribution",
      _power(assign="=")),
    Misconception("forgets the incoming gradient",
      "forgets to multiply by the output's gradient g: right only when g is 1",
      _power(times_g="")),
    Misconception("closure captures its output",
      "reaches the input through out._prev inside the closure, so the closure captures the "
      "output: out -> its closure -> out is a reference cycle, freed only by the cycle "
      "collector. The numbers are right; let the closure use a itself",
      _power().replace("        a.grad +=", "        out._prev[0].grad +=")),
]
